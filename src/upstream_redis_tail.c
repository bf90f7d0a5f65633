/*
 * upstream_redis_tail.c: the Redis logs of every watching resource, read
 * in rounds on the tail connection (see upstream_redis.c for the design).
 */
#include <inttypes.h>
#include <stdint.h>
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

/* Whether a target of node counts revisions with tag t (the round reads
 * T:rev of those tags only: on a cluster, the keys of one transaction
 * must share a slot). */
static bool node_has_tag(const struct rnode *node, size_t t)
{
    const struct upstream_redis *u = node->u;

    for (size_t i = 0; i < u->n; i++)
        if (u->res[i].node == node && u->res[i].tag == t)
            return true;
    return false;
}

/* Fills argv with "STREAMS logs... ids..." of node's watching targets,
 * noting their generations; returns how many targets. */
static size_t round_streams(struct rnode *node, const char **argv,
                            char (*ids)[48])
{
    struct upstream_redis *u = node->u;
    size_t k = 0;

    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        node->round_gen[i] = 0;
        if (res->state != RES_WATCHING || res->node != node)
            continue;
        node->round_gen[i] = res->gen;
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
    struct rnode *node = arg;
    struct upstream_redis *u = node->u;
    const struct redis_client_reply *streams;
    size_t k = 0, in = 0, tags = 0;
    size_t *tag_at = xcalloc(u->n_tags ? u->n_tags : 1, sizeof(*tag_at));

    (void)c;
    node->round_busy = false;
    for (size_t t = 0; t < u->n_tags; t++)
        tag_at[t] = node_has_tag(node, t) ? tags++ : SIZE_MAX;
    for (size_t i = 0; i < u->n; i++)
        in += node->round_gen[i] != 0;
    if (r->type != REDIS_CLIENT_ARRAY || r->n != tags + 1 + in) {
        char text[160];

        free(tag_at);
        upstream_redis_lost(node,
                            r->type == REDIS_CLIENT_ERROR
                                ? redis_client_reply_text(r, text, sizeof(text))
                                : "malformed answer to the log's read");
        return;
    }
    streams = &r->elem[tags];
    for (size_t t = 0; t < tags; t++)
        if (upstream_redis_entry_reply_int(&r->elem[t]) < 0) {
            free(tag_at);
            upstream_redis_lost(node, "a revision counter is not an integer");
            return;
        }
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];
        const struct redis_client_reply *es = NULL;
        int64_t rev, compacted, rv;

        if (node->round_gen[i] == 0)
            continue;
        compacted = upstream_redis_entry_reply_int(&r->elem[tags + 1 + k++]);
        if (node->round_gen[i] != res->gen || res->state != RES_WATCHING ||
            res->node != node)
            continue; /* relisted meanwhile */
        rev = upstream_redis_entry_reply_int(&r->elem[tag_at[res->tag]]);
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
    free(tag_at);
    node->attempt = 0; /* the connection does useful work */
    upstream_redis_tail_send(node);
}

/* The wake-up returned (entries, timeout or CLIENT UNBLOCK): read. */
static void round_wake_cb(struct redis_client *c,
                          const struct redis_client_reply *r, void *arg)
{
    struct rnode *node = arg;
    struct upstream_redis *u = node->u;
    const char **argv = xcalloc(u->n * 2 + 4, sizeof(*argv));
    char(*ids)[48] = xcalloc(u->n ? u->n : 1, sizeof(*ids));
    char count[24];
    const char *multi[] = {"MULTI"}, *exec[] = {"EXEC"};
    bool ok;
    size_t k;

    (void)c;
    node->round_blocked = false;
    if (r->type == REDIS_CLIENT_ERROR) {
        char text[160];

        free(argv);
        free(ids);
        upstream_redis_lost(node,
                            redis_client_reply_text(r, text, sizeof(text)));
        return;
    }
    snprintf(count, sizeof(count), "%" PRId64, u->history);
    argv[0] = "XREAD";
    argv[1] = "COUNT";
    argv[2] = count;
    argv[3] = "STREAMS";
    k = round_streams(node, argv + 4, ids);
    ok = upstream_redis_tail_cmd(node, 1, multi, NULL, NULL);
    for (size_t t = 0; ok && t < u->n_tags; t++)
        if (node_has_tag(node, t))
            ok = upstream_redis_tail_cmd(
                node, 2, (const char *[]){"GET", u->rev_keys[t]}, NULL, NULL);
    if (ok && k > 0)
        ok = upstream_redis_tail_cmd(node, (int)(4 + 2 * k), argv, NULL, NULL);
    else if (ok) /* no target: the same shape, an empty read */
        ok = upstream_redis_tail_cmd(node, 1, (const char *[]){"PING"}, NULL,
                                     NULL);
    for (size_t i = 0; ok && i < u->n; i++)
        if (node->round_gen[i] != 0)
            ok = upstream_redis_tail_cmd(
                node, 2, (const char *[]){"GET", u->res[i].k_compacted}, NULL,
                NULL);
    if (ok && upstream_redis_tail_cmd(node, 1, exec, round_read_cb, node))
        node->round_busy = true;
    free(argv);
    free(ids);
}

/* Starts a round: the wake-up, blocking for the progress interval. */
void upstream_redis_tail_send(struct rnode *node)
{
    struct upstream_redis *u = node->u;
    const char **argv;
    char(*ids)[48];
    char block[24];
    size_t k;

    if (node->round_busy || !upstream_redis_usable(node))
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
    k = round_streams(node, argv + 6, ids);
    if (k > 0 && upstream_redis_tail_cmd(node, (int)(6 + 2 * k), argv,
                                         round_wake_cb, node)) {
        node->round_busy = true;
        node->round_blocked = true;
    }
    free(argv);
    free(ids);
}

/* The set of watching targets changed, or progress is wanted now: end
 * the wake-up early (or start a round when none runs). */
static void tail_unblock(struct rnode *node);

/* CLIENT UNBLOCK's answer: 0 when tail was not blocked, because its
 * wake-up has returned (its answer is on the way) or has not reached
 * Redis yet (the two connections race): then again, until it is
 * unblocked or has returned. */
static void tail_unblock_cb(struct redis_client *c,
                            const struct redis_client_reply *r, void *arg)
{
    struct rnode *node = arg;

    (void)c;
    node->unblocking = false;
    if (r->type == REDIS_CLIENT_INTEGER && r->integer == 0 &&
        node->round_blocked)
        tail_unblock(node);
}

static void tail_unblock(struct rnode *node)
{
    char id[24];

    snprintf(id, sizeof(id), "%lld", node->tail_id);
    node->unblocking = upstream_redis_node_cmd(
        node, 3, (const char *[]){"CLIENT", "UNBLOCK", id}, tail_unblock_cb,
        node);
}

void upstream_redis_tail_kick(struct rnode *node)
{
    if (node == NULL)
        return;
    if (!node->round_busy) {
        upstream_redis_tail_send(node);
        return;
    }
    if (!node->round_blocked || node->tail_id <= 0 || node->unblocking)
        return; /* the transaction's answer starts the next round */
    tail_unblock(node);
}
