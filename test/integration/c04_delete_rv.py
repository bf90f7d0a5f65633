"""C04 deletes carry the delete's RV.

put ns/a data {k:1} (r1), then others; watch from the latest RV; delete
ns/a (rd): DELETED a with data {k:1} and metadata.resourceVersion "rd".  A
re-watch from rd replays nothing.
"""
from harness import *


def main():
    store = Store()
    rw = Ringwatch(store, resources="configmaps")
    store.put(cm_key("ns", "a"), configmap("ns", "a", {"k": "1"}))
    last = 0
    for i in range(3):
        last = store.put(cm_key("ns", "other%d" % i), configmap("ns", "other%d" % i))
    rw.wait_rv(last)

    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=%d" % last)
    rd = store.delete(cm_key("ns", "a"))
    events, _ = w.events_for(2)
    eq(len(events), 1, "events after the delete (%r)" % events)
    ev = events[0]
    eq(ev["type"], "DELETED", "type")
    eq(ev["object"]["metadata"]["name"], "a", "name")
    eq(ev["object"]["data"], {"k": "1"}, "DELETED carries the last state")
    eq(ev["object"]["metadata"]["resourceVersion"], str(rd), "DELETED's resourceVersion")
    eq(ev["object"]["kind"], "ConfigMap", "kind")
    w.close()

    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=%d" % rd)
    events, _ = w.events_for(2)
    eq(events, [], "re-watch from the delete's RV")
    status, _, _ = rw.get("/api/v1/namespaces/ns/configmaps/a")
    eq(status, 404, "GET of the deleted object")


run(main)
