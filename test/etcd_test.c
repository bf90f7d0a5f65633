/*
 * etcd_test.c: the etcd codec (proto/etcd.c).  Requests are encoded and
 * unpacked again with protobuf-c to check every field; responses are built
 * with protobuf-c, packed, and decoded into views.  Also prefix_end and
 * version comparison.  Includes the .c to reach the generated types.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proto/etcd.c"

#define S(s) (s), (sizeof(s) - 1)

static void assert_bin(ProtobufCBinaryData b, const char *s, size_t len)
{
    assert_int_equal(b.len, len);
    if (len)
        assert_memory_equal(b.data, s, len);
}

/* ==== requests ==== */

static void test_range_request(void **state)
{
    struct etcd_range_request req = {
        .key = "/registry/pods/",
        .key_len = 15,
        .range_end = "/registry/pods0",
        .range_end_len = 15,
        .limit = 500,
        .revision = 1234,
        .serializable = true,
        .keys_only = true,
        .count_only = false,
    };
    struct rbuf *b = etcd_range_request_encode(&req);
    Etcdserverpb__RangeRequest *m = etcdserverpb__range_request__unpack(
        NULL, b->len, (const uint8_t *)b->data);

    assert_non_null(m);
    assert_bin(m->key, S("/registry/pods/"));
    assert_bin(m->range_end, S("/registry/pods0"));
    assert_int_equal(m->limit, 500);
    assert_int_equal(m->revision, 1234);
    assert_true(m->serializable);
    assert_true(m->keys_only);
    assert_false(m->count_only);
    assert_int_equal(m->sort_order, 0);
    etcdserverpb__range_request__free_unpacked(m, NULL);
    rbuf_unref(b);
}

static void test_put_delete_request(void **state)
{
    struct etcd_put_request put = {.key = "k",
                                   .key_len = 1,
                                   .value = "{\"a\":1}",
                                   .value_len = 7,
                                   .lease = 9,
                                   .prev_kv = true};
    struct etcd_delete_range_request del = {
        .key = "a", .key_len = 1, .range_end = "b", .range_end_len = 1};
    struct rbuf *b = etcd_put_request_encode(&put);
    Etcdserverpb__PutRequest *p = etcdserverpb__put_request__unpack(
        NULL, b->len, (const uint8_t *)b->data);
    Etcdserverpb__DeleteRangeRequest *d;

    assert_non_null(p);
    assert_bin(p->key, S("k"));
    assert_bin(p->value, S("{\"a\":1}"));
    assert_int_equal(p->lease, 9);
    assert_true(p->prev_kv);
    etcdserverpb__put_request__free_unpacked(p, NULL);
    rbuf_unref(b);

    b = etcd_delete_range_request_encode(&del);
    d = etcdserverpb__delete_range_request__unpack(NULL, b->len,
                                                   (const uint8_t *)b->data);
    assert_non_null(d);
    assert_bin(d->key, S("a"));
    assert_bin(d->range_end, S("b"));
    assert_false(d->prev_kv);
    etcdserverpb__delete_range_request__free_unpacked(d, NULL);
    rbuf_unref(b);
}

static void test_txn_request(void **state)
{
    struct etcd_compare cmp[] = {
        {.result = ETCD_COMPARE_EQUAL,
         .target = ETCD_TARGET_MOD,
         .key = "k",
         .key_len = 1,
         .number = 0},
        {.result = ETCD_COMPARE_NOT_EQUAL,
         .target = ETCD_TARGET_VALUE,
         .key = "k",
         .key_len = 1,
         .value = "v",
         .value_len = 1},
    };
    struct etcd_request_op success[] = {
        {.type = ETCD_OP_PUT,
         .put = {.key = "k", .key_len = 1, .value = "v2", .value_len = 2}},
    };
    struct etcd_request_op failure[] = {
        {.type = ETCD_OP_DELETE_RANGE,
         .delete_range = {.key = "k", .key_len = 1}},
        {.type = ETCD_OP_RANGE, .range = {.key = "k", .key_len = 1}},
    };
    struct etcd_txn_request req = {cmp, 2, success, 1, failure, 2};
    struct rbuf *b = etcd_txn_request_encode(&req);
    Etcdserverpb__TxnRequest *m = etcdserverpb__txn_request__unpack(
        NULL, b->len, (const uint8_t *)b->data);
    const uint8_t zero_mod_rev[] = {0x30, 0x00}; /* field 6 varint 0 */

    assert_non_null(m);
    /* mod_revision 0 is on the wire although it is proto3's default. */
    assert_non_null(memmem(b->data, b->len, zero_mod_rev, 2));
    assert_int_equal(m->n_compare, 2);
    assert_int_equal(m->compare[0]->target,
                     ETCDSERVERPB__COMPARE__COMPARE_TARGET__MOD);
    assert_int_equal(m->compare[0]->target_union_case,
                     ETCDSERVERPB__COMPARE__TARGET_UNION_MOD_REVISION);
    assert_int_equal(m->compare[0]->mod_revision, 0);
    assert_int_equal(m->compare[1]->result,
                     ETCDSERVERPB__COMPARE__COMPARE_RESULT__NOT_EQUAL);
    assert_int_equal(m->compare[1]->target_union_case,
                     ETCDSERVERPB__COMPARE__TARGET_UNION_VALUE);
    assert_bin(m->compare[1]->value, S("v"));
    assert_int_equal(m->n_success, 1);
    assert_int_equal(m->success[0]->request_case,
                     ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_PUT);
    assert_bin(m->success[0]->request_put->value, S("v2"));
    assert_int_equal(m->n_failure, 2);
    assert_int_equal(m->failure[0]->request_case,
                     ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_DELETE_RANGE);
    assert_int_equal(m->failure[1]->request_case,
                     ETCDSERVERPB__REQUEST_OP__REQUEST_REQUEST_RANGE);
    etcdserverpb__txn_request__free_unpacked(m, NULL);
    rbuf_unref(b);
}

static void test_compaction_status_request(void **state)
{
    struct rbuf *b = etcd_compaction_request_encode(77, true);
    Etcdserverpb__CompactionRequest *c =
        etcdserverpb__compaction_request__unpack(NULL, b->len,
                                                 (const uint8_t *)b->data);

    assert_non_null(c);
    assert_int_equal(c->revision, 77);
    assert_true(c->physical);
    etcdserverpb__compaction_request__free_unpacked(c, NULL);
    rbuf_unref(b);
    b = etcd_status_request_encode();
    assert_int_equal(b->len, 0);
    rbuf_unref(b);
}

static void test_watch_requests(void **state)
{
    struct etcd_watch_create req = {
        .key = "/p/",
        .key_len = 3,
        .range_end = "/p0",
        .range_end_len = 3,
        .start_revision = 42,
        .progress_notify = true,
        .prev_kv = true,
        .watch_id = 7,
        .filters = ETCD_WATCH_FILTER_NOPUT | ETCD_WATCH_FILTER_NODELETE,
    };
    struct rbuf *b = etcd_watch_create_encode(&req);
    Etcdserverpb__WatchRequest *m = etcdserverpb__watch_request__unpack(
        NULL, b->len, (const uint8_t *)b->data);
    Etcdserverpb__WatchCreateRequest *c;

    assert_non_null(m);
    assert_int_equal(m->request_union_case,
                     ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_CREATE_REQUEST);
    c = m->create_request;
    assert_bin(c->key, S("/p/"));
    assert_bin(c->range_end, S("/p0"));
    assert_int_equal(c->start_revision, 42);
    assert_true(c->progress_notify);
    assert_true(c->prev_kv);
    assert_false(c->fragment);
    assert_int_equal(c->watch_id, 7);
    assert_int_equal(c->n_filters, 2);
    assert_int_equal(c->filters[0], 0);
    assert_int_equal(c->filters[1], 1);
    etcdserverpb__watch_request__free_unpacked(m, NULL);
    rbuf_unref(b);

    b = etcd_watch_cancel_encode(7);
    m = etcdserverpb__watch_request__unpack(NULL, b->len,
                                            (const uint8_t *)b->data);
    assert_non_null(m);
    assert_int_equal(m->request_union_case,
                     ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_CANCEL_REQUEST);
    assert_int_equal(m->cancel_request->watch_id, 7);
    etcdserverpb__watch_request__free_unpacked(m, NULL);
    rbuf_unref(b);

    b = etcd_watch_progress_encode();
    m = etcdserverpb__watch_request__unpack(NULL, b->len,
                                            (const uint8_t *)b->data);
    assert_non_null(m);
    assert_int_equal(
        m->request_union_case,
        ETCDSERVERPB__WATCH_REQUEST__REQUEST_UNION_PROGRESS_REQUEST);
    etcdserverpb__watch_request__free_unpacked(m, NULL);
    rbuf_unref(b);
}

/* ==== responses ==== */

/* Packs m into a malloc'd buffer. */
static uint8_t *pack_msg(const ProtobufCMessage *m, size_t *len)
{
    uint8_t *buf;

    *len = protobuf_c_message_get_packed_size(m);
    buf = malloc(*len + 1);
    protobuf_c_message_pack(m, buf);
    return buf;
}

static Mvccpb__KeyValue make_kv(const char *key, const char *value, int64_t mod)
{
    Mvccpb__KeyValue kv = MVCCPB__KEY_VALUE__INIT;

    kv.key = bin(key, strlen(key));
    kv.value = bin(value, strlen(value));
    kv.mod_revision = mod;
    kv.create_revision = mod - 1;
    kv.version = 2;
    return kv;
}

static void test_range_response(void **state)
{
    Etcdserverpb__ResponseHeader h = ETCDSERVERPB__RESPONSE_HEADER__INIT;
    Etcdserverpb__RangeResponse m = ETCDSERVERPB__RANGE_RESPONSE__INIT;
    Mvccpb__KeyValue kv[2] = {make_kv("/a", "1", 5), make_kv("/b", "", 6)};
    Mvccpb__KeyValue *kvp[2] = {&kv[0], &kv[1]};
    struct etcd_range_response r;
    uint8_t *buf;
    size_t len;

    h.revision = 99;
    h.cluster_id = 1;
    h.member_id = 2;
    h.raft_term = 3;
    m.header = &h;
    m.n_kvs = 2;
    m.kvs = kvp;
    m.more = true;
    m.count = 10;
    buf = pack_msg(&m.base, &len);
    assert_int_equal(etcd_range_response_decode(&r, buf, len), 0);
    free(buf); /* views point into the decoded message, not the input */
    assert_int_equal(r.header.revision, 99);
    assert_int_equal(r.header.cluster_id, 1);
    assert_int_equal(r.header.member_id, 2);
    assert_int_equal(r.header.raft_term, 3);
    assert_int_equal(r.n_kvs, 2);
    assert_int_equal(r.kvs[0].key_len, 2);
    assert_memory_equal(r.kvs[0].key, "/a", 2);
    assert_int_equal(r.kvs[0].value_len, 1);
    assert_memory_equal(r.kvs[0].value, "1", 1);
    assert_int_equal(r.kvs[0].mod_revision, 5);
    assert_int_equal(r.kvs[0].create_revision, 4);
    assert_int_equal(r.kvs[0].version, 2);
    assert_non_null(r.kvs[1].value); /* empty bytes are "", never NULL */
    assert_int_equal(r.kvs[1].value_len, 0);
    assert_true(r.more);
    assert_int_equal(r.count, 10);
    etcd_range_response_fini(&r);
    etcd_range_response_fini(&r); /* fini of a finished struct: no-op */

    /* Empty input is a valid empty response. */
    assert_int_equal(etcd_range_response_decode(&r, "", 0), 0);
    assert_int_equal(r.n_kvs, 0);
    assert_null(r.kvs);
    assert_int_equal(r.header.revision, 0);
    etcd_range_response_fini(&r);
}

static void test_put_delete_response(void **state)
{
    Etcdserverpb__ResponseHeader h = ETCDSERVERPB__RESPONSE_HEADER__INIT;
    Etcdserverpb__PutResponse p = ETCDSERVERPB__PUT_RESPONSE__INIT;
    Etcdserverpb__DeleteRangeResponse d =
        ETCDSERVERPB__DELETE_RANGE_RESPONSE__INIT;
    Mvccpb__KeyValue kv = make_kv("/k", "old", 3);
    Mvccpb__KeyValue *kvp = &kv;
    struct etcd_put_response pr;
    struct etcd_delete_range_response dr;
    uint8_t *buf;
    size_t len;

    h.revision = 4;
    p.header = &h;
    p.prev_kv = &kv;
    buf = pack_msg(&p.base, &len);
    assert_int_equal(etcd_put_response_decode(&pr, buf, len), 0);
    free(buf);
    assert_int_equal(pr.header.revision, 4);
    assert_true(pr.has_prev_kv);
    assert_memory_equal(pr.prev_kv.value, "old", 3);
    etcd_put_response_fini(&pr);

    d.header = &h;
    d.deleted = 1;
    d.n_prev_kvs = 1;
    d.prev_kvs = &kvp;
    buf = pack_msg(&d.base, &len);
    assert_int_equal(etcd_delete_range_response_decode(&dr, buf, len), 0);
    free(buf);
    assert_int_equal(dr.deleted, 1);
    assert_int_equal(dr.n_prev_kvs, 1);
    assert_memory_equal(dr.prev_kvs[0].key, "/k", 2);
    etcd_delete_range_response_fini(&dr);
}

static void test_txn_response(void **state)
{
    Etcdserverpb__ResponseHeader h = ETCDSERVERPB__RESPONSE_HEADER__INIT;
    Etcdserverpb__TxnResponse t = ETCDSERVERPB__TXN_RESPONSE__INIT;
    Etcdserverpb__ResponseOp ops[3] = {ETCDSERVERPB__RESPONSE_OP__INIT,
                                       ETCDSERVERPB__RESPONSE_OP__INIT,
                                       ETCDSERVERPB__RESPONSE_OP__INIT};
    Etcdserverpb__ResponseOp *opp[3] = {&ops[0], &ops[1], &ops[2]};
    Etcdserverpb__PutResponse p = ETCDSERVERPB__PUT_RESPONSE__INIT;
    Etcdserverpb__RangeResponse r = ETCDSERVERPB__RANGE_RESPONSE__INIT;
    Etcdserverpb__DeleteRangeResponse d =
        ETCDSERVERPB__DELETE_RANGE_RESPONSE__INIT;
    Mvccpb__KeyValue kv = make_kv("/k", "v", 8);
    Mvccpb__KeyValue *kvp = &kv;
    struct etcd_txn_response tr;
    uint8_t *buf;
    size_t len;

    h.revision = 8;
    p.header = &h;
    r.n_kvs = 1;
    r.kvs = &kvp;
    r.count = 1;
    d.deleted = 3;
    ops[0].response_case = ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_PUT;
    ops[0].response_put = &p;
    ops[1].response_case = ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_RANGE;
    ops[1].response_range = &r;
    ops[2].response_case =
        ETCDSERVERPB__RESPONSE_OP__RESPONSE_RESPONSE_DELETE_RANGE;
    ops[2].response_delete_range = &d;
    t.header = &h;
    t.succeeded = true;
    t.n_responses = 3;
    t.responses = opp;
    buf = pack_msg(&t.base, &len);
    assert_int_equal(etcd_txn_response_decode(&tr, buf, len), 0);
    free(buf);
    assert_true(tr.succeeded);
    assert_int_equal(tr.header.revision, 8);
    assert_int_equal(tr.n_responses, 3);
    assert_int_equal(tr.responses[0].type, ETCD_OP_PUT);
    assert_int_equal(tr.responses[0].revision, 8);
    assert_int_equal(tr.responses[0].n_kvs, 0);
    assert_int_equal(tr.responses[1].type, ETCD_OP_RANGE);
    assert_int_equal(tr.responses[1].n_kvs, 1);
    assert_memory_equal(tr.responses[1].kvs[0].value, "v", 1);
    assert_int_equal(tr.responses[2].type, ETCD_OP_DELETE_RANGE);
    assert_int_equal(tr.responses[2].count, 3);
    etcd_txn_response_fini(&tr);

    /* A ResponseOp with no member set is not a valid response. */
    t.n_responses = 1;
    opp[0] = &ops[0];
    ops[0].response_case = ETCDSERVERPB__RESPONSE_OP__RESPONSE__NOT_SET;
    buf = pack_msg(&t.base, &len);
    assert_int_equal(etcd_txn_response_decode(&tr, buf, len), RW_EINVAL);
    assert_null(tr.arena);
    free(buf);
}

static void test_status_compaction_response(void **state)
{
    Etcdserverpb__ResponseHeader h = ETCDSERVERPB__RESPONSE_HEADER__INIT;
    Etcdserverpb__StatusResponse s = ETCDSERVERPB__STATUS_RESPONSE__INIT;
    Etcdserverpb__CompactionResponse c =
        ETCDSERVERPB__COMPACTION_RESPONSE__INIT;
    struct etcd_status_response sr;
    struct etcd_compaction_response cr;
    uint8_t *buf;
    size_t len;

    h.revision = 12;
    s.header = &h;
    s.version = "3.4.23";
    buf = pack_msg(&s.base, &len);
    /* Unknown fields (a newer server's) are skipped. */
    buf = realloc(buf, len + 3);
    memcpy(buf + len, "\x18\x80\x01", 3); /* field 3 varint 128 */
    assert_int_equal(etcd_status_response_decode(&sr, buf, len + 3), 0);
    free(buf);
    assert_string_equal(sr.version, "3.4.23");
    assert_int_equal(sr.header.revision, 12);
    etcd_status_response_fini(&sr);

    c.header = &h;
    buf = pack_msg(&c.base, &len);
    assert_int_equal(etcd_compaction_response_decode(&cr, buf, len), 0);
    assert_int_equal(cr.header.revision, 12);
    etcd_compaction_response_fini(&cr);
    free(buf);
}

static void test_watch_response(void **state)
{
    Etcdserverpb__ResponseHeader h = ETCDSERVERPB__RESPONSE_HEADER__INIT;
    Etcdserverpb__WatchResponse w = ETCDSERVERPB__WATCH_RESPONSE__INIT;
    Mvccpb__Event ev[2] = {MVCCPB__EVENT__INIT, MVCCPB__EVENT__INIT};
    Mvccpb__Event *evp[2] = {&ev[0], &ev[1]};
    Mvccpb__KeyValue put_kv = make_kv("/k", "new", 10);
    Mvccpb__KeyValue prev = make_kv("/k", "old", 9);
    Mvccpb__KeyValue del_kv = MVCCPB__KEY_VALUE__INIT;
    struct etcd_watch_response r;
    uint8_t *buf;
    size_t len;

    del_kv.key = bin("/k", 2);
    del_kv.mod_revision = 11;
    ev[0].type = MVCCPB__EVENT__EVENT_TYPE__PUT;
    ev[0].kv = &put_kv;
    ev[0].prev_kv = &prev;
    ev[1].type = MVCCPB__EVENT__EVENT_TYPE__DELETE;
    ev[1].kv = &del_kv;
    h.revision = 20;
    w.header = &h;
    w.watch_id = 3;
    w.n_events = 2;
    w.events = evp;
    buf = pack_msg(&w.base, &len);
    assert_int_equal(etcd_watch_response_decode(&r, buf, len), 0);
    free(buf);
    assert_int_equal(r.header.revision, 20);
    assert_int_equal(r.watch_id, 3);
    assert_false(r.created);
    assert_false(r.canceled);
    assert_string_equal(r.cancel_reason, "");
    assert_int_equal(r.n_events, 2);
    assert_int_equal(r.events[0].type, ETCD_EVENT_PUT);
    assert_memory_equal(r.events[0].kv.value, "new", 3);
    assert_int_equal(r.events[0].kv.mod_revision, 10);
    assert_true(r.events[0].has_prev_kv);
    assert_memory_equal(r.events[0].prev_kv.value, "old", 3);
    assert_int_equal(r.events[1].type, ETCD_EVENT_DELETE);
    assert_int_equal(r.events[1].kv.mod_revision, 11);
    assert_int_equal(r.events[1].kv.value_len, 0);
    assert_false(r.events[1].has_prev_kv);
    etcd_watch_response_fini(&r);

    /* Canceled because the start revision was compacted. */
    w.n_events = 0;
    w.canceled = true;
    w.compact_revision = 15;
    w.cancel_reason = "mvcc: required revision has been compacted";
    buf = pack_msg(&w.base, &len);
    assert_int_equal(etcd_watch_response_decode(&r, buf, len), 0);
    free(buf);
    assert_true(r.canceled);
    assert_int_equal(r.compact_revision, 15);
    assert_string_equal(r.cancel_reason,
                        "mvcc: required revision has been compacted");
    assert_null(r.events);
    etcd_watch_response_fini(&r);

    /* An event without kv, or of an unknown type, is refused. */
    w.canceled = false;
    w.n_events = 1;
    ev[0].kv = NULL;
    buf = pack_msg(&w.base, &len);
    assert_int_equal(etcd_watch_response_decode(&r, buf, len), RW_EINVAL);
    free(buf);
    ev[0].kv = &put_kv;
    ev[0].type = 7;
    buf = pack_msg(&w.base, &len);
    assert_int_equal(etcd_watch_response_decode(&r, buf, len), RW_EINVAL);
    assert_null(r.events);
    free(buf);
}

static void test_watch_response_large(void **state)
{
    enum { N = 1000 };
    Etcdserverpb__WatchResponse w = ETCDSERVERPB__WATCH_RESPONSE__INIT;
    Mvccpb__Event *ev = calloc(N, sizeof(*ev));
    Mvccpb__Event **evp = calloc(N, sizeof(*evp));
    Mvccpb__KeyValue *kv = calloc(N, sizeof(*kv));
    char(*keys)[32] = calloc(N, 32);
    char value[300];
    struct etcd_watch_response r;
    uint8_t *buf;
    size_t len;

    memset(value, 'x', sizeof(value));
    for (int i = 0; i < N; i++) {
        mvccpb__event__init(&ev[i]);
        snprintf(keys[i], 32, "/registry/pods/ns/p%d", i);
        kv[i] = make_kv(keys[i], "", 100 + i);
        kv[i].value = bin(value, (size_t)(i % 300));
        ev[i].kv = &kv[i];
        evp[i] = &ev[i];
    }
    w.n_events = N;
    w.events = evp;
    buf = pack_msg(&w.base, &len);
    assert_int_equal(etcd_watch_response_decode(&r, buf, len), 0);
    free(buf);
    assert_int_equal(r.n_events, N);
    for (int i = 0; i < N; i++) {
        assert_int_equal(r.events[i].kv.mod_revision, 100 + i);
        assert_int_equal(r.events[i].kv.key_len, strlen(keys[i]));
        assert_memory_equal(r.events[i].kv.key, keys[i], strlen(keys[i]));
        assert_int_equal(r.events[i].kv.value_len, (size_t)(i % 300));
    }
    etcd_watch_response_fini(&r);
    free(ev);
    free(evp);
    free(kv);
    free(keys);
}

static void test_garbage(void **state)
{
    struct etcd_watch_response w;
    struct etcd_range_response r;
    struct etcd_status_response s;

    /* Truncated length-delimited field; a wire type 7. */
    assert_int_equal(etcd_watch_response_decode(&w, "\x0a\x05\x01", 3),
                     RW_EINVAL);
    assert_null(w.arena);
    assert_int_equal(etcd_range_response_decode(&r, "\x0f", 1), RW_EINVAL);
    assert_int_equal(etcd_status_response_decode(&s, "\x12\x80", 2), RW_EINVAL);
    etcd_watch_response_fini(&w); /* zeroed: fini is a no-op */
}

/* ==== helpers ==== */

static void check_prefix_end(const char *prefix, size_t len, const char *want,
                             size_t want_len)
{
    size_t end_len;
    char *end = etcd_prefix_end(prefix, len, &end_len);

    assert_int_equal(end_len, want_len);
    assert_memory_equal(end, want, want_len);
    assert_int_equal(end[end_len], '\0');
    free(end);
}

static void test_prefix_end(void **state)
{
    check_prefix_end(S("/registry/pods/"), S("/registry/pods0"));
    check_prefix_end(S("a"), S("b"));
    check_prefix_end(S("a\xff"), S("b"));
    check_prefix_end(S("a\xff\xff"), S("b"));
    check_prefix_end(S("ab\xfe"), S("ab\xff"));
    check_prefix_end(S("\xff"), "\0", 1);
    check_prefix_end(S("\xff\xff"), "\0", 1);
    check_prefix_end("", 0, "\0", 1);
}

/* The next page's start: the smallest key above the last one. */
static void test_key_next(void **state)
{
    size_t len;
    char *next = etcd_key_next(S("/registry/pods/a"), &len);

    assert_int_equal(len, 17);
    assert_memory_equal(next, "/registry/pods/a\0", 17);
    assert_int_equal(next[len], '\0');
    free(next);
    next = etcd_key_next(S("a\0b"), &len); /* keys are bytes */
    assert_int_equal(len, 4);
    assert_memory_equal(next, "a\0b\0", 4);
    free(next);
    next = etcd_key_next("", 0, &len);
    assert_int_equal(len, 1);
    assert_int_equal(next[0], '\0');
    free(next);
}

static void test_version(void **state)
{
    assert_true(etcd_version_at_least("3.4.25", 3, 4, 25));
    assert_true(etcd_version_at_least("3.5.0", 3, 4, 25));
    assert_true(etcd_version_at_least("4.0", 3, 4, 25));
    assert_false(etcd_version_at_least("3.4.23", 3, 4, 25));
    assert_false(etcd_version_at_least("2.9.99", 3, 4, 25));
    assert_false(etcd_version_at_least("", 3, 4, 25));
    assert_false(etcd_version_at_least(NULL, 3, 4, 25));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_range_request),
        cmocka_unit_test(test_put_delete_request),
        cmocka_unit_test(test_txn_request),
        cmocka_unit_test(test_compaction_status_request),
        cmocka_unit_test(test_watch_requests),
        cmocka_unit_test(test_range_response),
        cmocka_unit_test(test_put_delete_response),
        cmocka_unit_test(test_txn_response),
        cmocka_unit_test(test_status_compaction_response),
        cmocka_unit_test(test_watch_response),
        cmocka_unit_test(test_watch_response_large),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_prefix_end),
        cmocka_unit_test(test_key_next),
        cmocka_unit_test(test_version),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
