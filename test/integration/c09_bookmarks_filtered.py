"""C09 bookmarks for filtered watchers.

Bookmark period 1 s.  A watch with allowWatchBookmarks=true, a selector
matching nothing, timeoutSeconds=10; 5 non-matching writes over 5 s: >= 3
BOOKMARKs, RVs non-decreasing, the last >= the last write's RV, no other
event; the stream ends cleanly at ~10 s with no ERROR.  Without
allowWatchBookmarks: zero bookmarks.  A re-watch from the last bookmark RV
then one matching write: one ADDED.
"""
import threading

from harness import *


def main():
    store = Store()
    rw = Ringwatch(store, "--bookmark-interval", "1", resources="configmaps")
    r0 = store.put(cm_key("ns", "seed"), configmap("ns", "seed"))
    rw.wait_rv(r0)

    sel = "labelSelector=app%3Dnothing&resourceVersion=" + str(r0)
    start = time.time()
    with_bm = rw.watch("/api/v1/configmaps?watch=true&allowWatchBookmarks=true"
                       "&timeoutSeconds=10&" + sel, timeout=15)
    without = rw.watch("/api/v1/configmaps?watch=true&timeoutSeconds=10&" + sel, timeout=15)
    writes = []

    def writer():
        for i in range(5):
            writes.append(store.put(cm_key("ns", "w%d" % i), configmap("ns", "w%d" % i)))
            time.sleep(1)

    t = threading.Thread(target=writer)
    t.start()
    events, ended = with_bm.events_for(14)
    elapsed = time.time() - start
    t.join()
    check(ended, "the watch did not end at its timeout")
    check(9 <= elapsed <= 13, "stream ended after %.1fs, want ~10s", elapsed)
    types = {e["type"] for e in events}
    eq(types, {"BOOKMARK"}, "event types with a selector matching nothing")
    rvs = [rv_of(e["object"]) for e in events]
    check(len(rvs) >= 3, "only %d bookmarks in 10 s at a 1 s period", len(rvs))
    eq(rvs, sorted(rvs), "bookmark RVs non-decreasing")
    check(rvs[-1] >= writes[-1], "last bookmark RV %d below the last write %d",
          rvs[-1], writes[-1])
    bm = events[-1]["object"]
    eq((bm["kind"], bm["apiVersion"]), ("ConfigMap", "v1"), "bookmark object kind")

    events, ended = without.events_for(3)
    check(ended, "the watch without bookmarks did not end")
    eq(events, [], "events without allowWatchBookmarks")

    w = rw.watch("/api/v1/configmaps?watch=true&allowWatchBookmarks=true&"
                 "labelSelector=app%%3Dx&resourceVersion=%d" % rvs[-1])
    rm = store.put(cm_key("ns", "match"), configmap("ns", "match", labels={"app": "x"}))
    events, _ = w.events_for(1.5)
    got = [(e["type"], rv_of(e["object"])) for e in events if e["type"] != "BOOKMARK"]
    eq(got, [("ADDED", rm)], "re-watch from the last bookmark")


run(main)
