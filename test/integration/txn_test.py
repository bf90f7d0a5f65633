"""Keys written by one etcd transaction share its revision: each is still a
change of its own.  Watchers get every one of them (in the transaction's
order, at one resourceVersion), LIST shows all, and a watch from that revision
replays none of them."""
from harness import *


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, resources="configmaps")
    r0 = etcd.put(cm_key("ns", "old"), configmap("ns", "old"))
    rw.wait_rv(r0)
    w = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % r0)

    r1 = etcd.txn(puts=[(cm_key("ns", "t%d" % i), configmap("ns", "t%d" % i)) for i in range(5)])
    r2 = etcd.txn(puts=[(cm_key("ns", "t0"), configmap("ns", "t0", {"v": "2"}))],
                  deletes=[cm_key("ns", "old"), cm_key("ns", "t1")])
    events, _ = w.events_for(2)
    got = [(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events]
    eq(got, [("ADDED", "t%d" % i, r1) for i in range(5)] +
       [("MODIFIED", "t0", r2), ("DELETED", "old", r2), ("DELETED", "t1", r2)],
       "events of two transactions")

    lst = rw.wait_rv(r2)
    eq([i["metadata"]["name"] for i in lst["items"]], ["t0", "t2", "t3", "t4"], "LIST")
    w2 = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % r1)
    events, _ = w2.events_for(1.5)
    eq([(e["type"], e["object"]["metadata"]["name"]) for e in events],
       [("MODIFIED", "t0"), ("DELETED", "old"), ("DELETED", "t1")],
       "watch from the first transaction's revision")


run(main)
