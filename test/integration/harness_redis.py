"""The harness's Redis: a throwaway redis-server 7 on loopback, the second
store (ringwatch-redis(7)).  harness.py re-exports Redis and RedisError, so
tests use harness.Redis beside harness.Etcd.

Redis() starts redis-server on a free loopback port with its data in a temp
dir and loads the "ringwatch" Functions library from src/redis_functions.lua
(the very bytes ringwatch compiles in: test/redis_functions_test checks it).
Its writes mirror harness.Etcd's: put(key, value) and delete(key) go through
FCALL rw_put / rw_delete and return the revision Redis gave; revision(),
range(prefix) read the schema.  halt()/resume() stop and start the same
server on the same port over what its data dir holds (RDB, and AOF with
appendonly=True); snapshot()/restore() copy that dir to restart it from an
older state.  The client is a minimal RESP2 one (Debian has no redis-py
for python3 in the test dependencies).
"""

import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time

import harness

REDIS_SERVER = shutil.which("redis-server")
FUNCTIONS_LUA = os.path.join(harness.TOP, "src", "redis_functions.lua")


class RedisError(Exception):
    """An error reply; code is its first word (CONFLICT, EXISTS, NOTFOUND,
    INVALID for the library's functions)."""

    def __init__(self, message):
        super().__init__(message)
        self.message = message
        self.code = message.split(" ", 1)[0]


def _resource_prefixes():
    """{key prefix: canonical resource name} from cache/resource_type.c's
    table, longest prefix first ("deployments.apps" for
    /registry/deployments/)."""
    with open(os.path.join(harness.TOP, "cache", "resource_type.c")) as f:
        text = f.read()
    found = {}
    for macro, args in re.findall(r"\b(CORE|GROUP)\(([^{]*)\{", text):
        strings = re.findall(r'"([^"]*)"', args)
        if len(strings) < 4:
            continue
        if macro == "CORE":
            found[strings[-1]] = strings[0]
        else:
            found[strings[-1]] = "%s.%s" % (strings[2], strings[0])
    return dict(sorted(found.items(), key=lambda kv: -len(kv[0])))


PREFIXES = _resource_prefixes()


def resource_of(key):
    """The canonical resource name R of an etcd-style key."""
    for prefix, resource in PREFIXES.items():
        if key.startswith(prefix):
            return resource
    raise harness.Failure("no resource type has the key %r" % key)


def _encode(args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        if isinstance(a, int):
            a = str(a)
        if isinstance(a, str):
            a = a.encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


def _read_reply(f):
    line = f.readline()
    if not line.endswith(b"\r\n"):
        raise ConnectionError("redis closed the connection")
    kind, rest = line[:1], line[1:-2]
    if kind == b"+":
        return rest.decode()
    if kind == b"-":
        return RedisError(rest.decode(errors="replace"))
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        return None if n < 0 else f.read(n + 2)[:-2]
    if kind == b"*":
        n = int(rest)
        return None if n < 0 else [_read_reply(f) for _ in range(n)]
    raise ConnectionError("not a RESP reply: %r" % line[:80])


# put_raw's write: the schema's PUT without the library's checks.
_RAW_PUT = """
local rev = redis.call('INCR', KEYS[1])
redis.call('HSET', KEYS[2], ARGV[1], rev .. ' ' .. ARGV[2])
redis.call('XADD', KEYS[3], rev .. '-0', 'type', 'PUT', 'key', ARGV[1], 'value', ARGV[2])
return rev
"""


class Redis:
    """redis-server on 127.0.0.1:port, data and log in a temp dir.

    revisions: "global" (hash tag {rw}, one counter) or "per-resource"
    ({rw:R}); history: the log length the writes trim to; password:
    requirepass (written to password_file for --redis-password-file)."""

    name = "redis"  # the store label of ringwatch's upstream metrics
    # Redis keeps no old values: ringwatch answers 410 for a past state
    # the ring no longer holds (ringwatch-redis(7)).
    old_revisions = False

    def __init__(self, revisions="global", history=10000, password=None,
                 appendonly=False, load=True):
        if REDIS_SERVER is None:
            raise harness.Failure("redis-server is not installed (scripts/install-deps)")
        self.revisions = revisions
        self.history = history
        self.password = password
        self.port = harness.free_port()
        self.dir = tempfile.mkdtemp(prefix="rw-redis-")
        self.password_file = None
        conf = ["port %d" % self.port, "bind 127.0.0.1", "dir %s" % self.dir,
                "logfile %s" % os.path.join(self.dir, "redis.log"),
                "dbfilename dump.rdb", "save \"\"",
                "appendonly %s" % ("yes" if appendonly else "no"),
                "appendfsync always"]
        if password is not None:
            conf.append("requirepass %s" % password)
            self.password_file = os.path.join(self.dir, "password")
            with open(self.password_file, "w") as f:
                f.write(password + "\n")
        self.conf = os.path.join(self.dir, "redis.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join(conf) + "\n")
        self.proc = None
        self.sock = None
        harness.defer(self.stop)
        self.resume()
        if load:
            self.load_functions()

    # --- process ---------------------------------------------------------

    @property
    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    def ringwatch_args(self):
        """ringwatch's options for this store, beside --upstream self.url."""
        args = ["--redis-revisions", self.revisions, "--redis-history", str(self.history)]
        if self.password_file:
            args += ["--redis-password-file", self.password_file]
        return args

    def resume(self):
        """Starts redis-server on self.port over its data dir; waits for PING."""
        log = open(os.path.join(self.dir, "stdout.log"), "ab")
        self.proc = subprocess.Popen([REDIS_SERVER, self.conf], stdout=log,
                                     stderr=subprocess.STDOUT)
        log.close()
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise harness.Failure("redis-server exited %d:\n%s"
                                      % (self.proc.returncode, self.logtail()))
            try:
                if self.command("PING") == "PONG":
                    return
            except (OSError, RedisError):
                self._close()
            time.sleep(0.05)
        raise harness.Failure("redis-server not answering in 20 s:\n%s" % self.logtail())

    def halt(self, save=True):
        """Stops redis-server (SHUTDOWN SAVE or NOSAVE), keeping its data dir
        and port for resume()."""
        if self.proc is None:
            return
        try:
            self.command("SHUTDOWN", "SAVE" if save else "NOSAVE")
        except (OSError, ConnectionError, RedisError):
            pass
        self._close()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def restart(self, save=True):
        self.halt(save)
        self.resume()

    def snapshot(self):
        """SAVE, then a copy of the data dir's RDB and AOF (for restore())."""
        self.command("SAVE")
        copy = tempfile.mkdtemp(prefix="rw-redis-snap-")
        harness.defer(lambda: shutil.rmtree(copy, ignore_errors=True))
        for name in ("dump.rdb", "appendonlydir"):
            src = os.path.join(self.dir, name)
            if os.path.isdir(src):
                shutil.copytree(src, os.path.join(copy, name))
            elif os.path.exists(src):
                shutil.copy2(src, copy)
        return copy

    def restore(self, copy):
        """Restarts redis-server from a snapshot() (an older state: what a
        restore from backup or a lost fsync leaves)."""
        self.halt(save=False)
        for name in ("dump.rdb", "appendonlydir"):
            dst = os.path.join(self.dir, name)
            if os.path.isdir(dst):
                shutil.rmtree(dst)
            elif os.path.exists(dst):
                os.unlink(dst)
            src = os.path.join(copy, name)
            if os.path.isdir(src):
                shutil.copytree(src, dst)
            elif os.path.exists(src):
                shutil.copy2(src, dst)
        self.resume()

    def stop(self):
        if self.dir is None:
            return
        self.halt(save=False)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def logtail(self):
        text = ""
        for name in ("redis.log", "stdout.log"):
            try:
                with open(os.path.join(self.dir, name), errors="replace") as f:
                    text += f.read()[-2000:]
            except OSError:
                pass
        return text

    # --- client ----------------------------------------------------------

    def _close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def _connect(self):
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.reader = self.sock.makefile("rb")
        if self.password is not None:
            self.sock.sendall(_encode(["AUTH", self.password]))
            reply = _read_reply(self.reader)
            if isinstance(reply, RedisError):
                raise reply

    def command(self, *args):
        """One command; returns the reply (bulk strings as bytes), raises
        RedisError for an error reply."""
        if self.sock is None:
            self._connect()
        try:
            self.sock.sendall(_encode(args))
            reply = _read_reply(self.reader)
        except OSError:
            self._close()
            raise
        if isinstance(reply, RedisError):
            raise reply
        return reply

    def load_functions(self, source=None):
        """FUNCTION LOAD REPLACE of src/redis_functions.lua (or source)."""
        if source is None:
            with open(FUNCTIONS_LUA) as f:
                source = f.read()
        return self.command("FUNCTION", "LOAD", "REPLACE", source)

    # --- the schema --------------------------------------------------------

    def tag(self, resource):
        return "{rw}" if self.revisions == "global" else "{rw:%s}" % resource

    def keys(self, resource):
        """T:rev T:R:objects T:R:log T:R:compacted: the functions' KEYS."""
        t = self.tag(resource)
        return ["%s:rev" % t] + ["%s:%s:%s" % (t, resource, k)
                                 for k in ("objects", "log", "compacted")]

    def put(self, key, value, expected=""):
        """Writes value (dict -> JSON, or str/bytes raw) through rw_put;
        expected "" unconditional, "0" create, N update of mod revision N.
        Returns the revision; raises RedisError (CONFLICT, EXISTS, ...)."""
        if isinstance(value, dict):
            value = json.dumps(value)
        return self.command("FCALL", "rw_put", 4, *self.keys(resource_of(key)),
                            key, value, str(expected), self.history)

    def put_raw(self, key, value):
        """Writes value (str or bytes) as it is, as a writer that bypasses
        the function library would (INCR, HSET, XADD, no checks): a value
        ringwatch must refuse.  Returns the revision."""
        return self.command("EVAL", _RAW_PUT, 4, *self.keys(resource_of(key)), key, value)

    def delete(self, key, expected=""):
        """Deletes through rw_delete; returns the revision."""
        return self.command("FCALL", "rw_delete", 4, *self.keys(resource_of(key)),
                            key, str(expected), self.history)

    def revision(self, resource="pods"):
        """The last revision given out under resource's tag (all resources
        with global revisions)."""
        return self.command("FCALL_RO", "rw_rev", 1, self.keys(resource)[0])

    def range(self, prefix):
        """Every object under prefix: {key: (mod_revision, value bytes)}."""
        fields = self.command("HGETALL", self.keys(resource_of(prefix))[1]) or []
        out = {}
        for k, v in zip(fields[::2], fields[1::2]):
            k = k.decode()
            if k.startswith(prefix):
                modrev, value = v.split(b" ", 1)
                out[k] = (int(modrev), value)
        return out

    def log(self, resource):
        """The change log: [(revision, {"type":, "key":, "value": bytes})]."""
        entries = self.command("XRANGE", self.keys(resource)[2], "-", "+") or []
        out = []
        for entry_id, fields in entries:
            f = dict(zip(fields[::2], fields[1::2]))
            out.append((int(entry_id.split(b"-")[0]),
                        {"type": f[b"type"].decode(), "key": f[b"key"].decode(),
                         "value": f[b"value"]}))
        return out

    def compacted(self, resource):
        return int(self.command("GET", self.keys(resource)[3]) or 0)

    def compact(self, revision):
        """As etcd's compaction at revision: every resource's log drops the
        changes below revision (revision itself stays, as etcd keeps it
        readable and watchable) and its compaction revision rises to
        revision - 1."""
        for resource in set(PREFIXES.values()):
            _, _, log, compacted = self.keys(resource)
            if self.command("EXISTS", log):
                self.command("XTRIM", log, "MINID", "%d-0" % revision)
                if self.compacted(resource) < revision - 1:
                    self.command("SET", compacted, revision - 1)
