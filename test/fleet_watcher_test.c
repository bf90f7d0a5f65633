/*
 * fleet_watcher_test.c: the watchers' verification (src/fleet/watcher.c,
 * with its oracle checks, verify.c, and its line cache, line_cache.c)
 * without any network: a fake oracle (the two functions verify.c calls)
 * holds the changes, and responses are fed in as a transport would, cut
 * at arbitrary byte boundaries.  Covers the reflector's request sequence
 * (leader LIST, release, WATCH from R0, relist after ERROR 410), every
 * counter (lost, duplicated, out of order, unexpected, wrong type,
 * bookmark regressions, view anomalies, parse and HTTP errors), checks
 * that wait for a lagging oracle, the final view comparison, and the line
 * cache (one scan per distinct line, eviction).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/fleet/verify.c"
#include "src/fleet/line_cache.c"
#include "src/fleet/watcher.c"

/* ---- the fake oracle ---- */

struct oracle {
    int64_t known;
    struct oracle_entry e[64];
    size_t n;
};

int64_t oracle_known_rv(const struct oracle *o)
{
    return o->known;
}

const struct oracle_entry *oracle_entry(const struct oracle *o, size_t i)
{
    rw_assert(i < o->n);
    return &o->e[i];
}

/* ---- fixture ---- */

struct fixture {
    struct keys *keys;
    struct filter *f;
    struct oracle o;
    struct histogram *lat;
    struct watcher_set *ws;
    int lists_ready;
};

static void list_ready_cb(struct filter *f, void *arg)
{
    struct fixture *fx = arg;

    fx->lists_ready++;
}

static int setup(void **state)
{
    struct fixture *fx = xcalloc(1, sizeof(*fx));
    const struct resource_type *rt = resource_type_find("pods");
    struct watcher_set_config cfg = {0};
    char why[128];

    fx->keys = keys_new();
    fx->f = filter_new(0, rt, NULL, NULL, why, sizeof(why));
    fx->lat = xmalloc(sizeof(*fx->lat));
    histogram_init(fx->lat);
    cfg.rt = rt;
    cfg.collection = "/api/v1/pods";
    cfg.keys = fx->keys;
    cfg.oracle = &fx->o;
    cfg.latency = fx->lat;
    cfg.on_list_ready = list_ready_cb;
    cfg.arg = fx;
    fx->ws = watcher_set_new(&cfg, 4);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;

    watcher_set_free(fx->ws);
    filter_free(fx->f);
    keys_free(fx->keys);
    free(fx->lat);
    free(fx);
    return 0;
}

/* A change in the fake oracle (every watcher's filter matches all). */
static void change(struct fixture *fx, int64_t rv, const char *key,
                   enum event_type type)
{
    struct oracle_entry *e = &fx->o.e[fx->o.n];

    e->rv = rv;
    e->key = keys_intern(fx->keys, "", 0, key, strlen(key));
    e->deleted = type == EVENT_DELETED;
    e->written_at = -1;
    filter_expect(fx->f, (uint32_t)fx->o.n++, type);
}

static uint64_t rng = 7;

/* Feeds text to w in random slices. */
static void feed(struct watcher *w, const char *text)
{
    size_t len = strlen(text), off = 0;

    while (off < len) {
        size_t n;

        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        n = 1 + (size_t)((rng >> 33) % 40);
        n = RW_MIN(n, len - off);
        watcher_data(w, text + off, n, 1000000000);
        off += n;
    }
}

static char *event(const char *type, const char *ns, const char *name,
                   int64_t rv, int64_t written_at)
{
    return xasprintf("{\"type\":\"%s\",\"object\":{\"kind\":\"Pod\","
                     "\"metadata\":{\"name\":\"%s\",\"namespace\":\"%s\","
                     "\"resourceVersion\":\"%lld\",\"annotations\":{"
                     "\"ringwatch.io/written-at\":\"%lld\"}},\"spec\":{"
                     "\"containers\":[{\"name\":\"c\"}]}}}\n",
                     type, name, ns, (long long)rv, (long long)written_at);
}

static void feed_event(struct watcher *w, const char *type, const char *name,
                       int64_t rv)
{
    char *line = event(type, "ns", name, rv, 999000000);

    feed(w, line);
    free(line);
}

static enum watcher_next next(struct watcher *w, char *path)
{
    double delay = 0;

    return watcher_next(w, path, 256, &delay);
}

#define LIST_AB                                                                \
    "{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{"               \
    "\"resourceVersion\":\"10\"},\"items\":[{\"metadata\":{\"name\":\"a\","    \
    "\"namespace\":\"ns\",\"resourceVersion\":\"5\"}},{\"metadata\":{"         \
    "\"name\":\"b\",\"namespace\":\"ns\",\"resourceVersion\":\"7\"}}]}"

/* Leader LISTs at 10, both watchers start watching from it. */
static void start_two(struct fixture *fx, struct watcher **w0,
                      struct watcher **w1)
{
    char path[256];

    *w0 = watcher_set_add(fx->ws, fx->f);
    *w1 = watcher_set_add(fx->ws, fx->f);
    assert_int_equal(next(*w0, path), WATCHER_GET);
    assert_string_equal(path, "/api/v1/pods?resourceVersion=0");
    assert_int_equal(next(*w1, path), WATCHER_IDLE);
    watcher_begin(*w0, 200);
    feed(*w0, LIST_AB);
    watcher_end(*w0, true);
    assert_int_equal(fx->lists_ready, 1);
    assert_true(fx->f->ready && fx->f->r0 == 10);
    assert_int_equal(view_count(&fx->f->s0), 2);
    assert_int_equal(next(*w0, path), WATCHER_IDLE); /* not released */
    watcher_set_release(fx->ws);
    for (int i = 0; i < 2; i++) {
        struct watcher *w = i ? *w1 : *w0;

        assert_int_equal(next(w, path), WATCHER_GET);
        assert_string_equal(path, "/api/v1/pods?watch=true&"
                                  "allowWatchBookmarks=true&"
                                  "resourceVersion=10");
        watcher_begin(w, 200);
    }
}

static void test_counts_every_fault(void **state)
{
    struct fixture *fx = *state;
    struct watcher *w0, *w1;
    struct watcher_totals t;

    start_two(fx, &w0, &w1);
    change(fx, 11, "ns/a", EVENT_MODIFIED);
    change(fx, 12, "ns/b", EVENT_MODIFIED);
    change(fx, 13, "ns/c", EVENT_ADDED);
    change(fx, 14, "ns/a", EVENT_DELETED);
    fx->o.known = 20; /* a progress notification: nothing else up to 20 */
    watcher_set_advance(fx->ws);

    /* w0: exactly right. */
    feed_event(w0, "MODIFIED", "a", 11);
    feed_event(w0, "MODIFIED", "b", 12);
    feed_event(w0, "ADDED", "c", 13);
    feed_event(w0, "DELETED", "a", 14);
    /* w1: duplicate, gap, out of order, wrong type, unexpected, junk. */
    feed_event(w1, "MODIFIED", "a", 11);
    feed_event(w1, "MODIFIED", "a", 11);
    feed_event(w1, "ADDED", "c", 13);
    feed_event(w1, "MODIFIED", "b", 12);
    feed_event(w1, "MODIFIED", "a", 14);
    feed_event(w1, "ADDED", "zz", 15);
    feed(w1, "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{"
             "\"resourceVersion\":\"9\"}}}\nnot json\n\n");
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.delivered, 10);
    assert_int_equal(t.events[EVENT_MODIFIED], 6);
    assert_int_equal(t.matched, 4 + 3);
    assert_int_equal(t.lost, 1);
    assert_int_equal(t.duplicated, 1);
    assert_int_equal(t.out_of_order, 1);
    assert_int_equal(t.wrong_type, 1);
    assert_int_equal(t.unexpected, 1);
    assert_int_equal(t.bookmark_regressions, 1);
    assert_int_equal(t.parse_errors, 1);
    assert_int_equal(t.view_anomalies, 0);
    assert_int_equal(t.watching, 2);
    /* Every accepted ADDED and MODIFIED has a latency (DELETED ones take
     * the oracle's stamp, which these changes lack). */
    assert_int_equal(fx->lat->count, 3 + 4);
    assert_true(watcher_set_caught_up(fx->ws, 14));

    /* Final state: a deleted, b at 12, c at 13. */
    view_put(&fx->f->final, keys_find(fx->keys, "ns", 2, "b", 1), 12);
    view_put(&fx->f->final, keys_find(fx->keys, "ns", 2, "c", 1), 13);
    watcher_set_finish(fx->ws, 14);
    assert_int_equal(watcher_set_check_views(fx->ws), 1);
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.lost, 1);
    assert_int_equal(t.mismatched_views, 1);
}

static void test_waits_for_the_oracle(void **state)
{
    struct fixture *fx = *state;
    struct watcher *w0, *w1;
    struct watcher_totals t;

    start_two(fx, &w0, &w1);
    /* The watchers are ahead of the oracle. */
    feed_event(w0, "MODIFIED", "a", 11);
    feed_event(w0, "ADDED", "c", 13);
    feed(w1, "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{"
             "\"resourceVersion\":\"13\"}}}\n");
    assert_false(watcher_set_caught_up(fx->ws, 13));
    change(fx, 11, "ns/a", EVENT_MODIFIED);
    fx->o.known = 11;
    watcher_set_advance(fx->ws);
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.matched, 1);
    change(fx, 12, "ns/b", EVENT_MODIFIED);
    change(fx, 13, "ns/c", EVENT_ADDED);
    fx->o.known = 13;
    watcher_set_advance(fx->ws);
    watcher_set_totals(fx->ws, &t);
    /* w0 passed over 12.  w1's bookmark at 13 was taken when the oracle
     * knew nothing: its three misses count at the end. */
    assert_int_equal(t.matched, 2);
    assert_int_equal(t.lost, 1);
    assert_int_equal(t.bookmarks, 1);
    assert_true(watcher_set_caught_up(fx->ws, 13));
    assert_false(watcher_set_caught_up(fx->ws, 14));
    assert_int_equal(watcher_set_lagging(fx->ws, 14), 2);
    /* A bookmark with the oracle at 13: what w1 lacks up to 13 is lost. */
    feed(w1, "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{"
             "\"resourceVersion\":\"14\"}}}\n");
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.lost, 1 + 3);

    /* A check still waiting at the end is unverified, not lost. */
    feed_event(w0, "MODIFIED", "a", 20);
    watcher_set_finish(fx->ws, 13);
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.unverified, 1);
    assert_int_equal(t.lost, 4);
}

static void test_relist_after_410(void **state)
{
    struct fixture *fx = *state;
    struct watcher *w0, *w1;
    struct watcher_totals t;
    char path[256];

    start_two(fx, &w0, &w1);
    change(fx, 11, "ns/a", EVENT_MODIFIED);
    change(fx, 12, "ns/b", EVENT_DELETED);
    change(fx, 13, "ns/a", EVENT_MODIFIED);
    fx->o.known = 13;
    watcher_set_advance(fx->ws);
    feed(w0, "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\","
             "\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
             "\"message\":\"too old resource version: 10 (12)\",\"reason\":"
             "\"Expired\",\"code\":410}}\n");
    feed_event(w0, "MODIFIED", "a", 11); /* ignored after ERROR */
    watcher_end(w0, true);
    assert_int_equal(next(w0, path), WATCHER_GET);
    assert_string_equal(path, "/api/v1/pods?");
    watcher_begin(w0, 200);
    feed(w0, "{\"metadata\":{\"resourceVersion\":\"12\"},\"items\":[{"
             "\"metadata\":{\"name\":\"a\",\"namespace\":\"ns\","
             "\"resourceVersion\":\"11\"}}]}");
    watcher_end(w0, true);
    assert_int_equal(next(w0, path), WATCHER_GET);
    assert_non_null(strstr(path, "resourceVersion=12"));
    watcher_begin(w0, 200);
    feed_event(w0, "MODIFIED", "a", 13);
    /* w1: HTTP 410 on its watch, then a failing LIST, then fine. */
    watcher_end(w1, false);
    assert_int_equal(next(w1, path), WATCHER_BACKOFF);
    assert_int_equal(next(w1, path), WATCHER_GET);
    watcher_begin(w1, 410);
    feed(w1, "{\"kind\":\"Status\",\"code\":410}");
    watcher_end(w1, true);
    assert_int_equal(next(w1, path), WATCHER_GET);
    assert_string_equal(path, "/api/v1/pods?");
    watcher_begin(w1, 500);
    feed(w1, "{\"kind\":\"Status\",\"message\":\"boom\",\"code\":500}");
    watcher_end(w1, true);
    assert_int_equal(next(w1, path), WATCHER_BACKOFF);
    assert_int_equal(next(w1, path), WATCHER_GET);
    assert_string_equal(path, "/api/v1/pods?");

    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.expired_410, 2);
    assert_int_equal(t.relists, 1);
    assert_int_equal(t.lists, 2);
    assert_int_equal(t.matched, 1);
    assert_int_equal(t.lost, 0); /* 11 and 12 were before the relist */
    assert_int_equal(t.http_errors, 1);
    assert_int_equal(t.transport_errors, 1);
    assert_int_equal(t.watching, 1);
    assert_true(view_get(&w0->view, keys_find(fx->keys, "ns", 2, "a", 1)) ==
                13);
}

static void test_long_lines_and_anomalies(void **state)
{
    struct fixture *fx = *state;
    struct watcher *w0, *w1;
    struct watcher_totals t;
    char *big = xmalloc(200000), *line;

    start_two(fx, &w0, &w1);
    memset(big, 'x', 199999);
    big[199999] = '\0';
    line = xasprintf("{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{"
                     "\"name\":\"a\",\"namespace\":\"ns\","
                     "\"resourceVersion\":\"11\"},\"data\":\"%s\"}}\n",
                     big);
    change(fx, 11, "ns/a", EVENT_MODIFIED);
    change(fx, 12, "ns/new", EVENT_ADDED);
    fx->o.known = 12;
    watcher_set_advance(fx->ws);
    feed(w0, line);
    assert_int_equal(w0->buf_cap, 0);      /* a large buffer is given back */
    feed_event(w0, "MODIFIED", "new", 12); /* absent: anomaly */
    feed_event(w1, "MODIFIED", "a", 11);
    feed_event(w1, "ADDED", "a", 12); /* present: anomaly, unexpected */
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.matched, 3);
    assert_int_equal(t.wrong_type, 1);
    assert_int_equal(t.unexpected, 1);
    assert_int_equal(t.view_anomalies, 2);
    /* A stream that ends inside a line. */
    feed(w1, "{\"type\":\"ADD");
    watcher_end(w1, true);
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.parse_errors, 1);
    assert_int_equal(t.rewatches, 1);
    free(line);
    free(big);
}

static void test_without_oracle(void **state)
{
    struct fixture *fx = *state;
    struct watcher *w0, *w1;
    struct watcher_totals t;

    fx->ws->verify->cfg.oracle = NULL;
    start_two(fx, &w0, &w1);
    feed_event(w0, "MODIFIED", "a", 11);
    feed_event(w0, "MODIFIED", "a", 11);
    feed_event(w0, "MODIFIED", "a", 10);
    watcher_set_finish(fx->ws, 0);
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.delivered, 3);
    assert_int_equal(t.matched, 0);
    assert_int_equal(t.duplicated, 1);
    assert_int_equal(t.out_of_order, 1);
    assert_true(watcher_set_caught_up(fx->ws, 0));
    assert_true(watcher_set_footprint(fx->ws) > 0);
}

/* Each distinct line is scanned once for all watchers; every watcher's
 * checks still run on what it received; evicted lines are scanned again
 * with the same result. */
static void test_line_cache(void **state)
{
    struct fixture *fx = *state;
    struct watcher *w0, *w1;
    struct watcher_totals t;
    uint64_t scanned;
    enum { MANY = LINES_SETS * LINES_WAYS * 2 };

    start_two(fx, &w0, &w1);
    change(fx, 11, "ns/a", EVENT_MODIFIED);
    change(fx, 12, "ns/b", EVENT_DELETED);
    fx->o.known = 12;
    watcher_set_advance(fx->ws);
    watcher_set_totals(fx->ws, &t);
    scanned = t.lines_scanned;
    feed_event(w0, "MODIFIED", "a", 11);
    feed_event(w1, "MODIFIED", "a", 11);
    feed_event(w1, "MODIFIED", "a", 11); /* same bytes: duplicated */
    feed_event(w0, "DELETED", "b", 12);
    feed_event(w1, "ADDED", "b", 12); /* other bytes: wrong type */
    watcher_set_totals(fx->ws, &t);
    assert_int_equal(t.lines_scanned - scanned, 3);
    assert_int_equal(t.matched, 4);
    assert_int_equal(t.duplicated, 1);
    assert_int_equal(t.wrong_type, 1);
    assert_int_equal(t.view_anomalies, 1); /* ADDED of a present key */
    assert_int_equal(view_get(&w0->view, keys_find(fx->keys, "ns", 2, "b", 1)),
                     0);
    /* More distinct lines than the cache holds, to both watchers in
     * turn (without an oracle: views and order only). */
    fx->ws->verify->cfg.oracle = NULL;
    for (int i = 0; i < 2 * MANY; i++) {
        char name[32];

        snprintf(name, sizeof(name), "k%d", i % MANY);
        feed_event(i < MANY ? w0 : w1, i % MANY ? "MODIFIED" : "ADDED", name,
                   100 + i % MANY);
    }
    watcher_set_totals(fx->ws, &t);
    assert_true(t.lines_scanned - scanned > 3 + MANY);
    assert_int_equal(t.duplicated, 1);
    assert_int_equal(t.out_of_order, 0);
    assert_int_equal(t.view_anomalies, 1 + 2 * (MANY - 1));
    /* Both saw the same lines since; w1 still has "b" (its ADDED). */
    assert_int_equal(view_count(&w0->view), 1 + MANY);
    assert_int_equal(view_count(&w1->view), 2 + MANY);
    view_remove(&w1->view, keys_find(fx->keys, "ns", 2, "b", 1));
    assert_true(view_equal(&w0->view, &w1->view));
    assert_int_equal(view_get(&w1->view, keys_find(fx->keys, "ns", 2, "k7", 2)),
                     107);
    assert_true(watcher_set_footprint(fx->ws) >
                LINES_SETS * LINES_WAYS * sizeof(struct line_slot));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_counts_every_fault, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_waits_for_the_oracle, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_relist_after_410, setup, teardown),
        cmocka_unit_test_setup_teardown(test_long_lines_and_anomalies, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_without_oracle, setup, teardown),
        cmocka_unit_test_setup_teardown(test_line_cache, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
