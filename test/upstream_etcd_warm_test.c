/*
 * upstream_etcd_warm_test.c: the revision a warm start lists at
 * (src/upstream_etcd_warm.c).
 *
 * A simulated etcd at revision C whose history is compacted at K (a
 * Range at a revision below K fails, as etcd's OUT_OF_RANGE; at K or
 * above it succeeds) answers the module's requests.  Cases: the first
 * revision (C - window, never below 1, C itself without a window); no
 * compaction in the window (one request after the current revision's);
 * every compaction point K in and around the window (the list is at
 * max(K, C - window) exactly, in at most log2(window) + 2 requests); a
 * window of 0 (off); the requests themselves (a count of the current
 * revision, then one key without its value at the revision asked).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "cache/rbuf.h"
#include "proto/rpc.pb-c.h"
#include "src/upstream_etcd_warm.h"

#define S(s) (s), (sizeof(s) - 1)

/* Runs a warm start of window against etcd at current, compacted at
 * compact; returns the list revision and counts the requests. */
static int64_t run_from(int64_t current, int64_t compact, int64_t window,
                        int64_t floor, unsigned *requests)
{
    struct upstream_etcd_warm w;

    upstream_etcd_warm_begin(&w, window, floor);
    *requests = 0;
    while (w.phase == WARM_CURRENT || w.phase == WARM_PROBE) {
        assert_true(++*requests < 100);
        if (w.phase == WARM_CURRENT) {
            upstream_etcd_warm_answer(&w, true, current);
            continue;
        }
        assert_true(w.rev >= 1 && w.rev <= current);
        upstream_etcd_warm_answer(&w, w.rev >= compact, current);
    }
    if (w.phase == WARM_OFF)
        return 0;
    assert_int_equal(w.phase, WARM_LIST);
    assert_int_equal(w.current, current);
    return w.rev;
}

static int64_t run(int64_t current, int64_t compact, int64_t window,
                   unsigned *requests)
{
    return run_from(current, compact, window, 0, requests);
}

static void test_first_revision(void **state)
{
    assert_int_equal(upstream_etcd_warm_rev(25000, 10000), 15000);
    assert_int_equal(upstream_etcd_warm_rev(500, 10000), 1);
    assert_int_equal(upstream_etcd_warm_rev(10001, 10000), 1);
    assert_int_equal(upstream_etcd_warm_rev(500, 0), 500);
    assert_int_equal(upstream_etcd_warm_rev(0, 100), 0);
}

static void test_no_compaction(void **state)
{
    unsigned n;

    /* The current revision, then R_old asked once: readable. */
    assert_int_equal(run(25000, 1, 10000, &n), 15000);
    assert_int_equal(n, 2);
    /* A young store: back to revision 1. */
    assert_int_equal(run(300, 1, 10000, &n), 1);
    assert_int_equal(n, 2);
    /* Nothing to go back into. */
    assert_int_equal(run(1, 1, 10000, &n), 1);
    assert_int_equal(n, 1);
}

static void test_every_compaction_point(void **state)
{
    const int64_t current = 1000, window = 300;

    for (int64_t k = 1; k <= current; k++) {
        unsigned n;
        int64_t want = k > current - window ? k : current - window;

        assert_int_equal(run(current, k, window, &n), want);
        assert_true(n <= 1 + 1 + 9); /* current, R_old, log2(300) */
    }
}

/* A relist after a compaction at k: at k, never below the cache's own
 * revision (the floor). */
static void test_relist_floor(void **state)
{
    unsigned n;

    assert_int_equal(run_from(1000, 950, 300, 900, &n), 950);
    assert_int_equal(run_from(1000, 1, 300, 900, &n), 900);
    assert_int_equal(n, 2);
    assert_int_equal(run_from(1000, 1, 300, 2000, &n), 1000);
}

static void test_off(void **state)
{
    unsigned n;

    assert_int_equal(run(1000, 1, 0, &n), 0);
    assert_int_equal(n, 0);
}

static void test_requests(void **state)
{
    struct upstream_etcd_warm w;
    struct rbuf *b;
    Etcdserverpb__RangeRequest *m;

    upstream_etcd_warm_begin(&w, 100, 0);
    b = upstream_etcd_warm_request(&w, S("/registry/pods/"),
                                   S("/registry/pods0"));
    m = etcdserverpb__range_request__unpack(NULL, b->len,
                                            (const uint8_t *)b->data);
    assert_non_null(m);
    assert_int_equal(m->key.len, 15);
    assert_int_equal(m->range_end.len, 15);
    assert_true(m->count_only);
    assert_int_equal(m->revision, 0); /* the current one */
    assert_false(m->serializable);    /* linearizable: the store's latest */
    etcdserverpb__range_request__free_unpacked(m, NULL);
    rbuf_unref(b);

    upstream_etcd_warm_answer(&w, true, 1000);
    assert_int_equal(w.phase, WARM_PROBE);
    assert_int_equal(w.rev, 900);
    b = upstream_etcd_warm_request(&w, S("/registry/pods/"),
                                   S("/registry/pods0"));
    m = etcdserverpb__range_request__unpack(NULL, b->len,
                                            (const uint8_t *)b->data);
    assert_non_null(m);
    assert_false(m->count_only);
    assert_true(m->keys_only);
    assert_int_equal(m->limit, 1);
    assert_int_equal(m->revision, 900);
    etcdserverpb__range_request__free_unpacked(m, NULL);
    rbuf_unref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_revision),
        cmocka_unit_test(test_no_compaction),
        cmocka_unit_test(test_every_compaction_point),
        cmocka_unit_test(test_relist_floor),
        cmocka_unit_test(test_off),
        cmocka_unit_test(test_requests),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
