/*
 * upstream_etcd_write.c: the etcd adapter's conditional writes and its
 * get of one key (see upstream_etcd_write.h).  Each call's state (its
 * callback, its op) lives in the read that carries it
 * (upstream_etcd_read_call) and is freed with it; a canceled call never
 * reports.
 */
#include "src/upstream_etcd_write.h"

#include <stdlib.h>

#include "cache/rw.h"
#include "proto/etcd.h"
#include "src/log.h"
#include "src/upstream.h"
#include "src/upstream_etcd_read.h"

/* One call's state. */
struct etcd_write_call {
    enum upstream_write_op op;
    upstream_write_cb write_cb;
    upstream_get_cb get_cb;
    void *arg;
};

static struct upstream_kv write_kv(const struct etcd_kv *kv)
{
    return (struct upstream_kv){kv->key, kv->key_len, kv->value, kv->value_len,
                                kv->mod_revision};
}

/* ==== get ==== */

static void write_get_reply(struct upstream_read *rd, int err, const char *why,
                            const uint8_t *resp, size_t resp_len, void *state)
{
    struct etcd_write_call *c = state;
    struct etcd_range_response r;
    struct upstream_kv kv;

    if (err != RW_OK) {
        c->get_cb(err, why, 0, NULL, c->arg);
        return;
    }
    if (etcd_range_response_decode(&r, resp, resp_len) != 0) {
        c->get_cb(RW_EPROTO, "malformed Range response", 0, NULL, c->arg);
        return;
    }
    upstream_etcd_read_observe(rd, &r.header, "Range");
    if (r.n_kvs > 0)
        kv = write_kv(&r.kvs[0]);
    c->get_cb(RW_OK, "", r.header.revision, r.n_kvs > 0 ? &kv : NULL, c->arg);
    etcd_range_response_fini(&r);
}

static struct upstream_read *write_get(void *ctx, const char *key,
                                       size_t key_len, upstream_get_cb cb,
                                       void *arg)
{
    struct etcd_range_request req = {.key = key, .key_len = key_len};
    struct etcd_write_call *c = xcalloc(1, sizeof(*c));

    c->get_cb = cb;
    c->arg = arg;
    return upstream_etcd_read_call(ctx, ETCD_PATH_RANGE,
                                   etcd_range_request_encode(&req),
                                   write_get_reply, c);
}

/* ==== conditional writes ==== */

/* The outcome of a Txn whose compare failed: its one Range of the key. */
static int write_failed(const struct etcd_write_call *c,
                        const struct etcd_txn_response *r,
                        struct upstream_write_result *res, const char **why)
{
    const struct etcd_response_op *op = &r->responses[0];

    if (op->n_kvs == 0) {
        *why = "the key is absent";
        return c->op == UPSTREAM_CREATE ? RW_EPROTO : RW_ENOTFOUND;
    }
    res->value = op->kvs[0].value;
    res->value_len = op->kvs[0].value_len;
    res->mod_rev = op->kvs[0].mod_revision;
    if (c->op == UPSTREAM_CREATE) {
        *why = "the key exists";
        return RW_EEXIST;
    }
    *why = "the key's mod revision is not the one expected";
    return RW_ECONFLICT;
}

static void write_reply(struct upstream_read *rd, int err, const char *why,
                        const uint8_t *resp, size_t resp_len, void *state)
{
    struct etcd_write_call *c = state;
    struct upstream_write_result res = {0};
    struct etcd_txn_response r;

    if (err != RW_OK) {
        c->write_cb(err, why, NULL, c->arg);
        return;
    }
    if (etcd_txn_response_decode(&r, resp, resp_len) != 0) {
        c->write_cb(RW_EPROTO, "malformed Txn response", NULL, c->arg);
        return;
    }
    upstream_etcd_read_observe(rd, &r.header, "Txn");
    why = "";
    if (r.n_responses != 1) {
        err = RW_EPROTO;
        why = "unexpected Txn response shape";
    } else if (!r.succeeded) {
        res.rev = r.header.revision;
        err = write_failed(c, &r, &res, &why);
    } else {
        res.rev = r.header.revision;
        if (c->op == UPSTREAM_DELETE && r.responses[0].n_kvs > 0) {
            res.value = r.responses[0].kvs[0].value;
            res.value_len = r.responses[0].kvs[0].value_len;
        }
    }
    c->write_cb(err, why, err == RW_OK || err == RW_ECONFLICT ||
                                  err == RW_EEXIST || err == RW_ENOTFOUND
                              ? &res
                              : NULL,
                c->arg);
    etcd_txn_response_fini(&r);
}

static struct upstream_read *write_write(void *ctx,
                                         const struct upstream_write *w,
                                         upstream_write_cb cb, void *arg)
{
    struct etcd_write_call *c = xcalloc(1, sizeof(*c));
    struct etcd_compare cmp = {.key = w->key, .key_len = w->key_len};
    struct etcd_request_op success = {0}, failure = {
        .type = ETCD_OP_RANGE,
        .range = {.key = w->key, .key_len = w->key_len},
    };
    struct etcd_txn_request txn = {&cmp, 1, &success, 1, &failure, 1};

    if (w->op == UPSTREAM_CREATE) {
        cmp.result = ETCD_COMPARE_EQUAL; /* etcd3 store's notFound(key) */
        cmp.target = ETCD_TARGET_CREATE;
    } else if (w->expected > 0) {
        cmp.result = ETCD_COMPARE_EQUAL;
        cmp.target = ETCD_TARGET_MOD;
        cmp.number = w->expected;
    } else {
        cmp.result = ETCD_COMPARE_GREATER; /* the key exists */
        cmp.target = ETCD_TARGET_CREATE;
    }
    if (w->op == UPSTREAM_DELETE) {
        success.type = ETCD_OP_DELETE_RANGE;
        success.delete_range = (struct etcd_delete_range_request){
            .key = w->key, .key_len = w->key_len, .prev_kv = true};
    } else {
        success.type = ETCD_OP_PUT;
        success.put = (struct etcd_put_request){.key = w->key,
                                                .key_len = w->key_len,
                                                .value = w->value,
                                                .value_len = w->value_len};
    }
    c->op = w->op;
    c->write_cb = cb;
    c->arg = arg;
    return upstream_etcd_read_call(ctx, ETCD_PATH_TXN,
                                   etcd_txn_request_encode(&txn), write_reply,
                                   c);
}

void upstream_etcd_write_install(struct upstream_etcd_read *rd)
{
    upstream_etcd_read_set_writes(rd, write_get, write_write);
}
