"""C10 watch-list end marker (sendInitialEvents).

put a, b.  Watch with sendInitialEvents=true&resourceVersionMatch=
NotOlderThan&allowWatchBookmarks=true: ADDED a, ADDED b, then at once a
BOOKMARK whose RV >= b's and whose metadata.annotations are
{"k8s.io/initial-events-end":"true"} and, as the 1.32 apiserver, the
list blueprint (base64 of {"kind":"ConfigMapList","apiVersion":"v1",
"metadata":{},"items":null} and a newline); then put c: ADDED c after it.  On an
empty namespace only the annotated bookmark.  sendInitialEvents without
resourceVersionMatch=NotOlderThan (or without allowWatchBookmarks): 422
Invalid.  The same from resourceVersion=0 and from an explicit RV.
"""
from harness import *

END = {"k8s.io/initial-events-end": "true",
       "kubernetes.io/initial-events-list-blueprint": b64(
           '{"kind":"ConfigMapList","apiVersion":"v1","metadata":{},"items":null}\n')}
WL = "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"


def summary(events):
    return [(e["type"], e["object"]["metadata"].get("name")) for e in events]


def check_initial(rw, path, want_names, min_rv):
    w = rw.watch(path)
    eq(w.status, 200, "status of " + path)
    events, ended = w.events_for(1.0)
    check(not ended, "stream ended early")
    eq(summary(events), [("ADDED", n) for n in want_names] + [("BOOKMARK", None)],
       "initial events of " + path)
    bm = events[-1]["object"]
    eq(bm["metadata"].get("annotations"), END, "end marker annotations")
    eq(bm["kind"], "ConfigMap", "bookmark kind")
    check(rv_of(bm) >= min_rv, "bookmark RV %d below %d", rv_of(bm), min_rv)
    return w, rv_of(bm)


def main():
    store = Store()
    rw = Ringwatch(store, "--bookmark-interval", "60", resources="configmaps")
    CM = "/api/v1/namespaces/ns/configmaps"
    store.put(cm_key("ns", "a"), configmap("ns", "a"))
    rb = store.put(cm_key("ns", "b"), configmap("ns", "b"))
    rw.wait_rv(rb)

    w, bm_rv = check_initial(rw, CM + "?" + WL, ["a", "b"], rb)
    rc = store.put(cm_key("ns", "c"), configmap("ns", "c"))
    events, _ = w.events_for(1.5)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("ADDED", "c", rc)], "after the marker")
    check(rc > bm_rv, "c after the bookmark")
    w.close()

    # From resourceVersion=0 (any cached state) and from an explicit RV.
    check_initial(rw, CM + "?" + WL + "&resourceVersion=0", ["a", "b", "c"], rc)[0].close()
    check_initial(rw, CM + "?" + WL + "&resourceVersion=%d" % rb, ["a", "b", "c"], rc)[0].close()
    # A consistent state after a write to another resource moved the store on.
    other = store.put("/registry/pods/ns/p", {"apiVersion": "v1", "kind": "Pod",
                                              "metadata": {"name": "p", "namespace": "ns"}})
    w, bm_rv = check_initial(rw, CM + "?" + WL, ["a", "b", "c"], other)
    w.close()

    # Empty namespace: only the marker.
    check_initial(rw, "/api/v1/namespaces/empty/configmaps?" + WL, [], rb)[0].close()

    # sendInitialEvents=false: no initial events, changes after now.
    w = rw.watch(CM + "?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
    eq(w.status, 200, "sendInitialEvents=false status")
    events, _ = w.events_for(1.0)
    eq(events, [], "sendInitialEvents=false sends no state")
    rd = store.put(cm_key("ns", "d"), configmap("ns", "d"))
    events, _ = w.events_for(1.5)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("ADDED", "d", rd)], "sendInitialEvents=false change")
    w.close()

    for query, field in (("watch=1&sendInitialEvents=true&allowWatchBookmarks=true",
                          "resourceVersionMatch"),
                         ("watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan",
                          "allowWatchBookmarks"),
                         ("watch=1&resourceVersionMatch=NotOlderThan", "resourceVersionMatch"),
                         ("sendInitialEvents=true", "sendInitialEvents")):
        status, _, body = rw.get(CM + "?" + query)
        eq(status, 422, "status of ?%s" % query)
        st = json.loads(body)
        eq((st["kind"], st["status"], st["reason"], st["code"]),
           ("Status", "Failure", "Invalid", 422), "Status of ?%s" % query)
        eq(st["details"]["causes"][0]["field"], field, "field of ?%s" % query)
        check(st["message"].startswith('ListOptions.meta.k8s.io "" is invalid: ' + field),
              "message of ?%s: %s", query, st["message"])


run(main)
