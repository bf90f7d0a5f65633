"""Signals with watches open, over HTTP/1.1 and HTTP/2 (curl): SIGHUP
reloads (the --log-file is reopened after a logrotate-style rename, and the
reload is logged) and nothing else happens: the process lives, no watch
ends and every watch goes on receiving events; SIGUSR1 logs one state
line, SIGUSR2 switches the log level to debug and back, SIGPIPE is
ignored.  SIGTERM then still shuts down gracefully (exit 0)."""
import select
import shutil

from harness import *


class CurlWatch:
    """A watch over HTTP/2 with prior knowledge, read line by line from
    curl's output."""

    def __init__(self, url):
        self.proc = subprocess.Popen(["curl", "-sSN", "--http2-prior-knowledge", url],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""
        defer(self.close)

    def next_event(self, timeout):
        """One event; None when the stream ended; socket.timeout after
        timeout seconds."""
        deadline = time.time() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise socket.timeout("curl watch read timed out")
            data = os.read(self.proc.stdout.fileno(), 65536)
            if not data:
                return None
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(5)


def log_lines(path):
    with open(path, errors="replace") as f:
        return f.read().splitlines()


def wait_log(path, needle, timeout=5):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path):
            hits = [l for l in log_lines(path) if needle in l]
            if hits:
                return hits
        time.sleep(0.05)
    raise Failure("no %r in %s:\n%s" % (needle, path, "\n".join(log_lines(path)[-20:])
                                        if os.path.exists(path) else "(missing)"))


def expect(w, want, what):
    """The watch's next event other than a BOOKMARK is want (type, name)."""
    ev = w.next_event(5)
    while ev is not None and ev["type"] == "BOOKMARK":
        ev = w.next_event(5)
    check(ev is not None, "%s: %s: the watch ended", type(w).__name__, what)
    eq((ev["type"], ev["object"]["metadata"]["name"]), want,
       "%s: %s" % (type(w).__name__, what))


def expect_end(w):
    """The watch ends cleanly (after any BOOKMARK)."""
    ev = w.next_event(5)
    while ev is not None and ev["type"] == "BOOKMARK":
        ev = w.next_event(5)
    check(ev is None, "%s: event %r instead of the end", type(w).__name__, ev)


def main():
    if shutil.which("curl") is None:
        print("curl not installed: skipped")
        sys.exit(77)
    etcd = Etcd()
    logdir = tempfile.mkdtemp(prefix="rw-signals-")
    defer(lambda: shutil.rmtree(logdir, ignore_errors=True))
    logfile = os.path.join(logdir, "ringwatch.log")
    rw = Ringwatch(etcd, "--log-file", logfile, "--log-level", "warn",
                   resources="configmaps")
    ra = etcd.put(cm_key("ns", "a"), configmap("ns", "a"))
    rw.wait_rv(ra)
    path = "/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=%d" % ra
    h1 = rw.watch(path)
    h2 = CurlWatch(rw.url + path)
    time.sleep(0.3)  # both watches established

    # SIGHUP after a rotation: a new file, the reload logged in it
    os.rename(logfile, logfile + ".1")
    rw.proc.send_signal(signal.SIGHUP)
    hits = wait_log(logfile, "SIGHUP: reloaded log file")
    check("%s reopened" % logfile in hits[0], "reload line %r", hits[0])
    check(rw.proc.poll() is None, "ringwatch died on SIGHUP")
    rb = etcd.put(cm_key("ns", "b"), configmap("ns", "b"))
    for w in (h1, h2):
        expect(w, ("ADDED", "b"), "the event after SIGHUP")

    # SIGUSR1: one state line, logged although the level is warn
    rw.wait_rv(rb)
    rw.proc.send_signal(signal.SIGUSR1)
    line = wait_log(logfile, "SIGUSR1: ")[0]
    check("upstream etcd %s connected" % etcd.url in line, "state line %r", line)
    check("configmaps ready rv %d objects 2 watchers 2" % rb in line, "state line %r", line)

    # SIGUSR2 twice: debug, then back to warn
    rw.proc.send_signal(signal.SIGUSR2)
    wait_log(logfile, "SIGUSR2: log level debug (SIGUSR2 again: warn)")
    rw.proc.send_signal(signal.SIGUSR2)
    wait_log(logfile, "SIGUSR2: log level warn (SIGUSR2 again: debug)")

    rw.proc.send_signal(signal.SIGPIPE)
    rw.proc.send_signal(signal.SIGHUP)  # a second reload: same file
    wait_log(logfile, "SIGHUP: reloaded log file")
    etcd.put(cm_key("ns", "c"), configmap("ns", "c"))
    for w in (h1, h2):
        expect(w, ("ADDED", "c"), "the event after the other signals")
    check(rw.proc.poll() is None, "ringwatch died")
    eq(len(wait_log(logfile, "SIGHUP: reloaded")), 2, "reload lines in the new file")
    check(not [l for l in log_lines(logfile + ".1") if "SIGHUP" in l],
          "the reload was logged in the rotated file")

    rw.proc.send_signal(signal.SIGTERM)
    eq(rw.proc.wait(10), 0, "exit status after SIGTERM")
    for w in (h1, h2):
        expect_end(w)


run(main)
