"""Values that are not JSON objects (a kube-apiserver's protobuf, garbage)
are counted, logged once per key and never served; an object whose value
turns undecodable leaves the cache as a DELETED event, so no watcher keeps
a state the store no longer has."""
from harness import *


def main():
    etcd = Etcd()
    etcd.put(cm_key("ns", "proto"), b"k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap")
    etcd.put(cm_key("ns", "garbage"), "{not json")
    r0 = etcd.put(cm_key("ns", "good"), configmap("ns", "good", {"v": "1"}))
    rw = Ringwatch(etcd, resources="configmaps")
    lst = rw.wait_rv(r0)
    eq([i["metadata"]["name"] for i in lst["items"]], ["good"], "LIST skips undecodable values")
    eq(rw.metric("ringwatch_undecodable_values_total", resource="configmaps"), 2.0, "counted")

    w = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % r0)
    etcd.put(cm_key("ns", "proto"), b"k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap2")
    rbad = etcd.put(cm_key("ns", "good"), "[1,2,3]")
    rok = etcd.put(cm_key("ns", "fine"), configmap("ns", "fine"))
    events, _ = w.events_for(2)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("DELETED", "good", rbad), ("ADDED", "fine", rok)], "events")
    eq(events[0]["object"]["data"], {"v": "1"}, "DELETED carries the last good state")
    eq(rw.metric("ringwatch_undecodable_values_total", resource="configmaps"), 4.0, "counted")
    log = rw.logtext()
    eq(log.count("/registry/configmaps/ns/proto"), 1, "log lines for the protobuf key")
    status, _, _ = rw.get("/api/v1/namespaces/ns/configmaps/good")
    eq(status, 404, "GET of the undecodable object")


run(main)
