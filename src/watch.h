/*
 * watch.h: a resource's watch set (its WATCH streams) and the dispatcher
 * that feeds them; watch_start.h starts a WATCH.  The semantics below are
 * those of both.
 *
 * A watcher is a cursor into its resource's ring (the seq of the next
 * event it has to look at), a filter (namespace, label and field
 * selectors) and a stream.  It copies nothing: it writes references to
 * frames that are encoded once per event and shared by every watcher that
 * receives it (object->frames[], event->gone).  It pulls from the ring only
 * while its stream is below the high-water mark, so one slow client never
 * blocks dispatch; a client so slow that the ring laps its cursor gets the
 * ERROR 410 event and its stream ends, and its informer relists.
 *
 * Semantics are kube-apiserver's cacher (docs/kube-wire.md):
 * - resourceVersion unset: a synthetic ADDED per object of a consistent
 *   state (src/fresh.h), then every later change; "0": the same from the
 *   cache's state, at once;
 * - resourceVersion N: exactly the changes with RV > N, in order, each once;
 *   N older than the window: HTTP 200, one ERROR event (Status 410 Expired
 *   "too old resource version: N (M)"), end of stream; N newer than the
 *   cache (even than the store): HTTP 200 at once, nothing until changes
 *   above N arrive, then those, and no BOOKMARK below N (the cacher's
 *   plain watch never waits for freshness); N lost (resource_rv_lost: at
 *   or below what a store history that was reset had reached, whether the
 *   cache has passed it again or not): HTTP 200, nothing, and after 1 s
 *   (or timeoutSeconds if shorter) ERROR 410 and the end, since N may
 *   name a state of the abandoned history; the delay bounds the relists
 *   of a client that relists at once and is handed a lost revision again
 *   (while the store has not passed them, every revision is lost);
 * - sendInitialEvents=true (with resourceVersionMatch=NotOlderThan and
 *   allowWatchBookmarks, checked by query_validate): ADDED for the state
 *   the resourceVersion names under LIST semantics (unset: consistent, 0:
 *   any, N: not older than N, waiting up to 3 s for it; at a revision
 *   past the lost ones when the store is: fresh.h resume), then at once a
 *   BOOKMARK at that state's revision annotated
 *   {"k8s.io/initial-events-end":"true"}, then the changes; a state that
 *   cannot be had in time ends the watch (HTTP 200) with the 504 Timeout
 *   Status as its one ERROR event, as the cacher's newErrWatcher;
 *   sendInitialEvents=false: only the changes after N (unset: after
 *   now);
 * - selector transitions: old and new match MODIFIED, only new ADDED, only
 *   old DELETED (old content at the event's RV), neither nothing;
 * - BOOKMARK on the resource's timer to watchers that allowed them, at the
 *   cache's revision, only when the watcher has been sent every event
 *   below it, and never at a lost revision (bookmarks are optional, and a
 *   watch could not resume from it);
 * - timeoutSeconds ends the stream cleanly; without it the stream ends
 *   after a random time in [min-request-timeout, 2 x min-request-timeout).
 */
#ifndef WATCH_H
#define WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct resource;
struct watch_set;

struct watch_limits {
    size_t high_water;          /* bytes queued per stream before pausing */
    double min_request_timeout; /* seconds */
    int indexed_field;          /* the dispatcher indexes watchers by this extra
                                   field (index into resource_type fields[]) as well
                                   as by name and namespace; -1: none */
};

/*
 * The watchers of resource r, which it subscribes to (resource.h: events
 * dispatched once per batch, bookmark rounds, relists, history resets).
 * Made by whoever makes the resource, right after it (r must have no
 * subscriber yet), and freed before it.
 */
struct watch_set *watch_set_new(struct resource *r,
                                const struct watch_limits *limits);
/* Unsubscribes, ends every remaining watch (stream_end) and frees.  NULL is
 * a no-op. */
void watch_set_free(struct watch_set *ws);
/* r's watch set (watch_set_new), or NULL if it has none. */
struct watch_set *watch_set_of(const struct resource *r);

/* Ends every watch cleanly, for a graceful shutdown: each stream ends
 * after the events already queued (the terminating chunk, END_STREAM), as
 * when timeoutSeconds runs out, so informers re-watch from their last RV
 * elsewhere instead of seeing a broken connection; a watch from a lost
 * revision ends with its ERROR 410 now. */
void watch_set_end_all(struct watch_set *ws);

/* Current watchers: [0] HTTP/1.x, [1] HTTP/2. */
size_t watch_set_count(const struct watch_set *ws, int protocol_index);

/* ---- a watch's right to run (made by src/watch_authz.h) ---- */

struct rbuf;
struct watch_grant;

/* What a watch set asks of a grant, which it keeps with its watcher and
 * frees (free) when the watcher goes. */
struct watch_grant_ops {
    /* Whether the watch may go on; false with *frame, the ERROR event
     * that ends it (a new rbuf). */
    bool (*allowed)(const struct watch_grant *g, struct rbuf **frame);
    void (*free)(struct watch_grant *g);
};

struct watch_grant {
    const struct watch_grant_ops *ops;
};

/*
 * Re-checks every watch of ws that has a grant: one that is no longer
 * allowed gets its grant's ERROR event, then its stream ends (as a
 * ring-lapped watch's 410 does), and is counted
 * (ringwatch_watches_ended_unauthorized_total).  Returns how many ended.
 */
size_t watch_set_recheck(struct watch_set *ws);

#endif
