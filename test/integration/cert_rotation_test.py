"""Certificate rotation under load, on secure_front_test's deployment
(etcd with mTLS, ringwatch on 0.0.0.0 with TLS, authentication and RBAC):
ringwatch-fleet (--cacert/--cert/--key, as user "fleet" whom a
ClusterRoleBinding lets list and watch pods) holds 1,000 HTTP/2 watches
on 10 TLS connections while a writer updates pods in etcd.  Once every
watch is open, the server's certificate and key files are replaced by a
new pair from the same CA and ringwatch gets SIGHUP: a new connection
sees the new certificate, the old connections are not redone (no new
handshakes but the probes'), the 1,000 watches stay open, and every
write, those after the rotation included, reaches every watcher (the
fleet's report: nothing lost, duplicated or out of order)."""
import hashlib
import signal
import ssl

from harness import *
from rbac_test import binding, key, obj, rule, subject
from secure_front_test import Deployment

FLEET = os.environ.get("RINGWATCH_FLEET", os.path.join(TOP, "build", "ringwatch-fleet"))
WATCHERS, CONNECTIONS, DURATION, RATE = 1000, 10, 14, 20


def peer_fingerprint(d):
    """sha256 of the certificate a new TLS connection is served."""
    ctx = d.context()
    with socket.create_connection(("127.0.0.1", d.rw.port), timeout=10) as s:
        with ctx.wrap_socket(s, server_hostname="127.0.0.1") as t:
            return hashlib.sha256(t.getpeercert(binary_form=True)).hexdigest()


def file_fingerprint(pem):
    with open(pem) as f:
        der = ssl.PEM_cert_to_DER_cert(f.read())
    return hashlib.sha256(der).hexdigest()


def wait_metric(d, want, what, timeout, name, **labels):
    deadline = time.time() + timeout
    while True:
        got = d.metric(name, **labels)
        if want(got):
            return got
        check(time.time() < deadline, "%s: %s=%s after %ds", what, name, got, timeout)
        time.sleep(0.2)


def main():
    check(os.access(FLEET, os.X_OK), "no fleet binary at %s", FLEET)
    d = Deployment()
    fleet_cert, fleet_key = d.ca.client("fleet", ("load",))
    d.etcd.put(key("clusterroles", "fleet"), obj("ClusterRole", "fleet", rules=[
        rule(["get", "list", "watch"], ["pods"])]))
    rev = d.etcd.put(key("clusterrolebindings", "fleet"), binding(
        "ClusterRoleBinding", "fleet", None, "ClusterRole", "fleet", [subject("User", "fleet")]))
    d.wait_rv(rev)
    old = peer_fingerprint(d)
    eq(old, file_fingerprint(d.server_cert), "the served certificate before the rotation")

    report = os.path.join(d.tmp, "fleet.json")
    started = time.time()
    fleet = subprocess.Popen(
        [FLEET, "--server", d.rw.https_url, "--resource", "pods",
         "--cacert", d.ca.cert, "--cert", fleet_cert, "--key", fleet_key,
         "--watchers", str(WATCHERS), "--connections", str(CONNECTIONS),
         "--duration", str(DURATION), "--write-rate", str(RATE), "--drain-timeout", "20",
         "--etcd", d.etcd.url, "--etcd-cacert", d.etcd.ca, "--etcd-cert", d.etcd.cert,
         "--etcd-key", d.etcd.key, "--report", report],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    defer(lambda: fleet.poll() is None and fleet.kill())
    wait_metric(d, lambda v: v == WATCHERS, "the fleet's watches", DURATION - 6,
                "ringwatch_watchers", resource="pods", protocol="h2")
    opened = time.time() - started
    handshakes = d.metric("ringwatch_tls_handshakes_total", result="ok")
    probes = d.connections
    reloads = d.metric("ringwatch_tls_reloads_total", result="ok")

    # rotate: a new pair from the same CA, moved over the old files by
    # rename (both at once, as the man page advises), then SIGHUP
    cert, key_ = d.ca.server("ringwatch-2")
    os.rename(key_, d.server_key)
    os.rename(cert, d.server_cert)
    rotated = time.time()
    d.rw.proc.send_signal(signal.SIGHUP)
    wait_metric(d, lambda v: v > reloads, "the reload", 10, "ringwatch_tls_reloads_total",
                result="ok")
    reloaded = time.time() - rotated
    new = peer_fingerprint(d)
    eq(new, file_fingerprint(d.server_cert), "the certificate a new connection sees")
    check(new != old, "the certificate did not change")
    eq(d.metric("ringwatch_watchers", resource="pods", protocol="h2"), WATCHERS,
       "watches open after the rotation")
    check(time.time() < started + DURATION - 3,
          "the rotation came too late for writes after it (%.1fs of %ds)",
          time.time() - started, DURATION)

    out, _ = fleet.communicate(timeout=DURATION + 60)
    with open(report) as f:
        r = json.load(f)
    for k in ("lost", "duplicated", "out_of_order", "mismatched_views", "errors"):
        eq(r[k], 0, "fleet %s (%s)" % (k, out[-2000:]))
    eq(fleet.returncode, 0, "fleet exit status (%s)" % out[-2000:])
    check(r["verified"] and r["drained"] and r["passed"], "fleet not verified: %s", out[-2000:])
    eq(r["watchers"], WATCHERS, "fleet watchers")
    eq(r["protocol"], "h2", "fleet protocol")
    eq(r["delivered"], r["writes"] * WATCHERS, "delivered = writes x watchers")
    after = r["writes"] * (started + DURATION - rotated) / DURATION
    # the probes here (/metrics, peer_fingerprint) are the only new
    # handshakes: none of the fleet's connections was redone
    made = d.metric("ringwatch_tls_handshakes_total", result="ok") - handshakes
    eq(made, d.connections - probes + 1, "TLS handshakes since the watches opened")
    print("%d watches open in %.1fs; rotation at %.1fs, reload seen within %.2fs, new "
          "certificate on a new connection; %d writes (about %d after it) reached all %d "
          "watches: %d deliveries, nothing lost; %.1fs in all"
          % (WATCHERS, opened, rotated - started, reloaded, r["writes"], after, WATCHERS,
             r["delivered"], time.time() - started))


if __name__ == "__main__":
    run(main)
