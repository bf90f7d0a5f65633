"""scripts/bench never prints a memory-per-watcher figure from an RSS
growth below its noise floor (4 MiB, bench/README.md "Memory noise
floor"): rendering saved runs again (scripts/bench --render), every row,
idle, under load and raw, shows either n.s. with the growth seen or the
growth divided by the watchers, whichever the run's own numbers call for,
and the RSS ratios are n.s. when they would use a figure that is not.

The inputs are the committed runs in bench/results: a quick run at 1,000
watchers, whose idle ringwatch rows grew by 340 and 592 KiB (printed then
as 348 and 606 B per watcher), and a full run at 10,000."""
import json
import os
import shutil
import subprocess
import tempfile

from harness import TOP, check, defer, eq, run

FLOOR = 4 << 20
RUNS = ["2026-11-29-2205-quick.json", "2026-11-29-2315.json"]
NAMES = {"rw-h2": "ringwatch h2", "rw-h1": "ringwatch http1", "etcd": "etcd direct",
         "grpc-proxy": "etcd grpc-proxy", "raw": "raw sockets",
         "raw-batched": "raw sockets, 100/write", "rw-h2-tls": "ringwatch h2 TLS",
         "etcd-tls": "etcd direct TLS", "grpc-proxy-tls": "etcd grpc-proxy TLS",
         "rw-h2-redis": "ringwatch h2 over Redis", "rw-h1-redis": "ringwatch http1 over Redis",
         "write-store": "writes straight to etcd", "write-server": "writes through ringwatch",
         "write-conflict": "writes through ringwatch, contended",
         "redis-xread": "Redis direct, XREAD BLOCK"}


def growth(row):
    """(RSS growth in bytes, watchers) as the run recorded them."""
    if row["target"].startswith("raw"):
        rep = row["report"]
        return (rep["sender"]["rss_bytes"] - rep["sender"]["rss_before_bytes"],
                rep["connections"] * rep["batch"])
    return row["rss_max_bytes"] - row["rss_before_bytes"], row["report"]["watchers"]


def render(tmp, name):
    """The committed run name rendered again: {(workload, target): every
    cell of its row}."""
    with open(os.path.join(TOP, "bench", "results", name)) as f:
        saved = json.load(f)
    return {k: list(k) + v for k, v in render_cells(tmp, saved, name).items()}


def main():
    tmp = tempfile.mkdtemp(prefix="rw-bench-table-")
    defer(lambda: shutil.rmtree(tmp, ignore_errors=True))
    not_significant = 0
    for name in RUNS:
        with open(os.path.join(TOP, "bench", "results", name)) as f:
            saved = json.load(f)
        table = render(tmp, name)
        per_watcher = {}
        for row in saved["rows"]:
            if row["status"] not in ("ok", "fail"):
                continue
            cell = table[(row["workload"], NAMES[row["target"]])][7]
            delta, watchers = growth(row)
            under_load = row["workload"] != "idle"
            if delta < FLOOR:
                not_significant += 1
                want = "n.s., +%.0f KiB" % (delta / 1024) if delta < 1 << 20 else \
                    "n.s., +%.1f MiB" % (delta / 1048576)
            else:
                per_watcher[(row["workload"], row["target"])] = delta / watchers
                want = "%.0f B" % (delta / watchers)
            eq(cell, "(%s)" % want if under_load else want,
               "%s: %s / %s, RSS +%d bytes for %d watchers" % (
                   name, row["workload"], row["target"], delta, watchers))
        for t in ("etcd", "grpc-proxy"):
            ratio = table[("idle", "%s / ringwatch h2 RSS per watcher" % NAMES[t])][2]
            a, b = per_watcher.get(("idle", t)), per_watcher.get(("idle", "rw-h2"))
            eq(ratio, "%.1fx" % (a / b) if a and b else "n.s.", "%s: idle %s ratio" % (name, t))
    check(not_significant >= 4, "the quick run's small growths were judged (%d)",
          not_significant)
    tls_rows(tmp)
    redis_rows(tmp)
    write_rows(tmp)
    pubsub_rows(tmp)


def render_cells(tmp, saved, name):
    """{(workload, target or ratio): the row's cells after the first two}
    of saved rendered as bench/results/name."""
    with open(os.path.join(tmp, name), "w") as f:
        json.dump(saved, f)
    p = subprocess.run([os.path.join(TOP, "scripts", "bench"), "--render",
                        os.path.join(tmp, name)], capture_output=True, text=True, timeout=60)
    eq(p.returncode, 0, "scripts/bench --render %s (%s)" % (name, p.stderr))
    with open(os.path.join(tmp, name[:-5] + ".md")) as f:
        rows = [[c.strip() for c in line.strip().strip("|").split("|")]
                for line in f if line.startswith("| ")]
    return {(r[0], r[1]): r[2:] for r in rows}


def redis_rows(tmp):
    """The rows over Redis (rw-h2-redis, rw-h1-redis) sit next to their
    etcd rows, show redis-server's CPU in the Redis CPU column (and none in
    etcd's), and their ratios divide their CPU per delivery by the same
    server's over etcd.  The full run's rows, copied as Redis rows with
    known factors, are the input."""
    with open(os.path.join(TOP, "bench", "results", RUNS[1])) as f:
        saved = json.load(f)
    factor = {"rw-h2": 1.05, "rw-h1": 0.9}
    for row in list(saved["rows"]):
        if row["target"] in factor and row["status"] in ("ok", "fail"):
            red = json.loads(json.dumps(row))
            red["target"] += "-redis"
            if red.get("cpu_s_per_million") is not None:
                red["cpu_s_per_million"] *= factor[row["target"]]
            red["redis_cpu_s"] = 1.25
            saved["rows"].append(red)
    cells = render_cells(tmp, saved, "2026-11-30-0001-redis.json")
    per_m = {r["target"]: r.get("cpu_s_per_million") for r in saved["rows"]
             if r["workload"] == "fanout"}
    for t, base in (("rw-h2-redis", "rw-h2"), ("rw-h1-redis", "rw-h1")):
        row = cells[("fanout", NAMES[t])]
        eq(row[9:11], ["-", "1.25"], "%s: the etcd and Redis CPU cells" % t)
        eq(cells[("fanout", NAMES[base])][10], "-", "%s: no Redis CPU" % base)
        eq(cells[("fanout", "%s / %s CPU per delivery" % (NAMES[t], NAMES[base]))][0],
           "%.2fx" % (per_m[t] / per_m[base]), "%s ratio" % t)
    order = [k[1] for k in cells if k[0] == "fanout" and k[1] in NAMES.values()]
    eq(order[:4], [NAMES[t] for t in ("rw-h2", "rw-h2-redis", "rw-h1", "rw-h1-redis")],
       "the Redis rows follow their etcd rows")
    # Redis direct: its Redis CPU per delivery over ringwatch h2 over Redis's
    h2 = next(r for r in saved["rows"] if r["workload"] == "fanout" and r["target"] == "rw-h2-redis")
    xread = json.loads(json.dumps(h2))
    xread.update(target="redis-xread", redis_cpu_s=9.0, deliveries=h2["deliveries"] // 2)
    saved["rows"].append(xread)
    cells = render_cells(tmp, saved, "2026-11-30-0001-redis.json")
    eq(cells[("fanout", "Redis CPU per delivery: Redis direct, XREAD BLOCK / ringwatch h2 over Redis")][0],
       "%.1fx" % ((9.0 / (h2["deliveries"] // 2)) / (1.25 / h2["deliveries"])), "XREAD ratio")
    eq(cells[("fanout", NAMES["redis-xread"])][10], "9.00", "XREAD's Redis CPU")


def write_rows(tmp):
    """The write workload's rows (write-store, write-server,
    write-conflict) get the writes table: writes/s from the writer's
    acknowledged writes over the load time, the write latencies to the
    response and to the first watcher's receipt, the 409s with their rate
    and the updates given up; and the ms ringwatch adds at p50 and p99.
    The full run's fanout ringwatch h2 row, copied as write rows with
    known write reports, is the input; a row without samples shows "-"."""
    with open(os.path.join(TOP, "bench", "results", RUNS[1])) as f:
        saved = json.load(f)
    base = next(r for r in saved["rows"] if r["workload"] == "fanout" and r["target"] == "rw-h2")
    writes = {"write-store": (1, 1000, 0.8, 2.5, 0, 0, 0),
              "write-server": (1, 1000, 1.3, 4.0, 1000, 0, 0),
              "write-conflict": (3, 2000, 2.0, 9.0, 3000, 1000, 7)}
    for t, (k, acked, p50, p99, reqs, conflicts, gave_up) in writes.items():
        row = json.loads(json.dumps(base))
        row.update(workload="write", target=t, watchers=100)
        row["report"].update(writes=acked, duration_s=10.0, contention=k,
                             write_requests=reqs, conflicts=conflicts,
                             conflict_rate=conflicts / reqs if reqs else 0, gave_up=gave_up,
                             write_latency_ms={"count": acked, "p50": p50, "p99": p99},
                             first_receipt_ms={"count": acked, "p50": p50 + 0.5,
                                               "p99": p99 + 1})
        saved["rows"].append(row)
    cells = render_cells(tmp, saved, "2026-11-30-0002-write.json")
    eq(cells[("write", NAMES["write-store"])][:8],
       ["1", "100", "0.80", "2.50", "1.30", "3.50", "-", "-"], "write-store's writes")
    eq(cells[("write", NAMES["write-server"])][:8],
       ["1", "100", "1.30", "4.00", "1.80", "5.00", "0 (0.0%)", "0"], "write-server's writes")
    eq(cells[("write", NAMES["write-conflict"])][:8],
       ["3", "200", "2.00", "9.00", "2.50", "10.00", "1000 (33.3%)", "7"],
       "write-conflict's writes")
    eq(cells[("write", "writes through ringwatch - straight to etcd, p50 (ms added)")][0],
       "+0.50 ms", "p50 added")
    eq(cells[("write", "writes through ringwatch - straight to etcd, p99 (ms added)")][0],
       "+1.50 ms", "p99 added")
    saved["rows"] = [r for r in saved["rows"] if r["target"] != "write-store"]
    cells = render_cells(tmp, saved, "2026-11-30-0003-write.json")
    eq(cells[("write", "writes through ringwatch - straight to etcd, p50 (ms added)")][0],
       "-", "no p50 added without the straight row")


def pubsub_rows(tmp):
    """The pubsub workload's rows (bench/pubsub.py's groups, ringwatch's
    watchers) are in the losses table only: per Redis pub/sub group its
    subscribers, reconnects and closures, the changes the log holds, the
    messages expected and lost on both channels; ringwatch's watchers with
    their watch ends and the fleet's lost count."""
    with open(os.path.join(TOP, "bench", "results", RUNS[1])) as f:
        saved = json.load(f)
    base = next(r for r in saved["rows"] if r["workload"] == "fanout" and r["target"] == "rw-h2")
    rw = json.loads(json.dumps(base))
    rw.update(workload="pubsub", target="rw-h1-redis")
    rw["report"].update(watchers=90, rewatches=500, watch_failures=7, writes=999,
                        expected=89910, lost=0)
    group = lambda n, rc, closed, lost: {
        "subscribers": n, "expected": 1000 * n, "reconnects": rc, "closed_by_redis": closed,
        "publish": {"received": 1000 * n - lost, "lost": lost},
        "keyspace": {"received": 1000 * n - lost + 1, "lost": lost - 1}}
    pub = {"workload": "pubsub", "target": "redis-pubsub", "status": "ok", "watchers": 90,
           "report": {"logged": 1000, "groups": {"steady": group(30, 0, 0, 0),
                                                 "reconnect": group(30, 30, 0, 3000),
                                                 "slow": group(30, 150, 151, 15000)}}}
    saved["rows"] += [rw, pub]
    cells = render_cells(tmp, saved, "2026-11-30-0004-pubsub.json")
    eq(cells[("pubsub", "Redis pub/sub, slow")],
       ["30", "150 reconnects, 151 closed by Redis", "1,000", "30,000", "15,000", "14,999"],
       "the slow subscribers' losses")
    eq(cells[("pubsub", "Redis pub/sub, steady")][4], "0", "the control loses nothing")
    eq(cells[("pubsub", NAMES["rw-h1-redis"] + ", watches ended every 1-2 s")],
       ["90", "507", "999", "89,910", "0", "-"], "ringwatch's watchers")
    check(not any(k[0] == "pubsub" and k[1] == NAMES["rw-h1-redis"] for k in cells),
          "a pubsub row in the main table")


def tls_rows(tmp):
    """The TLS rows (rw-h2-tls, etcd-tls, grpc-proxy-tls) are rows like the
    others, and their ratios divide what they should: ringwatch's TLS CPU
    per delivery by its plaintext one, etcd's TLS front ends' by
    ringwatch's TLS one, idle RSS per watcher likewise.  The full run's
    rows, copied as TLS rows with known factors, are the input."""
    with open(os.path.join(TOP, "bench", "results", RUNS[1])) as f:
        saved = json.load(f)
    factor = {"rw-h2": 1.25, "etcd": 2.0, "grpc-proxy": 3.0}
    for row in list(saved["rows"]):
        if row["target"] in factor and row["status"] in ("ok", "fail"):
            tls = json.loads(json.dumps(row))
            tls["target"] += "-tls"
            if tls.get("cpu_s_per_million") is not None:
                tls["cpu_s_per_million"] *= factor[row["target"]]
            saved["rows"].append(tls)
    cells = {k: v[0] for k, v in render_cells(tmp, saved, "2026-11-30-0000-tls.json").items()}
    for t in ("rw-h2-tls", "etcd-tls", "grpc-proxy-tls"):
        check(("fanout", NAMES[t]) in cells, "no fanout row for %s" % t)
    rw = {r["target"]: r for r in saved["rows"] if r["workload"] == "fanout"}
    per_m = {t: rw[t]["cpu_s_per_million"] for t in rw}
    eq(cells[("fanout", "ringwatch h2 TLS / ringwatch h2 CPU per delivery")],
       "%.2fx" % (per_m["rw-h2-tls"] / per_m["rw-h2"]), "TLS cost ratio")
    eq(cells[("fanout", "etcd grpc-proxy TLS / ringwatch h2 TLS CPU per delivery")],
       "%.2fx" % (per_m["grpc-proxy-tls"] / per_m["rw-h2-tls"]), "grpc-proxy TLS ratio")
    check(("idle", "ringwatch h2 TLS / ringwatch h2 RSS per watcher") in cells,
          "no idle TLS RSS ratio")


run(main)
