"""The TLS front (ringwatch(8) TLS): one port serving TLS (ALPN h2 and
http/1.1) next to plaintext on loopback, certificates made at test time
(pki.py).  Real clients: curl --cacert over HTTP/1.1 and HTTP/2 (ALPN),
nghttp, Python's http.client with ssl, a watch over HTTPS, a LIST of
several MiB over both protocols.  Bad input:
TLS garbage, an unknown ALPN (no_application_protocol, as Go), TLS 1.1,
TLS 1.2 under --tls-min-version VersionTLS13, plaintext on a TLS-only
port (Go's 400 for what looks like HTTP/1.x, else closed), a stalled or a
trickled handshake (closed --header-timeout after its start).
Client certificates (--client-ca-file) are asked for and never fail the
handshake, good, foreign, expired or absent.  Certificate rotation: SIGHUP, then a change of the
files alone, serve the new certificate to new connections while an open
watch keeps streaming; a broken pair keeps the old one (counted).
Startup: plaintext on a non-loopback --listen address is refused unless
--insecure-allow-plaintext; a missing certificate file is a clear error."""
import ssl

import pki
from harness import *

# These cases are about TLS and authentication, not authorization: TLS
# (or a non-loopback address) makes RBAC the default, which rbac_test and
# secure_front_test cover.
ALLOW = ("--authorization-mode", "AlwaysAllow")


def curl(rw, ca, *args):
    r = subprocess.run(["curl", "-sS", "-v", "--max-time", "10", "--cacert", ca] + list(args),
                       capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout, r.stderr


def s_client(port, *args):
    r = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port] + list(args),
                       input="", capture_output=True, text=True, timeout=30)
    return r.returncode, r.stdout + r.stderr


def served_cn(rw):
    """The CN of the certificate a new connection is served."""
    ctx = rw.ssl_context()
    with socket.create_connection(("127.0.0.1", rw.port), timeout=10) as sock:
        with ctx.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
            subject = dict(x[0] for x in tls.getpeercert()["subject"])
            return subject["commonName"]


def check_clients(rw, ca):
    path = rw.https_url + "/api/v1/namespaces/default/configmaps"
    rc, out, err = curl(rw, ca, "--http1.1", path)
    eq(rc, 0, "curl --http1.1 exit (%s)" % err[-500:])
    check("ALPN: server accepted http/1.1" in err, "curl h1 ALPN: %s", err[-800:])
    eq(json.loads(out)["kind"], "ConfigMapList", "curl h1 kind")
    rc, out, err = curl(rw, ca, "--http2", path)
    eq(rc, 0, "curl --http2 exit (%s)" % err[-500:])
    check("ALPN: server accepted h2" in err and "HTTP/2 200" in err, "curl h2: %s", err[-800:])
    eq(json.loads(out)["kind"], "ConfigMapList", "curl h2 kind")
    r = subprocess.run(["nghttp", "-v", rw.https_url + "/version"], capture_output=True,
                       text=True, timeout=30)
    eq(r.returncode, 0, "nghttp exit (%s)" % r.stderr[-500:])
    check("The negotiated protocol: h2" in r.stdout,
          "nghttp ALPN: %s", r.stdout[:800])
    check('"gitVersion"' in r.stdout, "nghttp /version body: %s", r.stdout[-500:])
    # no ALPN: the plaintext inside TLS is sniffed (HTTP/2's preface)
    ctx = rw.ssl_context()
    with socket.create_connection(("127.0.0.1", rw.port), timeout=10) as sock:
        with ctx.wrap_socket(sock, server_hostname="127.0.0.1") as tls:
            eq(tls.selected_alpn_protocol(), None, "ALPN without an offer")
            tls.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            head = tls.recv(9)
            eq(head[3], 4, "a SETTINGS frame back over TLS without ALPN (%r)" % head)
    # Python's http.client with ssl (ALPN http/1.1)
    status, _, body = rw.get("/api/v1/configmaps", context=rw.ssl_context(alpn=["http/1.1"]))
    eq(status, 200, "https GET status")
    eq(json.loads(body)["kind"], "ConfigMapList", "https GET kind")


def check_large_list(rw, etcd, ca):
    """A LIST of several MiB over HTTPS, HTTP/1.1 (http.client) and HTTP/2
    (curl), arrives whole."""
    blob = "b" * 8000
    rev = 0
    for batch in range(4):
        rev = etcd.txn(puts=[(cm_key("big", "cm%03d" % i), configmap("big", "cm%03d" % i,
                                                                     {"blob": blob}))
                             for i in range(batch * 100, batch * 100 + 100)])
    rw.wait_rv(rev, "/api/v1/namespaces/big/configmaps")
    status, _, body = rw.get("/api/v1/namespaces/big/configmaps",
                             context=rw.ssl_context(alpn=["http/1.1"]))
    eq(status, 200, "large LIST over h1")
    eq(len(json.loads(body)["items"]), 400, "large LIST over h1: items")
    rc, out, err = curl(rw, ca, "--http2", rw.https_url + "/api/v1/namespaces/big/configmaps")
    eq(rc, 0, "large LIST over h2 (%s)" % err[-300:])
    eq(len(json.loads(out)["items"]), 400, "large LIST over h2: items")


def check_bad_input(rw, ca):
    failed = rw.metric("ringwatch_tls_handshakes_total", result="failed")
    # garbage after a handshake record type: an alert or a reset, and the
    # server lives on
    try:
        rw.raw(b"\x16\x03\x01\x00\x05hello" + b"\x00" * 200, timeout=10)
    except ConnectionResetError:
        pass
    rc, out = s_client(rw.port, "-alpn", "foo", "-CAfile", ca)
    check(rc != 0 and "no application protocol" in out, "unknown ALPN: %s", out[-800:])
    rc, out = s_client(rw.port, "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0")
    check(rc != 0 and "protocol version" in out, "TLS 1.1: %s", out[-800:])
    status, _, _ = rw.get("/readyz")
    eq(status, 200, "readyz after bad TLS")
    # a handshake that stalls is closed after --header-timeout (2 s here)
    started = time.time()
    with socket.create_connection(("127.0.0.1", rw.port), timeout=10) as sock:
        sock.sendall(b"\x16\x03\x01")
        eq(sock.recv(100), b"", "a stalled handshake is closed")
    check(time.time() - started < 6, "stalled handshake closed after %.1fs",
          time.time() - started)
    # and one that trickles in (a byte every 0.5 s) too: the limit counts
    # from the handshake's start, not from its last byte
    started = time.time()
    with socket.create_connection(("127.0.0.1", rw.port), timeout=10) as sock:
        hello = b"\x16\x03\x01\x01\x00" + b"\x01" + b"\x00" * 255
        try:
            for i in range(len(hello)):
                sock.sendall(hello[i:i + 1])
                time.sleep(0.5)
                if time.time() - started > 8:
                    break
            closed = sock.recv(100) == b""
        except (ConnectionResetError, BrokenPipeError):
            closed = True
    check(closed and time.time() - started < 6,
          "a trickled handshake closed after --header-timeout (closed %s, %.1fs)",
          closed, time.time() - started)
    now = rw.metric("ringwatch_tls_handshakes_total", result="failed")
    check(now >= failed + 4, "failed handshakes counted: %s then %s", failed, now)
    # loopback --listen: plaintext is served next to TLS
    reply = rw.raw(b"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    check(reply.startswith(b"HTTP/1.1 200"), "plaintext on loopback next to TLS: %r", reply[:200])


def check_rotation(rw, ca, etcd, live_cert, live_key):
    eq(served_cn(rw), "server", "CN served first")
    w = rw.watch("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0")
    eq(w.status, 200, "watch over HTTPS")
    etcd.put(cm_key("default", "before"), configmap("default", "before"))
    eq(w.next_event(10)["object"]["metadata"]["name"], "before", "event before rotation")
    ok = rw.metric("ringwatch_tls_reloads_total", result="ok")
    bad = rw.metric("ringwatch_tls_reloads_total", result="failed")

    # a half-done rotation (new certificate, old key): kept, counted
    cert2, key2 = ca.server("server2")
    shutil.copy(cert2, live_cert)
    rw.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 10
    while rw.metric("ringwatch_tls_reloads_total", result="failed") <= bad:
        check(time.time() < deadline, "failed reload not counted:\n%s", rw.logtext())
        time.sleep(0.1)
    eq(served_cn(rw), "server", "CN after a failed reload")
    check("key does not match certificate" in rw.logtext(), "failed reload logged: %s",
          rw.logtext()[-1000:])

    # SIGHUP with the whole pair: new connections get it
    shutil.copy(key2, live_key)
    rw.proc.send_signal(signal.SIGHUP)
    deadline = time.time() + 10
    while served_cn(rw) != "server2":
        check(time.time() < deadline, "SIGHUP did not rotate:\n%s", rw.logtext())
        time.sleep(0.1)
    check(rw.metric("ringwatch_tls_reloads_total", result="ok") > ok, "reload counted")
    etcd.put(cm_key("default", "after"), configmap("default", "after"))
    eq(w.next_event(10)["object"]["metadata"]["name"], "after",
       "the watch opened before the rotation goes on")

    # the files change, no signal: picked up within seconds
    cert3, key3 = ca.server("server3")
    shutil.copy(key3, live_key + ".new")
    shutil.copy(cert3, live_cert + ".new")
    os.rename(live_key + ".new", live_key)
    os.rename(live_cert + ".new", live_cert)
    deadline = time.time() + 20
    while served_cn(rw) != "server3":
        check(time.time() < deadline, "a change of the files did not rotate:\n%s",
              rw.logtext())
        time.sleep(0.2)
    etcd.put(cm_key("default", "later"), configmap("default", "later"))
    eq(w.next_event(10)["object"]["metadata"]["name"], "later", "the watch still streams")
    w.close()


def check_client_certificates(etcd, ca, tls):
    """With --client-ca-file a certificate is asked for, never required,
    and one that does not verify does not fail the handshake (what it is
    worth is authentication's answer, not a TLS alert)."""
    rw = Ringwatch(etcd, *ALLOW, tls=dict(tls, client_ca=ca.cert))
    other = pki.CA(name="other-ca")
    for cert, key, what in (ca.client("alice", ["dev"]) + ("a good certificate",),
                            other.client("mallory") + ("a foreign certificate",),
                            ca.client("old", end="200101000000Z") + ("an expired certificate",),
                            (None, None, "no certificate")):
        args = ["--cert", cert, "--key", key] if cert else []
        rc, out, err = curl(rw, tls["ca"], "-o", "/dev/null", "-w", "%{http_code}",
                            *(args + [rw.https_url + "/version"]))
        eq(rc, 0, "handshake with %s (%s)" % (what, err[-500:]))
        check(out.isdigit() and out != "000", "an HTTP answer with %s: %r", what, out)
    rw.stop()


def check_tls13_only(etcd, tls):
    rw = Ringwatch(etcd, *ALLOW, "--tls-min-version", "VersionTLS13", tls=tls)
    rc, out = s_client(rw.port, "-tls1_2")
    check(rc != 0 and "protocol version" in out, "TLS 1.2 under VersionTLS13: %s", out[-800:])
    rc, out = s_client(rw.port, "-tls1_3", "-CAfile", tls["ca"])
    check(rc == 0 and "TLSv1.3" in out, "TLS 1.3 under VersionTLS13: %s", out[-800:])
    rw.stop()


def start_fails(etcd, *args):
    r = subprocess.run([RINGWATCH, "--upstream", etcd.url] + list(args),
                       capture_output=True, text=True, timeout=20)
    return r.returncode, r.stderr


def check_startup(etcd, tls):
    port = free_port()
    rc, err = start_fails(etcd, "--listen", "0.0.0.0:%d" % port)
    eq(rc, 2, "plaintext on 0.0.0.0 exit status (%s)" % err)
    check("non-loopback" in err and "--insecure-allow-plaintext" in err,
          "plaintext on 0.0.0.0 message: %s", err)
    rc, err = start_fails(etcd, "--listen", "127.0.0.1:%d" % port, "--tls-cert-file",
                          "/nonexistent.crt", "--tls-private-key-file", tls["key"])
    eq(rc, 2, "missing certificate exit status (%s)" % err)
    check("--tls-cert-file /nonexistent.crt: No such file or directory" in err,
          "missing certificate message: %s", err)
    rc, err = start_fails(etcd, "--tls-cert-file", tls["cert"])
    eq(rc, 2, "certificate without key exit status")
    check("--tls-cert-file given without --tls-private-key-file" in err, "message: %s", err)

    # --insecure-allow-plaintext: plaintext on 0.0.0.0 (reached on 127.0.0.1)
    rw = Ringwatch(etcd, *ALLOW, "--insecure-allow-plaintext", listen="0.0.0.0")
    eq(rw.get("/readyz")[0], 200, "plaintext with --insecure-allow-plaintext")
    rw.stop()

    # TLS on 0.0.0.0: TLS is served, plaintext gets Go's 400
    rw = Ringwatch(etcd, *ALLOW, tls=tls, listen="0.0.0.0")
    eq(rw.get("/readyz")[0], 200, "HTTPS on 0.0.0.0")
    reply = rw.raw(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
    check(reply.startswith(b"HTTP/1.0 400 Bad Request\r\n") and
          reply.endswith(b"\r\n\r\nClient sent an HTTP request to an HTTPS server.\n"),
          "plaintext on a TLS-only port: %r", reply)
    reply = rw.raw(b"HEAD /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
    check(reply.startswith(b"HTTP/1.0 400 Bad Request\r\n"), "HEAD on a TLS-only port: %r",
          reply)
    # not HTTP/1.x (h2c's preface, garbage): closed without an answer, as Go
    for data in (b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", b"hello there\r\n"):
        try:
            reply = rw.raw(data)
        except ConnectionResetError:
            reply = b""
        eq(reply, b"", "answer to %r on a TLS-only port" % data)
    # a refused client trickling bytes after its answer is closed all the same
    started = time.time()
    with socket.create_connection(("127.0.0.1", rw.port), timeout=10) as sock:
        sock.sendall(b"GET /readyz HTTP/1.1\r\n")
        try:
            while time.time() - started < 8:
                sock.sendall(b"x")
                time.sleep(0.5)
        except (ConnectionResetError, BrokenPipeError):
            pass
    check(time.time() - started < 6, "a trickling refused client closed after %.1fs",
          time.time() - started)
    rw.stop()


def main():
    etcd = Etcd()
    ca = pki.CA()
    cert, key = ca.server("server")
    live = tempfile.mkdtemp(prefix="rw-tls-live-")
    defer(lambda: shutil.rmtree(live, ignore_errors=True))
    live_cert, live_key = os.path.join(live, "tls.crt"), os.path.join(live, "tls.key")
    shutil.copy(cert, live_cert)
    shutil.copy(key, live_key)
    tls = {"cert": cert, "key": key, "ca": ca.cert}

    rw = Ringwatch(etcd, *ALLOW, "--header-timeout", "2",
                   tls={"cert": live_cert, "key": live_key, "ca": ca.cert})
    check("TLS: kTLS" in rw.logtext(), "kTLS line at startup: %s", rw.logtext())
    check(rw.metric("ringwatch_tls_ktls_connections", direction="send") is not None,
          "kTLS gauge on /metrics")
    if shutil.which("promtool"):
        p = subprocess.run(["promtool", "check", "metrics"], input=rw.get("/metrics")[2],
                           capture_output=True, timeout=20)
        eq(p.returncode, 0, "promtool check metrics (%s)" % (p.stdout + p.stderr).decode())
    check_clients(rw, ca.cert)
    check_large_list(rw, etcd, ca.cert)
    check_bad_input(rw, ca.cert)
    check_rotation(rw, ca, etcd, live_cert, live_key)
    rw.stop()
    check_client_certificates(etcd, ca, tls)
    check_tls13_only(etcd, tls)
    check_startup(etcd, tls)


run(main)
