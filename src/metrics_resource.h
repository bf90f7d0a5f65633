/*
 * metrics_resource.h: the counters of one served resource, which its
 * resource (src/resource.c), its watchers (src/watch.c) and the read
 * handlers (src/fresh.c, src/list.c) bump in place (plain integers: one
 * thread), and src/metrics.c renders on /metrics.
 *
 * Apart from metrics.h so that the modules that count sit below the
 * renderer, which reads every resource and its watchers: the counters
 * depend on nothing.  The ring hit rate is hits / (hits + misses) of WATCH
 * starts with an explicit resourceVersion: served from the ring versus
 * answered 410 Expired.
 */
#ifndef METRICS_RESOURCE_H
#define METRICS_RESOURCE_H

#include <stdint.h>

struct metrics_resource {
    uint64_t watch_hits;        /* watch starts at an RV inside the window */
    uint64_t watch_misses;      /* watch starts answered 410 Expired */
    uint64_t watch_starts;      /* all watch starts, including RV 0/unset */
    uint64_t list_hits;         /* LISTs served from memory */
    uint64_t list_misses;       /* LISTs delegated upstream */
    uint64_t gets;              /* GETs of one object */
    uint64_t probes;            /* freshness probes sent to the store */
    uint64_t events_received;   /* changes applied from the upstream */
    uint64_t events_replayed;   /* of those, replayed by a warm start
                                   (src/resource.h resource_catch_up) */
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
    uint64_t rbac_skipped;       /* RBAC objects malformed, skipped
                                    (src/authz.c) */
    uint64_t ended_unauthorized; /* watches ended as their user lost
                                    access (src/watch_authz.c) */
};

#endif
