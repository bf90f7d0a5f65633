/*
 * upstream_etcd_read.c: the etcd adapter's direct reads (see
 * upstream_etcd_read.h and src/upstream.h).
 *
 * Data structure: the reads in flight, in a list (freed or canceled with
 * the adapter).  Each is one unary call; its callback reports once and
 * frees it.  The page cursor is an etcd key: where the next Range starts
 * (the last key returned + "\0", etcd_key_next); the first page starts at
 * the scope itself.  The scope's end is etcd_prefix_end(scope).  Each new
 * connection also gets one Maintenance/Status call, for etcd's version
 * (logged, and shown by the adapter's status).
 */
#include "src/upstream_etcd_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "cache/rw.h"
#include "proto/etcd.h"
#include "src/grpc_client.h"
#include "src/h2_client.h"
#include "src/log.h"
#include "src/upstream.h"
#include "src/upstream_history.h"

/* One read in flight: one unary call. */
struct upstream_read {
    TAILQ_ENTRY(upstream_read) link;
    struct upstream_etcd_read *owner;
    struct grpc_call *call;
    int64_t rev; /* page: the revision read */
    struct upstream_mark mark;
    upstream_probe_cb probe_cb;
    upstream_page_cb page_cb;
    size_t count; /* probe: the caller's count */
    void *arg;
    /* a call of another module (upstream_etcd_read_call): its reply
     * function and state (freed with the read) */
    upstream_etcd_reply_fn reply;
    void *state;
};

/* Seconds for Maintenance/Status. */
#define READ_STATUS_TIMEOUT 5.0

struct upstream_etcd_read {
    char *name; /* for logs: "etcd URL" */
    struct upstream_reader reader;
    TAILQ_HEAD(, upstream_read) reads;
    struct h2_client *conn; /* NULL: none */
    struct upstream_history *history;
    double request_timeout;
    void (*on_reset)(void *arg);
    void *arg;
    struct grpc_call *status_call; /* Maintenance/Status in flight */
    struct upstream_mark status_mark;
    char version[64]; /* from the last Status answered; "" unknown */
};

static bool read_usable(const struct upstream_etcd_read *o)
{
    return o->conn != NULL && h2_client_is_open(o->conn);
}

static struct upstream_read *read_new(struct upstream_etcd_read *o, void *arg)
{
    struct upstream_read *rd = xcalloc(1, sizeof(*rd));

    rd->owner = o;
    rd->arg = arg;
    rd->mark = upstream_history_mark(o->history);
    TAILQ_INSERT_HEAD(&o->reads, rd, link);
    return rd;
}

static void read_free(struct upstream_read *rd)
{
    TAILQ_REMOVE(&rd->owner->reads, rd, link);
    free(rd->state);
    free(rd);
}

/* Sends the request b (taken) to path; returns rd, or NULL (rd freed)
 * when the connection cannot start a call. */
static struct upstream_read *read_send(struct upstream_read *rd,
                                       const char *path, struct rbuf *b,
                                       grpc_unary_cb cb)
{
    struct upstream_etcd_read *o = rd->owner;

    rd->call = grpc_client_unary(o->conn, path, b->data, b->len,
                                 o->request_timeout, cb, rd);
    rbuf_unref(b);
    if (rd->call == NULL) {
        read_free(rd);
        return NULL;
    }
    return rd;
}

/* A reply's header to the history.  On a reset the read still answers:
 * its reader sees the resource's epoch moved on and serves nothing. */
static void read_observe(struct upstream_read *rd,
                         const struct etcd_header *hdr, const char *what)
{
    struct upstream_etcd_read *o = rd->owner;

    if (upstream_history_observe(o->history, &rd->mark, hdr->cluster_id,
                                 hdr->member_id, hdr->revision, true, what))
        o->on_reset(o->arg);
}

/* A failed call as an rw_err, as upstream.h promises. */
static int read_error(int status, const char *message)
{
    switch (status) {
    case GRPC_STATUS_OUT_OF_RANGE:
        /* etcd: "required revision has been compacted" or "... is a
         * future revision" (mvcc ErrCompacted, ErrFutureRev). */
        return strstr(message, "future") ? RW_EFUTURE : RW_EEXPIRED;
    case GRPC_STATUS_DEADLINE_EXCEEDED:
        return RW_ETIMEDOUT;
    default:
        return RW_EUNAVAIL;
    }
}

/* ==== the probe ==== */

static void read_probe_cb(int status, const char *message, const uint8_t *resp,
                          size_t resp_len, void *arg)
{
    struct upstream_read *rd = arg;
    struct upstream_probe p = {0};
    struct etcd_txn_response r;
    int err = RW_OK;

    rd->call = NULL;
    if (status != GRPC_STATUS_OK) {
        err = read_error(status, message);
    } else if (etcd_txn_response_decode(&r, resp, resp_len) != 0) {
        err = RW_EPROTO;
        message = "malformed Txn response";
    } else {
        read_observe(rd, &r.header, "Txn");
        if (r.n_responses != 1 || r.responses[0].type != ETCD_OP_RANGE ||
            r.header.revision <= 0) {
            err = RW_EPROTO;
            message = "unexpected Txn response shape";
        } else {
            /* Unchanged: no ModRevision above since (the compare held)
             * and as many keys: a delete shows in the count only. */
            p.rev = r.header.revision;
            p.unchanged =
                r.succeeded && r.responses[0].count == (int64_t)rd->count;
        }
        etcd_txn_response_fini(&r);
    }
    rd->probe_cb(err, message, err == RW_OK ? &p : NULL, rd->arg);
    read_free(rd);
}

static struct upstream_read *read_probe(void *ctx, const char *scope,
                                        size_t scope_len, int64_t since,
                                        size_t count, upstream_probe_cb cb,
                                        void *arg)
{
    struct upstream_etcd_read *o = ctx;
    size_t end_len;
    char *end;
    struct upstream_read *rd;
    struct rbuf *b;

    if (!read_usable(o))
        return NULL;
    end = etcd_prefix_end(scope, scope_len, &end_len);
    /* count_only: etcd counts from its in-memory index.  (A
     * min_mod_revision Range would not do: etcd 3.4 filters the keys it
     * returns after counting, so count ignores the filter.) */
    struct etcd_request_op count_op = {
        .type = ETCD_OP_RANGE,
        .range = {.key = scope,
                  .key_len = scope_len,
                  .range_end = end,
                  .range_end_len = end_len,
                  .count_only = true},
    };
    struct etcd_compare unchanged = {
        .result = ETCD_COMPARE_LESS,
        .target = ETCD_TARGET_MOD,
        .key = scope,
        .key_len = scope_len,
        .number = since + 1,
        .range_end = end,
        .range_end_len = end_len,
    };
    struct etcd_txn_request txn = {
        .compare = &unchanged,
        .n_compare = 1,
        .success = &count_op,
        .n_success = 1,
        .failure = &count_op,
        .n_failure = 1,
    };

    b = etcd_txn_request_encode(&txn);
    free(end);
    rd = read_new(o, arg);
    rd->probe_cb = cb;
    rd->count = count;
    return read_send(rd, ETCD_PATH_TXN, b, read_probe_cb);
}

/* ==== calls of the adapter's other modules ==== */

static void read_reply_cb(int status, const char *message, const uint8_t *resp,
                          size_t resp_len, void *arg)
{
    struct upstream_read *rd = arg;

    rd->call = NULL;
    rd->reply(rd, status == GRPC_STATUS_OK ? RW_OK : read_error(status, message),
              message, resp, resp_len, rd->state);
    read_free(rd);
}

struct upstream_read *upstream_etcd_read_call(struct upstream_etcd_read *o,
                                              const char *path, struct rbuf *b,
                                              upstream_etcd_reply_fn reply,
                                              void *state)
{
    struct upstream_read *rd;

    if (!read_usable(o)) {
        rbuf_unref(b);
        free(state);
        return NULL;
    }
    rd = read_new(o, NULL);
    rd->reply = reply;
    rd->state = state;
    return read_send(rd, path, b, read_reply_cb);
}

void upstream_etcd_read_observe(struct upstream_read *rd,
                                const struct etcd_header *hdr,
                                const char *what)
{
    read_observe(rd, hdr, what);
}

void upstream_etcd_read_set_writes(
    struct upstream_etcd_read *o,
    struct upstream_read *(*get)(void *, const char *, size_t,
                                 upstream_get_cb, void *),
    struct upstream_read *(*write)(void *, const struct upstream_write *,
                                   upstream_write_cb, void *))
{
    o->reader.get = get;
    o->reader.write = write;
}

/* ==== pages ==== */

static void read_page_cb(int status, const char *message, const uint8_t *resp,
                         size_t resp_len, void *arg)
{
    struct upstream_read *rd = arg;
    struct upstream_kv *kvs;
    struct etcd_range_response r;
    char *next = NULL;
    size_t next_len = 0;

    rd->call = NULL;
    if (status != GRPC_STATUS_OK) {
        rd->page_cb(read_error(status, message), message, rd->rev, NULL, 0,
                    NULL, 0, rd->arg);
    } else if (etcd_range_response_decode(&r, resp, resp_len) != 0) {
        rd->page_cb(RW_EPROTO, "malformed Range response", rd->rev, NULL, 0,
                    NULL, 0, rd->arg);
    } else {
        read_observe(rd, &r.header, "Range");
        kvs = xcalloc(r.n_kvs ? r.n_kvs : 1, sizeof(*kvs));
        for (size_t i = 0; i < r.n_kvs; i++)
            kvs[i] = (struct upstream_kv){r.kvs[i].key, r.kvs[i].key_len,
                                          r.kvs[i].value, r.kvs[i].value_len,
                                          r.kvs[i].mod_revision};
        if (r.more && r.n_kvs > 0)
            next = etcd_key_next(r.kvs[r.n_kvs - 1].key,
                                 r.kvs[r.n_kvs - 1].key_len, &next_len);
        rd->page_cb(RW_OK, "", rd->rev, kvs, r.n_kvs, next, next_len, rd->arg);
        free(next);
        free(kvs);
        etcd_range_response_fini(&r);
    }
    read_free(rd);
}

static struct upstream_read *read_page(void *ctx, const char *scope,
                                       size_t scope_len, const char *cursor,
                                       size_t cursor_len, int64_t rev,
                                       size_t limit, upstream_page_cb cb,
                                       void *arg)
{
    struct upstream_etcd_read *o = ctx;
    struct etcd_range_request req = {
        .key = cursor != NULL ? cursor : scope,
        .key_len = cursor != NULL ? cursor_len : scope_len,
        .limit = (int64_t)limit,
        .revision = rev,
    };
    struct upstream_read *rd;
    struct rbuf *b;
    char *end;

    if (!read_usable(o))
        return NULL;
    end = etcd_prefix_end(scope, scope_len, &req.range_end_len);
    req.range_end = end;
    b = etcd_range_request_encode(&req);
    free(end);
    rd = read_new(o, arg);
    rd->page_cb = cb;
    rd->rev = rev;
    return read_send(rd, ETCD_PATH_RANGE, b, read_page_cb);
}

static void read_cancel(void *ctx, struct upstream_read *rd)
{
    if (rd == NULL)
        return;
    grpc_client_call_cancel(rd->call);
    read_free(rd);
}

/* ==== etcd's version ==== */

static void read_status_cb(int status, const char *message, const uint8_t *resp,
                           size_t resp_len, void *arg)
{
    struct upstream_etcd_read *o = arg;
    struct etcd_status_response st;
    bool safe;

    o->status_call = NULL;
    if (status != GRPC_STATUS_OK ||
        etcd_status_response_decode(&st, resp, resp_len) != 0) {
        if (read_usable(o))
            log_warnx("%s: Maintenance/Status failed: %s: %s", o->name,
                      grpc_status_name(status), message);
        return;
    }
    if (upstream_history_observe(o->history, &o->status_mark,
                                 st.header.cluster_id, st.header.member_id,
                                 st.header.revision, false,
                                 "Maintenance/Status")) {
        etcd_status_response_fini(&st);
        o->on_reset(o->arg);
        return;
    }
    snprintf(o->version, sizeof(o->version), "%s", st.version);
    /* Informational: WatchProgressRequest is never sent. */
    safe = etcd_version_at_least(st.version, 3, 4, 25);
    log_info("%s: version %s, member %llx, revision %lld%s", o->name,
             o->version, (unsigned long long)st.header.member_id,
             (long long)st.header.revision,
             safe ? "" : " (WatchProgressRequest unsafe: etcd issue 15220)");
    etcd_status_response_fini(&st);
}

static void read_status_send(struct upstream_etcd_read *o)
{
    struct rbuf *b = etcd_status_request_encode();

    o->status_mark = upstream_history_mark(o->history);
    o->status_call =
        grpc_client_unary(o->conn, ETCD_PATH_STATUS, b->data, b->len,
                          READ_STATUS_TIMEOUT, read_status_cb, o);
    rbuf_unref(b);
}

const char *upstream_etcd_read_version(const struct upstream_etcd_read *o)
{
    return o->version;
}

/* ==== the module ==== */

struct upstream_etcd_read *
upstream_etcd_read_new(const char *name, struct upstream_history *history,
                       double request_timeout, void (*on_reset)(void *arg),
                       void *arg)
{
    struct upstream_etcd_read *o = xcalloc(1, sizeof(*o));

    o->name = xstrdup(name);
    o->reader = (struct upstream_reader){
        .ctx = o, .probe = read_probe, .page = read_page, .cancel = read_cancel};
    TAILQ_INIT(&o->reads);
    o->history = history;
    o->request_timeout = request_timeout;
    o->on_reset = on_reset;
    o->arg = arg;
    return o;
}

void upstream_etcd_read_free(struct upstream_etcd_read *o)
{
    if (o == NULL)
        return;
    /* None remain once the listener (their streams) is gone: main.c
     * frees it first.  Cancel any stragglers all the same. */
    while (!TAILQ_EMPTY(&o->reads))
        read_cancel(o, TAILQ_FIRST(&o->reads));
    grpc_client_call_cancel(o->status_call);
    free(o->name);
    free(o);
}

void upstream_etcd_read_set_conn(struct upstream_etcd_read *o,
                                 struct h2_client *conn)
{
    if (o->status_call != NULL) {
        grpc_client_call_cancel(o->status_call);
        o->status_call = NULL;
    }
    o->conn = conn;
    if (conn != NULL)
        read_status_send(o);
}

const struct upstream_reader *
upstream_etcd_read_reader(const struct upstream_etcd_read *o)
{
    return &o->reader;
}
