"""Discovery parity with kube-apiserver 1.32 (issue 8 item 9), with kubectl
1.32 and raw HTTP against real etcd.

- kubectl get all -n NS: every served type in the apiserver's "all"
  category (pods, services, deployments, replicasets, statefulsets,
  daemonsets, jobs, cronjobs), and nothing else (configmaps).
- Short names: kubectl get po, cm, svc, deploy, rs, sts, ds, cj.
- kubectl api-resources -o wide: names, short names, API versions,
  namespaced, kinds, verbs get,list,watch (what ringwatch serves), the
  "all" category; the three reviews with the verb create.
- With a fresh cache directory, kubectl discovers in two requests, /api and
  /apis (aggregated discovery), as against a real apiserver.
- GET /apis/GROUP: the APIGroup; /apis/nope: 404.
- The aggregated documents (v2 and v2beta1) against the apidiscovery v2
  types, member by member, and their headers; plain JSON for other Accepts.
- If-None-Match with their ETag: 304 Not Modified, no body (HTTP/1.1 and
  HTTP/2); another value, a weak or listed one: the document.
"""
import re

from harness import *
from h2raw import END_HEADERS, END_STREAM, HEADERS, H2Client, h2_frame, \
    header_block

NS = "disc"
RESOURCES = ("pods,configmaps,services,apps/v1/deployments,apps/v1/replicasets,"
             "apps/v1/statefulsets,apps/v1/daemonsets,batch/v1/jobs,batch/v1/cronjobs")
# (etcd prefix, apiVersion, kind, name, kubectl's name in get all or None)
OBJECTS = [
    ("pods", "v1", "Pod", "web-0", "pod/web-0"),
    ("services/specs", "v1", "Service", "web", "service/web"),
    ("deployments", "apps/v1", "Deployment", "web", "deployment.apps/web"),
    ("replicasets", "apps/v1", "ReplicaSet", "web-1", "replicaset.apps/web-1"),
    ("statefulsets", "apps/v1", "StatefulSet", "db", "statefulset.apps/db"),
    ("daemonsets", "apps/v1", "DaemonSet", "agent", "daemonset.apps/agent"),
    ("jobs", "batch/v1", "Job", "once", "job.batch/once"),
    ("cronjobs", "batch/v1", "CronJob", "nightly", "cronjob.batch/nightly"),
    ("configmaps", "v1", "ConfigMap", "settings", None),
]
AGG = "application/json;g=apidiscovery.k8s.io;v=%s;as=APIGroupDiscoveryList"


def seed(etcd):
    rev = 0
    for prefix, api, kind, name, _ in OBJECTS:
        obj = {"apiVersion": api, "kind": kind,
               "metadata": {"name": name, "namespace": NS, "uid": "u-" + name,
                            "creationTimestamp": "2026-11-29T00:00:00Z"},
               "spec": {}}
        if kind == "Pod":
            obj["status"] = {"phase": "Running"}
        if kind == "Service":
            obj["spec"] = {"type": "ClusterIP", "clusterIP": "10.0.0.1",
                           "ports": [{"port": 80, "protocol": "TCP"}]}
        rev = etcd.put("/registry/%s/%s/%s" % (prefix, NS, name), obj)
    return rev


def check_kubectl(rw):
    k = Kubectl(rw.url)

    def kubectl(*args):
        p = k.run(*args, timeout=60)
        check(p.returncode == 0, "kubectl %s: exit %d: %s", " ".join(args), p.returncode,
              p.stderr[-2000:])
        return p

    # A fresh cache: two discovery requests, then the lists.
    p = kubectl("get", "all", "-n", NS, "-v=6")
    gets = re.findall(r"GET http://127\.0\.0\.1:\d+(\S+) ", p.stderr)
    discovery = [g.split("?")[0] for g in gets if "/namespaces/" not in g]
    eq(discovery, ["/api", "/apis"], "kubectl's discovery requests (%r)" % gets)
    names = sorted(l.split()[0] for l in p.stdout.splitlines()
                   if l.strip() and not l.startswith("NAME"))
    eq(names, sorted(o[4] for o in OBJECTS if o[4]), "kubectl get all")

    # Short names.
    for short, name in (("po", "web-0"), ("cm", "settings"), ("svc", "web"), ("deploy", "web"),
                        ("rs", "web-1"), ("sts", "db"), ("ds", "agent"), ("cj", "nightly")):
        out = kubectl("get", short, "-n", NS, "-o", "name").stdout.split()
        eq(len(out), 1, "kubectl get %s" % short)
        check(out[0].endswith("/" + name), "kubectl get %s: %r", short, out)

    # api-resources.
    rows = {}
    for line in kubectl("api-resources", "-o", "wide").stdout.splitlines()[1:]:
        cols = line.split()
        rows[cols[0]] = cols
    eq(sorted(rows), sorted(["pods", "configmaps", "services", "deployments", "replicasets",
                             "statefulsets", "daemonsets", "jobs", "cronjobs",
                             "selfsubjectaccessreviews", "selfsubjectrulesreviews",
                             "selfsubjectreviews"]),
       "api-resources")
    eq(rows["selfsubjectreviews"],
       ["selfsubjectreviews", "authentication.k8s.io/v1", "false", "SelfSubjectReview",
        "create"], "selfsubjectreviews row")
    eq(rows["pods"], ["pods", "po", "v1", "true", "Pod", "get,list,watch", "all"], "pods row")
    eq(rows["configmaps"], ["configmaps", "cm", "v1", "true", "ConfigMap", "get,list,watch"],
       "configmaps row")
    eq(rows["jobs"], ["jobs", "batch/v1", "true", "Job", "get,list,watch", "all"], "jobs row")
    eq(rows["deployments"][1:3], ["deploy", "apps/v1"], "deployments row")


def check_group_docs(rw):
    eq(rw.get_json("/apis/apps"),
       {"kind": "APIGroup", "apiVersion": "v1", "name": "apps",
        "versions": [{"groupVersion": "apps/v1", "version": "v1"}],
        "preferredVersion": {"groupVersion": "apps/v1", "version": "v1"}}, "/apis/apps")
    eq(rw.get_json("/apis/batch/")["name"], "batch", "/apis/batch/")
    # the reviews' groups too (review_test.py), in the apiserver's order
    eq([g["name"] for g in rw.get_json("/apis")["groups"]],
       ["apps", "authentication.k8s.io", "authorization.k8s.io", "batch"], "/apis groups")
    eq(rw.get("/apis/nope")[0], 404, "/apis/nope")
    eq(rw.get("/apis/coordination.k8s.io")[0], 404, "a group not served")


def check_members(obj, required, optional, what):
    keys = set(obj)
    check(set(required) <= keys, "%s lacks %s", what, set(required) - keys)
    check(keys <= set(required) | set(optional), "%s has unknown %s", what,
          keys - set(required) - set(optional))


def check_aggregated(rw):
    for version in ("v2", "v2beta1"):
        for path, groups in (("/api", [None]),
                             ("/apis", ["apps", "authentication.k8s.io",
                                        "authorization.k8s.io", "batch"])):
            status, hdrs, body = rw.get(path, headers={"Accept": AGG % version + ",application/json"})
            eq(status, 200, path)
            eq(hdrs["content-type"], AGG % version, "%s content type" % path)
            check(hdrs.get("etag", "").startswith('"'), "ETag on %s", path)
            eq(hdrs.get("vary"), "Accept", "Vary on %s" % path)
            doc = json.loads(body)
            check_members(doc, ["kind", "apiVersion", "metadata", "items"], [], path)
            eq((doc["kind"], doc["apiVersion"]),
               ("APIGroupDiscoveryList", "apidiscovery.k8s.io/" + version), path)
            eq([i["metadata"].get("name") for i in doc["items"]], groups, "%s groups" % path)
            for item in doc["items"]:
                check_members(item, ["metadata", "versions"], [], "APIGroupDiscovery")
                check(item["metadata"]["creationTimestamp"] is None, "creationTimestamp null")
                for v in item["versions"]:
                    check_members(v, ["version", "resources", "freshness"], [],
                                  "APIVersionDiscovery")
                    eq(v["freshness"], "Current", "freshness")
                    names = [r["resource"] for r in v["resources"]]
                    eq(names, sorted(names), "resources by name")
                    for r in v["resources"]:
                        check_members(r, ["resource", "responseKind", "scope",
                                          "singularResource", "verbs"],
                                      ["shortNames", "categories"], r["resource"])
                        check_members(r["responseKind"], ["group", "version", "kind"], [],
                                      "responseKind")
                        eq(r["responseKind"]["group"], item["metadata"].get("name", ""),
                           "responseKind.group")
                        if r["resource"].startswith("self"):  # the reviews
                            eq((r["verbs"], r["scope"]), (["create"], "Cluster"),
                               "%s verbs, scope" % r["resource"])
                            continue
                        eq(r["verbs"], ["get", "list", "watch"], "verbs")
                        eq(r["scope"], "Namespaced", "scope")
                        eq(r.get("categories"),
                           None if r["resource"] == "configmaps" else ["all"], "categories")
    core = json.loads(rw.get("/api", headers={"Accept": AGG % "v2"})[2])
    pods = core["items"][0]["versions"][0]["resources"][1]
    eq(pods, {"resource": "pods", "responseKind": {"group": "", "version": "v1", "kind": "Pod"},
              "scope": "Namespaced", "singularResource": "pod",
              "verbs": ["get", "list", "watch"], "shortNames": ["po"], "categories": ["all"]},
       "pods in aggregated discovery")
    # Without the aggregated Accept: the plain documents.
    eq(rw.get_json("/api")["kind"], "APIVersions", "plain /api")
    eq(rw.get_json("/apis")["kind"], "APIGroupList", "plain /apis")
    v3 = rw.get("/apis", headers={"Accept": AGG % "v3" + ",application/json"})
    eq((v3[0], v3[1]["content-type"]), (200, "application/json"), "unknown version: plain")


def check_etag(rw):
    """If-None-Match with the aggregated document's ETag: 304 Not Modified
    with the ETag and no body, as the apiserver's ServeHTTPWithETag (the
    first If-None-Match field, compared whole), over HTTP/1.1 and
    HTTP/2; anything else gets the document."""
    for path in ("/api", "/apis"):
        accept = AGG % "v2" + ",application/json"
        status, hdrs, body = rw.get(path, headers={"Accept": accept})
        etag = hdrs["etag"]
        for inm, want in ((etag, 304), ('"0"', 200), ("W/" + etag, 200),
                          (etag + ', "0"', 200), ((etag, '"0"'), 304),
                          (('"0"', etag), 200)):
            fields = inm if isinstance(inm, tuple) else (inm,)
            what = "%s with If-None-Match %r" % (path, fields)
            raw = rw.raw(("GET %s HTTP/1.1\r\nHost: a\r\nAccept: %s\r\n%s"
                          "Connection: close\r\n\r\n" % (path, accept, "".join(
                              "If-None-Match: %s\r\n" % v for v in fields)))
                         .encode())
            head, _, body = raw.partition(b"\r\n\r\n")
            lines = head.decode().lower().split("\r\n")
            eq(int(lines[0].split()[1]), want, what)
            check("etag: " + etag.lower() in lines, "%s: no ETag: %r", what,
                  lines)
            if want == 304:
                eq(body, b"", what + ": body")
                check(not any(l.startswith(("content-length", "content-type",
                                            "transfer-encoding"))
                              for l in lines), "%s: %r", what, lines)
                for h in ("vary: accept", "cache-control: public"):
                    check(h in lines, "%s: no %s", what, h)
            c = H2Client(rw.port, open_windows=True)
            c.send(h2_frame(HEADERS, END_STREAM | END_HEADERS, 1, header_block(
                [(":method", "GET"), (":scheme", "http"), (":path", path),
                 (":authority", "a"), ("accept", accept)] +
                [("if-none-match", v) for v in fields])))
            check(c.until(lambda: 1 in c.ended), "h2 %s: no answer", what)
            c.close()
            if want == 304:  # :status 304 is static table entry 11
                check(c.status[1] == b"\x8b" and not c.data.get(1),
                      "h2 %s: %r %r", what, c.status[1], c.data.get(1))
            else:
                check(c.status[1] == b"\x88" and c.data.get(1),
                      "h2 %s: %r", what, c.status[1])


def main():
    etcd = Etcd()
    rev = seed(etcd)
    rw = Ringwatch(etcd, resources=RESOURCES)
    rw.wait_rv(rev)
    check_group_docs(rw)
    check_aggregated(rw)
    check_etag(rw)
    if KUBECTL is None:
        print("kubectl not installed: skipping the kubectl part")
    else:
        check_kubectl(rw)


run(main)
