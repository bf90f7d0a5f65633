/*
 * etcd_client_test.c: the HTTP/2 client, the gRPC client and the etcd
 * codec against a real etcd ($RW_TEST_ETCD; run by
 * test/integration/etcd_client.sh): Maintenance/Status, put / range /
 * delete / txn through grpc_client_unary, many concurrent calls on one
 * connection, a Watch stream that sees puts and deletes with prev_kv, a
 * watch from a compacted revision (created, then canceled with
 * compact_revision), Range at a compacted revision (OUT_OF_RANGE), an
 * unknown method, a refused connection, a silent server (keepalive
 * timeout), canceling calls and a 1 MiB value.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "src/transport.h"
#include "test/etcd_testlib.h"

static struct etcd_sync sync_client;

static int setup(void **state)
{
    etcd_sync_open(&sync_client);
    return 0;
}

static int teardown(void **state)
{
    etcd_sync_close(&sync_client);
    return 0;
}

static void test_status(void **state)
{
    struct etcd_status_response st;

    assert_int_equal(etcd_sync_call(&sync_client, ETCD_PATH_STATUS,
                                    etcd_status_request_encode()),
                     GRPC_STATUS_OK);
    assert_int_equal(etcd_status_response_decode(&st, sync_client.resp,
                                                 sync_client.resp_len),
                     0);
    assert_true(strncmp(st.version, "3.", 2) == 0);
    assert_true(st.header.revision > 0);
    assert_true(st.header.cluster_id != 0);
    print_message("etcd version %s\n", st.version);
    etcd_status_response_fini(&st);
}

static void test_put_range_delete(void **state)
{
    struct etcd_sync *s = &sync_client;
    struct etcd_range_response r;
    struct etcd_delete_range_request del = {
        .key = "/crud/b", .key_len = 7, .prev_kv = true};
    struct etcd_delete_range_response dr;
    struct etcd_range_request limited = {.key = "/crud/",
                                         .key_len = 6,
                                         .range_end = "/crud0",
                                         .range_end_len = 6,
                                         .limit = 2};
    int64_t r1, r2, r3;

    r1 = etcd_sync_put(s, "/crud/a", "1");
    r2 = etcd_sync_put(s, "/crud/b", "2");
    r3 = etcd_sync_put(s, "/crud/c", "3");
    assert_true(r1 > 0 && r2 == r1 + 1 && r3 == r2 + 1);

    assert_int_equal(etcd_sync_range_prefix(s, "/crud/", 0, &r), 0);
    assert_int_equal(r.n_kvs, 3);
    assert_int_equal(r.header.revision, r3);
    assert_memory_equal(r.kvs[0].key, "/crud/a", 7);
    assert_memory_equal(r.kvs[1].value, "2", 1);
    assert_int_equal(r.kvs[2].mod_revision, r3);
    assert_false(r.more);
    etcd_range_response_fini(&r);

    assert_int_equal(
        etcd_sync_call(s, ETCD_PATH_RANGE, etcd_range_request_encode(&limited)),
        0);
    assert_int_equal(etcd_range_response_decode(&r, s->resp, s->resp_len), 0);
    assert_int_equal(r.n_kvs, 2);
    assert_true(r.more);
    assert_int_equal(r.count, 3);
    etcd_range_response_fini(&r);

    assert_int_equal(etcd_sync_call(s, ETCD_PATH_DELETE_RANGE,
                                    etcd_delete_range_request_encode(&del)),
                     0);
    assert_int_equal(
        etcd_delete_range_response_decode(&dr, s->resp, s->resp_len), 0);
    assert_int_equal(dr.deleted, 1);
    assert_int_equal(dr.n_prev_kvs, 1);
    assert_memory_equal(dr.prev_kvs[0].value, "2", 1);
    assert_int_equal(dr.header.revision, r3 + 1);
    etcd_delete_range_response_fini(&dr);

    /* At the older revision the deleted key is still there. */
    assert_int_equal(etcd_sync_range_prefix(s, "/crud/", r3, &r), 0);
    assert_int_equal(r.n_kvs, 3);
    etcd_range_response_fini(&r);
    assert_int_equal(etcd_sync_range_prefix(s, "/crud/", 0, &r), 0);
    assert_int_equal(r.n_kvs, 2);
    etcd_range_response_fini(&r);
}

/* Txn: "if mod_revision(key) == expect then put else range". */
static int txn_cas(struct etcd_sync *s, const char *key, int64_t expect,
                   const char *value, struct etcd_txn_response *out)
{
    struct etcd_compare cmp = {.result = ETCD_COMPARE_EQUAL,
                               .target = ETCD_TARGET_MOD,
                               .key = key,
                               .key_len = strlen(key),
                               .number = expect};
    struct etcd_request_op success = {.type = ETCD_OP_PUT,
                                      .put = {.key = key,
                                              .key_len = strlen(key),
                                              .value = value,
                                              .value_len = strlen(value),
                                              .prev_kv = true}};
    struct etcd_request_op failure = {
        .type = ETCD_OP_RANGE, .range = {.key = key, .key_len = strlen(key)}};
    struct etcd_txn_request req = {&cmp, 1, &success, 1, &failure, 1};
    int status =
        etcd_sync_call(s, ETCD_PATH_TXN, etcd_txn_request_encode(&req));

    if (status != 0)
        return status;
    return etcd_txn_response_decode(out, s->resp, s->resp_len);
}

static void test_txn(void **state)
{
    struct etcd_sync *s = &sync_client;
    struct etcd_txn_response t;
    int64_t created;

    /* Absent key: mod_revision == 0 holds. */
    assert_int_equal(txn_cas(s, "/txn/k", 0, "v1", &t), 0);
    assert_true(t.succeeded);
    assert_int_equal(t.n_responses, 1);
    assert_int_equal(t.responses[0].type, ETCD_OP_PUT);
    assert_int_equal(t.responses[0].n_kvs, 0); /* no previous value */
    created = t.header.revision;
    etcd_txn_response_fini(&t);

    /* Now present: the compare fails, the failure branch ranges. */
    assert_int_equal(txn_cas(s, "/txn/k", 0, "v2", &t), 0);
    assert_false(t.succeeded);
    assert_int_equal(t.responses[0].type, ETCD_OP_RANGE);
    assert_int_equal(t.responses[0].n_kvs, 1);
    assert_int_equal(t.responses[0].kvs[0].mod_revision, created);
    assert_memory_equal(t.responses[0].kvs[0].value, "v1", 2);
    etcd_txn_response_fini(&t);

    /* With the right mod_revision it succeeds and returns prev_kv. */
    assert_int_equal(txn_cas(s, "/txn/k", created, "v3", &t), 0);
    assert_true(t.succeeded);
    assert_int_equal(t.header.revision, created + 1);
    assert_int_equal(t.responses[0].n_kvs, 1);
    assert_memory_equal(t.responses[0].kvs[0].value, "v1", 2);
    etcd_txn_response_fini(&t);
}

/* ---- many concurrent unary calls ---- */

struct multi {
    int done;
    int ok;
    int all;
};

static void multi_cb(int status, const char *message, const uint8_t *resp,
                     size_t resp_len, void *arg)
{
    struct multi *m = arg;
    struct etcd_put_response r;

    if (status == 0 && etcd_put_response_decode(&r, resp, resp_len) == 0) {
        m->ok++;
        etcd_put_response_fini(&r);
    }
    if (++m->done == 200)
        m->all = 1;
}

static void test_concurrent_calls(void **state)
{
    struct etcd_sync *s = &sync_client;
    struct multi m = {0};
    char key[32];

    for (int i = 0; i < 200; i++) {
        struct etcd_put_request req = {
            .key = key, .value = "x", .value_len = 1};
        struct rbuf *b;

        snprintf(key, sizeof(key), "/multi/%03d", i);
        req.key_len = strlen(key);
        b = etcd_put_request_encode(&req);
        assert_non_null(grpc_client_unary(s->conn, ETCD_PATH_PUT, b->data,
                                          b->len, ETEST_TIMEOUT, multi_cb, &m));
        rbuf_unref(b);
    }
    assert_true(etest_wait(s->base, &m.all, ETEST_TIMEOUT));
    assert_int_equal(m.ok, 200);
}

/* ---- watch ---- */

#define MAX_EVENTS 16

struct watcher {
    struct grpc_call *call;
    int created;
    int canceled;
    int closed;
    int close_status;
    int64_t watch_id;
    int64_t created_rev;
    int64_t compact_revision;
    int n_events;
    struct {
        enum etcd_event_type type;
        char key[32];
        char value[32];
        int64_t mod_rev;
        int has_prev;
        char prev_value[32];
    } events[MAX_EVENTS];
    int enough; /* n_events reached want */
    int want;
};

static void copy_str(char *dst, size_t size, const char *src, size_t len)
{
    snprintf(dst, size, "%.*s", (int)len, src);
}

static void watcher_message_cb(const uint8_t *msg, size_t len, void *arg)
{
    struct watcher *w = arg;
    struct etcd_watch_response r;

    assert_int_equal(etcd_watch_response_decode(&r, msg, len), 0);
    if (r.created) {
        w->created = 1;
        w->watch_id = r.watch_id;
        w->created_rev = r.header.revision;
    }
    if (r.canceled) {
        w->canceled = 1;
        w->compact_revision = r.compact_revision;
    }
    for (size_t i = 0; i < r.n_events && w->n_events < MAX_EVENTS; i++) {
        const struct etcd_event *ev = &r.events[i];
        int n = w->n_events++;

        assert_int_equal(r.watch_id, w->watch_id);
        w->events[n].type = ev->type;
        copy_str(w->events[n].key, 32, ev->kv.key, ev->kv.key_len);
        copy_str(w->events[n].value, 32, ev->kv.value, ev->kv.value_len);
        w->events[n].mod_rev = ev->kv.mod_revision;
        w->events[n].has_prev = ev->has_prev_kv;
        if (ev->has_prev_kv)
            copy_str(w->events[n].prev_value, 32, ev->prev_kv.value,
                     ev->prev_kv.value_len);
    }
    if (w->want && w->n_events >= w->want)
        w->enough = 1;
    etcd_watch_response_fini(&r);
}

static void watcher_close_cb(int status, const char *message, void *arg)
{
    struct watcher *w = arg;

    w->closed = 1;
    w->close_status = status;
    w->call = NULL;
}

static void watcher_start(struct watcher *w, struct h2_client *conn,
                          const char *prefix, int64_t start_rev)
{
    size_t end_len;
    char *end = etcd_prefix_end(prefix, strlen(prefix), &end_len);
    struct etcd_watch_create req = {.key = prefix,
                                    .key_len = strlen(prefix),
                                    .range_end = end,
                                    .range_end_len = end_len,
                                    .start_revision = start_rev,
                                    .prev_kv = true};
    struct rbuf *b = etcd_watch_create_encode(&req);

    memset(w, 0, sizeof(*w));
    w->call = grpc_client_call_start(conn, ETCD_PATH_WATCH, watcher_message_cb,
                                     watcher_close_cb, w);
    assert_non_null(w->call);
    assert_int_equal(grpc_client_call_send(w->call, b->data, b->len), 0);
    rbuf_unref(b);
    free(end);
}

static void test_watch(void **state)
{
    struct etcd_sync *s = &sync_client;
    struct event_base *base = event_base_new();
    struct etcd_sync writer;
    const char *host, *port, *url;
    struct h2_client_callbacks cbs = {0};
    struct h2_client *conn;
    struct watcher w;
    int64_t r1, r2, r3;

    etest_endpoint(&host, &port, &url);
    conn = h2_client_new(base, host, port, NULL, &cbs, NULL);
    watcher_start(&w, conn, "/watch/", 0);
    assert_true(etest_wait(base, &w.created, ETEST_TIMEOUT));
    assert_false(w.canceled);

    etcd_sync_open(&writer);
    r1 = etcd_sync_put(&writer, "/watch/a", "1");
    r2 = etcd_sync_put(&writer, "/watch/a", "2");
    assert_true(etcd_sync_put(&writer, "/other/x", "ignored") > 0);
    r3 = etcd_sync_delete(&writer, "/watch/a");
    etcd_sync_close(&writer);
    assert_true(r1 > w.created_rev && r2 == r1 + 1 && r3 == r2 + 2);

    w.want = 3;
    assert_true(etest_wait(base, &w.enough, ETEST_TIMEOUT));
    assert_int_equal(w.n_events, 3);
    assert_int_equal(w.events[0].type, ETCD_EVENT_PUT);
    assert_string_equal(w.events[0].key, "/watch/a");
    assert_string_equal(w.events[0].value, "1");
    assert_int_equal(w.events[0].mod_rev, r1);
    assert_false(w.events[0].has_prev);
    assert_int_equal(w.events[1].type, ETCD_EVENT_PUT);
    assert_string_equal(w.events[1].value, "2");
    assert_true(w.events[1].has_prev);
    assert_string_equal(w.events[1].prev_value, "1");
    assert_int_equal(w.events[2].type, ETCD_EVENT_DELETE);
    assert_string_equal(w.events[2].key, "/watch/a");
    assert_string_equal(w.events[2].value, "");
    assert_int_equal(w.events[2].mod_rev, r3);
    assert_true(w.events[2].has_prev);
    assert_string_equal(w.events[2].prev_value, "2");

    /* The stream stays open (never half-closed) until we cancel it. */
    etest_run_for(base, 0.3);
    assert_false(w.closed);
    grpc_client_call_cancel(w.call);
    etest_run_for(base, 0.1);
    assert_false(w.closed); /* no callback after cancel */
    h2_client_free(conn);
    event_base_free(base);
    (void)s;
}

static void test_compacted(void **state)
{
    struct etcd_sync *s = &sync_client;
    struct event_base *base = event_base_new();
    const char *host, *port, *url;
    struct h2_client_callbacks cbs = {0};
    struct h2_client *conn;
    struct watcher w;
    struct etcd_range_response r;
    int64_t old, rev;

    old = etcd_sync_put(s, "/compact/a", "1");
    etcd_sync_put(s, "/compact/a", "2");
    rev = etcd_sync_put(s, "/compact/a", "3");
    assert_int_equal(etcd_sync_compact(s, rev), GRPC_STATUS_OK);

    /* Range below the compaction: OUT_OF_RANGE. */
    assert_int_equal(etcd_sync_range_prefix(s, "/compact/", old, &r),
                     GRPC_STATUS_OUT_OF_RANGE);
    assert_true(strstr(s->message, "compacted") != NULL);
    etcd_range_response_fini(&r);

    /* Watch from below the compaction: created, then canceled with the
     * compact revision; the stream itself stays up. */
    etest_endpoint(&host, &port, &url);
    conn = h2_client_new(base, host, port, NULL, &cbs, NULL);
    watcher_start(&w, conn, "/compact/", old);
    assert_true(etest_wait(base, &w.canceled, ETEST_TIMEOUT));
    assert_true(w.created);
    assert_int_equal(w.compact_revision, rev);
    assert_int_equal(w.n_events, 0);
    assert_false(w.closed);
    grpc_client_call_cancel(w.call);

    /* start_revision == the compact revision is still allowed. */
    watcher_start(&w, conn, "/compact/", rev);
    w.want = 1;
    assert_true(etest_wait(base, &w.enough, ETEST_TIMEOUT));
    assert_false(w.canceled);
    assert_int_equal(w.events[0].mod_rev, rev);
    grpc_client_call_cancel(w.call);

    h2_client_free(conn);
    event_base_free(base);
}

/* ---- errors ---- */

static void test_unknown_method(void **state)
{
    struct etcd_sync *s = &sync_client;

    assert_int_equal(etcd_sync_call(s, "/etcdserverpb.KV/NoSuchMethod",
                                    etcd_status_request_encode()),
                     GRPC_STATUS_UNIMPLEMENTED);
    /* The connection is still usable. */
    assert_true(etcd_sync_put(s, "/after/unknown", "ok") > 0);
}

static void test_bad_request(void **state)
{
    struct etcd_sync *s = &sync_client;
    struct etcd_put_request req = {.key = "", .key_len = 0};

    /* etcd refuses an empty key with INVALID_ARGUMENT and a message. */
    assert_int_equal(
        etcd_sync_call(s, ETCD_PATH_PUT, etcd_put_request_encode(&req)),
        GRPC_STATUS_INVALID_ARGUMENT);
    assert_true(strstr(s->message, "key is not provided") != NULL);
}

struct refused {
    int closed;
    int err;
    int unary_done;
    int unary_status;
};

static void refused_close_cb(struct h2_client *c, int err, void *arg)
{
    struct refused *r = arg;

    r->closed = 1;
    r->err = err;
    h2_client_free(c); /* freeing inside its own callback is deferred */
}

static void refused_unary_cb(int status, const char *message,
                             const uint8_t *resp, size_t resp_len, void *arg)
{
    struct refused *r = arg;

    r->unary_done = 1;
    r->unary_status = status;
}

static void test_refused(void **state)
{
    struct event_base *base = event_base_new();
    struct h2_client_callbacks cbs = {NULL, refused_close_cb};
    struct refused r = {0};
    struct h2_client *conn;

    /* Port 1 on loopback: nobody listens there. */
    conn = h2_client_new(base, "127.0.0.1", "1", NULL, &cbs, &r);
    assert_non_null(grpc_client_unary(conn, ETCD_PATH_STATUS, "", 0, 5,
                                      refused_unary_cb, &r));
    assert_true(etest_wait(base, &r.closed, ETEST_TIMEOUT));
    assert_int_equal(r.err, RW_EIO);
    assert_true(r.unary_done);
    assert_int_equal(r.unary_status, GRPC_STATUS_UNAVAILABLE);
    event_base_free(base);
}

/* A server that accepts and then says nothing: the keepalive PING goes
 * unanswered and the connection fails with RW_ETIMEDOUT. */
static void test_keepalive_timeout(void **state)
{
    struct event_base *base = event_base_new();
    struct h2_client_callbacks cbs = {NULL, refused_close_cb};
    struct h2_client_config cfg = {.ping_interval = 0.2};
    struct refused r = {0};
    struct sockaddr_in sin = {0};
    socklen_t len = sizeof(sin);
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    char port[16];
    struct h2_client *conn;
    double start;

    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(ls, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(listen(ls, 4), 0);
    getsockname(ls, (struct sockaddr *)&sin, &len);
    snprintf(port, sizeof(port), "%d", ntohs(sin.sin_port));
    conn = h2_client_new(base, "127.0.0.1", port, &cfg, &cbs, &r);
    /* A pending call: the kernel completes the handshake, nobody answers. */
    assert_non_null(grpc_client_unary(conn, ETCD_PATH_STATUS, "", 0, 0,
                                      refused_unary_cb, &r));
    start = clock_mono_s();
    assert_true(etest_wait(base, &r.closed, 3.0));
    assert_int_equal(r.err, RW_ETIMEDOUT);
    assert_true(clock_mono_s() - start < 1.5);
    assert_true(r.unary_done);
    assert_int_equal(r.unary_status, GRPC_STATUS_UNAVAILABLE);
    close(ls);
    event_base_free(base);
}

/* The transport a connection's configuration names makes its
 * connection (transport_client_fn): a factory that wraps the plain one
 * is called once, and the calls made over its transport succeed. */
static int factory_calls;

static struct transport *counting_client(struct event_base *base, int fd,
                                         void *arg)
{
    factory_calls++;
    assert_ptr_equal(arg, &factory_calls);
    return transport_plain_client(base, fd, NULL);
}

static void test_transport_factory(void **state)
{
    struct event_base *base = event_base_new();
    struct h2_client_callbacks cbs = {NULL, refused_close_cb};
    struct h2_client_config cfg = {.transport = counting_client,
                                   .transport_arg = &factory_calls};
    struct refused r = {0};
    const char *host, *port, *url;
    struct h2_client *conn;

    etest_endpoint(&host, &port, &url);
    factory_calls = 0;
    conn = h2_client_new(base, host, port, &cfg, &cbs, &r);
    assert_non_null(grpc_client_unary(conn, ETCD_PATH_STATUS, "", 0, 5,
                                      refused_unary_cb, &r));
    assert_true(etest_wait(base, &r.unary_done, ETEST_TIMEOUT));
    assert_int_equal(r.unary_status, GRPC_STATUS_OK);
    assert_int_equal(factory_calls, 1);
    h2_client_free(conn);
    event_base_free(base);
}

/* A value of 1 MiB crosses many DATA frames both ways. */
static void test_large_value(void **state)
{
    struct etcd_sync *s = &sync_client;
    size_t n = 1024 * 1024;
    char *big = malloc(n + 1);
    struct etcd_range_response r;

    for (size_t i = 0; i < n; i++)
        big[i] = (char)('a' + i % 26);
    big[n] = '\0';
    assert_true(etcd_sync_put(s, "/big/value", big) > 0);
    assert_int_equal(etcd_sync_range_prefix(s, "/big/", 0, &r), 0);
    assert_int_equal(r.n_kvs, 1);
    assert_int_equal(r.kvs[0].value_len, n);
    assert_memory_equal(r.kvs[0].value, big, n);
    etcd_range_response_fini(&r);
    free(big);
}

static void never_cb(int status, const char *message, const uint8_t *resp,
                     size_t resp_len, void *arg)
{
    fail_msg("callback after cancel");
}

static void test_cancel_unary(void **state)
{
    struct etcd_sync *s = &sync_client;
    struct grpc_call *call;

    call =
        grpc_client_unary(s->conn, ETCD_PATH_STATUS, "", 0, 5, never_cb, NULL);
    assert_non_null(call);
    grpc_client_call_cancel(call);
    etest_run_for(s->base, 0.2);
    /* Still usable afterwards. */
    assert_true(etcd_sync_put(s, "/after/cancel", "ok") > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_put_range_delete),
        cmocka_unit_test(test_txn),
        cmocka_unit_test(test_concurrent_calls),
        cmocka_unit_test(test_watch),
        cmocka_unit_test(test_compacted),
        cmocka_unit_test(test_unknown_method),
        cmocka_unit_test(test_bad_request),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_cancel_unary),
        cmocka_unit_test(test_keepalive_timeout),
        cmocka_unit_test(test_large_value),
        cmocka_unit_test(test_transport_factory),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
