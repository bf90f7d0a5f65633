"""The official Python client (Debian's python3-kubernetes, 22.x) through
ringwatch against the real store (etcd, or Redis: harness.Store):
list_namespaced_config_map and list_config_map_for_all_namespaces with
equality and set-based label selectors, list_pod_for_all_namespaces with a
field selector, watch.Watch().stream() with timeout_seconds (events in the
store's order with its revisions as resourceVersion, the stream ends by
itself), BOOKMARK events only when allow_watch_bookmarks is set, and a
watch from a resourceVersion older than the ring: ApiException 410, after
one retry without timeout_seconds and at once with it
(kubernetes/watch/watch.py disables its retries when a timeout is given)."""
import threading

from harness import *

try:
    import kubernetes
    from kubernetes import client, watch
    from kubernetes.client.rest import ApiException
except ImportError:
    kubernetes = None


def pod(ns, name, node, labels=None):
    meta = {"name": name, "namespace": ns, "creationTimestamp": "2026-11-29T00:00:00Z"}
    if labels:
        meta["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta,
            "spec": {"nodeName": node,
                     "containers": [{"name": "c", "image": "registry.invalid/app:1"}]},
            "status": {"phase": "Running"}}


def api_for(rw):
    conf = client.Configuration()
    conf.host = rw.url
    return client.CoreV1Api(client.ApiClient(conf))


def names_rvs(lst):
    """(namespace, name) -> resourceVersion (int) of a V1*List."""
    return {(i.metadata.namespace, i.metadata.name): int(i.metadata.resource_version)
            for i in lst.items}


def check_selectors(store, rw, api):
    """Writes labelled ConfigMaps and Pods; every selector answers what a
    filter over the written objects answers, with their etcd revisions."""
    written = {}  # (ns, name) -> (labels, revision)
    for ns, name, labels in (("ns", "a", {"app": "x"}), ("ns", "b", {"app": "y"}),
                             ("ns", "c", {"app": "z", "tier": "web"}), ("ns", "d", None),
                             ("other", "e", {"app": "x"}), ("other", "f", None)):
        written[(ns, name)] = (labels or {}, store.put(cm_key(ns, name),
                                                     configmap(ns, name, {"k": name}, labels)))
    pods = {}
    for i, node in enumerate(("n1", "n2", "n1", "n3", "n1")):
        ns = "ns" if i % 2 else "other"
        pods[(ns, "p%d" % i)] = (node, store.put("/registry/pods/%s/p%d" % (ns, i),
                                                pod(ns, "p%d" % i, node)))
    last = store.revision()
    rw.wait_rv(last, "/api/v1/configmaps")
    rw.wait_rv(last, "/api/v1/pods")

    def want(pred, ns=None):
        return {k: rev for k, (labels, rev) in written.items()
                if (ns is None or k[0] == ns) and pred(labels)}

    cases = (("app=x", lambda l: l.get("app") == "x"),
             ("app in (x,y)", lambda l: l.get("app") in ("x", "y")),
             ("!app", lambda l: "app" not in l),
             ("app!=x", lambda l: l.get("app") != "x"),
             ("app,tier=web", lambda l: "app" in l and l.get("tier") == "web"),
             ("app notin (x)", lambda l: l.get("app") != "x"))
    for sel, pred in cases:
        lst = api.list_namespaced_config_map("ns", label_selector=sel)
        eq(names_rvs(lst), want(pred, "ns"), "list_namespaced_config_map(%r)" % sel)
        check(int(lst.metadata.resource_version) >= last, "list RV %s below %d",
              lst.metadata.resource_version, last)
        lst = api.list_config_map_for_all_namespaces(label_selector=sel)
        eq(names_rvs(lst), want(pred), "list_config_map_for_all_namespaces(%r)" % sel)
    eq(names_rvs(api.list_namespaced_config_map("ns")), want(lambda l: True, "ns"),
       "list_namespaced_config_map without a selector")

    lst = api.list_pod_for_all_namespaces(field_selector="spec.nodeName=n1")
    eq(names_rvs(lst), {k: rev for k, (node, rev) in pods.items() if node == "n1"},
       "list_pod_for_all_namespaces(spec.nodeName=n1)")
    check(all(p.spec.node_name == "n1" for p in lst.items), "pods decoded with nodeName n1")
    lst = api.list_namespaced_pod("ns", field_selector="spec.nodeName!=n1")
    eq(names_rvs(lst), {k: rev for k, (node, rev) in pods.items()
                        if node != "n1" and k[0] == "ns"},
       "list_namespaced_pod(ns, spec.nodeName!=n1)")
    try:
        api.list_pod_for_all_namespaces(field_selector="spec.nope=1")
        raise Failure("an unsupported field selector was accepted")
    except ApiException as e:
        eq(e.status, 400, "status of an unsupported field selector")


def timed_watch(store, api, bookmarks, timeout=4):
    """A Watch().stream of ns's ConfigMaps from the LIST RV with
    timeout_seconds; a thread writes a create, an update and a delete
    during the stream.  Returns (events, writes, seconds the stream ran)."""
    list_rv = api.list_namespaced_config_map("ns").metadata.resource_version
    writes = []

    def writer():
        time.sleep(0.5)
        writes.append(("ADDED", "w", store.put(cm_key("ns", "w"),
                                               configmap("ns", "w", {"v": "1"}))))
        writes.append(("MODIFIED", "w",
                       store.put(cm_key("ns", "w"), configmap("ns", "w", {"v": "2"}))))
        store.put(cm_key("elsewhere", "w"), configmap("elsewhere", "w"))
        writes.append(("MODIFIED", "a", store.put(cm_key("ns", "a"),
                                                 configmap("ns", "a", {"v": "3"}, {"app": "x"}))))
        writes.append(("DELETED", "w", store.delete(cm_key("ns", "w"))))

    kwargs = {"timeout_seconds": timeout, "resource_version": list_rv}
    if bookmarks:
        kwargs["allow_watch_bookmarks"] = True
    t = threading.Thread(target=writer)
    start = time.time()
    t.start()
    events = []
    try:
        for ev in watch.Watch().stream(api.list_namespaced_config_map, "ns", **kwargs):
            events.append(ev)
            check(len(events) < 100 and time.time() - start < timeout + 10,
                  "the stream did not end: %r", events[-5:])
    finally:
        t.join(10)
    return events, writes, time.time() - start


def check_watch(store, api):
    for bookmarks in (True, False):
        what = "watch %s bookmarks" % ("with" if bookmarks else "without")
        events, writes, took = timed_watch(store, api, bookmarks)
        check(3.5 <= took <= 7, "%s: ended after %.1fs, want ~4s (timeout_seconds)", what, took)
        got = [(e["type"], e["object"].metadata.name, int(e["object"].metadata.resource_version))
               for e in events if e["type"] != "BOOKMARK"]
        eq(got, writes, "%s: events (type, name, resourceVersion)" % what)
        check(all(isinstance(e["object"], client.V1ConfigMap)
                  for e in events if e["type"] != "BOOKMARK"), "%s: objects decoded", what)
        deleted = [e["object"].data for e in events if e["type"] == "DELETED"]
        eq(deleted, [{"v": "2"}], "%s: DELETED carries the last state" % what)
        marks = [e for e in events if e["type"] == "BOOKMARK"]
        if not bookmarks:
            eq(marks, [], "%s: BOOKMARK events" % what)
            continue
        check(len(marks) >= 2, "%s: %d BOOKMARKs in 4 s at a 1 s period", what, len(marks))
        for m in marks:
            eq((m["raw_object"]["kind"], m["raw_object"]["apiVersion"]), ("ConfigMap", "v1"),
               "BOOKMARK object kind")
        rvs = [int(m["raw_object"]["metadata"]["resourceVersion"]) for m in marks]
        eq(rvs, sorted(rvs), "BOOKMARK resourceVersions non-decreasing")
        check(rvs[-1] >= writes[-1][2], "last BOOKMARK RV %d below the last write %d",
              rvs[-1], writes[-1][2])


def check_too_old(store):
    """A ringwatch with a 4-event ring; 20 writes later a watch from the
    first revision is 410 Gone, after one retry (2 requests) without
    timeout_seconds and after 1 request with it."""
    rw = Ringwatch(store, "--ring-capacity", "4", resources="configmaps")
    api = api_for(rw)
    old = api.list_namespaced_config_map("ns").metadata.resource_version
    last = 0
    for i in range(20):
        last = store.put(cm_key("ns", "old%d" % i), configmap("ns", "old%d" % i))
    rw.wait_rv(last)
    for kwargs, want_calls in (({}, 2), ({"timeout_seconds": 5}, 1)):
        calls = []

        def counted(*args, **kw):
            calls.append(kw.get("resource_version"))
            return api.list_namespaced_config_map(*args, **kw)

        start = time.time()
        try:
            for ev in watch.Watch(return_type="V1ConfigMap").stream(
                    counted, "ns", resource_version=old, **kwargs):
                raise Failure("watch from a too-old RV %s yielded %s" % (old, ev["type"]))
            raise Failure("watch from a too-old RV %s ended without an error" % old)
        except ApiException as e:
            eq(e.status, 410, "status of a watch from a too-old RV (%s)" % kwargs)
            check("Expired" in str(e.reason), "410 reason: %r", e.reason)
        check(time.time() - start < 5, "410 took %.1fs", time.time() - start)
        eq(calls, [old] * want_calls, "watch requests (their resource_version) with %s" % kwargs)
    rw.stop()


def main():
    if kubernetes is None:
        print("python3-kubernetes not installed (scripts/install-deps installs it)")
        sys.exit(1)
    print("kubernetes client %s" % kubernetes.__version__)
    store = Store()
    rw = Ringwatch(store, "--bookmark-interval", "1")
    api = api_for(rw)
    check_selectors(store, rw, api)
    check_watch(store, api)
    check_too_old(store)


run(main)
