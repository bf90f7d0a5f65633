/*
 * oracle.c: the independent etcd watch, or the changes a Redis log
 * follower feeds (see oracle.h).
 *
 * Data structure: one h2c connection with one Watch call, the entry log
 * (a growing array) and the filters it feeds.  Decoded objects live only
 * while one event is handled: the log keeps 24 bytes per change.
 *
 * Invariant: entries are appended in the order etcd sends them, which is
 * revision order, and every filter's expected list is appended in the
 * same pass, so both stay sorted by revision.
 */
#include "src/fleet/oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/etcd.h"
#include "proto/grpc.h"
#include "proto/kjson_decode.h"
#include "src/fleet/dial.h"
#include "src/fleet/scan.h"
#include "src/grpc_client.h"
#include "src/h2_client.h"
#include "src/log.h"

struct oracle {
    struct event_base *base;
    const struct resource_type *rt;
    struct keys *keys;
    const struct filter_index *ix;
    struct filter **candidates; /* scratch: filter_index_max entries */
    struct oracle_callbacks cbs;
    void *arg;
    struct h2_client *conn;
    struct grpc_call *watch;
    char *prefix, *end;
    size_t prefix_len, end_len;
    int64_t known_rv;
    bool failed;
    struct oracle_entry *entries;
    size_t n, cap;
    uint64_t undecodable;
};

static void oracle_fail(struct oracle *o, const char *why)
{
    if (o->failed)
        return;
    o->failed = true;
    log_warnx("oracle: %s", why);
    if (o->cbs.on_error)
        o->cbs.on_error(why, o->arg);
}

/* ---- entries ---- */

static struct object *oracle_decode(struct oracle *o, const struct etcd_kv *kv)
{
    struct object *obj = NULL;
    const char *why;

    if (kv->value_len == 0 ||
        kjson_decode_object(o->rt, kv->key, kv->key_len, kv->value,
                            kv->value_len, kv->mod_revision, &obj,
                            &why) != RW_OK) {
        o->undecodable++;
        return NULL;
    }
    return obj;
}

static uint32_t oracle_key(struct oracle *o, const struct etcd_kv *kv)
{
    const char *k = kv->key + o->prefix_len;
    size_t len = kv->key_len - o->prefix_len;

    return keys_intern(o->keys, "", 0, k, len);
}

static void oracle_append(struct oracle *o, const struct etcd_event *ev)
{
    struct oracle_entry *e;
    struct object *new_obj = NULL, *old = NULL;
    struct scan_object meta;
    uint32_t index;
    size_t n;

    if (ev->kv.key_len <= o->prefix_len)
        return;
    if (o->n == o->cap) {
        o->cap = o->cap ? o->cap * 2 : 4096;
        o->entries = xrealloc(o->entries, o->cap * sizeof(*o->entries));
    }
    index = (uint32_t)o->n;
    e = &o->entries[o->n++];
    e->rv = ev->kv.mod_revision;
    e->key = oracle_key(o, &ev->kv);
    e->deleted = ev->type == ETCD_EVENT_DELETE;
    e->written_at = -1;
    if (!e->deleted) {
        new_obj = oracle_decode(o, &ev->kv);
        if (scan_object(ev->kv.value, ev->kv.value_len, &meta) == 0)
            e->written_at = meta.written_at;
    }
    if (ev->has_prev_kv)
        old = oracle_decode(o, &ev->prev_kv);
    n = filter_index_candidates(o->ix, old, new_obj, o->candidates);
    for (size_t i = 0; i < n; i++) {
        enum event_type type;

        if (filter_transition(o->candidates[i], old, new_obj, &type))
            filter_expect(o->candidates[i], index, type);
    }
    object_unref(new_obj);
    object_unref(old);
}

/* ---- the watch ---- */

static void oracle_message_cb(const uint8_t *msg, size_t len, void *arg)
{
    struct oracle *o = arg;
    struct etcd_watch_response w;
    char why[256];

    if (etcd_watch_response_decode(&w, msg, len) != 0) {
        oracle_fail(o, "malformed WatchResponse");
        return;
    }
    if (w.canceled) {
        snprintf(why, sizeof(why),
                 "watch canceled%s%s (compact revision "
                 "%lld)",
                 w.cancel_reason[0] ? ": " : "", w.cancel_reason,
                 (long long)w.compact_revision);
        etcd_watch_response_fini(&w);
        oracle_fail(o, why);
        return;
    }
    if (w.n_events > 0) {
        for (size_t i = 0; i < w.n_events; i++)
            oracle_append(o, &w.events[i]);
        if (w.events[w.n_events - 1].kv.mod_revision > o->known_rv)
            o->known_rv = w.events[w.n_events - 1].kv.mod_revision;
    } else if (!w.created && !w.fragment && w.header.revision > o->known_rv) {
        o->known_rv = w.header.revision; /* progress notification */
    }
    etcd_watch_response_fini(&w);
    if (o->cbs.on_advance)
        o->cbs.on_advance(o->arg);
}

static void oracle_close_cb(int status, const char *message, void *arg)
{
    struct oracle *o = arg;
    char why[256];

    o->watch = NULL;
    snprintf(why, sizeof(why), "watch ended: %s: %s", grpc_status_name(status),
             message);
    oracle_fail(o, why);
}

static void oracle_conn_close_cb(struct h2_client *c, int err, void *arg)
{
    struct oracle *o = arg;
    char why[256];

    snprintf(why, sizeof(why), "etcd %s: %s", h2_client_authority(c),
             h2_client_last_error(c)[0] ? h2_client_last_error(c)
                                        : rw_strerror(err));
    oracle_fail(o, why);
}

void oracle_feed(struct oracle *o, const struct etcd_event *ev)
{
    oracle_append(o, ev);
    if (ev->kv.mod_revision > o->known_rv)
        o->known_rv = ev->kv.mod_revision;
}

void oracle_progress(struct oracle *o, int64_t rev)
{
    if (rev > o->known_rv)
        o->known_rv = rev;
    if (!o->failed && o->cbs.on_advance)
        o->cbs.on_advance(o->arg);
}

void oracle_abort(struct oracle *o, const char *why)
{
    oracle_fail(o, why);
}

void oracle_start(struct oracle *o, int64_t start_rev)
{
    struct etcd_watch_create req = {
        .key = o->prefix,
        .key_len = o->prefix_len,
        .range_end = o->end,
        .range_end_len = o->end_len,
        .start_revision = start_rev,
        .progress_notify = true,
        .prev_kv = true,
    };
    struct rbuf *b;

    rw_assert(start_rev > 0 && o->watch == NULL);
    o->known_rv = start_rev - 1;
    if (o->conn == NULL)
        return; /* fed by oracle_feed */
    o->watch = grpc_client_call_start(o->conn, ETCD_PATH_WATCH,
                                      oracle_message_cb, oracle_close_cb, o);
    if (o->watch == NULL) {
        oracle_fail(o, "etcd connection refuses new streams");
        return;
    }
    b = etcd_watch_create_encode(&req);
    grpc_client_call_send(o->watch, b->data, b->len);
    rbuf_unref(b);
}

/* ---- construction and queries ---- */

struct oracle *oracle_new(struct event_base *base, const struct fleet_dial *d,
                          const struct resource_type *rt, struct keys *keys,
                          const struct filter_index *ix,
                          const struct oracle_callbacks *cbs, void *arg)
{
    static const struct h2_client_callbacks conn_cbs = {
        .on_close = oracle_conn_close_cb,
    };
    struct h2_client_config hc = {.ping_interval = 10};
    struct oracle *o = xcalloc(1, sizeof(*o));

    o->base = base;
    o->rt = rt;
    o->keys = keys;
    o->ix = ix;
    o->candidates = xcalloc(filter_index_max(ix), sizeof(*o->candidates));
    o->cbs = *cbs;
    o->arg = arg;
    o->prefix = xstrdup(rt->key_prefix);
    o->prefix_len = strlen(o->prefix);
    o->end = etcd_prefix_end(o->prefix, o->prefix_len, &o->end_len);
    if (d == NULL)
        return o;
    fleet_dial_h2(d, &hc);
    o->conn = h2_client_new(base, d->host, d->port, &hc, &conn_cbs, o);
    return o;
}

void oracle_free(struct oracle *o)
{
    if (o == NULL)
        return;
    o->failed = true; /* no callback from the teardown */
    grpc_client_call_cancel(o->watch);
    h2_client_free(o->conn);
    free(o->prefix);
    free(o->end);
    free(o->entries);
    free(o->candidates);
    free(o);
}

int64_t oracle_known_rv(const struct oracle *o)
{
    return o->known_rv;
}

int64_t oracle_last_rv(const struct oracle *o)
{
    return o->n ? o->entries[o->n - 1].rv : 0;
}

bool oracle_failed(const struct oracle *o)
{
    return o->failed;
}

const struct oracle_entry *oracle_entry(const struct oracle *o, size_t i)
{
    return &o->entries[i];
}

uint64_t oracle_undecodable(const struct oracle *o)
{
    return o->undecodable;
}
