/*
 * upstream_redis.c: the Redis upstream adapter (see upstream_redis.h).
 *
 * Data structure: one struct upstream_redis holds the nodes (each two
 * connections, cmd: commands; tail: the log reader) and one struct rres
 * per target, in one of
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
 * The log, all watching targets of a node at once, in rounds on its tail:
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
 * Connections (upstream_redis_nodes.c): discovery (CLUSTER SLOTS on the
 * seeds) finds a standalone Redis or a Redis Cluster; one node (two
 * connections) per standalone Redis, or per hash tag on a cluster, at the
 * master of its slot.  Every command goes through upstream_redis_res_send,
 * which follows MOVED and ASK.  When a node's connection goes down, its
 * targets go IDLE (state false), the map is refreshed and the node
 * reconnects after a jittered backoff; on reconnect each target resumes
 * after the check of the log (upstream_redis_list_verify): a replica
 * promoted without the last writes is found there.  The first
 * connection's handshake refused (wrong password, not a Redis server,
 * Redis older than 7) is fatal (upstream_config's fatal); later ones are
 * retried.  Direct reads in flight when a node goes down are answered
 * RW_EUNAVAIL.
 */
#include "src/upstream_redis.h"

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
#include "src/upstream.h"
#include "src/upstream_redis_impl.h"
#include "src/upstream_redis_snap.h"

#define REDIS_DEFAULT_PAGE 500
#define REDIS_DEFAULT_BACKOFF_MIN 0.1
#define REDIS_DEFAULT_BACKOFF_MAX 5.0
#define REDIS_DEFAULT_DIAL 5.0
#define REDIS_DEFAULT_PROGRESS 1.0
#define REDIS_DEFAULT_HISTORY 10000
#define REDIS_DEFAULT_PORT 6379

void upstream_redis_set_up(struct rres *res, bool up)
{
    if (res->watching == up)
        return;
    res->watching = up;
    res->t.feed->state(res->t.ctx, up);
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
    res->retry = evtimer_new(u->base, upstream_redis_list_retry_cb, res);
    upstream_redis_read_init(res);
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
    LIST_INIT(&u->reads);
    u->n = n;
    u->n_tags = u->per_resource ? n : 1;
    u->rev_keys = xcalloc(u->n_tags ? u->n_tags : 1, sizeof(*u->rev_keys));
    if (n == 0)
        u->rev_keys[0] = xstrdup("{rw}:rev");
    u->res = xcalloc(n ? n : 1, sizeof(*u->res));
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
        upstream_redis_nodes_start(u);
    }
    return RW_OK;
}

static void redis_free(struct upstream *up)
{
    struct upstream_redis *u = (struct upstream_redis *)up;

    if (u == NULL)
        return;
    upstream_redis_nodes_free(u);
    upstream_redis_read_free_all(u);
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
    free(u->rev_keys);
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
    st->connected = upstream_redis_nodes_usable(u);
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
