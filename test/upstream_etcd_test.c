/*
 * upstream_etcd_test.c: the etcd upstream adapter (src/upstream_etcd.c)
 * against a real etcd ($RW_TEST_ETCD, started with 1 s progress
 * notifications by test/integration/upstream_etcd.sh).
 *
 * The target's feed is test/upstream_contract.h's: it keeps a model of
 * the keys (list snapshot, then events) and checks the contract of
 * src/upstream.h as it goes (revisions in order, no duplicate, nothing
 * outside a list or while one is open, batches flushed, nothing after
 * the adapter's free).
 *
 * Scenarios: a paged list (page size 2) at one revision while writes land
 * between pages; watch events in order after the list; progress
 * notifications; a connection severed by a TCP relay inside this test and
 * resumed without loss or duplicates (also with a catch-up larger than
 * etcd's response size limit); a relist when the resume revision was
 * compacted while disconnected; a list restarted when its revision is
 * compacted between pages.  At the end of each, the model must equal
 * etcd's state.  Every wait is bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "src/log.h"
#include "src/upstream.h"
#include "src/upstream_etcd.h"
#include "test/etcd_testlib.h"
#include "test/upstream_contract.h"

/* ==== a TCP relay between the adapter and etcd ==== */

struct pair {
    struct bufferevent *client, *server;
    LIST_ENTRY(pair) link;
};

struct relay {
    struct event_base *base;
    struct evconnlistener *listener;
    struct sockaddr_in target;
    int port;
    LIST_HEAD(, pair) pairs;
    int accepted;
};

static void pair_free(struct relay *rl, struct pair *p)
{
    LIST_REMOVE(p, link);
    bufferevent_free(p->client);
    bufferevent_free(p->server);
    free(p);
}

static struct relay *relay_of; /* the one relay of a test */

static void relay_read_cb(struct bufferevent *bev, void *arg)
{
    struct pair *p = arg;
    struct bufferevent *to = bev == p->client ? p->server : p->client;

    bufferevent_write_buffer(to, bufferevent_get_input(bev));
}

static void relay_event_cb(struct bufferevent *bev, short what, void *arg)
{
    if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
        pair_free(relay_of, arg);
}

static void relay_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
                            struct sockaddr *sa, int len, void *arg)
{
    struct relay *rl = arg;
    struct pair *p = calloc(1, sizeof(*p));

    rl->accepted++;
    p->client = bufferevent_socket_new(rl->base, fd, BEV_OPT_CLOSE_ON_FREE);
    p->server = bufferevent_socket_new(rl->base, -1, BEV_OPT_CLOSE_ON_FREE);
    bufferevent_setcb(p->client, relay_read_cb, NULL, relay_event_cb, p);
    bufferevent_setcb(p->server, relay_read_cb, NULL, relay_event_cb, p);
    bufferevent_enable(p->client, EV_READ | EV_WRITE);
    bufferevent_enable(p->server, EV_READ | EV_WRITE);
    LIST_INSERT_HEAD(&rl->pairs, p, link);
    if (bufferevent_socket_connect(p->server, (struct sockaddr *)&rl->target,
                                   sizeof(rl->target)) != 0)
        pair_free(rl, p);
}

/* Listens on 127.0.0.1:port (0: any free port, remembered). */
static void relay_listen(struct relay *rl)
{
    struct sockaddr_in sin = {0};
    socklen_t len = sizeof(sin);

    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sin.sin_port = htons((uint16_t)rl->port);
    rl->listener =
        evconnlistener_new_bind(rl->base, relay_accept_cb, rl,
                                LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 16,
                                (struct sockaddr *)&sin, sizeof(sin));
    assert_non_null(rl->listener);
    getsockname(evconnlistener_get_fd(rl->listener), (struct sockaddr *)&sin,
                &len);
    rl->port = ntohs(sin.sin_port);
}

static void relay_start(struct relay *rl, struct event_base *base)
{
    const char *host, *port, *url;

    memset(rl, 0, sizeof(*rl));
    LIST_INIT(&rl->pairs);
    etest_endpoint(&host, &port, &url);
    rl->base = base;
    rl->target.sin_family = AF_INET;
    inet_pton(AF_INET, host, &rl->target.sin_addr);
    rl->target.sin_port = htons((uint16_t)atoi(port));
    relay_of = rl;
    relay_listen(rl);
}

/* Cuts every relayed connection and refuses new ones until relay_up. */
static void relay_down(struct relay *rl)
{
    while (!LIST_EMPTY(&rl->pairs))
        pair_free(rl, LIST_FIRST(&rl->pairs));
    if (rl->listener) {
        evconnlistener_free(rl->listener);
        rl->listener = NULL;
    }
}

static void relay_up(struct relay *rl)
{
    relay_listen(rl);
}

static void relay_stop(struct relay *rl)
{
    relay_down(rl);
    relay_of = NULL;
}

/* ==== fixture ==== */

struct fixture {
    struct event_base *base;
    struct etcd_sync writer;
    struct upstream_contract res;
    struct upstream *u;
    struct relay relay;
    bool relayed;
};

static struct fixture *fx; /* for item hooks */

static void fixture_start(struct fixture *f, const char *prefix,
                          size_t page_size, bool relayed)
{
    const char *host, *port, *url;
    char relay_url[64];
    struct upstream_config cfg = {
        .page_size = page_size,
        .backoff_min = 0.05,
        .backoff_max = 0.2,
        .dial_timeout = 2,
        .request_timeout = 10,
    };
    struct upstream_target t;

    memset(f, 0, sizeof(*f));
    fx = f;
    f->base = event_base_new();
    etcd_sync_open(&f->writer);
    upstream_contract_init(&f->res, prefix);
    t = upstream_contract_target(&f->res);
    etest_endpoint(&host, &port, &url);
    f->relayed = relayed;
    if (relayed) {
        relay_start(&f->relay, f->base);
        snprintf(relay_url, sizeof(relay_url), "http://127.0.0.1:%d",
                 f->relay.port);
        url = relay_url;
    }
    f->u = upstream_etcd_ops.create(f->base, url, &t, 1, &cfg);
    assert_non_null(f->u);
}

static void fixture_stop(struct fixture *f)
{
    upstream_etcd_ops.free(f->u);
    upstream_contract_freed(&f->res);
    if (f->relayed)
        relay_stop(&f->relay);
    etcd_sync_close(&f->writer);
    event_base_free(f->base);
    fx = NULL;
}

/* Runs the loop until pred(f) holds, at most seconds. */
static bool wait_for(struct fixture *f, bool (*pred)(struct fixture *),
                     double seconds)
{
    double deadline = clock_mono_s() + seconds;
    struct timeval tv = {0, 10000};
    struct event *tick =
        event_new(f->base, -1, EV_PERSIST, etest_tick_cb, NULL);
    bool ok;

    event_add(tick, &tv);
    while (!(ok = pred(f)) && clock_mono_s() < deadline) {
        event_base_loop(f->base, EVLOOP_ONCE);
        upstream_contract_turn(&f->res);
    }
    event_free(tick);
    return ok;
}

static bool is_up(struct fixture *f)
{
    return f->res.up;
}

static bool is_down(struct fixture *f)
{
    return !f->res.up;
}

static int64_t want_rv;

static bool reached_rv(struct fixture *f)
{
    return f->res.rv >= want_rv && !f->res.listing;
}

static bool up_at_rv(struct fixture *f)
{
    return f->res.up && reached_rv(f);
}

/* The model equals etcd's current state under the prefix. */
static void check_model(struct fixture *f)
{
    struct etcd_range_response r;
    struct upstream_contract *res = &f->res;

    assert_int_equal(etcd_sync_range_prefix(&f->writer, res->prefix, 0, &r), 0);
    assert_int_equal(res->n_model, r.n_kvs);
    for (size_t i = 0; i < r.n_kvs; i++) {
        char key[UPSTREAM_CONTRACT_TEXT], value[UPSTREAM_CONTRACT_TEXT];
        struct upstream_contract_kv *e;

        upstream_contract_copy(key, r.kvs[i].key, r.kvs[i].key_len);
        upstream_contract_copy(value, r.kvs[i].value, r.kvs[i].value_len);
        e = upstream_contract_find(res->model, res->n_model, key);
        assert_non_null(e);
        assert_string_equal(e->value, value);
        assert_int_equal(e->mod_rev, r.kvs[i].mod_revision);
    }
    etcd_range_response_fini(&r);
    assert_int_equal(res->violations, 0);
}

/* ==== scenarios ==== */

static int64_t concurrent_revs[4];

/* Writes between pages: after page 1 (item 2) and page 2 (item 4). */
static void paging_hook(struct upstream_contract *r)
{
    struct etcd_sync *w = &fx->writer;

    if (r->n_pending == 2) {
        concurrent_revs[0] = etcd_sync_put(w, "/t1/k1", "changed");
        concurrent_revs[1] = etcd_sync_put(w, "/t1/new", "n");
        concurrent_revs[2] = etcd_sync_delete(w, "/t1/k5");
    } else if (r->n_pending == 4) {
        concurrent_revs[3] = etcd_sync_put(w, "/t1/k6", "changed6");
    }
}

static void test_paged_list_one_revision(void **state)
{
    struct fixture f;
    struct upstream_contract *r = &f.res;
    int64_t base_rev = 0;
    char key[16], value[16];

    fixture_start(&f, "/t1/", 2, false);
    for (int i = 0; i < 7; i++) {
        snprintf(key, sizeof(key), "/t1/k%d", i);
        snprintf(value, sizeof(value), "v%d", i);
        base_rev = etcd_sync_put(&f.writer, key, value);
        assert_true(base_rev > 0);
    }
    r->item_hook = paging_hook;
    upstream_etcd_ops.start(f.u);
    want_rv = 0;
    assert_true(wait_for(&f, is_up, ETEST_TIMEOUT));
    r->item_hook = NULL;

    /* One list, at the revision of the 7th put, holding exactly the seven
     * original values although four writes landed between its pages. */
    assert_int_equal(r->list_begins, 1);
    assert_int_equal(r->list_ends, 1);
    assert_int_equal(r->list_aborts, 0);
    assert_int_equal(r->list_end_rev, base_rev);
    assert_int_equal(r->n_last_list, 7);
    for (int i = 0; i < 7; i++) {
        snprintf(key, sizeof(key), "/t1/k%d", i);
        snprintf(value, sizeof(value), "v%d", i);
        assert_string_equal(r->last_list[i].key, key);
        assert_string_equal(r->last_list[i].value, value);
        assert_int_equal(r->last_list[i].mod_rev, base_rev - 6 + i);
    }
    assert_true(concurrent_revs[0] > base_rev);

    /* The concurrent writes then come as watch events, in order. */
    want_rv = concurrent_revs[3];
    assert_true(wait_for(&f, reached_rv, ETEST_TIMEOUT));
    assert_int_equal(r->n_log, 4);
    assert_int_equal(r->log[0].kind, UPSTREAM_CONTRACT_PUT);
    assert_string_equal(r->log[0].key, "/t1/k1");
    assert_string_equal(r->log[0].value, "changed");
    assert_int_equal(r->log[0].rev, concurrent_revs[0]);
    assert_string_equal(r->log[1].key, "/t1/new");
    assert_int_equal(r->log[2].kind, UPSTREAM_CONTRACT_DELETE);
    assert_string_equal(r->log[2].key, "/t1/k5");
    assert_int_equal(r->log[2].rev, concurrent_revs[2]);
    assert_string_equal(r->log[3].value, "changed6");
    assert_true(r->flushes >= 1);
    check_model(&f);
    fixture_stop(&f);
}

static void test_watch_events(void **state)
{
    struct fixture f;
    struct upstream_contract *r = &f.res;
    struct upstream_status st;
    char key[16], value[16];
    int64_t last = 0;

    fixture_start(&f, "/t2/", 0, false);
    upstream_etcd_ops.start(f.u);
    assert_true(wait_for(&f, is_up, ETEST_TIMEOUT));
    assert_int_equal(r->n_last_list, 0);
    for (int i = 0; i < 30; i++) {
        snprintf(key, sizeof(key), "/t2/k%d", i % 10);
        snprintf(value, sizeof(value), "v%d", i);
        last = etcd_sync_put(&f.writer, key, value);
    }
    for (int i = 0; i < 10; i += 3) {
        snprintf(key, sizeof(key), "/t2/k%d", i);
        last = etcd_sync_delete(&f.writer, key);
    }
    assert_true(etcd_sync_put(&f.writer, "/t2x/outside", "no") > 0);
    want_rv = last;
    assert_true(wait_for(&f, reached_rv, ETEST_TIMEOUT));
    assert_int_equal(r->n_log, 34);
    for (size_t i = 1; i < r->n_log; i++)
        assert_true(r->log[i].rev == r->log[i - 1].rev + 1);
    assert_int_equal(r->log[33].kind, UPSTREAM_CONTRACT_DELETE);
    check_model(&f);

    upstream_etcd_ops.status(f.u, &st);
    assert_true(st.connected);
    assert_true(strncmp(st.version, "3.", 2) == 0);
    assert_int_equal(st.connects, 1);
    assert_int_equal(st.reconnects, 0);
    assert_int_equal(st.watching, 1);
    assert_int_equal(st.resources, 1);
    fixture_stop(&f);
}

static bool progressed(struct fixture *f)
{
    return f->res.progresses > 0 && f->res.last_progress >= want_rv;
}

static void test_progress_notify(void **state)
{
    struct fixture f;
    struct upstream_contract *r = &f.res;

    fixture_start(&f, "/t3/", 0, false);
    upstream_etcd_ops.start(f.u);
    assert_true(wait_for(&f, is_up, ETEST_TIMEOUT));
    /* The store moves on elsewhere; the watch learns it has nothing up to
     * that revision from a progress notification (interval 1 s). */
    want_rv = etcd_sync_put(&f.writer, "/t3x/elsewhere", "1");
    assert_true(want_rv > r->rv);
    assert_true(wait_for(&f, progressed, 5.0));
    assert_true(r->rv >= want_rv);
    assert_int_equal(r->n_log, 0);
    assert_true(r->flushes >= 1);
    assert_int_equal(r->violations, 0);
    fixture_stop(&f);
}

static bool reconnected_at_rv(struct fixture *f)
{
    return f->res.reconnects > 0 && up_at_rv(f);
}

static void test_reconnect_resume(void **state)
{
    struct fixture f;
    struct upstream_contract *r = &f.res;
    struct upstream_status st;
    int64_t before;

    fixture_start(&f, "/t4/", 0, true);
    etcd_sync_put(&f.writer, "/t4/a", "1");
    upstream_etcd_ops.start(f.u);
    assert_true(wait_for(&f, is_up, ETEST_TIMEOUT));
    want_rv = etcd_sync_put(&f.writer, "/t4/b", "1");
    assert_true(wait_for(&f, reached_rv, ETEST_TIMEOUT));
    before = r->n_log;

    /* Sever the connection and keep etcd out of reach while it changes. */
    relay_down(&f.relay);
    assert_true(wait_for(&f, is_down, ETEST_TIMEOUT));
    etcd_sync_put(&f.writer, "/t4/a", "2");
    etcd_sync_put(&f.writer, "/t4/c", "1");
    etcd_sync_delete(&f.writer, "/t4/b");
    want_rv = etcd_sync_put(&f.writer, "/t4/c", "2");
    etest_run_for(f.base, 0.5); /* a few refused attempts */
    assert_false(r->up);
    relay_up(&f.relay);

    assert_true(wait_for(&f, reconnected_at_rv, ETEST_TIMEOUT));
    assert_int_equal(r->list_begins, 1); /* resumed, not relisted */
    assert_int_equal(r->reconnects, 1);
    assert_int_equal(r->n_log, before + 4);
    assert_string_equal(r->log[before].value, "2");
    assert_int_equal(r->log[before + 2].kind, UPSTREAM_CONTRACT_DELETE);
    check_model(&f);
    upstream_etcd_ops.status(f.u, &st);
    assert_true(st.connected);
    assert_int_equal(st.connects, 2);
    assert_int_equal(st.reconnects, 1);
    assert_true(st.connect_failures >= 1);
    fixture_stop(&f);
}

/* A catch-up far larger than etcd's 1.5 MiB response size limit: with
 * fragment=true it comes in pieces, all applied, none lost. */
static void test_large_catch_up(void **state)
{
    struct fixture f;
    struct upstream_contract *r = &f.res;
    size_t n = 1000 * 1000;
    char *big = malloc(n + 1);
    int flushes;

    fixture_start(&f, "/t7/", 0, true);
    upstream_etcd_ops.start(f.u);
    assert_true(wait_for(&f, is_up, ETEST_TIMEOUT));
    relay_down(&f.relay);
    assert_true(wait_for(&f, is_down, ETEST_TIMEOUT));
    for (int i = 0; i < 6; i++) {
        memset(big, 'a' + i, n);
        big[n] = '\0';
        want_rv = etcd_sync_put(&f.writer, "/t7/big", big);
        assert_true(want_rv > 0);
    }
    flushes = r->flushes;
    relay_up(&f.relay);
    assert_true(wait_for(&f, up_at_rv, ETEST_TIMEOUT));
    assert_int_equal(r->n_log, 6);
    assert_int_equal(r->log[5].value[0], 'f');
    print_message("catch-up of 6 x 2 MB arrived in %d responses\n",
                  r->flushes - flushes);
    check_model(&f);
    free(big);
    fixture_stop(&f);
}

static bool relisted(struct fixture *f)
{
    return f->res.list_ends >= 2 && up_at_rv(f);
}

static void test_relist_after_compaction(void **state)
{
    struct fixture f;
    struct upstream_contract *r = &f.res;
    int64_t rev;

    fixture_start(&f, "/t5/", 2, true);
    etcd_sync_put(&f.writer, "/t5/a", "1");
    etcd_sync_put(&f.writer, "/t5/b", "1");
    etcd_sync_put(&f.writer, "/t5/c", "1");
    upstream_etcd_ops.start(f.u);
    assert_true(wait_for(&f, is_up, ETEST_TIMEOUT));
    assert_int_equal(r->list_ends, 1);

    relay_down(&f.relay);
    assert_true(wait_for(&f, is_down, ETEST_TIMEOUT));
    etcd_sync_put(&f.writer, "/t5/a", "2");
    etcd_sync_delete(&f.writer, "/t5/b");
    etcd_sync_put(&f.writer, "/t5/d", "1");
    rev = etcd_sync_put(&f.writer, "/t5/e", "1");
    assert_int_equal(etcd_sync_compact(&f.writer, rev), 0);
    relay_up(&f.relay);

    /* Resume from rv + 1 < the compaction: canceled, so relisted. */
    want_rv = rev;
    assert_true(wait_for(&f, relisted, ETEST_TIMEOUT));
    assert_int_equal(r->list_begins, 2);
    assert_int_equal(r->list_ends, 2);
    assert_true(r->list_end_rev >= rev);
    assert_int_equal(r->n_last_list, 4); /* a, c, d, e */
    check_model(&f);

    /* And it keeps watching after the relist. */
    want_rv = etcd_sync_put(&f.writer, "/t5/f", "1");
    assert_true(wait_for(&f, reached_rv, ETEST_TIMEOUT));
    check_model(&f);
    fixture_stop(&f);
}

static bool compact_hook_done;

/* After the first page: write, then compact away the list's revision. */
static void compact_hook(struct upstream_contract *r)
{
    int64_t rev;

    if (compact_hook_done || r->n_pending != 2)
        return;
    compact_hook_done = true;
    rev = etcd_sync_put(&fx->writer, "/t6/z", "late");
    assert_int_equal(etcd_sync_compact(&fx->writer, rev), 0);
}

static bool listed(struct fixture *f)
{
    return f->res.list_ends > 0 && f->res.up;
}

static void test_compacted_while_paging(void **state)
{
    struct fixture f;
    struct upstream_contract *r = &f.res;
    char key[16];

    fixture_start(&f, "/t6/", 2, false);
    for (int i = 0; i < 6; i++) {
        snprintf(key, sizeof(key), "/t6/k%d", i);
        etcd_sync_put(&f.writer, key, "v");
    }
    compact_hook_done = false;
    r->item_hook = compact_hook;
    upstream_etcd_ops.start(f.u);
    assert_true(wait_for(&f, listed, ETEST_TIMEOUT));
    r->item_hook = NULL;
    /* Page 2 at the compacted revision failed (OUT_OF_RANGE): the list
     * was aborted and restarted at a new revision. */
    assert_true(compact_hook_done);
    assert_int_equal(r->list_aborts, 1);
    assert_int_equal(r->list_begins, 2);
    assert_int_equal(r->list_ends, 1);
    assert_int_equal(r->n_last_list, 7);
    check_model(&f);
    fixture_stop(&f);
}

/* ==== direct reads (src/upstream.h) ==== */

struct read_outcome {
    bool done;
    int err;
    struct upstream_probe probe;
    char keys[256]; /* page: "key=value@rev " ... */
    char next[64];  /* page: the next page's cursor */
    size_t next_len;
    bool more;
};

static bool read_done(struct fixture *f)
{
    return ((struct read_outcome *)f->res.item_hook_arg)->done;
}

static void probe_cb(int err, const char *why, const struct upstream_probe *p,
                     void *arg)
{
    struct read_outcome *o = arg;

    o->done = true;
    o->err = err;
    if (p != NULL)
        o->probe = *p;
}

static void page_cb(int err, const char *why, int64_t rev,
                    const struct upstream_kv *kvs, size_t n, const char *next,
                    size_t next_len, void *arg)
{
    struct read_outcome *o = arg;
    size_t at = 0;

    o->done = true;
    o->err = err;
    o->more = next != NULL;
    if (next != NULL) {
        assert_true(next_len <= sizeof(o->next));
        memcpy(o->next, next, next_len);
        o->next_len = next_len;
    }
    o->keys[0] = '\0';
    for (size_t i = 0; i < n; i++)
        at += snprintf(o->keys + at, sizeof(o->keys) - at, "%.*s=%.*s@%lld ",
                       (int)kvs[i].key_len, kvs[i].key, (int)kvs[i].value_len,
                       (const char *)kvs[i].value, (long long)kvs[i].mod_rev);
}

static void do_probe(struct fixture *f, int64_t since, size_t count,
                     struct read_outcome *o)
{
    const struct upstream_reader *rd = f->res.reader;

    memset(o, 0, sizeof(*o));
    f->res.item_hook_arg = o;
    assert_non_null(rd->probe(rd->ctx, "/t9/", 4, since, count, probe_cb, o));
    assert_false(o->done); /* never before returning */
    assert_true(wait_for(f, read_done, ETEST_TIMEOUT));
}

/* A page from cursor (NULL: the first; copied before o is reset). */
static void do_page(struct fixture *f, const char *cursor, size_t cursor_len,
                    int64_t rev, size_t limit, struct read_outcome *o)
{
    const struct upstream_reader *rd = f->res.reader;
    char from[64];

    assert_true(cursor_len <= sizeof(from));
    if (cursor != NULL)
        memcpy(from, cursor, cursor_len);
    memset(o, 0, sizeof(*o));
    f->res.item_hook_arg = o;
    assert_non_null(rd->page(rd->ctx, "/t9/", 4, cursor ? from : NULL,
                             cursor_len, rev, limit, page_cb, o));
    assert_true(wait_for(f, read_done, ETEST_TIMEOUT));
}

/* The probe tells "the keys under the prefix are still the caller's at s"
 * exactly (a write after s, a key more or less: changed); pages read the
 * past, from the cursor the last one handed out; compacted and future
 * revisions are told apart. */
/* One loop turn for upstream_contract_writes. */
static void writes_turn(void *arg)
{
    struct fixture *f = arg;
    struct timeval tv = {0, 10000};

    event_base_loopexit(f->base, &tv);
    event_base_loop(f->base, EVLOOP_ONCE);
    upstream_contract_turn(&f->res);
}

/* The write scenarios every adapter passes (test/upstream_contract.h),
 * as Txns. */
static void test_writes(void **state)
{
    struct fixture f;

    (void)state;
    fixture_start(&f, "/tw/", 0, false);
    upstream_etcd_ops.start(f.u);
    assert_true(wait_for(&f, is_up, ETEST_TIMEOUT));
    upstream_contract_writes(&f.res, writes_turn, &f);
    fixture_stop(&f);
}

static void test_reads(void **state)
{
    struct fixture f;
    struct read_outcome o;
    int64_t r1, r2, r3, r4;
    char want[256];

    fixture_start(&f, "/t9/", 0, false);
    r1 = etcd_sync_put(&f.writer, "/t9/a", "1");
    r2 = etcd_sync_put(&f.writer, "/t9/b", "2");
    upstream_etcd_ops.start(f.u);
    assert_non_null(f.res.reader);
    assert_true(wait_for(&f, is_up, ETEST_TIMEOUT));

    do_probe(&f, r2, 2, &o);
    assert_int_equal(o.err, RW_OK);
    assert_true(o.probe.unchanged);
    assert_true(o.probe.rev >= r2);
    do_probe(&f, r2, 3, &o);
    assert_false(o.probe.unchanged); /* the caller holds a key more */
    /* Writes elsewhere move the revision, not the verdict. */
    r3 = etcd_sync_put(&f.writer, "/t9x/elsewhere", "x");
    do_probe(&f, r2, 2, &o);
    assert_true(o.probe.unchanged);
    assert_int_equal(o.probe.rev, r3);
    do_probe(&f, r1, 2, &o);
    assert_false(o.probe.unchanged); /* b at r2 > r1 */
    r4 = etcd_sync_delete(&f.writer, "/t9/a");
    do_probe(&f, r3, 2, &o);
    assert_false(o.probe.unchanged); /* a delete shows in the count */
    assert_int_equal(o.probe.rev, r4);
    do_probe(&f, r3, 1, &o);
    assert_true(o.probe.unchanged);

    /* The past, in pages, each from the last one's cursor. */
    do_page(&f, NULL, 0, r2, 1, &o);
    assert_int_equal(o.err, RW_OK);
    snprintf(want, sizeof(want), "/t9/a=1@%lld ", (long long)r1);
    assert_string_equal(o.keys, want);
    assert_true(o.more);
    do_page(&f, o.next, o.next_len, r2, 1, &o);
    snprintf(want, sizeof(want), "/t9/b=2@%lld ", (long long)r2);
    assert_string_equal(o.keys, want);
    assert_false(o.more);
    do_page(&f, NULL, 0, r2, 0, &o);
    snprintf(want, sizeof(want), "/t9/a=1@%lld /t9/b=2@%lld ", (long long)r1,
             (long long)r2);
    assert_string_equal(o.keys, want);
    assert_false(o.more);
    do_page(&f, NULL, 0, r4 + 100, 0, &o);
    assert_int_equal(o.err, RW_EFUTURE);
    assert_int_equal(etcd_sync_compact(&f.writer, r4), 0);
    do_page(&f, NULL, 0, r2, 0, &o);
    assert_int_equal(o.err, RW_EEXPIRED);
    fixture_stop(&f);
    assert_int_equal(f.res.violations, 0);
}

static void test_bad_url(void **state)
{
    struct event_base *base = event_base_new();
    struct upstream_contract r;
    struct upstream_target t;

    upstream_contract_init(&r, "/x/");
    t = upstream_contract_target(&r);
    assert_null(upstream_etcd_ops.create(
        base, "https://127.0.0.1:2379,http://127.0.0.1:2380", &t, 1, NULL));
    assert_null(upstream_etcd_ops.create(base, "127.0.0.1:2379", &t, 1, NULL));
    assert_null(
        upstream_etcd_ops.create(base, "http://127.0.0.1", &t, 1, NULL));
    upstream_etcd_ops.free(NULL);
    assert_int_equal(r.violations, 0);
    event_base_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_url),
        cmocka_unit_test(test_paged_list_one_revision),
        cmocka_unit_test(test_watch_events),
        cmocka_unit_test(test_progress_notify),
        cmocka_unit_test(test_reconnect_resume),
        cmocka_unit_test(test_large_catch_up),
        cmocka_unit_test(test_relist_after_compaction),
        cmocka_unit_test(test_compacted_while_paging),
        cmocka_unit_test(test_reads),
        cmocka_unit_test(test_writes),
    };

    log_init(LOG_INFO, "upstream_etcd_test");
    return cmocka_run_group_tests(tests, NULL, NULL);
}
