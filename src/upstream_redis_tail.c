/*
 * upstream_redis_tail.c: the Redis logs of every watching resource, read
 * in rounds on the tail connection (see upstream_redis.c for the design).
 */
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

/* ==== the log's rounds ==== */

void upstream_redis_tail_send(struct upstream_redis *u);

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

        upstream_redis_lost(u,
                            r->type == REDIS_CLIENT_ERROR
                                ? redis_client_reply_text(r, text, sizeof(text))
                                : "malformed answer to the log's read");
        return;
    }
    streams = &r->elem[u->n_tags];
    for (size_t t = 0; t < u->n_tags; t++)
        if (upstream_redis_entry_reply_int(&r->elem[t]) < 0) {
            upstream_redis_lost(u, "a revision counter is not an integer");
            return;
        }
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];
        const struct redis_client_reply *es = NULL;
        int64_t rev, compacted, rv;

        if (u->round_gen[i] == 0)
            continue;
        compacted =
            upstream_redis_entry_reply_int(&r->elem[u->n_tags + 1 + k++]);
        if (u->round_gen[i] != res->gen || res->state != RES_WATCHING)
            continue; /* relisted meanwhile */
        rev = upstream_redis_entry_reply_int(&r->elem[res->tag]);
        if (upstream_redis_list_check_rev(u, res->tag, rev))
            continue;
        rv = res->t.feed->rv(res->t.ctx);
        if (compacted > rv) {
            log_info("redis %s: %s: the log was trimmed to %" PRId64
                     ", past revision %" PRId64 ": relisting",
                     u->url, res->name, compacted, rv);
            upstream_redis_list_start(res);
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
            rv = upstream_redis_list_apply(res, es, rv, NULL);
        /* A read cut at COUNT (writers keeping more history than
         * --redis-history) leaves entries up to T:rev: no progress past
         * them; the next round reads on at once. */
        if (rev > rv && (es == NULL || es->n < (size_t)u->history))
            res->t.feed->progress(res->t.ctx, rev);
        res->t.feed->flush(res->t.ctx);
        if (res->resuming) {
            res->resuming = false;
            res->t.feed->reconnect(res->t.ctx);
        }
        upstream_redis_set_up(res, true);
    }
    u->attempt = 0; /* the connection does useful work */
    upstream_redis_tail_send(u);
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
        upstream_redis_lost(u, redis_client_reply_text(r, text, sizeof(text)));
        return;
    }
    snprintf(count, sizeof(count), "%" PRId64, u->history);
    argv[0] = "XREAD";
    argv[1] = "COUNT";
    argv[2] = count;
    argv[3] = "STREAMS";
    k = round_streams(u, argv + 4, ids);
    ok = upstream_redis_send(u->tail, 1, multi, NULL, NULL);
    for (size_t t = 0; ok && t < u->n_tags; t++)
        ok = upstream_redis_send(
            u->tail, 2, (const char *[]){"GET", u->rev_keys[t]}, NULL, NULL);
    if (ok && k > 0)
        ok = upstream_redis_send(u->tail, (int)(4 + 2 * k), argv, NULL, NULL);
    else if (ok) /* no target: the same shape, an empty read */
        ok = upstream_redis_send(u->tail, 1, (const char *[]){"PING"}, NULL,
                                 NULL);
    for (size_t i = 0; ok && i < u->n; i++)
        if (u->round_gen[i] != 0)
            ok = upstream_redis_send(
                u->tail, 2, (const char *[]){"GET", u->res[i].k_compacted},
                NULL, NULL);
    if (ok && upstream_redis_send(u->tail, 1, exec, round_read_cb, u))
        u->round_busy = true;
    free(argv);
    free(ids);
}

/* Starts a round: the wake-up, blocking for the progress interval. */
void upstream_redis_tail_send(struct upstream_redis *u)
{
    const char **argv;
    char(*ids)[48];
    char block[24];
    size_t k;

    if (u->round_busy || !upstream_redis_usable(u))
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
    if (k > 0 && upstream_redis_send(u->tail, (int)(6 + 2 * k), argv,
                                     round_wake_cb, u)) {
        u->round_busy = true;
        u->round_blocked = true;
    }
    free(argv);
    free(ids);
}

/* The set of watching targets changed, or progress is wanted now: end
 * the wake-up early (or start a round when none runs). */
static void tail_unblock(struct upstream_redis *u);

/* CLIENT UNBLOCK's answer: 0 when tail was not blocked, because its
 * wake-up has returned (its answer is on the way) or has not reached
 * Redis yet (the two connections race): then again, until it is
 * unblocked or has returned. */
static void tail_unblock_cb(struct redis_client *c,
                            const struct redis_client_reply *r, void *arg)
{
    struct upstream_redis *u = arg;

    (void)c;
    u->unblocking = false;
    if (r->type == REDIS_CLIENT_INTEGER && r->integer == 0 && u->round_blocked)
        tail_unblock(u);
}

static void tail_unblock(struct upstream_redis *u)
{
    char id[24];

    snprintf(id, sizeof(id), "%lld", u->tail_id);
    u->unblocking = upstream_redis_send(
        u->cmd, 3, (const char *[]){"CLIENT", "UNBLOCK", id}, tail_unblock_cb,
        u);
}

void upstream_redis_tail_kick(struct upstream_redis *u)
{
    if (!u->round_busy) {
        upstream_redis_tail_send(u);
        return;
    }
    if (!u->round_blocked || u->tail_id <= 0 || u->unblocking)
        return; /* the transaction's answer starts the next round */
    tail_unblock(u);
}
