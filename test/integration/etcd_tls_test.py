"""ringwatch against an etcd that serves TLS and requires client
certificates (--cert-file, --key-file, --client-cert-auth,
--trusted-ca-file), certificates made now with the openssl command line
(pki.py): LIST and WATCH end to end over mTLS, a member list whose first
member is down, and every bad case as a clear error: files checked at
startup (exit 2 naming the flag and the file), a handshake that fails
against every member at startup (exit 1 with the reason), one that fails
after the store was reached once (logged, counted, on /readyz), and a
member that refuses connections (retried, not fatal)."""
import os
import subprocess

from harness import *
import pki


def start_fails(etcd_url, *args, timeout=20):
    """Runs ringwatch until it exits (it must, within timeout); returns
    (status, output)."""
    cmd = [RINGWATCH, "--listen", "127.0.0.1:%d" % free_port(), "--etcd", etcd_url,
           "--resources", "configmaps"] + list(args)
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure("ringwatch %s did not exit in %ds" % (" ".join(args), timeout))
    return r.returncode, r.stdout + r.stderr


def expect_exit(status, want, out, *words):
    """The exit status, and the last line says it all: a configuration
    error (2) is that one line; a handshake failure (1) is logged once,
    then the exit names the reason."""
    eq(status, want, "exit status (output %r)" % out)
    last = out.strip().splitlines()[-1]
    for w in words:
        check(w in last, "last line %r lacks %r (output %r)", last, w, out)
    if want == 2:
        eq(len(out.strip().splitlines()), 1, "lines of %r" % out)
    else:
        check("exiting" in last, "last line %r does not say ringwatch exits", last)
        eq(out.count("TLS handshake failed"), 1, "handshake failures logged in %r" % out)


def main():
    ca = pki.CA()
    etcd = Etcd(tls=ca)
    check(etcd.url.startswith("https://127.0.0.1:"), "etcd serves https: %s", etcd.url)
    tls = etcd.ringwatch_args()

    # LIST and WATCH end to end over mTLS.  The list is large (1.2 MB in
    # one Range page): its records arrive faster than one read takes them,
    # and must reach the HTTP/2 parser in order.
    for batch in range(10):
        etcd.txn(puts=[(cm_key("big", "c%03d" % i), configmap("big", "c%03d" % i,
                                                             {"v": "x" * 4000}))
                       for i in range(batch * 30, batch * 30 + 30)])
    r0 = etcd.put(cm_key("ns", "a"), configmap("ns", "a"))
    rw = Ringwatch(etcd, *tls, resources="configmaps")
    lst = rw.wait_rv(r0)
    eq(len(lst["items"]), 301, "LIST over mTLS")
    eq(lst["items"][-1]["metadata"]["name"], "a", "LIST over mTLS: the last item")
    w = rw.watch("/api/v1/configmaps?watch=true&resourceVersion=%d" % r0)
    r1 = etcd.put(cm_key("ns", "b"), configmap("ns", "b"))
    ev = w.next_event(10)
    eq((ev["type"], ev["object"]["metadata"]["name"], rv_of(ev["object"])), ("ADDED", "b", r1),
       "WATCH over mTLS")
    w.close()
    eq(rw.metric("ringwatch_upstream_connected", store="etcd"), 1, "connected")
    rw.stop()

    # A member list: the first member refuses connections, the second is
    # etcd; ringwatch moves on to it.
    dead = "https://127.0.0.1:%d" % free_port()
    rw = Ringwatch(etcd, *tls, resources="configmaps", upstream=dead + "," + etcd.url)
    rw.wait_rv(r1)
    rw.stop()

    # Startup errors: the files (exit 2, naming the flag and the file).
    missing = os.path.join(ca.dir, "missing.key")
    status, out = start_fails(etcd.url, "--etcd-cafile", etcd.ca, "--etcd-certfile", etcd.cert,
                              "--etcd-keyfile", missing)
    expect_exit(status, 2, out, "--etcd-keyfile", missing, "No such file")
    status, out = start_fails(etcd.url, "--etcd-certfile", etcd.cert)
    expect_exit(status, 2, out, "--etcd-certfile", "without --etcd-keyfile")
    status, out = start_fails(etcd.url, "--etcd-cafile", etcd.key)
    expect_exit(status, 2, out, "--etcd-cafile", etcd.key)
    status, out = start_fails(etcd.url, "--etcd-cafile", etcd.ca, "--etcd-certfile", etcd.cert,
                              "--etcd-keyfile", ca.key)
    expect_exit(status, 2, out, "--etcd-keyfile", ca.key)
    status, out = start_fails(etcd.url.replace("https", "http"), "--etcd-cafile", etcd.ca)
    expect_exit(status, 2, out, "--etcd-cafile", "https://")

    # Handshake failures at startup against every member: exit 1 with the
    # reason.  Our CA does not verify etcd's certificate:
    other = pki.CA(name="other-ca")
    status, out = start_fails(etcd.url, "--etcd-cafile", other.cert, "--etcd-certfile",
                              etcd.cert, "--etcd-keyfile", etcd.key)
    expect_exit(status, 1, out, "TLS handshake", "certificate verify failed")
    # etcd refuses our client certificate: one from another CA, an
    # expired one.
    foreign_cert, foreign_key = other.client("root")
    status, out = start_fails(etcd.url, "--etcd-cafile", etcd.ca, "--etcd-certfile",
                              foreign_cert, "--etcd-keyfile", foreign_key)
    expect_exit(status, 1, out, "TLS handshake")
    old_cert, old_key = ca.client("root", name="expired", start="200101000000Z",
                                  end="200201000000Z")
    status, out = start_fails(etcd.url, "--etcd-cafile", etcd.ca, "--etcd-certfile", old_cert,
                              "--etcd-keyfile", old_key)
    expect_exit(status, 1, out, "TLS handshake")
    # No server certificate at all (a member that refuses connections) is
    # not a TLS failure: ringwatch keeps retrying, not ready.
    rw = Ringwatch(etcd, *tls, resources="configmaps", upstream=dead, wait=False)
    time.sleep(2)
    check(rw.proc.poll() is None, "ringwatch exited on a refused connection:\n%s", rw.logtext())
    status, _, body = rw.get("/readyz?verbose")
    eq(status, 500, "/readyz while the member refuses connections")
    check(b"[-]upstream failed: not connected" in body, "/readyz says %r", body)
    rw.stop()

    # A handshake failure after etcd was reached once (etcd now serves a
    # certificate our CA does not sign): not fatal, logged once with its
    # reason, counted, and on /readyz.
    rw = Ringwatch(etcd, *tls, resources="configmaps")
    failures = rw.metric("ringwatch_upstream_connect_failures_total", store="etcd")
    etcd.halt()
    bad_cert, bad_key = other.server("etcd-other")
    etcd.ssl.load_verify_locations(other.cert)  # the harness's checks only
    etcd.resume("--cert-file=" + bad_cert, "--key-file=" + bad_key)
    deadline = time.time() + 15
    body = b""
    while time.time() < deadline and b"TLS handshake" not in body:
        time.sleep(0.2)
        _, _, body = rw.get("/readyz?verbose")
    check(b"[-]upstream failed: TLS handshake: " in body, "/readyz says %r", body)
    check(rw.metric("ringwatch_upstream_connect_failures_total", store="etcd") > failures,
          "handshake failures counted")
    time.sleep(1.5)  # several more attempts
    log = rw.logtext()
    eq(log.count("TLS handshake failed"), 1, "handshake failure logged once:\n" + log)
    check(rw.proc.poll() is None, "ringwatch exited:\n%s", log)
    rw.stop()


run(main)
