/*
 * upstream_redis_test.c: the Redis upstream adapter (src/upstream_redis.c)
 * against a real redis-server started on a free loopback port with a
 * password (test/redis_testlib.h), through the contract checker every
 * adapter's test uses (test/upstream_contract.h): two targets, "alphas"
 * and "betas", written through the ringwatch Functions library as any
 * writer would.
 *
 * Scenarios: a paged snapshot (2 keys per HSCAN page) while a child process
 * writes, then events in order; progress of an idle resource when another
 * one is written; connections killed (CLIENT KILL) and the log resumed
 * without loss or duplicate; a log trimmed past the cache's revision while
 * disconnected (relist); the store's revision gone back, or rewritten up
 * to the revision served while the adapter was away (history reset,
 * relist); the direct reads; per-resource revisions; malformed log
 * entries and hash values (counted, skipped); a wrong password and a
 * server that is not Redis (fatal at startup); URLs.  At the end of each,
 * the model must equal the hash in Redis and the contract must hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <event2/event.h>
#include <event2/listener.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/redis_functions.h"
#include "src/upstream.h"
#include "src/upstream_redis.h"
#include "test/redis_testlib.h"
#include "test/upstream_contract.h"

#define NRES 2

static struct rtest_server server;
static const char *const names[NRES] = {"alphas", "betas"};
static const char *const prefixes[NRES] = {"/registry/alphas/",
                                           "/registry/betas/"};

struct fixture {
    struct event_base *base;
    int w; /* the writer's connection */
    struct upstream_contract res[NRES];
    struct upstream *u;
    bool per_resource;
    int fatals;
    char fatal_why[512];
};

static void fatal_cb(const char *why, void *arg)
{
    struct fixture *f = arg;

    f->fatals++;
    snprintf(f->fatal_why, sizeof(f->fatal_why), "%s", why);
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

/* ---- the writer ---- */

static bool lenient; /* the churning child: an error reply is an answer */

static long long call_int(int fd, int argc, const char *const *argv)
{
    struct rtest_reply r;
    long long v;

    rtest_call(fd, &r, argc, argv);
    if (lenient && r.type == '-') {
        rtest_reply_fini(&r);
        return -1;
    }
    if (r.type != ':')
        fprintf(stderr, "%s: %c%s\n", argv[0], r.type, r.str ? r.str : "");
    assert_int_equal(r.type, ':');
    v = r.integer;
    rtest_reply_fini(&r);
    return v;
}

static void call_ok(int fd, int argc, const char *const *argv)
{
    struct rtest_reply r;

    rtest_call(fd, &r, argc, argv);
    assert_true(r.type != '-');
    rtest_reply_fini(&r);
}

static void tag_of(const struct fixture *f, int i, char *tag, size_t size)
{
    if (f->per_resource)
        snprintf(tag, size, "{rw:%s}", names[i]);
    else
        snprintf(tag, size, "{rw}");
}

/* rw_put or rw_delete (json NULL) of names[i]'s object name, keeping
 * history log entries; returns the revision. */
static long long wr(const struct fixture *f, int fd, int i, const char *name,
                    const char *json, const char *history)
{
    char tag[32], rev[48], objects[64], log[64], compacted[64], key[96],
        value[256];

    tag_of(f, i, tag, sizeof(tag));
    snprintf(rev, sizeof(rev), "%s:rev", tag);
    snprintf(objects, sizeof(objects), "%s:%s:objects", tag, names[i]);
    snprintf(log, sizeof(log), "%s:%s:log", tag, names[i]);
    snprintf(compacted, sizeof(compacted), "%s:%s:compacted", tag, names[i]);
    snprintf(key, sizeof(key), "%s%s", prefixes[i], name);
    if (json == NULL)
        return call_int(fd, 10,
                        (const char *const[]){"FCALL", "rw_delete", "4", rev,
                                              objects, log, compacted, key, "",
                                              history});
    snprintf(value, sizeof(value), "{\"metadata\":{\"name\":\"%s\"},%s}", name,
             json);
    return call_int(fd, 11,
                    (const char *const[]){"FCALL", "rw_put", "4", rev, objects,
                                          log, compacted, key, value, "",
                                          history});
}

static long long put(struct fixture *f, int i, const char *name,
                     const char *json)
{
    return wr(f, f->w, i, name, json, "1000");
}

static long long del(struct fixture *f, int i, const char *name)
{
    return wr(f, f->w, i, name, NULL, "1000");
}

static long long store_rev(struct fixture *f, int i)
{
    char key[48], tag[32];
    struct rtest_reply r;
    long long v;

    tag_of(f, i, tag, sizeof(tag));
    snprintf(key, sizeof(key), "%s:rev", tag);
    rtest_call(f->w, &r, 2, (const char *const[]){"GET", key});
    v = r.str != NULL ? atoll(r.str) : 0;
    rtest_reply_fini(&r);
    return v;
}

/* ---- fixture ---- */

/* The adapter for the redis-server on port (0: the test's) with password. */
static void fixture_adapter(struct fixture *f, const char *password,
                            uint16_t port)
{
    char url[64];
    struct upstream_target t[NRES];
    struct upstream_config cfg = {
        .page_size = 2,
        .backoff_min = 0.05,
        .backoff_max = 0.2,
        .dial_timeout = 2,
        .progress_interval = 0.2,
        .redis_password = password,
        .redis_per_resource = f->per_resource,
        .redis_history = 1000,
        .fatal = fatal_cb,
        .fatal_arg = f,
    };

    for (int i = 0; i < NRES; i++)
        t[i] = upstream_contract_target(&f->res[i]);
    snprintf(url, sizeof(url), "redis://127.0.0.1:%u",
             port ? port : server.port);
    f->u = upstream_redis_ops.create(f->base, url, t, NRES, &cfg);
    assert_non_null(f->u);
}

static void fixture_start(struct fixture *f, bool per_resource,
                          const char *password, uint16_t port)
{
    memset(f, 0, sizeof(*f));
    f->per_resource = per_resource;
    f->base = event_base_new();
    f->w = rtest_connect(&server);
    call_ok(f->w, 1, (const char *const[]){"FLUSHALL"});
    call_ok(f->w, 4,
            (const char *const[]){"FUNCTION", "LOAD", "REPLACE",
                                  redis_functions_source()});
    for (int i = 0; i < NRES; i++) {
        upstream_contract_init(&f->res[i], prefixes[i]);
        f->res[i].rt.resource = names[i];
    }
    if (port != 1)
        fixture_adapter(f, password, port);
}

static void fixture_stop(struct fixture *f)
{
    upstream_redis_ops.free(f->u);
    for (int i = 0; i < NRES; i++) {
        upstream_contract_freed(&f->res[i]);
        assert_int_equal(f->res[i].violations, 0);
    }
    close(f->w);
    event_base_free(f->base);
}

/* Runs the loop until pred(f) holds, at most RTEST_TIMEOUT seconds. */
static bool wait_for(struct fixture *f, bool (*pred)(struct fixture *))
{
    double deadline = clock_mono_s() + RTEST_TIMEOUT;
    struct timeval tv = {0, 10000};
    struct event *tick = event_new(f->base, -1, EV_PERSIST, tick_cb, NULL);
    bool ok;

    event_add(tick, &tv);
    while (!(ok = pred(f)) && clock_mono_s() < deadline) {
        event_base_loop(f->base, EVLOOP_ONCE);
        for (int i = 0; i < NRES; i++)
            upstream_contract_turn(&f->res[i]);
    }
    event_free(tick);
    return ok;
}

static bool all_up(struct fixture *f)
{
    for (int i = 0; i < NRES; i++)
        if (!f->res[i].up || f->res[i].listing)
            return false;
    return true;
}

/* Starts the adapter; waits until every target is listed and watched. */
static void start_up(struct fixture *f)
{
    upstream_redis_ops.start(f->u);
    assert_true(wait_for(f, all_up));
}

static long long want_rv[NRES];

static bool reached(struct fixture *f)
{
    for (int i = 0; i < NRES; i++)
        if (f->res[i].rv < want_rv[i] || f->res[i].listing)
            return false;
    return true;
}

static void wait_current(struct fixture *f)
{
    for (int i = 0; i < NRES; i++)
        want_rv[i] = store_rev(f, i);
    assert_true(wait_for(f, reached));
}

/* The model of target i equals the hash in Redis. */
static void check_model(struct fixture *f, int i)
{
    struct upstream_contract *c = &f->res[i];
    char tag[32], objects[64];
    struct rtest_reply r;

    tag_of(f, i, tag, sizeof(tag));
    snprintf(objects, sizeof(objects), "%s:%s:objects", tag, names[i]);
    rtest_call(f->w, &r, 2, (const char *const[]){"HGETALL", objects});
    assert_int_equal(r.type, '*');
    assert_int_equal(c->n_model, r.n / 2);
    for (size_t k = 0; k + 1 < r.n; k += 2) {
        struct upstream_contract_kv *e =
            upstream_contract_find(c->model, c->n_model, r.strs[k]);
        char value[UPSTREAM_CONTRACT_TEXT];
        const char *sp = strchr(r.strs[k + 1], ' ');

        assert_non_null(e);
        assert_non_null(sp);
        upstream_contract_copy(value, sp + 1, strlen(sp + 1));
        assert_string_equal(e->value, value);
        assert_int_equal(e->mod_rev, atoll(r.strs[k + 1]));
    }
    rtest_reply_fini(&r);
    assert_int_equal(c->violations, 0);
}

/* ---- scenarios ---- */

/* A child writes alphas while the adapter scans them 2 keys a page. */
static pid_t churn(struct fixture *f, int n)
{
    pid_t pid = fork();

    if (pid == 0) {
        int fd = rtest_connect(&server);
        char name[16];

        lenient = true;
        for (int k = 0; k < n; k++) {
            snprintf(name, sizeof(name), "k%d", (k * 7) % 40);
            if (k % 5 == 4)
                wr(f, fd, 0, name, NULL, "1000"); /* may be absent */
            else
                wr(f, fd, 0, name, "\"v\":1", "1000");
        }
        _exit(0);
    }
    return pid;
}

static void test_snapshot_and_events(void **state)
{
    struct fixture f;
    char name[16];
    int status;

    (void)state;
    fixture_start(&f, false, server.password, 0);
    for (int k = 0; k < 40; k++) {
        snprintf(name, sizeof(name), "k%d", k);
        put(&f, 0, name, "\"v\":0");
    }
    put(&f, 1, "b0", "\"v\":0");
    pid_t child = churn(&f, 150);
    start_up(&f);
    assert_int_equal(waitpid(child, &status, 0), child);
    wait_current(&f);
    check_model(&f, 0);
    check_model(&f, 1);
    assert_int_equal(f.res[0].list_begins, 1);

    /* events: create, update, delete, each once, in order */
    long long r1 = put(&f, 0, "new", "\"v\":1");
    long long r2 = put(&f, 0, "new", "\"v\":2");
    long long r3 = del(&f, 0, "new");
    wait_current(&f);
    size_t n = f.res[0].n_log;
    assert_true(n >= 3);
    assert_int_equal(f.res[0].log[n - 3].rev, r1);
    assert_int_equal(f.res[0].log[n - 2].rev, r2);
    assert_int_equal(f.res[0].log[n - 1].rev, r3);
    assert_int_equal(f.res[0].log[n - 1].kind, UPSTREAM_CONTRACT_DELETE);
    assert_non_null(strstr(f.res[0].log[n - 2].value, "\"v\":2"));
    check_model(&f, 0);
    fixture_stop(&f);
}

/* Never written: listed at revision 1 (the counter starts there, as
 * etcd's), never 0 (no list), and the first write is delivered. */
static void test_empty_store(void **state)
{
    struct fixture f;

    (void)state;
    fixture_start(&f, false, server.password, 0);
    start_up(&f);
    assert_int_equal(f.res[0].list_end_rev, 1);
    assert_int_equal(f.res[1].list_end_rev, 1);
    assert_int_equal(store_rev(&f, 0), 1);
    want_rv[0] = put(&f, 0, "a0", "\"v\":0");
    want_rv[1] = 0;
    assert_int_equal(want_rv[0], 2);
    assert_true(wait_for(&f, reached));
    assert_int_equal(f.res[0].n_log, 1);
    check_model(&f, 0);
    fixture_stop(&f);
}

static bool beta_progressed(struct fixture *f)
{
    return f->res[1].rv >= want_rv[1] && f->res[1].progresses > 0;
}

/* Only alphas are written: betas' revision follows by progress. */
static void test_progress_idle(void **state)
{
    struct fixture f;

    (void)state;
    fixture_start(&f, false, server.password, 0);
    put(&f, 1, "b0", "\"v\":0");
    start_up(&f);
    int before = f.res[1].n_log;
    want_rv[1] = put(&f, 0, "a0", "\"v\":0");
    assert_true(wait_for(&f, beta_progressed));
    assert_int_equal(f.res[1].n_log, before);
    assert_int_equal(f.res[1].last_progress, want_rv[1]);
    fixture_stop(&f);
}

/* Closes the adapter's connections (every client but the writer). */
static void kill_adapter(struct fixture *f)
{
    call_int(f->w, 6,
             (const char *const[]){"CLIENT", "KILL", "TYPE", "normal", "SKIPME",
                                   "yes"});
}

static bool reconnected(struct fixture *f)
{
    return f->res[0].reconnects > 0 && reached(f);
}

static void test_reconnect_resume(void **state)
{
    struct fixture f;

    (void)state;
    fixture_start(&f, false, server.password, 0);
    put(&f, 0, "a0", "\"v\":0");
    start_up(&f);
    kill_adapter(&f);
    put(&f, 0, "a1", "\"v\":1");
    del(&f, 0, "a0");
    want_rv[0] = store_rev(&f, 0);
    want_rv[1] = 0;
    assert_true(wait_for(&f, reconnected));
    assert_int_equal(f.res[0].list_begins, 1); /* resumed, not relisted */
    check_model(&f, 0);
    fixture_stop(&f);
}

static void test_relist_after_trim(void **state)
{
    struct fixture f;
    char name[16];

    (void)state;
    fixture_start(&f, false, server.password, 0);
    put(&f, 0, "a0", "\"v\":0");
    start_up(&f);
    kill_adapter(&f);
    for (int k = 0; k < 10; k++) {
        snprintf(name, sizeof(name), "t%d", k);
        wr(&f, f.w, 0, name, "\"v\":1", "3"); /* the log keeps 3 */
    }
    wait_current(&f);
    assert_int_equal(f.res[0].list_begins, 2);
    assert_int_equal(f.res[0].resets, 0);
    check_model(&f, 0);
    fixture_stop(&f);
}

static bool was_reset(struct fixture *f)
{
    return f->res[0].resets > 0 && f->res[1].resets > 0 && all_up(f) &&
           f->res[0].list_end_rev == want_rv[0];
}

/* The store restarted from an older state: revisions go back. */
static void test_store_went_back(void **state)
{
    struct fixture f;
    char name[16];

    (void)state;
    fixture_start(&f, false, server.password, 0);
    for (int k = 0; k < 5; k++) {
        snprintf(name, sizeof(name), "a%d", k);
        put(&f, 0, name, "\"v\":0");
    }
    start_up(&f);
    call_ok(f.w, 1, (const char *const[]){"FLUSHALL"});
    put(&f, 0, "z", "\"v\":9");
    want_rv[0] = put(&f, 0, "y", "\"v\":9");
    assert_true(want_rv[0] < f.res[0].rv);
    assert_true(wait_for(&f, was_reset));
    check_model(&f, 0);
    check_model(&f, 1);
    fixture_stop(&f);
}

static bool reset_once(struct fixture *f)
{
    return f->res[0].resets == 1 && all_up(f) &&
           f->res[0].list_end_rev >= want_rv[0];
}

/* Rewritten while the adapter was away, up to the very revision served
 * (T:rev alone cannot tell): the log's entry at the last revision served
 * is another change, so the resumed watch would skip or reuse revisions. */
static void test_store_rewritten(void **state)
{
    struct fixture f;

    (void)state;
    fixture_start(&f, false, server.password, 0);
    put(&f, 0, "a0", "\"v\":0");
    put(&f, 0, "a1", "\"v\":0");
    put(&f, 1, "b0", "\"v\":0");
    start_up(&f);
    wait_current(&f);
    int64_t served = f.res[0].rv;
    kill_adapter(&f);
    call_ok(f.w, 1, (const char *const[]){"FLUSHALL"});
    put(&f, 0, "z0", "\"v\":1");
    put(&f, 1, "y0", "\"v\":1");
    want_rv[0] = put(&f, 0, "z1", "\"v\":1");
    assert_int_equal(want_rv[0], served);
    assert_true(wait_for(&f, reset_once));
    assert_int_equal(f.res[1].resets, 1);
    check_model(&f, 0);
    check_model(&f, 1);
    fixture_stop(&f);
}

/* ---- direct reads ---- */

static int read_err = 99;
static bool read_unchanged;
static long long read_rev;

static void probe_cb(int err, const char *why, const struct upstream_probe *p,
                     void *arg)
{
    (void)why;
    (void)arg;
    read_err = err;
    if (p != NULL) {
        read_unchanged = p->unchanged;
        read_rev = p->rev;
    }
}

static void page_cb(int err, const char *why, int64_t rev,
                    const struct upstream_kv *kvs, size_t n, const char *next,
                    size_t next_len, void *arg)
{
    (void)why;
    (void)rev;
    (void)kvs;
    (void)n;
    (void)next;
    (void)next_len;
    (void)arg;
    read_err = err;
}

static bool read_done(struct fixture *f)
{
    (void)f;
    return read_err != 99;
}

static void test_reads(void **state)
{
    struct fixture f;
    const struct upstream_reader *rd;

    (void)state;
    fixture_start(&f, false, server.password, 0);
    put(&f, 0, "a0", "\"v\":0");
    put(&f, 0, "a1", "\"v\":0");
    start_up(&f);
    wait_current(&f);
    rd = f.res[0].reader;
    assert_non_null(rd);

    read_err = 99;
    assert_non_null(rd->probe(rd->ctx, prefixes[0], strlen(prefixes[0]),
                              f.res[0].rv, 2, probe_cb, NULL));
    assert_true(wait_for(&f, read_done));
    assert_int_equal(read_err, RW_OK);
    assert_true(read_unchanged);
    assert_int_equal(read_rev, store_rev(&f, 0));

    int64_t since = f.res[0].rv;
    long long rev = put(&f, 0, "a2", "\"v\":0");
    read_err = 99;
    assert_non_null(rd->probe(rd->ctx, prefixes[0], strlen(prefixes[0]), since,
                              2, probe_cb, NULL));
    assert_true(wait_for(&f, read_done));
    assert_int_equal(read_err, RW_OK);
    assert_false(read_unchanged);
    assert_int_equal(read_rev, rev);

    /* a past revision: 410, never from inside the call */
    read_err = 99;
    assert_non_null(rd->page(rd->ctx, prefixes[0], strlen(prefixes[0]), NULL, 0,
                             since, 10, page_cb, NULL));
    assert_int_equal(read_err, 99);
    assert_true(wait_for(&f, read_done));
    assert_int_equal(read_err, RW_EEXPIRED);

    /* canceled: never called */
    read_err = 99;
    rd->cancel(rd->ctx, rd->probe(rd->ctx, prefixes[0], strlen(prefixes[0]),
                                  since, 2, probe_cb, NULL));
    rd->cancel(rd->ctx, rd->page(rd->ctx, prefixes[0], strlen(prefixes[0]),
                                 NULL, 0, since, 10, page_cb, NULL));
    wait_current(&f);
    struct timeval tv = {0, 300000};
    event_base_loopexit(f.base, &tv);
    event_base_dispatch(f.base);
    assert_int_equal(read_err, 99);
    fixture_stop(&f);
}

/* One loop turn for upstream_contract_writes. */
static void writes_turn(void *arg)
{
    struct fixture *f = arg;
    struct timeval tv = {0, 10000};

    event_base_loopexit(f->base, &tv);
    event_base_loop(f->base, EVLOOP_ONCE);
    for (int i = 0; i < NRES; i++)
        upstream_contract_turn(&f->res[i]);
}

/* The write scenarios every adapter passes (test/upstream_contract.h),
 * over the functions library. */
static void test_writes(void **state)
{
    struct fixture f;

    (void)state;
    fixture_start(&f, false, server.password, 0);
    start_up(&f);
    upstream_contract_writes(&f.res[0], writes_turn, &f);
    fixture_stop(&f);
}

static void test_per_resource(void **state)
{
    struct fixture f;

    (void)state;
    fixture_start(&f, true, server.password, 0);
    put(&f, 0, "a0", "\"v\":0");
    put(&f, 0, "a1", "\"v\":0");
    put(&f, 1, "b0", "\"v\":0");
    assert_int_equal(store_rev(&f, 0), 2);
    assert_int_equal(store_rev(&f, 1), 1);
    start_up(&f);
    assert_int_equal(f.res[0].list_end_rev, 2);
    assert_int_equal(f.res[1].list_end_rev, 1);
    put(&f, 1, "b1", "\"v\":1");
    del(&f, 0, "a0");
    wait_current(&f);
    check_model(&f, 0);
    check_model(&f, 1);
    fixture_stop(&f);
}

static uint64_t malformed(struct fixture *f)
{
    struct upstream_status st;

    upstream_redis_ops.status(f->u, &st);
    return st.malformed;
}

static bool three_malformed(struct fixture *f)
{
    return malformed(f) >= 3 && reached(f);
}

/* Log entries with a wrong ID or without a key, a hash value without its
 * mod revision: counted, skipped, the rest served. */
static void test_malformed(void **state)
{
    struct fixture f;
    char id[32], id2[32], id3[32];

    (void)state;
    fixture_start(&f, false, server.password, 0);
    put(&f, 1, "b0", "\"v\":0");
    call_int(f.w, 4,
             (const char *const[]){"HSET", "{rw}:betas:objects",
                                   "/registry/betas/bad", "no revision"});
    /* the last entry of alphas' log has a malformed ID: still listed,
     * at the counter's revision */
    snprintf(id, sizeof(id), "%lld-3", store_rev(&f, 0));
    call_ok(f.w, 9,
            (const char *const[]){"XADD", "{rw}:alphas:log", id, "type", "PUT",
                                  "key", "/registry/alphas/m", "value", "{}"});
    start_up(&f);
    assert_int_equal(f.res[0].list_end_rev, store_rev(&f, 0));
    assert_int_equal(f.res[0].n_model, 0);
    assert_int_equal(malformed(&f), 1);
    assert_int_equal(f.res[1].n_model, 1);
    long long rev = store_rev(&f, 1);
    snprintf(id, sizeof(id), "%lld-7", rev + 1);
    snprintf(id2, sizeof(id2), "%lld-0", rev + 2);
    snprintf(id3, sizeof(id3), "%lld-0", rev + 3);
    call_ok(f.w, 9,
            (const char *const[]){"XADD", "{rw}:betas:log", id, "type", "PUT",
                                  "key", "/registry/betas/x", "value", "{}"});
    call_ok(
        f.w, 5,
        (const char *const[]){"XADD", "{rw}:betas:log", id2, "type", "PUT"});
    call_ok(f.w, 9,
            (const char *const[]){"XADD", "{rw}:betas:log", id3, "type", "PUT",
                                  "key", "/registry/betas/ok", "value",
                                  "{\"metadata\":{\"name\":\"ok\"}}"});
    want_rv[0] = 0;
    want_rv[1] = rev + 3;
    assert_true(wait_for(&f, three_malformed));
    assert_int_equal(malformed(&f), 3); /* each counted once */
    assert_non_null(upstream_contract_find(f.res[1].model, f.res[1].n_model,
                                           "/registry/betas/ok"));
    assert_null(upstream_contract_find(f.res[1].model, f.res[1].n_model,
                                       "/registry/betas/x"));
    fixture_stop(&f);
}

static bool fatal_seen(struct fixture *f)
{
    return f->fatals > 0;
}

static void http_accept_cb(struct evconnlistener *l, evutil_socket_t fd,
                           struct sockaddr *sa, int len, void *arg)
{
    static const char answer[] = "HTTP/1.1 400 Bad Request\r\n\r\n";

    (void)l;
    (void)sa;
    (void)len;
    (void)arg;
    if (write(fd, answer, sizeof(answer) - 1) < 0)
        fail();
    close(fd);
}

static void test_refused_at_startup(void **state)
{
    struct fixture f;

    (void)state;
    fixture_start(&f, false, "wrong", 0);
    upstream_redis_ops.start(f.u);
    assert_true(wait_for(&f, fatal_seen));
    assert_non_null(strstr(f.fatal_why, "WRONGPASS"));
    fixture_stop(&f);

    /* not Redis on the port (1: no adapter yet) */
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fixture_start(&f, false, NULL, 1);
    struct evconnlistener *l = evconnlistener_new_bind(
        f.base, http_accept_cb, NULL, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE,
        16, (struct sockaddr *)&a, sizeof(a));
    getsockname(evconnlistener_get_fd(l), (struct sockaddr *)&a, &len);
    fixture_adapter(&f, NULL, ntohs(a.sin_port));
    upstream_redis_ops.start(f.u);
    assert_true(wait_for(&f, fatal_seen));
    assert_non_null(strstr(f.fatal_why, "Protocol error"));
    evconnlistener_free(l);
    fixture_stop(&f);
}

static void test_urls(void **state)
{
    char why[256];

    (void)state;
    assert_int_equal(
        upstream_redis_ops.check("redis://127.0.0.1:6379", why, sizeof(why)),
        RW_OK);
    assert_int_equal(upstream_redis_ops.check("redis://a:1, redis://[::1]:7000,"
                                              "redis://b",
                                              why, sizeof(why)),
                     RW_OK);
    assert_int_equal(upstream_redis_ops.check("redis://a/0", why, sizeof(why)),
                     RW_EINVAL);
    assert_non_null(strstr(why, "redis://HOST[:PORT]"));
    assert_int_equal(
        upstream_redis_ops.check("redis://u:p@a:1", why, sizeof(why)),
        RW_EINVAL);
    assert_int_equal(
        upstream_redis_ops.check("redis://a:99999", why, sizeof(why)),
        RW_EINVAL);
    assert_int_equal(
        upstream_redis_ops.check("redis://a:1,http://b:2", why, sizeof(why)),
        RW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urls),
        cmocka_unit_test(test_snapshot_and_events),
        cmocka_unit_test(test_empty_store),
        cmocka_unit_test(test_progress_idle),
        cmocka_unit_test(test_reconnect_resume),
        cmocka_unit_test(test_relist_after_trim),
        cmocka_unit_test(test_store_went_back),
        cmocka_unit_test(test_store_rewritten),
        cmocka_unit_test(test_reads),
        cmocka_unit_test(test_writes),
        cmocka_unit_test(test_per_resource),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_refused_at_startup),
    };
    rtest_start(&server, "pw", NULL);
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rtest_stop(&server);
    return failed;
}
