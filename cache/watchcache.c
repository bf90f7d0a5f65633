/*
 * watchcache.c: one resource's store, ring and revisions (see
 * watchcache.h), with kube-apiserver's watchCache rules for where a watch
 * may start.
 *
 * State: store (current objects at rv), ring (the events since the last
 * replace, bounded), rv (the revision the cache reflects: the newest event
 * or progress revision), list_rv (the revision of the last replace) and
 * evictions_at_replace (ring_evictions() right after that replace, so that
 * "nothing was evicted since the last relist" is one comparison).
 *
 * Invariants: every event in the ring has list_rv < event rv <= rv, in
 * non-decreasing order (one transaction's keys share a revision); applying the
 * ring's events to the list at list_rv gives the store; rv never decreases
 * but at watchcache_reset, which leaves the cache as watchcache_new did.
 */
#include "cache/watchcache.h"

#include <stdlib.h>

#include "cache/rw.h"

struct watchcache {
    struct store *store;
    struct ring *ring;
    int64_t rv;
    int64_t list_rv;
    uint64_t evictions_at_replace;
    bool initialized;
    /* rv was reached by applying a change (not a list or a progress
     * revision), so more keys of that change's transaction may follow. */
    bool rv_open;
};

struct watchcache *watchcache_new(size_t ring_events, size_t ring_bytes)
{
    struct watchcache *wc = xcalloc(1, sizeof(*wc));

    wc->store = store_new();
    wc->ring = ring_new(ring_events, ring_bytes);
    return wc;
}

void watchcache_free(struct watchcache *wc)
{
    if (wc == NULL)
        return;
    ring_free(wc->ring);
    store_free(wc->store);
    free(wc);
}

/*
 * Whether a change of key at rv was applied already.  Below the cache's
 * revision it was.  At it, it was if the revision came from a list or a
 * progress notification (they cover the whole revision), or if key's
 * object already carries rv; otherwise it is another key of the
 * transaction just applied (a delete of a key that is gone is then a
 * no-op anyway).
 */
static bool watchcache_is_replay(const struct watchcache *wc, const char *key,
                                 size_t len, int64_t rv)
{
    const struct object *cur;

    if (rv != wc->rv)
        return rv < wc->rv;
    if (!wc->rv_open)
        return true;
    cur = store_get(wc->store, key, len);
    return cur != NULL && cur->rv == rv;
}

int watchcache_put(struct watchcache *wc, struct object *obj)
{
    struct ring_event ev = {0};

    rw_assert(wc->initialized);
    if (watchcache_is_replay(wc, obj->key, obj->key_len, obj->rv)) {
        object_unref(obj);
        return RW_EINVAL;
    }
    ev.rv = obj->rv;
    ev.obj = obj;
    ev.prev = store_put(wc->store, object_ref(obj));
    ev.type = ev.prev ? EVENT_MODIFIED : EVENT_ADDED;
    ring_push(wc->ring, &ev);
    wc->rv = obj->rv;
    wc->rv_open = true;
    return RW_OK;
}

int watchcache_delete(struct watchcache *wc, const char *key, size_t len,
                      int64_t rv)
{
    struct ring_event ev = {0};
    struct object *prev;

    rw_assert(wc->initialized);
    if (watchcache_is_replay(wc, key, len, rv))
        return RW_EINVAL;
    wc->rv = rv;
    wc->rv_open = true;
    prev = store_delete(wc->store, key, len);
    if (prev == NULL)
        return RW_ENOTFOUND;
    ev.rv = rv;
    ev.type = EVENT_DELETED;
    ev.obj = object_with_rv(prev, rv);
    ev.prev = prev;
    ring_push(wc->ring, &ev);
    return RW_OK;
}

void watchcache_progress(struct watchcache *wc, int64_t rv)
{
    /* Before the first list a progress revision vouches for nothing. */
    if (wc->initialized && rv > wc->rv) {
        wc->rv = rv;
        wc->rv_open = false;
    }
}

void watchcache_replace(struct watchcache *wc, struct store *fresh, int64_t rv,
                        store_diff_fn fn, void *arg)
{
    if (fn != NULL) {
        struct store_snap *old_snap = store_snapshot(wc->store);
        struct store_snap *new_snap = store_snapshot(fresh);

        store_snap_diff(old_snap, new_snap, fn, arg);
        store_snap_unref(old_snap);
        store_snap_unref(new_snap);
    }
    store_free(wc->store);
    wc->store = fresh;
    ring_clear(wc->ring);
    wc->list_rv = rv;
    wc->rv = RW_MAX(wc->rv, rv);
    wc->rv_open = false;
    wc->evictions_at_replace = ring_evictions(wc->ring);
    wc->initialized = true;
}

void watchcache_reset(struct watchcache *wc)
{
    store_free(wc->store);
    wc->store = store_new();
    ring_clear(wc->ring);
    wc->rv = 0;
    wc->list_rv = 0;
    wc->rv_open = false;
    wc->evictions_at_replace = ring_evictions(wc->ring);
    wc->initialized = false;
}

bool watchcache_initialized(const struct watchcache *wc)
{
    return wc->initialized;
}

int64_t watchcache_rv(const struct watchcache *wc)
{
    return wc->rv;
}

int64_t watchcache_list_rv(const struct watchcache *wc)
{
    return wc->list_rv;
}

struct store *watchcache_store(const struct watchcache *wc)
{
    return wc->store;
}

struct ring *watchcache_ring(const struct watchcache *wc)
{
    return wc->ring;
}

int watchcache_watch_from(const struct watchcache *wc, int64_t rv,
                          uint64_t *seq, int64_t *oldest_minus_one)
{
    int64_t oldest, limit;

    rw_assert(wc->initialized);
    rw_assert(rv > 0);

    if (ring_evictions(wc->ring) == wc->evictions_at_replace) {
        /* Nothing evicted since the list: every change after it is here. */
        oldest = wc->list_rv + 1;
        limit = oldest - 1;
    } else {
        /* An eviction leaves at least one event (ring.h).  If it split a
         * transaction's revision, that revision is no longer whole. */
        rw_assert(ring_len(wc->ring) > 0);
        oldest = ring_oldest_rv(wc->ring);
        limit = RW_MAX(oldest - 1, ring_evicted_rv(wc->ring));
    }
    if (rv < limit) {
        *oldest_minus_one = limit;
        return RW_EEXPIRED;
    }
    *seq = ring_seq_after(wc->ring, rv);
    return RW_OK;
}

int watchcache_snapshot_at(const struct watchcache *wc, int64_t rv,
                           struct store_snap **out)
{
    uint64_t seq, head = ring_head_seq(wc->ring);
    int64_t limit;
    struct store_snap *now;
    struct store *past;

    if (rv > wc->rv)
        return RW_EFUTURE;
    if (watchcache_watch_from(wc, rv, &seq, &limit) != RW_OK)
        return RW_EEXPIRED;
    now = store_snapshot(wc->store);
    if (seq == head) {
        *out = now;
        return RW_OK;
    }
    past = store_from_snap(now);
    store_snap_unref(now);
    while (head-- > seq) {
        const struct ring_event *ev = ring_get(wc->ring, head);

        if (ev->type == EVENT_ADDED)
            object_unref(store_delete(past, ev->obj->key, ev->obj->key_len));
        else
            object_unref(store_put(past, object_ref(ev->prev)));
    }
    *out = store_snapshot(past);
    store_free(past);
    return RW_OK;
}
