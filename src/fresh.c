/*
 * fresh.c: proving a read fresh (see fresh.h).
 *
 * A pending read moves through at most these steps, each asynchronous:
 *
 *   PROBE  the linearizable probe is in flight (store revision R, counts);
 *   WAIT   waiting for the cache to reach the target revision (a
 *          resource waiter), bounded by the deadline armed at the start;
 *   READ   paging the state at the target revision out of the store into
 *          a private store, whose snapshot is then served.
 *
 * The cache snapshot for the proof is taken when the read starts, at the
 * cache's revision s, so the probe's "modified after s" count refers to
 * exactly the state that would be served.
 */
#include "fresh.h"

#include <event2/event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/watchcache.h"
#include "proto/kjson.h"
#include "resource.h"
#include "upstream.h"

/* Keys per Range page when reading the state from the store. */
#define FRESH_PAGE 500

enum fresh_step { STEP_PROBE, STEP_WAIT, STEP_READ };

struct fresh {
    struct resource *r;
    char *prefix;
    size_t prefix_len;
    enum read_mode mode;
    int64_t rv;        /* requested revision (NOT_OLDER, EXACT, WATCH_FROM) */
    int64_t target;    /* revision to serve at or after; 0 before the probe */
    int64_t store_rev; /* R from the probe; 0 if none */
    bool future;       /* target > R: only the cache can still reach it */
    fresh_cb cb;
    void *arg;
    enum fresh_step step;
    struct store_snap *snap; /* the cache at snap_rv, for the proof */
    int64_t snap_rv;
    size_t snap_count; /* its keys under prefix */
    struct upstream_read *read;
    struct rv_waiter waiter;
    struct event *deadline;
    struct store *building; /* READ: the state read so far */
    char *next_key;         /* READ: where the next page starts */
    size_t next_len;
};

/* ---- answers ---- */

static void fresh_free(struct fresh *f)
{
    const struct upstream_reader *rd = resource_reader(f->r);

    if (f->read != NULL && rd != NULL)
        rd->cancel(rd->ctx, f->read);
    resource_unwait(f->r, &f->waiter);
    if (f->deadline != NULL)
        event_free(f->deadline);
    store_snap_unref(f->snap);
    store_free(f->building);
    free(f->next_key);
    free(f->prefix);
    free(f);
}

void fresh_cancel(struct fresh *f)
{
    if (f != NULL)
        fresh_free(f);
}

static void fresh_answer(struct fresh *f, int err, struct store_snap *snap,
                         int64_t rv, bool upstream, const char *why)
{
    struct read_result res = {
        .err = err,
        .snap = err == RW_OK ? snap : NULL,
        .rv = rv,
        .cache_rv = resource_rv(f->r),
        .upstream = upstream,
        .why = why ? why : "",
    };

    f->cb(&res, f->arg);
    store_snap_unref(snap);
    fresh_free(f);
}

/* ---- reading the state from the store ---- */

static void fresh_read_page(struct fresh *f);

static bool fresh_count_cb(struct object *obj, void *arg)
{
    (*(size_t *)arg)++;
    return true;
}

static void fresh_page_cb(int err, const char *why, int64_t rev,
                          const struct upstream_kv *kvs, size_t n, bool more,
                          void *arg)
{
    struct fresh *f = arg;
    const struct resource_type *rt = resource_type(f->r);

    f->read = NULL;
    if (err != RW_OK) {
        fresh_answer(f, err, NULL, rev, true, why);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        struct object *obj;
        const char *bad;

        /* Undecodable values are not served from the cache either. */
        if (kjson_decode_object(rt, kvs[i].key, kvs[i].key_len, kvs[i].value,
                                kvs[i].value_len, kvs[i].mod_rev, &obj,
                                &bad) == RW_OK)
            object_unref(store_put(f->building, obj));
    }
    if (!more) {
        fresh_answer(f, RW_OK, store_snapshot(f->building), rev, true, NULL);
        return;
    }
    free(f->next_key); /* the last key + "\0" */
    f->next_len = kvs[n - 1].key_len + 1;
    f->next_key = xcalloc(1, f->next_len + 1);
    memcpy(f->next_key, kvs[n - 1].key, kvs[n - 1].key_len);
    fresh_read_page(f);
}

static void fresh_read_page(struct fresh *f)
{
    const struct upstream_reader *rd = resource_reader(f->r);

    if (rd != NULL)
        f->read =
            rd->page(rd->ctx, f->next_key, f->next_len, f->prefix,
                     f->prefix_len, f->target, FRESH_PAGE, fresh_page_cb, f);
    if (f->read == NULL)
        fresh_answer(f, RW_EUNAVAIL, NULL, f->target, true,
                     "no connection to the store");
}

/* Reads the state at f->target from the store. */
static void fresh_read_store(struct fresh *f)
{
    f->step = STEP_READ;
    resource_unwait(f->r, &f->waiter);
    if (f->deadline != NULL)
        event_del(f->deadline); /* the Range calls have their own */
    f->building = store_new();
    f->next_key = xmemdup(f->prefix, f->prefix_len + 1);
    f->next_len = f->prefix_len;
    fresh_read_page(f);
}

/* ---- serving from the cache ---- */

/* The cache has reached f->target: answer from memory. */
static void fresh_from_cache(struct fresh *f)
{
    struct watchcache *wc = resource_cache(f->r);
    struct store_snap *snap;

    if (f->mode == READ_WATCH_FROM) {
        fresh_answer(f, RW_OK, NULL, f->target, false, NULL);
    } else if (f->mode != READ_EXACT) {
        fresh_answer(f, RW_OK, store_snapshot(watchcache_store(wc)),
                     watchcache_rv(wc), false, NULL);
    } else if (watchcache_snapshot_at(wc, f->target, &snap) == RW_OK) {
        fresh_answer(f, RW_OK, snap, f->target, false, NULL);
    } else {
        fresh_read_store(f); /* left the window while we waited */
    }
}

static void fresh_waiter_cb(struct rv_waiter *w, void *arg)
{
    fresh_from_cache(arg);
}

static void fresh_wait(struct fresh *f)
{
    f->step = STEP_WAIT;
    f->waiter.rv = f->target;
    resource_wait(f->r, &f->waiter);
}

static void fresh_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fresh *f = arg;
    char why[160];

    if (f->step == STEP_PROBE && f->read == NULL) {
        fresh_answer(f, RW_EUNAVAIL, NULL, f->rv, false,
                     "no connection to the store");
    } else if (f->step == STEP_PROBE) {
        fresh_answer(f, RW_ETIMEDOUT, NULL, f->rv, false,
                     "the store did not answer in time");
    } else if (f->future || f->store_rev == 0) {
        snprintf(why, sizeof(why),
                 "Too large resource version: %" PRId64 ", current: %" PRId64,
                 f->target, resource_rv(f->r));
        fresh_answer(f, RW_EFUTURE, NULL, f->target, false, why);
    } else {
        fresh_read_store(f); /* the cache is stuck behind the store */
    }
}

/* ---- the probe ---- */

static void fresh_probe_cb(int err, const char *why,
                           const struct upstream_probe *p, void *arg)
{
    struct fresh *f = arg;

    f->read = NULL;
    if (err != RW_OK) {
        if (f->mode == READ_CONSISTENT) {
            fresh_answer(f, err, NULL, 0, false, why);
            return;
        }
        f->target = f->rv; /* the cache may still get there */
        fresh_wait(f);
        return;
    }
    resource_note_rev(f->r, p->rev);
    f->store_rev = p->rev;
    f->target = f->mode == READ_CONSISTENT ? p->rev : f->rv;
    if (f->target > p->rev) {
        f->future = true;
        fresh_wait(f);
    } else if (f->mode == READ_WATCH_FROM || resource_rv(f->r) >= f->target) {
        fresh_from_cache(f);
    } else if (!p->modified && (size_t)p->count == f->snap_count) {
        /* Nothing under the prefix changed in (snap_rv, R]. */
        struct store_snap *snap = f->snap;

        f->snap = NULL;
        fresh_answer(f, RW_OK, snap, f->mode == READ_EXACT ? f->target : p->rev,
                     false, NULL);
    } else {
        fresh_wait(f);
    }
}

/* ---- start ---- */

static struct fresh *fresh_new(struct resource *r, const char *prefix,
                               enum read_mode mode, int64_t rv, fresh_cb cb,
                               void *arg)
{
    struct fresh *f = xcalloc(1, sizeof(*f));
    struct timeval tv = {
        (time_t)FRESH_WAIT,
        (suseconds_t)((FRESH_WAIT - (time_t)FRESH_WAIT) * 1e6)};

    f->r = r;
    f->prefix = xstrdup(prefix);
    f->prefix_len = strlen(prefix);
    f->mode = mode;
    f->rv = rv;
    f->cb = cb;
    f->arg = arg;
    f->waiter.fn = fresh_waiter_cb;
    f->waiter.arg = f;
    f->deadline = evtimer_new(resource_base(r), fresh_deadline_cb, f);
    evtimer_add(f->deadline, &tv);
    return f;
}

/* Answers at once from the cache when it can; returns false if not. */
static bool fresh_now(struct resource *r, enum read_mode mode, int64_t rv,
                      fresh_cb cb, void *arg)
{
    struct watchcache *wc = resource_cache(r);
    int64_t cache_rv = watchcache_rv(wc);
    struct read_result res = {.cache_rv = cache_rv, .rv = cache_rv, .why = ""};

    switch (mode) {
    case READ_ANY:
        break;
    case READ_NOT_OLDER:
        if (rv > cache_rv)
            return false;
        break;
    case READ_WATCH_FROM:
        if (rv > resource_known_rev(r))
            return false;
        res.rv = rv;
        cb(&res, arg);
        return true;
    case READ_EXACT:
        if (rv > cache_rv || watchcache_snapshot_at(wc, rv, &res.snap) != 0)
            return false;
        res.rv = rv;
        cb(&res, arg);
        store_snap_unref(res.snap);
        return true;
    case READ_CONSISTENT:
        return false;
    }
    res.snap = store_snapshot(watchcache_store(wc));
    cb(&res, arg);
    store_snap_unref(res.snap);
    return true;
}

struct fresh *fresh_read(struct resource *r, const char *prefix,
                         enum read_mode mode, int64_t rv, fresh_cb cb,
                         void *arg)
{
    struct watchcache *wc = resource_cache(r);
    const struct upstream_reader *rd = resource_reader(r);
    struct fresh *f;

    if (fresh_now(r, mode, rv, cb, arg))
        return NULL;
    f = fresh_new(r, prefix, mode, rv, cb, arg);
    if (mode == READ_EXACT && rv <= watchcache_rv(wc)) {
        /* Inside the cache's past but outside its window. */
        f->target = rv;
        f->store_rev = rv;
        fresh_read_store(f);
        return f;
    }
    f->snap = store_snapshot(watchcache_store(wc));
    f->snap_rv = watchcache_rv(wc);
    store_snap_scan(f->snap, f->prefix, f->prefix_len, fresh_count_cb,
                    &f->snap_count);
    f->step = STEP_PROBE;
    if (rd != NULL)
        f->read = rd->probe(rd->ctx, f->prefix, f->prefix_len, f->snap_rv,
                            fresh_probe_cb, f);
    if (f->read == NULL) {
        /* No store to ask: a later revision can only come to the cache. */
        if (mode == READ_CONSISTENT) {
            /* Never answered from inside fresh_read: defer. */
            event_active(f->deadline, EV_TIMEOUT, 1);
            return f;
        }
        f->target = rv;
        fresh_wait(f);
    }
    return f;
}
