"""Running ringwatch-fleet from the integration tests: one run, its JSON
report, and the checks every verified run must pass (fleet_smoke over
etcd, fleet_redis_test over Redis)."""
import json
import os
import subprocess
import tempfile

from harness import TOP, check, eq

FLEET = os.environ.get("RINGWATCH_FLEET", os.path.join(TOP, "build", "ringwatch-fleet"))


def run_fleet(server, pid, store_args, *args, duration=6, timeout=90):
    """Runs the fleet against server (whose pid is pid) with store_args
    (["--etcd", URL] or ["--redis", URL, ...]) and args; returns its JSON
    report, with "_exit" (its status) and "_log" (its output)."""
    report = tempfile.NamedTemporaryFile(prefix="rw-fleet-", suffix=".json", delete=False)
    report.close()
    cmd = [FLEET, "--server", server, "--resource", "pods",
           "--duration", str(duration)] + list(store_args) + [
           "--server-pid", str(pid), "--report", report.name] + [str(a) for a in args]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        with open(report.name) as f:
            text = f.read()
    finally:
        os.unlink(report.name)
    check(text, "no report from %s\nstdout:\n%s\nstderr:\n%s", cmd, out.stdout, out.stderr[-3000:])
    r = json.loads(text)
    r["_exit"] = out.returncode
    r["_log"] = out.stdout + out.stderr[-3000:]
    return r


def verified(r, what):
    """The checks every run must pass."""
    for k in ("lost", "duplicated", "out_of_order", "mismatched_views", "errors"):
        eq(r[k], 0, "%s: %s (report %s)" % (what, k, json.dumps(r.get("error_detail"))))
    eq(r["_exit"], 0, "%s: exit status\n%s" % (what, r["_log"]))
    check(r["verified"] and r["drained"] and r["passed"], "%s: not verified: %s", what, r["_log"])
    lat = r["latency_ms"]
    for k in ("p50", "p90", "p99", "max"):
        check(isinstance(lat.get(k), (int, float)), "%s: latency_ms.%s missing", what, k)
    check(lat["count"] > 0 and 0 < lat["p50"] <= lat["p99"] <= lat["max"],
          "%s: latency %r", what, lat)
    srv = r.get("server", {})
    check(srv.get("pid", 0) > 0 and srv.get("cpu_s", -1) >= 0 and srv.get("rss_bytes", 0) > 0
          and srv.get("rss_peak_bytes", 0) >= srv["rss_bytes"], "%s: server %r", what, srv)
    check(r["writes"] > 0 and r["delivered"] > 0, "%s: nothing delivered: %s", what, r["_log"])
