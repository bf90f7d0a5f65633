"""ringwatch-fleet over Redis (--redis): real redis-server, real ringwatch
over it, real fleet.  The writer writes through the "ringwatch" functions,
the oracle follows the resource's change log, the final state is the
objects' hash.  Each run is checked from its JSON report:

1. 100 watchers over HTTP/2 while 50 updates/s go to 60 seeded pods: every
   write reaches every watcher (delivered = writes x watchers), nothing
   lost, duplicated, out of order or mismatched.
2. 40 watchers over HTTP/1.1 with labelSelector app=api-0: exactly the
   oracle's share of the writes.
3. Per-resource revisions with a password: --profile mix over --churn
   (creates, updates, moves, deletes): every kubelet sees exactly its
   node's pods, so the follower gives the oracle the value each change
   replaced (a move is DELETED on the old node, ADDED on the new one).
4. Refusals: --redis beside --etcd, a URL that is not redis://, an unknown
   --redis-revisions (exit 2); a wrong password (exit 1, said why).
"""
import os
import subprocess
import tempfile

from fleet_lib import FLEET, run_fleet, verified
from harness import Redis, Ringwatch, check, eq, run


def pod(ns, name, app, node):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "labels": {"app": app},
                         "creationTimestamp": "2026-12-01T00:00:00Z"},
            "spec": {"nodeName": node, "containers": [{"name": "c", "image": "i"}]},
            "status": {"phase": "Running"}}


def fleet(rw, redis, *args, duration=4, password_file=None):
    store = ["--redis", redis.url, "--redis-revisions", redis.revisions,
             "--redis-history", str(redis.history)]
    if password_file or redis.password_file:
        store += ["--redis-password-file", password_file or redis.password_file]
    return run_fleet(rw.url, rw.proc.pid, store, *args, duration=duration)


def checked(r, what):
    verified(r, what)
    eq(r["writes_failed"], 0, "%s: failed writes" % what)


def refused(args, status, words):
    out = subprocess.run([FLEET, "--server", "http://127.0.0.1:1", "--duration", "1"] + args,
                         capture_output=True, text=True, timeout=60)
    eq(out.returncode, status, "exit status of %r (%s)" % (args, out.stderr))
    for w in words:
        check(w in out.stderr, "%r: %r not in %r", args, w, out.stderr)


def main():
    check(os.access(FLEET, os.X_OK), "no fleet binary at %s", FLEET)
    redis = Redis()
    for i in range(60):
        redis.put("/registry/pods/ns%d/p%d" % (i % 3, i),
                  pod("ns%d" % (i % 3), "p%d" % i, "api-%d" % (i % 6), "node-%d" % (i % 4)))
    rw = Ringwatch(redis, resources="pods")

    r = fleet(rw, redis, "--watchers", 100, "--write-rate", 50)
    checked(r, "h2")
    eq(r["delivered"], r["writes"] * 100, "h2: delivered = writes x watchers")
    eq(r["events"]["MODIFIED"], r["delivered"], "h2: every event MODIFIED")
    eq(len(redis.log("pods")), 60 + r["writes"], "h2: one log entry per write")

    r = fleet(rw, redis, "--watchers", 40, "--http1", "--label-selector", "app=api-0",
              "--write-rate", 50)
    checked(r, "http1 selector")
    eq(r["delivered"], r["expected"], "selector: delivered = expected")
    check(0 < r["delivered"] < r["writes"] * 40,
          "selector: %d delivered of %d writes", r["delivered"], r["writes"])
    rw.stop()

    secured = Redis(revisions="per-resource", password="s3cret", history=5000)
    rw = Ringwatch(secured, resources="pods")
    r = fleet(rw, secured, "--watchers", 40, "--profile", "mix", "--mix-controllers", 4,
              "--nodes", 8, "--churn", "--pods", 80, "--move-fraction", "0.3",
              "--write-rate", 150)
    checked(r, "churn")
    c = r["churn"]
    check(c["moves"] > 0 and c["deletes"] > 0 and c["creates"] > c["initial_pods"],
          "churn: %r", c)
    eq(secured.keys("pods")[0], "{rw:pods}:rev", "per-resource tag")
    check(secured.revision("pods") >= r["writes"], "churn: counter %d below %d writes",
          secured.revision("pods"), r["writes"])

    wrong = tempfile.NamedTemporaryFile("w", prefix="rw-pass-", delete=False)
    wrong.write("not-it\n")
    wrong.close()
    try:
        r = fleet(rw, secured, "--watchers", 2, duration=1, password_file=wrong.name)
        eq(r["_exit"], 1, "wrong password: exit status")
        check("redis" in r["_log"] and "AUTH" in r["_log"].upper(),
              "wrong password: the log does not say why: %s", r["_log"])
    finally:
        os.unlink(wrong.name)

    refused(["--redis", secured.url, "--etcd", "http://127.0.0.1:2379"], 2, ["--redis"])
    refused(["--redis", "http://127.0.0.1:6379"], 2, ["--redis", "redis://HOST:PORT"])
    refused(["--redis", secured.url, "--redis-revisions", "both"], 2, ["--redis-revisions"])


run(main)
