"""C03 the window's edge.

Ring capacity 4; cache initialised at list RV L (an empty store's too:
never 0, which a watch reads as "any state").  put ns/a (L+1): a watch
from L delivers it (no 410).  Write 5 more.  A watch from the revision just
before the oldest retained event delivers every retained event in order;
one from two before gets ERROR(410); one from L gets ERROR(410) too (never a
silent start that skips evicted events).
"""
from harness import *


def expect_410(rw, rv, oldest_minus_one):
    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=%d" % rv)
    eq(w.status, 200, "status")
    events, ended = w.events_for(5)
    check(ended, "stream did not end after ERROR")
    eq([e["type"] for e in events], ["ERROR"], "events of a watch from %d" % rv)
    eq(events[0]["object"]["code"], 410, "code")
    eq(events[0]["object"]["message"],
       "too old resource version: %d (%d)" % (rv, oldest_minus_one), "message")


def main():
    store = Store()
    rw = Ringwatch(store, "--ring-capacity", "4", resources="configmaps")
    L = int(rw.get_json("/api/v1/configmaps")["metadata"]["resourceVersion"])
    # An empty store too: a watch from "0" would start from any state.
    check(L > 0, "a LIST of an empty store at resourceVersion %d", L)

    r = store.put(cm_key("ns", "a"), configmap("ns", "a", {"n": "0"}))
    eq(r, L + 1, "first write's revision")
    rw.wait_rv(r)
    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=%d" % L)
    events, _ = w.events_for(1.5)
    eq([(e["type"], rv_of(e["object"])) for e in events], [("ADDED", r)],
       "watch from the list RV")
    w.close()

    revs = [r] + [store.put(cm_key("ns", "a"), configmap("ns", "a", {"n": str(i)}))
                  for i in range(1, 6)]
    rw.wait_rv(revs[-1])
    retained = revs[-4:]
    oldest = retained[0]

    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=true&resourceVersion=%d" % (oldest - 1))
    events, ended = w.events_for(1.5)
    check(not ended, "stream ended")
    eq([rv_of(e["object"]) for e in events], retained, "retained events in order")
    eq({e["type"] for e in events}, {"MODIFIED"}, "event types")
    w.close()

    expect_410(rw, oldest - 2, oldest - 1)
    expect_410(rw, L, oldest - 1)


run(main)
