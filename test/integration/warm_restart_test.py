"""Warm restart (issue 13 item 2): ringwatch is stopped (SIGTERM, then
kill -9) while N watchers hold up-to-date resourceVersions, the store is
written while it is down, and ringwatch starts again on the same port.
Its first list reads etcd at an older revision (--warm-start-window
revisions back, not below the compaction) and its watch replays the
history since into the ring, so every watcher resumes with the RV it
holds: no 410 while etcd still holds the history, every event exactly
once and in order, bookmarks never below an RV already delivered.

Then the contrasts:
 - --warm-start-window 0 (a cold start, as kube-apiserver's cache): every
   watcher that missed a write while ringwatch was down gets 410, which
   is also what this test sees without warm starts (it fails there);
 - etcd compacted at K while ringwatch was down, with watchers at RVs
   below and above K: the list is read at K exactly (found by bisection),
   the watchers below K get 410 (correctly: their events are gone) and
   the others resume without one.

The watchers are reflector watch loops on one asyncio loop (HTTP/1.1,
one connection each): ringwatch-fleet counts a refused connection as an
error, so it cannot wait through a restart yet (issue 13 item 3).  RW_WARM_WATCHERS sets N (default 1000), RW_WARM_DOWN_WRITES the writes
made while ringwatch is down (default 40).  Prints one line per restart:
410s and the seconds from the restart until every watcher had resumed
and received every write made while ringwatch was down."""
import asyncio
import random
import re
import threading
import resource as rlimit

from harness import *

N = int(os.environ.get("RW_WARM_WATCHERS", "1000"))
PATH = "/api/v1/namespaces/warm/configmaps"
PREFIX = "/registry/configmaps/warm/"


class Watcher:
    """A reflector's watch loop without its relist: watch from the last RV
    held; reconnect on a clean end, a refused connection or 429; stop at
    ERROR 410 (counted).  Events are kept to check them afterwards."""

    def __init__(self, port, rv):
        self.port = port
        self.rv = rv
        self.events = []     # (rv, type, name) of ADDED/MODIFIED/DELETED
        self.gone = 0        # ERROR 410 received
        self.streams = []    # when each watch stream was answered 200
        self.bad = []        # what should never happen, in words
        self.stopped = False

    async def run(self):
        while not self.stopped and self.gone == 0:
            try:
                await self.stream()
            except (OSError, asyncio.IncompleteReadError, ValueError):
                pass
            if not self.stopped and self.gone == 0:
                await asyncio.sleep(0.05 + random.random() * 0.1)

    async def stream(self):
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        try:
            writer.write(("GET %s?watch=true&resourceVersion=%d&allowWatchBookmarks=true"
                          "&timeoutSeconds=3600 HTTP/1.1\r\nHost: x\r\n\r\n"
                          % (PATH, self.rv)).encode())
            head = await reader.readuntil(b"\r\n\r\n")
            status = int(head.split(b" ", 2)[1])
            if status != 200:
                return  # 429 while ringwatch lists: retried
            self.streams.append(time.time())
            body = b""
            while not self.stopped:
                size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
                chunk = await reader.readexactly(size + 2)
                if size == 0:
                    return
                body += chunk[:-2]
                while b"\n" in body:
                    line, body = body.split(b"\n", 1)
                    self.event(json.loads(line))
                    if self.gone:
                        return
        finally:
            writer.close()

    def event(self, ev):
        obj = ev["object"]
        if ev["type"] == "ERROR":
            if obj.get("code") == 410:
                self.gone += 1
            else:
                self.bad.append("ERROR %r" % obj)
            return
        rv = int(obj["metadata"]["resourceVersion"])
        if ev["type"] == "BOOKMARK":
            if rv < self.rv:
                self.bad.append("bookmark at %d below %d" % (rv, self.rv))
            self.rv = max(self.rv, rv)
            return
        if rv <= self.rv:
            self.bad.append("%s at %d after %d" % (ev["type"], rv, self.rv))
        self.rv = rv
        self.events.append((rv, ev["type"], obj["metadata"]["name"]))


class Fleet:
    """N watchers on one asyncio loop in a thread of their own."""

    def __init__(self, port, rvs):
        self.loop = asyncio.new_event_loop()
        self.watchers = [Watcher(port, rv) for rv in rvs]
        self.start_rv = list(rvs)
        self.thread = threading.Thread(target=self._main, daemon=True)
        self.thread.start()
        defer(self.stop)

    def _main(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(asyncio.gather(*(w.run() for w in self.watchers)))

    def stop(self):
        for w in self.watchers:
            w.stopped = True
        self.thread.join(10)

    def wait(self, pred, timeout, what):
        deadline = time.time() + timeout
        while not all(pred(w) for w in self.watchers):
            if time.time() > deadline:
                late = [w for w in self.watchers if not pred(w)]
                raise Failure("%s: %d of %d watchers not there in %ds (first at rv %d, "
                              "410s %d, bad %r)" % (what, len(late), len(self.watchers),
                                                    timeout, late[0].rv, late[0].gone,
                                                    late[0].bad[:3]))
            time.sleep(0.05)

    def check(self, writes):
        """Every watcher saw exactly the writes after its start RV, in order,
        up to its 410 if it got one."""
        for i, w in enumerate(self.watchers):
            eq(w.bad, [], "watcher %d anomalies" % i)
            want = [x for x in writes if x[0] > self.start_rv[i]]
            got = w.events
            if w.gone:
                want = want[:len(got)]
            eq(got, want, "watcher %d events (start rv %d, 410s %d)"
               % (i, self.start_rv[i], w.gone))


def write(store, writes, n, tag):
    """n writes to the watched namespace (creates, updates, deletes),
    appended to writes as the events a watcher gets: (rv, type, name)."""
    live = set()
    for i in range(n):
        name = "%s-%d" % (tag, i % max(1, n // 3))
        if i % 7 == 6 and name in live:
            live.discard(name)
            writes.append((store.delete(cm_key("warm", name)), "DELETED", name))
            continue
        rev = store.put(cm_key("warm", name), configmap("warm", name, {"i": str(i)}))
        writes.append((rev, "MODIFIED" if name in live else "ADDED", name))
        live.add(name)


def kill9(rw):
    """ringwatch ended with SIGKILL (no drain, no clean end of streams)."""
    rw.proc.kill()
    rw.proc.wait(10)
    rw.proc = None
    os.unlink(rw.log.name)


DOWN_WRITES = int(os.environ.get("RW_WARM_DOWN_WRITES", "40"))


def restart(store, rw, how, writes, *args, down_writes=DOWN_WRITES, compact=None):
    """Stops rw (how: "term" or "kill"), writes while it is down (and
    compacts at revision compact if given), starts it again on its port.
    Returns (the new Ringwatch, the restart time, the last revision)."""
    port = rw.port
    if how == "term":
        rw.stop()
    else:
        kill9(rw)
    write(store, writes, down_writes, "down%d" % store.revision())
    last = writes[-1][0]
    # The store's last write is another resource's: the cache catches up
    # to it only by proving nothing of its own changed (a probe; the
    # store sends no progress notification in this test).
    store.put("/registry/pods/other/p%d" % last, "{}")
    if compact is not None:
        store.compact(compact)
    t0 = time.time()
    rw = Ringwatch(store, "--bookmark-interval", "1", *args, resources="configmaps",
                   port=port, wait=False)
    return rw, t0, last


def scenario(store, how, *args, expect_gone):
    """One restart with N up-to-date watchers; returns (the new
    Ringwatch, 410s, seconds until every watcher had every missed event,
    the writes, the watchers' start RV)."""
    writes = []
    rw = Ringwatch(store, "--bookmark-interval", "1", *args, resources="configmaps")
    write(store, writes, 30, "up%d" % store.revision())
    rv0 = writes[-1][0]
    rw.wait_rv(rv0, PATH)
    fleet = Fleet(rw.port, [rv0] * N)
    write(store, writes, 30, "live%d" % rv0)
    fleet.wait(lambda w: w.rv >= writes[-1][0], 60, "up to date before the restart")
    rw, t0, last = restart(store, rw, how, writes, *args)
    if expect_gone:
        fleet.wait(lambda w: w.gone > 0, 60, "410 after a cold restart")
    else:
        fleet.wait(lambda w: w.rv >= last or w.gone, 60, "resumed after the restart")
    took = time.time() - t0
    gone = sum(w.gone for w in fleet.watchers)
    # The last watcher to get its stream back (200 or its 410).
    back = max(min([s for s in w.streams if s > t0], default=took + t0)
               for w in fleet.watchers) - t0
    fleet.stop()
    rw.wait_ready()
    fleet.check(writes)
    m = re.search(r"caught up with the store at revision \d+ \(warm start: (\d+) events "
                  r"replayed in ([0-9.]+) s", rw.logtext())
    print("restart (%s%s): %d watchers, %d got 410, every stream back in %.2f s, every "
          "missed event delivered in %.2f s; %s"
          % (how, " " + " ".join(args) if args else "", N, gone, back, took,
             "cache caught up in %s s (%s events replayed)" % (m.group(2), m.group(1))
             if m else "no replay"), flush=True)
    return rw, gone, took, writes, rv0


def main():
    soft, hard = rlimit.getrlimit(rlimit.RLIMIT_NOFILE)
    rlimit.setrlimit(rlimit.RLIMIT_NOFILE, (min(hard, max(soft, 4 * N + 256)), hard))
    store = Etcd(progress_notify=None)  # over Redis the first list is cold

    # Warm, SIGTERM: nobody gets 410, every event once, in order.
    rw, gone, _, writes, rv0 = scenario(store, "term", expect_gone=False)
    eq(gone, 0, "410s after a warm restart (SIGTERM)")
    start = rw.metric("ringwatch_cache_start_revision", resource="configmaps")
    catchup = rw.metric("ringwatch_cache_catchup_revision", resource="configmaps")
    check(start < rv0, "warm start listed at %s, not below the watchers' %d", start, rv0)
    eq(catchup, float(writes[-1][0] + 1), "catch-up revision (the pod written last)")
    check("configmaps: caught up with the store at revision %d" % (writes[-1][0] + 1)
          in rw.logtext(), "catch-up not logged:\n%s" % rw.logtext())
    replayed = rw.metric("ringwatch_warm_start_replayed_events_total", resource="configmaps")
    eq(replayed, float(len([x for x in writes if start < x[0] <= catchup])),
       "events replayed (revisions %s..%s)" % (start, catchup))
    eq(rw.metric("ringwatch_cache_ready", resource="configmaps"), 1.0, "ready once caught up")
    rw.stop()

    # Warm, kill -9.
    rw, gone, _, _, _ = scenario(store, "kill", expect_gone=False)
    eq(gone, 0, "410s after a warm restart (kill -9)")
    rw.stop()

    # Cold (as before warm starts): every watcher behind the new list gets 410.
    rw, gone, _, _, _ = scenario(store, "term", "--warm-start-window", "0", expect_gone=True)
    eq(gone, N, "410s after a cold restart")
    eq(rw.metric("ringwatch_cache_catchup_revision", resource="configmaps"), 0.0,
       "no catch-up when cold")
    rw.stop()

    # Compaction at K while down: the watchers below K get 410, the others
    # resume; the list is read at K exactly.
    writes = []
    rw = Ringwatch(store, resources="configmaps")
    write(store, writes, 20, "c%d" % store.revision())
    rv_a = writes[-1][0]
    write(store, writes, 20, "d%d" % rv_a)
    rv_b = writes[-1][0]
    rw.wait_rv(rv_b, PATH)
    live = Fleet(rw.port, [rv_b] * (N - N // 2))
    write(store, writes, 10, "e%d" % rv_b)
    live.wait(lambda w: w.rv >= writes[-1][0], 60, "live group up to date")
    k = rv_a + 10  # between the stale group's RV and the live group's
    rw, t0, last = restart(store, rw, "term", writes, compact=k)
    stale = Fleet(rw.port, [rv_a] * (N // 2))  # held rv_a all along
    live.wait(lambda w: w.rv >= last or w.gone, 60, "live group after the compaction")
    stale.wait(lambda w: w.gone, 60, "stale group after the compaction")
    live.stop()
    stale.stop()
    eq(sum(w.gone for w in live.watchers), 0, "410s of watchers above the compaction")
    eq(sum(w.gone for w in stale.watchers), N // 2, "410s of watchers below it")
    eq(rw.metric("ringwatch_cache_start_revision", resource="configmaps"), float(k),
       "listed at the compaction revision")
    live.check([x for x in writes if x[0] > rv_b])
    stale.check(writes)
    print("restart after compaction at %d: %d of %d watchers below it got 410, %d above "
          "resumed in %.2f s" % (k, N // 2, N // 2, N - N // 2, time.time() - t0), flush=True)
    rw.stop()


run(main)
