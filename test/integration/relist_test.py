"""The store compacts past the revision ringwatch would resume from while
it is cut off (etcd's compaction; Redis trims the change log): ringwatch
relists.  No watcher silently misses a change: a watcher
whose selection changed in the gap gets ERROR 410 and its stream ends; a
watcher whose selection did not change is carried across and keeps
receiving; a new LIST shows the new state; a watch from before the relist
is 410.

Over etcd, whose history reaches back to the compaction, the relist reads
the state at the compaction revision K, not the current one, and the
watch replays the changes after K (src/upstream_etcd_warm.h): only the
watchers whose selection changed up to K get 410; a watcher whose
selection changed only after K gets those changes as events."""
from harness import *


def main():
    store = Store()
    relay = Relay(store)
    rw = Ringwatch(store, resources="configmaps", upstream=relay.url)
    store.put(cm_key("quiet", "q"), configmap("quiet", "q"))
    r0 = store.put(cm_key("busy", "b"), configmap("busy", "b"))
    rw.wait_rv(r0)
    busy = rw.watch("/api/v1/namespaces/busy/configmaps?watch=true&resourceVersion=%d" % r0)
    quiet = rw.watch("/api/v1/namespaces/quiet/configmaps?watch=true&resourceVersion=%d" % r0)
    everything = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % r0)

    relay.cut()
    store.put(cm_key("busy", "b"), configmap("busy", "b", {"v": "2"}))
    store.put(cm_key("busy", "c"), configmap("busy", "c"))
    last = store.put(cm_key("busy", "b"), configmap("busy", "b", {"v": "3"}))
    store.compact(last)
    time.sleep(1)
    relay.restore()

    for name, w in (("busy", busy), ("everything", everything)):
        events, ended = w.events_for(10)
        check(ended, "%s: stream did not end", name)
        eq([e["type"] for e in events], ["ERROR"], "%s: events" % name)
        eq((events[0]["object"]["code"], events[0]["object"]["reason"]), (410, "Expired"),
           "%s: Status" % name)

    lst = rw.wait_rv(last)
    eq(sorted((i["metadata"]["namespace"], i["metadata"]["name"]) for i in lst["items"]),
       [("busy", "b"), ("busy", "c"), ("quiet", "q")], "LIST after the relist")
    eq(rw.metric("ringwatch_relists_total", resource="configmaps"), 1.0, "relists")
    eq(rw.metric("ringwatch_watchers_terminated_total", resource="configmaps",
                 reason="relist"), 2.0, "watchers ended by the relist")

    rq = store.put(cm_key("quiet", "q"), configmap("quiet", "q", {"v": "2"}))
    events, ended = quiet.events_for(3)
    check(not ended, "quiet watcher ended")
    eq([(e["type"], rv_of(e["object"])) for e in events], [("MODIFIED", rq)],
       "quiet watcher after the relist")

    old = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % r0)
    events, ended = old.events_for(5)
    check(ended and [e["type"] for e in events] == ["ERROR"],
          "watch from before the relist: %r", events)
    if store.old_revisions:
        relist_at_compaction(store, relay, rw)


def relist_at_compaction(store, relay, rw):
    r1 = store.revision()
    rw.wait_rv(r1)
    early = rw.watch("/api/v1/namespaces/early/configmaps?watch=true&resourceVersion=%d" % r1)
    late = rw.watch("/api/v1/namespaces/late/configmaps?watch=true&resourceVersion=%d" % r1)
    relay.cut()
    store.put(cm_key("early", "x"), configmap("early", "x"))
    k = store.put(cm_key("early", "x"), configmap("early", "x", {"v": "2"}))
    l1 = store.put(cm_key("late", "y"), configmap("late", "y"))
    l2 = store.put(cm_key("late", "y"), configmap("late", "y", {"v": "2"}))
    store.compact(k)
    time.sleep(1)
    relay.restore()

    events, ended = early.events_for(10)
    check(ended and [e["type"] for e in events] == ["ERROR"],
          "watcher whose selection changed up to the compaction: %r", events)
    events, ended = late.events_for(3)
    check(not ended, "watcher whose selection changed only after the compaction ended")
    eq([(e["type"], rv_of(e["object"])) for e in events], [("ADDED", l1), ("MODIFIED", l2)],
       "watcher whose selection changed only after the compaction")
    eq(rw.metric("ringwatch_cache_start_revision", resource="configmaps"), float(k),
       "relisted at the compaction")
    eq(rw.metric("ringwatch_relists_total", resource="configmaps"), 2.0, "relists")


run(main)
