"""h2raw.py: a minimal HTTP/2 client over a raw socket, for the tests that
send what real clients never send on purpose (malformed requests, streams
beyond the limit, broken frames) and read every frame the server answers.

Frames are built by hand; header blocks use HPACK literal fields without
indexing and without Huffman coding (RFC 7541 6.2.2), so the client keeps
no compression state and any name or value, invalid ones included, can be
sent.  The server's header blocks are not decoded (their first byte tells
an indexed :status 200, 0x88).  Every read has a deadline.
"""
import select
import socket
import struct
import time

H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# frame types (RFC 9113 6)
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, \
    WINDOW_UPDATE, CONTINUATION = range(10)
# flags
END_STREAM = ACK = 0x1
END_HEADERS = 0x4
PADDED = 0x8
PRIORITY_FLAG = 0x20
# error codes (RFC 9113 7)
ERRORS = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR",
          "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
          "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
          "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY",
          "HTTP_1_1_REQUIRED"]
# settings
SETTINGS_MAX_CONCURRENT_STREAMS = 3
SETTINGS_INITIAL_WINDOW_SIZE = 4


def error_name(code):
    return ERRORS[code] if code < len(ERRORS) else "0x%x" % code


def h2_frame(ftype, flags, sid, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", sid) + payload


def hpack_int(value, prefix_bits, first=0):
    """An HPACK integer (RFC 7541 5.1) with its prefix in a first byte
    whose other bits are first."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([first | value])
    out, value = [first | limit], value - limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    return bytes(out + [value])


def hpack_literal(name, value, first=b"\x00"):
    """Literal field without indexing, new name (RFC 7541 6.2.2); with
    first 0x40, with incremental indexing (6.2.1)."""
    if isinstance(name, str):
        name = name.encode()
    if isinstance(value, str):
        value = value.encode()
    return (first + hpack_int(len(name), 7) + name +
            hpack_int(len(value), 7) + value)


def hpack_indexing(name, value):
    """Literal field with incremental indexing, new name (RFC 7541
    6.2.1): the decoder adds it to its dynamic table, where the next one
    added is index 62."""
    return hpack_literal(name, value, b"\x40")


def hpack_indexed(index):
    """Indexed field (RFC 7541 6.1): an entry of the static or dynamic
    table."""
    return hpack_int(index, 7, 0x80)


def header_frames(sid, block, size, end_stream=True):
    """A header block as HEADERS and CONTINUATION frames of at most size
    payload bytes each."""
    first, rest = block[:size], block[size:]
    out = h2_frame(HEADERS, (END_STREAM if end_stream else 0) |
                   (0 if rest else END_HEADERS), sid, first)
    while rest:
        part, rest = rest[:size], rest[size:]
        out += h2_frame(CONTINUATION, 0 if rest else END_HEADERS, sid, part)
    return out


def h2_request_headers(path, method="GET", authority="127.0.0.1",
                       extra=()):
    """A request's header block: the four pseudo-headers, then extra
    (name, value) pairs."""
    fields = [(":method", method), (":scheme", "http"), (":path", path),
              (":authority", authority)] + list(extra)
    return b"".join(hpack_literal(n, v) for n, v in fields)


def header_block(fields):
    """A header block of exactly these (name, value) pairs, in order."""
    return b"".join(hpack_literal(n, v) for n, v in fields)


class Reader:
    """Buffered reads from a socket with a deadline."""

    def __init__(self, sock, timeout=10.0):
        self.sock = sock
        self.buf = b""
        self.deadline = time.time() + timeout

    def fill(self):
        left = self.deadline - time.time()
        if left <= 0:
            raise TimeoutError("read deadline")
        self.sock.settimeout(left)
        data = self.sock.recv(65536)
        if not data:
            raise EOFError("connection closed")
        self.buf += data

    def until(self, sep):
        while sep not in self.buf:
            self.fill()
        i = self.buf.index(sep) + len(sep)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def exactly(self, n):
        while len(self.buf) < n:
            self.fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def to_eof(self):
        try:
            while True:
                self.fill()
        except (EOFError, ConnectionResetError):
            pass
        out, self.buf = self.buf, b""
        return out


class H2Client:
    """One h2c connection with prior knowledge to 127.0.0.1:port.  window
    is the stream window offered (SETTINGS_INITIAL_WINDOW_SIZE); with
    open_windows the connection window is raised to 1 GiB too, so that a
    test never has to send WINDOW_UPDATE."""

    def __init__(self, port, window=65535, open_windows=False, timeout=30):
        self.sock = socket.create_connection(("127.0.0.1", port),
                                             timeout=timeout)
        if open_windows:
            window = 1 << 30
        out = H2_PREFACE + h2_frame(
            SETTINGS, 0, 0, struct.pack(">HI", SETTINGS_INITIAL_WINDOW_SIZE,
                                        window))
        if open_windows:
            out += h2_frame(WINDOW_UPDATE, 0, 0,
                            struct.pack(">I", (1 << 30) - 65535))
        self.sock.sendall(out)
        self.reader = Reader(self.sock, timeout=timeout)
        self.server_settings = None  # {id: value} once received
        self.data = {}               # DATA payload received, by stream
        self.ended = set()           # streams the server ended
        self.status = {}             # first header block byte, by stream
        self.resets = {}             # RST_STREAM error code, by stream
        self.goaway = None           # (last stream id, error code)

    def send(self, data):
        self.sock.sendall(data)

    def get(self, sid, path):
        self.send(h2_frame(HEADERS, END_STREAM | END_HEADERS, sid,
                           h2_request_headers(path)))

    def frame(self):
        """Reads one frame; acknowledges the server's SETTINGS and
        records what the frame says about its stream."""
        hdr = self.reader.exactly(9)
        length = struct.unpack(">I", b"\x00" + hdr[:3])[0]
        ftype, flags = hdr[3], hdr[4]
        sid = struct.unpack(">I", hdr[5:9])[0] & 0x7fffffff
        payload = self.reader.exactly(length)
        if ftype == SETTINGS and not flags & ACK:
            self.server_settings = dict(
                struct.unpack(">HI", payload[i:i + 6])
                for i in range(0, len(payload), 6))
            self.send(h2_frame(SETTINGS, ACK, 0))
        elif ftype == HEADERS and sid not in self.status:
            self.status[sid] = payload[:1]
        elif ftype == DATA:
            self.data[sid] = self.data.get(sid, b"") + payload
        elif ftype == RST_STREAM:
            self.resets[sid] = struct.unpack(">I", payload)[0]
        elif ftype == GOAWAY:
            self.goaway = struct.unpack(">II", payload[:8])
            self.goaway = (self.goaway[0] & 0x7fffffff, self.goaway[1])
        if ftype in (HEADERS, DATA) and flags & END_STREAM:
            self.ended.add(sid)
        return ftype, flags, sid, payload

    def until(self, cond, timeout=10.0):
        """Reads frames until cond() holds; False on a timeout or once
        the server has closed the connection."""
        self.reader.deadline = time.time() + timeout
        try:
            while not cond():
                self.frame()
        except (TimeoutError, EOFError, OSError):
            return cond()
        return True

    def settle(self, wait=0.3):
        """Reads whatever frames come within wait seconds."""
        self.until(lambda: False, wait)

    def closed(self, timeout=5.0):
        """True once the server has closed the connection (frames read
        meanwhile are recorded)."""
        self.reader.deadline = time.time() + timeout
        try:
            while True:
                self.frame()
        except (EOFError, ConnectionResetError):
            return True
        except (TimeoutError, OSError):
            return False

    def window_update(self, sid, n):
        self.send(h2_frame(WINDOW_UPDATE, 0, sid, struct.pack(">I", n)))

    def rst(self, sid, code=8):
        self.send(h2_frame(RST_STREAM, 0, sid, struct.pack(">I", code)))

    def frames_until_closed(self, timeout):
        """Frame types received until the server closes (or timeout)."""
        self.reader.deadline = time.time() + timeout
        types = []
        try:
            while True:
                types.append(self.frame()[0])
        except (EOFError, ConnectionResetError, TimeoutError, OSError):
            pass
        return types

    def close(self):
        self.sock.close()


def read_some(sock, wait=0.0):
    """Whatever a socket has to read now (after waiting up to wait s);
    None once it is closed and nothing more is to be read."""
    got = b""
    while True:
        ready, _, _ = select.select([sock], [], [], wait)
        if not ready:
            return got
        try:
            chunk = sock.recv(65536)
        except OSError:
            chunk = b""
        if not chunk:
            return got or None
        got += chunk
        wait = 0.0
