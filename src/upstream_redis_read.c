/*
 * upstream_redis_read.c: the Redis adapter's direct reads (src/upstream.h's
 * upstream_reader, ctx a resource): a probe is one MULTI of T:rev, the
 * log's last entry and HLEN; a page at a revision is answered RW_EEXPIRED
 * from the loop (Redis keeps no old values).
 */
#include <sys/queue.h>

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

/* ==== direct reads ==== */

struct rread *upstream_redis_read_new(struct rres *res, void *arg)
{
    struct rread *rd = xcalloc(1, sizeof(*rd));

    rd->res = res;
    rd->arg = arg;
    return rd;
}

void upstream_redis_read_free(struct rread *rd)
{
    LIST_REMOVE(rd, link);
    if (rd->timer != NULL)
        event_free(rd->timer);
    if (rd->state_free != NULL)
        rd->state_free(rd->state);
    else
        free(rd->state);
    free(rd);
}

/* The probe's answer: [T:rev, the log's last entry (or none)]. */
static void probe_cb(struct redis_client *c, const struct redis_client_reply *r,
                     void *arg)
{
    struct rread *rd = arg;
    struct rres *res = rd->res;
    struct upstream_probe p = {0};
    const struct redis_client_reply *last;
    int64_t last_ms = 0, last_seq;
    int err = RW_OK;
    const char *why = NULL;

    (void)c;
    if (r->type != REDIS_CLIENT_ARRAY || r->n != 2 ||
        (p.rev = upstream_redis_entry_reply_int(&r->elem[0])) < 0 ||
        r->elem[1].type != REDIS_CLIENT_ARRAY ||
        (r->elem[1].n > 0 &&
         ((last = &r->elem[1].elem[0])->type != REDIS_CLIENT_ARRAY ||
          last->n < 1 ||
          !upstream_redis_entry_id(&last->elem[0], &last_ms, &last_seq)))) {
        err = RW_EPROTO;
        why = "malformed answer to the probe";
    } else {
        /* Every change of the resource is in its log: none after since,
         * nothing under any of its scopes changed. */
        p.rev = RW_MAX(p.rev, last_ms);
        p.unchanged = last_ms <= rd->since && p.rev >= rd->since;
    }
    if (rd->canceled) {
        upstream_redis_read_free(rd);
        return;
    }
    upstream_probe_cb cb = rd->probe_cb;
    void *cb_arg = rd->arg;
    upstream_redis_read_free(rd);
    if (err == RW_OK && upstream_redis_list_check_rev(res->u, res->tag, p.rev))
        err = RW_EUNAVAIL, why = "the store's history was reset";
    else if (err == RW_OK && p.rev > res->t.feed->rv(res->t.ctx))
        upstream_redis_tail_kick(res->u); /* the cache's progress, now */
    cb(err, why, err == RW_OK ? &p : NULL, cb_arg);
}

/* One MULTI of T:rev and the log's last entry: the store's revision and
 * whether the resource changed since (its log holds every change). */
static struct upstream_read *reader_probe(void *ctx, const char *scope,
                                          size_t scope_len, int64_t since,
                                          size_t count, upstream_probe_cb cb,
                                          void *arg)
{
    struct rres *res = ctx;
    struct upstream_redis *u = res->u;
    struct rread *rd;

    (void)scope;
    (void)scope_len;
    (void)count;
    if (!upstream_redis_usable(u))
        return NULL;
    rd = upstream_redis_read_new(res, arg);
    rd->probe_cb = cb;
    rd->since = since;
    if (!upstream_redis_send(u->cmd, 1, (const char *[]){"MULTI"}, NULL,
                             NULL) ||
        !upstream_redis_send(u->cmd, 2,
                             (const char *[]){"GET", u->rev_keys[res->tag]},
                             NULL, NULL) ||
        !upstream_redis_send(
            u->cmd, 6,
            (const char *[]){"XREVRANGE", res->k_log, "+", "-", "COUNT", "1"},
            NULL, NULL) ||
        !upstream_redis_send(u->cmd, 1, (const char *[]){"EXEC"}, probe_cb,
                             rd)) {
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
    upstream_redis_read_free(rd);
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
    rd = upstream_redis_read_new(res, arg); /* connected or not: nothing to ask Redis */
    rd->is_page = true;
    rd->page_cb = cb;
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
        upstream_redis_read_free(rd); /* its timer with it */
    else
        rd->canceled = true; /* freed when its answer comes */
}

/* Pages still answer (from their timers). */
void upstream_redis_read_fail(struct upstream_redis *u, const char *why)
{
    struct rread *rd, *next;

    for (rd = LIST_FIRST(&u->reads); rd != NULL; rd = next) {
        next = LIST_NEXT(rd, link);
        if (rd->is_page)
            continue;
        if (rd->get_cb != NULL || rd->write_cb != NULL) {
            upstream_redis_write_fail(rd, why);
            continue;
        }
        upstream_probe_cb cb = rd->canceled ? NULL : rd->probe_cb;
        void *cb_arg = rd->arg;

        upstream_redis_read_free(rd);
        if (cb != NULL)
            cb(RW_EUNAVAIL, why, NULL, cb_arg);
    }
}

void upstream_redis_read_init(struct rres *res)
{
    res->reader =
        (struct upstream_reader){.ctx = res,
                                 .probe = reader_probe,
                                 .page = reader_page,
                                 .cancel = reader_cancel};
    upstream_redis_write_init(res);
}

void upstream_redis_read_free_all(struct upstream_redis *u)
{
    while (!LIST_EMPTY(&u->reads))
        upstream_redis_read_free(LIST_FIRST(&u->reads));
}
