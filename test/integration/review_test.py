"""The review endpoints and request bodies, with the real kubectl:
`kubectl auth can-i` (a SelfSubjectAccessReview in protobuf) and
`kubectl auth whoami` (a SelfSubjectReview), anonymous, `kubectl auth
can-i --list` (a SelfSubjectRulesReview: AlwaysAllow's "*" rules; its JSON
answer and refusals), and a JSON
SelfSubjectReview with a bearer token (--token-auth-file), with AlwaysAllow (the default on a loopback
plaintext port); the reviews in discovery with the verb create; JSON
bodies over HTTP/1.1 (Content-Length and chunked) and HTTP/2 (curl); the
apiserver's refusals of bad bodies (400, 415, 422), 405 with the Allow of
each path, and 413 beyond the 3 MiB body limit, without the body being
read first; an HTTP/2 connection's bodies bounded together; an HTTP/2
body held to --header-timeout."""
import http.client
import re
import shutil
import socket

from harness import *
from h2raw import (DATA, END_HEADERS, END_STREAM, HEADERS, WINDOW_UPDATE, H2Client,
                   error_name, h2_frame, h2_request_headers)

SSAR = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
SSRR = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
SSR = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
LIMIT = 3 * 1024 * 1024


def post(rw, path, body, ctype="application/json", headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", rw.port, timeout=10)
    h = {"Content-Type": ctype} if ctype else {}
    h.update(headers or {})
    conn.request("POST", path, body=body, headers=h)
    resp = conn.getresponse()
    out = resp.read()
    hdrs = {k.lower(): v for k, v in resp.getheaders()}
    conn.close()
    return resp.status, hdrs, out


def status_of(body):
    s = json.loads(body)
    return s["code"], s["reason"], s["message"]


def kubectl_cases(rw, tokens):
    k = Kubectl(rw.url)
    for args, want in ((["auth", "can-i", "list", "pods"], "yes"),
                       (["auth", "can-i", "watch", "configmaps", "-n", "kube-system"], "yes"),
                       (["auth", "can-i", "get", "/metrics"], "yes")):
        p = k.run(*args)
        eq((p.returncode, p.stdout.strip()), (0, want), "kubectl %s (%s)" % (
            " ".join(args), p.stderr[-500:]))
    p = k.run("auth", "whoami", "-o", "json")
    eq(p.returncode, 0, "kubectl auth whoami (%s)" % p.stderr[-500:])
    info = json.loads(p.stdout)["status"]["userInfo"]
    eq(info, {"username": "system:anonymous", "groups": ["system:unauthenticated"]},
       "anonymous whoami")
    # (kubectl sends a token over TLS only: alice asks with http.client)
    status, _, body = post(rw, SSR, '{"apiVersion":"authentication.k8s.io/v1"}',
                           headers={"Authorization": "Bearer " + tokens["alice"]})
    eq(status, 201, "alice's SelfSubjectReview (%r)" % body)
    eq(json.loads(body)["status"]["userInfo"],
       {"username": "alice", "uid": "u-alice",
        "groups": ["devs", "system:authenticated"]}, "alice's whoami")
    p = k.run("auth", "whoami")
    check("system:anonymous" in p.stdout, "whoami table: %r", p.stdout)


def can_i_list(k, *args):
    """kubectl auth can-i --list args: its table as rows of columns (the
    header checked), split on runs of 2+ spaces."""
    p = k.run("auth", "can-i", "--list", *args)
    eq(p.returncode, 0, "kubectl auth can-i --list %s (%s)" % (" ".join(args), p.stderr[-500:]))
    lines = p.stdout.rstrip("\n").splitlines()
    eq(re.split(r"\s{2,}", lines[0].strip()),
       ["Resources", "Non-Resource URLs", "Resource Names", "Verbs"], "can-i --list header")
    return [re.split(r"\s{2,}", l.rstrip()) for l in lines[1:]], p.stderr


def rules_cases(rw):
    """SelfSubjectRulesReview with AlwaysAllow: alwaysAllowAuthorizer's
    "*" rules, incomplete false; JSON bodies; 400 without a namespace."""
    rows, err = can_i_list(Kubectl(rw.url), "-n", "dev")
    eq(rows, [["*.*", "[]", "[]", "[*]"], ["", "[*]", "[]", "[*]"]],
       "can-i --list with AlwaysAllow")
    eq(err, "", "no warning (complete)")
    status, _, body = post(rw, SSRR, json.dumps({
        "kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1",
        "spec": {"namespace": "dev"}}))
    eq(status, 201, "SSRR JSON (%r)" % body)
    eq(json.loads(body), {
        "kind": "SelfSubjectRulesReview", "apiVersion": "authorization.k8s.io/v1",
        "metadata": {"creationTimestamp": None}, "spec": {},
        "status": {"resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}],
                   "nonResourceRules": [{"verbs": ["*"], "nonResourceURLs": ["*"]}],
                   "incomplete": False}}, "SSRR answer")
    for body, want in (('{"spec":{}}', (400, "BadRequest", "no namespace on request")),
                       ('{"spec":{"namespace":1}}', (400, "BadRequest", "cannot unmarshal number")),
                       ('{"kind":"SelfSubjectAccessReview"}',
                        (400, "BadRequest", "cannot be handled as a SelfSubjectRulesReview"))):
        status, _, out = post(rw, SSRR, body)
        code, reason, message = status_of(out)
        eq((status, code, reason), (want[0], want[0], want[1]), "SSRR %r" % body)
        check(want[2] in message, "SSRR %r message: %r", body, message)
    status, hdrs, _ = rw.get(SSRR)
    eq((status, hdrs.get("allow")), (405, "POST"), "GET of selfsubjectrulesreviews")


def discovery_cases(rw):
    doc = rw.get_json("/apis/authorization.k8s.io/v1")
    eq([(r["name"], r["namespaced"], r["kind"], r["verbs"]) for r in doc["resources"]],
       [("selfsubjectaccessreviews", False, "SelfSubjectAccessReview", ["create"]),
        ("selfsubjectrulesreviews", False, "SelfSubjectRulesReview", ["create"])],
       "authorization.k8s.io/v1 resources")
    doc = rw.get_json("/apis/authentication.k8s.io/v1")
    eq([(r["name"], r["verbs"]) for r in doc["resources"]],
       [("selfsubjectreviews", ["create"])], "authentication.k8s.io/v1 resources")
    names = [g["name"] for g in rw.get_json("/apis")["groups"]]
    check("authorization.k8s.io" in names and "authentication.k8s.io" in names,
          "groups: %r", names)


def body_cases(rw):
    review = {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
              "spec": {"resourceAttributes": {"namespace": "ns", "verb": "get",
                                              "resource": "pods", "name": "p"}}}
    status, hdrs, body = post(rw, SSAR, json.dumps(review))
    eq(status, 201, "SSAR JSON status (%r)" % body)
    got = json.loads(body)
    eq(got["spec"], review["spec"], "spec echoed")
    eq(got["status"], {"allowed": True}, "AlwaysAllow")
    eq(got["kind"], "SelfSubjectAccessReview", "kind")
    # chunked on HTTP/1.1: the body without its framing
    data = json.dumps({"spec": {"nonResourceAttributes": {"path": "/version",
                                                          "verb": "get"}}}).encode()
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(data[i:i + 7]), data[i:i + 7])
                      for i in range(0, len(data), 7)) + b"0\r\n\r\n"
    out = rw.raw(b"POST " + SSAR.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                 b"Connection: close\r\n\r\n" + chunks)
    check(out.startswith(b"HTTP/1.1 201 "), "chunked SSAR: %r", out[:200])
    check(b'"nonResourceAttributes":{"path":"/version","verb":"get"}' in out,
          "chunked SSAR echo: %r", out[-300:])
    # a GET's body is read and dropped; the connection carries on
    out = rw.raw(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                 b"GET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    eq(out.count(b"HTTP/1.1 200 OK"), 2, "GETs with a body, pipelined")

    # bad bodies, as the apiserver answers them
    for body, ctype, want in (
            ("{not json", "application/json", (400, "BadRequest", "couldn't get version/kind")),
            ('{"apiVersion":"v1"}', "application/json",
             (400, "BadRequest", "the API version in the data (v1) does not match")),
            ('{"kind":"Pod","spec":{}}', "application/json",
             (400, "BadRequest", 'Pod in version "v1" cannot be handled')),
            ('{"spec":{"resourceAttributes":{"verb":3}}}', "application/json",
             (400, "BadRequest", "cannot unmarshal number")),
            ('{"spec":{}}', "application/json", (422, "Invalid", "exactly one of")),
            ("{}", "application/yaml", (415, "UnsupportedMediaType", "unknown format"))):
        status, hdrs, out = post(rw, SSAR, body, ctype)
        code, reason, message = status_of(out)
        eq((status, code, reason), (want[0], want[0], want[1]), "%r status" % body)
        check(want[2] in message, "%r message: %r", body, message)
    status, _, out = post(rw, SSR, '{"kind":"SelfSubjectAccessReview"}')
    eq(status, 400, "SSR of the wrong kind (%r)" % out)

    # methods: Allow per path
    status, hdrs, out = rw.get(SSAR)
    eq((status, hdrs.get("allow")), (405, "POST"), "GET of a review")
    status, hdrs, out = post(rw, "/api/v1/pods", "{}")
    eq((status, hdrs.get("allow")), (405, "GET, HEAD"), "POST of pods")
    eq(status_of(out)[1], "MethodNotAllowed", "405 reason")


def limit_cases(rw):
    # a Content-Length above the limit is refused before the body is sent
    sock = socket.create_connection(("127.0.0.1", rw.port), timeout=10)
    sock.sendall(b"POST " + SSAR.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (LIMIT + 1))
    out = b""
    while b"\r\n\r\n" not in out or not out.rstrip().endswith(b"}"):
        chunk = sock.recv(65536)
        if not chunk:
            break
        out += chunk
    sock.close()
    check(out.startswith(b"HTTP/1.1 413 "), "Content-Length over the limit: %r", out[:100])
    code, reason, message = status_of(out.split(b"\r\n\r\n", 1)[1])
    eq((code, reason, message), (413, "RequestEntityTooLarge",
                                 "Request entity too large: limit is 3145728"), "413")
    # a body of exactly the limit is read whole
    status, _, out = post(rw, SSAR, b" " * (LIMIT - 2) + b"{}")
    eq(status, 422, "a body of exactly the limit (%r)" % out[:200])
    # chunked beyond the limit
    big = b"%x\r\n%s\r\n" % (LIMIT, b" " * LIMIT) + b"1\r\nx\r\n0\r\n\r\n"
    out = rw.raw(b"POST " + SSAR.encode() + b" HTTP/1.1\r\nHost: x\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n" + big)
    check(out.startswith(b"HTTP/1.1 413 "), "chunked over the limit: %r", out[:100])
    check(rw.get("/healthz")[0] == 200, "alive after 413s")


def h2_cases(rw, tmp):
    curl = shutil.which("curl")
    if not curl:
        print("curl not installed: HTTP/2 bodies skipped")
        return
    small = os.path.join(tmp, "small.json")
    with open(small, "w") as f:
        json.dump({"spec": {"resourceAttributes": {"verb": "list", "resource": "pods"}}}, f)
    big = os.path.join(tmp, "big.json")
    with open(big, "wb") as f:
        f.write(b" " * (LIMIT + 1))
    for path, want in ((small, "201"), (big, "413")):
        p = subprocess.run([curl, "-sS", "--http2-prior-knowledge", "-o", "/dev/null",
                            "-w", "%{http_version} %{http_code}", "-H",
                            "Content-Type: application/json", "--data-binary", "@" + path,
                            rw.url + SSAR], capture_output=True, text=True, timeout=30)
        eq(p.stdout, "2 " + want, "HTTP/2 POST of %s (%s)" % (os.path.basename(path),
                                                            p.stderr))
    p = subprocess.run([curl, "-sS", "--http2-prior-knowledge", "-H",
                        "Content-Type: application/json", "--data-binary", "@" + small,
                        rw.url + SSAR], capture_output=True, text=True, timeout=30)
    eq(json.loads(p.stdout)["status"], {"allowed": True}, "HTTP/2 SSAR answer")


def h2_body_timeout(etcd):
    """An HTTP/2 request body is held to --header-timeout from the end of
    its header block, as an HTTP/1.1 one is from its first byte: one that
    trickles in time is served, one that stops is cut (GOAWAY), well
    before --idle-timeout."""
    rw = Ringwatch(etcd, "--header-timeout", "2", "--idle-timeout", "60",
                   resources="configmaps")
    head = h2_request_headers(SSAR, "POST", extra=[("content-type", "application/json")])
    body = json.dumps({"spec": {"resourceAttributes": {"verb": "get"}}}).encode()
    c = H2Client(rw.port, open_windows=True)
    c.send(h2_frame(HEADERS, END_HEADERS, 1, head) + h2_frame(DATA, 0, 1, body[:5]))
    c.settle(1)
    check(1 not in c.status, "answered before its body ended")
    c.send(h2_frame(DATA, END_STREAM, 1, body[5:]))
    check(c.until(lambda: 1 in c.ended), "trickled body not answered")
    eq(json.loads(c.data[1])["status"], {"allowed": True}, "trickled body's answer")
    started = time.time()
    c.send(h2_frame(HEADERS, END_HEADERS, 3, head) + h2_frame(DATA, 0, 3, body[:5]))
    check(c.closed(10), "a body that stops: connection not closed")
    took = time.time() - started
    check(1.5 < took < 6, "a body that stops: closed after %.1fs", took)
    check(c.goaway is not None and error_name(c.goaway[1]) == "NO_ERROR",
          "a body that stops: GOAWAY %r", c.goaway)
    c.close()


class Sender:
    """Sends request bodies on an H2Client within the server's flow-control
    windows (65535 to start, replenished by its WINDOW_UPDATEs)."""

    def __init__(self, c):
        self.c, self.conn, self.streams = c, 65535, {}

    def frame(self):
        ftype, _, sid, payload = self.c.frame()
        if ftype == WINDOW_UPDATE:
            n = int.from_bytes(payload[:4], "big") & 0x7fffffff
            if sid == 0:
                self.conn += n
            else:
                self.streams[sid] = self.streams.get(sid, 65535) + n

    def send(self, sid, data, end=False):
        """Sends data on sid; stops early once the server reset sid."""
        self.c.reader.deadline = time.time() + 20
        while data and sid not in self.c.resets:
            n = min(16384, self.conn, self.streams.setdefault(sid, 65535), len(data))
            if n <= 0:
                self.frame()
                continue
            self.c.send(h2_frame(DATA, END_STREAM if end and n == len(data) else 0,
                                 sid, data[:n]))
            data = data[n:]
            self.conn -= n
            self.streams[sid] -= n


def h2_body_budget(rw):
    """An HTTP/2 connection keeps at most twice the body limit of bodies
    still arriving, all its streams together: the stream that passes it
    is reset REFUSED_STREAM (the client may retry it), the others go on."""
    head = h2_request_headers(SSAR, "POST", extra=[("content-type", "application/json")])
    c = H2Client(rw.port, open_windows=True)
    s = Sender(c)
    for sid in (1, 3, 5):
        c.send(h2_frame(HEADERS, END_HEADERS, sid, head))
    s.send(1, b" " * 3000000)
    s.send(3, b" " * 3000000)
    s.send(5, b" " * 400000)  # 6.4 MB in all: over 6 MiB
    check(c.until(lambda: 5 in c.resets), "stream 5 not refused")
    eq(error_name(c.resets[5]), "REFUSED_STREAM", "stream 5's reset")
    s.send(1, b"{}", end=True)
    check(c.until(lambda: 1 in c.ended), "stream 1 not answered")
    eq(json.loads(c.data[1])["reason"], "Invalid", "stream 1's answer (its whole body read)")
    check(3 not in c.resets and 3 not in c.status, "stream 3 touched")
    c.close()


def main():
    tmp = tempfile.mkdtemp(prefix="rw-review-")
    defer(lambda: shutil.rmtree(tmp, ignore_errors=True))
    tokens = {"alice": "alice-token-0123456789"}
    token_file = os.path.join(tmp, "tokens.csv")
    with open(token_file, "w") as f:
        f.write('%s,alice,u-alice,"devs"\n' % tokens["alice"])
    etcd = Etcd()
    rw = Ringwatch(etcd, "--token-auth-file", token_file)
    discovery_cases(rw)
    kubectl_cases(rw, tokens)
    rules_cases(rw)
    body_cases(rw)
    limit_cases(rw)
    h2_cases(rw, tmp)
    h2_body_budget(rw)
    h2_body_timeout(etcd)


if __name__ == "__main__":
    run(main)
