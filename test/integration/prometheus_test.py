"""A real Prometheus server (Debian's prometheus) scrapes ringwatch's
/metrics every second, and PromQL returns the ring hit ratio and the
counters that the test's own requests imply.

The test writes 8 revisions of one ConfigMap through a ring of 4 events,
then starts WATCHes: from resourceVersions inside the ring's window
(hits: served from the ring), from ones older than the window (misses:
ERROR 410 Expired) and without a resourceVersion or with 0 (counted as
WATCH starts, neither hit nor miss).  The expected values come from those
requests and the ring's capacity, never from /metrics; each watch's
answer is checked against its expected kind too.  Prometheus must then
return, from a scrape taken after the last request:

  ringwatch_watch_cache_hit_ratio                 hits / (hits + misses)
  hits_total / (hits_total + misses_total)        the same ratio, in PromQL
  ringwatch_watch_cache_misses_total              misses
  ringwatch_watch_starts_total                    every watch started
  up                                              1 (the scrape succeeded)
"""
import http.client
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

from harness import Etcd, Failure, Ringwatch, check, cm_key, configmap, defer, eq, \
    free_port, rv_of, run

RING = 4          # --ring-capacity
WRITES = 8        # revisions of the one ConfigMap
BOUND = 30        # seconds: Prometheus ready, a scrape after the requests


class Prometheus:
    """prometheus on a free loopback port scraping one target every second,
    its TSDB in a temp dir; stopped by PID when the test ends."""

    def __init__(self, target):
        self.dir = tempfile.mkdtemp(prefix="rw-prometheus-")
        self.port = free_port()
        config = os.path.join(self.dir, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global:\n"
                    "  scrape_interval: 1s\n"
                    "  scrape_timeout: 1s\n"
                    "scrape_configs:\n"
                    "  - job_name: ringwatch\n"
                    "    static_configs:\n"
                    "      - targets: ['%s']\n" % target)
        self.log = open(os.path.join(self.dir, "prometheus.log"), "w+")
        self.proc = subprocess.Popen(
            [shutil.which("prometheus"), "--config.file=" + config,
             "--storage.tsdb.path=" + os.path.join(self.dir, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port, "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT)
        defer(self.stop)
        self.wait(lambda: self.get("/-/ready")[0] == 200, "ready")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def logtext(self):
        self.log.flush()
        self.log.seek(0)
        return self.log.read()[-3000:]

    def get(self, path):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def query(self, promql):
        """The instant vector of promql now: [(labels, value)]."""
        status, body = self.get("/api/v1/query?" + urllib.parse.urlencode({"query": promql}))
        eq(status, 200, "query %s (%r)" % (promql, body[:300]))
        data = json.loads(body)["data"]
        eq(data["resultType"], "vector", "result type of " + promql)
        return [(r["metric"], float(r["value"][1])) for r in data["result"]]

    def one(self, promql):
        """The single value of promql (fails unless exactly one series)."""
        result = self.query(promql)
        eq(len(result), 1, "series of %s (%r)" % (promql, result))
        return result[0][1]

    def wait(self, cond, what):
        deadline = time.time() + BOUND
        while True:
            if self.proc.poll() is not None:
                raise Failure("prometheus exited %d:\n%s" % (self.proc.returncode,
                                                             self.logtext()))
            try:
                if cond():
                    return
            except (OSError, ValueError, KeyError):
                pass
            if time.time() > deadline:
                raise Failure("prometheus: not %s within %d s:\n%s" % (what, BOUND,
                                                                      self.logtext()))
            time.sleep(0.2)


def sel(name):
    return '%s{job="ringwatch",resource="configmaps"}' % name


def main():
    etcd = Etcd()
    rw = Ringwatch(etcd, "--ring-capacity", str(RING), resources="configmaps")
    prom = Prometheus("127.0.0.1:%d" % rw.port)

    # A scrape before any watch: the series exist, nothing counted yet.
    prom.wait(lambda: prom.query("up") == [({"__name__": "up", "job": "ringwatch",
                                             "instance": "127.0.0.1:%d" % rw.port}, 1.0)],
              "scraping ringwatch")
    eq(prom.one(sel("ringwatch_watch_cache_hits_total")), 0.0, "hits before any watch")
    check(math.isnan(prom.one(sel("ringwatch_watch_cache_hit_ratio"))),
          "hit ratio before any watch is NaN")

    revs = [etcd.put(cm_key("ns", "a"), configmap("ns", "a", {"i": str(i)}))
            for i in range(WRITES)]
    rw.wait_rv(revs[-1])
    eq(revs, list(range(revs[0], revs[0] + WRITES)), "consecutive revisions")
    # The ring holds the last RING events: a watch from N is served from it
    # when every change above N is still there, i.e. N >= oldest - 1.
    floor = revs[-RING] - 1
    starts = [revs[-1], revs[-2], floor, revs[-3], revs[0], revs[1], floor - 1, None, 0]
    hits = [n for n in starts if n is not None and n > 0 and n >= floor]
    misses = [n for n in starts if n is not None and 0 < n < floor]
    eq((len(hits), len(misses)), (4, 3), "the request mix")

    watches = []
    for n in starts:
        path = "/api/v1/configmaps?watch=true&timeoutSeconds=1"
        if n is not None:
            path += "&resourceVersion=%d" % n
        watches.append((n, rw.watch(path)))
    for n, w in watches:
        events, ended = w.events_for(5)
        check(ended, "watch from %r did not end", n)
        types = [e["type"] for e in events]
        if n in misses:
            eq(types, ["ERROR"], "watch from %d (older than the ring)" % n)
            eq(events[0]["object"]["code"], 410, "its Status code")
        elif n in hits:
            eq([rv_of(e["object"]) for e in events], [r for r in revs if r > n],
               "watch from %d (inside the ring)" % n)
        else:
            eq(types, ["ADDED"], "watch from %r (the current state)" % n)
    done = time.time()

    # A scrape that began after the last request has ended.
    prom.wait(lambda: prom.one("timestamp(%s)" % sel("ringwatch_watch_starts_total"))
              > done + 0.001, "scraped after the requests")
    want_ratio = len(hits) / (len(hits) + len(misses))
    got = prom.one(sel("ringwatch_watch_cache_hit_ratio"))
    check(abs(got - want_ratio) < 1e-6, "ringwatch_watch_cache_hit_ratio: got %r, want %r",
          got, want_ratio)
    hits_q, misses_q = sel("ringwatch_watch_cache_hits_total"), sel("ringwatch_watch_cache_misses_total")
    got = prom.one("%s / (%s + %s)" % (hits_q, hits_q, misses_q))
    check(abs(got - want_ratio) < 1e-9, "hits / (hits + misses) in PromQL: got %r, want %r",
          got, want_ratio)
    eq(prom.one(misses_q), float(len(misses)), "ringwatch_watch_cache_misses_total")
    eq(prom.one(sel("ringwatch_watch_starts_total")), float(len(starts)),
       "ringwatch_watch_starts_total")
    status, body = prom.get("/api/v1/targets")
    eq(status, 200, "targets")
    target = json.loads(body)["data"]["activeTargets"][0]
    eq((target["health"], target["lastError"]), ("up", ""), "the scrape's health")


if shutil.which("prometheus") is None:
    print("SKIP: prometheus is not installed (scripts/install-deps installs it)")
    sys.exit(77)
run(main)
