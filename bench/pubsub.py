#!/usr/bin/env python3
"""What Redis pub/sub loses: scripts/bench's pubsub workload, the
redis-pubsub target (bench/README.md "Pub/sub losses").

    bench/pubsub.py --redis redis://HOST:PORT --subscribers N --duration S
                    --rate R --report FILE [--outage S] [--slow-read F]

A store laid out as ringwatch-redis(7) (its functions loaded, the pods
seeded) gets R updates a second of its pods for S seconds, each an FCALL
rw_put (the store's write: counter, hash, log) followed by PUBLISH of the
new value on the channel {rw}:pods:changes, as an application announcing
its changes does; Redis's keyspace notifications of the log
(notify-keyspace-events Kt: an "xadd" on __keyspace@0__:{rw}:pods:log per
change) are switched on too.  N subscribers, each on a connection of its
own, SUBSCRIBE to both channels before the first write, in three equal
groups:
  steady     read everything (the control: they lose nothing);
  reconnect  each closes its connection once, at a time spread over the
             middle of the run, and subscribes again --outage seconds
             (default 1) later, as a client whose connection dropped;
  slow       each reads at most --slow-read (default 0.5) of the bytes
             published a second, from the start, as a client that falls
             behind; its backlog grows in Redis's output buffer (a small
             receive window and segments keep the kernel's buffers from
             absorbing it), and with the pubsub class's
             client-output-buffer-limit set to 64kb 32kb 2 Redis closes
             the connection; the subscriber subscribes again at once.
Every change is in the log, so what each subscriber should have received
is the number of log entries written during the run (the writes the log
holds between the first and the last write's revision, counted with
XRANGE); lost = that number minus the messages received, per channel.

Writes the report (JSON) to FILE and prints a summary.  Every wait is
bounded; sockets are loopback only."""
import argparse, json, os, random, selectors, socket, sys, time

CHANGES = "{rw}:pods:changes"
KEYS = ("{rw}:rev", "{rw}:pods:objects", "{rw}:pods:log", "{rw}:pods:compacted")
NOTIFY = "__keyspace@0__:" + KEYS[2]


def cmd(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Reader:
    """An incremental RESP2 reader of one connection's bytes."""

    def __init__(self):
        self.buf = b""

    def feed(self, data):
        self.buf += data

    def _line(self, i):
        j = self.buf.find(b"\r\n", i)
        return (None, i) if j < 0 else (self.buf[i:j], j + 2)

    def _parse(self, i):
        line, j = self._line(i)
        if line is None:
            return None, i
        t, rest = line[:1], line[1:]
        if t in (b"+", b"-", b":"):
            return (Exception(rest.decode()) if t == b"-" else
                    int(rest) if t == b":" else rest), j
        if t == b"$":
            n = int(rest)
            if n < 0:
                return b"", j
            if len(self.buf) < j + n + 2:
                return None, i
            return self.buf[j:j + n], j + n + 2
        if t == b"*":
            n, items = int(rest), []
            for _ in range(max(n, 0)):
                v, j2 = self._parse(j)
                if v is None and j2 == j:
                    return None, i
                items.append(v)
                j = j2
            return items, j
        raise ValueError("not RESP: %r" % line)

    def replies(self):
        out, i = [], 0
        while True:
            v, j = self._parse(i)
            if j == i:
                break
            out.append(v)
            i = j
        self.buf = self.buf[i:]
        return out


class Conn:
    def __init__(self, host, port, timeout=10):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.reader = Reader()

    def call(self, *args):
        self.sock.sendall(cmd(*args))
        return self.wait(1)[0]

    def wait(self, n):
        got = []
        while len(got) < n:
            data = self.sock.recv(1 << 20)
            if not data:
                raise ConnectionError("closed")
            self.reader.feed(data)
            got += self.reader.replies()
        return got


class Subscriber:
    def __init__(self, i, group, host, port, sel):
        self.i, self.group, self.host, self.port, self.sel = i, group, host, port, sel
        self.got = {CHANGES: 0, NOTIFY: 0}
        self.sock = None
        self.reader = None
        self.closed_by_redis = 0
        self.reconnects = 0
        self.budget = 0.0  # slow: bytes it may read now
        self.down_until = 0.0
        self.event_at = None  # when this subscriber's disruption starts

    def connect(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if self.group == "slow":
            # so that the backlog lands in Redis's output buffer instead
            # of the kernel's: a small receive window and segments (the
            # sender's buffer grows with its window times the segment)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 536)
        self.sock.settimeout(10)
        self.sock.connect((self.host, self.port))
        self.sock.setblocking(False)
        self.reader = Reader()
        self.sock.sendall(cmd("SUBSCRIBE", CHANGES, NOTIFY))
        if self.group != "slow":  # slow ones are polled (throttle)
            self.sel.register(self.sock, selectors.EVENT_READ, self)

    def close(self):
        if self.sock is not None:
            if self.group != "slow":
                self.sel.unregister(self.sock)
            self.sock.close()
            self.sock = None

    def on_read(self, limit=1 << 20):
        try:
            data = self.sock.recv(limit)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # Redis closed it (the output buffer limit)
            self.closed_by_redis += 1
            self.close()
            self.down_until = time.monotonic()  # subscribe again at once
            return
        self.budget -= len(data)
        self.reader.feed(data)
        for m in self.reader.replies():
            if isinstance(m, list) and len(m) == 3 and m[0] == b"message":
                ch = m[1].decode()
                if ch in self.got and (ch != NOTIFY or m[2] == b"xadd"):
                    self.got[ch] += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--redis", required=True)
    # every disruption, spread over [0.2, 0.5] of the run, ends before it
    # does: duration * 0.5 >= outage
    ap.add_argument("--subscribers", type=int, default=100)
    ap.add_argument("--duration", type=float, default=10)
    ap.add_argument("--rate", type=float, default=100)
    ap.add_argument("--outage", type=float, default=1.0)
    ap.add_argument("--slow-read", type=float, default=0.5)
    ap.add_argument("--history", type=int, default=10000)
    ap.add_argument("--report", required=True)
    a = ap.parse_args()
    host, port = a.redis[len("redis://"):].rstrip("/").rsplit(":", 1)
    port = int(port)
    if host not in ("127.0.0.1", "localhost", "[::1]"):
        sys.exit("pubsub.py: loopback addresses only")
    ctl = Conn(host, port)
    ctl.call("CONFIG", "SET", "notify-keyspace-events", "Kt")
    ctl.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub 64kb 32kb 2")
    # the pods to update: the hash's fields and values ("<modrev> <json>")
    pods, cursor = [], b"0"
    for _ in range(10000):
        cursor, kv = ctl.call("HSCAN", KEYS[1], cursor, "COUNT", 1000)
        pods += [(kv[i], kv[i + 1].split(b" ", 1)[1]) for i in range(0, len(kv), 2)]
        if cursor == b"0":
            break
    if not pods:
        sys.exit("pubsub.py: no pods in %s" % KEYS[1])

    sel = selectors.DefaultSelector()
    groups = ("steady", "reconnect", "slow")
    subs = [Subscriber(i, groups[i % 3], host, port, sel) for i in range(a.subscribers)]
    for s in subs:
        s.connect()
    # every subscription confirmed (two per subscriber) before the writes
    deadline = time.monotonic() + 30
    confirmed = 0
    for s in subs:
        s.sock.settimeout(10)
        got = 0
        while got < 2 and time.monotonic() < deadline:
            s.reader.feed(s.sock.recv(1 << 16))
            got += sum(1 for m in s.reader.replies()
                       if isinstance(m, list) and m[:1] == [b"subscribe"])
        confirmed += got
        s.sock.setblocking(False)
    if confirmed < 2 * len(subs):
        sys.exit("pubsub.py: %d of %d subscriptions confirmed" % (confirmed, 2 * len(subs)))

    rnd = random.Random(1)
    start = time.monotonic()
    for s in subs:  # disconnections spread over the middle of the run
        if s.group == "reconnect":
            s.event_at = start + a.duration * (0.2 + 0.3 * rnd.random())
    w = Conn(host, port)
    w.sock.setblocking(True)
    writes, first_rev, last_rev, n = 0, None, None, 0
    published = 0  # bytes of the bodies published, for the slow ones' pace
    last_poll = start
    end = start + a.duration
    while True:
        now = time.monotonic()
        if now >= end:
            break
        due = int((now - start) * a.rate) + 1
        batch = []
        while n < due:
            key, value = pods[n % len(pods)]
            obj = json.loads(value)
            obj.setdefault("metadata", {}).setdefault("annotations", {})[
                "ringwatch.io/written-at"] = str(time.time_ns())
            body = json.dumps(obj, separators=(",", ":"))
            published += len(body) + 120  # the message's and notification's framing
            batch.append(cmd("FCALL", "rw_put", 4, *KEYS, key, body, "", a.history))
            batch.append(cmd("PUBLISH", CHANGES, body))
            n += 1
        if batch:
            w.sock.sendall(b"".join(batch))
            for r in w.wait(len(batch))[0::2]:
                if isinstance(r, Exception):
                    sys.exit("pubsub.py: rw_put: %s" % r)
                writes += 1
                first_rev = r if first_rev is None else first_rev
                last_rev = r
        # the subscribers, until the next write is due
        until = start + (n / a.rate)
        while True:
            now = time.monotonic()
            pace = a.slow_read * published / max(now - start, 0.1)  # bytes/s
            for s in subs:
                if s.event_at is not None and now >= s.event_at:
                    s.event_at = None
                    s.close()
                    s.down_until = now + a.outage
                if s.sock is None and s.down_until and now >= s.down_until:
                    s.down_until = 0.0
                    s.reconnects += 1
                    s.connect()
                if s.group == "slow" and s.sock is not None:
                    s.budget = min(s.budget + (now - last_poll) * pace, 1 << 16)
                    if s.budget >= 1024:
                        s.on_read(int(s.budget))
            last_poll = now
            wait = until - time.monotonic()
            for key, _ in sel.select(max(0.0, min(wait, 0.01))):
                key.data.on_read()
            if wait <= 0:
                break
    # drain: the last messages, at most 5 s
    drain_end = time.monotonic() + 5
    while time.monotonic() < drain_end:
        for s in subs:
            if s.group == "slow" and s.sock is not None:
                s.on_read()
        ready = sel.select(0.2)
        for key, _ in ready:
            key.data.on_read()
        if all(s.got[CHANGES] >= writes for s in subs if s.group == "steady") and not ready:
            break
    # the log: every change the run wrote
    logged = len(ctl.call("XRANGE", KEYS[2], "%d-0" % first_rev, "%d-0" % last_rev))
    report = {"subscribers": len(subs), "duration_s": a.duration, "rate": a.rate,
              "writes": writes, "logged": logged, "outage_s": a.outage,
              "slow_read": a.slow_read,
              "groups": {}}
    for g in groups:
        mine = [s for s in subs if s.group == g]
        if not mine:
            continue
        rep = {"subscribers": len(mine), "expected": logged * len(mine),
               "reconnects": sum(s.reconnects for s in mine),
               "closed_by_redis": sum(s.closed_by_redis for s in mine)}
        for ch, name in ((CHANGES, "publish"), (NOTIFY, "keyspace")):
            got = sum(s.got[ch] for s in mine)
            rep[name] = {"received": got, "lost": max(logged * len(mine) - got, 0),
                         "subscribers_losing": sum(1 for s in mine if s.got[ch] < logged)}
        report["groups"][g] = rep
    with open(a.report, "w") as f:
        json.dump(report, f, indent=1)
    for g, rep in report["groups"].items():
        print("  %-9s %d subscribers, %d reconnects (%d closed by Redis): PUBLISH lost %d "
              "of %d, keyspace notifications lost %d" % (
                  g, rep["subscribers"], rep["reconnects"], rep["closed_by_redis"],
                  rep["publish"]["lost"], rep["expected"], rep["keyspace"]["lost"]))
    for s in subs:
        s.close()


main()
