"""HTTP/2 stream errors stay on their stream (RFC 9113 5.4.2).

One h2c connection holds a WATCH on configmaps; on the same connection a
raw client then sends, one stream at a time, every kind of malformed
request of RFC 9113 8.1.1, 8.2 and 8.3 (bad, missing, repeated or
misplaced pseudo-headers, invalid field names and values, upper-case and
connection-specific fields, TE other than trailers, content-length that
disagrees with the body, bad trailers), frames that RFC 9113 makes
stream errors where nghttp2 alone ends the connection (DATA or trailers
after END_STREAM, WINDOW_UPDATE of 0, a stream depending on itself) and
a stream beyond SETTINGS_MAX_CONCURRENT_STREAMS after acknowledging the
server's SETTINGS.  Each must be answered by RST_STREAM on that stream
alone (PROTOCOL_ERROR; REFUSED_STREAM beyond the limit, as Go's server),
never served, and after each the watch must still receive the next event
written to etcd.  Frames after END_STREAM where no stream has closed yet
(the connection's first stream) get STREAM_CLOSED on their stream alone,
with the HPACK table still in step.  A valid header block is served
however many CONTINUATION frames carry it (nghttp2 alone: GOAWAY after
8).  Then each connection-level error (HPACK garbage, frame size errors,
frames on the wrong stream, bad SETTINGS, a header block beyond 128 KiB
or a CONTINUATION flood, a stream identifier used again) must still end
its connection with GOAWAY and the right code, while trailers on a
stream ringwatch reset are ignored; and a client that makes ringwatch
reset stream after stream gets GOAWAY after a bounded number."""
import struct

from harness import *
from h2raw import *

MAX_STREAMS = 3


class Conn:
    """An h2c connection with a configmap WATCH on stream 1."""

    def __init__(self, rw, etcd):
        self.rw, self.etcd = rw, etcd
        self.c = H2Client(rw.port, open_windows=True)
        check(self.c.until(lambda: self.c.server_settings is not None),
              "no SETTINGS from the server")
        eq(self.c.server_settings.get(SETTINGS_MAX_CONCURRENT_STREAMS),
           MAX_STREAMS, "SETTINGS_MAX_CONCURRENT_STREAMS on the wire")
        self.rv = etcd.put(cm_key("ns", "start"), configmap("ns", "start"))
        rw.wait_rv(self.rv)
        self.c.get(1, "/api/v1/namespaces/ns/configmaps?watch=1"
                      "&resourceVersion=%d" % self.rv)
        check(self.c.until(lambda: 1 in self.c.status), "watch not answered")
        eq(self.c.status[1], b"\x88", "watch :status 200")
        self.next_sid = 3
        self.writes = 0
        self.errors = 0

    def sid(self):
        sid, self.next_sid = self.next_sid, self.next_sid + 2
        return sid

    def watch_alive(self, after):
        """Writes a configmap; the watch on stream 1 must deliver it."""
        self.writes += 1
        name = "w%d" % self.writes
        self.etcd.put(cm_key("ns", name), configmap("ns", name))
        want = ('"name":"%s"' % name).encode()
        ok = self.c.until(lambda: want in self.c.data.get(1, b""), 10)
        check(ok and self.c.goaway is None and 1 not in self.c.resets,
              "after %s: the watch on the same connection got no event "
              "(GOAWAY %r, resets %r)", after, self.c.goaway, self.c.resets)

    def expect_reset(self, sid, code, what, dispatched=False):
        """RST_STREAM with code on sid alone, then the watch still gets
        events.  dispatched: the request was complete at END_HEADERS and
        may have been answered before the body showed it malformed."""
        ok = self.c.until(lambda: sid in self.c.resets or
                          self.c.goaway is not None, 5)
        check(ok and self.c.goaway is None,
              "%s: no RST_STREAM on stream %d (GOAWAY %r)", what, sid,
              self.c.goaway)
        eq(error_name(self.c.resets[sid]), error_name(code),
           "%s: RST_STREAM code" % what)
        check(dispatched or sid not in self.c.status,
              "%s: the malformed request was served", what)
        self.errors += 1
        self.watch_alive(what)


def pseudo(path="/api/v1/namespaces/ns/configmaps", method="GET"):
    return [(":method", method), (":scheme", "http"), (":path", path),
            (":authority", "127.0.0.1")]


P = pseudo()
PATH = "/api/v1/namespaces/ns/configmaps"

# Malformed requests (RFC 9113 8.1.1, 8.2, 8.3): header fields, in order;
# each sent as one HEADERS frame with END_STREAM.
MALFORMED = [
    ("no :method", P[1:]),
    ("no :path", [P[0], P[1], P[3]]),
    ("no :scheme", [P[0], P[2], P[3]]),
    ("empty :path", pseudo(path="")),
    (":path not origin-form", pseudo(path="api/v1/configmaps")),
    ("repeated :path", P + [(":path", PATH)]),
    ("repeated :method", [P[0]] + P),
    ("unknown pseudo-header", P + [(":protocol", "websocket")]),
    ("response pseudo-header in a request", P + [(":status", "200")]),
    ("pseudo-header after a regular field",
     P[:3] + [("accept", "application/json"), P[3]]),
    ("upper-case field name", P + [("Accept", "application/json")]),
    ("space in a field name", P + [("ho st", "a")]),
    ("colon inside a field name", P + [("x:y", "a")]),
    ("empty field name", P + [("", "a")]),
    ("NUL in a field value", P + [("x-a", "a\0b")]),
    ("CR LF in a field value", P + [("x-a", "a\r\nx-b: c")]),
    ("leading whitespace in a field value", P + [("x-a", " a")]),
    ("trailing whitespace in a field value", P + [("x-a", "a\t")]),
    ("control character in :path", pseudo(path=PATH + "\x01")),
    ("space in :path", pseudo(path=PATH + " HTTP/1.1")),
    ("invalid :method token", pseudo(method="GE T")),
    ("connection field", P + [("connection", "keep-alive")]),
    ("keep-alive field", P + [("keep-alive", "timeout=5")]),
    ("proxy-connection field", P + [("proxy-connection", "keep-alive")]),
    ("transfer-encoding field", P + [("transfer-encoding", "chunked")]),
    ("upgrade field", P + [("upgrade", "h2c")]),
    ("te other than trailers", P + [("te", "gzip")]),
    ("content-length not a number", P + [("content-length", "abc")]),
    ("repeated content-length", P + [("content-length", "0"),
                                     ("content-length", "0")]),
    ("content-length without the body", P + [("content-length", "5")]),
    # Go's server resets a stream whose :path url.ParseRequestURI refuses
    ("invalid escape in :path",
     pseudo(path="/api/v1/namespaces/n%zz/configmaps")),
]


def malformed_bodies(conn):
    """content-length that disagrees with the DATA frames, bad trailers."""
    c = conn.c
    for what, cl, body in (("content-length below the body", "2", b"hello"),
                           ("content-length above the body", "9", b"hi")):
        sid = conn.sid()
        c.send(h2_frame(HEADERS, END_HEADERS, sid, header_block(
            pseudo(method="POST") + [("content-length", cl)])) +
            h2_frame(DATA, END_STREAM, sid, body))
        conn.expect_reset(sid, 1, what, dispatched=True)
    for what, trailers, flags in (
            ("pseudo-header in trailers", [(":path", PATH)],
             END_STREAM | END_HEADERS),
            ("trailers without END_STREAM", [("x-t", "1")], END_HEADERS)):
        sid = conn.sid()
        c.send(h2_frame(HEADERS, END_HEADERS, sid,
                        header_block(pseudo(method="POST"))) +
               h2_frame(DATA, 0, sid, b"x") +
               h2_frame(HEADERS, flags, sid, header_block(trailers)))
        conn.expect_reset(sid, 1, what, dispatched=True)


def on_open_streams(conn):
    """Stream errors on a stream being answered (a second watch), which
    nghttp2 alone would make connection errors: frames after the client's
    END_STREAM (RFC 9113 5.1: STREAM_CLOSED), WINDOW_UPDATE of 0 (6.9),
    a stream depending on itself (5.3.1: PROTOCOL_ERROR); and a new
    stream that depends on itself."""
    c = conn.c
    trailers = header_block([("x-t", "1")])
    for what, frames, code in (
            ("DATA after END_STREAM", lambda s: h2_frame(DATA, 0, s, b"x"),
             5),
            ("trailers after END_STREAM",
             lambda s: h2_frame(HEADERS, END_STREAM | END_HEADERS, s,
                                trailers), 5),
            ("trailers after END_STREAM, with CONTINUATION",
             lambda s: h2_frame(HEADERS, END_STREAM, s, trailers[:3]) +
             h2_frame(CONTINUATION, END_HEADERS, s, trailers[3:]), 5),
            ("WINDOW_UPDATE of 0 on a stream",
             lambda s: h2_frame(WINDOW_UPDATE, 0, s, struct.pack(">I", 0)),
             1),
            ("PRIORITY: a stream depending on itself",
             lambda s: h2_frame(PRIORITY, 0, s, struct.pack(">IB", s, 16)),
             1)):
        sid = conn.sid()
        c.get(sid, "/api/v1/namespaces/ns/configmaps?watch=1"
                   "&resourceVersion=%d" % conn.rv)
        check(c.until(lambda: sid in c.status), "%s: watch not answered",
              what)
        c.send(frames(sid))
        conn.expect_reset(sid, code, what, dispatched=True)
    sid = conn.sid()
    c.send(h2_frame(HEADERS, END_STREAM | END_HEADERS | PRIORITY_FLAG, sid,
                    struct.pack(">IB", sid, 16) + header_block(P)))
    conn.expect_reset(sid, 1, "HEADERS: a new stream depending on itself")


TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def event_on(c, etcd, sid, what):
    """Writes a configmap; the watch on stream sid must deliver it."""
    name = "e%d" % int(time.time() * 1e6)
    etcd.put(cm_key("ns", name), configmap("ns", name))
    want = ('"name":"%s"' % name).encode()
    check(c.until(lambda: want in c.data.get(sid, b""), 10) and
          c.goaway is None and sid not in c.resets,
          "%s: the watch on stream %d got no event (GOAWAY %r, resets %r)",
          what, sid, c.goaway, c.resets)


def no_closed_stream(rw, etcd):
    """Frames after END_STREAM where no stream has closed yet: on a
    connection's first stream, and on stream 3 with stream 1 open
    (nghttp2 alone ends the connection with GOAWAY STREAM_CLOSED).  Each
    must reset its stream alone with STREAM_CLOSED, the other watch
    carries on, and the HPACK table stays in step: the trailers add an
    entry (incremental indexing) that the next request then names by
    its index, which must read as the Accept it was."""
    rv = etcd.put(cm_key("ns", "first"), configmap("ns", "first"))
    rw.wait_rv(rv)
    watch = "/api/v1/namespaces/ns/configmaps?watch=1&resourceVersion=%d" % rv
    trailers = hpack_indexing("accept", TABLE)
    kinds = (("DATA", lambda s: h2_frame(DATA, 0, s, b"x")),
             ("trailers", lambda s: h2_frame(
                 HEADERS, END_STREAM | END_HEADERS, s, trailers)),
             ("trailers with CONTINUATION", lambda s: h2_frame(
                 HEADERS, END_STREAM, s, trailers[:4]) + h2_frame(
                 CONTINUATION, END_HEADERS, s, trailers[4:])))
    for kind, frames in kinds:
        for sid, other in ((1, 3), (3, 1)):
            what = "%s after END_STREAM on stream %d, stream %d open" % (
                kind, sid, other)
            c = H2Client(rw.port, open_windows=True)
            check(c.until(lambda: c.server_settings is not None),
                  "%s: no SETTINGS", what)
            c.get(1, watch)
            c.get(3, watch)
            check(c.until(lambda: 1 in c.status and 3 in c.status),
                  "%s: watches not answered", what)
            c.send(frames(sid))
            ok = c.until(lambda: sid in c.resets or c.goaway is not None, 5)
            check(ok and c.goaway is None, "%s: no RST_STREAM (GOAWAY %r)",
                  what, c.goaway)
            eq(error_name(c.resets[sid]), "STREAM_CLOSED",
               "%s: RST_STREAM code" % what)
            event_on(c, etcd, other, what)
            if kind != "DATA":
                c.send(h2_frame(HEADERS, END_STREAM | END_HEADERS, 5,
                                header_block(P) + hpack_indexed(62)))
                check(c.until(lambda: 5 in c.ended or
                              c.goaway is not None),
                      "%s: the next request not answered (GOAWAY %r)", what,
                      c.goaway)
                check(b'"kind":"Table"' in c.data.get(5, b""),
                      "%s: the next request's indexed Accept did not read "
                      "as the trailers' entry: %r", what,
                      c.data.get(5, b"")[:200])
            c.close()


def header_blocks(conn):
    """A valid header block is served however many CONTINUATION frames
    carry it (nghttp2 alone ends the connection after 8): tiny frames,
    one byte each, a padded HEADERS with a priority; a header list
    beyond the 64 KiB limit in a block within 128 KiB is refused on its
    stream (431)."""
    c = conn.c
    fields = P + [("accept", TABLE)] + [("x-h%d" % i, "v" * 40)
                                        for i in range(30)]
    block = header_block(fields)
    for what, frames in (
            ("header block in frames of 64 bytes",
             lambda s: header_frames(s, block, 64)),
            ("header block in frames of 1 byte",
             lambda s: header_frames(s, block, 1)),
            ("padded HEADERS with a priority, then CONTINUATION",
             lambda s: h2_frame(HEADERS, END_STREAM | PADDED | PRIORITY_FLAG,
                                s, bytes([7]) + struct.pack(">IB", 0, 200) +
                                block[:100] + b"\0" * 7) +
             h2_frame(CONTINUATION, 0, s, block[100:1000]) +
             h2_frame(CONTINUATION, END_HEADERS, s, block[1000:]))):
        sid = conn.sid()
        c.send(frames(sid))
        check(c.until(lambda: sid in c.ended or sid in c.resets or
                      c.goaway is not None),
              "%s: no answer (GOAWAY %r)", what, c.goaway)
        check(c.goaway is None and sid not in c.resets,
              "%s: GOAWAY %r, resets %r", what, c.goaway, c.resets)
        check(b'"kind":"Table"' in c.data.get(sid, b""),
              "%s: not served as sent: %r", what, c.data.get(sid, b"")[:200])
    sid = conn.sid()
    c.send(header_frames(sid, header_block(
        P + [("x-b%d" % i, "v" * 4000) for i in range(20)]), 16384))
    check(c.until(lambda: sid in c.ended or sid in c.resets or
                  c.goaway is not None),
          "80 KB header list: no answer (GOAWAY %r)", c.goaway)
    check(b'"code":431' in c.data.get(sid, b""),
          "80 KB header list: not 431: %r", c.data.get(sid, b"")[:200])
    conn.watch_alive("header blocks of many frames")


def closed_streams(rw):
    """HEADERS on a stream that has closed uses its identifier again
    (RFC 9113 5.1.1): GOAWAY PROTOCOL_ERROR, as Go's server (nghttp2 alone
    ignores it, and the request hangs); but trailers on a stream
    ringwatch reset itself are ignored (RFC 9113 5.1: the client may have
    sent them before it saw the reset)."""
    c = H2Client(rw.port, open_windows=True)
    check(c.until(lambda: c.server_settings is not None), "no SETTINGS")
    c.get(1, "/healthz")
    check(c.until(lambda: 1 in c.ended), "/healthz not answered")
    # a GET whose body is still coming: answered (a GET is dispatched at
    # the end of its header block), then reset
    c.send(h2_frame(HEADERS, END_HEADERS, 3,
                    header_block(pseudo(path="/healthz"))))
    check(c.until(lambda: 3 in c.resets), "GET not reset once answered")
    eq(error_name(c.resets[3]), "NO_ERROR", "answered GET's reset")
    c.send(h2_frame(HEADERS, END_STREAM | END_HEADERS, 3,
                    header_block([("x-t", "1")])))
    c.get(5, "/healthz")
    check(c.until(lambda: 5 in c.ended or c.goaway is not None),
          "after late trailers: no answer")
    check(c.goaway is None, "late trailers on a reset stream: GOAWAY %r",
          c.goaway)
    c.get(1, "/healthz")
    check(c.closed(5), "stream 1 used again: connection not closed")
    check(c.goaway is not None and error_name(c.goaway[1]) ==
          "PROTOCOL_ERROR", "stream 1 used again: GOAWAY %r", c.goaway)
    c.close()


def reset_flood(rw, rv):
    """A client that makes ringwatch reset stream after stream (a watch,
    then WINDOW_UPDATE of 0 or trailers after END_STREAM: MadeYouReset,
    CVE-2025-8671) is held to nghttp2's limit on resets as if it reset
    them itself: GOAWAY, after a bounded number (a burst of 1000)."""
    for what, bad in (("WINDOW_UPDATE of 0",
                       lambda s: h2_frame(WINDOW_UPDATE, 0, s,
                                          struct.pack(">I", 0))),
                      ("trailers after END_STREAM",
                       lambda s: h2_frame(HEADERS, END_STREAM | END_HEADERS,
                                          s, header_block([("x-t", "1")])))):
        c = H2Client(rw.port, open_windows=True)
        check(c.until(lambda: c.server_settings is not None), "no SETTINGS")
        block = h2_request_headers("/api/v1/namespaces/ns/configmaps?watch=1"
                                   "&resourceVersion=%d" % rv)
        sid = 1
        for _ in range(30):
            c.send(b"".join(h2_frame(HEADERS, END_STREAM | END_HEADERS,
                                     sid + 2 * i, block) + bad(sid + 2 * i)
                            for i in range(50)))
            sid += 100
            c.settle(0.02)
            if c.goaway is not None:
                break
        check(c.closed(5) and c.goaway is not None,
              "%s on %d streams: no GOAWAY", what, sid // 2)
        eq(error_name(c.goaway[1]), "INTERNAL_ERROR",
           "%s: GOAWAY code (nghttp2's limit on resets)" % what)
        check(sid // 2 <= 1500, "%s: GOAWAY only after %d streams", what,
              sid // 2)
        c.close()


def well_formed(conn):
    """What is valid stays served: te: trailers, inner spaces, a body
    matching its content-length."""
    c = conn.c
    for what, fields in (("te: trailers", P + [("te", "trailers")]),
                         ("a value with inner spaces",
                          P + [("user-agent", "a b\tc")])):
        sid = conn.sid()
        c.send(h2_frame(HEADERS, END_STREAM | END_HEADERS, sid,
                        header_block(fields)))
        check(c.until(lambda: sid in c.ended or sid in c.resets),
              "%s: no answer", what)
        eq(c.status.get(sid), b"\x88", "%s: :status 200" % what)


def beyond_the_limit(conn):
    """RFC 9113 5.1.2: after acknowledging SETTINGS_MAX_CONCURRENT_STREAMS
    (the client's ACK went out when the SETTINGS came), a stream beyond it
    is refused alone; once one closes, a new one is served."""
    c = conn.c
    extra = []
    for _ in range(MAX_STREAMS - 1):
        sid = conn.sid()
        c.get(sid, "/api/v1/namespaces/ns/configmaps?watch=1"
                   "&resourceVersion=%d" % conn.rv)
        extra.append(sid)
    check(c.until(lambda: all(s in c.status for s in extra)),
          "watches up to the limit not answered")
    sid = conn.sid()
    c.get(sid, "/api/v1/namespaces/ns/configmaps")
    conn.expect_reset(sid, 7, "stream beyond SETTINGS_MAX_CONCURRENT_STREAMS")
    # a burst beyond the limit, some with a body still coming
    burst = [conn.sid() for _ in range(5)]
    c.send(b"".join(h2_frame(HEADERS, END_HEADERS, s, header_block(
        pseudo(method="POST"))) + h2_frame(DATA, 0, s, b"x") for s in burst))
    check(c.until(lambda: all(s in c.resets for s in burst)),
          "burst beyond the limit: not every stream refused")
    eq({error_name(c.resets[s]) for s in burst}, {"REFUSED_STREAM"},
       "burst beyond the limit: codes")
    conn.watch_alive("a burst of streams beyond the limit")
    c.rst(extra[0])
    sid = conn.sid()
    c.get(sid, "/api/v1/namespaces/ns/configmaps")
    check(c.until(lambda: sid in c.ended or sid in c.resets),
          "a stream after one closed: no answer")
    eq(c.status.get(sid), b"\x88", "a stream after one closed: :status 200")
    c.rst(extra[1])


# Connection errors (RFC 9113 5.4.1): bytes after the preface and SETTINGS
# exchange, and the GOAWAY code they must bring.
def connection_errors():
    hb = h2_request_headers("/healthz")
    return [
        ("HPACK index out of range", h2_frame(HEADERS, 5, 3, b"\xff\x7f"),
         "COMPRESSION_ERROR"),
        ("HEADERS on stream 0", h2_frame(HEADERS, 5, 0, hb),
         "PROTOCOL_ERROR"),
        ("HEADERS on an even (server) stream", h2_frame(HEADERS, 5, 4, hb),
         "PROTOCOL_ERROR"),
        ("DATA on stream 0", h2_frame(DATA, 0, 0, b"x"), "PROTOCOL_ERROR"),
        ("DATA on an idle stream", h2_frame(DATA, 0, 9, b"x"),
         "PROTOCOL_ERROR"),
        ("CONTINUATION without HEADERS", h2_frame(CONTINUATION, 4, 3, hb),
         "PROTOCOL_ERROR"),
        ("HEADERS interrupted by another frame",
         h2_frame(HEADERS, 1, 3, hb) + h2_frame(PING, 0, 0, b"12345678"),
         "PROTOCOL_ERROR"),
        ("WINDOW_UPDATE of 0 on the connection",
         h2_frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0)),
         "PROTOCOL_ERROR"),
        ("SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1",
         h2_frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 1 << 31)),
         "FLOW_CONTROL_ERROR"),
        ("SETTINGS with a stream identifier",
         h2_frame(SETTINGS, 0, 1, b""), "PROTOCOL_ERROR"),
        ("PING of 7 bytes", h2_frame(PING, 0, 0, b"1234567"),
         "FRAME_SIZE_ERROR"),
        ("HEADERS larger than SETTINGS_MAX_FRAME_SIZE",
         h2_frame(HEADERS, 5, 3, hb + hpack_literal("x-a", "a" * 17000)),
         "FRAME_SIZE_ERROR"),
        # header blocks of several frames
        ("CONTINUATION larger than SETTINGS_MAX_FRAME_SIZE",
         h2_frame(HEADERS, 1, 3, hb) + h2_frame(
             CONTINUATION, 4, 3, hpack_literal("x-a", "a" * 17000)),
         "FRAME_SIZE_ERROR"),
        ("CONTINUATION of another stream",
         h2_frame(HEADERS, 1, 3, hb) + h2_frame(CONTINUATION, 4, 5, b""),
         "PROTOCOL_ERROR"),
        ("HEADERS padding beyond its payload",
         h2_frame(HEADERS, 1 | PADDED, 3, bytes([200]) + hb) +
         h2_frame(CONTINUATION, 4, 3, b""), "PROTOCOL_ERROR"),
        ("header block beyond 128 KiB",
         header_frames(3, header_block(
             [("x-a%d" % i, "a" * 4000) for i in range(40)]), 16384),
         "PROTOCOL_ERROR"),
        ("CONTINUATION flood: 20,000 empty frames",
         h2_frame(HEADERS, 1, 3, hb) +
         h2_frame(CONTINUATION, 0, 3, b"") * 20000, "PROTOCOL_ERROR"),
    ]


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, "--h2-max-streams", str(MAX_STREAMS),
                   resources="configmaps")
    conn = Conn(rw, etcd)
    conn.watch_alive("the start")
    failed = []
    for what, fields in MALFORMED:
        sid = conn.sid()
        conn.c.send(h2_frame(HEADERS, END_STREAM | END_HEADERS, sid,
                             header_block(fields)))
        try:
            conn.expect_reset(sid, 1, what)
        except Failure as e:
            failed.append(str(e))
            if conn.c.goaway is not None:
                break
    check(not failed, "%d malformed requests not reset alone: %s",
          len(failed), "; ".join(failed))
    malformed_bodies(conn)
    on_open_streams(conn)
    well_formed(conn)
    header_blocks(conn)
    beyond_the_limit(conn)
    print("%d stream errors, each reset alone; the watch got %d events"
          % (conn.errors, conn.writes))

    for what, data, code in connection_errors():
        c = H2Client(rw.port, open_windows=True)
        check(c.until(lambda: c.server_settings is not None),
              "%s: no SETTINGS", what)
        c.send(data)
        check(c.closed(5), "%s: connection not closed", what)
        check(c.goaway is not None, "%s: no GOAWAY", what)
        eq(error_name(c.goaway[1]), code, "%s: GOAWAY code" % what)
        c.close()
    closed_streams(rw)
    no_closed_stream(rw, etcd)
    reset_flood(rw, conn.rv)
    check(rw.proc.poll() is None, "ringwatch died")
    conn.watch_alive("the connection errors on other connections")


run(main)
