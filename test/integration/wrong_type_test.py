"""Values that decode but name another type are refused like undecodable
ones: as the apiserver's storage decoder (it decodes with the group,
version and kind the stored bytes name, which then do not convert to the
resource's type), a Secret under /registry/configmaps/, an apps/v1
Deployment under /registry/pods/, a Pod under /registry/deployments/, a
value without apiVersion or with another group or version, for
namespaced, cluster-scoped and apps/v1 types, are counted on /metrics,
logged once per key and never served: not in a LIST, not by GET, not in
a watch.  An object already served that is overwritten by such a value
leaves the cache as a DELETED event (its last good state).  A value
without kind but with the resource's apiVersion is the resource's type
(the decoder defaults the kind from the type) and is served with it."""
from harness import *

NS = "ns"


def obj(api, kind, name, ns=NS, **extra):
    meta = {"name": name, "creationTimestamp": "2026-11-29T00:00:00Z"}
    if ns is not None:
        meta["namespace"] = ns
    o = {"metadata": meta}
    if api is not None:
        o["apiVersion"] = api
    if kind is not None:
        o["kind"] = kind
    o.update(extra)
    return o


# (resource path, etcd key, value, why it is refused or None when served)
CASES = [
    ("/api/v1/namespaces/ns/configmaps", cm_key(NS, "secret"),
     obj("v1", "Secret", "secret", type="Opaque"), "kind does not match the resource"),
    ("/api/v1/namespaces/ns/configmaps", cm_key(NS, "lower"),
     obj("v1", "configmap", "lower"), "kind does not match the resource"),
    ("/api/v1/namespaces/ns/configmaps", cm_key(NS, "v2"),
     obj("v2", "ConfigMap", "v2"), "apiVersion does not match the resource"),
    ("/api/v1/namespaces/ns/configmaps", cm_key(NS, "apps"),
     obj("apps/v1", "ConfigMap", "apps"), "apiVersion does not match the resource"),
    ("/api/v1/namespaces/ns/configmaps", cm_key(NS, "noapi"),
     obj(None, "ConfigMap", "noapi"), "apiVersion is missing"),
    ("/api/v1/namespaces/ns/configmaps", cm_key(NS, "nullapi"),
     dict(obj(None, "ConfigMap", "nullapi"), apiVersion=None), "apiVersion is missing"),
    ("/api/v1/namespaces/ns/configmaps", cm_key(NS, "nokind"),
     obj("v1", None, "nokind"), None),
    ("/api/v1/namespaces/ns/pods", "/registry/pods/ns/deploy",
     obj("apps/v1", "Deployment", "deploy", spec={"replicas": 1}),
     "kind does not match the resource"),
    ("/api/v1/namespaces/ns/pods", "/registry/pods/ns/pod",
     obj("v1", "Pod", "pod", spec={"nodeName": "n1"}), None),
    ("/api/v1/nodes", "/registry/minions/ns-kind",
     obj("v1", "Namespace", "ns-kind", ns=None), "kind does not match the resource"),
    ("/api/v1/nodes", "/registry/minions/beta",
     obj("v1beta1", "Node", "beta", ns=None), "apiVersion does not match the resource"),
    ("/api/v1/nodes", "/registry/minions/noapi",
     obj(None, "Node", "noapi", ns=None), "apiVersion is missing"),
    ("/api/v1/nodes", "/registry/minions/node-1",
     obj("v1", "Node", "node-1", ns=None), None),
    ("/apis/apps/v1/namespaces/ns/deployments", "/registry/deployments/ns/pod",
     obj("v1", "Pod", "pod"), "kind does not match the resource"),
    ("/apis/apps/v1/namespaces/ns/deployments", "/registry/deployments/ns/sts",
     obj("apps/v1", "StatefulSet", "sts"), "kind does not match the resource"),
    ("/apis/apps/v1/namespaces/ns/deployments", "/registry/deployments/ns/beta",
     obj("apps/v1beta2", "Deployment", "beta"), "apiVersion does not match the resource"),
    ("/apis/apps/v1/namespaces/ns/deployments", "/registry/deployments/ns/ext",
     obj("extensions/v1beta1", "Deployment", "ext"), "apiVersion does not match the resource"),
    ("/apis/apps/v1/namespaces/ns/deployments", "/registry/deployments/ns/core",
     obj("v1", "Deployment", "core"), "apiVersion does not match the resource"),
    ("/apis/apps/v1/namespaces/ns/deployments", "/registry/deployments/ns/web",
     obj("apps/v1", "Deployment", "web"), None),
]
KINDS = {"configmaps": ("v1", "ConfigMap"), "pods": ("v1", "Pod"), "nodes": ("v1", "Node"),
         "deployments": ("apps/v1", "Deployment")}


def resource_of(path):
    return path.split("?")[0].rsplit("/", 1)[1]


def served(rw, path):
    lst = rw.get_json(path)
    api, kind = KINDS[resource_of(path)]
    for item in lst["items"]:
        eq((item["apiVersion"], item["kind"]), (api, kind),
           "type of %s in %s" % (item["metadata"]["name"], path))
    return sorted(i["metadata"]["name"] for i in lst["items"])


def main():
    store = Store()
    last = 0
    for _, key, value, _ in CASES:
        last = store.put(key, value)
    rw = Ringwatch(store, resources="pods,configmaps,nodes,apps/v1/deployments")
    rw.wait_rv(last)

    # Refused at the initial list: never in a LIST (consistent or from
    # the cache) nor by GET; the others are served with their type.
    for path in sorted({c[0] for c in CASES}):
        want = sorted(k.rsplit("/", 1)[1] for p, k, _, why in CASES if p == path and why is None)
        eq(served(rw, path), want, "LIST %s" % path)
        eq(served(rw, path + "?resourceVersion=0"), want, "LIST %s from the cache" % path)
        for p, key, _, why in CASES:
            if p == path and why is not None:
                status, _, body = rw.get(path + "/" + key.rsplit("/", 1)[1])
                eq(status, 404, "GET of %s (%r)" % (key, body[:200]))
    got = rw.get_json("/api/v1/namespaces/ns/configmaps/nokind")
    eq((got["apiVersion"], got["kind"]), ("v1", "ConfigMap"), "kind of a value without kind")
    for res in KINDS:
        refused = len([1 for p, _, _, why in CASES if resource_of(p) == res and why])
        eq(rw.metric("ringwatch_undecodable_values_total", resource=res), float(refused),
           "undecodable count of %s" % res)
    log = rw.logtext()
    for _, key, _, why in CASES:
        if why is not None:
            check("skipping %s: %s" % (key, why) in log, "%s not logged with %r" % (key, why))

    # A watch never sees one: a wrong value written over a good object
    # ends it with DELETED (last good state); a wrong new key is skipped;
    # writing the same wrong value again is counted, not logged again.
    CM = "/api/v1/namespaces/ns/configmaps"
    good = store.put(cm_key(NS, "good"), configmap(NS, "good", {"v": "1"}))
    rw.wait_rv(good)
    w = rw.watch(CM + "?watch=1&resourceVersion=%d" % good)
    wd = rw.watch("/apis/apps/v1/namespaces/ns/deployments?watch=1&resourceVersion=%d" % good)
    rbad = store.put(cm_key(NS, "good"), obj("v1", "Secret", "good", data={"v": "2"}))
    store.put(cm_key(NS, "secret"), obj("v1", "Secret", "secret", data={"again": "1"}))
    store.put("/registry/deployments/ns/web2", obj("apps/v1beta1", "Deployment", "web2"))
    rdep = store.put("/registry/deployments/ns/web", obj("v1", "Pod", "web"))
    rok = store.put(cm_key(NS, "fine"), configmap(NS, "fine"))
    events, _ = w.events_for(2)
    eq([(e["type"], e["object"]["metadata"]["name"], rv_of(e["object"])) for e in events],
       [("DELETED", "good", rbad), ("ADDED", "fine", rok)], "configmap events")
    eq((events[0]["object"]["kind"], events[0]["object"]["data"]), ("ConfigMap", {"v": "1"}),
       "DELETED carries the last good state")
    events, _ = wd.events_for(1)
    eq([(e["type"], e["object"]["metadata"]["name"], e["object"]["kind"], rv_of(e["object"]))
        for e in events], [("DELETED", "web", "Deployment", rdep)], "deployment events")
    eq(served(rw, CM), ["fine", "nokind"], "LIST after the overwrites")
    eq(rw.get("/api/v1/namespaces/ns/configmaps/good")[0], 404, "GET of the overwritten object")
    eq(rw.metric("ringwatch_undecodable_values_total", resource="configmaps"), 8.0,
       "configmaps counted")
    eq(rw.logtext().count("skipping %s:" % cm_key(NS, "secret")), 1, "logged once per key")


run(main)
