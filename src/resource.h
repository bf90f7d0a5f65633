/*
 * resource.h: one served resource type at run time: its cache, its
 * watchers, its bookmark timer and its counters, and the two faces it
 * shows: to the upstream adapter that feeds it (the sink functions), and
 * to the handlers that serve LIST and WATCH from it.
 *
 * The sink takes raw store values in revision order.  Values are decoded
 * here once (kjson_decode_object); a value that is not a JSON object of
 * the resource's type is counted, logged once per key and never served: a key
 * whose value turns undecodable leaves the cache as a DELETED event, so no
 * watcher keeps a state the store no longer has.  Watchers are woken once per
 * batch (resource_flush), not per event.
 *
 * The resource knows nothing of what serves its changes: its one
 * subscriber (the watch set, src/watch.h) registers a struct
 * resource_subscriber_ops, and the resource calls it once per batch, per
 * bookmark round, per relist and per reset.
 */
#ifndef RESOURCE_H
#define RESOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "cache/resource_type.h"
#include "cache/watchcache.h"

struct event_base;
struct object;
struct resource;
struct upstream_reader;
struct metrics_resource;

struct resource_config {
    size_t ring_events;         /* ring capacity, events */
    size_t ring_bytes;          /* ring capacity, bytes */
    double bookmark_interval;   /* seconds between BOOKMARK rounds */
};

struct resource *resource_new(struct event_base *base,
                              const struct resource_type *rt,
                              const struct resource_config *cfg);
/* Frees; its subscriber must be gone (resource_unsubscribe).  NULL is a
 * no-op. */
void resource_free(struct resource *r);

const struct resource_type *resource_type(const struct resource *r);
struct event_base *resource_base(const struct resource *r);
struct watchcache *resource_cache(const struct resource *r);
struct metrics_resource *resource_metrics(struct resource *r);
/* Whether the cache holds a complete list and is not relisting: LIST and
 * WATCH are served (else 429). */
bool resource_ready(const struct resource *r);
/* Ready, and caught up with the store after a warm start: the cache's
 * revision has reached the store's at the time (resource_catch_up).
 * What /readyz reports, so that a load balancer sends new clients only to
 * a replica that is not replaying. */
bool resource_caught_up(const struct resource *r);
/* The store's revision the cache catches up to after a warm start (0:
 * none since the start or the last reset of the store's history). */
int64_t resource_catchup_rev(const struct resource *r);

/* ---- the subscriber: what serves the resource's changes ---- */

/*
 * The calls a resource makes to its subscriber, each with the arg given to
 * resource_subscribe, from inside the sink functions or the bookmark timer:
 * - dispatch: resource_flush, once per upstream batch: new events may be
 *   in the ring;
 * - bookmark: every bookmark_interval seconds (resource_config);
 * - relist_begin, relist_note, relist_done: resource_list_end of a list
 *   after the first, around watchcache_replace: begin with the old ring
 *   still in place, note for every object the relist changed (old and/or
 *   new state, either may be NULL), done with the new cache in place;
 * - reset: resource_history_reset, before the cache is emptied; rev is the
 *   store's revision now.
 * Every op is required.
 */
struct resource_subscriber_ops {
    void (*dispatch)(void *arg);
    void (*bookmark)(void *arg);
    void (*relist_begin)(void *arg);
    void (*relist_note)(void *arg, const struct object *old,
                        const struct object *new_obj);
    void (*relist_done)(void *arg);
    void (*reset)(void *arg, int64_t rev);
};

/* Makes ops/arg r's subscriber (borrowed: they outlive the subscription).
 * A resource has at most one. */
void resource_subscribe(struct resource *r,
                        const struct resource_subscriber_ops *ops, void *arg);
/* Ends the subscription; the resource then tells nobody. */
void resource_unsubscribe(struct resource *r);
/* The arg of r's subscriber if it subscribed with ops, else NULL: how a
 * subscriber module finds its own state from the resource. */
void *resource_subscriber(const struct resource *r,
                          const struct resource_subscriber_ops *ops);

/*
 * An observer besides the subscriber, for a module that reads the cache's
 * state rather than serving its events (src/authz.c: the RBAC objects):
 * changed(arg) runs after a batch that changed the cache (resource_flush,
 * after the subscriber's dispatch), after a list is in (resource_list_end)
 * and after the cache was emptied by a history reset.  At most one;
 * NULL fn: none.  arg is borrowed and outlives the observation.
 */
void resource_observe(struct resource *r, void (*changed)(void *arg),
                      void *arg);

/* ---- upstream reads and waiting for a revision (src/fresh.h) ---- */

/* The upstream's direct reads (borrowed; NULL: none, e.g. at shutdown). */
void resource_set_reader(struct resource *r, const struct upstream_reader *rd);
const struct upstream_reader *resource_reader(const struct resource *r);

/* Keys under prefix (len bytes) whose stored value the cache could not
 * decode (and so does not hold), as of resource_rv(): with the store's
 * objects under prefix, the number of keys etcd has there. */
size_t resource_undecodable_under(const struct resource *r, const char *prefix,
                                  size_t len);

/*
 * A wait for the cache to reach a revision.  The owner fills rv, fn and
 * arg and keeps the struct alive while it waits.  fn(w, arg) runs once,
 * from the event loop, after a batch, a progress revision or a list brings
 * resource_rv() to rv or beyond, or when the store's history is reset
 * (resource_epoch() moved on: the revision may never mean what it meant);
 * w is already removed when it runs.
 */
struct rv_waiter {
    LIST_ENTRY(rv_waiter) link; /* private */
    bool waiting;               /* private */
    int64_t rv;
    void (*fn)(struct rv_waiter *w, void *arg);
    void *arg;
};
/* Starts waiting; fn runs later even if rv is already reached. */
void resource_wait(struct resource *r, struct rv_waiter *w);
/* Stops waiting (fn will not run).  A waiter not waiting is a no-op. */
void resource_unwait(struct resource *r, struct rv_waiter *w);

/* ---- the store's history (src/upstream_history.h) ---- */

/* Why the store's history was reset. */
enum resource_reset {
    RESOURCE_RESET_REVISION, /* a revision below one already seen */
    RESOURCE_RESET_IDENTITY, /* another store (etcd's cluster ID) */
    RESOURCE_RESET_MAX,
};

/* The label of why on /metrics: "revision" or "identity". */
const char *resource_reset_name(enum resource_reset why);

/*
 * The store's history was reset (told by src/upstream_history.c): every
 * revision up to old_rev (the highest the old history showed) may now name
 * another change and is lost from now on (resource_rv_lost); the store is
 * at new_rev.  As losing the window, only
 * more so: counts it (ringwatch_upstream_store_resets_total); tells the
 * subscriber (reset), whose watches end with ERROR 410 Expired "too old
 * resource version: SEEN (new_rev)" (counted as terminated, reason
 * store_reset), so that informers relist;
 * drops the list being received (resource_list_abort after it is a
 * no-op); empties the cache (store and ring), which
 * is then not ready: LIST and WATCH get 429 until the adapter's next list
 * is in; wakes every waiter (resource_wait), and reads in progress refuse
 * to serve anything (src/fresh.h).  The upstream adapter then lists again
 * (resource_rv() is 0).
 */
void resource_history_reset(struct resource *r, enum resource_reset why,
                            int64_t old_rev, int64_t new_rev);

/* Store history resets seen: a continue token or a read started in an
 * earlier epoch must not be served state of a later one. */
uint64_t resource_epoch(const struct resource *r);

/*
 * Whether rv (> 0) is a lost revision: at or below the highest revision a
 * reset history showed (the old_rev of every resource_history_reset, or
 * the cache's revision then if higher), for the life of the process.  Such
 * a revision may name a state of the abandoned history (a client that
 * held it then, or got it from another server) or of the current one
 * (ringwatch may hand it out again while the store has not passed it):
 * nothing tells which, and serving one as the other loses changes
 * silently, so a watch from it and an Exact read at it get 410 Expired (a
 * relist; a continue token says its epoch, and is refused only when that
 * is an earlier one).  Reads choose revisions outside it to hand out when
 * they can (src/fresh.h).  Never true before a reset.
 */
bool resource_rv_lost(const struct resource *r, int64_t rv);
/* The highest lost revision (0: none). */
int64_t resource_lost_rv(const struct resource *r);

/* ---- sink: called by the upstream adapter, in revision order ---- */

/* The revision the cache reflects; an upstream watch resumes at rv + 1.
 * 0 before the first complete list. */
int64_t resource_rv(const struct resource *r);

/* A (re)list begins: items follow, then list_end or list_abort. */
void resource_list_begin(struct resource *r);
/* One key/value of the list (any order within the list). */
void resource_list_item(struct resource *r, const char *key, size_t key_len,
                        const void *value, size_t value_len, int64_t mod_rev);
/* The list at revision rev is complete: it replaces the cache.  A relist
 * tells the subscriber what changed in the gap (relist_begin, _note,
 * _done): watchers whose selection it changed get ERROR 410 and end, the
 * others carry on.  Counts a relist when the cache was already
 * initialised. */
void resource_list_end(struct resource *r, int64_t rev);
/* The list failed part way (connection lost, revision compacted): its
 * items are dropped; the cache keeps its previous state. */
void resource_list_abort(struct resource *r);

/* A PUT at mod_rev.  Replays (mod_rev <= resource_rv) are ignored. */
void resource_put(struct resource *r, const char *key, size_t key_len,
                  const void *value, size_t value_len, int64_t mod_rev);
/* A DELETE of key at mod_rev. */
void resource_delete(struct resource *r, const char *key, size_t key_len,
                     int64_t mod_rev);
/* No change for this resource up to rev (progress notification). */
void resource_progress(struct resource *r, int64_t rev);
/* End of one upstream batch (WatchResponse): the subscriber's dispatch
 * (the watchers pull), then the waiters the revision reached. */
void resource_flush(struct resource *r);

/*
 * Right before the resource_list_end of a list read at a revision older
 * than the store's (a warm start, src/upstream_etcd_warm.h): the store
 * was at store_rev;
 * the changes in between come next, in order, as the upstream watch
 * replays them.  Meanwhile LIST and WATCH are served by the usual
 * resourceVersion rules (a watch from an RV above the cache's waits for
 * the changes above it; a consistent read waits for the cache or reads
 * the store, src/fresh.h), and resource_caught_up is false until the
 * cache's revision reaches store_rev (by the replay or a progress
 * notification) or a probe of the resource's keys proves its state is
 * the store's at store_rev or later (nothing changed since the cache's
 * revision; the revision stays: the replay may still hold a key created
 * and deleted since).  The observer (resource_observe) is told when it
 * is caught up.  Ignored unless a list is open.
 */
void resource_catch_up(struct resource *r, int64_t store_rev);

/* Counts one upstream (re)connect of this resource's watch. */
void resource_note_reconnect(struct resource *r);

#endif
