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
         "raw-batched": "raw sockets, 100/write"}


def growth(row):
    """(RSS growth in bytes, watchers) as the run recorded them."""
    if row["target"].startswith("raw"):
        rep = row["report"]
        return (rep["sender"]["rss_bytes"] - rep["sender"]["rss_before_bytes"],
                rep["connections"] * rep["batch"])
    return row["rss_max_bytes"] - row["rss_before_bytes"], row["report"]["watchers"]


def render(tmp, name):
    shutil.copy(os.path.join(TOP, "bench", "results", name), tmp)
    p = subprocess.run([os.path.join(TOP, "scripts", "bench"), "--render",
                        os.path.join(tmp, name)], capture_output=True, text=True, timeout=60)
    eq(p.returncode, 0, "scripts/bench --render %s (%s)" % (name, p.stderr))
    with open(os.path.join(tmp, name[:-5] + ".md")) as f:
        cells = [[c.strip() for c in line.strip().strip("|").split("|")]
                 for line in f if line.startswith("| ")]
    return {(c[0], c[1]): c for c in cells}


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


run(main)
