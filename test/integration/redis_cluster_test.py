"""ringwatch over a Redis Cluster (src/upstream_redis_nodes.c): 3 masters +
3 replicas on loopback (redis-cli --cluster create --cluster-replicas 1,
harness_redis.RedisCluster), every node given as a seed.

With --redis-revisions per-resource the resources spread over the shards
(configmaps and pods on one master, secrets on another, serviceaccounts on
the third); with global they all live in the slot of {rw}.  For each:

1. LIST of every resource equals the cluster's state; WATCH from it gets
   ADDED/MODIFIED/DELETED at the revisions Redis gave, and bookmarks.
2. Resharding: the slot of one resource moves to another master
   (IMPORTING/MIGRATING, MIGRATE, writes while it migrates (ASK), SETSLOT
   NODE): ringwatch follows the MOVED and the watch goes on, every write
   delivered in order, no 410.
3. Failover without loss: the writes replicated (WAIT), the master
   killed (SIGKILL), its replica promoted by the cluster: ringwatch
   reconnects to the new master and the watch goes on, no 410.
4. Failover that loses writes: the replica cut off from its master, a
   write that ringwatch serves, the master killed, the replica takes over
   without it: every watch of the affected resources (all of them with
   global revisions) ends with 410, the reset is counted, and the cache
   ends equal to the store, the lost write gone; the other shards' watches
   go on.  Once the new history has passed the lost revision, a new
   informer's LIST is past it and its watch sees the next write.
5. The same while ringwatch is stopped (SIGSTOP), the new master written
   up to the lost revision before it runs again: the revision counter is
   no longer behind, the log's entries tell (another key at the revision
   served); the same outcome.
Every wait is bounded.
"""
import os
import signal
import threading

from harness import *
from harness_redis import RedisCluster, key_slot, next_of

NS = "ns"
RESOURCES = {"configmaps": "ConfigMap", "secrets": "Secret",
             "serviceaccounts": "ServiceAccount", "pods": "Pod"}


def obj(resource, name, v):
    return {"apiVersion": "v1", "kind": RESOURCES[resource],
            "metadata": {"name": name, "namespace": NS, "labels": {"v": str(v)}}}


def key(resource, name):
    return "/registry/%s/%s/%s" % (resource, NS, name)


def path(resource):
    return "/api/v1/namespaces/%s/%s" % (NS, resource)


def state(lst):
    return sorted((i["metadata"]["name"], rv_of(i), i["metadata"]["labels"]["v"])
                  for i in lst["items"])


def store_state(cluster, resource):
    return sorted((k.rsplit("/", 1)[1], rev, json.loads(v)["metadata"]["labels"]["v"])
                  for k, (rev, v) in cluster.range(key(resource, "")).items())


def converge(rw, cluster, resource, what, timeout=30):
    """Until a LIST of resource equals the store (bounded)."""
    deadline = time.time() + timeout
    while True:
        status, _, body = rw.get(path(resource))
        if status == 200:
            got = state(json.loads(body))
            want = store_state(cluster, resource)
            if got == want:
                return
        check(time.time() < deadline, "%s: %s LIST %s %r, store %r"
              % (what, resource, status, body[:300], store_state(cluster, resource)))
        time.sleep(0.1)


def put_event(rw, cluster, w, resource, name, v, what):
    """Writes name, expects its event on w at the revision Redis gave."""
    rev = cluster.put(key(resource, name), obj(resource, name, v))
    ev = next_of(w, ("ADDED", "MODIFIED"), what, timeout=20)
    eq(ev["object"]["metadata"]["name"], name, "%s: object" % what)
    eq(rv_of(ev["object"]), rev, "%s: revision" % what)
    return rev


def watch(rw, resource, rv):
    return rw.watch("%s?watch=1&resourceVersion=%d&allowWatchBookmarks=true"
                    % (path(resource), rv), timeout=20)


def lossy_failover(cluster, rw, watches, revisions, res, step, paused):
    """A failover of res's master to a replica cut off from it, after a
    write ringwatch served; paused: ringwatch stopped meanwhile, and the new
    master written past that revision.  The affected watches end with 410
    (replaced in watches by new ones), the others go on, the caches end
    equal to the store."""
    resets = {r: rw.metric("ringwatch_upstream_store_resets_total", resource=r,
                           reason="revision") or 0 for r in RESOURCES}
    slot = key_slot(cluster.tag(res))
    m = cluster.master_of(res)
    if cluster.replica_of(m) is None:
        # its master's replica was promoted by an earlier step, and that
        # master killed: res's slot is resharded to a master with a replica
        m = next(cluster.node(p) for p, reps in cluster.slots.values() if reps)
        cluster.move_slot(slot, m)
    rep = cluster.replica_of(m)
    cluster.cut_replication(rep)
    served = put_event(rw, cluster, watches[res], res, step + "-lost", 1,
                       "%s: the write to be lost" % res)
    if paused:
        os.kill(rw.proc.pid, signal.SIGSTOP)
    try:
        cluster.kill(m)
        took_at = time.time()
        cluster.takeover(rep)
        cluster.wait_master(slot, rep, timeout=30)
        check(key(res, step + "-lost") not in cluster.range(key(res, "")),
              "the new master lacks the write")
        n = 0
        while paused and cluster.revision(res) < served:
            name = "%s-past%d" % (step, n)
            cluster.put(key(res, name), obj(res, name, 0))
            n += 1
    finally:
        if paused:
            os.kill(rw.proc.pid, signal.SIGCONT)
    affected = [r for r in RESOURCES if revisions == "global" or r == res]
    for r in affected:
        ev = next_of(watches[r], ("ERROR",), "%s: 410 after the lossy failover" % r,
                     timeout=30)
        eq(ev["object"]["code"], 410, "%s: ERROR code" % r)
        print("%s: lossy failover%s: %s's watch ended with 410 %.2f s after the "
              "takeover" % (revisions, " (ringwatch stopped)" if paused else "", r,
                            time.time() - took_at))
    if paused:
        check("its log no longer holds the changes of %s" % res in rw.logtext(),
              "the log's entries told:\n%s" % rw.logtext())
    for r in RESOURCES:
        converge(rw, cluster, r, "after the lossy failover")
    for r in affected:
        got = rw.metric("ringwatch_upstream_store_resets_total", resource=r,
                        reason="revision") or 0
        check(got > resets[r], "%s: the reset counted (%s -> %s)" % (r, resets[r], got))
        # Revisions up to the lost one are refused until the new history
        # passes it (store_reset_test's rule): write past it, then a new
        # informer lists and watches.
        n = 0
        while cluster.revision(r) <= served:
            name = "%s-filler%d" % (step, n)
            cluster.put(key(r, name), obj(r, name, 0))
            n += 1
        lst = rw.wait_rv(cluster.revision(r), path(r), timeout=15)
        eq(state(lst), store_state(cluster, r), "%s: LIST past the lost revision" % r)
        watches[r] = watch(rw, r, rv_of(lst))
        put_event(rw, cluster, watches[r], r, step + "-again", 2,
                  "%s: a new watch after the reset" % r)
    for r in RESOURCES:
        if r not in affected:
            put_event(rw, cluster, watches[r], r, step + "-still", 1,
                      "%s: the other shards' watch goes on" % r)


def scenario(revisions):
    cluster = RedisCluster(revisions=revisions, password="s3cret", node_timeout=1000)
    masters = {r: cluster.master_of(r).port for r in RESOURCES}
    if revisions == "per-resource":
        check(len(set(masters.values())) == 3, "the resources spread over the "
              "3 masters: %r" % masters)
    for r in RESOURCES:
        for i in range(3):
            cluster.put(key(r, "o%d" % i), obj(r, "o%d" % i, 0))
    rw = Ringwatch(cluster, "--bookmark-interval", "1",
                   resources=",".join(RESOURCES), upstream=cluster.url)
    eq(rw.metric("ringwatch_upstream_connected", store="redis"), 1.0, "connected")

    # 1. LIST and WATCH over every shard
    watches = {}
    for r in RESOURCES:
        lst = rw.get_json(path(r))
        eq(rv_of(lst), cluster.revision(r), "%s: LIST revision" % r)
        eq(state(lst), store_state(cluster, r), "%s: LIST" % r)
        watches[r] = watch(rw, r, rv_of(lst))
    for r in RESOURCES:
        put_event(rw, cluster, watches[r], r, "n", 1, "%s ADDED" % r)
        rev = cluster.delete(key(r, "n"))
        ev = next_of(watches[r], ("DELETED",), "%s DELETED" % r)
        eq(rv_of(ev["object"]), rev, "%s DELETED revision" % r)

    # 2. resharding: secrets' slot moves to another master
    slot = key_slot(cluster.tag("secrets"))
    src = cluster.master_of("secrets")
    dst = next(cluster.node(p) for p in set(masters.values()) | {
        m for m, _ in cluster.slots.values()} if p != src.port)
    migrating = []

    def writes():
        for i in range(3):
            migrating.append(cluster.put(key("secrets", "m%d" % i),
                                         obj("secrets", "m%d" % i, 1)))

    writer = threading.Thread(target=writes)

    def during():
        # writes while the slot migrates (ASK, then TRYAGAIN until it has
        # moved), and a pause in that state
        writer.start()
        time.sleep(1.5)

    cluster.move_slot(slot, dst, during=during)
    moved_at = time.time()
    writer.join(15)
    eq(len(migrating), 3, "the writes while migrating done")
    for i, rev in enumerate(migrating):
        ev = next_of(watches["secrets"], ("ADDED",), "secrets written while migrating",
                     timeout=20)
        eq((ev["object"]["metadata"]["name"], rv_of(ev["object"])), ("m%d" % i, rev),
           "secrets written while migrating")
    print("%s: resharding: the writes while migrating delivered %.2f s after "
          "the slot moved" % (revisions, time.time() - moved_at))
    put_event(rw, cluster, watches["secrets"], "secrets", "moved", 1,
              "secrets after the resharding")
    for r in RESOURCES:
        converge(rw, cluster, r, "after the resharding")
    check("moved to 127.0.0.1:%d" % dst.port in rw.logtext(),
          "ringwatch followed the MOVED:\n%s" % rw.logtext())

    # 3. failover without loss: configmaps' master killed, its replica
    # promoted by the cluster
    m = cluster.master_of("configmaps")
    rep = cluster.replica_of(m)
    check(rep is not None, "configmaps' master has a replica")
    rev = cluster.put(key("configmaps", "kept"), obj("configmaps", "kept", 1))
    next_of(watches["configmaps"], ("ADDED",), "configmaps before the failover")
    eq(m.command("WAIT", 1, 5000), 1, "the write replicated")
    killed_at = time.time()
    cluster.kill(m)
    cluster.wait_master(key_slot(cluster.tag("configmaps")), rep, timeout=30)
    promoted_at = time.time()
    put_event(rw, cluster, watches["configmaps"], "configmaps", "after", 1,
              "configmaps after the failover")
    print("%s: failover: replica promoted %.2f s after the kill, the next write "
          "delivered %.2f s after that" % (revisions, promoted_at - killed_at,
                                           time.time() - promoted_at))
    converge(rw, cluster, "configmaps", "after the failover")

    # 4. failover that loses a write ringwatch served: serviceaccounts'
    # replica cut off, a write, the master killed, the replica takes over
    lossy_failover(cluster, rw, watches, revisions, "serviceaccounts", "s4", False)
    # 5. the same, and the new master written past the lost revision while
    # ringwatch is stopped (SIGSTOP): its revision counter is no longer
    # behind, the log's entries tell
    lossy_failover(cluster, rw, watches, revisions, "secrets", "s5", True)
    for r in RESOURCES:
        converge(rw, cluster, r, "at the end")
    rw.stop()
    cluster.stop()


def main():
    for revisions in sys.argv[1:] or ("per-resource", "global"):
        scenario(revisions)


run(main)
