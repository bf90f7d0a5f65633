"""C06 list RV semantics.

put a, b; then update a 50 times so that the ring (capacity 8) no longer
holds the first revision r0.  LIST ?resourceVersion=r0 (NotOlderThan): 200,
both items, list RV = current.  LIST ?resourceVersion=r0&limit=1 (Exact):
the state exactly at r0 -- read from etcd while etcd still has r0 (a at its
r0 content, never current data labelled r0), and 410 Expired once etcd has
compacted past r0.  LIST ?resourceVersion=0&limit=1: 1 item and a continue
token that leads to b (or both items and no token).
"""
from harness import *


def names(lst):
    return [i["metadata"]["name"] for i in lst["items"]]


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, "--ring-capacity", "8", resources="configmaps")
    CM = "/api/v1/namespaces/ns/configmaps"
    r0 = etcd.put(cm_key("ns", "a"), configmap("ns", "a", {"v": "0"}))
    rb = etcd.put(cm_key("ns", "b"), configmap("ns", "b"))
    last = rb
    for i in range(1, 51):
        last = etcd.put(cm_key("ns", "a"), configmap("ns", "a", {"v": str(i)}))
    rw.wait_rv(last)

    lst = rw.get_json(CM + "?resourceVersion=%d" % r0)
    eq(names(lst), ["a", "b"], "NotOlderThan r0 items")
    eq(int(lst["metadata"]["resourceVersion"]), last, "NotOlderThan r0 list RV")
    eq(lst["items"][0]["data"], {"v": "50"}, "NotOlderThan serves current a")

    # Exact at r0 (outside the ring, still in etcd): the state at r0.  At r0
    # only a existed (b came at r0+1), so one item and no continue token.
    lst = rw.get_json(CM + "?resourceVersion=%d&limit=1" % r0)
    eq(int(lst["metadata"]["resourceVersion"]), r0, "Exact r0 list RV")
    eq(names(lst), ["a"], "Exact r0 items")
    eq(lst["items"][0]["data"], {"v": "0"}, "Exact r0 serves a as of r0")
    eq(rv_of(lst["items"][0]), r0, "Exact r0 item RV")
    check("continue" not in lst["metadata"], "no token after the last item")
    # The same with resourceVersionMatch=Exact, at rb: both, a at v0.
    lst = rw.get_json(CM + "?resourceVersion=%d&resourceVersionMatch=Exact" % rb)
    eq([(i["metadata"]["name"], rv_of(i)) for i in lst["items"]],
       [("a", r0), ("b", rb)], "Exact rb items")
    check(rw.metric("ringwatch_list_cache_misses_total", resource="configmaps") >= 2,
          "reads from etcd are counted as list misses")

    etcd.compact(last)
    status, hdrs, body = rw.get(CM + "?resourceVersion=%d&limit=1" % r0)
    eq(status, 410, "Exact r0 after compaction: status (body %r)" % body[:300])
    st = json.loads(body)
    eq((st["kind"], st["reason"], st["code"]), ("Status", "Expired", 410),
       "Exact r0 after compaction: Status")
    check("items" not in st, "never data labelled r0")

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
