"""C05 selector transitions.

a labelled app=x, n labelled app=y; watch with labelSelector=app=x.  Remove
a's label: DELETED a (showing app=x, at the new RV).  Restore it: ADDED a.
Change n: nothing.  LIST with the selector: [a].
"""
from harness import *


def main():
    store = Store()
    rw = Ringwatch(store, resources="configmaps")
    store.put(cm_key("ns", "a"), configmap("ns", "a", labels={"app": "x"}))
    r = store.put(cm_key("ns", "n"), configmap("ns", "n", labels={"app": "y"}))
    rw.wait_rv(r)

    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=true&labelSelector=app%%3Dx"
                 "&resourceVersion=%d" % r)
    r_unlabel = store.put(cm_key("ns", "a"), configmap("ns", "a", {"step": "unlabelled"}))
    events, _ = w.events_for(1.5)
    eq([(e["type"], rv_of(e["object"])) for e in events], [("DELETED", r_unlabel)],
       "after removing a's label")
    eq(events[0]["object"]["metadata"]["labels"], {"app": "x"},
       "DELETED shows the old content")

    r_relabel = store.put(cm_key("ns", "a"), configmap("ns", "a", labels={"app": "x"}))
    events, _ = w.events_for(1.5)
    eq([(e["type"], rv_of(e["object"])) for e in events], [("ADDED", r_relabel)],
       "after restoring a's label")

    r_n = store.put(cm_key("ns", "n"), configmap("ns", "n", {"v": "2"}, labels={"app": "y"}))
    events, _ = w.events_for(1.5)
    eq(events, [], "after changing n")
    rw.wait_rv(r_n)

    lst = rw.get_json("/api/v1/namespaces/ns/configmaps?labelSelector=app%3Dx")
    eq([i["metadata"]["name"] for i in lst["items"]], ["a"], "LIST with the selector")
    lst = rw.get_json("/api/v1/configmaps?labelSelector=app+in+(x,y)")
    eq([i["metadata"]["name"] for i in lst["items"]], ["a", "n"], "LIST with app in (x,y)")
    lst = rw.get_json("/api/v1/configmaps?labelSelector=!app")
    eq(lst["items"], [], "LIST with !app")


run(main)
