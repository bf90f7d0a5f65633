#!/usr/bin/env python3
"""One case of scripts/bench as JSON: what the script measured around the
fleet (or rawfan), from the CASE_* environment variables scripts/bench's
case_json sets, written to $CASE_FILE for bench/table.py."""
import json, os
e = os.environ
json.dump({"workload": e["CASE_WORKLOAD"], "target": e["CASE_TARGET"],
           "status": e["CASE_STATUS"], "reason": e["CASE_REASON"].strip()[:300] or None,
           "watchers": int(e["CASE_WATCHERS"]), "duration_s": int(e["CASE_DURATION"]),
           "write_rate": int(e["CASE_RATE"]),
           "rss_before_bytes": int(e["CASE_RSS_BEFORE"] or 0) * 1024,
           "rss_max_bytes": int(e["CASE_RSS_MAX"] or 0) * 1024,
           "etcd_cpu_s": float(e["CASE_ETCD_CPU"] or 0), "wall_s": int(e["CASE_WALL"] or 0),
           # redis-server's CPU over the fleet's run (rows over Redis only)
           "redis_cpu_s": float(e["CASE_REDIS_CPU"]) if e.get("CASE_REDIS_CPU") else None,
           "command": e["CASE_COMMAND"] or None},
          open(e["CASE_FILE"], "w"), indent=1)
