"""The done criterion of the secure front, with the real clients: ONE
realistic deployment, started once, as an operator would run it off
loopback: etcd with mTLS, ringwatch listening on 0.0.0.0 (reached here
through 127.0.0.1 only) with --tls-cert-file/--tls-private-key-file,
--client-ca-file, --token-auth-file and service-account keys, RBAC (the
default with TLS) from objects written to etcd:

- alice (client certificate, CN=alice O=dev): get/list/watch of pods and
  configmaps in namespace dev (a Role and RoleBinding);
- bob (static token): get/list/watch of configmaps everywhere (a
  ClusterRole and ClusterRoleBinding);
- bob may also impersonate alice (verb impersonate on users "alice");
- service account dev/watcher (a JWT signed here): watch of pods;
- an operator (O=system:masters) that reads /metrics;
- nobody else.

Then: anonymous requests read nothing (403 on every resource path and
watch, the probes and /version still answer), bad credentials 401;
kubectl through a generated kubeconfig (Go's HTTP/2 over TLS, checked on
/metrics) get, get -A (the apiserver's Forbidden text), get -w, auth
can-i, auth whoami, and kubectl --token; the Python client and the
JavaScript informer with a token and with a certificate; curl over h2 and
http/1.1 with a certificate and with a bearer token; impersonation
(kubectl --as/--as-group, Impersonate-* over http/1.1) as RBAC allows it
(bob may act as alice only); and last, alice's
RoleBinding removed while her kubectl get -w and Python watch run: both
end with 403 and so does the re-watch.  Certificate rotation under 1,000
watches is cert_rotation_test.py, on the same deployment."""
import threading

import pki
from authn_test import ISSUER, mint, sa_claims
from harness import *
from js_informer_test import Informer, ensure_modules
from rbac_test import binding, key, obj, rule, subject

try:
    import kubernetes
    from kubernetes import client, watch
    from kubernetes.client.rest import ApiException
except ImportError:
    kubernetes = None

WAIT = 15  # seconds any event may take to arrive at a client


def pod(ns, name):
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "namespace": ns, "uid": "uid-" + name,
                                    "creationTimestamp": "2026-11-29T00:00:00Z"},
                       "spec": {"nodeName": "n1", "containers": [{"name": "c",
                                                                  "image": "nginx"}]}})


class Deployment:
    """etcd with mTLS and ringwatch on 0.0.0.0 with TLS, authentication and
    RBAC; users alice (certificate), bob (token), the service account
    dev/watcher (JWT) and an operator in system:masters (certificate)."""

    def __init__(self, *args):
        self.tmp = tempfile.mkdtemp(prefix="rw-secure-")
        defer(lambda: shutil.rmtree(self.tmp, ignore_errors=True))
        self.ca = pki.CA()
        self.etcd = Etcd(tls=self.ca)
        self.server_cert, self.server_key = self.ca.server("ringwatch")
        self.alice = self.ca.client("alice", ("dev",))
        self.admin = self.ca.client("operator", ("system:masters",))
        self.bob_token = "b0b-7c1f2e"
        tokens = os.path.join(self.tmp, "tokens.csv")
        with open(tokens, "w") as f:
            f.write('%s,bob,2001,"viewers"\n' % self.bob_token)
        sa_key, sa_pub = pki.signing_key(self.tmp, "rsa")
        self.sa_token = mint(sa_key, sa_claims(ns="dev", name="watcher"))
        self.seed()
        self.connections = 0
        self.rw = Ringwatch(self.etcd, "--token-auth-file", tokens,
                            "--service-account-key-file", sa_pub,
                            "--service-account-issuer", ISSUER, *args,
                            listen="0.0.0.0", resources="pods,configmaps",
                            tls={"cert": self.server_cert, "key": self.server_key,
                                 "ca": self.ca.cert, "client_ca": self.ca.cert})
        self.wait_rv(self.rev)

    def seed(self):
        verbs = ["get", "list", "watch"]
        puts = [
            (key("roles", "dev-reader", "dev"), obj("Role", "dev-reader", "dev", rules=[
                rule(verbs, ["pods", "configmaps"])])),
            (key("rolebindings", "alice-dev-reader", "dev"), binding(
                "RoleBinding", "alice-dev-reader", "dev", "Role", "dev-reader",
                [subject("User", "alice")])),
            (key("clusterroles", "configmap-reader"), obj("ClusterRole", "configmap-reader",
                                                          rules=[rule(verbs, ["configmaps"])])),
            (key("clusterrolebindings", "bob-configmaps"), binding(
                "ClusterRoleBinding", "bob-configmaps", None, "ClusterRole",
                "configmap-reader", [subject("User", "bob")])),
            # bob may act as alice (kubectl --as alice), nobody else
            (key("clusterroles", "impersonate-alice"), obj("ClusterRole", "impersonate-alice",
                                                           rules=[rule(["impersonate"], ["users"],
                                                                       names=["alice"])])),
            (key("clusterrolebindings", "bob-as-alice"), binding(
                "ClusterRoleBinding", "bob-as-alice", None, "ClusterRole", "impersonate-alice",
                [subject("User", "bob")])),
            (key("clusterroles", "pod-watcher"), obj("ClusterRole", "pod-watcher",
                                                     rules=[rule(["watch"], ["pods"])])),
            (key("clusterrolebindings", "watcher-pods"), binding(
                "ClusterRoleBinding", "watcher-pods", None, "ClusterRole", "pod-watcher",
                [subject("ServiceAccount", "watcher", "dev")])),
        ]
        for ns, name in (("dev", "web-1"), ("dev", "web-2"), ("prod", "db-1")):
            puts.append(("/registry/pods/%s/%s" % (ns, name), pod(ns, name)))
        for ns in ("dev", "prod"):
            puts.append((cm_key(ns, "settings"), configmap(ns, "settings")))
        for k, v in puts:
            self.rev = self.etcd.put(k, v)

    def context(self, user=None):
        """A client TLS context trusting the CA, with user's (cert, key)."""
        return self.rw.ssl_context(*(user or (None, None)))

    def get(self, path, user=None, token=None):
        """GET over TLS as user (a certificate) or with a bearer token, or
        anonymously, on a new connection (counted in self.connections);
        returns (status, body)."""
        self.connections += 1
        conn = self.rw.connection(context=self.context(user))
        conn.request("GET", path, headers={"Authorization": "Bearer " + token} if token else {})
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return resp.status, body

    def metric(self, name, **labels):
        want = name + ("{" + ",".join('%s="%s"' % kv for kv in labels.items()) + "}"
                       if labels else "")
        status, body = self.get("/metrics", self.admin)
        eq(status, 200, "the operator reads /metrics")
        for line in body.decode().splitlines():
            if line.startswith(want + " "):
                return float(line.split(" ", 1)[1])
        raise Failure("no %s on /metrics" % want)

    def wait_rv(self, rev, path="/api/v1/pods"):
        deadline = time.time() + WAIT
        while True:
            status, body = self.get(path + "?resourceVersion=0", self.admin)
            if status == 200 and int(json.loads(body)["metadata"]["resourceVersion"]) >= rev:
                return
            check(time.time() < deadline, "cache not at %d: %d %r", rev, status, body[:200])
            time.sleep(0.05)

    def kubeconfig(self, name, user=None, token=None):
        """A kubeconfig file (JSON is YAML) for user's certificate or a token."""
        u = {}
        if user:
            u = {"client-certificate": user[0], "client-key": user[1]}
        if token:
            u = {"token": token}
        cfg = {"apiVersion": "v1", "kind": "Config", "current-context": name,
               "clusters": [{"name": "ringwatch", "cluster": {
                   "server": self.rw.https_url, "certificate-authority": self.ca.cert}}],
               "users": [{"name": name, "user": u}],
               "contexts": [{"name": name, "context": {"cluster": "ringwatch", "user": name}}]}
        path = os.path.join(self.tmp, name + ".kubeconfig")
        with open(path, "w") as f:
            json.dump(cfg, f)
        return path


def check_anonymous(d):
    """No credentials: 403 on every resource path (watches included) and
    on discovery and /metrics; the probes and /version answer."""
    anon = 'forbidden: User "system:anonymous" cannot '
    res = 'is ' + anon + '%s resource "%s" in API group "" '
    cluster, dev, prod = "at the cluster scope", 'in the namespace "dev"', \
        'in the namespace "prod"'
    for path, message in [
            ("/api/v1/pods", "pods " + res % ("list", "pods") + cluster),
            ("/api/v1/namespaces/dev/pods", "pods " + res % ("list", "pods") + dev),
            ("/api/v1/namespaces/dev/pods/web-1", 'pods "web-1" ' + res % ("get", "pods") + dev),
            ("/api/v1/configmaps?watch=1", "configmaps " + res % ("watch", "configmaps") + cluster),
            ("/api/v1/watch/namespaces/prod/configmaps",
             "configmaps " + res % ("watch", "configmaps") + prod),
            ("/api/v1/namespaces/dev/pods?watch=true&resourceVersion=0",
             "pods " + res % ("watch", "pods") + dev),
            ("/api", anon + 'get path "/api"'), ("/apis/apps/v1", anon + 'get path "/apis/apps/v1"'),
            ("/metrics", anon + 'get path "/metrics"')]:
        status, body = d.get(path)
        eq(status, 403, "anonymous GET %s (%r)" % (path, body[:300]))
        st = json.loads(body)
        eq((st["reason"], st["code"], st["message"]), ("Forbidden", 403, message),
           "anonymous GET %s" % path)
    for path in ("/readyz", "/livez", "/healthz", "/version"):
        status, body = d.get(path)
        eq(status, 200, "anonymous GET %s (%r)" % (path, body[:200]))
    # bad credentials are 401, never anonymous, even on the probes
    other = pki.CA(name="other-ca")
    stranger = other.client("alice", ("dev",))
    forged = mint(pki.signing_key(d.tmp, "ec")[0], sa_claims(ns="dev", name="watcher"), "ES256")
    for what, kw in [("a wrong token", {"token": "wrong"}),
                     ("a token signed by another key", {"token": forged}),
                     ("a certificate of another CA", {"user": stranger})]:
        for path in ("/api/v1/namespaces/dev/pods", "/readyz"):
            status, body = d.get(path, **kw)
            eq(status, 401, "%s on %s (%r)" % (what, path, body[:200]))
            eq(json.loads(body)["reason"], "Unauthorized", "%s: reason" % what)


def check_kubectl_alice(d):
    """kubectl with a client certificate through a kubeconfig: Go's
    HTTP/2 over TLS."""
    k = Kubectl(d.rw.https_url)
    cfg = ["--kubeconfig", d.kubeconfig("alice", user=d.alice)]
    p = k.run(*cfg, "get", "pods", "-n", "dev")
    eq(p.returncode, 0, "alice: kubectl get pods -n dev (%s)" % p.stderr)
    eq(sorted(l.split()[0] for l in p.stdout.splitlines()[1:]), ["web-1", "web-2"],
       "alice's pods in dev")
    p = k.run(*cfg, "get", "configmaps", "-A")
    check(p.returncode != 0, "alice listed configmaps everywhere: %s", p.stdout)
    want = ('Error from server (Forbidden): configmaps is forbidden: User "alice" cannot list '
            'resource "configmaps" in API group "" at the cluster scope')
    check(want in p.stderr, "alice: kubectl get configmaps -A says %r", p.stderr)
    p = k.run(*cfg, "get", "pods", "-n", "prod")
    check('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in '
          'the namespace "prod"' in p.stderr, "alice in prod: %r", p.stderr)
    for ns, want, code in (("dev", "yes", 0), ("prod", "no", 1)):
        p = k.run(*cfg, "auth", "can-i", "list", "pods", "-n", ns)
        eq((p.stdout.strip(), p.returncode), (want, code), "alice can-i list pods -n " + ns)
    p = k.run(*cfg, "auth", "whoami", "-o", "json")
    eq(p.returncode, 0, "alice: kubectl auth whoami (%s)" % p.stderr)
    info = json.loads(p.stdout)["status"]["userInfo"]
    eq((info["username"], info["groups"]), ("alice", ["dev", "system:authenticated"]),
       "alice's whoami")

    # get -w: an event written to etcd arrives; the watch is an HTTP/2
    # stream (kubectl negotiated h2 through ALPN)
    h2 = {}

    def change(lines):
        h2["watchers"] = d.metric("ringwatch_watchers", resource="pods", protocol="h2")
        h2["connections"] = d.metric("ringwatch_connections", protocol="h2")
        d.etcd.put("/registry/pods/dev/web-3", pod("dev", "web-3"))

    lines = k.watch(cfg + ["get", "pods", "-n", "dev", "-w"], 3, change,
                    lambda ls: any(l.startswith("web-3 ") for l in ls), WAIT)
    check(any(l.startswith("web-3 ") for l in lines), "alice's get -w: %r", lines)
    eq(h2["watchers"], 1.0, "h2 pod watchers while kubectl get -w runs")
    check(h2["connections"] >= 1, "h2 connections while kubectl get -w runs: %s", h2)
    print("kubectl (alice, certificate): get, get -A 403, get -w over h2, can-i, whoami")


def check_kubectl_bob(d):
    k = Kubectl(d.rw.https_url)
    cred = ["--certificate-authority", d.ca.cert, "--token", d.bob_token]
    p = k.run(*cred, "get", "configmaps", "-A")
    eq(p.returncode, 0, "bob: kubectl get configmaps -A (%s)" % p.stderr)
    eq(sorted((l.split()[0], l.split()[1]) for l in p.stdout.splitlines()[1:]),
       [("dev", "settings"), ("prod", "settings")], "bob's configmaps")
    p = k.run(*cred, "get", "pods", "-A")
    check(p.returncode != 0 and 'Error from server (Forbidden): pods is forbidden: User "bob" '
          'cannot list resource "pods" in API group "" at the cluster scope' in p.stderr,
          "bob: kubectl get pods -A: %r", p.stderr)
    p = k.run(*cred, "auth", "whoami", "-o", "json")
    info = json.loads(p.stdout)["status"]["userInfo"]
    eq((info["username"], info["uid"], info["groups"]),
       ("bob", "2001", ["viewers", "system:authenticated"]), "bob's whoami")
    print("kubectl (bob, token): get -A, get pods 403, whoami")


class PyWatch(threading.Thread):
    """A python3-kubernetes watch.Watch().stream() in a thread: events
    (type, name) as they arrive, and the exception that ended it."""

    def __init__(self, fn, *args, **kwargs):
        super().__init__(daemon=True)
        self.w = watch.Watch()
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.events, self.error, self.ended = [], None, False
        self.start()

    def run(self):
        try:
            for ev in self.w.stream(self.fn, *self.args, timeout_seconds=60,
                                    _request_timeout=90, **self.kwargs):
                self.events.append((ev["type"], ev["object"].metadata.name))
        except Exception as e:  # ended by an ERROR event or a failure
            self.error = e
        self.ended = True

    def wait(self, cond, what):
        deadline = time.time() + WAIT
        while not cond(self):
            check(time.time() < deadline, "python watch: %s (events %r, error %r)", what,
                  self.events, self.error)
            time.sleep(0.05)


def py_api(d, user=None, token=None):
    conf = client.Configuration()
    conf.host = d.rw.https_url
    conf.ssl_ca_cert = d.ca.cert
    if user:
        conf.cert_file, conf.key_file = user
    if token:
        conf.api_key = {"authorization": "Bearer " + token}
    return client.CoreV1Api(client.ApiClient(conf))


def py_watch_sees(fn, args, rv, write, name, what):
    """A python watch of fn(*args) from rv sees the object `name` that
    write() adds."""
    w = PyWatch(fn, *args, resource_version=rv)
    time.sleep(0.3)
    write()
    w.wait(lambda w: ("ADDED", name) in w.events, what)
    w.w.stop()


def py_forbidden(fn, who, message=None):
    try:
        fn()
    except ApiException as e:
        eq(e.status, 403, "%s: status" % who)
        check(message is None or message in e.body, "%s: 403 %s", who, e.body)
        return
    raise Failure("%s was allowed" % who)


def check_python(d):
    if kubernetes is None:
        raise Failure("python3-kubernetes not installed (scripts/install-deps installs it)")
    # bob's token: list and watch configmaps everywhere; pods forbidden
    api = py_api(d, token=d.bob_token)
    lst = api.list_config_map_for_all_namespaces()
    eq(sorted(c.metadata.namespace for c in lst.items), ["dev", "prod"], "bob's python list")
    py_watch_sees(api.list_config_map_for_all_namespaces, (), lst.metadata.resource_version,
                  lambda: d.etcd.put(cm_key("prod", "py-bob"), configmap("prod", "py-bob")),
                  "py-bob", "bob's watch")
    py_forbidden(api.list_pod_for_all_namespaces, "bob's python pod list")
    # alice's certificate: pods in dev
    api = py_api(d, user=d.alice)
    lst = api.list_namespaced_pod("dev")
    eq(sorted(p.metadata.name for p in lst.items), ["web-1", "web-2", "web-3"],
       "alice's python list")
    py_watch_sees(api.list_namespaced_pod, ("dev",), lst.metadata.resource_version,
                  lambda: d.etcd.put("/registry/pods/dev/py-alice", pod("dev", "py-alice")),
                  "py-alice", "alice's watch")
    # the service account: watch pods, list nothing
    api = py_api(d, token=d.sa_token)
    py_watch_sees(api.list_pod_for_all_namespaces, (), str(d.etcd.revision()),
                  lambda: d.etcd.put("/registry/pods/prod/py-sa", pod("prod", "py-sa")),
                  "py-sa", "the service account's watch")
    py_forbidden(api.list_pod_for_all_namespaces, "the service account's list",
                 'User \\"system:serviceaccount:dev:watcher\\" cannot list')
    print("python client: token, certificate and service account (list, watch)")


def check_js(d):
    ensure_modules()
    for who, ns, cfg in (("bob", "prod", d.kubeconfig("bob", token=d.bob_token)),
                         ("alice", "dev", d.kubeconfig("alice", user=d.alice))):
        inf = Informer(d.rw.https_url, ns=ns, kubeconfig=cfg)
        want = {c: None for c in (["settings", "py-bob"] if ns == "prod" else ["settings"])}
        deadline = time.time() + WAIT
        while set(inf.state()[1]) != set(want):
            check(time.time() < deadline, "%s's informer: %s", who, inf.diagnostics())
            time.sleep(0.1)
        d.etcd.put(cm_key(ns, "js-" + who), configmap(ns, "js-" + who))
        while "js-" + who not in inf.state()[1]:
            check(time.time() < deadline, "%s's informer missed js-%s: %s", who, who,
                  inf.diagnostics())
            time.sleep(0.1)
        check(inf.count("error") == 0, "%s's informer: errors %s", who, inf.diagnostics())
        inf.stop()
    print("JavaScript informer: token and certificate over https")


def curl(d, *args):
    p = subprocess.run(["curl", "-sS", "--cacert", d.ca.cert, "-o", "/dev/null",
                        "-w", "%{http_code} %{http_version}"] + list(args),
                       capture_output=True, text=True, timeout=30)
    eq(p.returncode, 0, "curl %s (%s)" % (args, p.stderr))
    return p.stdout.split()


def check_curl(d):
    cert = ["--cert", d.alice[0], "--key", d.alice[1]]
    dev = d.rw.https_url + "/api/v1/namespaces/dev/pods"
    eq(curl(d, *cert, "--http2", dev), ["200", "2"], "curl --cert over h2")
    eq(curl(d, *cert, "--http1.1", dev), ["200", "1.1"], "curl --cert over http/1.1")
    eq(curl(d, *cert, "--http2", d.rw.https_url + "/api/v1/pods"), ["403", "2"],
       "curl --cert outside alice's namespace")
    bearer = ["-H", "Authorization: Bearer " + d.bob_token]
    eq(curl(d, *bearer, d.rw.https_url + "/api/v1/configmaps"), ["200", "2"],
       "curl with bob's bearer token")
    eq(curl(d, *bearer, "--http1.1", d.rw.https_url + "/api/v1/pods"), ["403", "1.1"],
       "curl with bob's token on pods")
    eq(curl(d, d.rw.https_url + "/api/v1/configmaps"), ["403", "2"], "curl anonymous")
    eq(curl(d, "-m", "10", d.rw.https_url + "/api/v1/namespaces/dev/pods?watch=1"),
       ["403", "2"], "curl anonymous h2 watch")
    print("curl: certificate (h2, http/1.1) and bearer token")


def check_impersonation(d):
    """kubectl --as / --as-group (Impersonate-* header fields, over h2)
    and curl over http/1.1: the request is the impersonated user's once
    RBAC lets the requester impersonate each part, as kube-apiserver's
    WithImpersonation; anything else is the apiserver's 403 (or 500 for
    groups without a user)."""
    k = Kubectl(d.rw.https_url)
    op = ["--kubeconfig", d.kubeconfig("operator", user=d.admin)]
    bob = ["--certificate-authority", d.ca.cert, "--token", d.bob_token]
    p = k.run(*op, "auth", "can-i", "list", "configmaps", "-A", "--as", "alice")
    eq((p.stdout.strip(), p.returncode), ("no", 1), "operator: can-i --as alice")
    p = k.run(*op, "get", "configmaps", "-A", "--as", "alice")
    check(p.returncode != 0 and 'configmaps is forbidden: User "alice" cannot list' in p.stderr,
          "operator: get configmaps -A --as alice: %r", p.stderr)
    for args, want in (
            (["--as", "alice", "--as-group", "dev", "--as-group", "qa"],
             ("alice", ["dev", "qa", "system:authenticated"])),
            (["--as", "system:serviceaccount:dev:watcher"],
             ("system:serviceaccount:dev:watcher", ["system:serviceaccounts",
                                                    "system:serviceaccounts:dev",
                                                    "system:authenticated"]))):
        p = k.run(*op, "auth", "whoami", "-o", "json", *args)
        eq(p.returncode, 0, "operator: whoami %s (%s)" % (args, p.stderr))
        info = json.loads(p.stdout)["status"]["userInfo"]
        eq((info["username"], info["groups"]), want, "operator: whoami %s" % args)
    # as system:anonymous (in system:unauthenticated): not even a review
    p = k.run(*op, "get", "pods", "-n", "dev", "--as", "system:anonymous")
    check('pods is forbidden: User "system:anonymous" cannot list' in p.stderr,
          "operator --as system:anonymous: %r", p.stderr)
    # bob may impersonate alice, and nothing more
    p = k.run(*bob, "get", "pods", "-n", "dev", "--as", "alice")
    eq(p.returncode, 0, "bob --as alice: get pods -n dev (%s)" % p.stderr)
    for args, what in ((["--as", "carol"], 'users "carol"'),
                       (["--as", "alice", "--as-group", "system:masters"],
                        'groups "system:masters"'),
                       (["--as", "system:serviceaccount:dev:watcher"],
                        'serviceaccounts "watcher"')):
        p = k.run(*bob, "get", "pods", "-n", "dev", *args)
        resource = what.split()[0]
        check(p.returncode != 0 and 'Error from server (Forbidden): %s is forbidden: User "bob" '
              'cannot impersonate resource "%s" in API group ""' % (what, resource) in p.stderr,
              "bob %s: %r", args, p.stderr)
    # HTTP/1.1, repeated Impersonate-Group lines; groups without a user
    review = json.dumps({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"})
    url = d.rw.https_url + "/apis/authentication.k8s.io/v1/selfsubjectreviews"
    p = subprocess.run(["curl", "-sS", "--http1.1", "--cacert", d.ca.cert, "-H",
                        "Authorization: Bearer " + d.bob_token, "-H", "Impersonate-User: alice",
                        "-H", "Content-Type: application/json", "-d", review, url],
                       capture_output=True, text=True, timeout=30)
    eq(json.loads(p.stdout)["status"]["userInfo"]["username"], "alice",
       "bob as alice over http/1.1 (%s)" % p.stdout)
    p = subprocess.run(["curl", "-sS", "--http1.1", "--cacert", d.ca.cert, "--cert", d.admin[0],
                        "--key", d.admin[1], "-H", "impersonate-user: alice", "-H",
                        "Impersonate-Group: a", "-H", "Impersonate-Group: b",
                        "-H", "Content-Type: application/json", "-d", review, url],
                       capture_output=True, text=True, timeout=30)
    eq(json.loads(p.stdout)["status"]["userInfo"]["groups"], ["a", "b", "system:authenticated"],
       "repeated Impersonate-Group over http/1.1 (%s)" % p.stdout)
    eq(curl(d, "--cert", d.admin[0], "--key", d.admin[1], "-H", "Impersonate-Group: a",
            d.rw.https_url + "/api/v1/pods"), ["500", "2"], "groups without a user")
    print("impersonation: kubectl --as/--as-group (h2), curl (http/1.1), 403s and 500")


def check_binding_removed(d):
    """alice's RoleBinding deleted while her kubectl get -w and Python
    watch run: both end with 403; the re-watch gets 403."""
    k = Kubectl(d.rw.https_url)
    cfg = ["--kubeconfig", d.kubeconfig("alice", user=d.alice)]
    proc = subprocess.Popen(k.argv(*cfg, "get", "pods", "-n", "dev", "-w"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    defer(lambda: proc.poll() is None and proc.kill())
    py = PyWatch(py_api(d, user=d.alice).list_namespaced_pod, "dev")
    py.wait(lambda w: len(w.events) >= 4, "alice's initial pods")
    before = d.metric("ringwatch_watches_ended_unauthorized_total", resource="pods")
    deadline = time.time() + WAIT
    while d.metric("ringwatch_watchers", resource="pods", protocol="h2") < 1:
        check(time.time() < deadline, "kubectl's watch never opened")
        time.sleep(0.1)
    d.etcd.delete(key("rolebindings", "alice-dev-reader", "dev"))
    try:
        out, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise Failure("kubectl get -w still runs after alice lost access")
    # kubectl prints the ERROR event's Status as a table row (STATUS
    # REASON MESSAGE) and ends when the stream ends
    check('Forbidden   pods is forbidden: User "alice" cannot watch resource "pods" in API '
          'group "" in the namespace "dev"' in out,
          "kubectl get -w ended without the 403: rc %s, %r, stdout %r", proc.returncode, err, out)
    py.wait(lambda w: w.ended, "the python watch did not end")
    check(isinstance(py.error, ApiException) and py.error.status == 403,
          "the python watch ended with %r", py.error)
    after = d.metric("ringwatch_watches_ended_unauthorized_total", resource="pods")
    check(after >= before + 2, "watches ended unauthorized: %s -> %s", before, after)
    p = k.run(*cfg, "get", "pods", "-n", "dev", "-w", "--request-timeout", "10s")
    check(p.returncode != 0 and 'Error from server (Forbidden): pods is forbidden: User '
          '"alice" cannot list resource "pods"' in p.stderr, "kubectl's re-watch: %r", p.stderr)
    status, body = d.get("/api/v1/namespaces/dev/pods?watch=1", d.alice)
    eq(status, 403, "alice's re-watch (%r)" % body[:200])
    print("binding removed: kubectl get -w and the python watch ended with 403, "
          "re-watches 403")


def main():
    d = Deployment()
    check_anonymous(d)
    check_kubectl_alice(d)
    check_kubectl_bob(d)
    check_python(d)
    check_js(d)
    check_curl(d)
    check_impersonation(d)
    check_binding_removed(d)


if __name__ == "__main__":
    run(main)
