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
#include "src/upstream_redis_impl.h"
#include "src/upstream_redis_snap.h"

#define REDIS_DEFAULT_PAGE 500
#define REDIS_DEFAULT_BACKOFF_MIN 0.1
#define REDIS_DEFAULT_BACKOFF_MAX 5.0
#define REDIS_DEFAULT_DIAL 5.0
#define REDIS_DEFAULT_PROGRESS 1.0
#define REDIS_DEFAULT_HISTORY 10000
#define REDIS_DEFAULT_PORT 6379

/* ==== helpers ==== */

bool upstream_redis_usable(const struct upstream_redis *u)
{
    return u->cmd_ready && u->tail_ready && u->loaded;
}

/* Sends argv on c; false when c cannot take it (the connection's loss is
 * reported by its on_down). */
bool upstream_redis_send(struct redis_client *c, int argc, const char **argv,
                         redis_client_reply_fn cb, void *arg)
{
    return c != NULL &&
           redis_client_command(c, argc, argv, NULL, cb, arg) == RW_OK;
}

void upstream_redis_set_up(struct rres *res, bool up)
{
    if (res->watching == up)
        return;
    res->watching = up;
    res->t.feed->state(res->t.ctx, up);
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
            upstream_redis_list_verify(
                res); /* then the rounds check trimming */
        } else {
            upstream_redis_list_start(res);
        }
    }
    u->ever_connected = true;
    upstream_redis_tail_send(u);
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
        upstream_redis_lost(u, why);
        return;
    }
    u->loaded = true;
    if (upstream_redis_usable(u))
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
    upstream_redis_send(c, 2, (const char *[]){"INFO", "server"}, u_info_cb, u);
    upstream_redis_send(c, 4,
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
    if (upstream_redis_usable(u))
        u_start_all(u);
}

static void u_tail_ready_cb(struct redis_client *c, void *arg)
{
    struct upstream_redis *u = arg;

    upstream_redis_send(c, 2, (const char *[]){"CLIENT", "ID"}, u_id_cb, u);
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
    upstream_redis_lost(u, why);
}

/* Drops both connections and schedules the next attempt, on the next
 * seed. */
void upstream_redis_lost(struct upstream_redis *u, const char *why)
{
    bool was = upstream_redis_usable(u);
    double delay;

    snprintf(u->last_error, sizeof(u->last_error), "%s", why);
    redis_client_free(u->cmd); /* deferred when inside its callbacks */
    redis_client_free(u->tail);
    u->cmd = u->tail = NULL;
    u->cmd_ready = u->tail_ready = u->loaded = false;
    u->round_busy = u->round_blocked = u->unblocking = false;
    upstream_redis_read_fail(u, why);
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        event_del(res->retry);
        res->state = RES_IDLE;
        res->in_flight = res->relist = false;
        res->tries = 0;
        upstream_redis_snap_free(res->snap);
        res->snap = NULL;
        upstream_redis_set_up(res, false);
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
    st->connected = upstream_redis_usable(u);
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
