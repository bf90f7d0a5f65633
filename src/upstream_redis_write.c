/*
 * upstream_redis_write.c: the Redis adapter's get of one key and its
 * conditional writes (src/upstream.h's upstream_reader get and write, ctx
 * a resource), made of the ringwatch library's functions
 * (src/redis_functions.lua, man/ringwatch-redis.7):
 *
 *   get     MULTI, HGET T:R:objects key, GET T:rev, EXEC: the value
 *           ("<modrev> <json>") and the revision, one atomic read
 *   CREATE  FCALL rw_put ... key json 0 history (EXISTS n: RW_EEXIST)
 *   UPDATE  expected > 0: FCALL rw_put ... key json expected history;
 *           expected 0 (the key must exist, whatever its revision): the
 *           key's mod revision m first (HGET), then rw_put with m
 *   DELETE  the key's value and m first (HGET: the deleted object is
 *           answered), then FCALL rw_delete ... key m history
 *
 * A read-then-write whose rw_put or rw_delete finds another revision
 * (CONFLICT: a write came in between) reads again when the caller named
 * no revision, at most WRITE_TRIES times; so each write is still one
 * atomic function call conditional on what the caller saw.  Errors are
 * the library's first words: CONFLICT n (RW_ECONFLICT, mod_rev n),
 * EXISTS n, NOTFOUND (RW_ENOTFOUND), INVALID why (RW_EINVAL).
 *
 * Every command goes through write_send, the one place that picks the
 * connection.
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

/* Reads and function calls one write makes at most (lost races). */
#define WRITE_TRIES 64

struct rwrite {
    struct upstream_write w; /* op and expected (key, value: below) */
    char *key, *value;       /* NUL-terminated copies */
    unsigned tries;
    /* DELETE: the value read (in cur), its mod revision */
    char *cur;
    size_t cur_len;
    int64_t cur_rev;
};

/* The one function that sends this module's commands. */
static bool write_send(struct rres *res, int argc, const char **argv,
                       redis_client_reply_fn cb, void *arg)
{
    return upstream_redis_send(res->u->cmd, argc, argv, cb, arg);
}

/* rread's state_free of a write. */
static void rwrite_free(void *state)
{
    struct rwrite *w = state;

    free(w->key);
    free(w->value);
    free(w->cur);
    free(w);
}

/* An HGET reply "<modrev> <json>": the mod revision and the JSON; false
 * when malformed. */
static bool write_parse_field(const struct redis_client_reply *r, int64_t *rev,
                              const char **json, size_t *json_len)
{
    const char *sp;
    char *end;

    if (r->type != REDIS_CLIENT_STRING ||
        (sp = memchr(r->str, ' ', r->len)) == NULL || sp == r->str)
        return false;
    *rev = strtoll(r->str, &end, 10);
    if (end != sp || *rev <= 0)
        return false;
    *json = sp + 1;
    *json_len = r->len - (size_t)(sp + 1 - r->str);
    return true;
}

/* Takes rd out of service and returns whether its caller still wants the
 * answer; frees it when canceled. */
static bool write_live(struct rread *rd)
{
    if (!rd->canceled)
        return true;
    upstream_redis_read_free(rd);
    return false;
}

/* ==== get ==== */

static void get_cb(struct redis_client *c, const struct redis_client_reply *r,
                   void *arg)
{
    struct rread *rd = arg;
    upstream_get_cb cb = rd->get_cb;
    void *cb_arg = rd->arg;
    struct upstream_kv kv = {0};
    bool present = false;
    int64_t rev = -1;

    (void)c;
    if (!write_live(rd))
        return;
    if (r->type == REDIS_CLIENT_ARRAY && r->n == 2 &&
        (rev = upstream_redis_entry_reply_int(&r->elem[1])) >= 0 &&
        r->elem[0].type != REDIS_CLIENT_NIL) {
        present = write_parse_field(&r->elem[0], &kv.mod_rev,
                                    (const char **)&kv.value, &kv.value_len);
        if (!present)
            rev = -1;
    }
    kv.key = rd->state;
    kv.key_len = rd->state ? strlen(rd->state) : 0;
    if (rev < 0)
        cb(RW_EPROTO, "malformed answer to the get", 0, NULL, cb_arg);
    else
        cb(RW_OK, "", rev, present ? &kv : NULL, cb_arg);
    upstream_redis_read_free(rd);
}

static struct upstream_read *reader_get(void *ctx, const char *key,
                                        size_t key_len, upstream_get_cb cb,
                                        void *arg)
{
    struct rres *res = ctx;
    struct upstream_redis *u = res->u;
    struct rread *rd;
    char *k;

    if (!upstream_redis_usable(u))
        return NULL;
    k = xstrndup(key, key_len);
    if (!write_send(res, 1, (const char *[]){"MULTI"}, NULL, NULL) ||
        !write_send(res, 3, (const char *[]){"HGET", res->k_objects, k}, NULL,
                    NULL) ||
        !write_send(res, 2, (const char *[]){"GET", u->rev_keys[res->tag]},
                    NULL, NULL)) {
        free(k);
        return NULL;
    }
    rd = upstream_redis_read_new(res, arg);
    rd->get_cb = cb;
    rd->state = k;
    LIST_INSERT_HEAD(&u->reads, rd, link);
    if (!write_send(res, 1, (const char *[]){"EXEC"}, get_cb, rd)) {
        upstream_redis_read_free(rd);
        return NULL;
    }
    return (struct upstream_read *)rd;
}

/* ==== writes ==== */

static bool write_step(struct rread *rd);

/* Reports err to the caller and frees rd. */
static void write_done(struct rread *rd, int err, const char *why,
                       const struct upstream_write_result *res)
{
    upstream_write_cb cb = rd->write_cb;
    void *cb_arg = rd->arg;

    cb(err, why, res, cb_arg);
    upstream_redis_read_free(rd);
}

/* The library's error reply: its first word and number. */
static int write_error(const struct redis_client_reply *r, int64_t *n,
                       char *why, size_t why_len)
{
    const char *s = r->str;
    size_t len = r->len;

    snprintf(why, why_len, "%.*s", (int)len, s);
    *n = 0;
    if (len > 9 && memcmp(s, "CONFLICT ", 9) == 0) {
        *n = strtoll(s + 9, NULL, 10);
        return RW_ECONFLICT;
    }
    if (len > 7 && memcmp(s, "EXISTS ", 7) == 0) {
        *n = strtoll(s + 7, NULL, 10);
        return RW_EEXIST;
    }
    if (len >= 8 && memcmp(s, "NOTFOUND", 8) == 0)
        return RW_ENOTFOUND;
    if (len > 8 && memcmp(s, "INVALID ", 8) == 0)
        return RW_EINVAL;
    return RW_EPROTO;
}

/* The function call's answer: the new revision, or an error. */
static void fcall_cb(struct redis_client *c, const struct redis_client_reply *r,
                     void *arg)
{
    struct rread *rd = arg;
    struct rwrite *w = rd->state;
    struct upstream_write_result res = {0};
    char why[256];
    int err;

    (void)c;
    if (!write_live(rd))
        return;
    if (r->type == REDIS_CLIENT_INTEGER && r->integer > 0) {
        res.rev = r->integer;
        res.value = w->cur;
        res.value_len = w->cur_len;
        write_done(rd, RW_OK, "", &res);
        return;
    }
    if (r->type != REDIS_CLIENT_ERROR) {
        write_done(rd, RW_EPROTO, "malformed answer to FCALL", NULL);
        return;
    }
    err = write_error(r, &res.mod_rev, why, sizeof(why));
    /* A write between the read and the call, and the caller named no
     * revision: read again. */
    if (err == RW_ECONFLICT && w->w.expected == 0 && w->w.op != UPSTREAM_CREATE &&
        ++w->tries < WRITE_TRIES && write_step(rd))
        return;
    write_done(rd, err, why, err == RW_EPROTO || err == RW_EINVAL ? NULL : &res);
}

/* FCALL rw_put or rw_delete expecting expected ("0": absent, "": any). */
static bool write_fcall(struct rread *rd, const char *expected)
{
    struct rres *res = rd->res;
    struct rwrite *w = rd->state;
    char history[24];
    const char *argv[10] = {
        "FCALL", w->w.op == UPSTREAM_DELETE ? "rw_delete" : "rw_put", "4",
        res->u->rev_keys[res->tag], res->k_objects, res->k_log,
        res->k_compacted, w->key};
    int argc = 8;

    snprintf(history, sizeof(history), "%" PRId64, res->u->history);
    if (w->w.op != UPSTREAM_DELETE)
        argv[argc++] = w->value;
    argv[argc++] = expected;
    argv[argc++] = history;
    return write_send(res, argc, argv, fcall_cb, rd);
}

/* The key's current value (read-then-write): absent is RW_ENOTFOUND;
 * then the conditional call on what was read. */
static void read_cb(struct redis_client *c, const struct redis_client_reply *r,
                    void *arg)
{
    struct rread *rd = arg;
    struct rwrite *w = rd->state;
    struct upstream_write_result res = {0};
    const char *json;
    size_t json_len;
    char expected[24];

    (void)c;
    if (!write_live(rd))
        return;
    if (r->type == REDIS_CLIENT_NIL) {
        write_done(rd, RW_ENOTFOUND, "the key is absent", &res);
        return;
    }
    if (!write_parse_field(r, &w->cur_rev, &json, &json_len)) {
        write_done(rd, RW_EPROTO, "malformed object in the hash", NULL);
        return;
    }
    free(w->cur);
    w->cur = xstrndup(json, json_len);
    w->cur_len = json_len;
    if (w->w.expected > 0 && w->w.expected != w->cur_rev) {
        res = (struct upstream_write_result){
            .value = w->cur, .value_len = w->cur_len, .mod_rev = w->cur_rev};
        write_done(rd, RW_ECONFLICT, "the key's mod revision is not the one "
                                     "expected",
                   &res);
        return;
    }
    if (w->w.op != UPSTREAM_DELETE) {
        free(w->cur); /* only a delete answers the old value */
        w->cur = NULL;
        w->cur_len = 0;
    }
    snprintf(expected, sizeof(expected), "%" PRId64, w->cur_rev);
    if (!write_fcall(rd, expected))
        write_done(rd, RW_EUNAVAIL, "the connection is gone", NULL);
}

/* The next command of rd: a read first unless the write needs none.
 * false when it could not be sent. */
static bool write_step(struct rread *rd)
{
    struct rwrite *w = rd->state;
    char expected[24];

    if (w->w.op == UPSTREAM_CREATE)
        return write_fcall(rd, "0");
    if (w->w.op == UPSTREAM_UPDATE && w->w.expected > 0) {
        snprintf(expected, sizeof(expected), "%" PRId64, w->w.expected);
        return write_fcall(rd, expected);
    }
    return write_send(rd->res, 3,
                      (const char *[]){"HGET", rd->res->k_objects, w->key},
                      read_cb, rd);
}

static struct upstream_read *reader_write(void *ctx,
                                          const struct upstream_write *uw,
                                          upstream_write_cb cb, void *arg)
{
    struct rres *res = ctx;
    struct rread *rd;
    struct rwrite *w;

    if (!upstream_redis_usable(res->u))
        return NULL;
    w = xcalloc(1, sizeof(*w));
    w->w = *uw;
    w->key = xstrndup(uw->key, uw->key_len);
    if (uw->op != UPSTREAM_DELETE)
        w->value = xstrndup(uw->value, uw->value_len);
    rd = upstream_redis_read_new(res, arg);
    rd->write_cb = cb;
    rd->state = w;
    rd->state_free = rwrite_free;
    LIST_INSERT_HEAD(&res->u->reads, rd, link);
    if (!write_step(rd)) {
        upstream_redis_read_free(rd);
        return NULL;
    }
    return (struct upstream_read *)rd;
}

void upstream_redis_write_fail(struct rread *rd, const char *why)
{
    if (rd->canceled) {
        upstream_redis_read_free(rd);
    } else if (rd->get_cb != NULL) {
        upstream_get_cb cb = rd->get_cb;
        void *cb_arg = rd->arg;

        upstream_redis_read_free(rd);
        cb(RW_EUNAVAIL, why, 0, NULL, cb_arg);
    } else {
        write_done(rd, RW_EUNAVAIL, why, NULL);
    }
}

void upstream_redis_write_init(struct rres *res)
{
    res->reader.get = reader_get;
    res->reader.write = reader_write;
}
