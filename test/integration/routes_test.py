"""Every path answers: discovery documents kubectl needs, health, GET of
one object, and for everything else a Kubernetes Status with the right code
and reason (404, 405, 400), never an HTML page or a crash.  The same over
HTTP/2 (h2c prior knowledge, with curl)."""
import shutil

from harness import *


def status_of(rw, path, code, reason, method="GET"):
    conn = http.client.HTTPConnection("127.0.0.1", rw.port, timeout=10)
    conn.request(method, path)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    eq(resp.status, code, "%s %s status (%r)" % (method, path, body[:200]))
    eq(resp.getheader("content-type"), "application/json", "%s content type" % path)
    st = json.loads(body)
    eq((st["kind"], st["apiVersion"], st["status"], st["code"], st["reason"]),
       ("Status", "v1", "Failure", code, reason), "Status of %s %s" % (method, path))
    check(st["message"], "empty message for %s", path)
    return st


def main():
    etcd = Etcd()
    r = etcd.put(cm_key("ns", "a"), configmap("ns", "a", {"k": "v"}))
    etcd.put("/registry/deployments/ns/web",
             {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "web", "namespace": "ns"}, "spec": {"replicas": 1}})
    rw = Ringwatch(etcd, resources="pods,configmaps,nodes,apps/v1/deployments")
    rw.wait_rv(r)

    # Discovery.
    ver = rw.get_json("/version")
    eq((ver["major"], ver["minor"]), ("1", "32"), "/version")
    eq(rw.get_json("/api")["versions"], ["v1"], "/api versions")
    groups = rw.get_json("/apis")["groups"]
    eq([g["name"] for g in groups],
       ["apps", "authentication.k8s.io", "authorization.k8s.io"], "/apis groups")
    v1 = rw.get_json("/api/v1")
    eq(sorted(x["name"] for x in v1["resources"]), ["configmaps", "nodes", "pods"], "/api/v1")
    pods = [x for x in v1["resources"] if x["name"] == "pods"][0]
    eq((pods["kind"], pods["namespaced"], sorted(pods["verbs"])),
       ("Pod", True, ["get", "list", "watch"]), "pods resource")
    eq(rw.get_json("/apis/apps"),
       {"kind": "APIGroup", "apiVersion": "v1", "name": "apps",
        "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
        "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}, "/apis/apps")
    apps = rw.get_json("/apis/apps/v1")
    eq([(x["name"], x["kind"]) for x in apps["resources"]], [("deployments", "Deployment")],
       "/apis/apps/v1")

    # Objects.
    obj = rw.get_json("/api/v1/namespaces/ns/configmaps/a")
    eq((obj["data"], rv_of(obj)), ({"k": "v"}, r), "GET configmap")
    # ?watch on one object's path is a GET, as the apiserver's (and as it
    # is authorized: a watch of one object is under /watch/)
    obj = rw.get_json("/api/v1/namespaces/ns/configmaps/a?watch=1&timeoutSeconds=1")
    eq((obj["kind"], obj["data"]), ("ConfigMap", {"k": "v"}), "GET configmap?watch=1")
    dep = rw.get_json("/apis/apps/v1/namespaces/ns/deployments/web")
    eq(dep["spec"]["replicas"], 1, "GET deployment")
    eq(len(rw.get_json("/apis/apps/v1/deployments")["items"]), 1, "LIST deployments")
    st = status_of(rw, "/api/v1/namespaces/ns/configmaps/nope", 404, "NotFound")
    eq(st["message"], 'configmaps "nope" not found', "NotFound message")
    st = status_of(rw, "/apis/apps/v1/namespaces/ns/deployments/nope", 404, "NotFound")
    eq(st["message"], 'deployments.apps "nope" not found', "NotFound message")

    # Health.
    status, _, body = rw.get("/healthz")
    eq((status, body), (200, b"ok"), "/healthz")
    status, _, body = rw.get("/readyz?verbose")
    eq(status, 200, "/readyz")
    check(b"[+]cache/configmaps ok" in body, "/readyz?verbose: %r", body)
    check(b"[+]upstream ok" in body, "/readyz?verbose: %r", body)

    # Errors are Statuses.
    for path in ("/", "/nope", "/api/v2/pods", "/api/v1/secrets", "/apis/apps/v2/deployments",
                 "/api/v1/namespaces/ns/nodes", "/api/v1/pods/x", "/api/v1/namespaces/ns/pods/x/log",
                 "/api/v1/namespaces/ns/configmaps/a/b/c/d/e/f/g/h/i", "/apis/batch",
                 "/apis/nope"):
        status_of(rw, path, 404, "NotFound")
    # no write on a collection but a create (write_test.py), none on
    # discovery
    for method in ("PUT", "PATCH", "DELETE"):
        status_of(rw, "/api/v1/namespaces/ns/configmaps", 405, "MethodNotAllowed", method)
    status_of(rw, "/api/v1/configmaps", 405, "MethodNotAllowed", "POST")
    status_of(rw, "/api/v1", 405, "MethodNotAllowed", "POST")
    status_of(rw, "/api/v1/namespaces/ns/configmaps", 400, "BadRequest", "POST")
    # watch=f: Go's ParseBool false, the apiserver's true (what authorization reads)
    for q in ("watch=maybe", "watch=f", "resourceVersion=abc", "timeoutSeconds=-1", "limit=x",
              "labelSelector=a%3D%3D%3Db", "fieldSelector=nofield", "labelSelector=a+in+("):
        status_of(rw, "/api/v1/configmaps?" + q, 400, "BadRequest")
    # Options that do not go together, or an unknown match: 422 Invalid.
    status_of(rw, "/api/v1/configmaps?resourceVersionMatch=Newest&resourceVersion=1", 422, "Invalid")

    # HEAD: headers only.
    conn = http.client.HTTPConnection("127.0.0.1", rw.port, timeout=10)
    conn.request("HEAD", "/api/v1/configmaps")
    resp = conn.getresponse()
    eq((resp.status, resp.read()), (200, b""), "HEAD")
    conn.close()

    # HTTP/2 with prior knowledge: list, an error, a watch.
    curl = shutil.which("curl")
    if curl:
        def h2(path):
            p = subprocess.run([curl, "-s", "--http2-prior-knowledge", "-w", "\\n%{http_version} %{http_code}",
                                rw.url + path], capture_output=True, text=True, timeout=20)
            body, _, tail = p.stdout.rpartition("\n")
            return tail, body
        tail, body = h2("/api/v1/configmaps")
        eq(tail, "2 200", "h2 LIST")
        eq(json.loads(body)["items"][0]["metadata"]["name"], "a", "h2 LIST body")
        tail, body = h2("/api/v1/nope")
        eq((tail, json.loads(body)["reason"]), ("2 404", "NotFound"), "h2 404")
        tail, body = h2("/api/v1/configmaps?watch=1&resourceVersion=0&timeoutSeconds=1")
        eq(tail, "2 200", "h2 WATCH")
        eq([json.loads(l)["type"] for l in body.splitlines()], ["ADDED"], "h2 WATCH events")
    check(rw.proc.poll() is None, "ringwatch died")


run(main)
