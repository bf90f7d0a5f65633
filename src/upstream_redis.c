/*
 * upstream_redis.c: the Redis upstream adapter (see upstream_redis.h).
 *
 * Data structure: one struct upstream_redis holds the two connections
 * (cmd: commands; tail: the log reader) and one struct rres per target,
 * in one of
 *
 *   IDLE      no connection (or not started)
 *   LISTING   its snapshot's commands are in flight on cmd, one at a time
 *   WATCHING  listed; its log is read by the tail's rounds
 *
 * Snapshot (one target): read the log's last ID L0 (XREVRANGE + - COUNT
 * 1); scan the hash in pages (HSCAN, which returns every field present for
 * the whole scan, maybe twice, and fields changed during it in either
 * state); then in one MULTI: XRANGE (L0 + (the changes since L0: every
 * field the scan may have got wrong), GET T:R:compacted, GET T:rev.  The
 * scan plus the replayed changes is the resource's state at L1, the last
 * ID read, as long as the log still held everything after L0
 * (compacted <= L0; else scan again); nothing of the resource changed
 * between L1 and T:rev read in the same transaction, so the list's revision
 * is max(L1, T:rev): the store's current revision, as etcd's.  Items are
 * collected, then handed to the feed sorted by key in one loop turn
 * (list_begin, list_item..., list_end): no list stays open across turns.
 *
 * The log, all watching targets at once, in rounds on the tail:
 *   1. XREAD COUNT 1 BLOCK <progress interval> STREAMS logs... ids...: a
 *      wake-up only (its entries are read again in 2); CLIENT UNBLOCK from
 *      cmd ends it early when a target joins or a probe needs progress.
 *   2. MULTI, GET T:rev per tag, XREAD COUNT <history> STREAMS logs...
 *      ids..., GET T:R:compacted per target, EXEC: one instant of the
 *      store.  Per target: a counter below the revision its cache reached
 *      means the store went back (history reset, below); compacted above
 *      it means changes it never saw were trimmed (relist, as etcd's
 *      compacted watch); else its entries are delivered (put, del) and then
 *      progress(T:rev): nothing else changed up to T:rev (bookmarks and
 *      consistent reads advance on idle resources), and flush.
 * Each target's ID is its feed's rv() ("<rv>-0"): a resumed log never
 * skips nor repeats a revision.  A target relisted while a round is in
 * flight has a new generation and the round's answer for it is dropped.
 *
 * Bad data is counted (status malformed), logged once per target at
 * warning level (then at debug), and skipped: a hash value that is not
 * "<modrev> <json>" or whose modrev is above the list's revision, a log
 * entry whose ID is not "<rev>-0" or that lacks type/key, a type other
 * than PUT and DELETE.  A value that is not JSON or disagrees with its key
 * reaches the feed, which counts and skips it as over etcd.
 *
 * The store's history: T:rev (read by every snapshot, round and probe)
 * below the revision a target's cache has reached means Redis restarted
 * from an older RDB/AOF or a replica was promoted without the last
 * writes: every target of that tag gets history_reset (watches end with
 * 410, never a revision reused for another change) and is listed again.
 *
 * Connections: when either goes down, both are dropped, every target goes
 * IDLE (state false) and the seeds are tried again, in turn, after a
 * jittered backoff.  The first connection's handshake refused (wrong
 * password, not a Redis server, Redis older than 7) is fatal
 * (upstream_config's fatal); later ones are retried.  Direct reads in
 * flight when cmd goes down are answered RW_EUNAVAIL.
 */
#include "src/upstream_redis.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include <event2/event.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "src/backoff.h"
#include "src/log.h"
#include "src/redis_client.h"
#include "src/redis_functions.h"
#include "src/upstream.h"
#include "src/upstream_redis_snap.h"

#define REDIS_DEFAULT_PAGE 500
#define REDIS_DEFAULT_BACKOFF_MIN 0.1
#define REDIS_DEFAULT_BACKOFF_MAX 5.0
#define REDIS_DEFAULT_DIAL 5.0
#define REDIS_DEFAULT_PROGRESS 1.0
#define REDIS_DEFAULT_HISTORY 10000
#define REDIS_DEFAULT_PORT 6379
/* Scans in a row whose log was trimmed past L0 before a pause. */
#define REDIS_SNAPSHOT_TRIES 3

enum rres_state { RES_IDLE, RES_LISTING, RES_VERIFYING, RES_WATCHING };

struct upstream_redis;

struct rres {
    struct upstream_redis *u;
    struct upstream_target t;
    char *name; /* R */
    size_t tag; /* its revision counter: index into u->rev_keys */
    char *k_objects, *k_log, *k_compacted;
    char *prefix; /* its keys' prefix (resource_type_ns_prefix) */
    enum rres_state state;
    unsigned gen;   /* bumped by every list start */
    bool in_flight; /* a snapshot command is in flight on cmd */
    bool relist;    /* list again when it returns */
    bool resuming;  /* the next round re-establishes a lost watch */
    bool watching;  /* a round delivered since the last (re)start */
    unsigned tries; /* snapshots in a row lost to trimming */
    /* the last log entry ID read, malformed ones included, so that the
     * next read starts past them: "<seen_ms>-<seen_seq>" */
    int64_t seen_ms, seen_seq;
    /* the last log entry applied (listed or delivered): its revision (0:
     * none) and key, what a reconnect checks the log still holds */
    int64_t last_rev;
    char *last_key;
    size_t last_key_len;
    struct upstream_redis_snap *snap;
    struct event *retry;
    bool warned; /* malformed data logged at warning level once */
    struct upstream_reader reader;
};

/* A direct read (probe, or a page answered RW_EEXPIRED from a timer). */
struct rread {
    LIST_ENTRY(rread) link;
    struct rres *res;
    bool canceled;
    bool is_page;
    upstream_probe_cb probe_cb;
    upstream_page_cb page_cb;
    void *arg;
    int64_t since, rev;
    size_t count;
    bool whole; /* the scope is the resource's prefix */
    struct event *timer;
};

struct seed {
    char *host;
    uint16_t port;
};

struct upstream_redis {
    struct event_base *base;
    char *url;
    struct seed *seeds;
    size_t n_seeds, seed;
    char *password;
    struct upstream_config cfg;
    bool per_resource;
    int64_t history;
    char **rev_keys; /* one per tag */
    size_t n_tags;
    struct rres *res;
    size_t n;
    bool started;
    struct redis_client *cmd, *tail;
    bool cmd_ready, tail_ready, loaded;
    long long tail_id; /* CLIENT ID of tail */
    /* the tail's round */
    bool round_busy, round_blocked;
    unsigned *round_gen; /* per target, at the round's send; 0: not in it */
    LIST_HEAD(, rread) reads;
    struct event *reconnect;
    struct backoff backoff;
    unsigned attempt;
    bool ever_connected;
    uint64_t connects, reconnects, connect_failures, malformed;
    char version[32];
    char last_error[256];
};

static void res_list_start(struct rres *res);
static void round_kick(struct upstream_redis *u);
static void u_lost(struct upstream_redis *u, const char *why);

/* ==== helpers ==== */

static bool u_usable(const struct upstream_redis *u)
{
    return u->cmd_ready && u->tail_ready && u->loaded;
}

/* Sends argv on c; false when c cannot take it (the connection's loss is
 * reported by its on_down). */
static bool u_send(struct redis_client *c, int argc, const char **argv,
                   redis_client_reply_fn cb, void *arg)
{
    return c != NULL &&
           redis_client_command(c, argc, argv, NULL, cb, arg) == RW_OK;
}

/* A decimal integer filling str[0..len), or -1. */
static int64_t parse_int(const char *str, size_t len)
{
    int64_t v = 0;

    if (len == 0 || len > 18)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (str[i] < '0' || str[i] > '9')
            return -1;
        v = v * 10 + (str[i] - '0');
    }
    return v;
}

/* A GET's answer: the integer it holds, 0 when absent, -1 otherwise. */
static int64_t reply_int(const struct redis_client_reply *r)
{
    if (r->type == REDIS_CLIENT_NIL)
        return 0;
    if (r->type == REDIS_CLIENT_INTEGER)
        return r->integer;
    if (r->type != REDIS_CLIENT_STRING)
        return -1;
    return parse_int(r->str, r->len);
}

/* A stream entry ID "<ms>-<seq>" (any ID Redis gives out). */
static bool parse_id_parts(const struct redis_client_reply *r, int64_t *ms,
                           int64_t *seq)
{
    const char *dash;

    if (r->type != REDIS_CLIENT_STRING ||
        (dash = memchr(r->str, '-', r->len)) == NULL)
        return false;
    *ms = parse_int(r->str, (size_t)(dash - r->str));
    *seq = parse_int(dash + 1, r->len - (size_t)(dash + 1 - r->str));
    return *ms >= 0 && *seq >= 0;
}

/* A log entry ID "<rev>-0": rev, or -1. */
static int64_t parse_id(const struct redis_client_reply *r)
{
    int64_t ms, seq;

    return parse_id_parts(r, &ms, &seq) && seq == 0 ? ms : -1;
}

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

static void res_set_up(struct rres *res, bool up)
{
    if (res->watching == up)
        return;
    res->watching = up;
    res->t.feed->state(res->t.ctx, up);
}

/* The type, key and value fields of a log entry's field list (NULL when
 * absent). */
static void entry_fields(const struct redis_client_reply *f,
                         const struct redis_client_reply **type,
                         const struct redis_client_reply **key,
                         const struct redis_client_reply **value)
{
    *type = *key = *value = NULL;
    for (size_t j = 0; f->type == REDIS_CLIENT_ARRAY && j + 1 < f->n; j += 2) {
        const struct redis_client_reply *n = &f->elem[j];

        if (n->len == 4 && memcmp(n->str, "type", 4) == 0)
            *type = &f->elem[j + 1];
        else if (n->len == 3 && memcmp(n->str, "key", 3) == 0)
            *key = &f->elem[j + 1];
        else if (n->len == 5 && memcmp(n->str, "value", 5) == 0)
            *value = &f->elem[j + 1];
    }
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
        res_list_start(res);
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
static bool u_check_rev(struct upstream_redis *u, size_t tag, int64_t rev)
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

static void res_retry_cb(evutil_socket_t fd, short what, void *arg)
{
    struct rres *res = arg;

    (void)fd;
    (void)what;
    if (u_usable(res->u))
        res_list_start(res);
}

/* A snapshot reply arrived: false when it is stale (a relist was asked
 * while it was in flight: that list starts now). */
static bool res_reply_current(struct rres *res)
{
    res->in_flight = false;
    if (!res->relist)
        return true;
    res->relist = false;
    res_list_start(res);
    return false;
}

/* A snapshot command failed: pause, list again. */
static void res_snapshot_failed(struct rres *res, const char *what,
                                const struct redis_client_reply *r)
{
    char text[160];

    log_warnx("redis %s: list %s: %s: %s", res->u->url, res->name, what,
              r != NULL ? redis_client_reply_text(r, text, sizeof(text))
                        : "unexpected reply");
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
    if (!u_send(res->u->cmd, argc, argv, cb, res))
        return false;
    res->in_flight = true;
    return true;
}

static void res_l0_cb(struct redis_client *c,
                      const struct redis_client_reply *r, void *arg)
{
    struct rres *res = arg;
    int64_t l0 = 0;

    (void)c;
    if (!res_reply_current(res))
        return;
    if (r->type != REDIS_CLIENT_ARRAY ||
        (r->n > 0 &&
         (r->elem[0].type != REDIS_CLIENT_ARRAY || r->elem[0].n < 1 ||
          (l0 = parse_id(&r->elem[0].elem[0])) < 0))) {
        res_snapshot_failed(res, "XREVRANGE", r);
        return;
    }
    if (l0 > 0) {
        const struct redis_client_reply *type, *key, *value;

        entry_fields(&r->elem[0].elem[1], &type, &key, &value);
        res_set_last(res, l0, key);
    }
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
        const char *sp = memchr(v->str, ' ', v->len);
        int64_t modrev =
            sp != NULL ? parse_int(v->str, (size_t)(sp - v->str)) : -1;

        if (modrev <= 0) {
            res_malformed(res, "hash field %.*s: value not \"<modrev> <json>\"",
                          (int)RW_MIN(k->len, 200), k->str);
            continue;
        }
        upstream_redis_snap_put(res->snap, k->str, k->len, sp + 1,
                                v->len - (size_t)(sp + 1 - v->str), modrev);
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
static int64_t res_apply(struct rres *res, const struct redis_client_reply *es,
                         int64_t after, struct upstream_redis_snap *snap)
{
    for (size_t i = 0; i < es->n; i++) {
        const struct redis_client_reply *e = &es->elem[i], *f;
        const struct redis_client_reply *type = NULL, *key = NULL,
                                        *value = NULL;
        int64_t rev, ms, seq;

        if (e->type != REDIS_CLIENT_ARRAY || e->n != 2 ||
            !parse_id_parts(&e->elem[0], &ms, &seq)) {
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
        entry_fields(f, &type, &key, &value);
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

static void res_tail_cb(struct redis_client *c,
                        const struct redis_client_reply *r, void *arg)
{
    struct rres *res = arg;
    struct upstream_redis *u = res->u;
    int64_t l1, compacted, rev, list_rev;

    (void)c;
    if (!res_reply_current(res))
        return;
    if (r->type != REDIS_CLIENT_ARRAY || r->n != 3 ||
        r->elem[0].type != REDIS_CLIENT_ARRAY ||
        (compacted = reply_int(&r->elem[1])) < 0 ||
        (rev = reply_int(&r->elem[2])) < 0) {
        res_snapshot_failed(res, "XRANGE", r);
        return;
    }
    int64_t l0 = upstream_redis_snap_l0(res->snap);
    if (compacted > l0) {
        /* Trimmed past L0 while scanning: changes are missing. */
        if (res->tries++ < REDIS_SNAPSHOT_TRIES) {
            res_list_start(res);
            return;
        }
        log_warnx("redis %s: list %s: the log was trimmed past %" PRId64
                  " (to %" PRId64 ") during %u scans in a row; raise the "
                  "writers' history",
                  u->url, res->name, l0, compacted, res->tries);
        res_snapshot_failed(res, "log trimmed during the scan", NULL);
        return;
    }
    l1 = res_apply(res, &r->elem[0], l0, res->snap);
    list_rev = RW_MAX(l1, rev);
    if (u_check_rev(u, res->tag, list_rev))
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
    round_kick(u);
}

static void res_tail(struct rres *res)
{
    struct upstream_redis *u = res->u;
    char from[32];
    const char *multi[] = {"MULTI"}, *exec[] = {"EXEC"};
    const char *xrange[] = {"XRANGE", res->k_log, from, "+"};
    const char *getc[] = {"GET", res->k_compacted};
    const char *getr[] = {"GET", u->rev_keys[res->tag]};

    snprintf(from, sizeof(from), "(%" PRId64 "-0",
             upstream_redis_snap_l0(res->snap));
    if (upstream_redis_snap_l0(res->snap) == 0)
        snprintf(from, sizeof(from), "-");
    if (u_send(u->cmd, 1, multi, NULL, NULL) &&
        u_send(u->cmd, 4, xrange, NULL, NULL) &&
        u_send(u->cmd, 2, getc, NULL, NULL) &&
        u_send(u->cmd, 2, getr, NULL, NULL))
        res_send(res, 1, exec, res_tail_cb);
}

/* Lists res from scratch (a new generation: rounds in flight forget it). */
static void res_list_start(struct rres *res)
{
    const char *argv[] = {"XREVRANGE", res->k_log, "+", "-", "COUNT", "1"};

    event_del(res->retry);
    res->gen++;
    res->seen_ms = res->seen_seq = 0;
    res_set_last(res, 0, NULL);
    res->state = RES_LISTING;
    res_set_up(res, false);
    if (res->in_flight) {
        res->relist = true; /* after the reply in flight */
        return;
    }
    if (!u_usable(res->u))
        return;
    res_send(res, 6, argv, res_l0_cb);
}

/* ==== the log's rounds ==== */

static void round_send(struct upstream_redis *u);

/* Fills argv with "STREAMS logs... ids..." of the watching targets, noting
 * their generations; returns how many targets. */
static size_t round_streams(struct upstream_redis *u, const char **argv,
                            char (*ids)[48])
{
    size_t k = 0;

    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        u->round_gen[i] = 0;
        if (res->state != RES_WATCHING)
            continue;
        u->round_gen[i] = res->gen;
        int64_t rv = res->t.feed->rv(res->t.ctx);
        if (res->seen_ms > rv)
            snprintf(ids[k], sizeof(ids[k]), "%" PRId64 "-%" PRId64,
                     res->seen_ms, res->seen_seq);
        else
            snprintf(ids[k], sizeof(ids[k]), "%" PRId64 "-0", rv);
        argv[k] = res->k_log;
        k++;
    }
    for (size_t j = 0; j < k; j++)
        argv[k + j] = ids[j];
    return k;
}

/* The round's transaction: revisions, entries and compaction at one
 * instant. */
static void round_read_cb(struct redis_client *c,
                          const struct redis_client_reply *r, void *arg)
{
    struct upstream_redis *u = arg;
    const struct redis_client_reply *streams;
    size_t k = 0, in = 0;

    (void)c;
    u->round_busy = false;
    for (size_t i = 0; i < u->n; i++)
        in += u->round_gen[i] != 0;
    if (r->type != REDIS_CLIENT_ARRAY || r->n != u->n_tags + 1 + in) {
        char text[160];

        u_lost(u, r->type == REDIS_CLIENT_ERROR
                      ? redis_client_reply_text(r, text, sizeof(text))
                      : "malformed answer to the log's read");
        return;
    }
    streams = &r->elem[u->n_tags];
    for (size_t t = 0; t < u->n_tags; t++)
        if (reply_int(&r->elem[t]) < 0) {
            u_lost(u, "a revision counter is not an integer");
            return;
        }
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];
        const struct redis_client_reply *es = NULL;
        int64_t rev, compacted, rv;

        if (u->round_gen[i] == 0)
            continue;
        compacted = reply_int(&r->elem[u->n_tags + 1 + k++]);
        if (u->round_gen[i] != res->gen || res->state != RES_WATCHING)
            continue; /* relisted meanwhile */
        rev = reply_int(&r->elem[res->tag]);
        if (u_check_rev(u, res->tag, rev))
            continue;
        rv = res->t.feed->rv(res->t.ctx);
        if (compacted > rv) {
            log_info("redis %s: %s: the log was trimmed to %" PRId64
                     ", past revision %" PRId64 ": relisting",
                     u->url, res->name, compacted, rv);
            res_list_start(res);
            continue;
        }
        for (size_t s = 0;
             streams->type == REDIS_CLIENT_ARRAY && s < streams->n; s++) {
            const struct redis_client_reply *st = &streams->elem[s];

            if (st->type == REDIS_CLIENT_ARRAY && st->n == 2 &&
                st->elem[0].len == strlen(res->k_log) &&
                memcmp(st->elem[0].str, res->k_log, st->elem[0].len) == 0 &&
                st->elem[1].type == REDIS_CLIENT_ARRAY)
                es = &st->elem[1];
        }
        if (es != NULL)
            rv = res_apply(res, es, rv, NULL);
        if (rev > rv)
            res->t.feed->progress(res->t.ctx, rev);
        res->t.feed->flush(res->t.ctx);
        if (res->resuming) {
            res->resuming = false;
            res->t.feed->reconnect(res->t.ctx);
        }
        res_set_up(res, true);
    }
    u->attempt = 0; /* the connection does useful work */
    round_send(u);
}

/* The wake-up returned (entries, timeout or CLIENT UNBLOCK): read. */
static void round_wake_cb(struct redis_client *c,
                          const struct redis_client_reply *r, void *arg)
{
    struct upstream_redis *u = arg;
    const char **argv = xcalloc(u->n * 2 + 4, sizeof(*argv));
    char(*ids)[48] = xcalloc(u->n ? u->n : 1, sizeof(*ids));
    char count[24];
    const char *multi[] = {"MULTI"}, *exec[] = {"EXEC"};
    bool ok;
    size_t k;

    (void)c;
    u->round_blocked = false;
    if (r->type == REDIS_CLIENT_ERROR) {
        char text[160];

        free(argv);
        free(ids);
        u_lost(u, redis_client_reply_text(r, text, sizeof(text)));
        return;
    }
    snprintf(count, sizeof(count), "%" PRId64, u->history);
    argv[0] = "XREAD";
    argv[1] = "COUNT";
    argv[2] = count;
    argv[3] = "STREAMS";
    k = round_streams(u, argv + 4, ids);
    ok = u_send(u->tail, 1, multi, NULL, NULL);
    for (size_t t = 0; ok && t < u->n_tags; t++)
        ok = u_send(u->tail, 2, (const char *[]){"GET", u->rev_keys[t]}, NULL,
                    NULL);
    if (ok && k > 0)
        ok = u_send(u->tail, (int)(4 + 2 * k), argv, NULL, NULL);
    else if (ok) /* no target: the same shape, an empty read */
        ok = u_send(u->tail, 1, (const char *[]){"PING"}, NULL, NULL);
    for (size_t i = 0; ok && i < u->n; i++)
        if (u->round_gen[i] != 0)
            ok = u_send(u->tail, 2,
                        (const char *[]){"GET", u->res[i].k_compacted}, NULL,
                        NULL);
    if (ok && u_send(u->tail, 1, exec, round_read_cb, u))
        u->round_busy = true;
    free(argv);
    free(ids);
}

/* Starts a round: the wake-up, blocking for the progress interval. */
static void round_send(struct upstream_redis *u)
{
    const char **argv;
    char(*ids)[48];
    char block[24];
    size_t k;

    if (u->round_busy || !u_usable(u))
        return;
    argv = xcalloc(u->n * 2 + 6, sizeof(*argv));
    ids = xcalloc(u->n ? u->n : 1, sizeof(*ids));
    snprintf(block, sizeof(block), "%.0f", u->cfg.progress_interval * 1000);
    argv[0] = "XREAD";
    argv[1] = "COUNT";
    argv[2] = "1";
    argv[3] = "BLOCK";
    argv[4] = block;
    argv[5] = "STREAMS";
    k = round_streams(u, argv + 6, ids);
    if (k > 0 && u_send(u->tail, (int)(6 + 2 * k), argv, round_wake_cb, u)) {
        u->round_busy = true;
        u->round_blocked = true;
    }
    free(argv);
    free(ids);
}

/* The set of watching targets changed, or progress is wanted now: end
 * the wake-up early (or start a round when none runs). */
static void round_kick(struct upstream_redis *u)
{
    char id[24];

    if (!u->round_busy) {
        round_send(u);
        return;
    }
    if (!u->round_blocked || u->tail_id <= 0)
        return; /* the transaction's answer starts the next round */
    snprintf(id, sizeof(id), "%lld", u->tail_id);
    u_send(u->cmd, 3, (const char *[]){"CLIENT", "UNBLOCK", id}, NULL, NULL);
    u->round_blocked = false; /* one UNBLOCK per wake-up */
}

/* ==== resuming ==== */

/* The log around the resumed revision: the store still holds the history
 * served (see res_verify). */
static void res_verify_cb(struct redis_client *c,
                          const struct redis_client_reply *r, void *arg)
{
    struct rres *res = arg;
    struct upstream_redis *u = res->u;
    int64_t compacted, rev, first = 0;
    const struct redis_client_reply *es, *type, *key = NULL, *value;
    size_t want;
    char why[200];

    (void)c;
    if (!res_reply_current(res))
        return;
    if (r->type != REDIS_CLIENT_ARRAY || r->n != 3 ||
        r->elem[0].type != REDIS_CLIENT_ARRAY ||
        (compacted = reply_int(&r->elem[1])) < 0 ||
        (rev = reply_int(&r->elem[2])) < 0) {
        res_snapshot_failed(res, "XRANGE", r);
        return;
    }
    if (u_check_rev(u, res->tag, rev))
        return;
    es = &r->elem[0];
    if (es->n > 0 && es->elem[0].type == REDIS_CLIENT_ARRAY &&
        es->elem[0].n == 2) {
        first = parse_id(&es->elem[0].elem[0]);
        entry_fields(&es->elem[0].elem[1], &type, &key, &value);
    }
    want = res->last_rev > 0 && compacted < res->last_rev;
    if (es->n != want ||
        (want &&
         (first != res->last_rev || key == NULL ||
          key->len != res->last_key_len ||
          (key->len > 0 && memcmp(key->str, res->last_key, key->len) != 0)))) {
        snprintf(why, sizeof(why),
                 "its log no longer holds the changes of %s served up to "
                 "revision %" PRId64,
                 res->name, res->t.feed->rv(res->t.ctx));
        u_reset_tag(u, res->tag, u_served(u, res->tag), rev, why);
        return;
    }
    res->state = RES_WATCHING;
    round_kick(u);
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
static void res_verify(struct rres *res)
{
    struct upstream_redis *u = res->u;
    char from[32], to[32];

    snprintf(from, sizeof(from), "%" PRId64 "-0", res->last_rev);
    if (res->last_rev == 0)
        snprintf(from, sizeof(from), "-");
    snprintf(to, sizeof(to), "%" PRId64 "-0", res->t.feed->rv(res->t.ctx));
    res->state = RES_VERIFYING;
    if (u_send(u->cmd, 1, (const char *[]){"MULTI"}, NULL, NULL) &&
        u_send(u->cmd, 6,
               (const char *[]){"XRANGE", res->k_log, from, to, "COUNT", "2"},
               NULL, NULL) &&
        u_send(u->cmd, 2, (const char *[]){"GET", res->k_compacted}, NULL,
               NULL) &&
        u_send(u->cmd, 2, (const char *[]){"GET", u->rev_keys[res->tag]}, NULL,
               NULL))
        res_send(res, 1, (const char *[]){"EXEC"}, res_verify_cb);
}

/* ==== direct reads ==== */

static void rread_free(struct rread *rd)
{
    LIST_REMOVE(rd, link);
    if (rd->timer != NULL)
        event_free(rd->timer);
    free(rd);
}

static void probe_cb(struct redis_client *c, const struct redis_client_reply *r,
                     void *arg)
{
    struct rread *rd = arg;
    struct rres *res = rd->res;
    struct upstream_probe p = {0};
    int64_t last = 0, len = -1;
    int err = RW_OK;
    const char *why = NULL;

    (void)c;
    if (r->type != REDIS_CLIENT_ARRAY || r->n != 3 ||
        (p.rev = reply_int(&r->elem[0])) < 0 ||
        r->elem[1].type != REDIS_CLIENT_ARRAY ||
        (r->elem[1].n > 0 &&
         (r->elem[1].elem[0].type != REDIS_CLIENT_ARRAY ||
          r->elem[1].elem[0].n < 1 ||
          (last = parse_id(&r->elem[1].elem[0].elem[0])) < 0)) ||
        r->elem[2].type != REDIS_CLIENT_INTEGER) {
        err = RW_EPROTO;
        why = "malformed answer to the probe";
    } else {
        len = r->elem[2].integer;
        p.rev = RW_MAX(p.rev, last);
        p.unchanged = rd->whole && last <= rd->since &&
                      (size_t)len == rd->count && p.rev >= rd->since;
    }
    if (rd->canceled) {
        rread_free(rd);
        return;
    }
    upstream_probe_cb cb = rd->probe_cb;
    void *cb_arg = rd->arg;
    rread_free(rd);
    if (err == RW_OK && u_check_rev(res->u, res->tag, p.rev))
        err = RW_EUNAVAIL, why = "the store's history was reset";
    else if (err == RW_OK && p.rev > res->t.feed->rv(res->t.ctx))
        round_kick(res->u); /* the cache's progress, now */
    cb(err, why, err == RW_OK ? &p : NULL, cb_arg);
}

static struct upstream_read *reader_probe(void *ctx, const char *scope,
                                          size_t scope_len, int64_t since,
                                          size_t count, upstream_probe_cb cb,
                                          void *arg)
{
    struct rres *res = ctx;
    struct upstream_redis *u = res->u;
    struct rread *rd;
    const char *exec[] = {"EXEC"};

    if (!u_usable(u))
        return NULL;
    rd = xcalloc(1, sizeof(*rd));
    rd->res = res;
    rd->probe_cb = cb;
    rd->arg = arg;
    rd->since = since;
    rd->count = count;
    rd->whole = scope_len == strlen(res->prefix) &&
                memcmp(scope, res->prefix, scope_len) == 0;
    if (!u_send(u->cmd, 1, (const char *[]){"MULTI"}, NULL, NULL) ||
        !u_send(u->cmd, 2, (const char *[]){"GET", u->rev_keys[res->tag]}, NULL,
                NULL) ||
        !u_send(
            u->cmd, 6,
            (const char *[]){"XREVRANGE", res->k_log, "+", "-", "COUNT", "1"},
            NULL, NULL) ||
        !u_send(u->cmd, 2, (const char *[]){"HLEN", res->k_objects}, NULL,
                NULL) ||
        !u_send(u->cmd, 1, exec, probe_cb, rd)) {
        free(rd);
        return NULL;
    }
    LIST_INSERT_HEAD(&u->reads, rd, link);
    return (struct upstream_read *)rd;
}

static void page_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct rread *rd = arg;
    upstream_page_cb cb = rd->page_cb;
    void *cb_arg = rd->arg;
    int64_t rev = rd->rev;
    char why[160];

    (void)fd;
    (void)what;
    snprintf(why, sizeof(why),
             "revision %" PRId64 " is gone: Redis keeps no old values, only "
             "the current ones and the log of changes",
             rev);
    rread_free(rd);
    cb(RW_EEXPIRED, why, rev, NULL, 0, NULL, 0, cb_arg);
}

/* Redis holds the current state only: a page at a revision is answered
 * RW_EEXPIRED (410), from the loop. */
static struct upstream_read *reader_page(void *ctx, const char *scope,
                                         size_t scope_len, const char *cursor,
                                         size_t cursor_len, int64_t rev,
                                         size_t limit, upstream_page_cb cb,
                                         void *arg)
{
    struct rres *res = ctx;
    struct rread *rd;
    struct timeval now = {0, 0};

    (void)scope;
    (void)scope_len;
    (void)cursor;
    (void)cursor_len;
    (void)limit;
    if (!u_usable(res->u))
        return NULL;
    rd = xcalloc(1, sizeof(*rd));
    rd->res = res;
    rd->is_page = true;
    rd->page_cb = cb;
    rd->arg = arg;
    rd->rev = rev;
    rd->timer = evtimer_new(res->u->base, page_timer_cb, rd);
    evtimer_add(rd->timer, &now);
    LIST_INSERT_HEAD(&res->u->reads, rd, link);
    return (struct upstream_read *)rd;
}

static void reader_cancel(void *ctx, struct upstream_read *read)
{
    struct rread *rd = (struct rread *)read;

    (void)ctx;
    if (rd == NULL)
        return;
    if (rd->is_page)
        rread_free(rd); /* its timer with it */
    else
        rd->canceled = true; /* freed when its answer comes */
}

/* cmd went down: every probe in flight fails (pages still answer). */
static void u_fail_reads(struct upstream_redis *u, const char *why)
{
    struct rread *rd, *next;

    for (rd = LIST_FIRST(&u->reads); rd != NULL; rd = next) {
        next = LIST_NEXT(rd, link);
        if (rd->is_page)
            continue;
        upstream_probe_cb cb = rd->canceled ? NULL : rd->probe_cb;
        void *cb_arg = rd->arg;

        rread_free(rd);
        if (cb != NULL)
            cb(RW_EUNAVAIL, why, NULL, cb_arg);
    }
}

/* ==== connection ==== */

static void u_connect(struct upstream_redis *u);

static void u_reconnect_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    u_connect(arg);
}

/* Both connections are up and the library loaded: list or resume. */
static void u_start_all(struct upstream_redis *u)
{
    u->connects++;
    if (u->ever_connected) {
        u->reconnects++;
        log_info("redis %s: reconnected to %s", u->url,
                 redis_client_address(u->cmd));
    } else {
        log_info("redis %s: connected to %s (Redis %s)", u->url,
                 redis_client_address(u->cmd), u->version);
    }
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        if (res->t.feed->rv(res->t.ctx) > 0) {
            res->resuming = u->ever_connected;
            res_verify(res); /* then the rounds check trimming */
        } else {
            res_list_start(res);
        }
    }
    u->ever_connected = true;
    round_send(u);
}

static void u_load_cb(struct redis_client *c,
                      const struct redis_client_reply *r, void *arg)
{
    struct upstream_redis *u = arg;
    char text[200], why[320];

    (void)c;
    if (r->type == REDIS_CLIENT_ERROR) {
        snprintf(why, sizeof(why),
                 "FUNCTION LOAD of the ringwatch library refused (Redis >= "
                 "7.0 is needed): %s",
                 redis_client_reply_text(r, text, sizeof(text)));
        if (!u->ever_connected && strstr(why, "LOADING") == NULL &&
            u->cfg.fatal != NULL) {
            u->cfg.fatal(why, u->cfg.fatal_arg);
            return;
        }
        u_lost(u, why);
        return;
    }
    u->loaded = true;
    if (u_usable(u))
        u_start_all(u);
}

static void u_info_cb(struct redis_client *c,
                      const struct redis_client_reply *r, void *arg)
{
    struct upstream_redis *u = arg;
    const char *v;

    (void)c;
    if (r->type == REDIS_CLIENT_STRING &&
        (v = strstr(r->str, "redis_version:")) != NULL)
        snprintf(u->version, sizeof(u->version), "%.*s",
                 (int)strcspn(v + 14, "\r\n"), v + 14);
}

static void u_cmd_ready_cb(struct redis_client *c, void *arg)
{
    struct upstream_redis *u = arg;

    u->cmd_ready = true;
    u_send(c, 2, (const char *[]){"INFO", "server"}, u_info_cb, u);
    u_send(c, 4,
           (const char *[]){"FUNCTION", "LOAD", "REPLACE",
                            redis_functions_source()},
           u_load_cb, u);
}

static void u_id_cb(struct redis_client *c, const struct redis_client_reply *r,
                    void *arg)
{
    struct upstream_redis *u = arg;

    (void)c;
    u->tail_id = r->type == REDIS_CLIENT_INTEGER ? r->integer : 0;
    u->tail_ready = true;
    if (u_usable(u))
        u_start_all(u);
}

static void u_tail_ready_cb(struct redis_client *c, void *arg)
{
    struct upstream_redis *u = arg;

    u_send(c, 2, (const char *[]){"CLIENT", "ID"}, u_id_cb, u);
}

static void u_down_cb(struct redis_client *c, const char *why, void *arg)
{
    struct upstream_redis *u = arg;

    if (!u->ever_connected && redis_client_reached(c) &&
        strstr(why, "LOADING") == NULL && u->cfg.fatal != NULL) {
        /* The server answered, wrongly: a wrong password, not Redis. */
        u->connect_failures++;
        u->cfg.fatal(why, u->cfg.fatal_arg);
        return;
    }
    u_lost(u, why);
}

/* Drops both connections and schedules the next attempt, on the next
 * seed. */
static void u_lost(struct upstream_redis *u, const char *why)
{
    bool was = u_usable(u);
    double delay;

    snprintf(u->last_error, sizeof(u->last_error), "%s", why);
    redis_client_free(u->cmd); /* deferred when inside its callbacks */
    redis_client_free(u->tail);
    u->cmd = u->tail = NULL;
    u->cmd_ready = u->tail_ready = u->loaded = false;
    u->round_busy = u->round_blocked = false;
    u_fail_reads(u, why);
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        event_del(res->retry);
        res->state = RES_IDLE;
        res->in_flight = res->relist = false;
        res->tries = 0;
        upstream_redis_snap_free(res->snap);
        res->snap = NULL;
        res_set_up(res, false);
    }
    if (!was)
        u->connect_failures++;
    delay = backoff_delay(&u->backoff, u->attempt++);
    if (was || u->attempt == 1)
        log_warnx("redis %s: %s: %s; retrying in %.2f s", u->url,
                  was ? "connection lost" : "cannot connect", why, delay);
    else
        log_debug("redis %s: cannot connect (attempt %u): %s; retrying in "
                  "%.2f s",
                  u->url, u->attempt, why, delay);
    u->seed = (u->seed + 1) % u->n_seeds;
    struct timeval tv = rw_timeval(delay);
    event_add(u->reconnect, &tv);
}

static void u_connect(struct upstream_redis *u)
{
    static const struct redis_client_callbacks cmd_cbs = {u_cmd_ready_cb,
                                                          u_down_cb};
    static const struct redis_client_callbacks tail_cbs = {u_tail_ready_cb,
                                                           u_down_cb};
    const struct seed *s = &u->seeds[u->seed];

    rw_assert(u->cmd == NULL && u->tail == NULL);
    u->cmd = redis_client_new(u->base, s->host, s->port, u->password,
                              u->cfg.dial_timeout, &cmd_cbs, u);
    u->tail = redis_client_new(u->base, s->host, s->port, u->password,
                               u->cfg.dial_timeout, &tail_cbs, u);
}

/* ==== construction ==== */

/* Parses "redis://HOST[:PORT],..." into u's seeds; RW_EINVAL with why. */
static int seeds_parse(const char *url, struct seed **out, size_t *n, char *why,
                       size_t why_len)
{
    char *copy = xstrdup(url), *save = NULL;
    int rc = RW_OK;

    *out = NULL;
    *n = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL && rc == RW_OK;
         tok = strtok_r(NULL, ",", &save)) {
        char *host, *colon, *end;
        long port = REDIS_DEFAULT_PORT;

        while (*tok == ' ')
            tok++;
        tok[strcspn(tok, " ")] = '\0';
        if (strncasecmp(tok, "redis://", 8) != 0) {
            snprintf(why, why_len, "seed \"%s\": expected redis://HOST[:PORT]",
                     tok);
            rc = RW_EINVAL;
            break;
        }
        host = tok + 8;
        if (*host == '[') { /* [IPv6]:PORT */
            end = strchr(host, ']');
            colon = end != NULL && end[1] == ':' ? end + 1 : NULL;
            if (end != NULL)
                *end = '\0';
            host++;
            if (end == NULL || (end[1] != '\0' && colon == NULL))
                host = NULL;
        } else {
            colon = strchr(host, ':');
            if (colon != NULL)
                *colon = '\0';
        }
        if (colon != NULL) {
            port = strtol(colon + 1, &end, 10);
            if (*end != '\0' || end == colon + 1)
                port = -1;
        }
        if (host == NULL || *host == '\0' || strpbrk(host, "/?#@") != NULL ||
            port < 1 || port > 65535) {
            snprintf(why, why_len,
                     "seed \"%s\": expected redis://HOST[:PORT] (no user, "
                     "path or query; the password comes from "
                     "--redis-password-file)",
                     tok);
            rc = RW_EINVAL;
            break;
        }
        *out = xrealloc(*out, (*n + 1) * sizeof(**out));
        (*out)[*n].host = xstrdup(host);
        (*out)[*n].port = (uint16_t)port;
        (*n)++;
    }
    if (rc == RW_OK && *n == 0) {
        snprintf(why, why_len, "no seed: expected redis://HOST[:PORT]");
        rc = RW_EINVAL;
    }
    if (rc != RW_OK) {
        for (size_t i = 0; i < *n; i++)
            free((*out)[i].host);
        free(*out);
        *out = NULL;
        *n = 0;
    }
    free(copy);
    return rc;
}

static int redis_check(const char *url, char *why, size_t why_len)
{
    struct seed *seeds;
    size_t n;

    if (seeds_parse(url, &seeds, &n, why, why_len) != RW_OK)
        return RW_EINVAL;
    for (size_t i = 0; i < n; i++)
        free(seeds[i].host);
    free(seeds);
    return RW_OK;
}

char *upstream_redis_resource_name(const struct resource_type *rt)
{
    if (rt->group == NULL || rt->group[0] == '\0')
        return xstrdup(rt->resource);
    return xasprintf("%s.%s", rt->resource, rt->group);
}

static void res_init(struct upstream_redis *u, struct rres *res,
                     const struct upstream_target *t, size_t i)
{
    char *tag;

    res->u = u;
    res->t = *t;
    res->name = upstream_redis_resource_name(t->rt);
    res->prefix = resource_type_ns_prefix(t->rt, NULL);
    res->tag = u->per_resource ? i : 0;
    tag = u->per_resource ? xasprintf("{rw:%s}", res->name) : xstrdup("{rw}");
    if (u->per_resource || i == 0)
        u->rev_keys[res->tag] = xasprintf("%s:rev", tag);
    res->k_objects = xasprintf("%s:%s:objects", tag, res->name);
    res->k_log = xasprintf("%s:%s:log", tag, res->name);
    res->k_compacted = xasprintf("%s:%s:compacted", tag, res->name);
    free(tag);
    res->retry = evtimer_new(u->base, res_retry_cb, res);
    res->reader =
        (struct upstream_reader){res, reader_probe, reader_page, reader_cancel};
}

static struct upstream *redis_create(struct event_base *base, const char *url,
                                     const struct upstream_target *targets,
                                     size_t n,
                                     const struct upstream_config *cfg)
{
    struct upstream_redis *u = xcalloc(1, sizeof(*u));
    char why[256];

    if (seeds_parse(url, &u->seeds, &u->n_seeds, why, sizeof(why)) != RW_OK) {
        log_warnx("redis upstream: \"%s\": %s", url, why);
        free(u);
        return NULL;
    }
    u->base = base;
    u->url = xstrdup(url);
    if (cfg != NULL)
        u->cfg = *cfg;
    if (u->cfg.page_size == 0)
        u->cfg.page_size = REDIS_DEFAULT_PAGE;
    if (u->cfg.backoff_min <= 0)
        u->cfg.backoff_min = REDIS_DEFAULT_BACKOFF_MIN;
    if (u->cfg.backoff_max <= 0)
        u->cfg.backoff_max = REDIS_DEFAULT_BACKOFF_MAX;
    if (u->cfg.dial_timeout <= 0)
        u->cfg.dial_timeout = REDIS_DEFAULT_DIAL;
    if (u->cfg.progress_interval <= 0)
        u->cfg.progress_interval = REDIS_DEFAULT_PROGRESS;
    u->password =
        u->cfg.redis_password != NULL ? xstrdup(u->cfg.redis_password) : NULL;
    u->per_resource = u->cfg.redis_per_resource;
    u->history =
        u->cfg.redis_history > 0 ? u->cfg.redis_history : REDIS_DEFAULT_HISTORY;
    backoff_init(&u->backoff, u->cfg.backoff_min, u->cfg.backoff_max);
    u->reconnect = evtimer_new(base, u_reconnect_cb, u);
    LIST_INIT(&u->reads);
    u->n = n;
    u->n_tags = u->per_resource ? n : 1;
    u->rev_keys = xcalloc(u->n_tags ? u->n_tags : 1, sizeof(*u->rev_keys));
    if (n == 0)
        u->rev_keys[0] = xstrdup("{rw}:rev");
    u->res = xcalloc(n ? n : 1, sizeof(*u->res));
    u->round_gen = xcalloc(n ? n : 1, sizeof(*u->round_gen));
    for (size_t i = 0; i < n; i++)
        res_init(u, &u->res[i], &targets[i], i);
    for (size_t i = 0; i < n; i++)
        targets[i].feed->set_reader(targets[i].ctx, &u->res[i].reader);
    return (struct upstream *)u;
}

static int redis_start(struct upstream *up)
{
    struct upstream_redis *u = (struct upstream_redis *)up;

    if (!u->started) {
        u->started = true;
        u_connect(u);
    }
    return RW_OK;
}

static void redis_free(struct upstream *up)
{
    struct upstream_redis *u = (struct upstream_redis *)up;

    if (u == NULL)
        return;
    redis_client_free(u->cmd);
    redis_client_free(u->tail);
    while (!LIST_EMPTY(&u->reads))
        rread_free(LIST_FIRST(&u->reads));
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        res->t.feed->set_reader(res->t.ctx, NULL);
        event_free(res->retry);
        upstream_redis_snap_free(res->snap);
        free(res->name);
        free(res->prefix);
        free(res->k_objects);
        free(res->k_log);
        free(res->k_compacted);
        free(res->last_key);
    }
    for (size_t t = 0; t < u->n_tags; t++)
        free(u->rev_keys[t]);
    if (u->n == 0)
        free(u->rev_keys[0]);
    for (size_t i = 0; i < u->n_seeds; i++)
        free(u->seeds[i].host);
    event_free(u->reconnect);
    free(u->rev_keys);
    free(u->round_gen);
    free(u->seeds);
    free(u->res);
    free(u->password);
    free(u->url);
    free(u);
}

static void redis_status(const struct upstream *up, struct upstream_status *st)
{
    const struct upstream_redis *u = (const struct upstream_redis *)up;

    memset(st, 0, sizeof(*st));
    st->store = upstream_redis_ops.store;
    st->connected = u_usable(u);
    st->version = u->version;
    st->connects = u->connects;
    st->reconnects = u->reconnects;
    st->connect_failures = u->connect_failures;
    st->resources = u->n;
    st->last_error = u->last_error;
    st->tls_error = "";
    st->malformed = u->malformed;
    for (size_t i = 0; i < u->n; i++)
        st->watching += u->res[i].watching;
}

static const char *const redis_schemes[] = {"redis", NULL};

const struct upstream_ops upstream_redis_ops = {
    .store = "redis",
    .schemes = redis_schemes,
    .check = redis_check,
    .create = redis_create,
    .start = redis_start,
    .free = redis_free,
    .status = redis_status,
};
