"""kubectl 1.32 through ringwatch against real etcd: get pods -A, -n NS,
-o json, a single object, -l and --field-selector, -w, get --raw, and the
other served types (deployments, nodes)."""
import shutil
import threading

from harness import *

KUBECTL = shutil.which("kubectl")


def etcd_objects(etcd, prefix):
    r = etcd.call("/v3/kv/range", {"key": b64(prefix), "range_end": b64(prefix[:-1] + "0")})
    out = {}
    for kv in r.get("kvs", []):
        obj = json.loads(base64.b64decode(kv["value"]))
        out[(obj["metadata"].get("namespace", ""), obj["metadata"]["name"])] = int(kv["mod_revision"])
    return out


def main():
    if KUBECTL is None:
        print("kubectl not installed: skipping")
        sys.exit(77)
    etcd = Etcd()
    rev = seed_cluster(etcd, nodes=5, namespaces=3, deployments=6, replicas=3, configmaps=4)
    rw = Ringwatch(etcd, resources="pods,configmaps,nodes,namespaces,apps/v1/deployments")
    rw.wait_rv(rev, "/api/v1/pods")
    cache = tempfile.mkdtemp(prefix="rw-kubectl-")
    defer(lambda: shutil.rmtree(cache, ignore_errors=True))

    def kubectl(*args, timeout=30):
        p = subprocess.run([KUBECTL, "--server", rw.url, "--cache-dir", cache] + list(args),
                           capture_output=True, text=True, timeout=timeout)
        check(p.returncode == 0, "kubectl %s: exit %d: %s", " ".join(args), p.returncode, p.stderr)
        return p.stdout

    pods = etcd_objects(etcd, "/registry/pods/")
    check(len(pods) == 18, "seeded %d pods", len(pods))

    # get pods -A: a header and one line per pod, from the server-side Table.
    lines = kubectl("get", "pods", "-A").strip().splitlines()
    eq(lines[0].split(), ["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"],
       "server-side Table header")
    wide = kubectl("get", "pods", "-A", "-o", "wide").strip().splitlines()
    check("NODE" in wide[0].split(), "-o wide header: %r", wide[0])
    eq(sorted(tuple(l.split()[:2]) for l in lines[1:]), sorted(pods), "get pods -A")

    # -o json: every item with its etcd ModRevision.
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
    proc = subprocess.Popen([KUBECTL, "--server", rw.url, "--cache-dir", cache, "get", "pods",
                             "-n", ns, "-w", "--output-watch-events"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    defer(lambda: proc.poll() is None and proc.kill())
    lines = []
    reader = threading.Thread(target=lambda: [lines.append(l) for l in proc.stdout])
    reader.start()
    deadline = time.time() + 15
    while len(lines) < 1 + len([1 for s, _ in pods if s == ns]) and time.time() < deadline:
        time.sleep(0.1)
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": "watched-pod", "namespace": ns,
                        "creationTimestamp": "2026-11-29T00:00:00Z"},
           "spec": {"nodeName": "node-000"}, "status": {"phase": "Pending"}}
    etcd.put("/registry/pods/%s/watched-pod" % ns, pod)
    while not any("watched-pod" in l for l in lines) and time.time() < deadline:
        time.sleep(0.1)
    proc.terminate()
    proc.wait(5)
    reader.join(5)
    added = [l for l in lines if "watched-pod" in l]
    check(added and added[0].split()[0] == "ADDED", "kubectl -w output: %r", lines)


run(main)
