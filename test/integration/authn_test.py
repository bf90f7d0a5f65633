"""Authentication as kube-apiserver's, end to end against real etcd and
real clients: static tokens from --token-auth-file, service-account JWTs
signed here with the openssl command line (RS256 and ES256, as the
cluster's key would sign them), the apiserver's 401 Status for every bad
credential (never anonymous), --anonymous-auth on and off, kubectl with
--token, a pod-bound token refused once its pod's key is deleted from
etcd, a bad token file refused at startup naming its line, and the
attempts on /metrics; over the TLS front, client certificates (x509:
verified, expired, another CA's, without CN) and kubectl with --token."""
import base64
import subprocess
import tempfile

import pki
from harness import *

ISSUER = "https://kubernetes.default.svc.cluster.local"
UNAUTHORIZED = {"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": "Unauthorized",
                "reason": "Unauthorized", "code": 401}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def der_to_raw(der, size=32):
    """A DER ECDSA-Sig-Value as JWS's R || S."""
    assert der[0] == 0x30
    at, out = 2, b""
    for _ in range(2):
        assert der[at] == 0x02
        n = der[at + 1]
        v = der[at + 2:at + 2 + n].lstrip(b"\0")
        out += v.rjust(size, b"\0")
        at += 2 + n
    return out


def mint(key, claims, alg="RS256", header=None):
    """A compact JWS of claims signed with the private key file key."""
    head = header or {"alg": alg, "kid": "test"}
    signing = (b64url(json.dumps(head).encode()) + "." +
               b64url(json.dumps(claims).encode()))
    if alg == "none":
        return signing + "."
    sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", key],
                         input=signing.encode(), capture_output=True,
                         check=True).stdout
    if alg == "ES256":
        sig = der_to_raw(sig)
    return signing + "." + b64url(sig)


def sa_claims(aud=ISSUER, exp_in=3600, pod=None, ns="default", name="builder"):
    now = int(time.time())
    k8s = {"namespace": ns, "serviceaccount": {"name": name, "uid": "sa-uid-1"}}
    if pod:
        k8s["pod"] = {"name": pod[0], "uid": pod[1]}
    return {"iss": ISSUER, "aud": [aud], "exp": now + exp_in, "iat": now - 10,
            "nbf": now - 10, "sub": "system:serviceaccount:%s:%s" % (ns, name),
            "kubernetes.io": k8s}


def pod(ns, name, uid):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "uid": uid,
                         "creationTimestamp": "2026-11-29T00:00:00Z"},
            "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]}}


def request(rw, path, authorization=None):
    headers = {"Authorization": authorization} if authorization else {}
    conn = http.client.HTTPConnection("127.0.0.1", rw.port, timeout=10)
    conn.request("GET", path, headers=headers)
    resp = conn.getresponse()
    body = resp.read()
    conn.close()
    return resp.status, resp.getheader("content-type"), body


def unauthorized(rw, path, authorization, what):
    status, ctype, body = request(rw, path, authorization)
    eq(status, 401, "%s: status (%r)" % (what, body[:200]))
    eq(ctype, "application/json", "%s: content type" % what)
    eq(json.loads(body), UNAUTHORIZED, "%s: the apiserver's Status" % what)


def ok(rw, path, authorization, what):
    status, _, body = request(rw, path, authorization)
    eq(status, 200, "%s: status (%r)" % (what, body[:200]))
    return body


def check_startup_error(etcd, tmp):
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("t1,alice,1001\n\nshort,row\n")
    out = subprocess.run([RINGWATCH, "--listen", "127.0.0.1:%d" % free_port(),
                          "--upstream", etcd.url, "--token-auth-file", bad],
                         capture_output=True, text=True, timeout=20)
    eq(out.returncode, 2, "exit status with a bad token file (%s)" % out.stderr)
    check("bad.csv: line 3: must have at least 3 columns" in out.stderr,
          "the error names the line: %r", out.stderr)
    out = subprocess.run([RINGWATCH, "--listen", "127.0.0.1:%d" % free_port(),
                          "--upstream", etcd.url, "--service-account-key-file",
                          bad, "--service-account-issuer", ISSUER],
                         capture_output=True, text=True, timeout=20)
    eq(out.returncode, 2, "exit status with a key file without keys")
    check("does not contain any valid RSA or ECDSA public keys" in out.stderr,
          "the key file error: %r", out.stderr)


def check_tokens(rw, etcd, rsa, ec):
    # no credentials, a scheme that is not Bearer, a token nobody knows
    for path in ("/api/v1/pods", "/healthz", "/version", "/metrics", "/nope"):
        unauthorized(rw, path, None, "anonymous GET %s" % path)
    unauthorized(rw, "/api/v1/pods", "Basic YWxpY2U6czNjcmV0", "Basic")
    unauthorized(rw, "/api/v1/pods", "Bearer nobody-knows-me", "unknown token")
    unauthorized(rw, "/api/v1/pods", "Bearer s3cret-alice-x", "token's extension")
    body = ok(rw, "/api/v1/pods", "Bearer s3cret-alice", "static token")
    eq(json.loads(body)["kind"], "PodList", "static token's LIST")
    ok(rw, "/api/v1/pods", "bearer s3cret-bob", "the scheme in any case")
    # service-account tokens, RSA and ECDSA keys
    ok(rw, "/api/v1/pods", "Bearer " + mint(rsa, sa_claims()), "RS256 token")
    ok(rw, "/api/v1/pods", "Bearer " + mint(ec, sa_claims(), "ES256"), "ES256 token")
    ok(rw, "/api/v1/pods", "Bearer " + mint(rsa, sa_claims(aud="ringwatch")),
       "an audience of --api-audiences")
    for what, tok in [
            ("expired", mint(rsa, sa_claims(exp_in=-120))),
            ("wrong audience", mint(rsa, sa_claims(aud="https://elsewhere"))),
            ("alg none", mint(rsa, sa_claims(), "none", {"alg": "none"})),
            ("ES256 signature as RS256",
             mint(ec, sa_claims(), "ES256", {"alg": "RS256"})),
            ("other issuer", mint(rsa, dict(sa_claims(), iss="https://other"))),
            ("malformed", "eyJhbGciOiJSUzI1NiJ9.bm90IGpzb24.c2ln")]:
        unauthorized(rw, "/api/v1/pods", "Bearer " + tok, what)
    # a watch is authenticated too
    unauthorized(rw, "/api/v1/pods?watch=1", "Bearer wrong", "a WATCH")


def check_kubectl(rw, ca):
    """kubectl sends a token only over TLS (clientcmd applies the user's
    credentials to TLS configurations only)."""
    kubectl = Kubectl(rw.url)
    out = kubectl.run("--certificate-authority", ca, "--token", "s3cret-alice",
                      "get", "pods", "-A")
    eq(out.returncode, 0, "kubectl --token get pods (%s)" % out.stderr)
    check("web-2" in out.stdout, "kubectl lists the pod: %r", out.stdout)
    out = kubectl.run("--certificate-authority", ca, "--token", "wrong",
                      "get", "pods", "-A")
    check(out.returncode != 0 and ("Unauthorized" in out.stderr or
                                   "must be logged in" in out.stderr),
          "kubectl with a wrong token: %r", out.stderr)


def check_pod_bound(rw, etcd, ec):
    tok = "Bearer " + mint(ec, sa_claims(pod=("web-1", "pod-uid-1")), "ES256")
    stale = "Bearer " + mint(ec, sa_claims(pod=("web-1", "an-older-uid")), "ES256")
    ok(rw, "/api/v1/pods", tok, "a token bound to a pod that exists")
    unauthorized(rw, "/api/v1/pods", stale, "a token bound to another uid")
    # deletion begun (deletionTimestamp): within the apiserver's 60 s of
    # leeway the token still works, past it not
    for ago, works in ((10, True), (120, False)):
        p = pod("default", "web-1", "pod-uid-1")
        p["metadata"]["deletionTimestamp"] = time.strftime(
            "%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - ago))
        rw.wait_rv(etcd.put("/registry/pods/default/web-1", p), "/api/v1/pods")
        (ok if works else unauthorized)(
            rw, "/api/v1/pods", tok, "a token whose pod is terminating for %d s" % ago)
    rv = etcd.put("/registry/pods/default/web-1", pod("default", "web-1", "pod-uid-1"))
    rw.wait_rv(rv, "/api/v1/pods")
    ok(rw, "/api/v1/pods", tok, "the pod back")
    rv = etcd.delete("/registry/pods/default/web-1")
    rw.wait_rv(rv, "/api/v1/pods")
    unauthorized(rw, "/api/v1/pods", tok, "a token whose pod was deleted")


def check_anonymous_on(etcd, tokens, rsa_pub):
    rw = Ringwatch(etcd, "--token-auth-file", tokens,
                   "--service-account-key-file", rsa_pub,
                   "--service-account-issuer", ISSUER)
    ok(rw, "/api/v1/pods", None, "anonymous (--anonymous-auth=true)")
    ok(rw, "/api/v1/pods", "Basic YWxpY2U6czNjcmV0", "Basic is no credential")
    ok(rw, "/api/v1/pods", "Bearer ", "an empty bearer token is no credential")
    unauthorized(rw, "/api/v1/pods", "Bearer wrong", "a bad token is never anonymous")
    eq(rw.metric("ringwatch_authentication_attempts_total", result="success",
                 method="anonymous") >= 3, True, "anonymous successes counted")
    rw.stop()


def check_metrics(rw):
    fail = rw.metric("ringwatch_authentication_attempts_total",
                     result="failure", method="token")
    good = rw.metric("ringwatch_authentication_attempts_total",
                     result="success", method="serviceaccount")
    anon = rw.metric("ringwatch_authentication_attempts_total",
                     result="failure", method="anonymous")
    check(fail and fail >= 3, "token failures counted: %r", fail)
    check(good and good >= 3, "service-account successes counted: %r", good)
    check(anon and anon >= 5, "anonymous refusals counted: %r", anon)


def check_tls(etcd, tmp, tokens):
    """Over the TLS front: client certificates (x509), and kubectl with
    --token (clientcmd sends credentials over TLS only)."""
    for sub in ("ca", "other"):
        os.makedirs(os.path.join(tmp, sub))
    ca = pki.CA(dir=os.path.join(tmp, "ca"))
    other = pki.CA(name="other-ca", dir=os.path.join(tmp, "other"))
    cert, key = ca.server()
    rw = Ringwatch(etcd, "--token-auth-file", tokens, "--anonymous-auth=false",
                   tls={"cert": cert, "key": key, "ca": ca.cert,
                        "client_ca": ca.cert},
                   token="s3cret-alice")

    def get(client=None, authorization=None):
        ctx = rw.ssl_context(*(client or (None, None)))
        headers = {"Authorization": authorization} if authorization else {}
        conn = rw.connection(context=ctx)
        conn.request("GET", "/api/v1/pods", headers=headers)
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
        return resp.status, json.loads(body)

    eq(get(ca.client("alice", ["dev"]))[0], 200, "a verified client certificate")
    eq(get(ca.client("alice", name="expired", end="200101000000Z")),
       (401, UNAUTHORIZED), "an expired certificate")
    eq(get(other.client("mallory"), "Bearer s3cret-alice"), (401, UNAUTHORIZED),
       "a certificate of another CA, even with a good token")
    eq(get(ca.client("", ["dev"], name="nocn"), "Bearer s3cret-bob")[0], 200,
       "a certificate without CN names nobody: the token decides")
    eq(get(ca.client("", ["dev"], name="nocn2"))[0], 401,
       "a certificate without CN and no token, anonymous off")
    eq(get()[1], UNAUTHORIZED, "no certificate, anonymous off")
    eq(get(None, "Bearer s3cret-alice")[0], 200, "a token over TLS")
    rw.wait_rv(etcd.put("/registry/pods/default/web-2",
                        pod("default", "web-2", "pod-uid-2")), "/api/v1/pods")
    check_kubectl(rw, ca.cert)
    rw.stop()


def main():
    tmp = tempfile.mkdtemp(prefix="rw-authn-")
    defer(lambda: shutil.rmtree(tmp, ignore_errors=True))
    os.makedirs(os.path.join(tmp, "rsa"))
    os.makedirs(os.path.join(tmp, "ec"))
    rsa, rsa_pub = pki.signing_key(os.path.join(tmp, "rsa"), "rsa")
    ec, ec_pub = pki.signing_key(os.path.join(tmp, "ec"), "ec")
    tokens = os.path.join(tmp, "tokens.csv")
    with open(tokens, "w") as f:
        f.write('s3cret-alice,alice,1001,"dev,ops"\n'
                '\n'
                's3cret-bob,bob,1002\n')
    etcd = Etcd()
    etcd.put("/registry/pods/default/web-1", pod("default", "web-1", "pod-uid-1"))
    check_startup_error(etcd, tmp)
    rw = Ringwatch(etcd, "--anonymous-auth=false", "--token-auth-file", tokens,
                   "--service-account-key-file", rsa_pub,
                   "--service-account-key-file", ec,  # a private key works too
                   "--service-account-issuer", ISSUER,
                   "--api-audiences", "ringwatch," + ISSUER,
                   token="s3cret-alice")
    check_tokens(rw, etcd, rsa, ec)
    check_pod_bound(rw, etcd, ec)
    check_metrics(rw)
    rw.stop()
    check_anonymous_on(etcd, tokens, rsa_pub)
    check_tls(etcd, tmp, tokens)


if __name__ == "__main__":
    run(main)
