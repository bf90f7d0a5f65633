/*
 * watch_etcd.c: the watchers' etcd-native transport (see watch_etcd.h).
 *
 * Data structure: the connections (links.h), one struct
 * etcd_slot per watcher (its Watch call, a retry timer allocated on first
 * use, the highest revision received over the wire), and the decode
 * cache: WATCH_ETCD_CACHE entries indexed by a hash of (revision, key
 * index), each holding references to the decoded new and previous
 * objects of one change (NULL when absent or undecodable).
 *
 * Invariants: slot->call is non-NULL exactly while the watcher's Watch
 * call is open; a cache entry is valid for (rv, key) only when both
 * match (a collision replaces the entry).
 */
#include "src/fleet/watch_etcd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/object.h"
#include "cache/rw.h"
#include "proto/etcd.h"
#include "proto/kjson_decode.h"
#include "src/fleet/dial.h"
#include "src/fleet/links.h"
#include "src/fleet/scan.h"
#include "src/fleet/watcher.h"
#include "src/grpc_client.h"
#include "src/h2_client.h"
#include "src/log.h"

#define WATCH_ETCD_CACHE 8192 /* decode cache entries (power of two) */
#define WATCH_ETCD_RETRY 0.5  /* seconds before re-watching */
#define WATCH_ETCD_LOG 5

struct watch_etcd;

struct etcd_slot {
    struct watch_etcd *t;
    struct watcher *w;
    struct grpc_call *call;
    struct event *retry;
    int64_t wire_rv; /* highest revision received over the wire */
    uint32_t link;
    bool created; /* the current call's created response arrived */
};

struct etcd_decoded {
    int64_t rv;
    uint32_t key;
    int64_t written_at;
    struct object *new_obj, *old;
};

struct watch_etcd {
    struct event_base *base;
    const struct resource_type *rt;
    struct keys *keys;
    struct watcher_set *ws;
    char *prefix, *end;
    size_t prefix_len, end_len;
    struct links *links;
    struct etcd_slot *slots;
    size_t nslots;
    struct etcd_decoded *cache;
    unsigned logged;
};

static void etcd_issue(struct etcd_slot *s);

/* ==== decoding, once per change ==== */

static struct object *etcd_decode(struct watch_etcd *t,
                                  const struct etcd_kv *kv)
{
    struct object *obj = NULL;
    const char *why;

    if (kv->value_len == 0 ||
        kjson_decode_object(t->rt, kv->key, kv->key_len, kv->value,
                            kv->value_len, kv->mod_revision, &obj,
                            &why) != RW_OK)
        return NULL;
    return obj;
}

static const struct etcd_decoded *
etcd_lookup(struct watch_etcd *t, const struct etcd_event *ev, uint32_t key)
{
    int64_t rv = ev->kv.mod_revision;
    uint64_t h = ((uint64_t)rv * 0x9e3779b97f4a7c15ull) ^ (key * 0x85ebca6bu);
    struct etcd_decoded *d = &t->cache[(h >> 17) & (WATCH_ETCD_CACHE - 1)];
    struct scan_object meta;

    if (d->rv == rv && d->key == key)
        return d;
    object_unref(d->new_obj);
    object_unref(d->old);
    d->rv = rv;
    d->key = key;
    d->written_at = -1;
    d->new_obj = NULL;
    d->old = NULL;
    if (ev->type == ETCD_EVENT_PUT) {
        d->new_obj = etcd_decode(t, &ev->kv);
        if (scan_object(ev->kv.value, ev->kv.value_len, &meta) == 0)
            d->written_at = meta.written_at;
    }
    if (ev->has_prev_kv)
        d->old = etcd_decode(t, &ev->prev_kv);
    return d;
}

/* ==== calls ==== */

static void etcd_event(struct etcd_slot *s, const struct etcd_event *ev,
                       int64_t now_ns)
{
    struct watch_etcd *t = s->t;
    const struct etcd_decoded *d;
    uint32_t key;
    enum event_type type;

    if (ev->kv.mod_revision > s->wire_rv)
        s->wire_rv = ev->kv.mod_revision;
    if (ev->kv.key_len <= t->prefix_len)
        return;
    key = keys_intern(t->keys, "", 0, ev->kv.key + t->prefix_len,
                      ev->kv.key_len - t->prefix_len);
    d = etcd_lookup(t, ev, key);
    if (filter_transition(watcher_filter(s->w), d->old, d->new_obj, &type))
        watcher_relevant_event(s->w, type, key, ev->kv.mod_revision,
                               d->written_at, now_ns);
}

static void etcd_message_cb(const uint8_t *msg, size_t len, void *arg)
{
    struct etcd_slot *s = arg;
    struct etcd_watch_response r;
    int64_t now_ns = clock_wall_ns();

    if (etcd_watch_response_decode(&r, msg, len) != 0) {
        watcher_error(s->w, 500);
        return;
    }
    if (r.created && !s->created) {
        s->created = true;
        watcher_begin(s->w, 200);
    }
    if (r.canceled) {
        if (s->t->logged++ < WATCH_ETCD_LOG)
            log_warnx("etcd watch of watcher %u canceled: %s (compact "
                      "revision %lld)",
                      watcher_id(s->w), r.cancel_reason,
                      (long long)r.compact_revision);
        watcher_error(s->w, r.compact_revision > 0 ? 410 : 500);
        etcd_watch_response_fini(&r);
        grpc_client_call_cancel(s->call);
        s->call = NULL;
        s->created = false;
        watcher_end(s->w, true);
        etcd_issue(s);
        return;
    }
    watcher_wire_events(s->w, r.n_events);
    for (size_t i = 0; i < r.n_events; i++)
        etcd_event(s, &r.events[i], now_ns);
    etcd_watch_response_fini(&r);
}

static void etcd_close_cb(int status, const char *message, void *arg)
{
    struct etcd_slot *s = arg;

    s->call = NULL;
    if (s->t->logged++ < WATCH_ETCD_LOG && status != GRPC_STATUS_OK)
        log_warnx("etcd watch of watcher %u ended: %s: %s", watcher_id(s->w),
                  grpc_status_name(status), message);
    s->created = false;
    watcher_end(s->w, false);
    etcd_issue(s);
}

/* ==== requests ==== */

static void etcd_retry_cb(evutil_socket_t fd, short what, void *arg)
{
    etcd_issue(arg);
}

static void etcd_backoff(struct etcd_slot *s, double delay)
{
    struct timeval tv = rw_timeval(delay);

    if (s->retry == NULL)
        s->retry = evtimer_new(s->t->base, etcd_retry_cb, s);
    evtimer_add(s->retry, &tv);
}

static struct grpc_call *etcd_start(struct etcd_slot *s)
{
    struct links *ls = s->t->links;
    struct grpc_call *call;

    call = grpc_client_call_start(links_get(ls, s->link), ETCD_PATH_WATCH,
                                  etcd_message_cb, etcd_close_cb, s);
    if (call == NULL && links_drop(ls, s->link)) /* replace it, once */
        call = grpc_client_call_start(links_get(ls, s->link), ETCD_PATH_WATCH,
                                      etcd_message_cb, etcd_close_cb, s);
    return call;
}

static void etcd_issue(struct etcd_slot *s)
{
    struct watch_etcd *t = s->t;
    struct etcd_watch_create req = {
        .key = t->prefix,
        .key_len = t->prefix_len,
        .range_end = t->end,
        .range_end_len = t->end_len,
        .prev_kv = true,
    };
    char path[4096];
    double delay;
    struct rbuf *b;

    if (s->call != NULL ||
        (s->retry != NULL && evtimer_pending(s->retry, NULL)))
        return;
    switch (watcher_next(s->w, path, sizeof(path), &delay)) {
    case WATCHER_IDLE:
        return;
    case WATCHER_BACKOFF:
        etcd_backoff(s, delay);
        return;
    case WATCHER_GET:
        break;
    }
    if (watcher_is_listing(s->w)) {
        watcher_terminate(s->w); /* a LIST is not etcd's to serve here */
        return;
    }
    req.start_revision = RW_MAX(watcher_last_rv(s->w), s->wire_rv) + 1;
    s->created = false;
    if ((s->call = etcd_start(s)) == NULL) {
        watcher_end(s->w, false);
        etcd_backoff(s, WATCH_ETCD_RETRY);
        return;
    }
    b = etcd_watch_create_encode(&req);
    grpc_client_call_send(s->call, b->data, b->len);
    rbuf_unref(b);
}

void watch_etcd_kick(struct watch_etcd *t)
{
    for (size_t i = 0; i < t->nslots; i++)
        etcd_issue(&t->slots[i]);
}

size_t watch_etcd_connections_open(const struct watch_etcd *t)
{
    return links_open(t->links);
}

size_t watch_etcd_footprint(const struct watch_etcd *t)
{
    return sizeof(*t) + links_footprint(t->links) +
           t->nslots * sizeof(*t->slots) + WATCH_ETCD_CACHE * sizeof(*t->cache);
}

/* ==== construction ==== */

struct watch_etcd *watch_etcd_new(struct event_base *base,
                                  const struct fleet_dial *d,
                                  const struct resource_type *rt,
                                  struct keys *keys, struct watcher_set *ws,
                                  size_t connections)
{
    struct watch_etcd *t = xcalloc(1, sizeof(*t));

    rw_assert(connections > 0);
    t->base = base;
    t->rt = rt;
    t->keys = keys;
    t->ws = ws;
    t->prefix = xstrdup(rt->key_prefix);
    t->prefix_len = strlen(t->prefix);
    t->end = etcd_prefix_end(t->prefix, t->prefix_len, &t->end_len);
    t->links = links_new(base, d, connections, "etcd");
    t->nslots = watcher_set_size(ws);
    t->slots = xcalloc(t->nslots ? t->nslots : 1, sizeof(*t->slots));
    for (size_t i = 0; i < t->nslots; i++) {
        t->slots[i].t = t;
        t->slots[i].w = watcher_set_at(ws, i);
        t->slots[i].link = (uint32_t)(i % connections);
    }
    t->cache = xcalloc(WATCH_ETCD_CACHE, sizeof(*t->cache));
    for (size_t i = 0; i < WATCH_ETCD_CACHE; i++)
        t->cache[i].rv = -1;
    return t;
}

void watch_etcd_free(struct watch_etcd *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nslots; i++) {
        grpc_client_call_cancel(t->slots[i].call);
        t->slots[i].call = NULL;
        if (t->slots[i].retry != NULL)
            event_free(t->slots[i].retry);
    }
    links_free(t->links);
    for (size_t i = 0; i < WATCH_ETCD_CACHE; i++) {
        object_unref(t->cache[i].new_obj);
        object_unref(t->cache[i].old);
    }
    free(t->cache);
    free(t->slots);
    free(t->prefix);
    free(t->end);
    free(t);
}
