/*
 * watcher.h: one simulated informer's verification state, independent of
 * the transport that carries its requests (watch_h2.c, watch_h1.c; an
 * etcd-native transport fits the same interface), and the set of all of
 * them with the fleet-wide counters.
 *
 * A watcher behaves as a client-go reflector: it starts from a LIST with
 * resourceVersion=0, served from the server's cache (its
 * filter's leader LISTs S0 at R0 for everyone sharing the filter; or the
 * fleet fills S0 and R0 itself before the first request, as it does from
 * one etcd Range for --target etcd), then
 * WATCHes from the last resourceVersion it saw with allowWatchBookmarks;
 * on ERROR 410 (or HTTP 410) it LISTs again and re-watches from the LIST's
 * RV; a stream that ends cleanly is re-watched from the last RV.  The
 * transport asks watcher_next what to request, and feeds the response in
 * with watcher_begin / watcher_data / watcher_end.
 *
 * What is verified, per watcher:
 *  - received RVs strictly increase (same RV and key again: duplicated;
 *    lower: out_of_order; events of one multi-key etcd transaction share
 *    an RV and are accepted when their keys differ);
 *  - a BOOKMARK's RV is >= the last event's;
 *  - each event is one the oracle (oracle.h) says this watcher's filter
 *    must see, with that type (else unexpected / wrong_type), and every
 *    such event with RV in the verified range (after the last LIST's RV)
 *    arrives: one that is passed over, or still missing at the end, is
 *    lost;
 *  - the view (key -> RV, from the LIST, then each event applied) equals
 *    etcd's final state filtered (watcher_set_check_views).
 * Latency per event is receipt time minus the object's
 * ringwatch.io/written-at (DELETED: the oracle's value at that revision,
 * or the writer's send time of a delete).  The first receipt of a write
 * (first_latency) is the same difference taken only for the first event
 * any watcher receives with an RV above every RV received before: each
 * write's first receipt when every watcher sees every change (the
 * controllers); with kubelets, a write whose first receipt comes after a
 * later write's is left out.
 *
 * The oracle may learn of a change after a watcher received it: a
 * watcher's oracle checks then wait, in order, in one fleet-wide FIFO
 * until the oracle's known revision reaches them (watcher_set_advance).
 *
 * Memory per watcher: the struct (about 120 bytes), its view (12 bytes
 * per object it sees) and, only while a line spans two reads or a LIST
 * is arriving, a buffer for those bytes.  Event bytes are not kept per
 * watcher; the set keeps the last few thousand distinct event lines
 * (each scanned once for all watchers: line_cache.h).
 */
#ifndef FLEET_WATCHER_H
#define FLEET_WATCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/resource_type.h"
#include "src/fleet/filter.h"
#include "src/fleet/histogram.h"
#include "src/fleet/keys.h"
#include "src/fleet/oracle.h"
#include "src/fleet/view.h"

struct watcher;
struct watcher_set;

struct watcher_set_config {
    const struct resource_type *rt;
    const char *collection; /* "/api/v1/pods", "/apis/apps/v1/deployments" */
    struct keys *keys;
    struct oracle *oracle;           /* NULL: no verification against etcd */
    struct histogram *latency;       /* nanoseconds */
    struct histogram *first_latency; /* a write's first receipt, ns; NULL */
    /* The writer's send time of revision rv (unix ns), or -1; may be NULL. */
    int64_t (*send_time)(int64_t rv, void *arg);
    /* A filter's initial LIST completed: f->s0 and f->r0 are set. */
    void (*on_list_ready)(struct filter *f, void *arg);
    void *arg;
    double retry_delay; /* seconds before retrying a failed request;
                           0: 0.5 */
};

/* Fleet-wide counters (also what the report prints). */
struct watcher_totals {
    uint64_t events[3]; /* relevant ADDED, MODIFIED, DELETED received */
    uint64_t delivered; /* events received over the wire (--target etcd:
                           every change of the prefix, before the
                           client-side selector; else every event) */
    uint64_t relevant;  /* of which in the watcher's selection (sum of
                           events[]) */
    uint64_t bookmarks;
    uint64_t matched; /* events the oracle expected, received */
    uint64_t lost;
    uint64_t duplicated;
    uint64_t out_of_order;
    uint64_t unexpected;   /* events the oracle says nobody should get */
    uint64_t wrong_type;   /* expected event received with another type */
    uint64_t expired_410;  /* ERROR 410 events and HTTP 410 responses */
    uint64_t error_events; /* ERROR events other than 410 */
    uint64_t bookmark_regressions; /* BOOKMARK below the last event's RV */
    uint64_t view_anomalies;       /* ADDED of a present key, MODIFIED or
                                      DELETED of an absent one */
    uint64_t parse_errors;         /* lines or LIST bodies that did not scan */
    uint64_t http_errors;          /* responses other than 200 (and 410) */
    uint64_t transport_errors;     /* streams or connections that failed */
    uint64_t lists;                /* LISTs completed */
    uint64_t relists;              /* of which after 410 or ERROR */
    uint64_t rewatches;            /* watches resumed after a clean end */
    uint64_t unverified;           /* oracle checks left pending at the end */
    uint64_t mismatched_views;
    uint64_t watching;       /* watchers with a 200 WATCH open now */
    uint64_t watch_failures; /* WATCH streams that ended with an error:
                                an ERROR event (410 included), a reset,
                                a lost connection, an etcd cancel */
    uint64_t terminated;     /* watchers stopped for good (an etcd watch
                                compacted: no LIST to recover with) */
    uint64_t lines_scanned;  /* watch event lines actually scanned (the
                                rest came from the line cache) */
};

/* What watcher_next asks the transport to do. */
enum watcher_next {
    WATCHER_IDLE,    /* nothing now: ask again when kicked */
    WATCHER_GET,     /* GET path */
    WATCHER_BACKOFF, /* ask again after *delay seconds */
};

/* A set with room for capacity watchers. */
struct watcher_set *watcher_set_new(const struct watcher_set_config *cfg,
                                    size_t capacity);
void watcher_set_free(struct watcher_set *ws);

/* Adds a watcher of filter f (the filter's first becomes its leader). */
struct watcher *watcher_set_add(struct watcher_set *ws, struct filter *f);
size_t watcher_set_size(const struct watcher_set *ws);
struct watcher *watcher_set_at(struct watcher_set *ws, size_t i);
uint32_t watcher_id(const struct watcher *w);

/* Lets watchers WATCH (after every initial LIST and --watch-delay); the
 * caller then kicks the transport. */
void watcher_set_release(struct watcher_set *ws);

/* The initial LISTs ask for resourceVersion=rv (not older than rv: the
 * server's cache has applied the fleet's own setup writes) instead of
 * resourceVersion=0 (whatever the cache holds).  Call before the LISTs. */
void watcher_set_list_from(struct watcher_set *ws, int64_t rv);
/* No request is started from now on (watcher_next says IDLE), and
 * failures are no longer counted. */
void watcher_set_stop(struct watcher_set *ws);

/* ---- transport side ---- */

/* The next request of w: its path (written to path, cap bytes) or a
 * delay.  Also moves w into LISTING or WATCHING for a GET. */
enum watcher_next watcher_next(struct watcher *w, char *path, size_t cap,
                               double *delay);
/* The response's HTTP status arrived. */
void watcher_begin(struct watcher *w, int status);
/* len bytes of response body, received at now_ns (unix ns); data is only
 * read during the call. */
void watcher_data(struct watcher *w, const char *data, size_t len,
                  int64_t now_ns);
/* The response ended: complete (clean) or not (stream reset, connection
 * lost, never answered).  The transport then asks watcher_next. */
void watcher_end(struct watcher *w, bool clean);

/*
 * One decoded ADDED, MODIFIED or DELETED event of the open WATCH, for
 * transports that decode events themselves (an etcd-native watch would):
 * the object's key index (keys.h), its resourceVersion, its written-at
 * stamp (unix ns, -1 when none) and the receipt time (unix ns).  The JSON
 * path (watcher_data) ends here too, after counting the event.  Runs
 * every per-event check of watcher.h.
 */
void watcher_deliver(struct watcher *w, enum event_type type, uint32_t key,
                     int64_t rv, int64_t written_at, int64_t now_ns);

/*
 * For transports that filter client-side (--target etcd):
 * watcher_wire_events counts n events received over the wire as
 * delivered; watcher_relevant_event counts one that is in w's selection
 * (by type, and as relevant) and checks it (watcher_deliver).
 */
void watcher_wire_events(struct watcher *w, uint64_t n);
void watcher_relevant_event(struct watcher *w, enum event_type type,
                            uint32_t key, int64_t rv, int64_t written_at,
                            int64_t now_ns);
/* The open WATCH failed in-band: code 410 (resourceVersion compacted;
 * counted as a 410) or another; w LISTs again once the stream ends, as
 * after an ERROR event. */
void watcher_error(struct watcher *w, int code);
/* w can go no further (its transport cannot LIST): counted as
 * terminated; w issues nothing more and counts as caught up (what it
 * misses shows as lost). */
void watcher_terminate(struct watcher *w);

/* The RV w has passed (the last event, bookmark or LIST's). */
int64_t watcher_last_rv(const struct watcher *w);
struct filter *watcher_filter(const struct watcher *w);
/* Whether the request watcher_next just returned is a LIST (not a
 * WATCH). */
bool watcher_is_listing(const struct watcher *w);

/* ---- oracle side and the end ---- */

/* The oracle's known revision advanced: runs the waiting checks. */
void watcher_set_advance(struct watcher_set *ws);

/* Whether every watcher has received every event due up to target (or a
 * BOOKMARK at or past it) and nothing waits for the oracle. */
bool watcher_set_caught_up(const struct watcher_set *ws, int64_t target);
/* Watchers not caught up (for the log). */
size_t watcher_set_lagging(const struct watcher_set *ws, int64_t target);

/* Final accounting: runs what can still be checked, counts the rest as
 * unverified, and counts as lost every expected event up to end_rv that a
 * watcher did not receive. */
void watcher_set_finish(struct watcher_set *ws, int64_t end_rv);

/* Compares each watcher's view with its filter's final view; returns the
 * number that differ (also in the totals). */
uint64_t watcher_set_check_views(struct watcher_set *ws);

void watcher_set_totals(const struct watcher_set *ws, struct watcher_totals *t);

/* Bytes held by all watchers (structs, views, buffers) and the queue. */
size_t watcher_set_footprint(const struct watcher_set *ws);

#endif
