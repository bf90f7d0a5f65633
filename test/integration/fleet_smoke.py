"""ringwatch-fleet end to end: real etcd, real ringwatch, real fleet.

etcd is seeded with 100 pods (10 deployments x 10 replicas) before
ringwatch starts.  Then, each run checked from the JSON report:

1. 200 watchers over HTTP/2 (4 connections), 50 writes/s for 6 s: every
   write reaches every watcher (delivered = writes x watchers), nothing
   lost, duplicated, out of order or mismatched, no errors, latency and
   the server's CPU and memory reported.
2. The same with 100 watchers over HTTP/1.1.
3. 50 watchers with labelSelector app=api-0 (10 of the 100 pods): they
   get exactly the oracle's share of the writes, fewer than all.
4. ringwatch with a ring of 8 events; the watchers start 1 s after the
   initial LIST while 20 writes/s go on, so every WATCH from R0 is
   answered ERROR 410: each watcher relists, and everything after the
   relist still verifies.
5. --profile kubelet: 200 watchers on 20 nodes while --churn writes 100
   pods/s (creates, status updates, moves, deletes) for 5 s: every
   kubelet sees exactly its node's pods, moves arrive as DELETED on the
   old node and ADDED on the new one.
6. --profile mix over HTTP/1.1: 10 controllers (all pods) and 90 kubelets.
7. --target etcd: the kubelet run as native etcd Watch streams on etcd
   itself: every watcher receives every change over the wire (delivered)
   and filters it; the relevant ones verify as through ringwatch.
8. The same through an etcd grpc-proxy (skipped when it does not start).
"""
import json
import subprocess

from harness import *
from fleet_lib import FLEET, run_fleet, verified

SEED = os.path.join(TOP, "scripts", "seed-cluster")


def fleet(rw, etcd, *args, duration=6, timeout=90, server=None, pid=None):
    """Runs the fleet against rw (or server, whose pid is pid); returns
    its JSON report."""
    return run_fleet(server or rw.url, pid or rw.proc.pid, ["--etcd", etcd.url], *args,
                     duration=duration, timeout=timeout)


def main():
    check(os.access(FLEET, os.X_OK), "no fleet binary at %s", FLEET)
    etcd = Etcd()
    out = subprocess.run([SEED, etcd.url, "--deployments", "10", "--replicas", "10"],
                         capture_output=True, text=True, timeout=60, check=True)
    check("100 pods" in out.stdout, "seed-cluster: %s", out.stdout)
    rw = Ringwatch(etcd, resources="pods")

    r = fleet(rw, etcd, "--watchers", 200, "--connections", 4, "--write-rate", 50)
    verified(r, "h2")
    eq((r["protocol"], r["watchers"], r["connections"]), ("h2", 200, 4), "h2 setup")
    eq(r["delivered"], r["writes"] * 200, "h2: delivered = writes x watchers")
    eq(r["events"]["MODIFIED"], r["delivered"], "h2: every event MODIFIED")
    check(r["writes"] >= 200, "h2: only %d writes in 6 s at 50/s", r["writes"])

    r = fleet(rw, etcd, "--watchers", 100, "--http1", "--write-rate", 50)
    verified(r, "http1")
    eq((r["protocol"], r["connections"]), ("http1", 100), "http1 setup")
    eq(r["delivered"], r["writes"] * 100, "http1: delivered = writes x watchers")

    r = fleet(rw, etcd, "--watchers", 50, "--label-selector", "app=api-0",
              "--write-rate", 50, duration=4)
    verified(r, "selector")
    eq(r["label_selector"], "app=api-0", "selector in the report")
    eq(r["delivered"], r["expected"], "selector: delivered = expected")
    check(0 < r["delivered"] < r["writes"] * 50,
          "selector: %d delivered of %d writes", r["delivered"], r["writes"])
    eq(r["delivered"] % 50, 0, "selector: every watcher got the same events")
    rw.stop()

    small = Ringwatch(etcd, "--ring-capacity", "8", resources="pods")
    r = fleet(small, etcd, "--watchers", 30, "--connections", 2, "--watch-delay", 1,
              "--write-rate", 20, duration=5)
    verified(r, "410")
    check(r["expired_410"] >= 30, "410: only %d of 30 watchers expired", r["expired_410"])
    check(r["relists"] >= 30, "410: only %d relists", r["relists"])
    check(r["delivered"] > 0 and r["delivered"] == r["expected"],
          "410: delivered %d, expected %d", r["delivered"], r["expected"])

    churn_runs(etcd)


def churned(r, what, watchers):
    """The checks of a --churn run."""
    verified(r, what)
    c = r["churn"]
    check(c["enabled"] and c["creates"] > 0 and c["updates"] > 0 and c["deletes"] > 0
          and c["moves"] > 0, "%s: churn %r", what, c)
    check(abs(c["live_pods"] - 500) <= 25, "%s: %d pods live", what, c["live_pods"])
    eq(r["relevant"], r["expected"], "%s: relevant = expected" % what)
    ev = r["events"]
    check(ev["ADDED"] > 0 and ev["DELETED"] > 0 and ev["MODIFIED"] > 0,
          "%s: events %r", what, ev)
    eq(r["watchers"], watchers, "%s: watchers" % what)
    eq((r["watch_failures"], r["terminated"], r["expired_410"]), (0, 0, 0),
       "%s: failed or terminated streams" % what)


def churn_runs(etcd):
    rw = Ringwatch(etcd, resources="pods")
    r = fleet(rw, etcd, "--profile", "kubelet", "--watchers", 200, "--nodes", 20,
              "--connections", 4, "--churn", "--pods", 500, "--write-rate", 100,
              duration=5)
    churned(r, "kubelet", 200)
    eq((r["profile"], r["target"], r["kubelets"], r["nodes"]), ("kubelet", "ringwatch", 200, 20),
       "kubelet setup")
    eq(r["delivered"], r["relevant"], "kubelet: ringwatch sends only relevant events")
    # Each pod is on one node, seen by its 10 kubelets: far fewer
    # deliveries than 200 watchers x writes.
    check(r["delivered"] < r["writes"] * 200 / 5, "kubelet: %d delivered for %d writes",
          r["delivered"], r["writes"])

    r = fleet(rw, etcd, "--profile", "mix", "--watchers", 100, "--nodes", 20, "--http1",
              "--churn", "--pods", 500, "--write-rate", 100, duration=4)
    churned(r, "mix", 100)
    eq((r["profile"], r["controllers"], r["kubelets"], r["protocol"]),
       ("mix", 10, 90, "http1"), "mix setup")
    rw.stop()

    r = fleet(None, etcd, "--target", "etcd", "--profile", "kubelet", "--watchers", 100,
              "--nodes", 20, "--connections", 2, "--churn", "--pods", 500,
              "--write-rate", 50, duration=4, server=etcd.url, pid=etcd_pid(etcd))
    churned(r, "etcd", 100)
    eq(r["target"], "etcd", "etcd setup")
    check(r["delivered"] > r["relevant"] * 3,
          "etcd: every watcher gets every change (%d delivered, %d relevant)",
          r["delivered"], r["relevant"])

    proxy = grpc_proxy(etcd)
    if proxy is None:
        print("etcd grpc-proxy did not start: proxy run skipped")
        return
    r = fleet(None, etcd, "--target", "etcd", "--profile", "kubelet", "--watchers", 100,
              "--nodes", 20, "--connections", 2, "--churn", "--pods", 500,
              "--write-rate", 50, duration=4, server=proxy[0], pid=proxy[1].pid)
    churned(r, "grpc-proxy", 100)


def etcd_pid(etcd):
    with open(os.path.join(etcd.dir, "pid")) as f:
        return int(f.read().strip())


def grpc_proxy(etcd):
    """An etcd grpc-proxy in front of etcd: (url, Popen), or None."""
    port = free_port()
    data = tempfile.mkdtemp(prefix="rw-proxy-")
    log = open(os.path.join(data, "log"), "w")
    proc = subprocess.Popen(["etcd", "grpc-proxy", "start",
                             "--endpoints=127.0.0.1:%d" % etcd.port,
                             "--listen-addr=127.0.0.1:%d" % port,
                             "--advertise-client-url=127.0.0.1:%d" % port,
                             "--data-dir=" + data], stdout=log, stderr=subprocess.STDOUT)

    def stop():
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        log.close()
        shutil.rmtree(data, ignore_errors=True)

    defer(stop)
    deadline = time.time() + 10
    while time.time() < deadline:
        if proc.poll() is not None:
            return None
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return ("http://127.0.0.1:%d" % port, proc)
        except OSError:
            time.sleep(0.1)
    return None


run(main)
