#!/usr/bin/env python3
"""The table of scripts/bench (bench/README.md explains every number).

    bench/table.py collect WORK RESULTS STARTED MODE WATCHERS IDLE_WATCHERS DURATION RATE
        the table from the cases scripts/bench left in WORK (each case's
        case.json, fleet.json or rawfan.json, metrics.N), written to
        RESULTS/STARTED[-MODE].md and .json and RESULTS/latest.md;
    bench/table.py render FILE.json
        the table again from a saved run (to FILE.md, and latest.md when
        FILE is the newest in its folder).

Prints the table and the files written."""
import glob, json, os, platform, subprocess, sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def get(d, *path):
    for p in path:
        if not isinstance(d, dict) or p not in d or d[p] is None:
            return None
        d = d[p]
    return d

def first(*vals):
    for v in vals:
        if v is not None:
            return v
    return None

def collect(work):
    rows = []
    def counter(path, name):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(name + '{resource="pods"}'):
                        return float(line.split()[-1])
        except OSError:
            pass
        return None

    def dispatch_visits(d, watching):
        """ringwatch's (event, watcher) visits per received event, from the
        first to the last /metrics sample taken while every watcher was
        watching (so the fleet's setup and drain are left out)."""
        full = []
        for path in sorted(glob.glob(os.path.join(d, "metrics.*")),
                           key=lambda p: int(p.rsplit(".", 1)[1])):
            try:
                with open(path) as f:
                    text = f.read()
            except OSError:
                continue
            n = sum(float(l.split()[-1]) for l in text.splitlines()
                    if l.startswith("ringwatch_watchers{"))
            v = counter(path, "ringwatch_dispatch_visits_total")
            e = counter(path, "ringwatch_watch_events_received_total")
            if n >= watching and v is not None and e is not None:
                full.append((e, v))
        if len(full) < 2 or full[-1][0] <= full[0][0]:
            return None
        return (full[-1][1] - full[0][1]) / (full[-1][0] - full[0][0])

    for case_path in sorted(glob.glob(os.path.join(work, "*", "case.json"))):
        case = load(case_path)
        d = os.path.dirname(case_path)
        fleet = load(os.path.join(d, "fleet.json"))
        raw = load(os.path.join(d, "rawfan.json"))
        pub = load(os.path.join(d, "pubsub.json"))
        row = dict(case)
        if pub is not None:
            row["report"] = pub
        elif raw is not None:
            row["report"] = raw
            row["deliveries_per_s"] = raw.get("deliveries_per_s")
            row["wire_per_s"] = raw.get("deliveries_per_s")
            row["deliveries"] = raw.get("deliveries")
            row["server_cpu_s"] = get(raw, "sender", "cpu_s")
            row["server_rss_bytes"] = get(raw, "sender", "rss_bytes")
            row["p50_ms"] = get(raw, "latency_ms", "p50")
            row["p99_ms"] = get(raw, "latency_ms", "p99")
            parts = [raw.get("lost"), raw.get("reordered"), raw.get("framing_errors"),
                     get(raw, "receiver", "failed")]
            row["errors"] = sum(p for p in parts if p is not None)
            before, after = get(raw, "sender", "rss_before_bytes"), get(raw, "sender", "rss_bytes")
            if before is not None and after is not None:
                row["rss_per_watcher"] = (after - before) / max(
                    (raw.get("connections") or 1) * (raw.get("batch") or 1), 1)
        elif fleet is not None:
            row["report"] = fleet
            # Deliveries are the events in the watchers' selections ("relevant";
            # older fleets: every event received); wire events also count what
            # a client had to filter out itself (etcd has no field selectors).
            row["deliveries_per_s"] = first(fleet.get("relevant_per_s"), fleet.get("deliveries_per_s"))
            row["deliveries"] = first(fleet.get("relevant"), fleet.get("delivered"))
            row["wire_per_s"] = fleet.get("deliveries_per_s")
            row["server_cpu_s"] = get(fleet, "server", "cpu_s")
            row["server_rss_bytes"] = get(fleet, "server", "rss_bytes")
            row["p50_ms"] = get(fleet, "latency_ms", "p50")
            row["p99_ms"] = get(fleet, "latency_ms", "p99")
            parts = [fleet.get(k) for k in ("lost", "duplicated", "out_of_order",
                                            "mismatched_views", "expired_410", "errors",
                                            "terminated")]
            # watch_failures counts the 410 ERROR events too.
            if fleet.get("watch_failures") is not None:
                parts.append(max(fleet["watch_failures"] - (fleet.get("expired_410") or 0), 0))
            known = [p for p in parts if p is not None]
            row["errors"] = sum(known) if known else None
            if case.get("rss_max_bytes") and case.get("rss_before_bytes"):
                row["rss_per_watcher"] = (case["rss_max_bytes"] - case["rss_before_bytes"]) / max(
                    fleet.get("watchers") or case.get("watchers") or int(watchers), 1)
        visits = dispatch_visits(d, case.get("watchers") or int(watchers))
        if visits is not None:
            row["dispatch_visits_per_event"] = visits
        cpu, n = row.get("server_cpu_s"), row.get("deliveries")
        if cpu is not None and n:
            row["cpu_s_per_million"] = cpu / n * 1e6
        rows.append(row)
    return rows


if sys.argv[1] == "render":
    saved_path = sys.argv[2]
    saved = load(saved_path)
    if saved is None:
        sys.exit("scripts/bench: cannot read %s" % saved_path)
    rows, meta = saved["rows"], saved["meta"]
    results = os.path.dirname(saved_path) or "."
    started, mode = meta["started"], meta["mode"]
    watchers, duration, rate = str(meta["watchers"]), str(meta["duration_s"]), str(meta["write_rate"])
    idle_watchers = str(meta.get("idle_watchers") or watchers)
else:
    work, results, started, mode, watchers, idle_watchers, duration, rate = sys.argv[2:10]
    rows = collect(work)
    meta = None

# RSS growth below this is noise, not watchers (bench/README.md "Memory
# noise floor"): the server's heap reuses memory freed at startup, so the
# first 1-2.5 MiB of watchers may not grow RSS at all.
RSS_NOISE_FLOOR = 4 << 20

def rss_delta(r):
    """The RSS growth a row's per-watcher figure divides (bytes)."""
    if r["target"].startswith("raw"):
        before = get(r, "report", "sender", "rss_before_bytes")
        after = get(r, "report", "sender", "rss_bytes")
    else:
        before, after = r.get("rss_before_bytes"), r.get("rss_max_bytes")
    return after - before if before is not None and after is not None else None

for r in rows:
    delta = rss_delta(r)
    if r.get("rss_per_watcher") is not None and delta is not None and delta < RSS_NOISE_FLOOR:
        r["rss_per_watcher"] = None
        r["rss_not_significant"] = delta

def size(b):
    return "%.1f MiB" % (b / 1048576) if abs(b) >= 1048576 else "%.0f KiB" % (b / 1024)

def cell_rss(r):
    rpw, ns = r.get("rss_per_watcher"), r.get("rss_not_significant")
    if ns is not None:
        text = "n.s., %s%s" % ("+" if ns >= 0 else "", size(ns))
        return text if r["workload"] == "idle" else "(%s)" % text
    if rpw is None:
        return "-"
    return "%.0f B" % rpw if r["workload"] == "idle" else "(%.0f B)" % rpw

order_w = {"idle": 0, "fanout": 1, "kubelet": 2, "write": 3, "pubsub": 4}
order_t = {t: i for i, t in enumerate((
    "rw-h2", "rw-h2-redis", "redis-xread", "rw-h1", "rw-h1-redis", "etcd", "grpc-proxy", "rw-h2-tls", "etcd-tls",
    "grpc-proxy-tls", "raw", "raw-batched", "write-store", "write-server", "write-conflict"))}
rows.sort(key=lambda r: (order_w.get(r["workload"], 9), order_t.get(r["target"], 99)))
names = {"rw-h2": "ringwatch h2", "rw-h1": "ringwatch http1", "etcd": "etcd direct",
         "rw-h2-redis": "ringwatch h2 over Redis", "rw-h1-redis": "ringwatch http1 over Redis",
         "redis-xread": "Redis direct, XREAD BLOCK", "redis-pubsub": "Redis pub/sub",
         "write-store": "writes straight to etcd", "write-server": "writes through ringwatch",
         "write-conflict": "writes through ringwatch, contended",
         "grpc-proxy": "etcd grpc-proxy", "rw-h2-tls": "ringwatch h2 TLS",
         "etcd-tls": "etcd direct TLS", "grpc-proxy-tls": "etcd grpc-proxy TLS",
         "raw": "raw sockets",
         "raw-batched": "raw sockets, 100/write"}

def fmt(v, spec):
    return "-" if v is None else format(v, spec)

def cell_rate(r):
    return fmt(r.get("deliveries_per_s"), ",.0f")

def find(w, t):
    for r in rows:
        if r["workload"] == w and r["target"] == t and r["status"] in ("ok", "fail"):
            return r
    return None

head = ("| workload | target | status | deliveries/s | wire events/s | server CPU s "
        "| server CPU s / M deliveries | server RSS / watcher | p50 ms | p99 ms "
        "| errors | etcd CPU s | Redis CPU s |")
lines = [head, "|" + "---|" * 13]
for r in rows:
    if r["workload"] == "pubsub":
        continue  # the losses table
    st = r["status"]
    if st == "unavailable":
        st = "not available"
    measured = r["status"] in ("ok", "fail")
    samples = get(r, "report", "latency_ms", "count")
    lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
        r["workload"], names.get(r["target"], r["target"]), st, cell_rate(r),
        fmt(r.get("wire_per_s"), ",.0f"), fmt(r.get("server_cpu_s"), ".2f"),
        fmt(r.get("cpu_s_per_million"), ".2f"),
        cell_rss(r),
        fmt(r.get("p50_ms") if samples else None, ".1f"),
        fmt(r.get("p99_ms") if samples else None, ".1f"),
        fmt(r.get("errors"), ",d") + (" (not drained)" if get(r, "report", "drained") is False else ""),
        "-" if r["target"].startswith("raw") or not measured or r.get("redis_cpu_s") is not None
        else fmt(r.get("etcd_cpu_s"), ".2f"),
        fmt(r.get("redis_cpu_s") if measured else None, ".2f")))

ratios = []
def per_m(w, t):
    r = find(w, t)
    return r.get("cpu_s_per_million") if r else None
for w in ("fanout", "kubelet"):
    rw = per_m(w, "rw-h2")
    for t in ("etcd", "grpc-proxy"):
        o = per_m(w, t)
        ratios.append((w, "%s / ringwatch h2 CPU per delivery" % names[t],
                       "%.2fx" % (o / rw) if o and rw else "-"))
    rw1 = per_m(w, "rw-h1")
    ratios.append((w, "ringwatch http1 / ringwatch h2 CPU per delivery",
                   "%.2fx" % (rw1 / rw) if rw1 and rw else "-"))
    # Over Redis: the same server, another store (target: at most 1.10x).
    for t, base in (("rw-h2-redis", "rw-h2"), ("rw-h1-redis", "rw-h1")):
        o, b = per_m(w, t), per_m(w, base)
        ratios.append((w, "%s / %s CPU per delivery" % (names[t], names[base]),
                       "%.2fx" % (o / b) if o and b else "-"))
    # TLS: what it costs ringwatch, and how it compares with etcd's own
    # TLS front ends (targets: at most 1.5x; grpc-proxy TLS >= 10x).
    tls = per_m(w, "rw-h2-tls")
    ratios.append((w, "ringwatch h2 TLS / ringwatch h2 CPU per delivery",
                   "%.2fx" % (tls / rw) if tls and rw else "-"))
    for t in ("etcd-tls", "grpc-proxy-tls"):
        o = per_m(w, t)
        ratios.append((w, "%s / ringwatch h2 TLS CPU per delivery" % names[t],
                       "%.2fx" % (o / tls) if o and tls else "-"))
# Redis's own CPU per delivery, every watcher reading the log itself
# against ringwatch in front (target: at least 5x).
def redis_per_m(t):
    r = find("fanout", t)
    return r["redis_cpu_s"] / r["deliveries"] * 1e6 if r and r.get(
        "redis_cpu_s") and r.get("deliveries") else None
x, y = redis_per_m("redis-xread"), redis_per_m("rw-h2-redis")
ratios.append(("fanout", "Redis CPU per delivery: Redis direct, XREAD BLOCK / ringwatch h2 "
               "over Redis", "%.1fx" % (x / y) if x and y else "-"))
for t, base in (("rw-h2", "raw"), ("rw-h1", "raw"), ("rw-h2", "raw-batched")):
    raw, rw = per_m("fanout", base), per_m("fanout", t)
    ratios.append(("fanout", "%s as %% of %s (its CPU per delivery / ringwatch's x 100)" % (
        names[t], names[base]), "%.0f%%" % (raw / rw * 100) if raw and rw else "-"))
for w in ("fanout", "kubelet"):
    for t in ("rw-h2", "rw-h1"):
        r = find(w, t)
        v = (r or {}).get("dispatch_visits_per_event")
        ratios.append((w, "%s dispatch: watchers looked at per event received "
                       "(steady state; %s watchers)" % (names[t], watchers),
                       "%.2f" % v if v is not None else "-"))
for t, base in (("etcd", "rw-h2"), ("grpc-proxy", "rw-h2"), ("rw-h2-tls", "rw-h2"),
                ("etcd-tls", "rw-h2-tls"), ("grpc-proxy-tls", "rw-h2-tls")):
    ri, rr = find("idle", t), find("idle", base)
    a, b = (ri or {}).get("rss_per_watcher"), (rr or {}).get("rss_per_watcher")
    ns = ri and rr and any(x.get("rss_not_significant") is not None for x in (ri, rr))
    ratios.append(("idle", "%s / %s RSS per watcher" % (names[t], names[base]),
                   "%.1fx" % (a / b) if a and b and b > 0 else ("n.s." if ns else "-")))

def git_rev():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, timeout=10).stdout.strip() or None
    except Exception:
        return None

cpu_model = None
try:
    for l in open("/proc/cpuinfo"):
        if l.startswith("model name"):
            cpu_model = l.split(":", 1)[1].strip()
            break
except OSError:
    pass
if meta is None:
    meta = {"started": started, "mode": mode, "watchers": int(watchers),
            "idle_watchers": int(idle_watchers),
            "duration_s": int(duration), "write_rate": int(rate), "git": git_rev(),
            "cpus": os.cpu_count(), "cpu_model": cpu_model, "kernel": platform.release()}

idle_n = meta.get("idle_watchers") or meta["watchers"]
if not any(r["workload"] == "idle" for r in rows):
    idle_n = meta["watchers"]
write_n = [r["watchers"] for r in rows if r["workload"] == "write"]
md = ["# ringwatch benchmark, %s (%s)" % (started, mode), "",
      "%d watchers%s%s, %s s per case, %s writes/s; %s CPUs (%s), Linux %s; git %s." % (
          meta["watchers"], "" if idle_n == meta["watchers"] else " (idle: %d)" % idle_n,
          " (write: %d)" % write_n[0] if write_n else "",
          duration, rate, meta["cpus"], cpu_model or "?", meta["kernel"], meta["git"] or "?"),
      "Fleet and server share the machine.  Server RSS per watcher is measured in the idle "
      "workload (in parentheses under load, where it includes queued bytes); where the "
      "RSS grew less than the %s noise floor it is n.s. (not significant), with the "
      "growth seen.  See bench/README.md for what each number means." % size(RSS_NOISE_FLOOR), ""]
# The writes: each row's writer, request to response and to the first
# watcher's receipt (bench/README.md "Writes").
writes = [r for r in rows if r["workload"] == "write" and r["status"] in ("ok", "fail")]
def quant(r, name, q):
    return fmt(get(r, "report", name, q) if get(r, "report", name, "count") else None, ".2f")
def writes_per_s(r):
    rep = r.get("report") or {}
    return rep["writes"] / rep["duration_s"] if rep.get("writes") and rep.get("duration_s") else None
if writes:
    md += lines + ["", "| workload | target | writers per update | writes/s | write p50 ms "
                   "| write p99 ms | first receipt p50 ms | first receipt p99 ms | 409s "
                   "| given up |", "|" + "---|" * 10]
    for r in writes:
        rep = r.get("report") or {}
        md.append("| write | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            names.get(r["target"], r["target"]), rep.get("contention", 1),
            fmt(writes_per_s(r), ",.0f"), quant(r, "write_latency_ms", "p50"),
            quant(r, "write_latency_ms", "p99"), quant(r, "first_receipt_ms", "p50"),
            quant(r, "first_receipt_ms", "p99"),
            "%d (%.1f%%)" % (rep["conflicts"], 100 * rep.get("conflict_rate", 0))
            if rep.get("write_requests") else "-",
            fmt(rep.get("gave_up") if rep.get("write_requests") else None, "d")))
    lines = []
    # What ringwatch adds to a write (target: at most 1 ms at p50).
    a, b = find("write", "write-server"), find("write", "write-store")
    def lat(r, q):
        return get(r, "report", "write_latency_ms", q) if r and get(
            r, "report", "write_latency_ms", "count") else None
    for q in ("p50", "p99"):
        x, y = lat(a, q), lat(b, q)
        ratios.append(("write", "writes through ringwatch - straight to etcd, %s (ms added)" % q,
                       "%+.2f ms" % (x - y) if x is not None and y is not None else "-"))
# What the clients lost across disconnects (bench/README.md "Pub/sub
# losses"): Redis pub/sub per group of subscribers, ringwatch's watchers.
pubsub = [r for r in rows if r["workload"] == "pubsub" and r["status"] in ("ok", "fail")]
if pubsub:
    md += lines + ["", "| workload | target | clients | disconnects | changes written "
                   "| expected | lost | lost, keyspace notifications |", "|" + "---|" * 8]
    lines = []
    for r in pubsub:
        rep = r.get("report") or {}
        if r["target"] == "redis-pubsub":
            for g, x in sorted((rep.get("groups") or {}).items()):
                md.append("| pubsub | Redis pub/sub, %s | %d | %s | %s | %s | %s | %s |" % (
                    g, x["subscribers"], "%d reconnects, %d closed by Redis" % (
                        x["reconnects"], x["closed_by_redis"]), fmt(rep.get("logged"), ",d"),
                    fmt(x["expected"], ",d"), fmt(x["publish"]["lost"], ",d"),
                    fmt(x["keyspace"]["lost"], ",d")))
        else:
            md.append("| pubsub | %s, watches ended every 1-2 s | %d | %s | %s | %s | %s | - |" % (
                names.get(r["target"], r["target"]), rep.get("watchers", 0),
                fmt((rep.get("rewatches") or 0) + (rep.get("watch_failures") or 0), ",d"),
                fmt(rep.get("writes"), ",d"), fmt(rep.get("expected"), ",d"),
                fmt(rep.get("lost"), ",d")))
md += lines + ["", "| workload | ratio | value |", "|---|---|---|"]
md += ["| %s | %s | %s |" % x for x in ratios]
def error_parts(r):
    rep = r.get("report") or {}
    parts = []
    for k in ("lost", "duplicated", "out_of_order", "mismatched_views", "expired_410",
              "watch_failures", "terminated", "reordered", "framing_errors"):
        if rep.get(k):
            parts.append("%s %s" % (k.replace("_", " "), rep[k]))
    for k, v in sorted((rep.get("error_detail") or {}).items()):
        if v:
            parts.append("%s %s" % (k.replace("_", " "), v))
    return parts

def initial_added(r):
    """ADDED events beyond the churn's creates after the LIST and its moves:
    the initial pods, when the fleet's resourceVersion=0 LIST was served
    from a cache that had not seen them yet."""
    rep = r.get("report") or {}
    ch, ev = rep.get("churn") or {}, rep.get("events") or {}
    if not ch.get("enabled") or ev.get("ADDED") is None:
        return 0
    later = (ch.get("creates") or 0) - (ch.get("initial_pods") or 0) + (ch.get("moves") or 0)
    extra = ev["ADDED"] - later
    return extra if extra > max(10, 0.01 * (ch.get("initial_pods") or 0)) else 0

notes = [r for r in rows if r["status"] != "ok" or r.get("errors") or initial_added(r)]
if notes:
    md += ["", "Notes:"]
    for r in notes:
        why = r.get("reason") or ", ".join(error_parts(r))
        if initial_added(r):
            why = (why + "; " if why else "") + (
                "about %d of the churn's initial pods arrived as ADDED events (the "
                "resourceVersion=0 LIST predates them), counted as deliveries" % initial_added(r))
        md.append("- %s / %s: %s%s" % (r["workload"], names.get(r["target"], r["target"]),
                                       {"unavailable": "not available"}.get(r["status"], r["status"]),
                                       (": " + why) if why else ""))
md += ["", "Commands:", ""]
md += ["    " + r["command"] for r in rows if r.get("command")]
text = "\n".join(md) + "\n"

latest = os.path.join(results, "latest.md")
if sys.argv[1] == "render":
    stem = saved_path[:-5] if saved_path.endswith(".json") else saved_path
    newest = sorted(glob.glob(os.path.join(results, "*.json")))[-1:]
    written = [stem + ".md"]
    if newest and os.path.abspath(newest[0]) == os.path.abspath(saved_path):
        written.append(latest)
else:
    stem = os.path.join(results, started + ("" if mode == "full" else "-" + mode))
    with open(stem + ".json", "w") as f:
        json.dump({"meta": meta, "rows": rows, "ratios": [
            {"workload": w, "ratio": n, "value": v} for w, n, v in ratios]}, f, indent=1)
    written = [stem + ".md", latest]
for path in written:
    with open(path, "w") as f:
        f.write(text)
print(text)
print("written: %s" % ", ".join(written + ([] if sys.argv[1] == "render" else [stem + ".json"])))
