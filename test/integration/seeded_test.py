"""scripts/seed-cluster writes objects a kube-apiserver would have stored:
every seeded kind, served by ringwatch with the --resources of scripts/demo,
lists through the Python client with its default client-side validation
(each item deserialised into the typed models, which raise ValueError on a
missing required field), with as many items as were seeded.  Events are
core/v1 Events: every field selector the apiserver's event GetAttrs offers
(involvedObject.kind, .namespace, .name, .uid, .apiVersion,
.resourceVersion, .fieldPath, reason, reportingComponent, source, type, and
metadata.name/namespace) selects what the apiserver would, and `kubectl
describe pod` through ringwatch shows a pod's events (and "<none>" for a
pod whose events have expired)."""
import re
import urllib.parse

from harness import *

try:
    from kubernetes import client
except ImportError:
    client = None


# seed-cluster's plural -> (typed list call, --resources spelling)
LISTERS = {
    "namespaces": ("core", "list_namespace", "namespaces"),
    "nodes": ("core", "list_node", "nodes"),
    "pods": ("core", "list_pod_for_all_namespaces", "pods"),
    "configmaps": ("core", "list_config_map_for_all_namespaces", "configmaps"),
    "secrets": ("core", "list_secret_for_all_namespaces", "secrets"),
    "services": ("core", "list_service_for_all_namespaces", "services"),
    "endpoints": ("core", "list_endpoints_for_all_namespaces", "endpoints"),
    "serviceaccounts": ("core", "list_service_account_for_all_namespaces", "serviceaccounts"),
    "events": ("core", "list_event_for_all_namespaces", "events"),
    "deployments": ("apps", "list_deployment_for_all_namespaces", "apps/v1/deployments"),
    "replicasets": ("apps", "list_replica_set_for_all_namespaces", "apps/v1/replicasets"),
}


def seed(etcd, namespaces=3):
    out = subprocess.run([os.path.join(TOP, "scripts", "seed-cluster"), etcd.url,
                          "--nodes", "4", "--namespaces", str(namespaces),
                          "--deployments", "12", "--replicas", "3", "--configmaps", "5"],
                         check=True, capture_output=True, text=True, timeout=60).stdout
    m = re.match(r"seeded (.*) at revision (\d+)$", out.strip())
    check(m, "seed-cluster said %r", out)
    counts = {kind: int(n) for n, kind in (c.split() for c in m.group(1).split(", "))}
    return counts, int(m.group(2))


def demo_resources():
    with open(os.path.join(TOP, "scripts", "demo")) as f:
        m = re.search(r"^resources=(\S+)$", f.read(), re.M)
    check(m, "no resources= line in scripts/demo")
    return m.group(1)


def check_typed_lists(rw, counts):
    conf = client.Configuration()
    conf.host = rw.url
    check(conf.client_side_validation, "the client's default validation is off")
    api = client.ApiClient(conf)
    apis = {"core": client.CoreV1Api(api), "apps": client.AppsV1Api(api)}
    for kind, n in sorted(counts.items()):
        group, call, _ = LISTERS[kind]
        try:
            lst = getattr(apis[group], call)()
        except ValueError as e:  # a required field missing in a seeded object
            raise Failure("%s: the typed models refuse a seeded object: %s" % (kind, e))
        eq(len(lst.items), n, "%s listed through the Python client" % kind)


def event_fields(ev):
    """The apiserver's event GetAttrs (pkg/registry/core/event/strategy.go)."""
    io = ev["involvedObject"]
    source = (ev.get("source") or {}).get("component") or ev.get("reportingComponent") or ""
    f = {"metadata.name": ev["metadata"]["name"],
         "metadata.namespace": ev["metadata"]["namespace"],
         "reason": ev.get("reason", ""), "type": ev.get("type", ""),
         "reportingComponent": ev.get("reportingComponent") or "", "source": source}
    for k in ("kind", "namespace", "name", "uid", "apiVersion", "resourceVersion", "fieldPath"):
        f["involvedObject." + k] = io.get(k, "")
    return f


def check_event_field_selectors(rw):
    events = rw.get_json("/api/v1/events")["items"]
    check(len(events) > 10, "only %d events", len(events))
    fields = [event_fields(e) for e in events]
    names = lambda items: sorted(i["metadata"]["name"] for i in items)
    sample = fields[len(fields) // 2]
    kubelet = next(f for f in fields if f["source"] == "kubelet")
    scheduler = next(f for f in fields if f["reportingComponent"] == "default-scheduler")
    for field in sorted(sample):
        for value in sorted({sample[field], kubelet[field], scheduler[field], ""}):
            for op in ("=", "!="):
                want = sorted(e["metadata"]["name"] for e, f in zip(events, fields)
                              if (f[field] == value) == (op == "="))
                sel = urllib.parse.quote("%s%s%s" % (field, op, value))
                got = rw.get_json("/api/v1/events?fieldSelector=" + sel)
                eq(names(got["items"]), want, "events with fieldSelector %s%s%s" % (field, op, value))
    # what kubectl describe sends, namespaced
    f = kubelet
    sel = ",".join("involvedObject.%s=%s" % (k, f["involvedObject." + k])
                   for k in ("name", "namespace", "kind", "uid"))
    got = rw.get_json("/api/v1/namespaces/%s/events?fieldSelector=%s&limit=500"
                      % (f["involvedObject.namespace"], urllib.parse.quote(sel)))
    eq(sorted(i["reason"] for i in got["items"]), ["Created", "Pulled", "Scheduled", "Started"],
       "the events of one pod")
    return f


def check_describe(rw, pod, quiet_pod):
    k = Kubectl(rw.url)

    def describe(ns, name):
        p = k.run("describe", "pod", "-n", ns, name)
        eq(p.returncode, 0, "kubectl describe pod %s (%s)" % (name, p.stderr))
        return p.stdout.split("\nEvents:", 1)

    head, events = describe(pod["involvedObject.namespace"], pod["involvedObject.name"])
    check(re.search(r"^Name:\s+%s$" % re.escape(pod["involvedObject.name"]), head, re.M),
          "describe: %r", head[:300])
    rows = [l.split(None, 4) for l in events.strip().splitlines()[2:]]
    eq([(r[0], r[1], r[3]) for r in rows],
       [("Normal", "Scheduled", "default-scheduler"), ("Normal", "Pulled", "kubelet"),
        ("Normal", "Created", "kubelet"), ("Normal", "Started", "kubelet")],
       "kubectl describe pod: Events (Type, Reason, From)")
    _, events = describe(*quiet_pod)
    eq(events.strip(), "<none>", "kubectl describe of a pod whose events expired")


def main():
    if client is None:
        print("python3-kubernetes not installed: skipping")
        sys.exit(77)
    # More namespaces than seed-cluster has team names: exactly as many.
    counts, _ = seed(Etcd(), namespaces=12)
    eq(counts["namespaces"], 12, "namespaces seeded with --namespaces 12")
    etcd = Etcd()
    counts, rev = seed(etcd)
    resources = demo_resources()
    for kind in counts:
        check(kind in LISTERS, "seed-cluster writes %s: this test has no lister for it", kind)
        check(LISTERS[kind][2] in resources.split(","),
              "scripts/demo's --resources %s lacks %s", resources, LISTERS[kind][2])
    rw = Ringwatch(etcd, resources=resources)
    for kind in counts:
        rt = LISTERS[kind][2]
        path = "/apis/%s" % rt if "/" in rt else "/api/v1/%s" % rt
        rw.wait_rv(rev, path)
    check_typed_lists(rw, counts)
    pod = check_event_field_selectors(rw)
    if KUBECTL is None:
        print("kubectl not installed: describe not checked")
        return
    with_events = {e["involvedObject"]["uid"] for e in rw.get_json("/api/v1/events")["items"]}
    quiet = next(p for p in rw.get_json("/api/v1/pods")["items"]
                 if p["metadata"]["uid"] not in with_events)
    check_describe(rw, pod, (quiet["metadata"]["namespace"], quiet["metadata"]["name"]))


run(main)
