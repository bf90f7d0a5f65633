"""ringwatch-fleet over TLS end to end: etcd with mTLS (harness
Etcd(tls=)), ringwatch serving TLS (harness Ringwatch(tls=)) with mTLS to
etcd, and the fleet reaching both with certificates made now (pki.py):

1. 100 HTTP/2 watchers over TLS (ALPN h2, --cacert/--cert/--key, the
   certificate in group system:masters), the writer, oracle and final
   read on the mTLS etcd (--etcd-cacert/--etcd-cert/--etcd-key): every
   write reaches every watcher, everything verifies.
2. 50 HTTP/1.1 watchers over TLS (ALPN http/1.1), the same checks.
3. --target etcd: native gRPC watches on the mTLS etcd itself.
4. --token: the HTTP/1.1 watchers send "Authorization: Bearer TOKEN" on
   every request (seen by a small HTTPS server that records headers).
5. Bad options: a CA that does not verify ringwatch's certificate makes
   no watcher succeed (and says why); a missing --key is an invalid
   option (exit 2)."""
import http.server
import json
import ssl
import subprocess
import threading

from harness import *
import pki

FLEET = os.environ.get("RINGWATCH_FLEET", os.path.join(TOP, "build", "ringwatch-fleet"))


def fleet(rw, etcd, ca, cert, key, *args, duration=4, server=None, timeout=90):
    report = tempfile.NamedTemporaryFile(prefix="rw-fleet-", suffix=".json", delete=False)
    report.close()
    defer(lambda: os.path.exists(report.name) and os.unlink(report.name))
    cmd = [FLEET, "--server", server or rw.url, "--resource", "pods",
           "--duration", str(duration), "--etcd", etcd.url,
           "--etcd-cacert", etcd.ca, "--etcd-cert", etcd.cert, "--etcd-key", etcd.key,
           "--cacert", ca, "--cert", cert, "--key", key,
           "--report", report.name] + [str(a) for a in args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    with open(report.name) as f:
        text = f.read()
    check(text, "no report from %s\n%s", cmd, out.stdout + out.stderr[-3000:])
    r = json.loads(text)
    r["_exit"], r["_log"] = out.returncode, out.stdout + out.stderr
    return r


def verified(r, what, watchers):
    for k in ("lost", "duplicated", "out_of_order", "mismatched_views", "errors"):
        eq(r[k], 0, "%s: %s (%s)" % (what, k, r["_log"]))
    eq(r["_exit"], 0, "%s: exit status\n%s" % (what, r["_log"]))
    check(r["verified"] and r["drained"] and r["passed"], "%s: not verified: %s", what, r["_log"])
    check(r["writes"] > 0, "%s: no writes", what)
    eq(r["watchers"], watchers, "%s: watchers" % what)


class Recorder(http.server.BaseHTTPRequestHandler):
    """Answers every GET with an empty PodList (or a watch that ends at
    once) and records the Authorization headers it saw."""
    protocol_version = "HTTP/1.1"
    seen = []

    def do_GET(self):
        Recorder.seen.append(self.headers.get("Authorization"))
        body = json.dumps({"kind": "PodList", "apiVersion": "v1",
                           "metadata": {"resourceVersion": "1"}, "items": []}).encode()
        if "watch=" in self.path:
            body = b""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def token_run(ca, server_cert, server_key, cert, key):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(server_cert, server_key)
    httpd.socket = ctx.wrap_socket(httpd.socket, server_side=True)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    defer(httpd.shutdown)
    p = subprocess.run([FLEET, "--server", "https://127.0.0.1:%d" % httpd.server_address[1],
                        "--resource", "pods", "--watchers", "3", "--http1", "--duration", "1",
                        "--drain-timeout", "1", "--cacert", ca, "--cert", cert, "--key", key,
                        "--token", "s3cr3t-token"],
                       capture_output=True, text=True, timeout=60)
    check(len(Recorder.seen) >= 3, "the recorder saw %d requests: %s", len(Recorder.seen),
          p.stdout + p.stderr)
    eq(set(Recorder.seen), {"Bearer s3cr3t-token"}, "Authorization of every request")


def main():
    check(os.access(FLEET, os.X_OK), "no fleet binary at %s", FLEET)
    ca = pki.CA()
    etcd = Etcd(tls=ca)
    seed_cluster(etcd, nodes=5, namespaces=2, deployments=10, replicas=10, configmaps=0)
    server_cert, server_key = ca.server("ringwatch")
    cert, key = ca.client("fleet", groups=("system:masters",))
    rw = Ringwatch(etcd, "--authorization-mode", "AlwaysAllow", resources="pods", tls={"cert": server_cert, "key": server_key,
                                                "ca": ca.cert, "client_ca": ca.cert})
    check(rw.url.startswith("https://"), "ringwatch serves TLS: %s", rw.url)

    r = fleet(rw, etcd, ca.cert, cert, key, "--watchers", 100, "--connections", 2,
              "--write-rate", 40)
    verified(r, "h2 over TLS", 100)
    eq(r["protocol"], "h2", "protocol")
    eq(r["delivered"], r["writes"] * 100, "h2 over TLS: delivered = writes x watchers")

    r = fleet(rw, etcd, ca.cert, cert, key, "--watchers", 50, "--http1", "--write-rate", 40)
    verified(r, "http1 over TLS", 50)
    eq(r["delivered"], r["writes"] * 50, "http1 over TLS: delivered = writes x watchers")

    r = fleet(rw, etcd, etcd.ca, etcd.cert, etcd.key, "--watchers", 40, "--connections", 2,
              "--target", "etcd", "--write-rate", 40, server=etcd.url)
    verified(r, "etcd over mTLS", 40)

    token_run(ca.cert, server_cert, server_key, cert, key)

    # A CA that does not sign ringwatch's certificate: nothing verifies.
    other = pki.CA(name="other-ca")
    r = fleet(rw, etcd, other.cert, cert, key, "--watchers", 5, "--write-rate", 10,
              "--drain-timeout", 2, duration=1)
    check(r["_exit"] != 0 and not r["passed"], "a wrong CA passed: %s", r["_log"])
    check("certificate verify failed" in r["_log"], "the fleet does not say why: %s", r["_log"])
    p = subprocess.run([FLEET, "--server", rw.url, "--cert", cert], capture_output=True,
                       text=True, timeout=20)
    eq(p.returncode, 2, "--cert without --key: exit status (%s)" % p.stderr)
    check("--cert" in p.stderr and "--key" in p.stderr, "stderr %r", p.stderr)


run(main)
