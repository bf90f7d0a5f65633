"""--authorization-mode RBAC against real etcd, for anonymous requests over
plaintext loopback: the allowed/denied matrix (Roles, ClusterRoles, their
bindings, aggregation, resourceNames with a GET and with a LIST or WATCH
pinned by fieldSelector metadata.name, nonResourceURLs with the trailing
"*"), the apiserver's 403 messages and details, malformed RBAC objects
counted and granting nothing, a binding removed while a watch runs (the
watch ends with ERROR 403, its re-watch gets 403, counted), a binding added
taking effect at once, kubectl get clusterroles / rolebindings, and
kubectl auth can-i --list (a SelfSubjectRulesReview: a Role's rules in its
namespace only, the bootstrap policy's, a missing role's evaluationError)."""
import re

from harness import *

RBAC = "rbac.authorization.k8s.io"
ANON = "system:anonymous"
UNAUTH = "system:unauthenticated"


def obj(kind, name, ns=None, **rest):
    meta = {"name": name, "creationTimestamp": "2024-01-02T03:04:05Z"}
    if ns:
        meta["namespace"] = ns
    meta.update(rest.pop("meta", {}))
    o = {"apiVersion": RBAC + "/v1", "kind": kind, "metadata": meta}
    o.update(rest)
    return json.dumps(o)


def key(resource, name, ns=None):
    return "/registry/%s/%s%s" % (resource, ns + "/" if ns else "", name)


def rule(verbs, resources=None, groups=("",), names=None, urls=None):
    r = {"verbs": list(verbs)}
    if urls is not None:
        r["nonResourceURLs"] = list(urls)
        return r
    r["apiGroups"] = list(groups)
    r["resources"] = list(resources)
    if names:
        r["resourceNames"] = list(names)
    return r


def subject(kind, name, ns=None):
    s = {"kind": kind, "name": name}
    if kind != "ServiceAccount":
        s["apiGroup"] = RBAC
    if ns:
        s["namespace"] = ns
    return s


def binding(kind, name, ns, role_kind, role, subjects):
    return obj(kind, name, ns, roleRef={"apiGroup": RBAC, "kind": role_kind, "name": role},
               subjects=subjects)


def seed(etcd):
    puts = [
        # what /readyz, /metrics and the trailing "*" form need
        (key("clusterroles", "info"), obj("ClusterRole", "info", rules=[
            rule(["get"], urls=["/healthz", "/readyz", "/livez", "/metrics", "/api/*"])])),
        (key("clusterrolebindings", "info"), binding(
            "ClusterRoleBinding", "info", None, "ClusterRole", "info", [subject("Group", UNAUTH)])),
        # configmaps in default through a Role
        (key("roles", "cm-reader", "default"), obj("Role", "cm-reader", "default", rules=[
            rule(["get", "list", "watch"], ["configmaps"])])),
        (key("rolebindings", "anon-cm", "default"), binding(
            "RoleBinding", "anon-cm", "default", "Role", "cm-reader",
            [subject("Group", UNAUTH), subject("ServiceAccount", "builder"),
             subject("User", "alice")])),
        # pod x only, everywhere
        (key("clusterroles", "pod-x"), obj("ClusterRole", "pod-x", rules=[
            rule(["get", "list", "watch"], ["pods"], names=["x"])])),
        (key("clusterrolebindings", "anon-pod-x"), binding(
            "ClusterRoleBinding", "anon-pod-x", None, "ClusterRole", "pod-x",
            [subject("User", ANON)])),
        # nodes through an aggregated ClusterRole
        (key("clusterroles", "agg"), obj("ClusterRole", "agg", aggregationRule={
            "clusterRoleSelectors": [{"matchLabels": {"example.com/agg": "true"}}]})),
        (key("clusterroles", "agg-nodes"), obj(
            "ClusterRole", "agg-nodes", meta={"labels": {"example.com/agg": "true"}},
            rules=[rule(["list"], ["nodes"])])),
        (key("clusterrolebindings", "anon-agg"), binding(
            "ClusterRoleBinding", "anon-agg", None, "ClusterRole", "agg", [subject("User", ANON)])),
        # a binding in "other" to a role that does not exist
        (key("rolebindings", "dangling", "other"), binding(
            "RoleBinding", "dangling", "other", "ClusterRole", "missing",
            [subject("Group", UNAUTH)])),
        # malformed: they would grant everything; they grant nothing
        (key("clusterroles", "everything"), obj("ClusterRole", "everything", rules=[
            rule(["*"], ["*"], groups=["*"]), rule(["*"], urls=["*"])])),
        (key("clusterrolebindings", "robots"), binding(
            "ClusterRoleBinding", "robots", None, "ClusterRole", "everything",
            [subject("Robot", ANON), subject("User", ANON)])),
        (key("clusterroles", "bad-rules"), obj("ClusterRole", "bad-rules", rules="all")),
        (key("clusterrolebindings", "bad-rules"), binding(
            "ClusterRoleBinding", "bad-rules", None, "ClusterRole", "bad-rules",
            [subject("Group", "system:authenticated")])),
        (key("rolebindings", "not-json", "default"), "{not json"),
    ]
    for ns in ("default", "other"):
        puts.append((cm_key(ns, "a"), configmap(ns, "a")))
    for name in ("x", "y"):
        puts.append(("/registry/pods/default/" + name, json.dumps(
            {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}})))
    puts.append(("/registry/minions/n1", json.dumps(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}})))
    rev = 0
    for k, v in puts:
        rev = etcd.put(k, v)
    return rev


def forbidden(rw, path, message, details, method="GET"):
    conn = http.client.HTTPConnection("127.0.0.1", rw.port, timeout=10)
    conn.request(method, path, body=b"{}" if method == "POST" else None)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    eq(resp.status, 403, "%s %s status (%r)" % (method, path, body[:300]))
    st = json.loads(body)
    eq((st["kind"], st["status"], st["reason"], st["code"]),
       ("Status", "Failure", "Forbidden", 403), "%s Status" % path)
    eq(st["message"], message, "%s message" % path)
    eq(st["details"], details, "%s details" % path)


def allowed(rw, path):
    status, _, body = rw.get(path)
    eq(status, 200, "GET %s (%r)" % (path, body[:300]))
    return json.loads(body) if body[:1] == b"{" else body


def wait_status(rw, path, want, timeout=10):
    deadline = time.time() + timeout
    while True:
        status, _, _ = rw.get(path)
        if status == want:
            return
        check(time.time() < deadline, "GET %s stayed %d, not %d", path, status, want)
        time.sleep(0.05)


def can_i_list(kc, ns):
    """kubectl auth can-i --list -n ns: its rows, split on runs of 2+
    spaces (a row of non-resource URLs starts with an empty column)."""
    out = kc.run("auth", "can-i", "--list", "-n", ns)
    eq(out.returncode, 0, "kubectl auth can-i --list -n %s (%s)" % (ns, out.stderr))
    lines = out.stdout.rstrip("\n").splitlines()
    eq(re.split(r"\s{2,}", lines[0].strip()),
       ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"], "can-i --list header")
    return [re.split(r"\s{2,}", l.rstrip()) for l in lines[1:]]


def rules_review(rw, etcd, kc):
    """kubectl auth can-i --list: the rules RBAC's RulesFor gives the
    anonymous user in a namespace, the bootstrap policy's included; a
    missing role's error in status.evaluationError."""
    etcd.put(key("clusterroles", "rules-reviewer"), obj("ClusterRole", "rules-reviewer", rules=[
        rule(["create"], ["selfsubjectrulesreviews"], groups=["authorization.k8s.io"])]))
    etcd.put(key("clusterrolebindings", "rules-reviewer"), binding(
        "ClusterRoleBinding", "rules-reviewer", None, "ClusterRole", "rules-reviewer",
        [subject("Group", UNAUTH)]))
    etcd.put(key("roles", "dev-secrets", "dev"), obj("Role", "dev-secrets", "dev", rules=[
        rule(["get", "list"], ["secrets"], names=["token"])]))
    etcd.put(key("rolebindings", "anon-secrets", "dev"), binding(
        "RoleBinding", "anon-secrets", "dev", "Role", "dev-secrets", [subject("User", ANON)]))
    want = ["secrets", "[]", "[token]", "[get list]"]
    deadline = time.time() + 10
    while True:
        rows = can_i_list(kc, "dev")
        if want in rows or time.time() > deadline:
            break
        time.sleep(0.1)
    check(want in rows, "the Role's rule is not listed: %r", rows)
    for row in (["pods", "[]", "[x]", "[get list watch]"],           # anon-pod-x
                ["nodes", "[]", "[]", "[list]"],                     # through agg
                ["selfsubjectrulesreviews.authorization.k8s.io", "[]", "[]", "[create]"],
                ["", "[/healthz]", "[]", "[get]"],                   # public-info-viewer
                ["", "[/version/]", "[]", "[get]"],                  # its alone
                ["", "[/apis/*]", "[]", "[get]"]):                   # kubectl
        check(row in rows, "row %r not listed:\n%r", row, rows)
    check(not any(r[0] == "configmaps" for r in rows),
          "other namespaces' rules listed in dev: %r", rows)
    check(["secrets", "[]", "[token]", "[get list]"] not in can_i_list(kc, "other"),
          "dev's Role listed in other")
    # the raw answer: the dangling RoleBinding in other names its missing
    # role, incomplete stays false (as RBAC's RulesFor)
    conn = http.client.HTTPConnection("127.0.0.1", rw.port, timeout=10)
    conn.request("POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
                 body=json.dumps({"spec": {"namespace": "other"}}),
                 headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    body = json.loads(resp.read())
    conn.close()
    eq(resp.status, 201, "SSRR in other (%r)" % body)
    eq((body["status"]["incomplete"], body["status"].get("evaluationError")),
       (False, 'clusterrole.rbac.authorization.k8s.io "missing" not found'),
       "SSRR in other: incomplete, evaluationError")
    check({"verbs": ["list", "watch"], "apiGroups": [""], "resources": ["configmaps"]}
          in body["status"]["resourceRules"], "cm-all in other: %r", body["status"])
    check({"verbs": ["get"], "nonResourceURLs": ["/healthz", "/livez", "/readyz", "/version",
                                                 "/version/"]}
          in body["status"]["nonResourceRules"], "public-info-viewer: %r", body["status"])


def main():
    etcd = Etcd()
    rev = seed(etcd)
    rw = Ringwatch(etcd, "--authorization-mode", "RBAC", resources="configmaps,pods,nodes",
                   wait=False)
    rw.wait_ready()
    rw.wait_rv(rev, "/api/v1/namespaces/default/configmaps")

    who = 'User "system:anonymous"'
    # allowed
    eq([i["metadata"]["name"] for i in allowed(rw, "/api/v1/namespaces/default/configmaps")["items"]],
       ["a"], "LIST configmaps in default")
    allowed(rw, "/api/v1/namespaces/default/configmaps/a")
    allowed(rw, "/api/v1/namespaces/default/pods/x")
    allowed(rw, "/api/v1/nodes")  # through the aggregated ClusterRole
    allowed(rw, "/api/v1")         # "/api/*"
    eq([i["metadata"]["name"] for i in
        allowed(rw, "/api/v1/pods?fieldSelector=metadata.name%3Dx")["items"]],
       ["x"], "LIST pinned to a resourceName")
    allowed(rw, "/api/v1/namespaces/default/pods?fieldSelector=metadata.name==x,"
                "metadata.namespace=default")
    w = rw.watch("/api/v1/namespaces/default/pods?watch=1&fieldSelector=metadata.name%3Dx")
    eq(w.status, 200, "WATCH pinned to a resourceName")
    eq(w.next_event(5)["object"]["metadata"]["name"], "x", "its initial event")
    w.close()

    # denied, in the apiserver's words
    forbidden(rw, "/api/v1/configmaps",
              'configmaps is forbidden: %s cannot list resource "configmaps" in API group "" '
              'at the cluster scope' % who, {"kind": "configmaps"})
    forbidden(rw, "/api/v1/namespaces/other/configmaps",
              'configmaps is forbidden: %s cannot list resource "configmaps" in API group "" '
              'in the namespace "other": RBAC: clusterrole.rbac.authorization.k8s.io "missing" '
              'not found' % who, {"kind": "configmaps"})
    forbidden(rw, "/api/v1/namespaces/default/pods/y",
              'pods "y" is forbidden: %s cannot get resource "pods" in API group "" '
              'in the namespace "default"' % who, {"name": "y", "kind": "pods"})
    forbidden(rw, "/api/v1/namespaces/default/pods",
              'pods is forbidden: %s cannot list resource "pods" in API group "" '
              'in the namespace "default"' % who, {"kind": "pods"})
    # an escaped key is the same parameter, and the first one is read: the
    # name authorized is the name served
    forbidden(rw, "/api/v1/pods?%66ieldSelector=metadata.name%3Dy&"
                  "fieldSelector=metadata.name%3Dx",
              'pods "y" is forbidden: %s cannot list resource "pods" in API group "" '
              'at the cluster scope' % who, {"name": "y", "kind": "pods"})
    forbidden(rw, "/api/v1/pods?watch=true&fieldSelector=metadata.name%3Dy",
              'pods "y" is forbidden: %s cannot watch resource "pods" in API group "" '
              'at the cluster scope' % who, {"name": "y", "kind": "pods"})
    forbidden(rw, "/api/v1/watch/namespaces/default/pods/y",
              'pods "y" is forbidden: %s cannot watch resource "pods" in API group "" '
              'in the namespace "default"' % who, {"name": "y", "kind": "pods"})
    forbidden(rw, "/api/v1/namespaces/default/pods/x/log",
              'pods "x" is forbidden: %s cannot get resource "pods/log" in API group "" '
              'in the namespace "default"' % who, {"name": "x", "kind": "pods"})
    forbidden(rw, "/apis/apps/v1/deployments",
              'deployments.apps is forbidden: %s cannot list resource "deployments" in API '
              'group "apps" at the cluster scope' % who, {"group": "apps", "kind": "deployments"})
    forbidden(rw, "/api/v1/secrets",  # not served: authorization comes first
              'secrets is forbidden: %s cannot list resource "secrets" in API group "" '
              'at the cluster scope' % who, {"kind": "secrets"})
    forbidden(rw, "/api/v1/namespaces/default/configmaps",
              'configmaps is forbidden: %s cannot create resource "configmaps" in API group "" '
              'in the namespace "default"' % who, {"kind": "configmaps"}, method="POST")
    forbidden(rw, "/api", 'forbidden: %s cannot get path "/api"' % who, {})
    forbidden(rw, "/apis", 'forbidden: %s cannot get path "/apis"' % who, {})
    # the apiserver's bootstrap system:public-info-viewer: /version for
    # everyone, until the store holds a binding of that name (the store's
    # word wins, as for an edited bootstrap object)
    allowed(rw, "/version")
    etcd.put(key("clusterrolebindings", "system:public-info-viewer"), binding(
        "ClusterRoleBinding", "system:public-info-viewer", None, "ClusterRole",
        "system:public-info-viewer", [subject("Group", "system:authenticated")]))
    wait_status(rw, "/version", 403)
    forbidden(rw, "/version", 'forbidden: %s cannot get path "/version"' % who, {})
    etcd.delete(key("clusterrolebindings", "system:public-info-viewer"))
    wait_status(rw, "/version", 200)
    forbidden(rw, "/apis/%s/v1/clusterroles" % RBAC,
              'clusterroles.%s is forbidden: %s cannot list resource "clusterroles" in API '
              'group "%s" at the cluster scope' % (RBAC, who, RBAC),
              {"group": RBAC, "kind": "clusterroles"})

    # malformed objects: skipped, counted, logged
    eq(rw.metric("ringwatch_rbac_objects_skipped_total", resource="clusterrolebindings"), 1.0,
       "malformed clusterrolebindings")
    eq(rw.metric("ringwatch_rbac_objects_skipped_total", resource="clusterroles"), 1.0,
       "malformed clusterroles")
    eq(rw.metric("ringwatch_undecodable_values_total", resource="rolebindings"), 1.0,
       "a rolebinding that is not JSON")
    eq(rw.metric("ringwatch_rbac_objects_skipped_total", resource="rolebindings"), 1.0,
       "a rolebinding that is not JSON is skipped too")
    eq(rw.metric("ringwatch_rbac_objects_skipped_total", resource="configmaps"), 0.0,
       "no RBAC object among configmaps")
    check('unknown kind \\"Robot\\"' in rw.logtext() or 'unknown kind "Robot"' in rw.logtext(),
          "the unknown subject kind is not logged:\n%s", rw.logtext())

    # a binding added takes effect at once
    etcd.put(key("rolebindings", "anon-cm", "other"), binding(
        "RoleBinding", "anon-cm", "other", "ClusterRole", "cm-all", [subject("Group", UNAUTH)]))
    etcd.put(key("clusterroles", "cm-all"), obj("ClusterRole", "cm-all", rules=[
        rule(["list", "watch"], ["configmaps"])]))
    wait_status(rw, "/api/v1/namespaces/other/configmaps", 200)

    # a binding removed while a watch runs: ERROR 403, the end, 403 again
    w = rw.watch("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=%d" % rev)
    eq(w.status, 200, "WATCH configmaps in default")
    other = rw.watch("/api/v1/namespaces/other/configmaps?watch=1&resourceVersion=%d" % rev)
    eq(other.status, 200, "WATCH configmaps in other")
    etcd.delete(key("rolebindings", "anon-cm", "default"))
    ev = w.next_event(5)
    eq(ev["type"], "ERROR", "the watch's last event (%r)" % ev)
    eq(ev["object"]["code"], 403, "its Status code")
    eq(ev["object"]["message"],
       'configmaps is forbidden: %s cannot watch resource "configmaps" in API group "" '
       'in the namespace "default"' % who, "its message")
    eq(w.next_event(5), None, "the stream ended")
    eq(rw.metric("ringwatch_watches_ended_unauthorized_total", resource="configmaps"), 1.0,
       "counted")
    forbidden(rw, "/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=%d" % rev,
              'configmaps is forbidden: %s cannot watch resource "configmaps" in API group "" '
              'in the namespace "default"' % who, {"kind": "configmaps"})
    etcd.put(cm_key("other", "b"), configmap("other", "b"))
    ev = other.next_event(5)
    eq((ev["type"], ev["object"]["metadata"]["name"]), ("ADDED", "b"),
       "a watch that kept its access goes on")
    other.close()

    # kubectl, once discovery and the RBAC types may be read
    etcd.put(key("clusterroles", "kubectl"), obj("ClusterRole", "kubectl", rules=[
        rule(["get"], urls=["/api", "/apis", "/apis/*", "/version"]),
        rule(["get", "list", "watch"], ["clusterroles", "rolebindings"], groups=[RBAC])]))
    r = etcd.put(key("clusterrolebindings", "kubectl"), binding(
        "ClusterRoleBinding", "kubectl", None, "ClusterRole", "kubectl",
        [subject("Group", UNAUTH)]))
    wait_status(rw, "/apis/%s/v1/clusterroles" % RBAC, 200)
    kc = Kubectl(rw.url)
    out = kc.run("get", "clusterroles")
    eq(out.returncode, 0, "kubectl get clusterroles (%s)" % out.stderr)
    lines = out.stdout.splitlines()
    eq(lines[0].split(), ["NAME", "CREATED", "AT"], "header")
    check(["agg-nodes", "2024-01-02T03:04:05Z"] in [l.split() for l in lines],
          "row missing:\n%s", out.stdout)
    out = kc.run("get", "rolebindings", "-A", "-o", "wide")
    eq(out.returncode, 0, "kubectl get rolebindings (%s)" % out.stderr)
    eq(out.stdout.splitlines()[0].split(),
       ["NAMESPACE", "NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"], "header")
    row = [l.split() for l in out.stdout.splitlines() if " anon-cm " in l]
    eq(row, [["other", "anon-cm", "ClusterRole/cm-all", row and row[0][3], UNAUTH]],
       "rolebinding row")
    out = kc.run("get", "pods", "-A")
    check(out.returncode != 0 and "pods is forbidden" in out.stderr,
          "kubectl get pods -A: %s %s", out.stdout, out.stderr)

    rules_review(rw, etcd, kc)

    # off loopback, RBAC is the default: an anonymous request reads only
    # what RBAC grants it (reached through 127.0.0.1)
    port = free_port()
    extra = ["--listen", "0.0.0.0:%d" % port]
    usage = subprocess.run([RINGWATCH, "--help"], capture_output=True, text=True).stdout
    if "--insecure-allow-plaintext" in usage:
        extra.append("--insecure-allow-plaintext")
    wide = Ringwatch(etcd, *extra, resources="configmaps,pods", port=port)
    allowed(wide, "/api/v1/namespaces/other/configmaps")
    forbidden(wide, "/api/v1/namespaces/default/configmaps",
              'configmaps is forbidden: %s cannot list resource "configmaps" in API group "" '
              'in the namespace "default"' % who, {"kind": "configmaps"})
    forbidden(wide, "/api/v1/pods",
              'pods is forbidden: %s cannot list resource "pods" in API group "" '
              'at the cluster scope' % who, {"kind": "pods"})
    check("authorization RBAC" in wide.logtext(), "the log does not say RBAC:\n%s",
          wide.logtext())


if __name__ == "__main__":
    run(main)
