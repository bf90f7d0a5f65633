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


class Schema:
    """ringwatch-redis(7)'s keys and the library's writes over self.command
    (Redis: one server; RedisCluster: routed to the master of the key's
    slot), under self.revisions and self.history."""


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


class Redis(Schema):
    """redis-server on 127.0.0.1:port, data and log in a temp dir.

    revisions: "global" (hash tag {rw}, one counter) or "per-resource"
    ({rw:R}); history: the log length the writes trim to; password:
    requirepass and masterauth (written to password_file for
    --redis-password-file); conf: more redis.conf lines ("%(dir)s": the
    data dir; "%(bus)d": another free port, for cluster-port)."""

    name = "redis"  # the store label of ringwatch's upstream metrics
    # Redis keeps no old values: ringwatch answers 410 for a past state
    # the ring no longer holds (ringwatch-redis(7)).
    old_revisions = False

    def __init__(self, revisions="global", history=10000, password=None,
                 appendonly=False, load=True, conf=()):
        if REDIS_SERVER is None:
            raise harness.Failure("redis-server is not installed (scripts/install-deps)")
        self.revisions = revisions
        self.history = history
        self.password = password
        self.port = harness.free_port()
        self.dir = tempfile.mkdtemp(prefix="rw-redis-")
        self.password_file = None
        subst = {"dir": self.dir}
        if any("%(bus)d" in line for line in conf):
            subst["bus"] = harness.free_port()
        extra = [line % subst for line in conf]
        conf = ["port %d" % self.port, "bind 127.0.0.1", "dir %s" % self.dir,
                "logfile %s" % os.path.join(self.dir, "redis.log"),
                "dbfilename dump.rdb", "save \"\"",
                "appendonly %s" % ("yes" if appendonly else "no"),
                "appendfsync always"]
        conf += list(extra)
        if password is not None:
            conf.append("requirepass %s" % password)
            conf.append("masterauth %s" % password)
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


REDIS_CLI = shutil.which("redis-cli")


def next_of(w, types, what, timeout=10):
    """The next event of w of one of types, skipping bookmarks (any other
    type, or the watch's end, fails)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        ev = w.next_event(deadline - time.time())
        harness.check(ev is not None, "%s: the watch ended" % what)
        if ev["type"] in types:
            return ev
        harness.check(ev["type"] == "BOOKMARK", "%s: unexpected %s %s"
                      % (what, ev["type"], ev))
    raise harness.Failure("%s: no %s in %ds" % (what, types, timeout))


def crc16(data):
    """CRC16-XMODEM, Redis Cluster's key hash (its spec's keyHashSlot)."""
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def key_slot(key):
    """The hash slot of key (str or bytes): its hash tag's when it has one."""
    if isinstance(key, str):
        key = key.encode()
    s = key.find(b"{")
    if s >= 0:
        e = key.find(b"}", s + 1)
        if e > s + 1:
            key = key[s + 1:e]
    return crc16(key) % 16384


class RedisCluster(Schema):
    """A Redis Cluster on loopback: masters x (1 + replicas) redis-server
    nodes (cluster-enabled, cluster-node-timeout node_timeout ms), made one
    cluster by redis-cli --cluster create --cluster-replicas.  nodes: the
    Redis objects; url: every node as a seed.  command() sends a command
    to the master of its key's slot (FCALL/EVAL: the first key, else the
    first argument), following MOVED and ASK as a cluster client does.
    Failover tools: master_of, replica_of, kill (SIGKILL), cut_replication
    (the replica stops receiving its master's writes), takeover, and
    wait_master (bounded)."""

    name = "redis"
    old_revisions = False

    def __init__(self, masters=3, replicas=1, revisions="global", history=10000,
                 password=None, node_timeout=1000):
        if REDIS_CLI is None:
            raise harness.Failure("redis-cli is not installed")
        self.revisions = revisions
        self.history = history
        self.password = password
        conf = ["cluster-enabled yes", "cluster-port %(bus)d",
                "cluster-config-file %(dir)s/nodes.conf",
                "cluster-node-timeout %d" % node_timeout,
                "cluster-replica-validity-factor 0",
                "cluster-require-full-coverage no",
                "cluster-allow-reads-when-down yes"]
        self.nodes = [Redis(revisions, history, password, load=False, conf=conf)
                      for _ in range(masters * (1 + replicas))]
        self.password_file = self.nodes[0].password_file
        cmd = [REDIS_CLI, "--cluster", "create"]
        cmd += ["127.0.0.1:%d" % n.port for n in self.nodes]
        cmd += ["--cluster-replicas", str(replicas), "--cluster-yes"]
        if password is not None:
            cmd += ["-a", password, "--no-auth-warning"]
        out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             timeout=60)
        if out.returncode != 0:
            raise harness.Failure("redis-cli --cluster create: %s" % out.stdout[-2000:])
        self.slots = {}
        self._wait_formed(masters, replicas, 30)
        self.load_functions()

    # --- the cluster -------------------------------------------------------

    @property
    def url(self):
        return ",".join(n.url for n in self.nodes)

    def ringwatch_args(self):
        return self.nodes[0].ringwatch_args()

    def alive(self):
        return [n for n in self.nodes if n.proc is not None]

    def _cluster_slots(self, node):
        """{slot range (start, end): (master port, [replica ports])}."""
        out = {}
        for r in node.command("CLUSTER", "SLOTS"):
            out[(r[0], r[1])] = (r[2][1], [x[1] for x in r[3:]])
        return out

    def refresh(self):
        """The slot map, from the first live node that answers."""
        for n in self.alive():
            try:
                self.slots = self._cluster_slots(n)
                return
            except (OSError, ConnectionError, RedisError):
                n._close()
        raise harness.Failure("no cluster node answers CLUSTER SLOTS")

    def _wait_formed(self, masters, replicas, timeout):
        deadline = time.time() + timeout
        while True:
            try:
                states = [n.command("CLUSTER", "INFO") for n in self.alive()]
                ok = all(b"cluster_state:ok" in s for s in states)
                self.refresh()
                ok = ok and len(self.slots) >= masters and all(
                    len(r) == replicas for _, r in self.slots.values())
                if ok and replicas:
                    ok = all(b"master_link_status:up" in
                             self.node(p).command("INFO", "replication")
                             for _, rs in self.slots.values() for p in rs)
                if ok:
                    return
            except (OSError, ConnectionError, RedisError):
                pass
            if time.time() > deadline:
                raise harness.Failure("the cluster did not form in %ds" % timeout)
            time.sleep(0.1)

    def node(self, port):
        return next(n for n in self.nodes if n.port == port)

    def master_port(self, slot):
        for (start, end), (port, _) in self.slots.items():
            if start <= slot <= end:
                return port
        return None

    def master_of(self, resource):
        """The node that serves resource's keys (its tag's slot)."""
        self.refresh()
        return self.node(self.master_port(key_slot(self.tag(resource))))

    def replica_of(self, master):
        """A replica of master; None when it has none (its replica was
        promoted and it was killed)."""
        self.refresh()
        for port, replicas in self.slots.values():
            if port == master.port and replicas:
                return self.node(replicas[0])
        return None

    def node_id(self, node):
        return node.command("CLUSTER", "MYID").decode()

    def command(self, *args):
        """One command routed by its key, following MOVED/ASK (at most 5),
        retrying TRYAGAIN (a multi-key command on a migrating slot) for up
        to 10 s."""
        name = str(args[0]).upper()
        if name in ("FCALL", "FCALL_RO", "EVAL"):
            key = args[3] if int(args[2]) > 0 else ""
        else:
            key = args[1] if len(args) > 1 else ""
        if not self.slots:
            self.refresh()
        node = self.node(self.master_port(key_slot(key)))
        asking = False
        tries = 0
        deadline = time.time() + 10
        while tries < 5:
            try:
                if asking:
                    node.command("ASKING")
                return node.command(*args)
            except RedisError as e:
                if e.code == "TRYAGAIN" and time.time() < deadline:
                    # keys of a migrating slot on both sides: later
                    time.sleep(0.05)
                    continue
                if e.code not in ("MOVED", "ASK"):
                    raise
                tries += 1
                port = int(e.message.rsplit(":", 1)[1])
                asking = e.code == "ASK"
                if not asking:
                    self.refresh()
                node = self.node(port)
        raise harness.Failure("%s: redirected 5 times" % name)

    def load_functions(self, source=None):
        self.refresh()
        for port, _ in self.slots.values():
            self.node(port).load_functions(source)

    # --- failures ----------------------------------------------------------

    def kill(self, node):
        """SIGKILL: no shutdown, no save."""
        node._close()
        node.proc.kill()
        node.proc.wait()
        node.proc = None

    def cut_replication(self, replica):
        """The replica stops receiving its master's writes (a wrong
        masterauth, its link killed: it cannot resync), as a replica cut
        off by the network."""
        replica.command("CONFIG", "SET", "masterauth", "not-the-password")
        replica.command("CLIENT", "KILL", "TYPE", "master")
        deadline = time.time() + 10
        while b"master_link_status:up" in replica.command("INFO", "replication"):
            if time.time() > deadline:
                raise harness.Failure("the replica's link did not go down")
            time.sleep(0.05)

    def takeover(self, replica):
        """CLUSTER FAILOVER TAKEOVER: the replica becomes the master of its
        slots without its master's agreement nor its data."""
        replica.command("CLUSTER", "FAILOVER", "TAKEOVER")

    def wait_master(self, slot, node, timeout=30):
        """Until every live node says node serves slot (bounded)."""
        deadline = time.time() + timeout
        while True:
            try:
                if all(self._port_of(n, slot) == node.port for n in self.alive()):
                    self.refresh()
                    return
            except (OSError, ConnectionError, RedisError):
                pass
            if time.time() > deadline:
                raise harness.Failure("node %d not the master of slot %d in %ds"
                                      % (node.port, slot, timeout))
            time.sleep(0.1)

    def _port_of(self, n, slot):
        for (start, end), (port, _) in self._cluster_slots(n).items():
            if start <= slot <= end:
                return port
        return None

    def move_slot(self, slot, dst, during=None):
        """Reshards slot to the master dst, as redis-cli --cluster reshard
        does one slot: IMPORTING/MIGRATING, MIGRATE of its keys, SETSLOT
        NODE on every master.  during(): called while the slot migrates,
        its keys on dst (commands on the slot get ASK)."""
        src = self.node(self.master_port(slot))
        src_id, dst_id = self.node_id(src), self.node_id(dst)
        dst.command("CLUSTER", "SETSLOT", slot, "IMPORTING", src_id)
        src.command("CLUSTER", "SETSLOT", slot, "MIGRATING", dst_id)
        deadline = time.time() + 30
        while True:
            keys = src.command("CLUSTER", "GETKEYSINSLOT", slot, 100)
            if not keys:
                break
            if time.time() > deadline:
                raise harness.Failure("slot %d not migrated in 30 s" % slot)
            auth = ["AUTH", self.password] if self.password else []
            src.command("MIGRATE", "127.0.0.1", dst.port, "", 0, 5000, *auth,
                        "KEYS", *keys)
        if during is not None:
            during()
        masters = [dst, src] + [self.node(p) for p, _ in self.slots.values()
                                if p not in (dst.port, src.port)]
        for m in masters:
            m.command("CLUSTER", "SETSLOT", slot, "NODE", dst_id)
        self.wait_master(slot, dst)

    def stop(self):
        for n in self.nodes:
            n.stop()
