/*
 * metrics.h: ringwatch's counters and their Prometheus text exposition
 * (/metrics, text format 0.0.4).
 *
 * Each resource owns a struct metrics_resource that the dispatcher and
 * handlers bump in place (plain integers: one thread).  Names follow the
 * kube-apiserver's watch-cache metrics where one exists (events received
 * and dispatched, capacity, resource version), prefixed ringwatch_.  The
 * ring hit rate is hits / (hits + misses) of WATCH starts with an explicit
 * resourceVersion: served from the ring versus answered 410 Expired.
 */
#ifndef METRICS_H
#define METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/rbuf.h"

struct resource;

struct metrics_resource {
    uint64_t watch_hits;        /* watch starts at an RV inside the window */
    uint64_t watch_misses;      /* watch starts answered 410 Expired */
    uint64_t watch_starts;      /* all watch starts, including RV 0/unset */
    uint64_t list_hits;         /* LISTs served from memory */
    uint64_t list_misses;       /* LISTs delegated upstream */
    uint64_t gets;              /* GETs of one object */
    uint64_t probes;            /* freshness probes sent to the store */
    uint64_t events_received;   /* changes applied from the upstream */
    uint64_t events_dispatched; /* event frames written to watch streams */
    uint64_t dispatch_visits;   /* (event, watcher) pairs the dispatcher or a
                                   watcher's pull looked at */
    uint64_t bookmarks_sent;    /* BOOKMARK frames written */
    uint64_t reconnects;        /* upstream watch re-establishments */
    uint64_t relists;           /* lists after the first */
    uint64_t undecodable;       /* store values not servable (kjson.h) */
    uint64_t terminated_expired; /* watchers lapped by the ring */
    uint64_t terminated_relist;  /* watchers a relist could not carry */
    uint64_t terminated_reset;   /* watchers a store reset ended */
    uint64_t store_resets[2];    /* by enum resource_reset */
};

/* What /metrics shows beyond the resources. */
struct metrics_global {
    uint64_t connections[2];     /* current client connections: h1, h2 */
    const char *upstream_store;   /* the adapter: the store label, "etcd" */
    bool upstream_connected;
    const char *upstream_version; /* the store's version, "" when unknown */
    uint64_t upstream_connects; /* connections established, the first
                                   included */
    uint64_t upstream_connect_failures; /* attempts that failed */
    uint64_t shutdown_connections_cut; /* closed unfinished at shutdown */
};

/* Renders every metric as Prometheus text into a new rbuf. */
struct rbuf *metrics_render(struct resource *const *resources, size_t n,
                            const struct metrics_global *global);

#endif
