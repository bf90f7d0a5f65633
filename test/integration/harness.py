"""Integration-test harness: a real store and a real ringwatch on loopback.

Every test script is run by `make check` with Debian's python3; it starts
its own store and its own ringwatch, and stops both by PID when it ends,
whatever happens.  The store is etcd (Etcd, through scripts/etcd-local) or
Redis (Redis); a test that means the same over both gets its store from
Store(), which RW_TEST_STORE picks (etcd, the default, or redis:
test/integration/over_redis.sh runs a test so, and test/integration.mk
registers each such test a second time, as NAME.py.redis).  Both stores offer
the same calls with the same meaning (put, delete, compact, revision,
range, snapshot, restore, url, name, ...), and a write returns the revision
the store really assigned.  Reads go through ringwatch with http.client.

Exit codes follow automake: 0 pass, 1 fail, 77 skip.
"""

import atexit
import base64
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TOP = os.environ.get("TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
RINGWATCH = os.environ.get("RINGWATCH", os.path.join(TOP, "build", "ringwatch"))
KUBECTL = shutil.which("kubectl")
ETCD_LOCAL = os.path.join(TOP, "scripts", "etcd-local")

_cleanups = []


def _run_cleanups():
    """Runs every cleanup, newest first; returns the failures they raised."""
    failures = []
    while _cleanups:
        fn = _cleanups.pop()
        try:
            fn()
        except Exception as e:  # keep cleaning up
            failures.append(str(e))
    return failures


atexit.register(_run_cleanups)
signal.signal(signal.SIGTERM, lambda *a: sys.exit(1))


class Failure(AssertionError):
    pass


def defer(fn):
    """Runs fn when the test ends, newest first, pass or fail."""
    _cleanups.append(fn)


def check(cond, msg, *args):
    if not cond:
        raise Failure(msg % args if args else msg)


def eq(got, want, what):
    if got != want:
        raise Failure("%s: got %r, want %r" % (what, got, want))


def b64(s):
    if isinstance(s, str):
        s = s.encode()
    return base64.b64encode(s).decode()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def Store(**etcd_options):
    """The store RW_TEST_STORE names, started: Etcd(**etcd_options) (etcd,
    the default) or Redis() (redis).  etcd_options are etcd's own (e.g.
    progress_notify) and mean nothing to Redis."""
    kind = os.environ.get("RW_TEST_STORE", "etcd")
    if kind == "etcd":
        return Etcd(**etcd_options)
    if kind == "redis":
        return Redis()
    raise Failure("RW_TEST_STORE=%r: want etcd or redis" % kind)


class Etcd:
    """A throwaway etcd 3.4 on loopback, data in a temp dir.

    tls: a pki.CA: etcd then serves https with a server certificate that
    CA signs and requires client certificates it signs
    (--client-cert-auth); the harness's own calls present self.cert and
    self.key, and ringwatch_args() gives ringwatch the same."""

    name = "etcd"  # the store label of ringwatch's upstream metrics
    # etcd keeps every revision until it is compacted: ringwatch reads a
    # past state the ring no longer holds (an Exact LIST) from it.
    old_revisions = True

    def __init__(self, progress_notify="1s", tls=None):
        self.dir = tempfile.mkdtemp(prefix="rw-etcd-")
        args = [ETCD_LOCAL, "start", self.dir]
        if progress_notify:
            args += ["--progress-notify-interval", progress_notify]
        self.ssl = None
        if tls is not None:
            import ssl
            cert, key = tls.server("etcd-server")
            self.ca = tls.cert
            self.cert, self.key = tls.client("root", name="etcd-client")
            args += ["--cert-file", cert, "--key-file", key, "--trusted-ca-file", self.ca,
                     "--client-cert", self.cert, "--client-key", self.key]
            self.ssl = ssl.create_default_context(cafile=self.ca)
            self.ssl.load_cert_chain(self.cert, self.key)
        out = subprocess.run(args, check=True, capture_output=True, text=True, timeout=60)
        self.url = out.stdout.strip().splitlines()[-1]
        self.host, port = self.url.split("//")[1].split(":")
        self.port = int(port)
        _cleanups.append(self.stop)

    def stop(self):
        if self.dir is None:
            return
        subprocess.run([ETCD_LOCAL, "stop", self.dir], timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def client_args(self):
        """curl's, etcdctl's, seed-cluster's and ringwatch-fleet's options
        to reach this etcd: --cacert, --cert, --key when it serves TLS."""
        if self.ssl is None:
            return []
        return ["--cacert", self.ca, "--cert", self.cert, "--key", self.key]

    def ringwatch_args(self):
        """ringwatch's options to reach this etcd: its CA and client
        certificate when it serves TLS."""
        if self.ssl is None:
            return []
        return ["--etcd-cafile", self.ca, "--etcd-certfile", self.cert,
                "--etcd-keyfile", self.key]

    def _connection(self, timeout):
        if self.ssl is not None:
            return http.client.HTTPSConnection(self.host, self.port, timeout=timeout,
                                               context=self.ssl)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def call(self, path, body):
        conn = self._connection(10)
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        if resp.status != 200:
            raise Failure("etcd %s: %d %s" % (path, resp.status, data[:200]))
        return json.loads(data)

    def put(self, key, value):
        """Writes value (dict -> JSON, or str/bytes raw); returns the revision."""
        if isinstance(value, dict):
            value = json.dumps(value)
        r = self.call("/v3/kv/put", {"key": b64(key), "value": b64(value)})
        return int(r["header"]["revision"])

    def txn(self, puts=(), deletes=()):
        """One transaction: puts (key, value) pairs and deletes keys, all at
        one revision; returns it."""
        ops = [{"request_put": {"key": b64(k), "value": b64(json.dumps(v) if isinstance(v, dict) else v)}}
               for k, v in puts]
        ops += [{"request_delete_range": {"key": b64(k)}} for k in deletes]
        r = self.call("/v3/kv/txn", {"success": ops})
        return int(r["header"]["revision"])

    def put_raw(self, key, value):
        """Writes value (str or bytes) as it is, whatever it holds: a value
        ringwatch must refuse.  etcd checks nothing: the same as put; over
        Redis it bypasses the function library's checks."""
        return self.put(key, value)

    def delete(self, key):
        r = self.call("/v3/kv/deleterange", {"key": b64(key)})
        return int(r["header"]["revision"])

    def compact(self, revision):
        self.call("/v3/kv/compaction", {"revision": str(revision), "physical": True})

    def revision(self):
        r = self.call("/v3/kv/range", {"key": b64("\0"), "count_only": True})
        return int(r["header"]["revision"])

    def range(self, prefix):
        """Every key under prefix: {key: (mod_revision, value bytes)}."""
        end = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        r = self.call("/v3/kv/range", {"key": b64(prefix), "range_end": b64(end)})
        return {base64.b64decode(kv["key"]).decode(): (int(kv["mod_revision"]),
                                                      base64.b64decode(kv.get("value", "")))
                for kv in r.get("kvs", [])}

    def logtail(self):
        with open(os.path.join(self.dir, "etcd.log"), errors="replace") as f:
            return f.read()[-2000:]

    @property
    def data(self):
        """etcd's data directory (halt() first to copy or replace it)."""
        return os.path.join(self.dir, "data")

    def snapshot(self):
        """A copy of etcd's data as it is now (etcd is stopped for the copy
        and started again), for restore().  Removed when the test ends."""
        self.halt()
        snap = tempfile.mkdtemp(prefix="rw-etcd-snap-")
        defer(lambda: shutil.rmtree(snap, ignore_errors=True))
        shutil.copytree(self.data, os.path.join(snap, "data"))
        self.resume()
        return snap

    def restore(self, snap):
        """etcd restarted on its ports from the copy snap (snapshot()):
        the older history, its revision back where it was then."""
        self.halt()
        shutil.rmtree(self.data)
        shutil.copytree(os.path.join(snap, "data"), self.data)
        self.resume()

    def halt(self):
        """Stops etcd and keeps its data and its ports for resume()."""
        with open(os.path.join(self.dir, "pid")) as f:
            pid = int(f.read())
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            self.args = [a.decode() for a in f.read().split(b"\0")[:-1]]
        subprocess.run([ETCD_LOCAL, "stop", self.dir], check=True, timeout=30)

    def resume(self, *extra):
        """Starts etcd again on the same ports and the same command line
        (plus extra arguments) over whatever its data directory holds:
        resume() after replacing the directory restores an older copy,
        after emptying it starts a brand-new member (a new cluster when
        extra changes --initial-cluster-token)."""
        # Started in the background of a shell that exits at once, so that
        # etcd is nobody's child here and `etcd-local stop` sees it go.
        out = subprocess.run(
            ["sh", "-c", '"$@" </dev/null >>"$ETCD_LOG" 2>&1 & echo $!', "sh"]
            + self.args + list(extra), capture_output=True, text=True, check=True,
            timeout=10, env=dict(os.environ, ETCD_LOG=os.path.join(self.dir, "etcd.log")))
        pid = int(out.stdout.strip())
        with open(os.path.join(self.dir, "pid"), "w") as f:
            f.write("%d\n" % pid)
        deadline = time.time() + 20
        while time.time() < deadline:
            if not os.path.exists("/proc/%d" % pid):
                raise Failure("etcd exited on resume:\n%s" % self.logtail())
            try:
                conn = self._connection(1)
                conn.request("GET", "/health")
                ok = b'"health":"true"' in conn.getresponse().read()
                conn.close()
                if ok:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise Failure("etcd not healthy in 20 s after resume")


def seed_cluster(store, nodes, namespaces, deployments, replicas, configmaps):
    """Seeds the store with scripts/seed-cluster (namespaces, nodes,
    deployments with their pods, configmaps): etcd by seed-cluster's own
    writes, another store by store.put of each object seed-cluster prints.
    Returns the revision of the last write."""
    etcd = store.name == "etcd"
    target = [store.url] + store.client_args() if etcd else ["-"]
    out = subprocess.run([os.path.join(TOP, "scripts", "seed-cluster")] + target +
                         ["--nodes", str(nodes), "--namespaces", str(namespaces),
                          "--deployments", str(deployments), "--replicas", str(replicas),
                          "--configmaps", str(configmaps)],
                         check=True, capture_output=True, text=True, timeout=60)
    if etcd:
        return int(out.stdout.split("revision")[-1])
    rev = 0
    for line in out.stdout.splitlines():
        key, value = line.split("\t", 1)
        rev = store.put(key, value)
    return rev


def configmap(ns, name, data=None, labels=None):
    meta = {"name": name, "namespace": ns,
            "creationTimestamp": "2026-11-29T00:00:00Z"}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta,
            "data": data or {}}


def cm_key(ns, name):
    return "/registry/configmaps/%s/%s" % (ns, name)


class Ringwatch:
    """ringwatch in front of a store (Etcd or Redis), on a free loopback
    port (or on port, to restart one where its clients expect it)."""

    def __init__(self, store, *args, resources="pods,configmaps", upstream=None,
                 wait=True, port=None, tls=None, listen="127.0.0.1", token=None):
        """upstream: the --upstream URL when it is not store.url (a Relay's,
        or a list of members).  tls: a dict with "cert" and "key" (served),
        "ca" (the CA that signed them, for clients) and optionally
        "client_ca" (--client-ca-file); then get() and friends speak HTTPS.  listen:
        the host --listen gives (clients always use 127.0.0.1).  token: a
        bearer token every get() sends (authentication)."""
        self.port = port or free_port()
        self.tls = tls
        self.token = token
        self.log = tempfile.NamedTemporaryFile(prefix="rw-log-", suffix=".log", delete=False)
        # The store's own options (etcd's CA and client certificate when
        # it serves TLS, Redis's password file; args may name others: the
        # last one given wins)
        cmd = [RINGWATCH, "--listen", "%s:%d" % (listen, self.port),
               "--upstream", upstream or store.url,
               "--resources", resources] + store.ringwatch_args() + list(args)
        if tls:
            cmd += ["--tls-cert-file", tls["cert"], "--tls-private-key-file", tls["key"]]
            if tls.get("client_ca"):
                cmd += ["--client-ca-file", tls["client_ca"]]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)
        _cleanups.append(self.stop)
        if wait:
            self.wait_ready()

    def wait_ready(self, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failure("ringwatch exited %d:\n%s" % (self.proc.returncode, self.logtext()))
            try:
                status, _, _ = self.get("/readyz")
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise Failure("ringwatch not ready in %ds:\n%s" % (timeout, self.logtext()))

    def logtext(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()[-4000:]

    def stop(self):
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        code = self.proc.returncode
        self.proc = None
        log = self.logtext() if code not in (None, 0, -signal.SIGTERM) else ""
        os.unlink(self.log.name)
        # A crash (signal) is a failure even when every check passed, and
        # so is an error exit: a sanitizer's report ends the process with 1
        # (its text is in the log, which is gone once stop returns).
        if code is not None and code < 0 and code != -signal.SIGTERM:
            raise Failure("ringwatch died with signal %d:\n%s" % (-code, log))
        if code is not None and code > 0:
            raise Failure("ringwatch exited %d:\n%s" % (code, log))

    @property
    def url(self):
        return "%s://127.0.0.1:%d" % ("https" if self.tls else "http", self.port)

    @property
    def https_url(self):
        return "https://127.0.0.1:%d" % self.port

    def ssl_context(self, cert=None, key=None, alpn=None):
        """A client TLS context trusting tls["ca"], with a client
        certificate when cert/key are given, offering alpn (a list)."""
        return ssl_context(self.tls["ca"], cert, key, alpn)

    def connection(self, timeout=10, context=None):
        """An http.client connection: HTTPS when tls was given."""
        if self.tls:
            return http.client.HTTPSConnection("127.0.0.1", self.port, timeout=timeout,
                                               context=context or self.ssl_context())
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def get(self, path, headers=None, timeout=10, context=None):
        """GET path; returns (status, headers dict, body bytes)."""
        conn = self.connection(timeout, context)
        headers = dict(headers or {})
        if self.token and "Authorization" not in headers:
            headers["Authorization"] = "Bearer " + self.token
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        hdrs = {k.lower(): v for k, v in resp.getheaders()}
        conn.close()
        return resp.status, hdrs, body

    def raw(self, data, until=None, timeout=10):
        """Sends data as it is on a new connection; returns the bytes that
        come back until the server closes, or until until(bytes) holds."""
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        sock.sendall(data)
        buf = b""
        try:
            while until is None or not until(buf):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                buf += chunk
        finally:
            sock.close()
        return buf

    def get_json(self, path, want_status=200):
        status, _, body = self.get(path)
        eq(status, want_status, "GET %s status (body %r)" % (path, body[:300]))
        return json.loads(body)

    def watch(self, path, timeout=10, accept="application/json", context=None):
        if self.tls and context is None:
            context = self.ssl_context()
        return Watch(self.port, path, timeout, accept, context)

    def wait_rv(self, rv, path="/api/v1/configmaps", timeout=10):
        """Waits until a LIST of path from the cache (resourceVersion=0)
        reflects revision rv (the cache has applied every write up to it);
        returns the list."""
        deadline = time.time() + timeout
        path += ("&" if "?" in path else "?") + "resourceVersion=0"
        while True:
            status, _, body = self.get(path)
            if status == 429:  # (re)listing: not ready yet
                lst = {"metadata": {"resourceVersion": "429"}}
            else:
                eq(status, 200, "GET %s status (body %r)" % (path, body[:300]))
                lst = json.loads(body)
                if int(lst["metadata"]["resourceVersion"]) >= rv:
                    return lst
            if time.time() > deadline:
                raise Failure("cache did not reach revision %d in %ds (at %s)"
                              % (rv, timeout, lst["metadata"]["resourceVersion"]))
            time.sleep(0.05)

    def metric(self, name, **labels):
        """The value of one sample on /metrics (None when absent)."""
        _, _, body = self.get("/metrics")
        want = name + ("{" + ",".join('%s="%s"' % kv for kv in labels.items()) + "}"
                       if labels else "")
        for line in body.decode().splitlines():
            if line.startswith(want + " "):
                return float(line.split(" ", 1)[1])
        return None


def ssl_context(ca, cert=None, key=None, alpn=None):
    """A client TLS context trusting the CA file ca (server name checked),
    presenting cert/key when given, offering the ALPN protocols alpn."""
    import ssl
    ctx = ssl.create_default_context(cafile=ca)
    if cert:
        ctx.load_cert_chain(cert, key)
    if alpn:
        ctx.set_alpn_protocols(alpn)
    return ctx


class Kubectl:
    """The real kubectl against a ringwatch at url, with a discovery cache
    directory of its own (removed when the test ends)."""

    def __init__(self, url):
        self.server = url
        self.cache = tempfile.mkdtemp(prefix="rw-kubectl-")
        _cleanups.append(lambda: shutil.rmtree(self.cache, ignore_errors=True))

    def argv(self, *args):
        return [KUBECTL, "--server", self.server, "--cache-dir", self.cache] + list(args)

    def run(self, *args, timeout=30):
        """Runs kubectl args to its end; returns the CompletedProcess (text)."""
        return subprocess.run(self.argv(*args), capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)

    def watch(self, args, initial, change, done, timeout):
        """Runs kubectl args (a watch), waits up to timeout seconds for its
        first `initial` lines, calls change(lines) (which writes to etcd),
        then waits, within the same timeout, until done(lines) holds;
        returns the lines printed, without their newlines.  kubectl is
        stopped here (it would exit 0 when the stream ends)."""
        import threading
        proc = subprocess.Popen(self.argv(*args), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        _cleanups.append(lambda: proc.poll() is None and proc.kill())
        lines = []
        reader = threading.Thread(target=lambda: [lines.append(l.rstrip("\n"))
                                                  for l in proc.stdout])
        reader.start()
        deadline = time.time() + timeout
        while len(lines) < initial and time.time() < deadline:
            time.sleep(0.1)
        change(lines)
        while not done(lines) and time.time() < deadline:
            time.sleep(0.1)
        proc.terminate()
        proc.wait(5)
        reader.join(5)
        return lines


class Watch:
    """A streaming WATCH over HTTP/1.1 on a raw socket, so that a read can
    time out and be retried (http.client cannot): next_event(timeout)
    returns one decoded event, None when the stream ended cleanly (the
    last chunk), or raises socket.timeout."""

    def __init__(self, port, path, timeout, accept="application/json", context=None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        if context:  # HTTPS
            self.sock = context.wrap_socket(self.sock, server_hostname="127.0.0.1")
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           "Accept: %s\r\n\r\n" % (path, accept)).encode())
        self.buf = b""
        self.body = b""       # decoded body bytes not yet consumed
        self.done = False     # terminating chunk seen
        self.timeout = timeout
        deadline = time.time() + timeout
        while b"\r\n\r\n" not in self.buf:
            self._recv(deadline)
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {}
        for line in lines[1:]:
            k, v = line.split(":", 1)
            self.headers[k.strip().lower()] = v.strip()
        self.chunked = self.headers.get("transfer-encoding") == "chunked"
        self.length = int(self.headers.get("content-length", "-1"))
        _cleanups.append(self.close)

    def _recv(self, deadline):
        import select
        left = deadline - time.time()
        pending = getattr(self.sock, "pending", lambda: 0)()  # TLS: decrypted already
        if not pending and (left <= 0 or not select.select([self.sock], [], [], left)[0]):
            raise socket.timeout("watch read timed out")
        data = self.sock.recv(65536)
        if not data:
            raise Failure("connection closed without the terminating chunk")
        self.buf += data

    def _decode(self):
        """Moves complete chunks from buf to body."""
        if not self.chunked:
            self.body += self.buf
            self.buf = b""
            if self.length >= 0 and len(self.body) >= self.length:
                self.done = True
            return
        while b"\r\n" in self.buf:
            size_line, rest = self.buf.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if len(rest) < size + 2:
                return
            check(rest[size:size + 2] == b"\r\n", "chunk not followed by CRLF")
            if size == 0:
                self.done = True
                self.buf = b""
                return
            self.body += rest[:size]
            self.buf = rest[size + 2:]

    def next_event(self, timeout=None):
        deadline = time.time() + (self.timeout if timeout is None else timeout)
        while True:
            self._decode()
            if b"\n" in self.body:
                line, self.body = self.body.split(b"\n", 1)
                return json.loads(line)
            if self.done:
                check(self.body == b"", "partial event at the end: %r", self.body)
                return None
            self._recv(deadline)

    def events_for(self, seconds):
        """Every event that arrives within `seconds` (stops early at the end
        of the stream); returns (events, ended)."""
        events, deadline = [], time.time() + seconds
        while True:
            left = deadline - time.time()
            if left <= 0:
                return events, False
            try:
                ev = self.next_event(left)
            except socket.timeout:
                return events, False
            if ev is None:
                return events, True
            events.append(ev)

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None


class Relay:
    """A TCP relay on a free loopback port to a store (Etcd or Redis), so a
    test can cut ringwatch's connections to it (cut: every connection
    closed and new ones refused) and bring them back (restore) on the same
    port: Ringwatch(store, upstream=relay.url)."""

    def __init__(self, store):
        import threading
        self.store = store
        self.target = store.port
        self.port = free_port()
        self.lock = threading.Lock()
        self.conns = []
        self.listener = None
        self.delay = 0  # seconds each forwarded chunk waits: a slower store
        self.restore()
        _cleanups.append(self.cut)

    @property
    def url(self):
        """The store's URL with the relay's port."""
        scheme = self.store.url.split("://")[0]
        return "%s://127.0.0.1:%d" % (scheme, self.port)

    def restore(self):
        import threading
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        for attempt in range(50):  # the old listener may still be closing
            try:
                ls.bind(("127.0.0.1", self.port))
                break
            except OSError:
                if attempt == 49:
                    raise
                time.sleep(0.05)
        ls.listen(64)
        self.listener = ls
        threading.Thread(target=self._accept, args=(ls,), daemon=True).start()

    def cut(self):
        with self.lock:
            ls, self.listener = self.listener, None
            conns, self.conns = self.conns, []
        if ls is not None:
            try:
                ls.shutdown(socket.SHUT_RDWR)  # wakes the accept thread
            except OSError:
                pass
            ls.close()
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()

    def _accept(self, ls):
        import threading
        while True:
            try:
                client, _ = ls.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self.lock:
                if self.listener is not ls:
                    client.close()
                    upstream.close()
                    return
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                if self.delay:
                    time.sleep(self.delay)
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def rv_of(obj):
    return int(obj["metadata"]["resourceVersion"])


def run(main):
    """Runs a test's main(); prints the outcome; exits 0, 1 or 77."""
    started = time.time()
    try:
        main()
    except Failure as e:
        print("FAIL: %s" % e)
        _run_cleanups()
        sys.exit(1)
    except Exception:
        import traceback
        traceback.print_exc()
        _run_cleanups()
        sys.exit(1)
    failures = _run_cleanups()
    if failures:
        print("FAIL at cleanup: %s" % "; ".join(failures))
        sys.exit(1)
    print("PASS (%.1fs)" % (time.time() - started))
    sys.exit(0)


# The second store, in its own file to keep this one short; at the end
# because harness_redis uses this module's helpers.
from harness_redis import Redis, RedisError  # noqa: E402,F401
