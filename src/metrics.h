/*
 * metrics.h: ringwatch's counters and their Prometheus text exposition
 * (/metrics, text format 0.0.4).
 *
 * Each resource owns a struct metrics_resource (src/metrics_resource.h)
 * that the dispatcher and handlers bump in place.  Names follow the
 * kube-apiserver's watch-cache metrics where one exists (events received
 * and dispatched, capacity, resource version), prefixed ringwatch_.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/rbuf.h"

struct resource;
struct tls_stats;

/* Request fairness (fairness.h), by flow class: exempt, workload. */
enum metrics_flow_class {
    METRICS_FLOW_EXEMPT,
    METRICS_FLOW_WORKLOAD,
    METRICS_FLOW_CLASSES,
};
enum metrics_reject_reason {
    METRICS_REJECT_QUEUE_FULL,
    METRICS_REJECT_TIME_OUT,
    METRICS_REJECT_REASONS,
};
struct metrics_fairness {
    uint64_t seats_limit; /* 0: no fairness, nothing rendered */
    uint64_t seats_in_use;
    uint64_t queued[METRICS_FLOW_CLASSES];
    uint64_t dispatched[METRICS_FLOW_CLASSES];
    uint64_t rejected[METRICS_FLOW_CLASSES][METRICS_REJECT_REASONS];
};

/* What /metrics shows beyond the resources. */
struct metrics_global {
    uint64_t connections[2];     /* current client connections: h1, h2 */
    const char *upstream_store;   /* the adapter: the store label, "etcd" */
    bool upstream_connected;
    const char *upstream_version; /* the store's version, "" when unknown */
    uint64_t upstream_connects; /* connections established, the first
                                   included */
    uint64_t upstream_connect_failures; /* attempts that failed, TLS
                                           handshakes included */
    uint64_t upstream_malformed; /* store records skipped as malformed */
    const char *upstream_tls_error;     /* upstream_status's tls_error */
    uint64_t shutdown_connections_cut; /* closed unfinished at shutdown */
    struct metrics_fairness fairness;
    /* Authentication attempts (src/authn.h's authn_counts): [0] succeeded,
     * [1] failed (401), per method (enum identity_method); shown only
     * when authentication is configured (authn). */
    bool authn;
    uint64_t authn_attempts[2][4];
    const struct tls_stats *tls; /* TLS counters (tls.h); NULL: no TLS */
};

/* Renders every metric as Prometheus text into a new rbuf. */
struct rbuf *metrics_render(struct resource *const *resources, size_t n,
                            const struct metrics_global *global);

#endif
