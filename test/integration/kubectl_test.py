"""kubectl 1.32 through ringwatch against the real store (etcd, or Redis:
harness.Store): get pods -A, -n NS, -o json, a single object, -l and
--field-selector, -w, get --raw, and the other served types: every type's
Table prints kube-apiserver 1.32's headers and cells (get
events,rs,sts,ds,jobs,cronjobs,pvc,pv,sa,ep,leases,hpa,rc in one command,
get all, -o wide), and get -w prints a new job's every column."""
import re
from datetime import datetime, timedelta, timezone

from harness import *

RESOURCES = ",".join([
    "pods", "configmaps", "secrets", "services", "endpoints", "serviceaccounts", "events",
    "nodes", "namespaces", "persistentvolumes", "persistentvolumeclaims",
    "replicationcontrollers", "apps/v1/deployments", "apps/v1/replicasets",
    "apps/v1/statefulsets", "apps/v1/daemonsets", "autoscaling/v2/horizontalpodautoscalers",
    "batch/v1/jobs", "batch/v1/cronjobs", "coordination.k8s.io/v1/leases"])

# kube-apiserver 1.32's columns of priority 0, as kubectl prints them.
HEADERS = {
    "event": "LAST SEEN TYPE REASON OBJECT MESSAGE",
    "replicaset.apps": "NAME DESIRED CURRENT READY AGE",
    "statefulset.apps": "NAME READY AGE",
    "daemonset.apps": "NAME DESIRED CURRENT READY UP-TO-DATE AVAILABLE NODE SELECTOR AGE",
    "job.batch": "NAME STATUS COMPLETIONS DURATION AGE",
    "cronjob.batch": "NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE",
    "persistentvolumeclaim": "NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS "
                             "VOLUMEATTRIBUTESCLASS AGE",
    "persistentvolume": "NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS "
                        "VOLUMEATTRIBUTESCLASS REASON AGE",
    "serviceaccount": "NAME SECRETS AGE",
    "endpoints": "NAME ENDPOINTS AGE",
    "lease.coordination.k8s.io": "NAME HOLDER AGE",
    "horizontalpodautoscaler.autoscaling": "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE",
    "replicationcontroller": "NAME DESIRED CURRENT READY AGE",
    "pod": "NAME READY STATUS RESTARTS AGE",
    "service": "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE",
    "deployment.apps": "NAME READY UP-TO-DATE AVAILABLE AGE",
}


def store_objects(store, prefix):
    """(namespace, name) -> mod revision of every object under prefix."""
    out = {}
    for rev, value in store.range(prefix).values():
        obj = json.loads(value)
        out[(obj["metadata"].get("namespace", ""), obj["metadata"]["name"])] = rev
    return out


def main():
    if KUBECTL is None:
        print("kubectl not installed: skipping")
        sys.exit(77)
    store = Store()
    rev = seed_cluster(store, nodes=5, namespaces=3, deployments=6, replicas=3, configmaps=4)
    ns0 = sorted(store_objects(store, "/registry/pods/"))[0][0]
    rev = put_workloads(store, ns0)
    rw = Ringwatch(store, resources=RESOURCES)
    rw.wait_rv(rev, "/api/v1/pods")
    rw.wait_rv(rev, "/apis/coordination.k8s.io/v1/leases")
    k = Kubectl(rw.url)

    def kubectl(*args, timeout=30):
        p = k.run(*args, timeout=timeout)
        check(p.returncode == 0, "kubectl %s: exit %d: %s", " ".join(args), p.returncode, p.stderr)
        return p.stdout
    kubectl.watch = k.watch

    pods = store_objects(store, "/registry/pods/")
    check(len(pods) == 18, "seeded %d pods", len(pods))

    # get pods -A: a header and one line per pod, from the server-side Table.
    lines = kubectl("get", "pods", "-A").strip().splitlines()
    eq(lines[0].split(), ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"],
       "server-side Table header")
    wide = kubectl("get", "pods", "-A", "-o", "wide").strip().splitlines()
    check("NODE" in wide[0].split(), "-o wide header: %r", wide[0])
    eq(sorted(tuple(l.split()[:2]) for l in lines[1:]), sorted(pods), "get pods -A")

    # -o json: every item with its mod revision in the store.
    lst = json.loads(kubectl("get", "pods", "-A", "-o", "json"))
    got = {(i["metadata"]["namespace"], i["metadata"]["name"]): rv_of(i) for i in lst["items"]}
    eq(got, pods, "get pods -A -o json (name -> resourceVersion)")

    # -n NS, a single object, selectors.
    ns, name = sorted(pods)[0]
    lines = kubectl("get", "pods", "-n", ns).strip().splitlines()[1:]
    eq(sorted(l.split()[0] for l in lines), sorted(n for s, n in pods if s == ns), "get pods -n")
    obj = json.loads(kubectl("get", "pod", name, "-n", ns, "-o", "json"))
    eq((obj["metadata"]["name"], rv_of(obj)), (name, pods[(ns, name)]), "get pod NAME")
    yaml = kubectl("get", "pod", name, "-n", ns, "-o", "yaml")
    check('resourceVersion: "%d"' % pods[(ns, name)] in yaml, "get pod NAME -o yaml")
    app = obj["metadata"]["labels"]["app"]
    lst = json.loads(kubectl("get", "pods", "-A", "-l", "app=" + app, "-o", "json"))
    eq(len(lst["items"]), 3, "pods with -l app=" + app)
    node = obj["spec"]["nodeName"]
    lst = json.loads(kubectl("get", "pods", "-A", "--field-selector", "spec.nodeName=" + node,
                             "-o", "json"))
    check(lst["items"] and all(i["spec"]["nodeName"] == node for i in lst["items"]),
          "--field-selector spec.nodeName=%s", node)

    # get --raw returns ringwatch's bytes.
    raw = json.loads(kubectl("get", "--raw", "/api/v1/namespaces/%s/pods/%s" % (ns, name)))
    eq(raw, obj, "get --raw of one pod")
    ver = json.loads(kubectl("get", "--raw", "/version"))
    eq(ver["minor"], "32", "/version minor")

    # Other served types.
    eq(len(kubectl("get", "deployments", "-A").strip().splitlines()) - 1, 6, "deployments")
    eq(len(kubectl("get", "nodes").strip().splitlines()) - 1, 5, "nodes")

    # get -w: the list, then a new pod arrives on the stream; kubectl exits
    # 0 when the stream ends (timeoutSeconds via --request-timeout is not
    # used: we stop it ourselves).
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "watched-pod", "namespace": ns,
                        "creationTimestamp": "2026-11-29T00:00:00Z"},
           "spec": {"nodeName": "node-000"}, "status": {"phase": "Pending"}}
    lines = watch_while_writing(kubectl, ["get", "pods", "-n", ns, "-w", "--output-watch-events"],
                                1 + len([1 for s, _ in pods if s == ns]),
                                store, "/registry/pods/%s/watched-pod" % ns, pod)
    added = [l for l in lines if "watched-pod" in l]
    check(added and added[0].split()[0] == "ADDED", "kubectl -w output: %r", lines)

    check_every_type(store, kubectl, ns0)


def watch_while_writing(kubectl, args, initial, store, key, obj):
    """Runs kubectl ARGS (a watch), waits for its first initial lines,
    writes obj at key and waits for a line naming it; returns the lines
    printed.  kubectl is stopped by us (it would exit 0 when the stream
    ends)."""
    name = obj["metadata"]["name"]
    return kubectl.watch(args, initial, lambda lines: store.put(key, obj),
                         lambda lines: any(name in l for l in lines), 15)


def put_workloads(store, ns):
    """Writes one object of each type the seeded cluster lacks into
    namespace ns, created 3 days ago; returns the last revision."""
    created = ts(datetime.now(timezone.utc) - timedelta(days=3))
    meta = lambda name, **kw: dict({"name": name, "namespace": ns, "uid": name + "-uid",
                                    "creationTimestamp": created}, **kw)
    template = lambda app, image: {"metadata": {"labels": {"app": app}},
                                   "spec": {"containers": [{"name": app, "image": image}]}}
    objects = {
        "/registry/statefulsets/%s/web" % ns: {
            "apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": meta("web"),
            "spec": {"replicas": 2, "serviceName": "web",
                     "selector": {"matchLabels": {"app": "web"}},
                     "template": template("web", "nginx:1.27")},
            "status": {"replicas": 2, "readyReplicas": 1}},
        "/registry/daemonsets/%s/agent" % ns: {
            "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": meta("agent"),
            "spec": {"selector": {"matchLabels": {"app": "agent"}},
                     "template": dict(template("agent", "agent:2"), spec={
                         "nodeSelector": {"kubernetes.io/os": "linux"},
                         "containers": [{"name": "agent", "image": "agent:2"}]})},
            "status": {"desiredNumberScheduled": 3, "currentNumberScheduled": 3,
                       "numberReady": 2, "updatedNumberScheduled": 3, "numberAvailable": 2,
                       "numberMisscheduled": 0}},
        "/registry/jobs/%s/migrate" % ns: {
            "apiVersion": "batch/v1", "kind": "Job", "metadata": meta("migrate"),
            "spec": {"completions": 1, "parallelism": 1,
                     "selector": {"matchLabels": {"batch.kubernetes.io/controller-uid": "m"}},
                     "template": template("migrate", "migrate:1")},
            "status": {"succeeded": 1, "startTime": "2026-11-01T10:00:00Z",
                       "completionTime": "2026-11-01T10:00:30Z",
                       "conditions": [{"type": "Complete", "status": "True"}]}},
        "/registry/jobs/%s/train" % ns: {
            "apiVersion": "batch/v1", "kind": "Job", "metadata": meta("train"),
            "spec": {"parallelism": 2, "template": template("train", "train:1")},
            "status": {"active": 2}},
        "/registry/cronjobs/%s/nightly" % ns: {
            "apiVersion": "batch/v1", "kind": "CronJob", "metadata": meta("nightly"),
            "spec": {"schedule": "0 3 * * *", "timeZone": "Europe/Paris", "suspend": False,
                     "jobTemplate": {"spec": {"template": template("nightly", "backup:1")}}},
            "status": {"active": [{"kind": "Job", "name": "nightly-1", "namespace": ns}],
                       "lastScheduleTime": created}},
        "/registry/persistentvolumeclaims/%s/data" % ns: {
            "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": meta("data"),
            "spec": {"volumeName": "pv-data", "storageClassName": "standard",
                     "accessModes": ["ReadWriteOnce"],
                     "resources": {"requests": {"storage": "10Gi"}}},
            "status": {"phase": "Bound", "accessModes": ["ReadWriteOnce"],
                       "capacity": {"storage": "10Gi"}}},
        "/registry/persistentvolumes/pv-data": {
            "apiVersion": "v1", "kind": "PersistentVolume",
            "metadata": {"name": "pv-data", "uid": "pv-uid", "creationTimestamp": created},
            "spec": {"capacity": {"storage": "10Gi"}, "accessModes": ["ReadWriteOnce"],
                     "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "standard",
                     "claimRef": {"kind": "PersistentVolumeClaim", "namespace": ns,
                                  "name": "data"},
                     "hostPath": {"path": "/data"}},
            "status": {"phase": "Bound"}},
        "/registry/leases/%s/leader" % ns: {
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": meta("leader"),
            "spec": {"holderIdentity": "node-a", "leaseDurationSeconds": 15}},
        "/registry/horizontalpodautoscalers/%s/web" % ns: {
            "apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
            "metadata": meta("web"),
            "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                        "name": "web"},
                     "minReplicas": 2, "maxReplicas": 10,
                     "metrics": [{"type": "Resource", "resource": {
                         "name": "cpu", "target": {"type": "Utilization",
                                                   "averageUtilization": 80}}}]},
            "status": {"currentReplicas": 3, "desiredReplicas": 3, "currentMetrics": [
                {"type": "Resource", "resource": {"name": "cpu", "current": {
                    "averageUtilization": 40, "averageValue": "120m"}}}]}},
        "/registry/controllers/%s/legacy" % ns: {
            "apiVersion": "v1", "kind": "ReplicationController", "metadata": meta("legacy"),
            "spec": {"replicas": 2, "selector": {"app": "legacy"},
                     "template": template("legacy", "legacy:1")},
            "status": {"replicas": 2, "readyReplicas": 1}},
        "/registry/services/endpoints/%s/many" % ns: {
            "apiVersion": "v1", "kind": "Endpoints", "metadata": meta("many"),
            "subsets": [{"addresses": [{"ip": "10.1.0.%d" % i} for i in range(1, 6)],
                         "ports": [{"port": 8080, "protocol": "TCP"}]}]},
    }
    for key, obj in objects.items():
        rev = store.put(key, obj)
    return rev


def ts(t):
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def tables(out):
    """kubectl's output of several types: {kind: (header, {name: cells})},
    cells split where kubectl puts two spaces or more (an empty cell
    leaves no trace); events, which have no NAME column, keyed by row."""
    found = {}
    for block in out.strip().split("\n\n"):
        lines = block.splitlines()
        header = " ".join(lines[0].split())
        rows = [re.split(r"\s{2,}", l.strip()) for l in lines[1:]]
        if header.startswith("LAST SEEN"):
            found["event"] = (header, {str(i): r for i, r in enumerate(rows)})
            continue
        kind = rows[0][0].split("/")[0]
        found[kind] = (header, {r[0].split("/", 1)[1]: r[1:] for r in rows})
    return found


def check_every_type(store, kubectl, ns):
    """Every type's Table as kube-apiserver 1.32 prints it."""
    out = kubectl("get", "events,rs,sts,ds,jobs,cronjobs,pvc,pv,sa,ep,leases,hpa,rc", "-n", ns)
    got = tables(out)
    for kind, header in HEADERS.items():
        if kind in ("pod", "service", "deployment.apps"):
            continue
        check(kind in got, "get events,rs,...: no %s table in:\n%s", kind, out)
        eq(got[kind][0], header, "%s header" % kind)
    rows = lambda kind: got[kind][1]
    cells = {
        ("statefulset.apps", "web"): ["1/2", "3d"],
        ("daemonset.apps", "agent"): ["3", "3", "2", "3", "2", "kubernetes.io/os=linux", "3d"],
        ("job.batch", "migrate"): ["Complete", "1/1", "30s", "3d"],
        ("job.batch", "train"): ["Running", "0/1 of 2", "3d"],
        ("cronjob.batch", "nightly"): ["0 3 * * *", "Europe/Paris", "False", "1", "3d", "3d"],
        ("persistentvolumeclaim", "data"): ["Bound", "pv-data", "10Gi", "RWO", "standard",
                                            "<unset>", "3d"],
        ("persistentvolume", "pv-data"): ["10Gi", "RWO", "Retain", "Bound", ns + "/data",
                                          "standard", "<unset>", "3d"],
        ("lease.coordination.k8s.io", "leader"): ["node-a", "3d"],
        ("horizontalpodautoscaler.autoscaling", "web"): ["Deployment/web", "cpu: 40%/80%", "2",
                                                         "10", "3", "3d"],
        ("replicationcontroller", "legacy"): ["2", "2", "1", "3d"],
        ("endpoints", "many"): ["10.1.0.1:8080,10.1.0.2:8080,10.1.0.3:8080 + 2 more...", "3d"],
    }
    for (kind, name), want in cells.items():
        eq(rows(kind).get(name), want, "%s/%s cells" % (kind, name))
    eq(rows("serviceaccount")["default"][0], "0", "serviceaccount SECRETS")
    for name, r in rows("replicaset.apps").items():
        eq(r[:3], ["3", "3", "3"], "replicaset %s DESIRED CURRENT READY" % name)
    # The seeded events: the pods' kubelet and scheduler events.
    objects = {r[3] for r in rows("event").values()}
    reasons = {r[2] for r in rows("event").values()}
    check(any(o.startswith("pod/") for o in objects), "event OBJECT column: %r", objects)
    check({"Scheduled", "Pulled", "Started"} <= reasons, "event REASON column: %r", reasons)

    # get all: the "all" category's types, each with its header.
    got = tables(kubectl("get", "all", "-n", ns))
    for kind in ("pod", "service", "deployment.apps", "replicaset.apps", "statefulset.apps",
                 "daemonset.apps", "job.batch", "cronjob.batch",
                 "horizontalpodautoscaler.autoscaling", "replicationcontroller"):
        check(kind in got, "get all: no %s table: %r", kind, sorted(got))
        eq(got[kind][0], HEADERS[kind], "get all: %s header" % kind)

    # -o wide adds the priority 1 columns.
    wide = kubectl("get", "sts,events", "-n", ns, "-o", "wide")
    got = tables(wide)
    eq(got["statefulset.apps"][0], "NAME READY AGE CONTAINERS IMAGES", "sts -o wide header")
    eq(got["statefulset.apps"][1]["web"], ["1/2", "3d", "web", "nginx:1.27"], "sts -o wide")
    eq(got["event"][0], "LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN "
       "COUNT NAME", "events -o wide header")

    # get -w: a job created while watching prints its every column.
    job = {"apiVersion": "batch/v1", "kind": "Job",
           "metadata": {"name": "watched-job", "namespace": ns,
                        "creationTimestamp": ts(datetime.now(timezone.utc) - timedelta(days=3))},
           "spec": {"completions": 3, "template": {"spec": {"containers": []}}},
           "status": {"succeeded": 2}}
    lines = watch_while_writing(kubectl, ["get", "jobs", "-n", ns, "-w"], 3,
                                store, "/registry/jobs/%s/watched-job" % ns, job)
    eq(" ".join(lines[0].split()), HEADERS["job.batch"], "get jobs -w header")
    eq(sum(1 for l in lines if l.startswith("NAME")), 1, "get -w prints one header")
    seen = [re.split(r"\s{2,}", l.strip()) for l in lines if "watched-job" in l]
    check(seen, "get jobs -w: the new job is not printed: %r", lines)
    eq(seen[0], ["watched-job", "Running", "2/3", "3d"], "get jobs -w row")


run(main)
