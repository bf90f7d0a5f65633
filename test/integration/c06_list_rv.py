"""C06 list RV semantics.

put a, b; then update a 50 times so that the ring (capacity 8) no longer
holds the first revision r0.  LIST ?resourceVersion=r0 (NotOlderThan): 200,
both items, list RV = current.  LIST ?resourceVersion=r0&limit=1 (Exact):
the state exactly at r0 -- read from the store while it still has r0 (etcd
keeps old revisions until it compacts them: a at its r0 content, never
current data labelled r0), and 410 Expired once it has not (etcd compacted
past r0; Redis keeps no old values, so at once).  LIST
?resourceVersion=0&limit=1: 1 item and a continue token that leads to b (or
both items and no token).
"""
from harness import *


def names(lst):
    return [i["metadata"]["name"] for i in lst["items"]]


CM = "/api/v1/namespaces/ns/configmaps"


def exact_from_the_store(rw, r0, rb):
    """Exact at r0 (outside the ring, still in the store): the state at r0.
    At r0 only a existed (b came at r0+1), so one item and no continue
    token; at rb both, a at v0."""
    lst = rw.get_json(CM + "?resourceVersion=%d&limit=1" % r0)
    eq(int(lst["metadata"]["resourceVersion"]), r0, "Exact r0 list RV")
    eq(names(lst), ["a"], "Exact r0 items")
    eq(lst["items"][0]["data"], {"v": "0"}, "Exact r0 serves a as of r0")
    eq(rv_of(lst["items"][0]), r0, "Exact r0 item RV")
    check("continue" not in lst["metadata"], "no token after the last item")
    lst = rw.get_json(CM + "?resourceVersion=%d&resourceVersionMatch=Exact" % rb)
    eq([(i["metadata"]["name"], rv_of(i)) for i in lst["items"]],
       [("a", r0), ("b", rb)], "Exact rb items")
    check(rw.metric("ringwatch_list_cache_misses_total", resource="configmaps") >= 2,
          "reads from the store are counted as list misses")


def expect_expired(rw, path, what):
    """410 Expired, never data labelled with a revision the store lost."""
    status, hdrs, body = rw.get(path)
    eq(status, 410, "%s: status (body %r)" % (what, body[:300]))
    st = json.loads(body)
    eq((st["kind"], st["reason"], st["code"]), ("Status", "Expired", 410), "%s: Status" % what)
    check("items" not in st, "%s: never data labelled with a lost revision" % what)


def main():
    store = Store()
    rw = Ringwatch(store, "--ring-capacity", "8", resources="configmaps")
    r0 = store.put(cm_key("ns", "a"), configmap("ns", "a", {"v": "0"}))
    rb = store.put(cm_key("ns", "b"), configmap("ns", "b"))
    last = rb
    for i in range(1, 51):
        last = store.put(cm_key("ns", "a"), configmap("ns", "a", {"v": str(i)}))
    rw.wait_rv(last)

    lst = rw.get_json(CM + "?resourceVersion=%d" % r0)
    eq(names(lst), ["a", "b"], "NotOlderThan r0 items")
    eq(int(lst["metadata"]["resourceVersion"]), last, "NotOlderThan r0 list RV")
    eq(lst["items"][0]["data"], {"v": "50"}, "NotOlderThan serves current a")

    if store.old_revisions:
        exact_from_the_store(rw, r0, rb)
        store.compact(last)
    expect_expired(rw, CM + "?resourceVersion=%d&limit=1" % r0, "Exact r0")
    expect_expired(rw, CM + "?resourceVersion=%d&resourceVersionMatch=Exact" % rb, "Exact rb")

    # RV=0 with a limit: one item and a token that leads to b.
    lst = rw.get_json(CM + "?resourceVersion=0&limit=1")
    if "continue" in lst["metadata"]:
        eq(names(lst), ["a"], "RV=0 limit=1 first page")
        nxt = rw.get_json(CM + "?limit=1&continue=" + lst["metadata"]["continue"])
        eq(names(nxt), ["b"], "RV=0 limit=1 second page")
        check("continue" not in nxt["metadata"], "no token after b")
        eq(nxt["metadata"]["resourceVersion"], lst["metadata"]["resourceVersion"],
           "both pages of one snapshot")
    else:
        eq(names(lst), ["a", "b"], "RV=0 limit=1 ignoring the limit")


run(main)
