"""A relist must not carry a watcher across events it has not been sent.

A client that does not read falls behind in the ring (its stream is full).
While ringwatch is cut off from the store, writes elsewhere are compacted
away (etcd's compaction; Redis trims the change log), so ringwatch relists
and its ring starts over.  The lagging watcher's selection did not change
in the gap, but the events it was still owed are gone with the old ring:
it must get ERROR 410 after a gap-free prefix, never a silent jump to
newer events."""
from harness import *


def main():
    store = Store()
    relay = Relay(store)
    rw = Ringwatch(store, resources="configmaps", upstream=relay.url)
    r0 = store.put(cm_key("slow", "seed"), configmap("slow", "seed"))
    rw.wait_rv(r0)
    slow = rw.watch("/api/v1/namespaces/slow/configmaps?watch=true&resourceVersion=%d" % r0,
                    timeout=30)
    blob = "x" * 100000
    revs = [store.put(cm_key("slow", "big%d" % (i % 10)), configmap("slow", "big%d" % (i % 10),
                                                                  {"blob": blob, "i": str(i)}))
            for i in range(150)]
    rw.wait_rv(revs[-1], "/api/v1/namespaces/quiet/configmaps")

    relay.cut()
    store.put(cm_key("quiet", "q"), configmap("quiet", "q"))
    last = store.put(cm_key("quiet", "q"), configmap("quiet", "q", {"v": "2"}))
    store.compact(last)  # past the resume revision (a start at last is allowed)
    time.sleep(1)
    relay.restore()
    rw.wait_rv(last, "/api/v1/namespaces/quiet/configmaps", timeout=20)
    eq(rw.metric("ringwatch_relists_total", resource="configmaps"), 1.0, "relists")
    after = store.put(cm_key("slow", "after"), configmap("slow", "after"))

    events, ended = slow.events_for(30)
    check(ended, "the lagging watcher's stream did not end (%d events)", len(events))
    eq(events[-1]["type"], "ERROR", "last event of the lagging watcher")
    eq(events[-1]["object"]["code"], 410, "its code")
    got = [rv_of(e["object"]) for e in events[:-1]]
    eq(got, revs[:len(got)], "events before the ERROR are a gap-free prefix")
    check(len(got) < len(revs), "the watcher was not behind (%d events)", len(got))
    check(after not in got, "the lagging watcher jumped to a newer event")


run(main)
