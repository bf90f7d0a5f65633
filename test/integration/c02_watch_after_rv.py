"""C02 a watch starts after N, not at N.

put ns/a (r1), put ns/a (r2).  A watch from r1 first gets MODIFIED a at r2,
nothing at r1.  LIST CM (RV L); a watch from L sees no events for 3 s
without writes; then put ns/b: exactly one ADDED b.
"""
from harness import *


def main():
    store = Store()
    rw = Ringwatch(store, resources="configmaps")
    r1 = store.put(cm_key("ns", "a"), configmap("ns", "a", {"v": "1"}))
    r2 = store.put(cm_key("ns", "a"), configmap("ns", "a", {"v": "2"}))
    rw.wait_rv(r2)

    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=%d" % r1)
    eq(w.status, 200, "status")
    events, ended = w.events_for(1.5)
    check(not ended, "stream ended early")
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("MODIFIED", "a", r2)], "events of a watch from r1")
    eq(events[0]["object"]["data"], {"v": "2"}, "MODIFIED carries the new state")
    w.close()

    lst = rw.get_json("/api/v1/namespaces/ns/configmaps")
    L = int(lst["metadata"]["resourceVersion"])
    check(L >= r2, "list RV %d below the last write %d", L, r2)
    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=True&resourceVersion=%d" % L)
    events, ended = w.events_for(3)
    eq(events, [], "events from the list RV without writes")
    check(not ended, "stream ended early")
    rb = store.put(cm_key("ns", "b"), configmap("ns", "b"))
    events, _ = w.events_for(2)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("ADDED", "b", rb)], "events after put ns/b")


run(main)
