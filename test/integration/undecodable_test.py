"""Values that are not JSON objects (a kube-apiserver's protobuf, garbage,
invalid UTF-8, a namespace that contradicts the key) are counted, logged
once per key and never served; an object whose value turns undecodable
leaves the cache as a DELETED event, so no watcher keeps a state the store
no longer has.  Values are served byte for byte (big integers intact)."""
from harness import *


def main():
    store = Store()
    # Written as they are (put_raw: over Redis, past the function
    # library, which refuses them); big through the store's own writes.
    store.put_raw(cm_key("ns", "proto"), b"k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap")
    store.put_raw(cm_key("ns", "garbage"), "{not json")
    store.put_raw(cm_key("ns", "latin1"), b'{"metadata":{"name":"latin1"},"data":{"k":"caf\xe9"}}')
    store.put_raw(cm_key("ns", "spoof"), json.dumps(configmap("kube-system", "spoof")))
    big = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big","namespace":"ns"},' \
          '"generation":9007199254740993,"x":-9223372036854775808,"f":1.50,"s":"a\\u0000b"}'
    store.put(cm_key("ns", "big"), big)
    r0 = store.put(cm_key("ns", "good"), configmap("ns", "good", {"v": "1"}))
    rw = Ringwatch(store, resources="configmaps")
    lst = rw.wait_rv(r0)
    eq([i["metadata"]["name"] for i in lst["items"]], ["big", "good"],
       "LIST skips undecodable values")
    eq(rw.metric("ringwatch_undecodable_values_total", resource="configmaps"), 4.0, "counted")
    status, _, body = rw.get("/api/v1/namespaces/ns/configmaps/big")
    eq(status, 200, "GET big")
    for frag in (b'"generation":9007199254740993', b'"x":-9223372036854775808', b'"f":1.50',
                 b'"s":"a\\u0000b"'):
        check(frag in body, "%r not served byte for byte in %r", frag, body)

    w = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % r0)
    store.put_raw(cm_key("ns", "proto"), b"k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap2")
    rbad = store.put_raw(cm_key("ns", "good"), "[1,2,3]")
    rok = store.put(cm_key("ns", "fine"), configmap("ns", "fine"))
    events, _ = w.events_for(2)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("DELETED", "good", rbad), ("ADDED", "fine", rok)], "events")
    eq(events[0]["object"]["data"], {"v": "1"}, "DELETED carries the last good state")
    eq(rw.metric("ringwatch_undecodable_values_total", resource="configmaps"), 6.0, "counted")
    log = rw.logtext()
    eq(log.count("/registry/configmaps/ns/proto"), 1, "log lines for the protobuf key")
    check("metadata.namespace does not match the key" in log, "mismatch not logged")
    check("not valid UTF-8" in log, "invalid UTF-8 not logged")
    status, _, _ = rw.get("/api/v1/namespaces/ns/configmaps/good")
    eq(status, 404, "GET of the undecodable object")


run(main)
