/*
 * etcd.c: the etcd v3 codec (see etcd.h), over protobuf-c's generated
 * code for proto/kv.proto and proto/rpc.proto.  This is the only file that
 * includes the generated headers.
 *
 * Decoding: protobuf-c allocates every submessage, repeated array and byte
 * field it unpacks.  All of that goes to one arena per decoded response (a
 * list of chunks, bump allocation, nothing freed until the end), together
 * with the view arrays built here; *_fini frees the chunks.  So decoding a
 * WatchResponse of 1000 events costs a handful of mallocs, not ~7000, and
 * the views (struct etcd_kv, struct etcd_event) need no copies of their
 * own.  The arena's own header lives in its first chunk.
 *
 * Encoding: request structs are translated to the generated structs on the
 * stack (or in a short-lived array for Txn ops) and packed into an rbuf.
 */
#include "proto/etcd.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/kv.pb-c.h"
#include "proto/rpc.pb-c.h"

/* ==== arena ==== */

struct arena_chunk {
    struct arena_chunk *next;
    size_t cap;  /* bytes at data */
    size_t used; /* bytes handed out */
    max_align_t data[];
};

struct etcd_arena {
    struct arena_chunk *chunks; /* newest first; the oldest holds *this */
    size_t next_cap;            /* size of the next chunk, bytes */
};

#define ARENA_ALIGN (alignof(max_align_t))
#define ARENA_ROUND(n) (((n) + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1))

static struct arena_chunk *arena_chunk_new(size_t cap)
{
    struct arena_chunk *c = xmalloc(sizeof(*c) + cap);

    c->next = NULL;
    c->cap = cap;
    c->used = 0;
    return c;
}

static void *arena_chunk_take(struct arena_chunk *c, size_t size)
{
    void *p = (unsigned char *)c->data + c->used;

    c->used += size;
    return p;
}

/* A new arena whose first chunk has room for about first_cap bytes. */
static struct etcd_arena *arena_new(size_t first_cap)
{
    size_t head = ARENA_ROUND(sizeof(struct etcd_arena));
    struct arena_chunk *c = arena_chunk_new(head + ARENA_ROUND(first_cap));
    struct etcd_arena *a = arena_chunk_take(c, head);

    a->chunks = c;
    a->next_cap = RW_MAX(first_cap, 4096) * 2;
    return a;
}

static void *arena_alloc(struct etcd_arena *a, size_t size)
{
    struct arena_chunk *c = a->chunks;

    size = ARENA_ROUND(size ? size : 1);
    if (c->cap - c->used < size) {
        c = arena_chunk_new(RW_MAX(size, a->next_cap));
        c->next = a->chunks;
        a->chunks = c;
        a->next_cap *= 2;
    }
    return arena_chunk_take(c, size);
}

static void arena_free(struct etcd_arena *a)
{
    struct arena_chunk *c, *next;

    if (a == NULL)
        return;
    for (c = a->chunks; c != NULL; c = next) {
        next = c->next; /* a itself lives in the last chunk */
        free(c);
    }
}

static void *arena_pb_alloc(void *data, size_t size)
{
    return arena_alloc(data, size);
}

static void arena_pb_free(void *data, void *ptr)
{
    (void)data;
    (void)ptr; /* released with the arena */
}

/* ==== encoding ==== */

static ProtobufCBinaryData bin(const char *p, size_t len)
{
    ProtobufCBinaryData b = {len, (uint8_t *)(uintptr_t)p};

    return b;
}

static struct rbuf *pack(const ProtobufCMessage *m)
{
    size_t len = protobuf_c_message_get_packed_size(m);
    struct rbuf *b = rbuf_new(len);
    size_t n = protobuf_c_message_pack(m, (uint8_t *)b->data);

    rw_assert(n == len);
    return b;
}

static void range_request_fill(Etcdserverpb__RangeRequest *m,
                               const struct etcd_range_request *req)
{
    etcdserverpb__range_request__init(m);
    m->key = bin(req->key, req->key_len);
    m->range_end = bin(req->range_end, req->range_end_len);
    m->limit = req->limit;
    m->revision = req->revision;
    m->serializable = req->serializable;
    m->keys_only = req->keys_only;
    m->count_only = req->count_only;
    m->min_mod_revision = req->min_mod_revision;
}

static void put_request_fill(Etcdserverpb__PutRequest *m,
                             const struct etcd_put_request *req)
{
    etcdserverpb__put_request__init(m);
    m->key = bin(req->key, req->key_len);
    m->value = bin(req->value, req->value_len);
    m->lease = req->lease;
    m->prev_kv = req->prev_kv;
}

static void
delete_range_request_fill(Etcdserverpb__DeleteRangeRequest *m,
                          const struct etcd_delete_range_request *req)
{
    etcdserverpb__delete_range_request__init(m);
    m->key = bin(req->key, req->key_len);
    m->range_end = bin(req->range_end, req->range_end_len);
    m->prev_kv = req->prev_kv;
}

struct rbuf *etcd_range_request_encode(const struct etcd_range_request *req)
{
    Etcdserverpb__RangeRequest m;

    range_request_fill(&m, req);
    return pack(&m.base);
}

struct rbuf *etcd_put_request_encode(const struct etcd_put_request *req)
{
    Etcdserverpb__PutRequest m;

    put_request_fill(&m, req);
    return pack(&m.base);
}

struct rbuf *
etcd_delete_range_request_encode(const struct etcd_delete_range_request *req)
{
    Etcdserverpb__DeleteRangeRequest m;

    delete_range_request_fill(&m, req);
    return pack(&m.base);
}

/* The generated structs one RequestOp needs, kept together. */
struct op_storage {
    Etcdserverpb__RequestOp op;
    union {
        Etcdserverpb__RangeRequest range;
        Etcdserverpb__PutRequest put;
        Etcdserverpb__DeleteRangeRequest delete_range;
    };
};

static void request_op_fill(struct op_storage *s,
                            const struct etcd_request_op *op)
{
    etcdserverpb__request_op__init(&s->op);
    switch (op->type) {
    case ETCD_OP_RANGE:
        range_request_fill(&s->range, &op->range);
        s->op.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_RANGE;
        s->op.request_range = &s->range;
        break;
    case ETCD_OP_PUT:
        put_request_fill(&s->put, &op->put);
        s->op.request_case = ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_PUT;
        s->op.request_put = &s->put;
        break;
    case ETCD_OP_DELETE_RANGE:
        delete_range_request_fill(&s->delete_range, &op->delete_range);
        s->op.request_case =
            ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_DELETE_RANGE;
        s->op.request_delete_range = &s->delete_range;
        break;
    default:
        rw_assert(!"unsupported etcd request op");
    }
}

static void compare_fill(Etcdserverpb__Compare *m, const struct etcd_compare *c)
{
    etcdserverpb__compare__init(m);
    m->result = (Etcdserverpb__Compare__CompareResult)c->result;
    m->target = (Etcdserverpb__Compare__CompareTarget)c->target;
    m->key = bin(c->key, c->key_len);
    m->range_end = bin(c->range_end, c->range_end_len);
    switch (c->target) {
    case ETCD_TARGET_VERSION:
        m->target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_VERSION;
        m->version = c->number;
        break;
    case ETCD_TARGET_CREATE:
        m->target_union_case =
            ETCDSERVERPB__COMPARE__TARGET_UNION_CREATE_REVISION;
        m->create_revision = c->number;
        break;
    case ETCD_TARGET_MOD:
        m->target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_MOD_REVISION;
        m->mod_revision = c->number;
        break;
    case ETCD_TARGET_VALUE:
        m->target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_VALUE;
        m->value = bin(c->value, c->value_len);
        break;
    case ETCD_TARGET_LEASE:
        m->target_union_case = ETCDSERVERPB__COMPARE__TARGET_UNION_LEASE;
        m->lease = c->number;
        break;
    }
}

/* Fills n ops into storage s and the pointer array ptrs. */
static void request_ops_fill(struct op_storage *s,
                             Etcdserverpb__RequestOp **ptrs,
                             const struct etcd_request_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        request_op_fill(&s[i], &ops[i]);
        ptrs[i] = &s[i].op;
    }
}

struct rbuf *etcd_txn_request_encode(const struct etcd_txn_request *req)
{
    size_t nops = req->n_success + req->n_failure;
    Etcdserverpb__Compare *cmp = xcalloc(req->n_compare + 1, sizeof(*cmp));
    Etcdserverpb__Compare **cmp_ptrs =
        xcalloc(req->n_compare + 1, sizeof(*cmp_ptrs));
    struct op_storage *ops = xcalloc(nops + 1, sizeof(*ops));
    Etcdserverpb__RequestOp **op_ptrs = xcalloc(nops + 1, sizeof(*op_ptrs));
    Etcdserverpb__TxnRequest m;
    struct rbuf *b;

    etcdserverpb__txn_request__init(&m);
    for (size_t i = 0; i < req->n_compare; i++) {
        compare_fill(&cmp[i], &req->compare[i]);
        cmp_ptrs[i] = &cmp[i];
    }
    request_ops_fill(ops, op_ptrs, req->success, req->n_success);
    request_ops_fill(ops + req->n_success, op_ptrs + req->n_success,
                     req->failure, req->n_failure);
    m.n_compare = req->n_compare;
    m.compare = cmp_ptrs;
    m.n_success = req->n_success;
    m.success = op_ptrs;
    m.n_failure = req->n_failure;
    m.failure = op_ptrs + req->n_success;
    b = pack(&m.base);
    free(cmp);
    free(cmp_ptrs);
    free(ops);
    free(op_ptrs);
    return b;
}

struct rbuf *etcd_compaction_request_encode(int64_t revision, bool physical)
{
    Etcdserverpb__CompactionRequest m;

    etcdserverpb__compaction_request__init(&m);
    m.revision = revision;
    m.physical = physical;
    return pack(&m.base);
}

struct rbuf *etcd_status_request_encode(void)
{
    Etcdserverpb__StatusRequest m;

    etcdserverpb__status_request__init(&m);
    return pack(&m.base);
}

struct rbuf *etcd_watch_create_encode(const struct etcd_watch_create *req)
{
    Etcdserverpb__WatchRequest m;
    Etcdserverpb__WatchCreateRequest c;
    Etcdserverpb__WatchCreateRequest__FilterType filters[2];
    size_t n_filters = 0;

    etcdserverpb__watch_create_request__init(&c);
    c.key = bin(req->key, req->key_len);
    c.range_end = bin(req->range_end, req->range_end_len);
    c.start_revision = req->start_revision;
    c.progress_notify = req->progress_notify;
    c.prev_kv = req->prev_kv;
    c.fragment = req->fragment;
    c.watch_id = req->watch_id;
    if (req->filters & ETCD_WATCH_FILTER_NOPUT)
        filters[n_filters++] =
            ETCDSERVERPB__WATCH_CREATE_REQUEST__FILTER_TYPE__NOPUT;
    if (req->filters & ETCD_WATCH_FILTER_NODELETE)
        filters[n_filters++] =
            ETCDSERVERPB__WATCH_CREATE_REQUEST__FILTER_TYPE__NODELETE;
    c.n_filters = n_filters;
    c.filters = filters;
    etcdserverpb__watch_request__init(&m);
    m.request_union_case =
        ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_CREATE_REQUEST;
    m.create_request = &c;
    return pack(&m.base);
}

struct rbuf *etcd_watch_cancel_encode(int64_t watch_id)
{
    Etcdserverpb__WatchRequest m;
    Etcdserverpb__WatchCancelRequest c;

    etcdserverpb__watch_cancel_request__init(&c);
    c.watch_id = watch_id;
    etcdserverpb__watch_request__init(&m);
    m.request_union_case =
        ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_CANCEL_REQUEST;
    m.cancel_request = &c;
    return pack(&m.base);
}

struct rbuf *etcd_watch_progress_encode(void)
{
    Etcdserverpb__WatchRequest m;
    Etcdserverpb__WatchProgressRequest p;

    etcdserverpb__watch_progress_request__init(&p);
    etcdserverpb__watch_request__init(&m);
    m.request_union_case =
        ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_PROGRESS_REQUEST;
    m.progress_request = &p;
    return pack(&m.base);
}

/* ==== decoding ==== */

/* Unpacks a message of type desc into a new arena; NULL when invalid. */
static void *unpack(const ProtobufCMessageDescriptor *desc, const void *buf,
                    size_t len, struct etcd_arena **arena)
{
    struct etcd_arena *a = arena_new(len * 2 + 512);
    ProtobufCAllocator alloc = {arena_pb_alloc, arena_pb_free, a};
    ProtobufCMessage *m = protobuf_c_message_unpack(desc, &alloc, len, buf);

    if (m == NULL) {
        arena_free(a);
        *arena = NULL;
        return NULL;
    }
    *arena = a;
    return m;
}

static void header_view(struct etcd_header *out,
                        const Etcdserverpb__ResponseHeader *h)
{
    memset(out, 0, sizeof(*out));
    if (h == NULL)
        return;
    out->cluster_id = h->cluster_id;
    out->member_id = h->member_id;
    out->revision = h->revision;
    out->raft_term = h->raft_term;
}

static const char *bytes_ptr(const ProtobufCBinaryData *b)
{
    return b->data ? (const char *)b->data : "";
}

static void kv_view(struct etcd_kv *out, const Mvccpb__KeyValue *kv)
{
    out->key = bytes_ptr(&kv->key);
    out->key_len = kv->key.len;
    out->value = bytes_ptr(&kv->value);
    out->value_len = kv->value.len;
    out->create_revision = kv->create_revision;
    out->mod_revision = kv->mod_revision;
    out->version = kv->version;
    out->lease = kv->lease;
}

/* An arena array of views of n KeyValues (NULL when n is 0). */
static struct etcd_kv *kvs_view(struct etcd_arena *a, Mvccpb__KeyValue **kvs,
                                size_t n)
{
    struct etcd_kv *out;

    if (n == 0)
        return NULL;
    out = arena_alloc(a, n * sizeof(*out));
    for (size_t i = 0; i < n; i++)
        kv_view(&out[i], kvs[i]);
    return out;
}

int etcd_range_response_decode(struct etcd_range_response *out, const void *buf,
                               size_t len)
{
    Etcdserverpb__RangeResponse *m;

    memset(out, 0, sizeof(*out));
    m = unpack(&etcdserverpb__range_response__descriptor, buf, len,
               &out->arena);
    if (m == NULL)
        return RW_EINVAL;
    header_view(&out->header, m->header);
    out->kvs = kvs_view(out->arena, m->kvs, m->n_kvs);
    out->n_kvs = m->n_kvs;
    out->more = m->more;
    out->count = m->count;
    return 0;
}

void etcd_range_response_fini(struct etcd_range_response *r)
{
    arena_free(r->arena);
    memset(r, 0, sizeof(*r));
}

int etcd_put_response_decode(struct etcd_put_response *out, const void *buf,
                             size_t len)
{
    Etcdserverpb__PutResponse *m;

    memset(out, 0, sizeof(*out));
    m = unpack(&etcdserverpb__put_response__descriptor, buf, len, &out->arena);
    if (m == NULL)
        return RW_EINVAL;
    header_view(&out->header, m->header);
    if (m->prev_kv != NULL) {
        out->has_prev_kv = true;
        kv_view(&out->prev_kv, m->prev_kv);
    }
    return 0;
}

void etcd_put_response_fini(struct etcd_put_response *r)
{
    arena_free(r->arena);
    memset(r, 0, sizeof(*r));
}

int etcd_delete_range_response_decode(struct etcd_delete_range_response *out,
                                      const void *buf, size_t len)
{
    Etcdserverpb__DeleteRangeResponse *m;

    memset(out, 0, sizeof(*out));
    m = unpack(&etcdserverpb__delete_range_response__descriptor, buf, len,
               &out->arena);
    if (m == NULL)
        return RW_EINVAL;
    header_view(&out->header, m->header);
    out->deleted = m->deleted;
    out->prev_kvs = kvs_view(out->arena, m->prev_kvs, m->n_prev_kvs);
    out->n_prev_kvs = m->n_prev_kvs;
    return 0;
}

void etcd_delete_range_response_fini(struct etcd_delete_range_response *r)
{
    arena_free(r->arena);
    memset(r, 0, sizeof(*r));
}

static int response_op_view(struct etcd_response_op *out,
                            const Etcdserverpb__ResponseOp *op,
                            struct etcd_arena *a)
{
    const Etcdserverpb__ResponseHeader *h = NULL;

    memset(out, 0, sizeof(*out));
    switch (op->response_case) {
    case ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_RANGE:
        out->type = ETCD_OP_RANGE;
        h = op->response_range->header;
        out->kvs =
            kvs_view(a, op->response_range->kvs, op->response_range->n_kvs);
        out->n_kvs = op->response_range->n_kvs;
        out->more = op->response_range->more;
        out->count = op->response_range->count;
        break;
    case ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_PUT:
        out->type = ETCD_OP_PUT;
        h = op->response_put->header;
        if (op->response_put->prev_kv != NULL) {
            out->kvs = kvs_view(a, &op->response_put->prev_kv, 1);
            out->n_kvs = 1;
        }
        break;
    case ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_DELETE_RANGE:
        out->type = ETCD_OP_DELETE_RANGE;
        h = op->response_delete_range->header;
        out->kvs = kvs_view(a, op->response_delete_range->prev_kvs,
                            op->response_delete_range->n_prev_kvs);
        out->n_kvs = op->response_delete_range->n_prev_kvs;
        out->count = op->response_delete_range->deleted;
        break;
    case ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_TXN:
        out->type = ETCD_OP_TXN;
        h = op->response_txn->header;
        out->succeeded = op->response_txn->succeeded;
        break;
    default:
        return RW_EINVAL;
    }
    out->revision = h ? h->revision : 0;
    return 0;
}

int etcd_txn_response_decode(struct etcd_txn_response *out, const void *buf,
                             size_t len)
{
    Etcdserverpb__TxnResponse *m;

    memset(out, 0, sizeof(*out));
    m = unpack(&etcdserverpb__txn_response__descriptor, buf, len, &out->arena);
    if (m == NULL)
        return RW_EINVAL;
    header_view(&out->header, m->header);
    out->succeeded = m->succeeded;
    if (m->n_responses > 0)
        out->responses =
            arena_alloc(out->arena, m->n_responses * sizeof(*out->responses));
    for (size_t i = 0; i < m->n_responses; i++) {
        if (response_op_view(&out->responses[i], m->responses[i], out->arena) !=
            0) {
            etcd_txn_response_fini(out);
            return RW_EINVAL;
        }
    }
    out->n_responses = m->n_responses;
    return 0;
}

void etcd_txn_response_fini(struct etcd_txn_response *r)
{
    arena_free(r->arena);
    memset(r, 0, sizeof(*r));
}

int etcd_compaction_response_decode(struct etcd_compaction_response *out,
                                    const void *buf, size_t len)
{
    Etcdserverpb__CompactionResponse *m;

    memset(out, 0, sizeof(*out));
    m = unpack(&etcdserverpb__compaction_response__descriptor, buf, len,
               &out->arena);
    if (m == NULL)
        return RW_EINVAL;
    header_view(&out->header, m->header);
    return 0;
}

void etcd_compaction_response_fini(struct etcd_compaction_response *r)
{
    arena_free(r->arena);
    memset(r, 0, sizeof(*r));
}

int etcd_status_response_decode(struct etcd_status_response *out,
                                const void *buf, size_t len)
{
    Etcdserverpb__StatusResponse *m;

    memset(out, 0, sizeof(*out));
    m = unpack(&etcdserverpb__status_response__descriptor, buf, len,
               &out->arena);
    if (m == NULL)
        return RW_EINVAL;
    header_view(&out->header, m->header);
    out->version = m->version ? m->version : "";
    return 0;
}

void etcd_status_response_fini(struct etcd_status_response *r)
{
    arena_free(r->arena);
    memset(r, 0, sizeof(*r));
}

static int event_view(struct etcd_event *out, const Mvccpb__Event *ev)
{
    if (ev->kv == NULL)
        return RW_EINVAL;
    switch (ev->type) {
    case MVCCPB__EVENT__EVENT_TYPE__PUT:
        out->type = ETCD_EVENT_PUT;
        break;
    case MVCCPB__EVENT__EVENT_TYPE__DELETE:
        out->type = ETCD_EVENT_DELETE;
        break;
    default:
        return RW_EINVAL;
    }
    kv_view(&out->kv, ev->kv);
    out->has_prev_kv = ev->prev_kv != NULL;
    if (ev->prev_kv != NULL)
        kv_view(&out->prev_kv, ev->prev_kv);
    else
        memset(&out->prev_kv, 0, sizeof(out->prev_kv));
    return 0;
}

int etcd_watch_response_decode(struct etcd_watch_response *out, const void *buf,
                               size_t len)
{
    Etcdserverpb__WatchResponse *m;

    memset(out, 0, sizeof(*out));
    m = unpack(&etcdserverpb__watch_response__descriptor, buf, len,
               &out->arena);
    if (m == NULL)
        return RW_EINVAL;
    header_view(&out->header, m->header);
    out->watch_id = m->watch_id;
    out->created = m->created;
    out->canceled = m->canceled;
    out->fragment = m->fragment;
    out->compact_revision = m->compact_revision;
    out->cancel_reason = m->cancel_reason ? m->cancel_reason : "";
    if (m->n_events > 0)
        out->events =
            arena_alloc(out->arena, m->n_events * sizeof(*out->events));
    for (size_t i = 0; i < m->n_events; i++) {
        if (event_view(&out->events[i], m->events[i]) != 0) {
            etcd_watch_response_fini(out);
            return RW_EINVAL;
        }
    }
    out->n_events = m->n_events;
    return 0;
}

void etcd_watch_response_fini(struct etcd_watch_response *r)
{
    arena_free(r->arena);
    memset(r, 0, sizeof(*r));
}

/* ==== helpers ==== */

char *etcd_prefix_end(const char *prefix, size_t len, size_t *end_len)
{
    char *end = xmalloc(len + 2);

    if (len)
        memcpy(end, prefix, len);
    for (size_t i = len; i-- > 0;) {
        if ((unsigned char)end[i] < 0xff) {
            end[i] = (char)((unsigned char)end[i] + 1);
            end[i + 1] = '\0';
            *end_len = i + 1;
            return end;
        }
    }
    /* Only 0xff bytes: no end exists, so range to the end of the keys. */
    end[0] = '\0';
    end[1] = '\0';
    *end_len = 1;
    return end;
}

char *etcd_key_next(const char *key, size_t len, size_t *next_len)
{
    char *next = xcalloc(1, len + 2);

    if (len)
        memcpy(next, key, len);
    *next_len = len + 1;
    return next;
}

bool etcd_version_at_least(const char *version, int major, int minor, int patch)
{
    int v[3] = {0, 0, 0};

    if (version == NULL || sscanf(version, "%d.%d.%d", &v[0], &v[1], &v[2]) < 2)
        return false;
    if (v[0] != major)
        return v[0] > major;
    if (v[1] != minor)
        return v[1] > minor;
    return v[2] >= patch;
}
