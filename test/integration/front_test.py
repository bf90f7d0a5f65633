#!/usr/bin/python3
"""front_test.py: the serving front (listener, conn_h1, conn_h2, stream)
against real clients: curl (HTTP/1.1 and h2c prior knowledge), nghttp,
h2load, and raw sockets for what clients do not do on purpose (pipelining,
HTTP/1.0, malformed requests, slow reading, disconnects, a minimal h2c
client for flow control and RST_STREAM, slowloris requests trickled a byte
at a time, watchers that never read).

Runs $FRONT_SERVER (test/front_server) on 127.0.0.1 with a kernel-chosen
port, then once more under valgrind for a subset when valgrind is installed
and the build is not sanitized (FRONT_TEST_VALGRIND=0 skips that).
Shutdown under load is checked on any build; built with --enable-asan,
LeakSanitizer then tells leaks of connections freed at shutdown.  Every
wait is bounded.  Exit status: 0 pass, 1 fail, 77 skip (automake), 99 hard
error.
"""
import json
import os
import re
import select
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

from h2raw import (H2_PREFACE, H2Client, Reader, h2_frame,
                   h2_request_headers, read_some)

HOST = "127.0.0.1"
SERVER = os.environ.get("FRONT_SERVER") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "front_server")
FILL_HIGH_WATER = 64 * 1024

failures = []
logs = []


def sanitized():
    """An ASan build holds freed memory in quarantine: RSS says nothing."""
    try:
        with open(SERVER, "rb") as f:
            return b"__asan_init" in f.read()
    except OSError:
        return False


def check_rss(grow, what):
    if sanitized():
        print("skip %s (AddressSanitizer build)" % what)
    else:
        check(grow < 1024, what)


def check(cond, what):
    if cond:
        print("ok   " + what, flush=True)
    else:
        print("FAIL " + what, flush=True)
        failures.append(what)
    return cond


def pattern(i, size):
    """Payload of frame i of /stream: byte k is 'a' + (i + k) % 26, then
    a newline."""
    body = bytes(97 + (i + k) % 26 for k in range(size - 1))
    return body + b"\n"


def expected_stream(n, size):
    return b"".join(pattern(i, size) for i in range(n))


# ---- the server ----

class Server:
    def __init__(self, valgrind=False, max_header_bytes=65536,
                 max_connections=10000, idle_timeout=90, header_timeout=32,
                 env=None):
        self.log = tempfile.NamedTemporaryFile(prefix="front_server-",
                                               suffix=".log", delete=False)
        logs.append(self.log.name)
        args = [SERVER, "0", str(max_header_bytes), str(max_connections),
                str(idle_timeout), str(header_timeout)]
        if valgrind:
            args = ["valgrind", "--quiet", "--leak-check=full",
                    "--show-leak-kinds=definite,indirect",
                    "--errors-for-leak-kinds=definite,indirect",
                    "--error-exitcode=66"] + args
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                                     stderr=self.log, env=env)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        if not ready:
            self.stop()
            raise RuntimeError("front_server did not print its port")
        line = self.proc.stdout.readline().decode()
        m = re.match(r"port (\d+)", line)
        if not m:
            self.stop()
            raise RuntimeError("front_server said %r" % line)
        self.port = int(m.group(1))
        self.url = "http://%s:%d" % (HOST, self.port)

    def alive(self):
        return self.proc.poll() is None

    def rss_kib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return -1

    def stop(self, timeout=60):
        """SIGTERM, wait; returns the exit status (None if killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
                return None
        return self.proc.returncode

    def stderr(self):
        with open(self.log.name, "rb") as f:
            return f.read().decode(errors="replace")


def stats(srv):
    with socket.create_connection((HOST, srv.port), timeout=10) as s:
        s.sendall(b"GET /stats HTTP/1.1\r\nHost: x\r\nConnection: close"
                  b"\r\n\r\n")
        status, headers, body = read_response(s)
    return json.loads(body)


def wait_for(srv, key, value, timeout=5.0):
    """Polls /stats until stats[key] == value; returns the last stats."""
    deadline = time.time() + timeout
    while True:
        st = stats(srv)
        if st[key] == value or time.time() > deadline:
            return st
        time.sleep(0.05)


# ---- HTTP/1.x over a raw socket ----

def read_response(sock_or_reader, head=False):
    """One HTTP/1.x response: (status, {lower name: value}, body).  A body
    without length or chunking is read to EOF."""
    r = sock_or_reader if isinstance(sock_or_reader, Reader) else \
        Reader(sock_or_reader)
    head_bytes = r.until(b"\r\n\r\n").decode("latin-1")
    lines = head_bytes.split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if head or status in (100, 204, 304):
        return status, headers, b""
    if headers.get("transfer-encoding") == "chunked":
        body = b""
        while True:
            size = int(r.until(b"\r\n").strip(), 16)
            if size == 0:
                r.until(b"\r\n")
                return status, headers, body
            body += r.exactly(size)
            check_crlf = r.exactly(2)
            if check_crlf != b"\r\n":
                raise ValueError("chunk not followed by CRLF")
    if "content-length" in headers:
        return status, headers, r.exactly(int(headers["content-length"]))
    return status, headers, r.to_eof()


def raw(srv, data, timeout=10.0):
    s = socket.create_connection((HOST, srv.port), timeout=timeout)
    if data:
        s.sendall(data)
    return s


def closed_by_server(sock, timeout=5.0):
    """True if the server closes the connection (EOF or reset) in time,
    discarding anything it still sends."""
    deadline = time.time() + timeout
    try:
        while time.time() < deadline:
            sock.settimeout(max(0.01, deadline - time.time()))
            if not sock.recv(65536):
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
    return False


# ---- external clients ----

def run(args, timeout=60, ok_codes=(0,)):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    if p.returncode not in ok_codes:
        print("  %s -> %d: %s" % (" ".join(args), p.returncode,
                                  p.stderr.decode(errors="replace")[-500:]))
    return p


# ---- the checks ----

def t_curl_h1(srv):
    small = run(["curl", "-sS", "--http1.1", "-m", "20", "-o", "/dev/null",
                 "-o", "/dev/null", "-w", "%{http_code}\n", "-v",
                 srv.url + "/small", srv.url + "/small"])
    check(small.returncode == 0 and
          small.stdout.decode().split() == ["200", "200"] and
          b"Re-using existing connection" in small.stderr,
          "curl h1: two requests on one keep-alive connection")
    n, size = 300, 777
    p = run(["curl", "-sS", "--http1.1", "-m", "20", "-D", "-",
             srv.url + "/stream?n=%d&size=%d" % (n, size)])
    head, _, body = p.stdout.partition(b"\r\n\r\n")
    check(p.returncode == 0 and b"Transfer-Encoding: chunked" in head and
          body == expected_stream(n, size),
          "curl h1: chunked stream of %d frames x %d bytes intact" % (n, size))
    p = run(["curl", "-sS", "--http1.1", "-m", "20", "-H", "Accept: a/b",
             "-A", "tester/1", srv.url + "/echo?x=1&y=%20"])
    e = json.loads(p.stdout) if p.returncode == 0 else {}
    check(e.get("path") == "/echo" and e.get("query") == "x=1&y=%20" and
          e.get("accept") == "a/b" and e.get("user_agent") == "tester/1" and
          e.get("http_version") == 11 and e.get("protocol") == 1,
          "curl h1: request fields reach the handler")
    p = run(["curl", "-sS", "--http1.1", "-m", "20", "-D", "-",
             srv.url + "/status"])
    head, _, body = p.stdout.partition(b"\r\n\r\n")
    st = json.loads(body) if body else {}
    check(b" 429 " in head.split(b"\r\n")[0] and
          b"retry-after: 1" in head.lower() and
          st.get("kind") == "Status" and st.get("code") == 429,
          "curl h1: Status body and an added header")
    p = run(["curl", "-sS", "--http1.1", "-m", "20", "-w", "%{http_code}",
             "-o", "/dev/null", srv.url + "/nowhere"])
    check(p.stdout == b"404", "curl h1: 404 for an unknown path")
    p = run(["curl", "-sS", "--http1.1", "-m", "20", "-I",
             srv.url + "/small"])
    check(p.returncode == 0 and b"Content-Length: 51" in p.stdout,
          "curl h1: HEAD keeps Content-Length")


def t_curl_h2(srv):
    n, size = 300, 777
    p = run(["curl", "-sS", "--http2-prior-knowledge", "-m", "20",
             srv.url + "/stream?n=%d&size=%d" % (n, size)])
    check(p.returncode == 0 and p.stdout == expected_stream(n, size),
          "curl h2: stream of %d frames x %d bytes intact" % (n, size))
    p = run(["curl", "-sS", "--http2-prior-knowledge", "-m", "20",
             "-H", "Accept: a/b", srv.url + "/echo?q=1"])
    e = json.loads(p.stdout) if p.returncode == 0 else {}
    check(e.get("path") == "/echo" and e.get("query") == "q=1" and
          e.get("accept") == "a/b" and e.get("http_version") == 20 and
          e.get("protocol") == 2,
          "curl h2: request fields reach the handler")
    p = run(["curl", "-sS", "--http2-prior-knowledge", "-m", "20", "-I",
             srv.url + "/stream?n=3&size=10"])
    check(p.returncode == 0 and p.stdout.startswith(b"HTTP/2 200"),
          "curl h2: HEAD of a streamed body")
    big = 3 * 1024 * 1024 + 7
    p = run(["curl", "-sS", "--http2-prior-knowledge", "-m", "20",
             srv.url + "/big?size=%d" % big])
    check(p.returncode == 0 and p.stdout == b"x" * big,
          "curl h2: %d-byte body across windows and frames" % big)


def t_nghttp(srv):
    n, size = 200, 1000
    urls = [srv.url + "/small", srv.url + "/stream?n=%d&size=%d" % (n, size),
            srv.url + "/small"]
    p = run(["nghttp", "-t", "20", "-s"] + urls)
    out = run(["nghttp", "-t", "20"] + urls[1:2]).stdout
    check(p.returncode == 0 and b"/small" in p.stdout and
          out == expected_stream(n, size),
          "nghttp: 3 streams on one connection; stream intact")


def t_h2load(srv):
    p = run(["h2load", "-n", "2000", "-c", "10", "-m", "20",
             srv.url + "/small"], timeout=120)
    m = re.search(rb"requests: (\d+) total, (\d+) started, (\d+) done, "
                  rb"(\d+) succeeded, (\d+) failed, (\d+) errored", p.stdout)
    ok = m and m.group(4) == b"2000" and m.group(5) == b"0" and \
        m.group(6) == b"0"
    check(bool(ok), "h2load -n 2000 -c 10 -m 20: all succeeded")


def t_pipelining(srv):
    s = raw(srv, b"GET /small HTTP/1.1\r\nHost: x\r\n\r\n"
                 b"HEAD /stream?n=3&size=5 HTTP/1.1\r\nHost: x\r\n\r\n"
                 b"GET /stream?n=3&size=5 HTTP/1.1\r\nHost: x\r\n\r\n"
                 b"HEAD /small HTTP/1.1\r\nHost: x\r\n\r\n"
                 b"GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    r = Reader(s)
    a = read_response(r)
    b = read_response(r, head=True)
    c = read_response(r)
    d = read_response(r, head=True)
    e = read_response(r)
    rest = r.to_eof()
    check(a[0] == 200 and a[2].startswith(b'{"kind":"Small"') and
          b[1].get("transfer-encoding") == "chunked" and
          c[2] == expected_stream(3, 5) and
          d[1].get("content-length") == "51" and
          json.loads(e[2])["path"] == "/echo" and
          e[1].get("connection") == "close" and rest == b"",
          "pipelined requests in one write, HEAD without body, then close")
    s.close()


def t_h1_more(srv):
    s = raw(srv, b"GET http://example.org:8080/echo?x=1 HTTP/1.1\r\n"
                 b"Host: example.org\r\n\r\n")
    st, h, body = read_response(s)
    e = json.loads(body)
    check(st == 200 and e["path"] == "/echo" and e["query"] == "x=1",
          "absolute-form request target: path and query")
    s.close()
    s = raw(srv, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                 b"Expect: 100-continue\r\n\r\n")
    r = Reader(s)
    interim = r.until(b"\r\n\r\n")
    s.sendall(b"hello")
    st, h, body = read_response(r)
    check(interim == b"HTTP/1.1 100 Continue\r\n\r\n" and st == 200 and
          json.loads(body)["method"] == "POST",
          "Expect: 100-continue gets 100 before the body")
    s.close()
    # a client that half-closes after its requests still gets the answers
    s = raw(srv, b"GET /small HTTP/1.1\r\nHost: x\r\n\r\n"
                 b"GET /stream?n=2&size=4 HTTP/1.1\r\nHost: x\r\n\r\n")
    s.shutdown(socket.SHUT_WR)
    r = Reader(s)
    a, b = read_response(r), read_response(r)
    check(a[0] == 200 and b[2] == expected_stream(2, 4) and
          r.to_eof() == b"",
          "client half-close after pipelined requests: both answered, "
          "then closed")
    s.close()


def t_h2_more(srv, limit):
    # A body after the header block: a POST is answered once its body is
    # complete (END_STREAM), the body kept for the handler (a raw client
    # here, to frame the DATA exactly).
    c = H2Client(srv.port)
    body = b"b" * 50000
    frames = h2_frame(1, 0x4, 1, h2_request_headers("/echo", "POST"))
    for off in range(0, len(body), 16384):
        last = off + 16384 >= len(body)
        frames += h2_frame(0, 0x1 if last else 0, 1, body[off:off + 16384])
    c.sock.sendall(frames)
    got, ended = b"", False
    c.reader.deadline = time.time() + 20
    try:
        while not ended:
            ftype, flags, sid, payload = c.frame()
            if ftype == 0 and sid == 1:
                got += payload
                ended = bool(flags & 1)
    except (TimeoutError, EOFError, OSError):
        pass
    c.close()
    e = json.loads(got) if ended else {}
    check(e.get("method") == "POST" and e.get("protocol") == 2 and
          e.get("body_bytes") == len(body) and e.get("body_sum") == sum(body),
          "h2 request with a body: answered at END_STREAM with its body")
    p = run(["curl", "-sS", "--http2-prior-knowledge", "-m", "20",
             "-H", "X-Big: " + "a" * (limit + 100), srv.url + "/small"])
    j = json.loads(p.stdout) if p.returncode == 0 and p.stdout else {}
    check(j.get("code") == 431 and
          j.get("reason") == "RequestHeaderFieldsTooLarge",
          "h2 headers over the limit: 431 Status")
    p = run(["nghttp", "-t", "20", "-s", srv.url + "/small"] * 1 +
            [srv.url + "/nowhere", srv.url + "/status"])
    check(p.returncode == 0, "nghttp: small, 404 and 429 on one connection")


def t_idle_and_limits():
    srv = Server(max_connections=4, idle_timeout=1, header_timeout=1)
    try:
        # (a connection that sent nothing is not even accepted yet:
        # TCP_DEFER_ACCEPT; half a preface keeps one sniffing)
        quiet = raw(srv, H2_PREFACE[:10])                 # sniffing
        h1 = raw(srv, b"GET /small HTTP/1.1\r\nHost: x\r\n\r\n")
        read_response(h1)                                 # then idle
        h2 = H2Client(srv.port)                                # no streams
        watch = H2Client(srv.port)                             # an idle watch
        watch.get(1, "/idle")
        time.sleep(0.3)
        extra = raw(srv, b"GET /small HTTP/1.1\r\nHost: x\r\n\r\n")
        check(Reader(extra, 3.0).to_eof() == b"",
              "max_connections: the connection beyond it is closed unread")
        extra.close()
        check(closed_by_server(quiet, 4.0) and closed_by_server(h1, 4.0),
              "idle timeout: sniffing and keep-alive connections closed")
        goaway = False
        try:
            while True:
                ftype, flags, sid, payload = h2.frame()
                if ftype == 7:
                    goaway = True
        except (EOFError, ConnectionResetError, TimeoutError):
            pass
        check(goaway, "idle timeout: h2 connection without streams gets "
              "GOAWAY and is closed")
        time.sleep(1.5)
        # (the one without streams lingers up to 2 s after its GOAWAY)
        st = wait_for(srv, "connections_h2", 1, 3.0)
        check(st["idle_open"] == 1 and st["connections_h2"] == 1 and
              st["connections_rejected"] >= 1,
              "idle timeout: an h2 connection with an open watch stays")
        for c in (quiet, h1, h2, watch):
            c.close()
        st = wait_for(srv, "idle_open", 0)
        check(st["idle_open"] == 0, "watch closed with its connection")
    finally:
        check(srv.stop() == 0, "front_server (limits) exits 0")


def t_http10(srv):
    s = raw(srv, b"GET /small HTTP/1.0\r\n\r\n")
    st, h, body = read_response(s)
    check(st == 200 and h.get("connection") == "close" and
          h.get("content-length") == "51" and closed_by_server(s),
          "HTTP/1.0: Content-Length, Connection: close, closed")
    s.close()
    s = raw(srv, b"GET /stream?n=4&size=9 HTTP/1.0\r\n\r\n")
    st, h, body = read_response(s)
    check(st == 200 and "transfer-encoding" not in h and
          body == expected_stream(4, 9),
          "HTTP/1.0: streamed body is close-delimited, not chunked")
    s.close()
    s = raw(srv, b"GET /small HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
    r = Reader(s)
    st1, h1, _ = read_response(r)
    s.sendall(b"GET /small HTTP/1.0\r\n\r\n")
    st2, h2, _ = read_response(r)
    check(st1 == 200 and h1.get("connection") == "keep-alive" and
          st2 == 200 and h2.get("connection") == "close",
          "HTTP/1.0 keep-alive: connection reused")
    s.close()


def t_malformed(srv, limit):
    s = raw(srv, b"GARBAGE\x01 / NOPE\r\n\r\n")
    st, h, body = read_response(s)
    j = json.loads(body)
    check(st == 400 and j.get("kind") == "Status" and
          j.get("reason") == "BadRequest" and j.get("code") == 400 and
          h.get("connection") == "close" and closed_by_server(s),
          "garbage request line: 400 Status, closed")
    s.close()
    s = raw(srv, b"GET /small HTTP/1.1\r\nHost: x\r\nX-Big: " +
            b"a" * (limit + 100) + b"\r\n\r\n")
    st, h, body = read_response(s)
    j = json.loads(body)
    check(st == 431 and j.get("reason") == "RequestHeaderFieldsTooLarge" and
          j.get("code") == 431 and closed_by_server(s),
          "headers over the limit: 431 Status, closed")
    s.close()
    s = raw(srv, b"POST /small HTTP/1.1\r\nHost: x\r\n"
                 b"Content-Length: 3145729\r\n\r\n")
    st, h, body = read_response(s)
    j = json.loads(body)
    check(st == 413 and j.get("reason") == "RequestEntityTooLarge" and
          j.get("message") == "Request entity too large: limit is 3145728",
          "request body over 3 MiB: 413 Status, before it is sent")
    s.close()
    body = b"z" * 100000
    s = raw(srv, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n"
            b"\r\n" % len(body) + body + b"GET /small HTTP/1.1\r\nHost: x\r\n"
            b"\r\n")
    r = Reader(s)
    a = read_response(r)
    b = read_response(r)
    e = json.loads(a[2]) if a[0] == 200 else {}
    check(e.get("method") == "POST" and e.get("body_bytes") == len(body) and
          e.get("body_sum") == sum(body) and b[0] == 200,
          "request body kept for the handler; next request served")
    s.close()
    s = raw(srv, b"POST /echo HTTP/1.1\r\nHost: x\r\n"
                 b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    st, h, body = read_response(s)
    e = json.loads(body) if st == 200 else {}
    check(e.get("body_bytes") == 5 and e.get("body_sum") == sum(b"hello"),
          "chunked request body kept, without its framing")
    s.close()
    s = raw(srv, b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")
    check(closed_by_server(s), "TLS ClientHello: closed")
    s.close()
    s = raw(srv, H2_PREFACE + b"this is not a frame" * 10)
    check(closed_by_server(s), "h2 preface then garbage: closed")
    s.close()
    check(srv.alive() and stats(srv)["connections_h2"] == 0,
          "server alive after malformed input")


def t_slow_reader_h1(srv):
    n, size = 2000, 1000
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    s.settimeout(30)
    s.connect((HOST, srv.port))
    base_rss = srv.rss_kib()
    s.sendall(b"GET /stream?n=%d&size=%d HTTP/1.1\r\nHost: x\r\n\r\n" %
              (n, size))
    r = Reader(s, timeout=60)
    peak = base_rss
    r.until(b"\r\n\r\n")
    got, r.buf = r.buf, b""
    started = time.time()
    # read about 800 KiB/s: 16 KiB every 20 ms
    while True:
        s.settimeout(10)
        chunk = s.recv(16384)
        if not chunk:
            break
        got += chunk
        if got.endswith(b"\r\n0\r\n\r\n"):
            break
        peak = max(peak, srv.rss_kib())
        time.sleep(0.02)
    s.close()
    took = time.time() - started
    body = b"".join(re.findall(rb"[0-9a-f]{8}\r\n(.*?)\r\n", got, re.S))
    grow = peak - base_rss
    print("  slow h1 reader: %.1f s; server RSS %d KiB -> peak %d KiB "
          "(+%d KiB) for a %d KiB body" %
          (took, base_rss, peak, grow, n * size // 1024))
    check(body == expected_stream(n, size), "slow h1 reader: body intact")
    check_rss(grow, "slow h1 reader: server RSS grows < 1 MiB")


def t_slow_reader_h2(srv):
    """Flow control holds the body in the stream's queue: it stays near
    the handler's 64 KiB mark, however slowly the client opens windows."""
    n, size = 2000, 1000
    c = H2Client(srv.port)
    base_rss = srv.rss_kib()
    c.get(1, "/stream?n=%d&size=%d" % (n, size))
    body, peak, status_ok, ended = b"", base_rss, False, False
    deadline = time.time() + 60
    while not ended and time.time() < deadline:
        ftype, flags, sid, payload = c.frame()
        if ftype == 1 and sid == 1:
            status_ok = payload[:1] == b"\x88"  # indexed :status 200
        elif ftype == 0 and sid == 1:
            body += payload
            ended = bool(flags & 1)
            if payload:
                time.sleep(0.002)
                c.window_update(0, len(payload))
                c.window_update(1, len(payload))
            peak = max(peak, srv.rss_kib())
        elif ftype in (3, 7):
            break
    c.close()
    grow = peak - base_rss
    print("  slow h2 reader: server RSS %d KiB -> peak %d KiB (+%d KiB)" %
          (base_rss, peak, grow))
    check(status_ok and ended and body == expected_stream(n, size),
          "slow h2 reader (window updates as it reads): body intact")
    check_rss(grow, "slow h2 reader: server RSS grows < 1 MiB")


def t_shutdown_with_streams(srv):
    """listener_free with open watches: each gets on_close."""
    before = stats(srv)["forever_closes"]
    s = raw(srv, b"GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
    c = H2Client(srv.port)
    c.get(1, "/forever")
    c.get(3, "/stream?n=100000&size=1000")  # blocked by flow control
    deadline = time.time() + 5
    while stats(srv)["forever_open"] < 2 and time.time() < deadline:
        time.sleep(0.05)
    code = srv.stop()
    m = re.search(r"exit: forever_closes=(\d+) stream_closes=(\d+)",
                  srv.stderr())
    s.close()
    c.close()
    return code, m and int(m.group(1)) - before


def t_disconnects(srv):
    before = stats(srv)["forever_closes"]
    # HTTP/1.1: read a little, then close the socket
    s = raw(srv, b"GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
    r = Reader(s)
    r.until(b"\r\n\r\n")
    r.until(b'"seq":1')
    s.close()
    st = wait_for(srv, "forever_closes", before + 1)
    time.sleep(0.3)
    st = stats(srv)
    check(st["forever_closes"] == before + 1 and st["forever_open"] == 0,
          "h1 client disconnect on /forever: on_close exactly once")
    # HTTP/2 (curl): the client times out and closes the connection
    p = run(["curl", "-sS", "--http2-prior-knowledge", "-m", "0.7",
             srv.url + "/forever"], ok_codes=(28,))
    st = wait_for(srv, "forever_closes", before + 2)
    time.sleep(0.3)
    st = stats(srv)
    check(p.returncode == 28 and b'"seq":2' in p.stdout and
          st["forever_closes"] == before + 2 and st["forever_open"] == 0,
          "h2 client disconnect on /forever: on_close exactly once")
    # HTTP/2: RST_STREAM one of two streams; the connection lives on
    c = H2Client(srv.port)
    c.get(1, "/forever")
    c.get(3, "/forever")
    seen = set()
    while seen != {1, 3}:
        ftype, flags, sid, payload = c.frame()
        if ftype == 0:
            seen.add(sid)
    c.rst(1)
    st = wait_for(srv, "forever_closes", before + 3)
    time.sleep(0.3)
    st = stats(srv)
    check(st["forever_closes"] == before + 3 and st["forever_open"] == 1,
          "h2 RST_STREAM: on_close once for that stream only")
    got3 = False
    deadline = time.time() + 3
    while time.time() < deadline and not got3:
        ftype, flags, sid, payload = c.frame()
        got3 = ftype == 0 and sid == 3
    check(got3, "h2 RST_STREAM: the sibling stream still streams")
    c.sock.sendall(h2_frame(7, 0, 0, struct.pack(">II", 0, 0)))  # GOAWAY
    c.close()
    st = wait_for(srv, "forever_open", 0)
    time.sleep(0.3)
    st = stats(srv)
    check(st["forever_closes"] == before + 4 and st["forever_open"] == 0 and
          st["streams_h2"] == 0 and st["connections_h2"] == 0,
          "h2 connection closed: the remaining stream closed once")


# ---- slowloris: requests trickled a byte at a time ----

def trickle(sock, data, interval, limit):
    """Sends data a byte every interval seconds while reading; returns
    (bytes read, seconds until the server closed or None)."""
    started, got, i = time.time(), b"", 0
    while time.time() - started < limit:
        if i < len(data):
            try:
                sock.sendall(data[i:i + 1])
            except OSError:
                pass
            i += 1
        ready, _, _ = select.select([sock], [], [], interval)
        if ready:
            try:
                chunk = sock.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                return got, time.time() - started
            got += chunk
    return got, None


def h2_forever(srv):
    c = H2Client(srv.port, window=1 << 30)
    c.sock.sendall(h2_frame(8, 0, 0, struct.pack(">I", (1 << 30) - 65535)))
    c.get(1, "/forever")
    return c


def seqs(data):
    return [int(x) for x in re.findall(rb'"seq":(\d+)', data)]


def t_header_timeout():
    """header_timeout 2 s, idle_timeout long: every trickled request is
    closed near 2 s, however slowly it keeps coming; watches are not."""
    limit = 2
    srv = Server(idle_timeout=60, header_timeout=limit)
    try:
        started = time.time()
        w1 = raw(srv, b"GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
        w2 = h2_forever(srv)
        idle_watch = H2Client(srv.port)        # a watch that never gets a byte
        idle_watch.get(1, "/idle")
        # beside a watch, a header block that never ends is the client's
        # business: the watch holds the slot, and keeps streaming
        while w2.frame()[0] != 0:  # SETTINGS acknowledged, data flows
            pass
        block = h2_request_headers("/small")
        w2.sock.sendall(h2_frame(1, 0x1, 3, block[:5]))

        got, took = trickle(raw(srv, None), b"GET /small HTTP/1.1\r\n"
                            b"Host: x\r\nX-Slow: " + b"a" * 100, 0.2, 10)
        head, _, body = got.partition(b"\r\n\r\n")
        j = json.loads(body) if body else {}
        check(took is not None and limit - 0.5 < took < limit + 1.5 and
              head.startswith(b"HTTP/1.1 408 ") and j.get("code") == 408 and
              j.get("kind") == "Status",
              "h1 request trickled a byte per 200 ms: 408 Status and closed "
              "after the header timeout (%s s)" % (took and round(took, 1)))

        got, took = trickle(raw(srv, None), H2_PREFACE, 0.2, 10)
        check(took is not None and limit - 0.5 < took < limit + 1.5,
              "h2 preface trickled: closed after the header timeout "
              "(%s s)" % (took and round(took, 1)))

        # HEADERS without END_HEADERS, then CONTINUATION a byte at a time
        # (few of them: nghttp2 closes after 8, against CONTINUATION floods)
        c = H2Client(srv.port)
        c.sock.sendall(h2_frame(1, 0x1, 1, block[:5]))
        t0 = time.time()
        try:
            for b in block[5:12]:
                c.sock.sendall(h2_frame(9, 0, 1, bytes([b])))
                while read_some(c.sock, 0.7):
                    pass  # a GOAWAY, then the end
                if read_some(c.sock, 0) is None:
                    break
        except OSError:
            pass
        took = time.time() - t0
        check(limit - 0.5 < took < limit + 1.5,
              "h2 header block trickled in CONTINUATION frames: closed "
              "after the header timeout (%.1f s)" % took)
        c.close()

        # a HEADERS frame whose payload trickles
        c = H2Client(srv.port)
        frame = h2_frame(1, 0x5, 1, block)
        c.sock.sendall(frame[:12])
        got, took = trickle(c.sock, frame[12:], 0.2, 10)
        check(took is not None and limit - 0.5 < took < limit + 1.5,
              "h2 HEADERS frame payload trickled: closed after the header "
              "timeout (%s s)" % (took and round(took, 1)))
        c.close()

        # a complete header block without END_STREAM: dispatched, answered,
        # then RST_STREAM NO_ERROR closes the stream (RFC 9113 8.1)
        c = H2Client(srv.port)
        c.sock.sendall(h2_frame(1, 0x4, 1, h2_request_headers("/small")))
        body, rst = b"", None
        c.reader.deadline = time.time() + 5
        try:
            while rst is None:
                ftype, flags, sid, payload = c.frame()
                if ftype == 0 and sid == 1:
                    body += payload
                elif ftype == 3 and sid == 1:
                    rst = struct.unpack(">I", payload)[0]
        except (TimeoutError, EOFError, OSError):
            pass
        check(body.startswith(b'{"kind":"Small"') and rst == 0,
              "h2 HEADERS without END_STREAM: dispatched and answered, then "
              "RST_STREAM NO_ERROR")
        c.close()

        # the watches lived through it all
        elapsed = time.time() - started
        d1 = read_some(w1, 0.5)
        d2 = b"".join(p for t, f, sid, p in iter_frames(w2, 0.5) if t == 0)
        s1, s2 = seqs(d1 or b""), seqs(d2)
        st = stats(srv)
        check(d1 is not None and len(s1) >= elapsed * 5 and
              len(s2) >= elapsed * 5 and st["idle_open"] == 1 and
              st["forever_open"] == 2,
              "watches (h1, h2 with a header block left open beside, an idle "
              "h2 one) not cut by the header timeout over %.0f s (%d and %d "
              "events)" % (elapsed, len(s1), len(s2)))
        for sock in (w1, w2, idle_watch):
            sock.close()
    finally:
        check(srv.stop() == 0, "front_server (header timeout) exits 0")


def iter_frames(c, wait):
    """The frames an H2Client has received so far."""
    out = []
    data = read_some(c.sock, wait)
    if data:
        c.reader.buf += data
    while len(c.reader.buf) >= 9:
        length = struct.unpack(">I", b"\x00" + c.reader.buf[:3])[0]
        if len(c.reader.buf) < 9 + length:
            break
        out.append(c.frame())
    return out


def t_lockout():
    """max_connections held by slowloris clients is free again once the
    header timeout has closed them."""
    limit = 2
    srv = Server(max_connections=4, idle_timeout=60, header_timeout=limit)
    try:
        lorises = [raw(srv, b"GET /small HTTP/1.1\r\nHost: x\r\n"),
                   raw(srv, H2_PREFACE[:10]),
                   raw(srv, H2_PREFACE + h2_frame(4, 0, 0) +
                       h2_frame(1, 0x1, 1, b"\x00\x07")),
                   raw(srv, b"GET /sm")]
        time.sleep(0.5)
        extra = raw(srv, b"GET /small HTTP/1.1\r\nHost: x\r\n\r\n")
        locked = Reader(extra, 2.0).to_eof() == b""
        extra.close()
        t0 = time.time()
        closed = all(closed_by_server(s, limit + 3) for s in lorises)
        took = time.time() - t0
        time.sleep(0.3)
        p = run(["curl", "-sS", "-m", "5", "-o", "/dev/null", "-w",
                 "%{http_code}", srv.url + "/small"])
        check(locked and closed and p.stdout == b"200",
              "max_connections taken by 4 incomplete requests: locked out, "
              "free again after the header timeout (%.1f s)" % took)
        for s in lorises:
            s.close()
    finally:
        check(srv.stop() == 0, "front_server (lockout) exits 0")


def t_h2_idle_pings():
    """PINGs do not keep an h2 connection without streams open (idle
    counts from the last stream's end, as Go's http2 server)."""
    srv = Server(idle_timeout=2, header_timeout=2)
    try:
        c = H2Client(srv.port)
        c.get(1, "/small")
        t0, goaway, closed = time.time(), False, False
        while time.time() - t0 < 10 and not closed:
            try:
                c.sock.sendall(h2_frame(6, 0, 0, b"12345678"))
                for ftype, flags, sid, payload in iter_frames(c, 0.3):
                    goaway = goaway or ftype == 7
                closed = read_some(c.sock, 0) is None
            except OSError:
                closed = True
        took = time.time() - t0
        check(goaway and closed and took < 6,
              "h2 connection pinging without streams: GOAWAY and closed "
              "after the idle timeout (%.1f s)" % took)
        c.close()
    finally:
        check(srv.stop() == 0, "front_server (pings) exits 0")


# ---- memory of watchers that do not read ----

def t_slow_watchers_memory(srv):
    """Per-connection heap for clients that never read a watch of small
    events mixed with larger ones: the output queue costs about what it
    holds, not a chain per event (heap_bytes: glibc's mallinfo2)."""
    if sanitized() or stats(srv)["heap_bytes"] == 0:
        print("skip slow watchers' memory (no heap_bytes)")
        return
    n = 20
    for proto, query, bound in (
            (1, "n=100000000&burst=8&every=2&large=1500", 160 * 1024),
            (2, "n=100000000&burst=64", 384 * 1024)):
        base = stats(srv)["heap_bytes"]
        socks = []
        for _ in range(n):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect((HOST, srv.port))
            if proto == 1:
                s.sendall(b"GET /fanout?%s HTTP/1.1\r\nHost: x\r\n\r\n" %
                          query.encode())
            else:
                s.sendall(H2_PREFACE +
                          h2_frame(4, 0, 0, struct.pack(">HI", 4, 1 << 30)) +
                          h2_frame(8, 0, 0,
                                   struct.pack(">I", (1 << 30) - 65535)) +
                          h2_frame(1, 0x5, 1,
                                   h2_request_headers("/fanout?" + query)))
            socks.append(s)
        time.sleep(3)
        per = (stats(srv)["heap_bytes"] - base) / n
        for s in socks:
            s.close()
        wait_for(srv, "connections_h2", 0)
        wait_for(srv, "connections_h1", 1)
        print("  watcher that does not read, h%d, %s: %.0f KiB heap per "
              "connection" % (proto, query, per / 1024))
        check(per < bound, "h%d watchers that do not read: < %d KiB heap "
              "per connection" % (proto, bound // 1024))


# ---- shutdown under load ----

def t_shutdown_under_load(runs=3):
    """SIGTERM while clients leave LIST-like and streamed bodies unread and
    h2load hammers: the loop breaks at once (as ringwatch's main), then
    listener_free must free every connection, those with work scheduled
    or being reaped included.  An ASan build reports leaks (exit != 0)."""
    ok = 0
    for i in range(runs):
        srv = Server(env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1"))
        socks, loads = [], []
        try:
            for k in range(10):
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect((HOST, srv.port))
                s.sendall(b"GET /stream?n=100000&size=%d HTTP/1.1\r\n"
                          b"Host: x\r\n\r\nGET /big?size=3000000 HTTP/1.1\r\n"
                          b"Host: x\r\n\r\n" % (300 + 700 * k))
                socks.append(s)
            for args in (["-n", "100000", "-c", "10", "-m", "10",
                          srv.url + "/small"],
                         ["--h1", "-n", "100000", "-c", "10",
                          srv.url + "/stream?n=3&size=700"],
                         ["-n", "200", "-c", "4", "-m", "10",
                          srv.url + "/fanout?n=100000&burst=8"]):
                loads.append(subprocess.Popen(["h2load"] + args,
                                              stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))
            time.sleep(1.0 + 0.3 * i)
            code = srv.stop()
        finally:
            for p in loads:
                p.kill()
                p.wait()
            for s in socks:
                s.close()
        err = srv.stderr()
        if code == 0 and "Sanitizer" not in err:
            ok += 1
        else:
            print(err[-3000:])
    check(ok == runs, "shutdown under load (%d runs): exit 0, nothing "
          "leaked or reported" % runs)


def t_counts_settle(srv):
    wait_for(srv, "connections_h2", 0)
    st = wait_for(srv, "connections_h1", 1)  # the /stats request itself
    check(st["streams_h1"] == 1 and st["streams_h2"] == 0 and
          st["connections_h1"] == 1 and st["connections_h2"] == 0 and
          st["connections_sniffing"] == 0 and st["stream_open"] == 0 and
          st["forever_open"] == 0,
          "stream and connection counts return to zero")
    print("  stats: %s" % json.dumps(st))


def main():
    for tool in ("curl", "nghttp", "h2load"):
        if shutil.which(tool) is None:
            print("SKIP: %s not installed" % tool)
            return 77
    if not os.access(SERVER, os.X_OK):
        print("ERROR: no front_server at %s" % SERVER)
        return 99
    limit = 8192
    srv = Server(max_header_bytes=limit)
    try:
        t_curl_h1(srv)
        t_curl_h2(srv)
        t_nghttp(srv)
        t_pipelining(srv)
        t_h1_more(srv)
        t_http10(srv)
        t_malformed(srv, limit)
        t_h2_more(srv, limit)
        t_disconnects(srv)
        t_slow_reader_h1(srv)
        t_slow_reader_h2(srv)
        t_h2load(srv)
        t_slow_watchers_memory(srv)
        t_counts_settle(srv)
        code, closed = t_shutdown_with_streams(srv)
        check(code == 0 and closed == 2,
              "shutdown with open watches: on_close for each, exit 0")
    finally:
        if srv.stop() != 0 or failures:
            print(srv.stderr()[-4000:])
    t_idle_and_limits()
    t_header_timeout()
    t_lockout()
    t_h2_idle_pings()
    t_shutdown_under_load()

    if shutil.which("valgrind") and not sanitized() and \
            os.environ.get("FRONT_TEST_VALGRIND", "1") != "0":
        srv = Server(valgrind=True, max_header_bytes=limit)
        try:
            t_pipelining(srv)
            t_h1_more(srv)
            t_http10(srv)
            t_malformed(srv, limit)
            t_h2_more(srv, limit)
            t_disconnects(srv)
            p = run(["nghttp", "-t", "20", srv.url + "/small",
                     srv.url + "/stream?n=50&size=100"])
            check(p.returncode == 0, "valgrind: nghttp")
            code, closed = t_shutdown_with_streams(srv)
            check(code == 0 and closed == 2,
                  "front_server under valgrind: no errors, no leaks, "
                  "on_close for open watches at shutdown (exit %s)" % code)
        finally:
            if srv.stop(timeout=120) != 0 or failures:
                print(srv.stderr()[-6000:])

    print("%d failure(s)" % len(failures))
    if failures:
        print("server logs: " + " ".join(logs))
    else:
        for name in logs:
            os.unlink(name)
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # a broken harness is a hard error
        import traceback
        traceback.print_exc()
        sys.exit(99)
