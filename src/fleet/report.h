/*
 * report.h: the fleet's results: the one-screen summary on stdout, the
 * JSON report (--report), and the server's CPU time and memory read from
 * /proc (--server-pid).
 *
 * JSON report fields (all numbers; latencies in milliseconds):
 *   watchers, connections, protocol ("h2"/"http1"), resource,
 *   label_selector, field_selector (null when none), duration_s (the
 *   configured load time), elapsed_s (measured, load plus drain), writes,
 *   writes_failed, delivered, deliveries_per_s, expected (events the
 *   oracle said the watchers must receive), latency_ms {count, p50, p90,
 *   p99, p999, max, mean}, events {ADDED, MODIFIED, DELETED}, lost,
 *   duplicated, out_of_order, mismatched_views, expired_410, bookmarks,
 *   errors (sum of error_detail), error_detail {...}, verified (an
 *   oracle and etcd's final state were available), drained, relists,
 *   unverified, fleet {cpu_s (the whole process), rss_bytes, rss_peak_bytes,
 *   watcher_bytes}, and
 *   server {pid, cpu_s, rss_bytes, rss_peak_bytes} with --server-pid.
 * Profiles, targets and churn add: profile ("controller", "kubelet",
 *   "mix"), target ("ringwatch", "etcd"), controllers, kubelets, nodes,
 *   relevant (delivered events in the watcher's selection: with --target
 *   etcd fewer than delivered, which counts every event on the wire),
 *   relevant_per_s, watch_failures (WATCH streams that ended with an
 *   error), terminated (watchers stopped for good), and churn {enabled,
 *   initial_pods, live_pods, creates, updates, moves, deletes}.
 * Writes add: write_via ("store", "server"), contention (writers per
 *   update), write_latency_ms {count, p50, p90, p99, p999, max, mean}
 *   (request to response of the acknowledged writes),
 *   first_receipt_ms {...} (request to the first watcher's receipt:
 *   watcher.h's first_latency), and through the server write_requests,
 *   conflicts (409s), conflict_rate (conflicts / write_requests),
 *   rereads (GETs after a 409) and gave_up (updates still conflicting
 *   after kube_write.h's KUBE_WRITE_ATTEMPTS PUTs).
 */
#ifndef FLEET_REPORT_H
#define FLEET_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "src/fleet/histogram.h"
#include "src/fleet/watcher.h"

/* One reading of a process from /proc/PID/stat and /proc/PID/status. */
struct proc_sample {
    bool ok;
    double cpu_s;            /* utime + stime, seconds */
    uint64_t rss_bytes;      /* VmRSS */
    uint64_t rss_peak_bytes; /* VmHWM */
};

/* Reads pid (0: this process).  Returns 0, or RW_ENOTFOUND when the
 * process or its files are gone (out->ok false). */
int report_proc_sample(long pid, struct proc_sample *out);

struct report {
    uint64_t watchers;
    uint64_t connections;
    const char *protocol;
    const char *resource;
    const char *label_selector; /* NULL: none */
    const char *field_selector;
    const char *profile;
    const char *target;
    uint64_t controllers, kubelets, nodes;
    bool churn;
    uint64_t creates, updates, moves, deletes, initial_pods, live_pods;
    double duration_s;
    double elapsed_s;
    uint64_t writes; /* acknowledged */
    uint64_t writes_failed;
    const char *write_via;                 /* "store" or "server" */
    uint64_t contention;                   /* writers per update */
    const struct histogram *write_latency; /* ns; NULL: no writer */
    const struct histogram *first_latency; /* ns */
    uint64_t write_requests, conflicts, rereads, gave_up;
    struct watcher_totals t;
    uint64_t expected;               /* matched + lost */
    const struct histogram *latency; /* nanoseconds */
    bool verified;
    bool drained;
    bool interrupted;
    bool oracle_failed;
    bool final_state_failed;
    uint64_t errors; /* filled by report_count_errors */
    struct proc_sample fleet;
    uint64_t watcher_bytes;
    bool has_server;
    long server_pid;
    double server_cpu_s; /* over the run */
    struct proc_sample server;
};

/* Sums every kind of error into r->errors (parse, HTTP, transport,
 * unexpected, wrong type, non-410 ERROR events, bookmark regressions,
 * view anomalies, failed writes, a failed oracle or final read, and not
 * draining in time) and returns it. */
uint64_t report_count_errors(struct report *r);

/* Whether the run passed: lost = duplicated = out_of_order =
 * mismatched_views = errors = 0 and it was not interrupted. */
bool report_passed(const struct report *r);

/* The one-screen summary. */
void report_summary(FILE *out, const struct report *r);

/* Writes the JSON report to path.  Returns 0 or RW_EIO (errno set). */
int report_write_json(const char *path, const struct report *r);

#endif
