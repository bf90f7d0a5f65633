"""/metrics is valid Prometheus text (promtool check metrics) and counts
what happened: ring hits and misses with their ratio, LISTs from memory,
events received and dispatched, bookmarks, watchers by protocol."""
import shutil

from harness import *


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, "--ring-capacity", "4", "--bookmark-interval", "1",
                   resources="configmaps")
    revs = [etcd.put(cm_key("ns", "a"), configmap("ns", "a", {"i": str(i)})) for i in range(8)]
    rw.wait_rv(revs[-1])

    old = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % revs[0])
    events, _ = old.events_for(3)
    eq([e["type"] for e in events], ["ERROR"], "miss")
    hits = [rw.watch("/api/v1/configmaps?watch=true&allowWatchBookmarks=true"
                     "&resourceVersion=%d" % revs[-2]) for _ in range(3)]
    for w in hits:
        events, _ = w.events_for(0.5)
        eq([rv_of(e["object"]) for e in events if e["type"] != "BOOKMARK"], [revs[-1]], "hit")
    time.sleep(1.5)  # a bookmark round

    _, hdrs, body = rw.get("/metrics")
    check(hdrs["content-type"].startswith("text/plain; version=0.0.4"), "content type %r",
          hdrs["content-type"])
    promtool = shutil.which("promtool")
    if promtool:
        p = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True,
                           timeout=20)
        eq(p.returncode, 0, "promtool check metrics (%s)" % (p.stdout + p.stderr).decode())
    else:
        print("promtool not installed: format check skipped")

    m = lambda name, **kw: rw.metric(name, resource="configmaps", **kw)
    eq(m("ringwatch_watch_cache_hits_total"), 3.0, "hits")
    eq(m("ringwatch_watch_cache_misses_total"), 1.0, "misses")
    eq(m("ringwatch_watch_cache_hit_ratio"), 0.75, "hit ratio")
    eq(m("ringwatch_ring_capacity_events"), 4.0, "ring capacity")
    eq(m("ringwatch_ring_events"), 4.0, "ring occupancy")
    eq(m("ringwatch_ring_oldest_resource_version"), float(revs[-4]), "oldest RV")
    eq(m("ringwatch_ring_newest_resource_version"), float(revs[-1]), "newest RV")
    eq(m("ringwatch_watch_events_received_total"), 8.0, "events received")
    eq(m("ringwatch_watch_events_dispatched_total"), 3.0, "events dispatched")
    check(m("ringwatch_bookmarks_sent_total") >= 3, "bookmarks sent")
    eq(m("ringwatch_watchers", protocol="h1"), 3.0, "h1 watchers")
    eq(m("ringwatch_watchers", protocol="h2"), 0.0, "h2 watchers")
    check(m("ringwatch_list_cache_hits_total") >= 1, "LISTs from memory")
    eq(rw.metric("ringwatch_upstream_connected", store="etcd"), 1.0, "upstream connected")


run(main)
