/*
 * upstream_redis_list.c: a Redis resource's snapshot, the checks that the
 * store still holds the history served, and applying log entries (see
 * upstream_redis.c for the design, upstream_redis_impl.h for the calls).
 */
#include <stdarg.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/log.h"
#include "src/redis_client.h"
#include "src/upstream.h"
#include "src/upstream_redis_entry.h"
#include "src/upstream_redis_impl.h"
#include "src/upstream_redis_snap.h"

/* Scans in a row whose log was trimmed past L0 before a pause. */
#define REDIS_SNAPSHOT_TRIES 3

/* Counts and logs bad data of res. */
static void res_malformed(struct rres *res, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void res_malformed(struct rres *res, const char *fmt, ...)
{
    char what[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    res->u->malformed++;
    if (!res->warned)
        log_warnx("redis %s: %s: %s, skipped (further ones logged at debug "
                  "level)",
                  res->u->url, res->name, what);
    else
        log_debug("redis %s: %s: %s, skipped", res->u->url, res->name, what);
    res->warned = true;
}

static void res_set_last(struct rres *res, int64_t rev,
                         const struct redis_client_reply *key)
{
    free(res->last_key);
    res->last_rev = rev;
    res->last_key = key != NULL ? xmemdup(key->str, key->len + 1) : NULL;
    res->last_key_len = key != NULL ? key->len : 0;
}

/* ==== the store's history ==== */

/* The store's history under tag is not the one the caches were built
 * from (why says how it shows): every target of the tag is reset (its
 * watches end with 410) and listed again. */
static void u_reset_tag(struct upstream_redis *u, size_t tag, int64_t served,
                        int64_t rev, const char *why)
{
    log_warnx("redis %s: %s: %s: Redis lost writes (restarted from an older "
              "RDB/AOF, or a replica promoted behind its primary); every "
              "watch ends with 410 and the caches are listed again",
              u->url, u->rev_keys[tag], why);
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        if (res->tag != tag)
            continue;
        res->t.feed->history_reset(res->t.ctx, UPSTREAM_RESET_REVISION, served,
                                   rev);
        upstream_redis_list_start(res);
    }
}

/* The highest revision a target of tag has reached. */
static int64_t u_served(const struct upstream_redis *u, size_t tag)
{
    int64_t served = 0;

    for (size_t i = 0; i < u->n; i++)
        if (u->res[i].tag == tag)
            served = RW_MAX(served, u->res[i].t.feed->rv(u->res[i].t.ctx));
    return served;
}

/* T:rev of tag read as rev: when below what a target of the tag has
 * reached, the store went back (u_reset_tag).  Returns true then. */
bool upstream_redis_list_check_rev(struct upstream_redis *u, size_t tag,
                                   int64_t rev)
{
    int64_t served = u_served(u, tag);
    char why[128];

    if (rev >= served)
        return false;
    snprintf(why, sizeof(why),
             "at revision %" PRId64 ", below the %" PRId64 " already served",
             rev, served);
    u_reset_tag(u, tag, served, rev, why);
    return true;
}

/* ==== snapshot ==== */

static void res_scan(struct rres *res, const char *cursor, size_t len);
static void res_tail(struct rres *res);

void upstream_redis_list_retry_cb(evutil_socket_t fd, short what, void *arg)
{
    struct rres *res = arg;

    (void)fd;
    (void)what;
    if (!upstream_redis_usable(res->node))
        return;
    if (res->reverify)
        upstream_redis_list_verify(res);
    else
        upstream_redis_list_start(res);
}

/* A snapshot reply arrived: false when it is stale (a relist was asked
 * while it was in flight: that list starts now). */
static bool res_reply_current(struct rres *res)
{
    res->in_flight = false;
    if (!res->relist)
        return true;
    res->relist = false;
    upstream_redis_list_start(res);
    return false;
}

/* A snapshot command failed: pause, list again. */
static void res_snapshot_failed(struct rres *res, const char *what,
                                const struct redis_client_reply *r)
{
    char text[160];

    log_warnx("redis %s: %s %s: %s: %s", res->u->url,
              res->state == RES_VERIFYING ? "resume" : "list", res->name, what,
              r != NULL ? redis_client_reply_text(r, text, sizeof(text))
                        : "unexpected reply");
    /* A check before resuming that failed (a slot migrating, a cluster
     * failing over) is tried again: the watch may still resume. */
    res->reverify = res->state == RES_VERIFYING;
    res->state = RES_IDLE;
    upstream_redis_snap_free(res->snap);
    res->snap = NULL;
    struct timeval tv =
        rw_timeval(backoff_delay(&res->u->backoff, res->tries++));
    event_add(res->retry, &tv);
}

static bool res_send(struct rres *res, int argc, const char **argv,
                     redis_client_reply_fn cb)
{
    if (!upstream_redis_res_send(res, argc, argv, NULL, cb, res))
        return false;
    res->in_flight = true;
    return true;
}

static void res_l0_cb(struct redis_client *c,
                      const struct redis_client_reply *r, void *arg)
{
    struct rres *res = arg;
    int64_t l0 = 0, seq = 0;

    (void)c;
    if (!res_reply_current(res))
        return;
    if (r->type != REDIS_CLIENT_ARRAY ||
        (r->n > 0 &&
         (r->elem[0].type != REDIS_CLIENT_ARRAY || r->elem[0].n != 2 ||
          !upstream_redis_entry_id(&r->elem[0].elem[0], &l0, &seq)))) {
        res_snapshot_failed(res, "XREVRANGE", r);
        return;
    }
    if (l0 > 0 && seq == 0) {
        const struct redis_client_reply *type, *key, *value;

        upstream_redis_entry_fields(&r->elem[0].elem[1], &type, &key, &value);
        res_set_last(res, l0, key);
    }
    /* L0 is the last entry's ID even when malformed ("<rev>-<seq>"): the
     * replay starts after it. */
    res->l0_seq = seq;
    upstream_redis_snap_free(res->snap);
    res->snap = upstream_redis_snap_new(l0);
    res_scan(res, "0", 1);
}

static void res_scan_cb(struct redis_client *c,
                        const struct redis_client_reply *r, void *arg)
{
    struct rres *res = arg;
    const struct redis_client_reply *fields;

    (void)c;
    if (!res_reply_current(res))
        return;
    if (r->type != REDIS_CLIENT_ARRAY || r->n != 2 ||
        r->elem[0].type != REDIS_CLIENT_STRING ||
        r->elem[1].type != REDIS_CLIENT_ARRAY || r->elem[1].n % 2 != 0) {
        res_snapshot_failed(res, "HSCAN", r);
        return;
    }
    fields = &r->elem[1];
    for (size_t i = 0; i + 1 < fields->n; i += 2) {
        const struct redis_client_reply *k = &fields->elem[i],
                                        *v = &fields->elem[i + 1];
        const char *json;
        size_t json_len;
        int64_t modrev =
            upstream_redis_entry_hash_value(v->str, v->len, &json, &json_len);

        if (modrev <= 0 || k->type != REDIS_CLIENT_STRING) {
            res_malformed(res, "hash field %.*s: value not \"<modrev> <json>\"",
                          (int)RW_MIN(k->len, 200), k->str);
            continue;
        }
        upstream_redis_snap_put(res->snap, k->str, k->len, json, json_len,
                                modrev);
    }
    if (r->elem[0].len == 1 && r->elem[0].str[0] == '0')
        res_tail(res);
    else
        res_scan(res, r->elem[0].str, r->elem[0].len);
}

static void res_scan(struct rres *res, const char *cursor, size_t len)
{
    char page[24], cur[64];
    const char *argv[] = {"HSCAN", res->k_objects, cur, "COUNT", page};

    snprintf(cur, sizeof(cur), "%.*s", (int)RW_MIN(len, 60), cursor);
    snprintf(page, sizeof(page), "%zu", res->u->cfg.page_size);
    if (!res_send(res, 5, argv, res_scan_cb))
        return; /* the connection's loss resets res */
}

/* Applies the log entries of one stream reply (an array of [id, [field,
 * value, ...]]) above after: to the snapshot (snap) or as events (else).
 * Returns the last revision applied (after when none). */
int64_t upstream_redis_list_apply(struct rres *res,
                                  const struct redis_client_reply *es,
                                  int64_t after,
                                  struct upstream_redis_snap *snap)
{
    for (size_t i = 0; i < es->n; i++) {
        const struct redis_client_reply *e = &es->elem[i], *f;
        const struct redis_client_reply *type = NULL, *key = NULL,
                                        *value = NULL;
        int64_t rev, ms, seq;

        if (e->type != REDIS_CLIENT_ARRAY || e->n != 2 ||
            !upstream_redis_entry_id(&e->elem[0], &ms, &seq)) {
            res_malformed(res, "log entry %zu of a read: not [ID, fields]", i);
            continue;
        }
        if (snap == NULL && (ms > res->seen_ms ||
                             (ms == res->seen_ms && seq > res->seen_seq))) {
            res->seen_ms = ms;
            res->seen_seq = seq;
        }
        if (seq != 0 || (rev = ms) <= 0) {
            if (ms > after)
                res_malformed(res,
                              "log entry %" PRId64 "-%" PRId64
                              ": ID not \"<revision>-0\"",
                              ms, seq);
            continue;
        }
        f = &e->elem[1];
        upstream_redis_entry_fields(f, &type, &key, &value);
        if (rev <= after)
            continue; /* already applied */
        if (type == NULL || key == NULL || key->len == 0 ||
            key->type != REDIS_CLIENT_STRING) {
            res_malformed(res, "log entry %" PRId64 "-0: no type or key", rev);
            continue;
        }
        bool put = type->len == 3 && memcmp(type->str, "PUT", 3) == 0;
        if (!put && !(type->len == 6 && memcmp(type->str, "DELETE", 6) == 0)) {
            res_malformed(res, "log entry %" PRId64 "-0: type \"%.*s\"", rev,
                          (int)RW_MIN(type->len, 32), type->str);
            continue;
        }
        const char *v = value != NULL ? value->str : "";
        size_t vlen = value != NULL ? value->len : 0;
        if (snap != NULL && put)
            upstream_redis_snap_put(snap, key->str, key->len, v, vlen, rev);
        else if (snap != NULL)
            upstream_redis_snap_del(snap, key->str, key->len);
        else if (put)
            res->t.feed->put(res->t.ctx, key->str, key->len, v, vlen, rev);
        else
            res->t.feed->del(res->t.ctx, key->str, key->len, rev);
        res_set_last(res, rev, key);
        after = rev;
    }
    return after;
}

static void res_list_item_cb(const char *key, size_t key_len, const char *value,
                             size_t value_len, int64_t mod_rev, void *arg)
{
    struct rres *res = arg;

    res->t.feed->list_item(res->t.ctx, key, key_len, value, value_len, mod_rev);
}

/* Sends MULTI, XRANGE of res's log [from, to] (at most count entries;
 * NULL: all), GET T:R:compacted, GET T:rev, EXEC (answered to cb): the log
 * and what bounds it at one instant. */
static void res_send_range(struct rres *res, const char *from, const char *to,
                           const char *count, redis_client_reply_fn cb)
{
    struct upstream_redis *u = res->u;
    const char *xrange[] = {"XRANGE", res->k_log, from, to, "COUNT", count};

    if (upstream_redis_res_send(res, 1, (const char *[]){"MULTI"}, NULL, NULL,
                                NULL) &&
        upstream_redis_res_send(res, count != NULL ? 6 : 4, xrange, NULL, NULL,
                                NULL) &&
        upstream_redis_res_send(res, 2,
                                (const char *[]){"GET", res->k_compacted},
                                NULL, NULL, NULL) &&
        upstream_redis_res_send(res, 2,
                                (const char *[]){"GET", u->rev_keys[res->tag]},
                                NULL, NULL, NULL))
        res_send(res, 1, (const char *[]){"EXEC"}, cb);
}

/* res_send_range's answer: true with the compaction and T:rev read (the
 * entries are r->elem[0]); false when it is stale or malformed (handled:
 * listed again). */
static bool res_range_reply(struct rres *res,
                            const struct redis_client_reply *r,
                            int64_t *compacted, int64_t *rev)
{
    if (!res_reply_current(res))
        return false;
    if (r->type != REDIS_CLIENT_ARRAY || r->n != 3 ||
        r->elem[0].type != REDIS_CLIENT_ARRAY ||
        (*compacted = upstream_redis_entry_reply_int(&r->elem[1])) < 0 ||
        (*rev = upstream_redis_entry_reply_int(&r->elem[2])) < 0) {
        res_snapshot_failed(res, "XRANGE", r);
        return false;
    }
    return true;
}

static void res_tail_cb(struct redis_client *c,
                        const struct redis_client_reply *r, void *arg)
{
    struct rres *res = arg;
    struct upstream_redis *u = res->u;
    int64_t l1, compacted, rev, list_rev;

    (void)c;
    if (!res_range_reply(res, r, &compacted, &rev))
        return;
    int64_t l0 = upstream_redis_snap_l0(res->snap);
    if (compacted > l0) {
        /* Trimmed past L0 while scanning: changes are missing. */
        if (res->tries++ < REDIS_SNAPSHOT_TRIES) {
            upstream_redis_list_start(res);
            return;
        }
        log_warnx("redis %s: list %s: the log was trimmed past %" PRId64
                  " (to %" PRId64 ") during %u scans in a row; raise the "
                  "writers' history",
                  u->url, res->name, l0, compacted, res->tries);
        res_snapshot_failed(res, "log trimmed during the scan", NULL);
        return;
    }
    l1 = upstream_redis_list_apply(res, &r->elem[0], l0, res->snap);
    if (l1 == l0 && res->l0_seq != 0)
        l1 = 0; /* a malformed L0 is no revision */
    if (l1 > rev) {
        /* The counter is behind the log (restored without it, or written
         * past the library): no revision to trust; the writes fail too
         * (INVALID) until it is repaired.  Retried after a pause. */
        res_snapshot_failed(res, "the revision counter is behind the log",
                            NULL);
        return;
    }
    list_rev = RW_MAX(l1, rev);
    if (list_rev == 0) {
        /* A store never written (or flushed): no revision to list at.
         * Its counter starts at 1, as etcd's first revision, so that the
         * first write is 2 and a watch from the empty list's revision sees
         * it; NX: a writer that came first has counted already. */
        upstream_redis_res_send(
            res, 4, (const char *[]){"SET", u->rev_keys[res->tag], "1", "NX"},
            NULL, NULL, NULL);
        upstream_redis_list_start(res);
        return;
    }
    if (upstream_redis_list_check_rev(u, res->tag, list_rev))
        return; /* every target of the tag lists again, res too */
    res->tries = 0;
    res->t.feed->list_begin(res->t.ctx);
    size_t dropped =
        upstream_redis_snap_emit(res->snap, list_rev, res_list_item_cb, res);
    if (dropped > 0)
        res_malformed(res, "%zu hash values above the list's revision %" PRId64,
                      dropped, list_rev);
    res->t.feed->list_end(res->t.ctx, list_rev);
    log_debug("redis %s: listed %s: %zu keys at revision %" PRId64, u->url,
              res->name, upstream_redis_snap_count(res->snap), list_rev);
    upstream_redis_snap_free(res->snap);
    res->snap = NULL;
    res->state = RES_WATCHING;
    upstream_redis_tail_kick(res->node);
}

static void res_tail(struct rres *res)
{
    char from[32];
    int64_t l0 = upstream_redis_snap_l0(res->snap);

    snprintf(from, sizeof(from), "(%" PRId64 "-%" PRId64, l0, res->l0_seq);
    res_send_range(res, l0 > 0 ? from : "-", "+", NULL, res_tail_cb);
}

/* Lists res from scratch (a new generation: rounds in flight forget it). */
void upstream_redis_list_start(struct rres *res)
{
    const char *argv[] = {"XREVRANGE", res->k_log, "+", "-", "COUNT", "1"};

    event_del(res->retry);
    res->reverify = false;
    res->gen++;
    res->seen_ms = res->seen_seq = 0;
    res_set_last(res, 0, NULL);
    res->state = RES_LISTING;
    upstream_redis_set_up(res, false);
    if (res->in_flight) {
        res->relist = true; /* after the reply in flight */
        return;
    }
    if (!upstream_redis_usable(res->node))
        return;
    res_send(res, 6, argv, res_l0_cb);
}

/* ==== resuming ==== */

/* The log around the resumed revision: the store still holds the history
 * served (see upstream_redis_list_verify). */
static void res_verify_cb(struct redis_client *c,
                          const struct redis_client_reply *r, void *arg)
{
    struct rres *res = arg;
    struct upstream_redis *u = res->u;
    int64_t compacted, rev;
    const struct redis_client_reply *es;
    bool want, found = false, other = false;
    char why[200];

    (void)c;
    if (!res_range_reply(res, r, &compacted, &rev))
        return;
    if (upstream_redis_list_check_rev(u, res->tag, rev))
        return;
    /* Entries the log reading skipped as malformed do not count. */
    es = &r->elem[0];
    for (size_t i = 0; i < es->n; i++) {
        const struct redis_client_reply *e = &es->elem[i], *type, *key, *value;
        int64_t id;

        if (e->type != REDIS_CLIENT_ARRAY || e->n != 2 ||
            (id = upstream_redis_entry_rev(&e->elem[0])) <= 0)
            continue;
        upstream_redis_entry_fields(&e->elem[1], &type, &key, &value);
        if (type == NULL || key == NULL || key->type != REDIS_CLIENT_STRING)
            continue;
        if (id == res->last_rev && res->last_key != NULL &&
            key->len == res->last_key_len &&
            memcmp(key->str, res->last_key, key->len) == 0)
            found = true;
        else
            other = true;
    }
    want = res->last_rev > 0 && compacted < res->last_rev;
    if (other || found != want) {
        snprintf(why, sizeof(why),
                 "its log no longer holds the changes of %s served up to "
                 "revision %" PRId64,
                 res->name, res->t.feed->rv(res->t.ctx));
        u_reset_tag(u, res->tag, u_served(u, res->tag), rev, why);
        return;
    }
    res->state = RES_WATCHING;
    upstream_redis_tail_kick(res->node);
}

/*
 * Before a watch resumes after rv on a new connection: the log between the
 * last entry applied (L) and rv must be exactly L's entry, with its key
 * (nothing else changed the resource up to rv: the progress delivered said
 * so), or nothing when L was trimmed since.  Otherwise Redis holds another
 * history than the one served (restarted from an older RDB/AOF and written
 * again, a replica promoted without the last writes), which T:rev alone
 * cannot tell once new writes have carried it past rv.
 */
void upstream_redis_list_verify(struct rres *res)
{
    char from[32], to[32];

    snprintf(from, sizeof(from), "%" PRId64 "-0", res->last_rev);
    snprintf(to, sizeof(to), "%" PRId64 "-0", res->t.feed->rv(res->t.ctx));
    res->reverify = false;
    res->state = RES_VERIFYING;
    res_send_range(res, res->last_rev > 0 ? from : "-", to, "2", res_verify_cb);
}
