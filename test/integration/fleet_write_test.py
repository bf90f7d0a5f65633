"""ringwatch-fleet's writes through ringwatch (--write-via server,
--contention) and, over Redis, its watchers reading the store's log
themselves (--target redis): real store (harness.Store(): etcd, or Redis
as NAME.py.redis), real ringwatch, real fleet.  60 seeded pods; each run
checked from its JSON report:

1. --write-via server, 40 watchers, 50 updates/s: every update is a PUT
   through ringwatch, acknowledged with its revision (write_requests =
   writes, no 409); every write reaches every watcher; the write latency
   to the response and to the first watcher's receipt are reported, one
   sample per write (every watcher sees every change here).
2. --contention 3: each update by three writers from the same
   resourceVersion: exactly one wins each round, so a third of the
   requests and more are 409 Conflict (at least 2 per update), every loser
   re-reads and converges (gave_up 0, writes = 3 x updates), and every
   write still reaches every watcher exactly once.
3. Straight to the store (the default): the same latencies are reported,
   with no requests through the server.
4. Over Redis only, --target redis: 30 watchers, each on a connection of
   its own reading the log with XREAD BLOCK, verify like ringwatch's
   (delivered = writes x watchers, MODIFIED only, nothing lost).
5. Refusals (exit 2): --contention without --write-via server, an unknown
   --write-via, --write-via server with --target etcd, --target redis
   without --redis.
"""
import os
import subprocess

from fleet_lib import FLEET, run_fleet, verified
from harness import Ringwatch, Store, check, eq, run
from harness_redis import Redis


def pod(i):
    ns, name = "ns%d" % (i % 3), "p%d" % i
    return "/registry/pods/%s/%s" % (ns, name), {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": ns, "labels": {"app": "api-%d" % (i % 6)},
                     "uid": "uid-%d" % i, "creationTimestamp": "2026-12-01T00:00:00Z"},
        "spec": {"nodeName": "node-%d" % (i % 4), "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running"}}


def store_args(store):
    if isinstance(store, Redis):
        args = ["--redis", store.url, "--redis-revisions", store.revisions,
                "--redis-history", str(store.history)]
        return args + (["--redis-password-file", store.password_file]
                       if store.password_file else [])
    return ["--etcd", store.url]


def refused(args, words):
    out = subprocess.run([FLEET, "--server", "http://127.0.0.1:1", "--duration", "1"] + args,
                         capture_output=True, text=True, timeout=60)
    eq(out.returncode, 2, "exit status of %r (%s)" % (args, out.stderr))
    for w in words:
        check(w in out.stderr, "%r: %r not in %r", args, w, out.stderr)


def latencies(r, what):
    for name in ("write_latency_ms", "first_receipt_ms"):
        lat = r[name]
        check(0 < lat["p50"] <= lat["p99"] <= lat["max"], "%s: %s %r", what, name, lat)
    eq(r["write_latency_ms"]["count"], r["writes"], "%s: a latency per write" % what)
    eq(r["first_receipt_ms"]["count"], r["writes"], "%s: a first receipt per write" % what)


def main():
    check(os.access(FLEET, os.X_OK), "no fleet binary at %s", FLEET)
    store = Store()
    rw = None
    for i in range(60):
        key, obj = pod(i)
        store.put(key, obj)
    rw = Ringwatch(store, resources="pods")
    fleet = lambda *a, **k: run_fleet(rw.url, rw.proc.pid, store_args(store), *a, **k)

    r = fleet("--watchers", 40, "--write-rate", 50, "--write-via", "server", duration=4)
    verified(r, "via server")
    eq((r["write_via"], r["contention"], r["writes_failed"]), ("server", 1, 0), "via server")
    eq(r["write_requests"], r["writes"], "via server: one PUT per write")
    eq((r["conflicts"], r["rereads"], r["gave_up"]), (0, 0, 0), "via server: no conflict")
    eq(r["delivered"], r["writes"] * 40, "via server: delivered = writes x watchers")
    latencies(r, "via server")

    r = fleet("--watchers", 20, "--write-rate", 30, "--write-via", "server",
              "--contention", 3, duration=4)
    verified(r, "contention")
    updates = r["writes"] // 3
    eq(r["writes"], updates * 3, "contention: every writer of every update got it in")
    eq(r["gave_up"], 0, "contention: a writer gave up")
    check(r["conflicts"] >= 2 * updates, "contention: %d conflicts for %d updates",
          r["conflicts"], updates)
    eq(r["rereads"], r["conflicts"], "contention: a re-read per conflict")
    eq(r["write_requests"], r["writes"] + r["conflicts"], "contention: requests")
    check(r["conflict_rate"] >= 1 / 3 - 1e-3, "contention: 409 rate %r", r["conflict_rate"])
    eq(r["delivered"], r["writes"] * 20, "contention: delivered = writes x watchers")
    eq(r["writes_failed"], 0, "contention: failed writes")

    r = fleet("--watchers", 20, "--write-rate", 50, duration=3)
    verified(r, "straight")
    eq((r["write_via"], r["write_requests"]), ("store", 0), "straight: no request")
    latencies(r, "straight")
    rw.stop()

    if isinstance(store, Redis):
        r = run_fleet("http://127.0.0.1:1", store.proc.pid, store_args(store),
                      "--watchers", 30, "--write-rate", 50, "--target", "redis", duration=3)
        verified(r, "XREAD")
        eq((r["target"], r["connections"]), ("redis", 30), "XREAD: a connection each")
        eq(r["delivered"], r["writes"] * 30, "XREAD: delivered = writes x watchers")
        eq(r["events"]["MODIFIED"], r["delivered"], "XREAD: every event MODIFIED")

    refused(store_args(store) + ["--contention", "2"], ["--contention", "--write-via server"])
    refused(store_args(store) + ["--write-via", "proxy"], ["--write-via", "store or server"])
    refused(["--target", "etcd", "--write-via", "server"], ["--target ringwatch"])
    refused(["--target", "redis"], ["--target redis needs --redis"])


run(main)
