"""C07 empty lists.

LIST an empty namespace, and a selector matching nothing: 200, kind
ConfigMapList, apiVersion v1, a resourceVersion usable to start a watch,
"items": [] (present, not null).  A watch of the empty namespace from that
RV, then put empty/x: exactly one ADDED x.
"""
from harness import *


def main():
    store = Store()
    rw = Ringwatch(store, resources="configmaps")
    r = store.put(cm_key("ns", "a"), configmap("ns", "a", labels={"app": "x"}))
    rw.wait_rv(r)

    for path in ("/api/v1/namespaces/empty/configmaps",
                 "/api/v1/configmaps?labelSelector=app%3Dnothing"):
        status, hdrs, body = rw.get(path)
        eq(status, 200, "status of " + path)
        eq(hdrs.get("content-type"), "application/json", "content type")
        lst = json.loads(body)
        eq(lst["kind"], "ConfigMapList", "kind")
        eq(lst["apiVersion"], "v1", "apiVersion")
        check("items" in lst and lst["items"] == [], "items must be [] in %s", body)
        check(b'"items":[]' in body, "items not an empty array literal: %s", body)
        eq(int(lst["metadata"]["resourceVersion"]) >= r, True, "list RV")

    lst = rw.get_json("/api/v1/namespaces/empty/configmaps")
    L = lst["metadata"]["resourceVersion"]
    w = rw.watch("/api/v1/namespaces/empty/configmaps?watch=true&resourceVersion=" + L)
    rx = store.put(cm_key("empty", "x"), configmap("empty", "x"))
    store.put(cm_key("ns", "y"), configmap("ns", "y"))
    events, _ = w.events_for(2)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("ADDED", "x", rx)], "events in the empty namespace")


run(main)
