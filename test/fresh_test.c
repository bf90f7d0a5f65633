/*
 * fresh_test.c: the revisions reads hand out after the store's history
 * was reset (src/fresh.c with the real src/resource.c), against a fake
 * upstream reader (test/fake_upstream.h) whose probes answer from the
 * event loop with a revision the test chooses.
 *
 * Cases: the lost revisions (resource_rv_lost) are none before a reset,
 * every revision up to the highest the abandoned history or the cache had
 * reached after one, whether the new history passes them or not, and the
 * highest of several resets; a LIST-like read (resume) while the cache's
 * revision is lost probes the store and is served at the store's
 * revision when that is past the lost ones (READ_ANY and
 * READ_NOT_OLDER), waits for the cache to reach it when the probe saw
 * changes, and is served as before (the cache's revision) when the store
 * has not passed them, when there is no store to ask, and when the cache
 * is past them (no probe); a GET-like read (no resume) is never delayed.
 * Probes are shared by the reads of a prefix (one more probe for those
 * that arrive while one is in flight).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "src/fresh.h"
#include "src/metrics_resource.h"
#include "src/resource.h"
#include "src/upstream.h"
#include "test/fake_upstream.h"

#define PREFIX "/registry/configmaps/"

static struct event_base *base;

/* ==== fixture ==== */

struct fixture {
    struct resource *r;
    struct fake_upstream *fu;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    struct resource_config cfg = {
        .ring_events = 64,
        .ring_bytes = 1 << 20,
        .bookmark_interval = 3600,
    };

    base = event_base_new();
    f->r = resource_new(base, resource_type_find("configmaps"), &cfg);
    f->fu = fake_upstream_new(base);
    resource_set_reader(f->r, fake_upstream_reader(f->fu));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    /* Answer or drop what is left in the loop (canceled probes). */
    event_base_loop(base, EVLOOP_NONBLOCK);
    /* No case reads the store's pages: the cache serves them all. */
    assert_int_equal(fake_upstream_pages(f->fu), 0);
    resource_free(f->r);
    fake_upstream_free(f->fu);
    event_base_free(base);
    free(f);
    return 0;
}

static char *cm_value(const char *name)
{
    return xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                     "\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\"}}",
                     name);
}

/* Lists the names (each at revision rev) at revision rev. */
static void list_at(struct fixture *f, int64_t rev, const char *names)
{
    resource_list_begin(f->r);
    for (const char *n = names; *n; n++) {
        char name[2] = {*n, 0};
        char *key = xasprintf(PREFIX "ns/%s", name), *v = cm_value(name);

        resource_list_item(f->r, key, strlen(key), v, strlen(v), rev);
        free(key);
        free(v);
    }
    resource_list_end(f->r, rev);
}

static void put_at(struct fixture *f, const char *name, int64_t rev)
{
    char *key = xasprintf(PREFIX "ns/%s", name), *v = cm_value(name);

    resource_put(f->r, key, strlen(key), v, strlen(v), rev);
    resource_flush(f->r);
    free(key);
    free(v);
}

static void reset(struct fixture *f, int64_t old_rev, int64_t new_rev)
{
    resource_history_reset(f->r, RESOURCE_RESET_REVISION, old_rev, new_rev);
}

/* Every probe finds p. */
static void probe_finds(struct fixture *f, struct fake_probe p)
{
    fake_upstream_set_probe(f->fu, &p);
}

/* ==== reads ==== */

struct answer {
    bool done;
    int err;
    int64_t rv;
    size_t objects;
    bool upstream;
};

static bool count_cb(struct object *obj, void *arg)
{
    (*(size_t *)arg)++;
    return true;
}

static void answer_cb(const struct read_result *res, void *arg)
{
    struct answer *a = arg;

    a->done = true;
    a->err = res->err;
    a->rv = res->rv;
    a->upstream = res->upstream;
    if (res->snap != NULL)
        store_snap_scan(res->snap, PREFIX, strlen(PREFIX), count_cb,
                        &a->objects);
}

/* Starts a read of the whole resource; *at_once: answered before
 * fresh_read returned. */
static struct fresh *start(struct fixture *f, enum read_mode mode, int64_t rv,
                           bool resume, struct answer *a, bool *at_once)
{
    struct fresh *p;

    *a = (struct answer){0};
    p = fresh_read(f->r, PREFIX, mode, rv, resume, answer_cb, a);
    *at_once = a->done;
    return p;
}

/* Runs the loop until a is answered (bounded). */
static void await(struct answer *a)
{
    for (int i = 0; i < 1000 && !a->done; i++)
        event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
    assert_true(a->done);
}

static uint64_t probes(struct fixture *f)
{
    return resource_metrics(f->r)->probes;
}

/* ==== tests ==== */

static void test_lost_revisions(void **state)
{
    struct fixture *f = *state;

    list_at(f, 10, "ab");
    put_at(f, "c", 12);
    assert_false(resource_rv_lost(f->r, 5));
    assert_int_equal(resource_lost_rv(f->r), 0);

    /* The old history showed 20; the store is at 6 now. */
    reset(f, 20, 6);
    assert_int_equal(resource_lost_rv(f->r), 20);
    assert_true(resource_rv_lost(f->r, 1));
    assert_true(resource_rv_lost(f->r, 6));
    assert_true(resource_rv_lost(f->r, 20));
    assert_false(resource_rv_lost(f->r, 21));
    assert_false(resource_rv_lost(f->r, 0));

    /* The new history lists and passes 20: lost still, for good. */
    list_at(f, 8, "ab");
    for (int64_t rev = 9; rev <= 25; rev++)
        put_at(f, "d", rev);
    assert_int_equal(resource_rv(f->r), 25);
    assert_true(resource_rv_lost(f->r, 9));
    assert_true(resource_rv_lost(f->r, 20));
    assert_false(resource_rv_lost(f->r, 21));

    /* A second reset: the cache's revision (25) was served too. */
    reset(f, 22, 3);
    assert_int_equal(resource_lost_rv(f->r), 25);
    /* A third one from further up. */
    list_at(f, 4, "a");
    reset(f, 40, 2);
    assert_int_equal(resource_lost_rv(f->r), 40);
    assert_true(resource_rv_lost(f->r, 33));
    assert_false(resource_rv_lost(f->r, 41));
}

/* The reviewer's setting: the old history reached 20, the new one is
 * listed at 8 with a and b. */
static void after_reset(struct fixture *f)
{
    list_at(f, 5, "abc");
    reset(f, 20, 6);
    list_at(f, 8, "ab");
    assert_true(resource_rv_lost(f->r, resource_rv(f->r)));
}

static void test_any_served_at_store_revision(void **state)
{
    struct fixture *f = *state;
    struct answer a;
    bool at_once;

    after_reset(f);
    probe_finds(f, (struct fake_probe){.rev = 25, .count = 2});
    assert_non_null(start(f, READ_ANY, 0, true, &a, &at_once));
    assert_false(at_once);
    await(&a);
    assert_int_equal(a.err, RW_OK);
    assert_int_equal(a.rv, 25); /* the cache at 8 is the state at 25 */
    assert_int_equal(a.objects, 2);
    assert_false(a.upstream);
    assert_int_equal(probes(f), 1);
}

static void test_not_older_served_at_store_revision(void **state)
{
    struct fixture *f = *state;
    struct answer a;
    bool at_once;

    after_reset(f);
    probe_finds(f, (struct fake_probe){.rev = 25, .count = 2});
    start(f, READ_NOT_OLDER, 5, true, &a, &at_once);
    await(&a);
    assert_int_equal(a.err, RW_OK);
    assert_int_equal(a.rv, 25);
    assert_int_equal(probes(f), 1);
}

/* Changes under the prefix after the cache's revision: wait for them. */
static void test_changed_waits_for_cache(void **state)
{
    struct fixture *f = *state;
    struct answer a;
    bool at_once;

    after_reset(f);
    probe_finds(f, (struct fake_probe){.rev = 25, .count = 3, .modified = true});
    start(f, READ_ANY, 0, true, &a, &at_once);
    for (int i = 0; i < 10; i++)
        event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
    assert_false(a.done);
    put_at(f, "c", 24);
    assert_false(a.done);
    resource_progress(f->r, 25);
    await(&a);
    assert_int_equal(a.err, RW_OK);
    assert_int_equal(a.rv, 25);
    assert_int_equal(a.objects, 3);
}

/* The store has not passed the lost revisions (no revision outside them
 * is true of the state), or cannot be asked: the cache's revision, as
 * without resume. */
static void test_served_as_before(void **state)
{
    struct fixture *f = *state;
    struct answer a;
    bool at_once;

    after_reset(f);
    probe_finds(f, (struct fake_probe){.rev = 15, .count = 2});
    start(f, READ_ANY, 0, true, &a, &at_once);
    await(&a);
    assert_int_equal(a.err, RW_OK);
    assert_int_equal(a.rv, 8);
    assert_int_equal(a.objects, 2);

    fake_upstream_set_unavailable(f->fu, true);
    start(f, READ_NOT_OLDER, 7, true, &a, &at_once);
    await(&a);
    assert_int_equal(a.err, RW_OK);
    assert_int_equal(a.rv, 8);
    assert_int_equal(probes(f), 1);
}

/* No resume (a GET), or the cache past the lost revisions: at once. */
static void test_no_probe_needed(void **state)
{
    struct fixture *f = *state;
    struct answer a;
    bool at_once;

    after_reset(f);
    assert_null(start(f, READ_ANY, 0, false, &a, &at_once));
    assert_true(at_once);
    assert_int_equal(a.rv, 8);
    assert_null(start(f, READ_NOT_OLDER, 7, false, &a, &at_once));
    assert_true(at_once);

    put_at(f, "d", 21);
    assert_null(start(f, READ_ANY, 0, true, &a, &at_once));
    assert_true(at_once);
    assert_int_equal(a.rv, 21);
    assert_int_equal(probes(f), 0);
}

/* Before any reset nothing is lost and nothing changes. */
static void test_never_reset(void **state)
{
    struct fixture *f = *state;
    struct answer a;
    bool at_once;

    list_at(f, 8, "ab");
    assert_null(start(f, READ_ANY, 0, true, &a, &at_once));
    assert_true(at_once);
    assert_int_equal(a.rv, 8);
    assert_int_equal(probes(f), 0);
}

/* Probes are shared: reads of a prefix that arrive while its probe is in
 * flight wait for one more probe, which serves them all; a read that goes
 * away meanwhile is simply not answered. */
static void test_probe_shared(void **state)
{
    struct fixture *f = *state;
    struct answer a, b, c, d;
    struct fresh *pc;
    bool at_once;

    list_at(f, 8, "ab");
    probe_finds(f, (struct fake_probe){.rev = 8, .count = 2});
    assert_non_null(start(f, READ_CONSISTENT, 0, false, &a, &at_once));
    assert_non_null(start(f, READ_CONSISTENT, 0, false, &b, &at_once));
    pc = start(f, READ_CONSISTENT, 0, false, &c, &at_once);
    assert_non_null(start(f, READ_CONSISTENT, 0, false, &d, &at_once));
    assert_int_equal(probes(f), 1);
    fresh_cancel(pc);
    await(&a);
    await(&b);
    await(&d);
    assert_false(c.done);
    assert_int_equal(probes(f), 2);
    assert_int_equal(fake_upstream_probes(f->fu), 2);
    assert_int_equal(b.err, RW_OK);
    assert_int_equal(b.rv, 8);
    assert_int_equal(d.objects, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lost_revisions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_any_served_at_store_revision,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_older_served_at_store_revision,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_changed_waits_for_cache, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_served_as_before, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_probe_needed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_never_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_probe_shared, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
