"""Graceful shutdown drains slow readers.

About 750 KB of configmaps; watchers from resourceVersion 0 (every object
as an ADDED event) that read at about 150 KB/s: two over HTTP/1.1 (small
socket buffers, --sndbuf 64 KiB and an 8 KiB receive buffer, so that
most of the stream waits in ringwatch, not in the kernel) and one over
HTTP/2 (flow control: a window update per DATA frame read).  SIGTERM with
--shutdown-grace 10 while they read: each must get every byte ringwatch
queued, complete events only, and a proper end (the terminating chunk,
END_STREAM, and GOAWAY NO_ERROR); ringwatch logs "every response finished" only once they
have, and exits 0.  A response is finished when its last byte has left
ringwatch, not when it was queued.

Then --shutdown-grace 1 and a reader too slow for it (16 KB/s): its
connection is cut when the grace is over, and the cut is logged and
counted (ringwatch_shutdown_connections_cut_total).

A client connecting during the grace is refused at once (the listening
socket is closed at SIGTERM), never accepted and left unanswered."""
import json
import signal
import socket
import threading

from harness import *
from h2raw import DATA, END_STREAM, H2Client

OBJECTS = 150
VALUE = 5000
PATH = "/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=0"


def seed(etcd):
    rv = 0
    for start in range(0, OBJECTS, 50):
        rv = etcd.txn(puts=[(cm_key("ns", "cm%03d" % i),
                             configmap("ns", "cm%03d" % i,
                                       {"v": "%03d" % i + "x" * VALUE}))
                            for i in range(start, start + 50)])
    return rv


class H1Reader(threading.Thread):
    """Reads a watch over HTTP/1.1 at rate bytes/s; keeps the raw bytes."""

    def __init__(self, port, rate):
        super().__init__(daemon=True)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: a\r\n\r\n" % PATH)
                          .encode())
        self.rate, self.raw, self.error = rate, b"", None

    def run(self):
        self.sock.settimeout(30)
        try:
            while True:
                data = self.sock.recv(4096)
                if not data:
                    break
                self.raw += data
                time.sleep(len(data) / self.rate)
        except OSError as e:
            self.error = e
        self.sock.close()

    def decode(self):
        """(events, ended with the terminating chunk, leftover bytes)."""
        head, _, rest = self.raw.partition(b"\r\n\r\n")
        check(b" 200 " in head.split(b"\r\n")[0], "h1 watch: %r", head[:80])
        body = b""
        while rest:
            line, sep, after = rest.partition(b"\r\n")
            if not sep:
                break
            size = int(line, 16)
            if size == 0:
                return lines(body), after == b"\r\n", b""
            if len(after) < size + 2:
                break
            body += after[:size]
            rest = after[size + 2:]
        return lines(body), False, body


def lines(body):
    out = body.split(b"\n")
    check(out[-1] == b"", "a partial event: %r", out[-1][:80])
    return [json.loads(x) for x in out[:-1]]


class H2Reader(threading.Thread):
    """Reads a watch over HTTP/2 at rate bytes/s, opening the flow-control
    windows only as it reads."""

    def __init__(self, port, rate):
        super().__init__(daemon=True)
        self.c = H2Client(port, window=65535)
        self.c.get(1, PATH)
        self.rate, self.error = rate, None

    def run(self):
        c = self.c
        c.reader.deadline = time.time() + 60
        try:
            while 1 not in c.ended and 1 not in c.resets and \
                    (c.goaway is None or c.goaway[1] == 0):
                ftype, flags, sid, payload = c.frame()
                if ftype == DATA and payload and not flags & END_STREAM:
                    time.sleep(len(payload) / self.rate)
                    c.window_update(0, len(payload))
                    c.window_update(1, len(payload))
        except (OSError, EOFError, TimeoutError) as e:
            self.error = e
        c.close()


def connect_during_grace(rw):
    """A new connection while the grace runs: refused at once
    (ECONNREFUSED), so that the client tries another replica, as from Go's
    Server.Shutdown, which closes its listeners first; not accepted by
    the kernel and left unanswered."""
    time.sleep(0.2)
    check(rw.proc.poll() is None, "ringwatch exited before the probe")
    s = socket.socket()
    s.settimeout(5)
    try:
        s.connect(("127.0.0.1", rw.port))
    except ConnectionRefusedError:
        s.close()
        check(rw.proc.poll() is None, "ringwatch exited during the probe")
        return
    try:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
        got = s.recv(100)
    except OSError as e:
        got = repr(e)
    s.close()
    raise Failure("a connection during the grace was accepted, then: %r"
                  % (got[:60],))


def terminate(rw, readers, after, probe=None):
    """Starts the readers, sends SIGTERM after that many seconds (then
    runs probe(rw)), waits for ringwatch to exit 0 and for the readers;
    returns the seconds from SIGTERM to the exit."""
    for r in readers:
        r.start()
    time.sleep(after)
    t0 = time.time()
    rw.proc.send_signal(signal.SIGTERM)
    if probe is not None:
        probe(rw)
    eq(rw.proc.wait(30), 0, "exit status")
    took = time.time() - t0
    for r in readers:
        r.join(30)
    return took


def drained(etcd):
    rw = Ringwatch(etcd, "--shutdown-grace", "10", "--sndbuf", "65536",
                   resources="configmaps")
    check(rw.metric("ringwatch_shutdown_connections_cut_total") == 0,
          "no ringwatch_shutdown_connections_cut_total on /metrics")
    readers = [H1Reader(rw.port, 150e3), H1Reader(rw.port, 150e3),
               H2Reader(rw.port, 150e3)]
    took = terminate(rw, readers, 1.0, connect_during_grace)
    for r in readers:
        check(r.error is None, "%s: %r after %d bytes; log %s",
              type(r).__name__, r.error,
              len(r.raw) if hasattr(r, "raw") else len(r.c.data.get(1, b"")),
              rw.logtext()[-600:])
    log = rw.logtext()
    check("every response finished" in log and "connections cut" not in log,
          "log: %s", log[-800:])
    got = []
    for r in readers[:2]:
        events, ended, rest = r.decode()
        check(ended, "h1 reader: no terminating chunk after %d events "
              "(%d bytes; %d bytes of a chunk left)", len(events),
              len(r.raw), len(rest))
        got.append(len(events))
    c = readers[2].c
    check(1 in c.ended and 1 not in c.resets and c.goaway == (1, 0),
          "h2 reader: no END_STREAM and graceful GOAWAY (resets %r, GOAWAY "
          "%r)", c.resets, c.goaway)
    got.append(len(lines(c.data.get(1, b""))))
    for n in got:
        check(n > 0, "a reader got no event")
    print("drained in %.1f s after SIGTERM; events per reader %s of %d"
          % (took, got, OBJECTS))
    check(took > 0.5, "exited %.2f s after SIGTERM: before the slow readers "
          "could have read what was queued", took)


def cut(etcd):
    rw = Ringwatch(etcd, "--shutdown-grace", "1", "--sndbuf", "16384",
                   resources="configmaps")
    r = H1Reader(rw.port, 16e3)
    took = terminate(rw, [r], 0.5)
    check(not r.raw.endswith(b"\r\n0\r\n\r\n"),
          "a reader too slow for the grace got the whole stream")
    log = rw.logtext()
    check("grace period over: 1 connections cut" in log, "log: %s",
          log[-800:])
    check(0.9 < took < 5, "cut %.1f s after SIGTERM, grace 1 s", took)


def main():
    etcd = Etcd()
    seed(etcd)
    drained(etcd)
    cut(etcd)


run(main)
