"""C08 field selectors.

put ns/foo, ns/bar.  LIST fieldSelector=metadata.name=foo -> [foo];
metadata.name!=foo -> [bar]; metadata.namespace works too.  A watch with
metadata.name=foo sees only foo's events.  An unsupported field
(spec.nope=1) -> 400 BadRequest "field label not supported: spec.nope",
never an empty list.
"""
from harness import *


def names(lst):
    return [i["metadata"]["name"] for i in lst["items"]]


def main():
    store = Store()
    rw = Ringwatch(store, resources="configmaps")
    store.put(cm_key("ns", "foo"), configmap("ns", "foo"))
    store.put(cm_key("ns", "bar"), configmap("ns", "bar"))
    r = store.put(cm_key("other", "foo"), configmap("other", "foo"))
    rw.wait_rv(r)

    base = "/api/v1/namespaces/ns/configmaps?fieldSelector="
    eq(names(rw.get_json(base + "metadata.name%3Dfoo")), ["foo"], "name=foo")
    eq(names(rw.get_json(base + "metadata.name%3D%3Dfoo")), ["foo"], "name==foo")
    eq(names(rw.get_json(base + "metadata.name!%3Dfoo")), ["bar"], "name!=foo")
    eq(names(rw.get_json("/api/v1/configmaps?fieldSelector=metadata.namespace%3Dother")),
       ["foo"], "namespace=other")
    eq(names(rw.get_json("/api/v1/configmaps?fieldSelector=metadata.namespace%3Dns,"
                         "metadata.name%3Dbar")), ["bar"], "namespace=ns,name=bar")

    w = rw.watch("/api/v1/namespaces/ns/configmaps?watch=true&fieldSelector="
                 "metadata.name%%3Dfoo&resourceVersion=%d" % r)
    rf = store.put(cm_key("ns", "foo"), configmap("ns", "foo", {"v": "2"}))
    store.put(cm_key("ns", "bar"), configmap("ns", "bar", {"v": "2"}))
    rf2 = store.delete(cm_key("ns", "foo"))
    events, _ = w.events_for(2)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("MODIFIED", "foo", rf), ("DELETED", "foo", rf2)], "watch on name=foo")

    for q in ("spec.nope%3D1", "spec.nope%3D1&watch=true"):
        status, hdrs, body = rw.get(base + q)
        eq(status, 400, "status for an unsupported field (%s)" % q)
        st = json.loads(body)
        eq((st["kind"], st["code"], st["reason"], st["message"]),
           ("Status", 400, "BadRequest", "field label not supported: spec.nope"),
           "Status for an unsupported field")


run(main)
