"""The dispatcher (issue 3): indexed fan-out and slow watchers.

1. Kubelet-style watchers (fieldSelector spec.nodeName=NODE) each get
   exactly their node's pods' events; a pod moving from node-1 to node-2
   reaches node-1's watcher as DELETED (old content, the move's RV) and
   node-2's as ADDED; namespace and name watchers likewise; an unfiltered
   watcher gets everything.  ringwatch_watch_events_dispatched_total
   counts what was written, not watchers x events.  The same again with
   --index-fields "" (node watchers are then scanned, not indexed).
2. A lapped watcher gets ERROR 410 and its stream ends, while a fast
   watcher of the same resource keeps receiving every event in order:
   ring of 40 events, high-water mark 32 KiB and 4 KiB socket buffers; the
   slow client does not read while 300 updates of ~2 KiB land, then reads
   what was queued: a prefix of the events in order, then one ERROR 410.
   Counted in ringwatch_watchers_terminated_total{reason="lapped"}.
"""
from harness import *


def pod(ns, name, node, n=0, pad=0):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns,
                         "creationTimestamp": "2026-11-29T00:00:00Z",
                         "labels": {"app": "x"}},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Running", "n": n, "pad": "p" * pad}}


def summary(events):
    return [(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"]))
            for e in events]


def indexed(etcd, rw):
    r0 = etcd.put("/registry/pods/ns/seed", pod("ns", "seed", "node-9"))
    rw.wait_rv(r0, path="/api/v1/pods")
    base = "/api/v1/pods?watch=1&resourceVersion=%d" % r0
    w1 = rw.watch(base + "&fieldSelector=spec.nodeName%3Dnode-1")
    w2 = rw.watch(base + "&fieldSelector=spec.nodeName%3Dnode-2")
    wn = rw.watch(base + "&fieldSelector=metadata.name%3Dp")
    wns = rw.watch("/api/v1/namespaces/other/pods?watch=1&resourceVersion=%d" % r0)
    wl = rw.watch(base + "&labelSelector=app%3Dx")
    wall = rw.watch(base)
    ra = etcd.put("/registry/pods/ns/p", pod("ns", "p", "node-1"))
    rb = etcd.put("/registry/pods/ns/q", pod("ns", "q", "node-2"))
    rm = etcd.put("/registry/pods/ns/p", pod("ns", "p", "node-2"))   # moves
    ru = etcd.put("/registry/pods/ns/p", pod("ns", "p", "node-2", 1))
    ro = etcd.put("/registry/pods/other/r", pod("other", "r", "node-3"))
    rd = etcd.delete("/registry/pods/ns/p")
    want = {
        "node-1": [("ADDED", "p", ra), ("DELETED", "p", rm)],
        "node-2": [("ADDED", "q", rb), ("ADDED", "p", rm), ("MODIFIED", "p", ru),
                   ("DELETED", "p", rd)],
        "name": [("ADDED", "p", ra), ("MODIFIED", "p", rm), ("MODIFIED", "p", ru),
                 ("DELETED", "p", rd)],
        "ns": [("ADDED", "r", ro)],
        "label": [("ADDED", "p", ra), ("ADDED", "q", rb), ("MODIFIED", "p", rm),
                  ("MODIFIED", "p", ru), ("ADDED", "r", ro), ("DELETED", "p", rd)],
    }
    want["all"] = want["label"]
    for what, w in (("node-1", w1), ("node-2", w2), ("name", wn), ("ns", wns),
                    ("label", wl), ("all", wall)):
        events, _ = w.events_for(1.5)
        eq(summary(events), want[what], "events of the %s watcher" % what)
        if what == "node-1":
            gone = events[1]["object"]
            eq(gone["spec"]["nodeName"], "node-1", "DELETED shows the old node")
        w.close()
    sent = rw.metric("ringwatch_watch_events_dispatched_total", resource="pods")
    eq(sent, sum(len(v) for v in want.values()), "events dispatched")
    return rw.metric("ringwatch_dispatch_visits_total", resource="pods")


def slow_client(port, path):
    """A watch whose client socket has a tiny receive buffer and is not
    read until told to."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode())
    return s


def lapped(etcd):
    rw = Ringwatch(etcd, "--ring-capacity", "40", "--watch-high-water", "32Ki",
                   "--sndbuf", "4096", resources="configmaps")
    r0 = etcd.put(cm_key("ns", "a"), configmap("ns", "a"))
    rw.wait_rv(r0)
    path = "/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=%d" % r0
    slow = slow_client(rw.port, path)
    fast = rw.watch(path)
    revs, got = [], []
    for i in range(300):
        revs.append(etcd.put(cm_key("ns", "a"), configmap("ns", "a", {"i": str(i), "pad": "x" * 2000})))
        if i % 20 == 19:  # the fast client keeps up as it goes
            events, _ = fast.events_for(0.2)
            got += events
    rw.wait_rv(revs[-1])
    deadline = time.time() + 10
    while len(got) < len(revs) and time.time() < deadline:
        got += fast.events_for(0.5)[0]
    eq([rv_of(e["object"]) for e in got], revs, "the fast watcher's events")
    check(all(e["type"] == "MODIFIED" for e in got), "fast: all MODIFIED")

    # Now the slow one reads what was queued for it.
    w = Watch.__new__(Watch)
    w.sock, w.buf, w.body, w.done, w.timeout = slow, b"", b"", False, 10
    deadline = time.time() + 10
    while b"\r\n\r\n" not in w.buf:
        w._recv(deadline)
    head, w.buf = w.buf.split(b"\r\n\r\n", 1)
    check(head.startswith(b"HTTP/1.1 200"), "slow watcher status %r", head[:40])
    w.chunked, w.length = True, -1
    events = []
    while True:
        ev = w.next_event(10)
        if ev is None:
            break
        events.append(ev)
    check(len(events) >= 2, "slow watcher got %d events", len(events))
    last = events[-1]
    eq((last["type"], last["object"]["code"], last["object"]["reason"]),
       ("ERROR", 410, "Expired"), "slow watcher's last event")
    before = [rv_of(e["object"]) for e in events[:-1]]
    eq(before, revs[:len(before)], "slow watcher's events before the 410 (a prefix, in order)")
    check(len(before) < len(revs), "slow watcher was not lapped")
    eq(rw.metric("ringwatch_watchers_terminated_total", resource="configmaps", reason="lapped"),
       1, "terminations counted")
    w.close()


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, resources="pods,configmaps")
    visits = indexed(etcd, rw)
    rw.stop()
    # The same through the unindexed path: node watchers are scanned.
    etcd2 = Etcd()
    scanned = indexed(etcd2, Ringwatch(etcd2, "--index-fields", "", resources="pods"))
    # 6 events: the node watchers are looked at only for their nodes' pods
    # when indexed, for every event when scanned.
    check(visits < scanned, "indexed dispatch visited %s, scanned %s", visits, scanned)
    lapped(etcd)


run(main)
