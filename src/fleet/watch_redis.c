/*
 * watch_redis.c: the watchers' Redis-native transport (see watch_redis.h).
 *
 * Data structure: one struct redis_slot per watcher (its connection, a
 * redis_store of its own, the revision of its last entry, a retry timer
 * allocated on first use); every object's current value (by key index,
 * with its revision) as the entries bring it forward; and the decode
 * cache: WATCH_REDIS_CACHE entries indexed by a hash of (revision, key
 * index), each holding the decoded new and previous objects of one change.
 *
 * Invariants: slot->reading exactly while an XREAD of that watcher is in
 * flight; a cache entry is valid for (rv, key) only when both match.
 */
#include "src/fleet/watch_redis.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/object.h"
#include "cache/rw.h"
#include "proto/kjson_decode.h"
#include "src/fdlimit.h"
#include "src/fleet/redis_store.h"
#include "src/fleet/scan.h"
#include "src/fleet/watcher.h"
#include "src/log.h"
#include "src/redis_client.h"

#define WATCH_REDIS_CACHE 8192 /* decode cache entries (power of two) */
#define WATCH_REDIS_RETRY 0.5  /* seconds before reconnecting */
#define WATCH_REDIS_LOG 5
#define WATCH_REDIS_FD_SPARE 64 /* descriptors kept for everything else */

struct watch_redis;

struct redis_slot {
    struct watch_redis *t;
    struct watcher *w;
    struct redis_store *store; /* NULL until the first read */
    struct event *retry;
    int64_t last; /* revision of the last entry read */
    bool reading, up;
    bool broken; /* store failed: freed by the next redis_issue, outside
                    its callbacks */
};

struct redis_decoded {
    int64_t rv;
    uint32_t key;
    int64_t written_at;
    struct object *new_obj, *old;
};

struct redis_current {
    struct object *obj; /* NULL: absent */
    int64_t rv;         /* of the last entry of the key read */
};

struct watch_redis {
    struct event_base *base;
    const struct redis_store_config *cfg;
    const struct resource_type *rt;
    struct keys *keys;
    size_t plen;
    struct redis_slot *slots;
    size_t nslots, open;
    struct redis_current *current;
    size_t ncurrent;
    struct redis_decoded *cache;
    unsigned logged;
};

static void redis_issue(struct redis_slot *s);

/* ==== decoding, once per change ==== */

static struct redis_current *redis_current_at(struct watch_redis *t,
                                              uint32_t key)
{
    if (key >= t->ncurrent) {
        size_t n = RW_MAX((size_t)key + 1, t->ncurrent * 2);

        t->current = xrealloc(t->current, n * sizeof(*t->current));
        memset(t->current + t->ncurrent, 0,
               (n - t->ncurrent) * sizeof(*t->current));
        t->ncurrent = n;
    }
    return &t->current[key];
}

static const struct redis_decoded *
redis_lookup(struct watch_redis *t, const struct redis_store_entry *e,
             uint32_t key)
{
    int64_t rv = e->rev;
    bool deleted = e->deleted;
    uint64_t h = ((uint64_t)rv * 0x9e3779b97f4a7c15ull) ^ (key * 0x85ebca6bu);
    struct redis_decoded *d = &t->cache[(h >> 17) & (WATCH_REDIS_CACHE - 1)];
    struct redis_current *cur = redis_current_at(t, key);
    struct object *obj = NULL;
    struct scan_object meta;
    const char *why;

    if (d->rv == rv && d->key == key)
        return d;
    object_unref(d->new_obj);
    object_unref(d->old);
    d->rv = rv;
    d->key = key;
    d->written_at = -1;
    if (kjson_decode_object(t->rt, e->key, e->key_len, e->value, e->value_len,
                            rv, &obj, &why) != RW_OK)
        obj = NULL;
    if (!deleted && scan_object(e->value, e->value_len, &meta) == 0)
        d->written_at = meta.written_at;
    if (rv > cur->rv) { /* the first read of this entry */
        d->old = cur->obj;
        cur->obj = deleted ? NULL : object_ref(obj);
        cur->rv = rv;
    } else { /* decoded again: see watch_redis.h */
        d->old = obj ? object_ref(obj) : NULL;
    }
    d->new_obj = deleted ? NULL : obj;
    if (deleted) {
        object_unref(d->old);
        d->old = obj;
    }
    return d;
}

/* One log entry for s; false when it is malformed. */
static bool redis_entry(struct redis_slot *s,
                        const struct redis_client_reply *entry, int64_t now_ns)
{
    struct watch_redis *t = s->t;
    struct redis_store_entry e;
    const struct redis_decoded *d;
    enum event_type et;
    uint32_t k;

    if (!redis_store_entry(entry, &e) || e.rev <= s->last)
        return false;
    s->last = e.rev;
    watcher_wire_events(s->w, 1);
    if (e.key_len <= t->plen || memcmp(e.key, t->rt->key_prefix, t->plen))
        return true;
    k = keys_intern(t->keys, "", 0, e.key + t->plen, e.key_len - t->plen);
    d = redis_lookup(t, &e, k);
    if (filter_transition(watcher_filter(s->w), d->old, d->new_obj, &et))
        watcher_relevant_event(s->w, et, k, e.rev, d->written_at, now_ns);
    return true;
}

/* ==== reads ==== */

static void redis_retry_cb(evutil_socket_t fd, short what, void *arg)
{
    redis_issue(arg);
}

static void redis_backoff(struct redis_slot *s, double delay)
{
    struct timeval tv = rw_timeval(delay);

    if (s->retry == NULL)
        s->retry = evtimer_new(s->t->base, redis_retry_cb, s);
    evtimer_add(s->retry, &tv);
}

/* The read failed (why): the connection is dropped, the watch resumes
 * from s->last after a backoff. */
static void redis_failed(struct redis_slot *s, const char *why)
{
    struct watch_redis *t = s->t;

    if (t->logged++ < WATCH_REDIS_LOG)
        log_warnx("redis watch of watcher %u: %s", watcher_id(s->w), why);
    if (s->up)
        t->open--;
    s->up = false;
    s->broken = true;
    watcher_end(s->w, false);
    redis_backoff(s, WATCH_REDIS_RETRY);
}

static void redis_xread_cb(const struct redis_client_reply *reply,
                           const char *why, void *arg)
{
    struct redis_slot *s = arg;
    const struct redis_client_reply *entries = NULL;
    int64_t now_ns = clock_wall_ns();
    char text[200];

    s->reading = false;
    if (reply == NULL) {
        if (s->store != NULL) /* else redis_store_free is closing it */
            redis_failed(s, why);
        return;
    }
    if (!s->up) {
        s->up = true;
        s->t->open++;
        watcher_begin(s->w, 200);
    }
    if (reply->type == REDIS_CLIENT_ERROR) {
        redis_failed(s, redis_client_reply_text(reply, text, sizeof(text)));
        return;
    }
    if (!redis_store_xread_entries(reply, &entries)) {
        watcher_error(s->w, 500);
        redis_failed(s, "XREAD: unexpected reply");
        return;
    }
    for (size_t i = 0; entries != NULL && i < entries->n; i++)
        if (!redis_entry(s, &entries->elem[i], now_ns)) {
            watcher_error(s->w, 500);
            redis_failed(s, "a malformed log entry");
            return;
        }
    redis_issue(s);
}

static void redis_issue(struct redis_slot *s)
{
    struct watch_redis *t = s->t;
    char path[4096], id[32], count[16];
    double delay;

    if (s->reading || (s->retry != NULL && evtimer_pending(s->retry, NULL)))
        return;
    if (s->broken) {
        redis_store_free(s->store);
        s->store = NULL;
        s->broken = false;
    }
    if (s->store == NULL || !s->up) {
        switch (watcher_next(s->w, path, sizeof(path), &delay)) {
        case WATCHER_IDLE:
            return;
        case WATCHER_BACKOFF:
            redis_backoff(s, delay);
            return;
        case WATCHER_GET:
            break;
        }
        if (watcher_is_listing(s->w)) {
            watcher_terminate(s->w); /* a LIST is not Redis's to serve */
            return;
        }
        s->last = RW_MAX(s->last, watcher_last_rv(s->w));
        if (s->store == NULL)
            s->store = redis_store_new(t->base, t->cfg, t->rt);
    }
    {
        const char *xread[] = {"XREAD",
                               "COUNT",
                               count,
                               "BLOCK",
                               WATCH_REDIS_BLOCK_MS,
                               "STREAMS",
                               redis_store_key(s->store, REDIS_STORE_LOG),
                               id};

        snprintf(id, sizeof(id), "%" PRId64 "-0", s->last);
        snprintf(count, sizeof(count), "%d", WATCH_REDIS_COUNT);
        s->reading = true;
        redis_store_command(s->store, 8, xread, NULL, redis_xread_cb, s);
    }
}

void watch_redis_seed(struct watch_redis *t, uint32_t key, struct object *obj,
                      int64_t rv)
{
    struct redis_current *cur = redis_current_at(t, key);

    object_unref(cur->obj);
    cur->obj = object_ref(obj);
    cur->rv = rv;
}

void watch_redis_kick(struct watch_redis *t)
{
    for (size_t i = 0; i < t->nslots; i++)
        redis_issue(&t->slots[i]);
}

size_t watch_redis_connections_open(const struct watch_redis *t)
{
    return t->open;
}

size_t watch_redis_footprint(const struct watch_redis *t)
{
    return sizeof(*t) + t->nslots * sizeof(*t->slots) +
           t->ncurrent * sizeof(*t->current) +
           WATCH_REDIS_CACHE * sizeof(*t->cache);
}

/* ==== construction ==== */

struct watch_redis *watch_redis_new(struct event_base *base,
                                    const struct redis_store_config *cfg,
                                    const struct resource_type *rt,
                                    struct keys *keys, struct watcher_set *ws)
{
    struct watch_redis *t = xcalloc(1, sizeof(*t));
    uint64_t limit;

    t->base = base;
    t->cfg = cfg;
    t->rt = rt;
    t->keys = keys;
    t->plen = strlen(rt->key_prefix);
    t->nslots = watcher_set_size(ws);
    limit = fdlimit_raise();
    if (limit < t->nslots + WATCH_REDIS_FD_SPARE)
        log_warnx("%zu watchers need %zu descriptors; the limit is %" PRIu64,
                  t->nslots, t->nslots + WATCH_REDIS_FD_SPARE, limit);
    t->slots = xcalloc(t->nslots ? t->nslots : 1, sizeof(*t->slots));
    for (size_t i = 0; i < t->nslots; i++) {
        t->slots[i].t = t;
        t->slots[i].w = watcher_set_at(ws, i);
    }
    t->cache = xcalloc(WATCH_REDIS_CACHE, sizeof(*t->cache));
    for (size_t i = 0; i < WATCH_REDIS_CACHE; i++)
        t->cache[i].rv = -1;
    return t;
}

void watch_redis_free(struct watch_redis *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nslots; i++) {
        struct redis_store *st = t->slots[i].store;

        t->slots[i].store = NULL; /* the pending XREAD's callback: closing */
        redis_store_free(st);
        if (t->slots[i].retry != NULL)
            event_free(t->slots[i].retry);
    }
    for (size_t i = 0; i < t->ncurrent; i++)
        object_unref(t->current[i].obj);
    for (size_t i = 0; i < WATCH_REDIS_CACHE; i++) {
        object_unref(t->cache[i].new_obj);
        object_unref(t->cache[i].old);
    }
    free(t->current);
    free(t->cache);
    free(t->slots);
    free(t);
}
