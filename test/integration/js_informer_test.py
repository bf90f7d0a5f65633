"""The JavaScript client's informer (@kubernetes/client-node 1.4.0 on
Node, test/integration/js/informer.mjs) through ringwatch against the real
store (etcd, or Redis: harness.Store).  After every step the informer's
cache (list(): name -> resourceVersion) must converge to what the store
holds in the namespace:

1. start: the informer lists and watches;
2. creates, updates and deletes: the watch delivers them;
3. ringwatch ends watches cleanly (--min-request-timeout 1): the informer
   re-watches from its last RV, without relisting and without errors;
4. ringwatch is restarted on the same port while writes happen: the
   informer's watch breaks (its "error" handler restarts it) and it
   re-watches from its RV: over etcd the new ringwatch warm-starts (its
   first list reads an older revision and the history since is replayed
   into the ring), so the informer gets the changes it missed without
   relisting; over Redis its RV predates the new cache, the new ringwatch
   answers 410 and it relists;
5. the store compacts past ringwatch's revision while ringwatch is cut
   off from it (etcd's compaction; Redis trims the change log): ringwatch
   relists, the informer's watch gets ERROR 410 and the informer relists;
6. the store is restored from an older copy of its data: the informer's
   watch gets ERROR 410 and it relists.  While the store's revision is
   below what the abandoned history reached, every revision ringwatch can
   hand out is lost and a watch from one gets 410: the informer, which
   relists at once, relists about once a second (not as fast as it can),
   its cache equal to the store's each time; once the store writes past,
   it converges and stops relisting.

The npm package is installed by `npm ci` into test/integration/js/
node_modules (.gitignored) from the committed package-lock.json the first
time; without node or the npm registry the test fails, saying why."""
import fcntl
import threading

from harness import *

JSDIR = os.path.join(TOP, "test", "integration", "js")
NODE = shutil.which("node") or "/usr/bin/node"
NPM = shutil.which("npm") or "/usr/bin/npm"
NS = "ns"
WAIT = 20  # seconds any convergence may take


def ensure_modules():
    """Runs `npm ci` in JSDIR unless node_modules holds what the lock file
    asks for; fails with npm's output when that is impossible."""
    if not os.access(NODE, os.X_OK) or not os.access(NPM, os.X_OK):
        raise Failure("node or npm not found: scripts/install-deps installs nodejs and npm")
    version = subprocess.run([NODE, "--version"], capture_output=True, text=True,
                             timeout=10).stdout.strip()
    major, minor = (int(x) for x in version.lstrip("v").split(".")[:2])
    # client-node 1.4's Watch calls AbortSignal.any (Node 20.3).
    check((major, minor) >= (20, 3), "node %s is too old for @kubernetes/client-node 1.4 "
          "(needs >= 20.3)", version)
    marker = os.path.join(JSDIR, "node_modules", ".package-lock.json")
    lock = os.path.join(JSDIR, "package-lock.json")
    with open(os.path.join(tempfile.gettempdir(), "ringwatch-npm-ci.lock"), "w") as lf:
        fcntl.flock(lf, fcntl.LOCK_EX)
        if os.path.exists(marker) and os.path.getmtime(marker) >= os.path.getmtime(lock):
            return
        print("npm ci in %s" % JSDIR)
        try:
            p = subprocess.run([NPM, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                               cwd=JSDIR, capture_output=True, text=True, timeout=300)
        except subprocess.TimeoutExpired:
            raise Failure("npm ci timed out after 300 s: is the npm registry reachable?")
        if p.returncode != 0:
            raise Failure("npm ci failed (exit %d): cannot install @kubernetes/client-node "
                          "(is the npm registry reachable?):\n%s"
                          % (p.returncode, (p.stdout + p.stderr)[-3000:]))
    with open(os.path.join(JSDIR, "node_modules", "@kubernetes", "client-node",
                           "package.json")) as f:
        eq(json.load(f)["version"], "1.4.0", "installed @kubernetes/client-node version")


class Informer:
    """node informer.mjs; a thread collects its JSON lines."""

    def __init__(self, url, ns=NS, kubeconfig=None):
        """kubeconfig: a kubeconfig file (server, CA, credentials) instead
        of url (secure_front_test)."""
        self.err = tempfile.NamedTemporaryFile(prefix="rw-node-", suffix=".log", delete=False)
        argv = [NODE, os.path.join(JSDIR, "informer.mjs"), url, ns] + (
            [kubeconfig] if kubeconfig else [])
        self.proc = subprocess.Popen(argv,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.err, text=True, bufsize=1)
        self.lines = []
        self.cond = threading.Condition()
        self.ids = 0
        threading.Thread(target=self._read, daemon=True).start()
        defer(self.stop)

    def _read(self):
        for line in self.proc.stdout:
            try:
                obj = json.loads(line)
            except ValueError:
                obj = {"ev": "raw", "line": line.rstrip()}
            with self.cond:
                self.lines.append(obj)
                self.cond.notify_all()

    def count(self, ev):
        with self.cond:
            return sum(1 for l in self.lines if l.get("ev") == ev)

    def since(self, n):
        with self.cond:
            return list(self.lines[n:])

    def mark(self):
        with self.cond:
            return len(self.lines)

    def state(self, timeout=5):
        """The informer's cache now: (latestResourceVersion, {name: rv})."""
        check(self.proc.poll() is None, "node exited %s:\n%s", self.proc.returncode,
              self.diagnostics())
        self.ids += 1
        want = str(self.ids)
        self.proc.stdin.write("state %s\n" % want)
        self.proc.stdin.flush()
        deadline = time.time() + timeout
        with self.cond:
            while True:
                for l in reversed(self.lines):
                    if l.get("ev") == "state" and l.get("id") == want:
                        return l["rv"], l["items"]
                left = deadline - time.time()
                check(left > 0, "no state from the informer in %ds:\n%s", timeout,
                      self.diagnostics())
                self.cond.wait(left)

    def diagnostics(self):
        with self.cond:
            tail = [json.dumps(l) for l in self.lines if l.get("ev") != "state"][-40:]
        with open(self.err.name, errors="replace") as f:
            err = f.read()[-3000:]
        return "informer output (last 40, states omitted):\n  %s\nnode stderr:\n%s" % (
            "\n  ".join(tail), err)

    def stop(self):
        if self.proc is None:
            return
        try:
            self.proc.stdin.close()
            self.proc.wait(5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None
        os.unlink(self.err.name)


def store_state(store):
    """name -> mod revision (as a string) of every ConfigMap in NS."""
    prefix = cm_key(NS, "")
    return {key[len(prefix):]: str(rev) for key, (rev, _) in store.range(prefix).items()}


def converge(store, inf, rw, what):
    """Waits until the informer's cache equals the store's NS; returns it."""
    deadline = time.time() + WAIT
    while True:
        want = store_state(store)
        rv, got = inf.state()
        if got == want and rv:  # rv "": between a 410 and its relist
            top = max([int(v) for v in want.values()] or [0])
            check(rv and int(rv) >= top, "%s: informer RV %r below its newest item %d",
                  what, rv, top)
            print("%s: converged on %d objects (informer RV %s)" % (what, len(got), rv))
            return got
        if time.time() > deadline:
            raise Failure("%s: the informer did not converge in %ds\n want %r\n got  %r\n%s\n"
                          "ringwatch log:\n%s" % (what, WAIT, want, got, inf.diagnostics(),
                                                  rw.logtext() if rw.proc else "(stopped)"))
        time.sleep(0.2)


def put(store, name, data=None, ns=NS):
    return store.put(cm_key(ns, name), configmap(ns, name, data or {"k": name}))


def main():
    ensure_modules()
    store = Store()
    relay = Relay(store)
    for name in "abcde":
        put(store, name)
    put(store, "x", ns="other")
    port = free_port()
    rw = Ringwatch(store, "--min-request-timeout", "1", resources="configmaps",
                   upstream=relay.url, port=port)

    # 1. list and watch.
    inf = Informer(rw.url)
    converge(store, inf, rw, "initial list")
    eq(inf.count("list"), 1, "lists after the start")

    # 2. changes through the watch.
    m = inf.mark()
    put(store, "f")
    put(store, "a", {"v": "2"})
    store.delete(cm_key(NS, "b"))
    put(store, "g")
    store.delete(cm_key(NS, "g"))
    put(store, "y", ns="other")
    converge(store, inf, rw, "after writes")
    seen = [(l["ev"], l["name"]) for l in inf.since(m) if l["ev"] in ("add", "update", "delete")]
    eq(seen, [("add", "f"), ("update", "a"), ("delete", "b"), ("add", "g"), ("delete", "g")],
       "informer events for the writes")
    eq(inf.count("list"), 1, "lists after the writes")

    # 3. watches end cleanly every 1-2 s: re-watch from the last RV.
    m, connects = inf.mark(), inf.count("connect")
    time.sleep(4.5)
    put(store, "c", {"v": "2"})
    converge(store, inf, rw, "after clean watch ends")
    check(inf.count("connect") >= connects + 2, "the informer did not re-watch (%d connects "
          "before, %d after):\n%s", connects, inf.count("connect"), inf.diagnostics())
    errors = [l for l in inf.since(m) if l["ev"] in ("error", "restart")]
    eq(errors, [], "informer errors when watches end cleanly")
    eq(inf.count("list"), 1, "lists after clean watch ends (re-watch, no relist)")

    # 4. ringwatch restarts on the same port; writes while it is away.
    m, lists = inf.mark(), inf.count("list")
    rw.stop()
    put(store, "h")
    put(store, "c", {"v": "3"})
    store.delete(cm_key(NS, "d"))
    rw = Ringwatch(store, "--ring-capacity", "4", resources="configmaps", upstream=relay.url,
                   port=port)
    converge(store, inf, rw, "after the restart")
    if store.old_revisions:  # a warm restart
        eq(inf.count("list"), lists, "informer lists after a warm restart")
    else:
        check(inf.count("list") > lists, "the informer converged without relisting:\n%s",
              inf.diagnostics())
    for i in range(8):  # more than the ring holds
        put(store, "r%d" % i)
    store.delete(cm_key(NS, "r0"))
    converge(store, inf, rw, "after writes past the ring's capacity")
    print("restart: %s" % [l for l in inf.since(m) if l["ev"] in ("list", "error", "restart")])

    # 5. compaction past ringwatch's revision while it is cut off: it
    # relists, and so must the informer.
    m, lists = inf.mark(), inf.count("list")
    relay.cut()
    put(store, "a", {"v": "3"})
    put(store, "i")
    store.delete(cm_key(NS, "e"))
    last = put(store, "z", ns="other")
    store.compact(last)
    time.sleep(1)
    relay.restore()
    converge(store, inf, rw, "after ringwatch's relist")
    eq(rw.metric("ringwatch_relists_total", resource="configmaps"), 1.0, "ringwatch relists")
    check(inf.count("list") > lists, "the informer converged without relisting:\n%s",
          inf.diagnostics())
    put(store, "j")
    converge(store, inf, rw, "after the relists")
    print("relist: %s" % [l for l in inf.since(m) if l["ev"] in ("list", "error", "restart")])

    # 6. the store restored from an older copy.
    snap = store.snapshot()
    put(store, "k")
    store.delete(cm_key(NS, "a"))
    r_old = put(store, "l")
    converge(store, inf, rw, "before the restore")
    store.restore(snap)
    deadline = time.time() + WAIT
    while rw.metric("ringwatch_upstream_store_resets_total", resource="configmaps",
                    reason="revision") != 1.0:
        check(time.time() < deadline, "the restore was not detected")
        time.sleep(0.1)
    check(put(store, "m") < r_old, "the new history passed %d at once", r_old)
    converge(store, inf, rw, "after the restore")
    m, lists = inf.mark(), inf.count("list")
    time.sleep(4)
    relists = inf.count("list") - lists
    check(2 <= relists <= 6, "the informer relisted %d times in 4 s while the store was below "
          "%d (a watch from a lost revision must get 410, at most about once a second):\n%s",
          relists, r_old, inf.diagnostics())
    print("restore: %d relists in 4 s while the store was below %d" % (relists, r_old))
    converge(store, inf, rw, "while the store is below the abandoned history")
    last = 0
    while last <= r_old:
        last = put(store, "z", {"n": str(last)}, ns="other")
    converge(store, inf, rw, "after the store passed the abandoned history")
    time.sleep(2.5)  # the watch from a lost revision in flight ends
    m, lists = inf.mark(), inf.count("list")
    put(store, "n")
    time.sleep(3)
    converge(store, inf, rw, "after a write past the abandoned history")
    eq(inf.count("list"), lists, "relists once the store passed the abandoned history (%s)"
       % inf.since(m))


if __name__ == "__main__":
    run(main)
