"""HTTP/1.1 parsing as strict as RFC 9112: a lenient parser behind a proxy
that parses differently is a request-smuggling risk.

Every input of the table goes to ringwatch over a raw socket; each must get
its status.  Every refusal is a Kubernetes Status (kind, code, reason,
message) with Connection: close, and ringwatch then closes the connection
(the framing of what follows cannot be trusted); what RFC 9112 allows
(HTTP/1.2 as 1.1, LF alone, an empty line before the request, obs-text in
values, chunk extensions, trailers) is served.  Where RFC 9112 leaves a
choice, ringwatch answers as Go's net/http server (the kube-apiserver's):
501 for chunked with parameters, 417 for an Expect other than
100-continue, a "#" kept in the path (404, not stripped), 400 for an
invalid escape in the path, 400 at once for a request line alone
(HTTP/0.9: no waiting for --header-timeout), 200 for OPTIONS *.  Then
every 405 carries Allow, on HTTP/1.1 and on HTTP/2 (curl), and the limits
answer 414 and 431 with the limit in the message."""
import json
import shutil
import socket
import subprocess

from harness import *

H = b"Host: a\r\n"
CM = b"/api/v1/namespaces/ns/configmaps"
G = b"GET " + CM + b" HTTP/1.1\r\n"
P = b"POST " + CM + b" HTTP/1.1\r\n" + H
TE = P + b"Transfer-Encoding: chunked\r\n\r\n"

CASES = [
    # (what, bytes, status)
    ("well-formed", G + H + b"\r\n", 200),
    ("space inside a field name", G + H + b"Ho st: a\r\n\r\n", 400),
    ("whitespace before the colon", G + b"Host : a\r\n\r\n", 400),
    ("tab before the colon", G + H + b"Accept\t: */*\r\n\r\n", 400),
    ("HTTP/2.0 as text", b"GET /healthz HTTP/2.0\r\n" + H + b"\r\n", 505),
    ("HTTP/3.0", b"GET /healthz HTTP/3.0\r\n" + H + b"\r\n", 505),
    ("HTTP/0.9 with a version", b"GET /healthz HTTP/0.9\r\n" + H + b"\r\n",
     505),
    ("the HTTP/2 preface inside HTTP/1.1",
     G + H + b"\r\n" + b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", (200, 505)),
    ("HTTP/1.2 (as 1.1)", b"GET /healthz HTTP/1.2\r\n" + H + b"\r\n", 200),
    ("request line without a version", b"GET /healthz\r\n\r\n", 400),
    ("request line without a version, with Host",
     b"GET /healthz\r\n" + H + b"\r\n", 400),
    ("two-digit version", b"GET /healthz HTTP/11.1\r\n" + H + b"\r\n", 400),
    ("lower-case http", b"GET /healthz http/1.1\r\n" + H + b"\r\n", 400),
    ("two spaces after the method", b"GET  /healthz HTTP/1.1\r\n" + H +
     b"\r\n", 400),
    ("two spaces before the version", b"GET /healthz  HTTP/1.1\r\n" + H +
     b"\r\n", 400),
    ("tab as separator", b"GET\t/healthz HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("space after the version", b"GET /healthz HTTP/1.1 \r\n" + H + b"\r\n",
     400),
    ("obsolete line folding", G + H + b"X-A: a\r\n b\r\n\r\n", 400),
    ("whitespace line after the request line", G + b" " + H + b"\r\n", 400),
    ("NUL in a field value", G + H + b"X-A: a\x00b\r\n\r\n", 400),
    ("bare CR in a field value", G + H + b"X-A: a\rb\r\n\r\n", 400),
    ("control character in a field value", G + H + b"X-A: a\x1bb\r\n\r\n",
     400),
    ("DEL in a field value", G + H + b"X-A: a\x7fb\r\n\r\n", 400),
    ("obs-text in a field value", G + H + b"X-A: caf\xc3\xa9\r\n\r\n", 200),
    ("control character in the target", b"GET /healthz\x01 HTTP/1.1\r\n" +
     H + b"\r\n", 400),
    ("bare CR in the target", b"GET /heal\rthz HTTP/1.1\r\n" + H + b"\r\n",
     400),
    ("non-ASCII in the target", b"GET /healthz\xc3\xa9 HTTP/1.1\r\n" + H +
     b"\r\n", 400),
    ("target not in origin-form", b"GET healthz HTTP/1.1\r\n" + H + b"\r\n",
     400),
    ("asterisk-form with GET", b"GET * HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("invalid token in the method", b"G@T /healthz HTTP/1.1\r\n" + H +
     b"\r\n", 400),
    ("method token http-parser does not know", b"FOO /healthz HTTP/1.1\r\n" +
     H + b"\r\n", 501),
    ("invalid token in a field name", G + H + b"X(A): a\r\n\r\n", 400),
    ("field line without a name", G + H + b": a\r\n\r\n", 400),
    ("field line without a colon", G + H + b"X-A a\r\n\r\n", 400),
    ("Content-Length with Transfer-Encoding",
     P + b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
     400),
    ("differing Content-Length",
     P + b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400),
    ("repeated Content-Length",
     P + b"Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc", 400),
    ("Content-Length list", P + b"Content-Length: 3, 3\r\n\r\nabc", 400),
    ("Content-Length with a sign", P + b"Content-Length: +3\r\n\r\nabc", 400),
    ("Content-Length in hex", P + b"Content-Length: 0x3\r\n\r\nabc", 400),
    ("final Transfer-Encoding not chunked",
     P + b"Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", 400),
    ("Transfer-Encoding gzip alone", P + b"Transfer-Encoding: gzip\r\n\r\nabc",
     400),
    ("chunked twice", P + b"Transfer-Encoding: chunked\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
    ("unknown coding before chunked",
     P + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
    ("Transfer-Encoding in HTTP/1.0",
     b"POST /healthz HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
     400),
    ("chunk size with 0x", TE + b"0x3\r\nabc\r\n0\r\n\r\n", 400),
    ("negative chunk size", TE + b"-3\r\nabc\r\n0\r\n\r\n", 400),
    ("space after the chunk size", TE + b"3 \r\nabc\r\n0\r\n\r\n", 400),
    ("chunk size out of range", TE + b"ffffffffffffffffff\r\nabc\r\n0\r\n\r\n",
     400),
    ("chunk data not followed by CRLF", TE + b"3\r\nabcXX0\r\n\r\n", 400),
    ("control character in a chunk extension",
     TE + b"3;a\x01b\r\nabc\r\n0\r\n\r\n", 400),
    ("LF alone in chunk framing", TE + b"3\nabc\n0\n\n", 400),
    ("chunk extension and trailers (422: the create reads {})",
     TE + b"2;a=b\r\n{}\r\n0\r\nX-T: 1\r\n\r\n", 422),
    ("invalid trailer field", TE + b"0\r\nX T: 1\r\n\r\n", 400),
    ("HTTP/1.1 without Host", G + b"\r\n", 400),
    ("two Host fields", G + H + H + b"\r\n", 400),
    ("Host with a space", G + b"Host: a b\r\n\r\n", 400),
    ("empty Host", G + b"Host:\r\n\r\n", 200),
    ("HTTP/1.0 without Host", b"GET /healthz HTTP/1.0\r\n\r\n", 200),
    ("LF alone as line end", b"GET /healthz HTTP/1.1\nHost: a\n\n", 200),
    ("empty line before the request line",
     b"\r\nGET /healthz HTTP/1.1\r\n" + H + b"\r\n", 200),
    # as Go's net/http server (kube-apiserver's)
    ("chunked with a parameter",
     P + b"Transfer-Encoding: chunked;x=1\r\n\r\n0\r\n\r\n", 501),
    ("chunked, whitespace, a parameter",
     P + b"Transfer-Encoding: chunked ; x=1\r\n\r\n0\r\n\r\n", 501),
    ("a coding with a parameter, then chunked",
     P + b"Transfer-Encoding: gzip;q=1, chunked\r\n\r\n0\r\n\r\n", 501),
    ("a request line alone (HTTP/0.9), answered at once", b"GET /\r\n", 400),
    ("HTTP/2.0 request line alone, answered at once",
     b"GET /healthz HTTP/2.0\r\n", 505),
    ("a request line with a control character, answered at once",
     b"GET /heal\x01thz HTTP/1.1\r\n", 400),
    ("# in the path is part of it", b"GET /healthz#x HTTP/1.1\r\n" + H +
     b"\r\n", 404),
    ("# after a collection's name", b"GET " + CM + b"#x HTTP/1.1\r\n" + H +
     b"\r\n", 404),
    ("invalid escape in the path", b"GET /api/v1/namespaces/n%zz/configmaps "
     b"HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("escape cut short at the end of the path", b"GET /healthz% HTTP/1.1\r\n" +
     H + b"\r\n", 400),
    ("invalid escape in an absolute-form path",
     b"GET http://a/api/%zz HTTP/1.1\r\n" + H + b"\r\n", 400),
    ("Expect other than 100-continue", G + H + b"Expect: foo\r\n\r\n", 417),
    ("Expect other than 100-continue on HTTP/1.0",
     b"GET /healthz HTTP/1.0\r\nExpect: foo\r\n\r\n", 417),
    ("Expect listing 100-continue", G + H + b"Expect: foo, 100-Continue\r\n"
     b"\r\n", 200),
    ("empty Expect", G + H + b"Expect:\r\n\r\n", 200),
    ("OPTIONS *", b"OPTIONS * HTTP/1.1\r\n" + H + b"\r\n", 200),
]


def response(sock, timeout=5):
    """Reads one response; returns (status, headers, body, closed after)."""
    sock.settimeout(timeout)
    buf = b""
    while b"\r\n\r\n" not in buf:
        data = sock.recv(65536)
        if not data:
            raise Failure("closed before a response: %r" % buf)
        buf += data
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        data = sock.recv(65536)
        if not data:
            break
        body += data
    closed = False
    if headers.get("connection") == "close":
        try:
            while sock.recv(65536):
                pass
            closed = True
        except ConnectionResetError:
            closed = True
        except socket.timeout:
            pass
    return status, headers, body[:length], closed


def check_refusal(what, status, headers, body, closed):
    st = json.loads(body)
    check(st.get("kind") == "Status" and st.get("code") == status and
          st.get("reason") and st.get("message"),
          "%s: not a Kubernetes Status: %r", what, body[:300])
    eq(headers.get("connection"), "close", "%s: Connection" % what)
    check(closed, "%s: connection not closed after the refusal", what)


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, resources="configmaps")
    failed = []
    for what, data, want in CASES:
        s = socket.create_connection(("127.0.0.1", rw.port), timeout=5)
        try:
            s.sendall(data)
            status, headers, body, closed = response(s)
            if status != want and status not in (want if isinstance(
                    want, tuple) else ()):
                failed.append("%s: %d, want %s (%s)" % (what, status, want,
                                                         body[:160]))
            elif status >= 400 and status not in (404, 405, 422):
                check_refusal(what, status, headers, body, closed)
        except Failure as e:
            failed.append(str(e))
        except socket.timeout:
            failed.append("%s: no answer within 5 s" % what)
        finally:
            s.close()
    check(not failed, "%d of %d inputs answered wrong:\n  %s", len(failed),
          len(CASES), "\n  ".join(failed))

    # pipelined after a refusal: the second request is never served
    s = socket.create_connection(("127.0.0.1", rw.port), timeout=5)
    s.sendall(G + H + b"X-A: a\r\n b\r\n\r\n" + G + H + b"\r\n")
    status, headers, body, closed = response(s)
    eq(status, 400, "obs-fold then a pipelined request")
    check(closed, "pipelined request after a refusal: connection not closed")
    s.close()

    # limits (--max-header-bytes is not an option: the front's 64 KiB)
    s = socket.create_connection(("127.0.0.1", rw.port), timeout=5)
    s.sendall(b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n" + H + b"\r\n")
    status, headers, body, closed = response(s)
    eq(status, 414, "request line over the limit")
    check_refusal("request line over the limit", status, headers, body, closed)
    check(b"65536 bytes" in body, "414 message without the limit: %r", body)
    s.close()
    s = socket.create_connection(("127.0.0.1", rw.port), timeout=5)
    s.sendall(G + H + b"".join(b"X-%d: %s\r\n" % (i, b"a" * 1000)
                               for i in range(70)) + b"\r\n")
    status, headers, body, closed = response(s)
    eq(status, 431, "header section over the limit")
    check_refusal("header section over the limit", status, headers, body,
                  closed)
    s.close()

    # 405 carries Allow (RFC 9110 15.5.6), HTTP/1.1 and HTTP/2
    # (a collection takes POST, a create: write_test.py)
    for method, allow in ((b"PUT", "GET, HEAD, POST"), (b"DELETE", "GET, HEAD, POST"),
                          (b"PATCH", "GET, HEAD, POST"), (b"OPTIONS", "GET, HEAD")):
        s = socket.create_connection(("127.0.0.1", rw.port), timeout=5)
        s.sendall(method + b" " + CM + b" HTTP/1.1\r\n" + H +
                  b"Content-Length: 2\r\n\r\n{}")
        status, headers, body, _ = response(s)
        eq((status, headers.get("allow")), (405, allow),
           "h1 %s: status and Allow" % method.decode())
        eq(json.loads(body)["reason"], "MethodNotAllowed", "405 reason")
        s.close()
    # OPTIONS *: 200 with Content-Length 0, as Go's server, both protocols
    s = socket.create_connection(("127.0.0.1", rw.port), timeout=5)
    s.sendall(b"OPTIONS * HTTP/1.1\r\n" + H + b"\r\n")
    status, headers, body, _ = response(s)
    eq((status, headers.get("content-length"), body), (200, "0", b""),
       "h1 OPTIONS *")
    s.close()
    if shutil.which("curl"):
        p = subprocess.run(["curl", "-sS", "--http2-prior-knowledge", "-m", "10",
                            "-D", "-", "-o", "/dev/null", "-X", "OPTIONS",
                            "--request-target", "*", rw.url],
                           capture_output=True, timeout=30)
        check(p.stdout.decode().lower().startswith("http/2 200"),
              "h2 OPTIONS *: %r %r", p.stdout, p.stderr)
        for path in ("/api/v1/namespaces/ns/configmaps", "/healthz",
                     "/nowhere"):
            p = subprocess.run(["curl", "-sS", "--http2-prior-knowledge",
                                "-m", "10", "-D", "-", "-o", "/dev/null",
                                "-X", "DELETE", rw.url + path],
                               capture_output=True, timeout=30)
            head = p.stdout.decode().lower()
            check(head.startswith("http/2 405") and
                  ("allow: get, head, post" if "configmaps" in path
                   else "allow: get, head\r") in head,
                  "h2 DELETE %s: %r", path, head)


run(main)
