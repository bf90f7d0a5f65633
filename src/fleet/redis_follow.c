/*
 * redis_follow.c: the Redis change log's follower (see redis_follow.h).
 *
 * Data structure: one redis_store connection, the current value of every
 * object (indexed by key index, keys.h) and the last entry read.
 * Invariant: values[] is the resource's state at revision `last`; exactly
 * one read (a pipeline of three commands) is outstanding while following.
 */
#include "src/fleet/redis_follow.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/etcd.h"
#include "src/fleet/oracle.h"
#include "src/fleet/redis_store.h"
#include "src/redis_client.h"
#include "src/redis_functions.h"
#include "src/upstream_redis_entry.h"

#define FOLLOW_BLOCK_MS "200" /* XREAD BLOCK: progress at least 5 times/s */
#define FOLLOW_COUNT 1000     /* entries per XREAD */

struct follow_value {
    char *json; /* NULL: no object */
    size_t len;
    int64_t modrev;
};

struct redis_follow {
    const struct resource_type *rt;
    size_t plen;
    struct keys *keys;
    struct oracle *o;
    struct redis_follow_callbacks cbs;
    void *arg;
    struct redis_store *store;
    struct follow_value *values;
    size_t nvalues;
    int64_t last;       /* the last entry read (the snapshot's at first) */
    int64_t start;      /* entries from here on go to the oracle; 0: not yet */
    int64_t counter;    /* rw_rev of the read in flight */
    int64_t compacted;  /* T:R:compacted of the read in flight */
    bool ready, failed, closing;
};

static struct follow_value *follow_value(struct redis_follow *rf,
                                         const char *key, size_t key_len)
{
    uint32_t i = keys_intern(rf->keys, "", 0, key + rf->plen,
                             key_len - rf->plen);

    if (i >= rf->nvalues) {
        size_t n = RW_MAX((size_t)i + 1, rf->nvalues * 2);

        rf->values = xrealloc(rf->values, n * sizeof(*rf->values));
        memset(rf->values + rf->nvalues, 0,
               (n - rf->nvalues) * sizeof(*rf->values));
        rf->nvalues = n;
    }
    return &rf->values[i];
}

static void follow_set(struct follow_value *v, const char *json, size_t len,
                       int64_t modrev)
{
    free(v->json);
    v->json = json ? xmemdup(json, len) : NULL;
    v->len = json ? len : 0;
    v->modrev = modrev;
}

static void follow_fail(struct redis_follow *rf, const char *why)
{
    if (rf->failed || rf->closing)
        return;
    rf->failed = true;
    if (rf->ready)
        oracle_abort(rf->o, why);
    else if (rf->cbs.on_error)
        rf->cbs.on_error(why, rf->arg);
}

/* ==== the snapshot ==== */

static void follow_snapshot_kv_cb(const struct etcd_kv *kv, void *arg)
{
    struct redis_follow *rf = arg;

    if (kv->key_len > rf->plen)
        follow_set(follow_value(rf, kv->key, kv->key_len), kv->value,
                   kv->value_len, kv->mod_revision);
}

static void follow_snapshot_done_cb(int err, const char *why, int64_t revision,
                                    void *arg)
{
    struct redis_follow *rf = arg;
    char msg[320];

    if (rf->closing)
        return;
    if (err != 0) {
        snprintf(msg, sizeof(msg), "reading the objects and the log: %s", why);
        follow_fail(rf, msg);
        return;
    }
    rf->last = revision;
    rf->ready = true;
    if (rf->cbs.on_ready)
        rf->cbs.on_ready(rf->arg);
}

/* ==== following ==== */

static void follow_read(struct redis_follow *rf);

/* One log entry; false when it is malformed (the oracle then fails). */
static bool follow_entry(struct redis_follow *rf,
                         const struct redis_client_reply *entry)
{
    struct redis_store_entry e;
    struct follow_value *cur;
    struct etcd_event ev = {0};

    if (!redis_store_entry(entry, &e) || e.rev <= rf->last)
        return false;
    rf->last = e.rev;
    if (e.key_len <= rf->plen ||
        memcmp(e.key, rf->rt->key_prefix, rf->plen) != 0)
        return true; /* not an object of this resource: as etcd's prefix */
    cur = follow_value(rf, e.key, e.key_len);
    if (e.rev >= rf->start) {
        ev.type = e.deleted ? ETCD_EVENT_DELETE : ETCD_EVENT_PUT;
        ev.kv = (struct etcd_kv){
            .key = e.key, .key_len = e.key_len, .mod_revision = e.rev};
        if (!e.deleted) {
            ev.kv.value = e.value;
            ev.kv.value_len = e.value_len;
        }
        ev.has_prev_kv = e.deleted || cur->json != NULL;
        ev.prev_kv =
            (struct etcd_kv){.key = e.key,
                             .key_len = e.key_len,
                             .value = e.deleted ? e.value : cur->json,
                             .value_len = e.deleted ? e.value_len : cur->len,
                             .mod_revision = cur->modrev};
        oracle_feed(rf->o, &ev);
    }
    follow_set(cur, e.deleted ? NULL : e.value, e.value_len, e.rev);
    return true;
}

static void follow_counter_cb(const struct redis_client_reply *reply,
                              const char *why, void *arg)
{
    struct redis_follow *rf = arg;

    if (reply != NULL && reply->type == REDIS_CLIENT_INTEGER)
        rf->counter = reply->integer;
}

static void follow_compacted_cb(const struct redis_client_reply *reply,
                                const char *why, void *arg)
{
    struct redis_follow *rf = arg;

    rf->compacted = reply != NULL ? upstream_redis_entry_reply_int(reply) : 0;
}

static void follow_xread_cb(const struct redis_client_reply *reply,
                            const char *why, void *arg)
{
    struct redis_follow *rf = arg;
    const struct redis_client_reply *entries = NULL;
    char msg[320], text[200];

    if (rf->closing || rf->failed)
        return;
    if (reply == NULL) {
        snprintf(msg, sizeof(msg), "following the log: %s", why);
        follow_fail(rf, msg);
        return;
    }
    if (rf->compacted > rf->last) {
        snprintf(msg, sizeof(msg),
                 "the log was trimmed past revision %" PRId64
                 " (compaction revision %" PRId64 "): raise --redis-history",
                 rf->last, rf->compacted);
        follow_fail(rf, msg);
        return;
    }
    if (reply->type == REDIS_CLIENT_ERROR) {
        snprintf(msg, sizeof(msg), "XREAD: %s",
                 redis_client_reply_text(reply, text, sizeof(text)));
        follow_fail(rf, msg);
        return;
    }
    if (!redis_store_xread_entries(reply, &entries)) {
        follow_fail(rf, "XREAD: unexpected reply");
        return;
    }
    for (size_t i = 0; entries != NULL && i < entries->n; i++) {
        if (!follow_entry(rf, &entries->elem[i])) {
            snprintf(msg, sizeof(msg),
                     "a malformed log entry after revision %" PRId64, rf->last);
            follow_fail(rf, msg);
            return;
        }
    }
    if (entries == NULL || entries->n < FOLLOW_COUNT)
        oracle_progress(rf->o, RW_MAX(rf->counter, rf->last));
    else
        oracle_progress(rf->o, rf->last);
    follow_read(rf);
}

static void follow_read(struct redis_follow *rf)
{
    char id[32], count[16];
    const char *rev[] = {"FCALL_RO", REDIS_FUNCTIONS_REV, "1",
                         redis_store_key(rf->store, REDIS_STORE_REV)};
    const char *compacted[] = {
        "GET", redis_store_key(rf->store, REDIS_STORE_COMPACTED)};
    const char *xread[] = {"XREAD", "COUNT", count, "BLOCK", FOLLOW_BLOCK_MS,
                           "STREAMS",
                           redis_store_key(rf->store, REDIS_STORE_LOG), id};

    snprintf(id, sizeof(id), "%" PRId64 "-0", rf->last);
    snprintf(count, sizeof(count), "%d", FOLLOW_COUNT);
    redis_store_command(rf->store, 4, rev, NULL, follow_counter_cb, rf);
    redis_store_command(rf->store, 2, compacted, NULL, follow_compacted_cb, rf);
    redis_store_command(rf->store, 8, xread, NULL, follow_xread_cb, rf);
}

void redis_follow_start(struct redis_follow *rf, int64_t start_rev)
{
    rw_assert(rf->ready && rf->start == 0 && start_rev > 0);
    rf->start = start_rev;
    follow_read(rf);
}

/* ==== construction ==== */

struct redis_follow *redis_follow_new(struct event_base *base,
                                      const struct redis_store_config *cfg,
                                      const struct resource_type *rt,
                                      struct keys *keys, struct oracle *o,
                                      const struct redis_follow_callbacks *cbs,
                                      void *arg)
{
    struct redis_follow *rf = xcalloc(1, sizeof(*rf));

    rf->rt = rt;
    rf->plen = strlen(rt->key_prefix);
    rf->keys = keys;
    rf->o = o;
    rf->cbs = *cbs;
    rf->arg = arg;
    rf->store = redis_store_new(base, cfg, rt);
    redis_store_snapshot(rf->store, rt->key_prefix, follow_snapshot_kv_cb,
                         follow_snapshot_done_cb, rf);
    return rf;
}

void redis_follow_free(struct redis_follow *rf)
{
    if (rf == NULL)
        return;
    rf->closing = true;
    redis_store_free(rf->store);
    for (size_t i = 0; i < rf->nvalues; i++)
        free(rf->values[i].json);
    free(rf->values);
    free(rf);
}
