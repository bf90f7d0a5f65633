/*
 * watchcache.h: one resource's cache: the store (current objects), the ring
 * (recent events) and the revisions that say how fresh and how deep they are.
 *
 * The upstream feeds it in revision order: an initial list (watchcache_replace),
 * then puts, deletes and progress revisions, and after a gap (compaction)
 * another replace.  Readers ask two questions, answered as kube-apiserver's
 * watchCache does: what is the state now (a store snapshot at
 * watchcache_rv()), and where does a watch from revision N start
 * (watchcache_watch_from).  Pure data: no I/O, no clocks, no watchers.
 *
 * Revisions are the store's (etcd's global revision); per cache they only
 * increase, but for watchcache_reset (the store's history was reset).
 * watchcache_rv() is the revision the cache reflects: every change at or
 * below it has been applied, including progress revisions at which this
 * resource had no change.
 */
#ifndef WATCHCACHE_H
#define WATCHCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/object.h"
#include "cache/ring.h"
#include "cache/store.h"

struct watchcache;

/* A cache whose ring holds at most ring_events events and ring_bytes bytes
 * (ring.h).  Not initialised until the first watchcache_replace. */
struct watchcache *watchcache_new(size_t ring_events, size_t ring_bytes);
void watchcache_free(struct watchcache *wc);

/*
 * Applies a create or update at obj->rv, taking obj's reference on every
 * path: stores it and pushes ADDED (key was absent) or MODIFIED (event
 * prev = the replaced object).  Returns RW_OK, or RW_EINVAL for a replay
 * (dropped): obj->rv below watchcache_rv(), or equal to it with the key
 * already at that rv.  Equal revisions are otherwise legitimate: etcd gives
 * every key written by one transaction the transaction's revision.
 * Asserts initialised.
 */
int watchcache_put(struct watchcache *wc, struct object *obj);

/*
 * Applies a delete of key at revision rv: removes it and pushes DELETED
 * whose obj is the last state with resourceVersion rv (object_with_rv).
 * Returns RW_OK; RW_ENOTFOUND if the key is absent (nothing pushed, the
 * revision still advances); RW_EINVAL for a replay (rv < watchcache_rv()).
 */
int watchcache_delete(struct watchcache *wc, const char *key, size_t len,
                      int64_t rv);

/* The store has no further change for this resource up to rv (an etcd
 * progress notification or a response header revision).  Lower rvs are
 * ignored, and so is any rv before the first watchcache_replace. */
void watchcache_progress(struct watchcache *wc, int64_t rv);

/*
 * Replaces the contents with fresh, a complete list of the resource at
 * revision rv, taking ownership of fresh.  Before the swap, calls
 * fn(old, new, arg) for every key that differs (store_snap_diff) so that
 * the caller can tell which watchers the gap touched; fn may be NULL.  The
 * ring is cleared and the list revision becomes rv: a watch from below rv
 * is now too old.  Marks the cache initialised.
 */
void watchcache_replace(struct watchcache *wc, struct store *fresh, int64_t rv,
                        store_diff_fn fn, void *arg);

/*
 * Forgets everything, as when the store's history was reset (its
 * revisions now name other changes): the store emptied, the ring cleared,
 * the revisions 0, not initialised until the next watchcache_replace.  The
 * one time watchcache_rv() goes down.
 */
void watchcache_reset(struct watchcache *wc);

bool watchcache_initialized(const struct watchcache *wc);
int64_t watchcache_rv(const struct watchcache *wc);
/* The revision of the last replace (the list the ring's history starts at). */
int64_t watchcache_list_rv(const struct watchcache *wc);
struct store *watchcache_store(const struct watchcache *wc);
struct ring *watchcache_ring(const struct watchcache *wc);

/*
 * Where a watch from resourceVersion rv (> 0) starts, as kube-apiserver's
 * watchCache.getAllEventsSinceLocked: the oldest deliverable revision is
 * list_rv + 1 while nothing was evicted since the last replace, else the
 * oldest buffered event's rv.  If rv < oldest - 1, returns RW_EEXPIRED and
 * sets *oldest_minus_one = oldest - 1 (for "too old resource version: rv
 * (oldest-1)").  When an eviction split a transaction's revision (see
 * ring_evicted_rv), that revision is not deliverable whole either, and the
 * limit becomes the evicted revision.  Otherwise RW_OK and *seq = the ring seq of the first event
 * with rv greater than the requested one (ring head if none yet; an rv
 * ahead of the cache starts at the head and the caller skips events <= rv).
 * Asserts initialised.  Events evicted for ring_bytes count as evictions.
 */
int watchcache_watch_from(const struct watchcache *wc, int64_t rv,
                          uint64_t *seq, int64_t *oldest_minus_one);

/*
 * The state exactly at revision rv, rebuilt from memory for an Exact read
 * or a continue token: the current store with every ring event above rv
 * undone, newest first (ADDED removes the key, MODIFIED and DELETED put
 * back the previous state).  Returns RW_OK and sets *out (refs 1); or
 * RW_EEXPIRED when the window does not reach back to rv (as
 * watchcache_watch_from), or RW_EFUTURE when rv > watchcache_rv().  Costs
 * O(log n) per event undone.  Asserts initialised and rv > 0.
 */
int watchcache_snapshot_at(const struct watchcache *wc, int64_t rv,
                           struct store_snap **out);

#endif
