"""ringwatch over Redis (--upstream redis://, src/upstream_redis.c), against
a real redis-server on loopback with a password, written through the
ringwatch Functions library.  What only the Redis adapter does; the
store-neutral suite runs over Redis too (test/integration/NAME.py.redis).

1. LIST: the objects written before ringwatch started, each at its mod
   revision, the list at Redis's revision (T:rev).
2. WATCH from the LIST's revision: ADDED, MODIFIED, DELETED (carrying the
   object's last state), each at the revision Redis gave it.
3. Progress of an idle resource: only pods are written; a configmaps
   watch gets a BOOKMARK at the pods write's revision (the log's rounds
   read T:rev), and a consistent configmaps LIST is at T:rev.
4. The log trimmed past ringwatch's revision while it was cut off (a TCP
   relay; the writers keep 5 entries): ringwatch relists; the watch whose
   selection changed ends with ERROR 410; the LIST equals Redis's state.
5. Redis restarted from an older RDB (its revision below what ringwatch
   served, then new writes reusing those revisions): every watch ends with
   ERROR 410, the LIST equals the restored state, the reset is counted.
6. A log entry whose ID is not "<revision>-0" and one without a key:
   counted in ringwatch_upstream_malformed_total, skipped, the next change
   served.
7. A wrong password and a server that is not Redis on the port: ringwatch
   exits 1 at startup, saying why.
"""
import socket
import subprocess
import threading

from harness import *
from harness_redis import next_of

CM = "/api/v1/namespaces/ns/configmaps"
PODS = "/api/v1/namespaces/ns/pods"


def cm(name, v):
    return configmap("ns", name, {"v": str(v)})


def pod(name):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "ns"},
            "spec": {"nodeName": "n1"}}


def state(lst):
    return sorted((i["metadata"]["name"], rv_of(i), i.get("data")) for i in lst["items"])


def redis_state(redis, prefix):
    return sorted((k.rsplit("/", 1)[1], rev, json.loads(v).get("data"))
                  for k, (rev, v) in redis.range(prefix).items())


def exits_with(redis, upstream, text, *args):
    rw = Ringwatch(redis, *args, upstream=upstream, wait=False)
    try:
        code = rw.proc.wait(20)
    except subprocess.TimeoutExpired:
        raise Failure("ringwatch did not exit (%s):\n%s" % (text, rw.logtext()))
    log = rw.logtext()
    rw.proc = None
    eq(code, 1, "exit status (%s)" % text)
    check(text in log, "the log says %r:\n%s" % (text, log))


def not_redis_server():
    """A loopback server that answers every connection like an HTTP server."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(8)

    def serve():
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")
            c.close()

    threading.Thread(target=serve, daemon=True).start()
    defer(ls.close)
    return ls.getsockname()[1]


def main():
    redis = Redis(password="s3cret", history=5)
    for i in range(3):
        redis.put(cm_key("ns", "c%d" % i), cm("c%d" % i, 0))
    relay = Relay(redis)
    rw = Ringwatch(redis, "--bookmark-interval", "1", resources="configmaps,pods",
                   upstream=relay.url)
    eq(rw.metric("ringwatch_upstream_connected", store="redis"), 1.0, "connected")

    # 1. LIST
    lst = rw.get_json(CM)
    eq(rv_of(lst), redis.revision("configmaps"), "LIST revision")
    eq(state(lst), redis_state(redis, "/registry/configmaps/ns/"), "LIST")

    # 2. WATCH
    w = rw.watch("%s?watch=1&resourceVersion=%d&allowWatchBookmarks=true"
                 % (CM, rv_of(lst)))
    r1 = redis.put(cm_key("ns", "new"), cm("new", 1))
    r2 = redis.put(cm_key("ns", "new"), cm("new", 2))
    r3 = redis.delete(cm_key("ns", "new"))
    for typ, rev, v in (("ADDED", r1, "1"), ("MODIFIED", r2, "2"), ("DELETED", r3, "2")):
        ev = next_of(w, (typ,), typ)
        eq(rv_of(ev["object"]), rev, "%s revision" % typ)
        eq(ev["object"]["data"]["v"], v, "%s object" % typ)

    # 3. an idle resource's revision advances
    rp = redis.put("/registry/pods/ns/p1", pod("p1"))
    deadline = time.time() + 10
    while True:
        ev = next_of(w, ("BOOKMARK",), "bookmark", timeout=deadline - time.time())
        if rv_of(ev["object"]) >= rp:
            break
    eq(rv_of(rw.get_json(CM)), rp, "consistent LIST of the idle configmaps")

    # 4. trimmed past ringwatch's revision while cut off
    relay.cut()
    time.sleep(0.3)
    for i in range(8):
        redis.put(cm_key("ns", "t%d" % i), cm("t%d" % i, i))
    check(redis.compacted("configmaps") > rp, "the log was trimmed past ringwatch")
    relay.restore()
    ev = next_of(w, ("ERROR",), "410 after trimming", timeout=15)
    eq(ev["object"]["code"], 410, "ERROR code after trimming")
    rev = redis.revision("configmaps")
    eq(state(rw.wait_rv(rev, CM)), redis_state(redis, "/registry/configmaps/ns/"),
       "LIST after the relist")

    # 5. restarted from an older RDB
    old = redis.snapshot()
    served = redis.put(cm_key("ns", "gone"), cm("gone", 1))
    rw.wait_rv(served, CM)
    w = rw.watch("%s?watch=1&resourceVersion=%d" % (CM, served))
    wp = rw.watch("%s?watch=1&resourceVersion=%d" % (PODS, served))
    redis.restore(old)
    redis.put(cm_key("ns", "reborn"), cm("reborn", 1))
    for x, what in ((w, "configmaps"), (wp, "pods")):
        ev = next_of(x, ("ERROR",), "410 after the restore (%s)" % what, timeout=20)
        eq(ev["object"]["code"], 410, "ERROR code after the restore")
    deadline = time.time() + 20
    while True:
        status, _, body = rw.get(CM)
        if status == 200:
            lst = json.loads(body)
            if state(lst) == redis_state(redis, "/registry/configmaps/ns/"):
                break
        check(time.time() < deadline, "LIST after the restore: %s %r" % (status, body[:300]))
        time.sleep(0.1)
    for r in ("configmaps", "pods"):
        eq(rw.metric("ringwatch_upstream_store_resets_total", resource=r,
                     reason="revision"), 1.0, "the reset counted for %s" % r)

    # 6. malformed log entries
    rev = redis.revision("configmaps")
    log = redis.keys("configmaps")[2]
    redis.command("XADD", log, "%d-5" % (rev + 1), "type", "PUT", "key",
                  cm_key("ns", "x"), "value", "{}")
    redis.command("XADD", log, "%d-0" % (rev + 2), "type", "PUT")
    redis.command("SET", redis.keys("configmaps")[0], rev + 2)
    ok = redis.put(cm_key("ns", "after"), cm("after", 1))
    lst = rw.wait_rv(ok, CM)
    check("after" in [i["metadata"]["name"] for i in lst["items"]], "the next change served")
    check("x" not in [i["metadata"]["name"] for i in lst["items"]], "the malformed one skipped")
    eq(rw.metric("ringwatch_upstream_malformed_total", store="redis"), 2.0, "malformed counted")
    rw.stop()

    # 7. refused at startup
    with open(redis.password_file, "w") as f:
        f.write("wrong\n")
    exits_with(redis, redis.url, "WRONGPASS")
    exits_with(redis, "redis://127.0.0.1:%d" % not_redis_server(), "Protocol error")


run(main)
