/*
 * range.c: paged etcd Range of a prefix at one revision (see range.h).
 *
 * Data structure: one h2c connection, at most one unary Range call in
 * flight, and the key the next page starts at.  `done` is set once the
 * outcome is reported; nothing runs after it.
 */
#include "src/fleet/range.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/grpc.h"
#include "src/fleet/dial.h"
#include "src/grpc_client.h"
#include "src/h2_client.h"

#define RANGE_DEFAULT_PAGE 500
#define RANGE_DEFAULT_TIMEOUT 30.0

struct range {
    struct h2_client *conn;
    struct grpc_call *call;
    char *end;
    size_t end_len;
    char *next;
    size_t next_len;
    int64_t revision;
    size_t page;
    double timeout;
    range_kv_cb on_kv;
    range_done_cb on_done;
    void *arg;
    bool done;
};

static void range_page(struct range *r);

static void range_finish(struct range *r, int err, const char *why)
{
    if (r->done)
        return;
    r->done = true;
    r->on_done(err, why, r->revision, r->arg);
}

/* Returns 0 when the page was handled (next one started or finished). */
static int range_handle(struct range *r, const uint8_t *msg, size_t len)
{
    struct etcd_range_response resp;
    const struct etcd_kv *last;

    if (etcd_range_response_decode(&resp, msg, len) != 0)
        return RW_EPROTO;
    if (r->revision == 0)
        r->revision = resp.header.revision;
    if (r->revision <= 0 || (resp.more && resp.n_kvs == 0)) {
        etcd_range_response_fini(&resp);
        return RW_EPROTO;
    }
    for (size_t i = 0; i < resp.n_kvs; i++)
        r->on_kv(&resp.kvs[i], r->arg);
    if (!resp.more) {
        etcd_range_response_fini(&resp);
        range_finish(r, 0, NULL);
        return 0;
    }
    last = &resp.kvs[resp.n_kvs - 1];
    free(r->next);
    r->next = etcd_key_next(last->key, last->key_len, &r->next_len);
    etcd_range_response_fini(&resp);
    range_page(r);
    return 0;
}

static void range_cb(int status, const char *message, const uint8_t *resp,
                     size_t resp_len, void *arg)
{
    struct range *r = arg;
    char why[256];

    r->call = NULL;
    if (status == GRPC_STATUS_OK) {
        if (range_handle(r, resp, resp_len) != 0)
            range_finish(r, RW_EPROTO, "malformed RangeResponse");
        return;
    }
    snprintf(why, sizeof(why), "Range: %s: %s", grpc_status_name(status),
             message);
    range_finish(r,
                 status == GRPC_STATUS_OUT_OF_RANGE  ? RW_EEXPIRED
                 : status == GRPC_STATUS_UNAVAILABLE ? RW_EIO
                                                     : RW_EPROTO,
                 why);
}

static void range_page(struct range *r)
{
    struct etcd_range_request req = {
        .key = r->next,
        .key_len = r->next_len,
        .range_end = r->end,
        .range_end_len = r->end_len,
        .limit = (int64_t)r->page,
        .revision = r->revision,
    };
    struct rbuf *b = etcd_range_request_encode(&req);

    r->call = grpc_client_unary(r->conn, ETCD_PATH_RANGE, b->data, b->len,
                                r->timeout, range_cb, r);
    rbuf_unref(b);
    if (r->call == NULL)
        range_finish(r, RW_EIO, "etcd connection refuses new streams");
}

static void range_conn_close_cb(struct h2_client *c, int err, void *arg)
{
    struct range *r = arg;
    char why[256];

    snprintf(why, sizeof(why), "etcd %s: %s", h2_client_authority(c),
             h2_client_last_error(c)[0] ? h2_client_last_error(c)
                                        : rw_strerror(err));
    range_finish(r, RW_EIO, why);
}

struct range *range_new(struct event_base *base, const struct fleet_dial *d,
                        const char *prefix, int64_t revision, size_t page,
                        double timeout, range_kv_cb on_kv,
                        range_done_cb on_done, void *arg)
{
    static const struct h2_client_callbacks cbs = {.on_close =
                                                       range_conn_close_cb};
    struct range *r = xcalloc(1, sizeof(*r));
    struct h2_client_config hc = {0};
    size_t len = strlen(prefix);

    r->revision = revision;
    r->page = page ? page : RANGE_DEFAULT_PAGE;
    r->timeout = timeout > 0 ? timeout : RANGE_DEFAULT_TIMEOUT;
    r->on_kv = on_kv;
    r->on_done = on_done;
    r->arg = arg;
    r->end = etcd_prefix_end(prefix, len, &r->end_len);
    r->next = xmemdup(prefix, len + 1);
    r->next_len = len;
    fleet_dial_h2(d, &hc);
    r->conn = h2_client_new(base, d->host, d->port, &hc, &cbs, r);
    range_page(r);
    return r;
}

void range_free(struct range *r)
{
    if (r == NULL)
        return;
    r->done = true;
    grpc_client_call_cancel(r->call);
    h2_client_free(r->conn);
    free(r->end);
    free(r->next);
    free(r);
}
