/*
 * resource_test.c: one served resource (src/resource.c) as the upstream
 * adapter feeds it and as its subscriber sees it, with a recording
 * subscriber in place of the watch set.
 *
 * Cases: list_begin/item/end makes it ready at the list's revision, a
 * list_abort keeps the previous state; put/delete move the revision and
 * append to the ring, replays are ignored; the subscriber is told once per
 * flush (dispatch), per relist (begin, a note per changed object, done),
 * per reset and per bookmark round, and is found by its ops; waiters wake
 * when the revision is reached and all of them on a history reset; a
 * reset empties the cache, is counted, moves the epoch and makes every
 * revision up to the old history's lost; an undecodable value is never
 * served: it leaves the cache as a DELETED event and is counted; after a
 * warm start (resource_catch_up) it is ready but not caught up until its
 * revision reaches the store's, by the replay, or a probe proves nothing
 * changed (a probe that finds changes does not; neither moves the
 * revision, so a replayed create and delete still arrive), and counts
 * the events replayed.
 */
#include "test/core_testlib.h"

#include "cache/ring.h"
#include "cache/store.h"
#include "cache/watchcache.h"
#include "src/metrics_resource.h"
#include "test/fake_upstream.h"

/* ---- a recording subscriber ---- */

struct rec {
    int dispatches, bookmarks, relist_begins, relist_dones, resets;
    int notes_old, notes_new, notes;
    int64_t reset_rev;
};

static void rec_dispatch(void *arg)
{
    ((struct rec *)arg)->dispatches++;
}

static void rec_bookmark(void *arg)
{
    ((struct rec *)arg)->bookmarks++;
}

static void rec_relist_begin(void *arg)
{
    ((struct rec *)arg)->relist_begins++;
}

static void rec_relist_note(void *arg, const struct object *old,
                            const struct object *new_obj)
{
    struct rec *rc = arg;

    rc->notes++;
    rc->notes_old += old != NULL;
    rc->notes_new += new_obj != NULL;
}

static void rec_relist_done(void *arg)
{
    ((struct rec *)arg)->relist_dones++;
}

static void rec_reset(void *arg, int64_t rev)
{
    struct rec *rc = arg;

    rc->resets++;
    rc->reset_rev = rev;
}

static const struct resource_subscriber_ops rec_ops = {
    .dispatch = rec_dispatch,
    .bookmark = rec_bookmark,
    .relist_begin = rec_relist_begin,
    .relist_note = rec_relist_note,
    .relist_done = rec_relist_done,
    .reset = rec_reset,
};

struct fixture {
    struct core c;
    struct rec rec;
};

/* The core's resource with the recorder in place of its watch set. */
static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    core_init(&f->c, 8, 0.02);
    watch_set_free(f->c.ws);
    f->c.ws = NULL;
    assert_null(watch_set_of(f->c.r));
    resource_subscribe(f->c.r, &rec_ops, &f->rec);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    resource_unsubscribe(f->c.r);
    core_fini(&f->c);
    free(f);
    return 0;
}

static size_t objects(struct fixture *f)
{
    return store_count(watchcache_store(resource_cache(f->c.r)));
}

static struct ring *ring(struct fixture *f)
{
    return watchcache_ring(resource_cache(f->c.r));
}

/* The event last appended to the ring. */
static struct ring_event *last_event(struct fixture *f)
{
    assert_true(ring_head_seq(ring(f)) > ring_tail_seq(ring(f)));
    return ring_get(ring(f), ring_head_seq(ring(f)) - 1);
}

/* One item of the open list: configmap ns/name with data v=value. */
static void list_item(struct fixture *f, const char *name, const char *value,
                      int64_t rev)
{
    char *key = cm_key(name), *v = cm_value(name, NULL, value);

    resource_list_item(f->c.r, key, strlen(key), v, strlen(v), rev);
    free(key);
    free(v);
}

static void test_lists(void **state)
{
    struct fixture *f = *state;
    char *key = cm_key("z"), *v = cm_value("z", NULL, "0");

    assert_false(resource_ready(f->c.r));
    assert_int_equal(resource_rv(f->c.r), 0);
    assert_string_equal(resource_type(f->c.r)->key_prefix, CM_PREFIX);
    core_list(&f->c, 10, "abc");
    assert_true(resource_ready(f->c.r));
    assert_int_equal(resource_rv(f->c.r), 10);
    assert_int_equal(objects(f), 3);
    assert_int_equal(f->rec.relist_begins, 0); /* the first list */

    /* A list that fails part way changes nothing. */
    resource_list_begin(f->c.r);
    assert_false(resource_ready(f->c.r));
    resource_list_item(f->c.r, key, strlen(key), v, strlen(v), 12);
    resource_list_abort(f->c.r);
    assert_true(resource_ready(f->c.r));
    assert_int_equal(resource_rv(f->c.r), 10);
    assert_int_equal(objects(f), 3);
    assert_int_equal(resource_metrics(f->c.r)->relists, 0);
    free(key);
    free(v);
}

static void test_changes(void **state)
{
    struct fixture *f = *state;

    core_list(&f->c, 10, "ab");
    f->rec.dispatches = 0;
    core_put(&f->c, "c", NULL, "1", 11);
    assert_int_equal(resource_rv(f->c.r), 11);
    assert_int_equal(last_event(f)->type, EVENT_ADDED);
    core_put(&f->c, "a", NULL, "2", 12);
    assert_int_equal(last_event(f)->type, EVENT_MODIFIED);
    assert_int_equal(last_event(f)->rv, 12);
    core_delete(&f->c, "b", 13);
    assert_int_equal(last_event(f)->type, EVENT_DELETED);
    assert_int_equal(resource_rv(f->c.r), 13);
    assert_int_equal(objects(f), 2);
    assert_int_equal(resource_metrics(f->c.r)->events_received, 3);
    /* The subscriber is told per batch, not per event. */
    assert_int_equal(f->rec.dispatches, 0);
    resource_flush(f->c.r);
    assert_int_equal(f->rec.dispatches, 1);

    /* A replay after a resume is ignored. */
    core_put(&f->c, "z", NULL, "old", 9);
    core_delete(&f->c, "a", 12);
    assert_int_equal(resource_rv(f->c.r), 13);
    assert_int_equal(objects(f), 2);
    assert_int_equal(resource_metrics(f->c.r)->events_received, 3);

    /* Progress moves the revision without an event. */
    resource_progress(f->c.r, 20);
    assert_int_equal(resource_rv(f->c.r), 20);
    assert_int_equal(last_event(f)->rv, 13);
}

static void test_relist_tells_subscriber(void **state)
{
    struct fixture *f = *state;
    char *key, *v;

    core_list(&f->c, 10, "abc");
    /* Relisted at 20: a unchanged, b changed, c gone, d new. */
    resource_list_begin(f->c.r);
    key = cm_key("a");
    v = cm_value("a", NULL, "0");
    resource_list_item(f->c.r, key, strlen(key), v, strlen(v), 10);
    free(key);
    free(v);
    list_item(f, "b", "changed", 15);
    list_item(f, "d", "0", 16);
    resource_list_end(f->c.r, 20);

    assert_int_equal(f->rec.relist_begins, 1);
    assert_int_equal(f->rec.relist_dones, 1);
    assert_int_equal(f->rec.notes, 3);     /* b, c, d */
    assert_int_equal(f->rec.notes_old, 2); /* b, c */
    assert_int_equal(f->rec.notes_new, 2); /* b, d */
    assert_int_equal(resource_rv(f->c.r), 20);
    assert_int_equal(objects(f), 3);
    assert_int_equal(resource_metrics(f->c.r)->relists, 1);
}

static void test_bookmark_timer(void **state)
{
    struct fixture *f = *state;
    bool done = false;

    for (int i = 0; i < 100 && !done; i++) {
        core_run(&f->c, NULL, 10);
        done = f->rec.bookmarks >= 2;
    }
    assert_true(done);
}

static void test_subscriber_lookup(void **state)
{
    struct fixture *f = *state;
    static const struct resource_subscriber_ops other = {0};

    assert_ptr_equal(resource_subscriber(f->c.r, &rec_ops), &f->rec);
    assert_null(resource_subscriber(f->c.r, &other));
    resource_unsubscribe(f->c.r);
    assert_null(resource_subscriber(f->c.r, &rec_ops));
    /* With nobody subscribed the sink still works. */
    core_list(&f->c, 10, "a");
    core_put(&f->c, "a", NULL, "1", 11);
    resource_flush(f->c.r);
    assert_int_equal(f->rec.dispatches, 0);
    resource_subscribe(f->c.r, &rec_ops, &f->rec);
}

/* ---- waiters ---- */

struct woken {
    int n;
    int64_t rv_then;
    struct resource *r;
};

static void woken_cb(struct rv_waiter *w, void *arg)
{
    struct woken *k = arg;

    k->n++;
    k->rv_then = resource_rv(k->r);
}

static void test_waiters(void **state)
{
    struct fixture *f = *state;
    struct woken k1 = {.r = f->c.r}, k2 = {.r = f->c.r}, k3 = {.r = f->c.r};
    struct rv_waiter w1 = {.rv = 12, .fn = woken_cb, .arg = &k1};
    struct rv_waiter w2 = {.rv = 15, .fn = woken_cb, .arg = &k2};
    struct rv_waiter w3 = {.rv = 12, .fn = woken_cb, .arg = &k3};

    /* Waiting before the first list: woken once listed at or past rv. */
    resource_wait(f->c.r, &w1);
    resource_wait(f->c.r, &w2);
    resource_wait(f->c.r, &w3);
    resource_unwait(f->c.r, &w3);
    resource_unwait(f->c.r, &w3); /* no-op */
    core_list(&f->c, 10, "a");
    assert_int_equal(k1.n + k2.n, 0);
    core_put(&f->c, "a", NULL, "1", 12);
    assert_int_equal(k1.n, 0); /* woken after the batch, not per event */
    resource_flush(f->c.r);
    assert_int_equal(k1.n, 1);
    assert_int_equal(k1.rv_then, 12);
    assert_int_equal(k2.n, 0);
    resource_progress(f->c.r, 15);
    assert_int_equal(k2.n, 1);
    assert_int_equal(k2.rv_then, 15);
    assert_int_equal(k3.n, 0);

    /* A reset wakes every waiter, whatever its revision. */
    w1.rv = 1000;
    resource_wait(f->c.r, &w1);
    resource_history_reset(f->c.r, RESOURCE_RESET_IDENTITY, 15, 2);
    assert_int_equal(k1.n, 2);
    assert_int_equal(k1.rv_then, 0);
}

static void test_history_reset(void **state)
{
    struct fixture *f = *state;

    core_list(&f->c, 10, "ab");
    core_put(&f->c, "a", NULL, "1", 30);
    resource_flush(f->c.r);
    assert_int_equal(resource_epoch(f->c.r), 0);

    resource_history_reset(f->c.r, RESOURCE_RESET_REVISION, 25, 5);
    assert_int_equal(f->rec.resets, 1);
    assert_int_equal(f->rec.reset_rev, 5);
    assert_int_equal(resource_epoch(f->c.r), 1);
    assert_false(resource_ready(f->c.r));
    assert_int_equal(resource_rv(f->c.r), 0);
    assert_int_equal(objects(f), 0);
    /* The cache had shown 30, above the old history's 25. */
    assert_int_equal(resource_lost_rv(f->c.r), 30);
    assert_true(resource_rv_lost(f->c.r, 30));
    assert_false(resource_rv_lost(f->c.r, 31));
    assert_int_equal(
        resource_metrics(f->c.r)->store_resets[RESOURCE_RESET_REVISION], 1);
    assert_string_equal(resource_reset_name(RESOURCE_RESET_IDENTITY),
                        "identity");

    /* The adapter lists again: ready, not a relist for the subscriber. */
    core_list(&f->c, 6, "a");
    assert_true(resource_ready(f->c.r));
    assert_int_equal(resource_rv(f->c.r), 6);
    assert_int_equal(f->rec.relist_begins, 0);
}

static void observed_cb(void *arg)
{
    ++*(int *)arg;
}

static void test_catch_up(void **state)
{
    struct fixture *f = *state;
    struct fake_upstream *fu = fake_upstream_new(f->c.base);
    struct fake_probe changed = {.rev = 40, .count = 2, .modified = true};
    struct fake_probe quiet = {.rev = 40, .count = 2, .modified = false};
    size_t probes;
    int observed = 0;

    resource_set_reader(f->c.r, fake_upstream_reader(fu));
    resource_observe(f->c.r, observed_cb, &observed);
    resource_catch_up(f->c.r, 30); /* no list open: ignored */
    assert_int_equal(resource_catchup_rev(f->c.r), 0);
    /* The adapter says so before the list's end. */
    resource_list_begin(f->c.r);
    list_item(f, "a", "0", 10);
    resource_catch_up(f->c.r, 30);
    resource_list_end(f->c.r, 10);
    assert_true(resource_ready(f->c.r));
    assert_false(resource_caught_up(f->c.r)); /* at once, not a moment */
    assert_int_equal(resource_catchup_rev(f->c.r), 30);

    /* The replay: below the store's revision, not caught up yet. */
    core_put(&f->c, "b", NULL, "1", 20);
    resource_flush(f->c.r);
    assert_false(resource_caught_up(f->c.r));
    assert_int_equal(resource_metrics(f->c.r)->events_replayed, 1);

    /* A probe that finds changes since 20 moves nothing. */
    fake_upstream_set_probe(fu, &changed);
    core_run(&f->c, NULL, 100);
    assert_true(fake_upstream_probes(fu) >= 1);
    assert_false(resource_caught_up(f->c.r));
    assert_int_equal(resource_rv(f->c.r), 20);

    /* Nothing changed since 20 up to 40: caught up, the state proven,
     * the revision left to the replay (a key created and deleted after
     * 20 is still to come, and is not dropped). */
    fake_upstream_set_probe(fu, &quiet);
    observed = 0;
    core_run(&f->c, NULL, 400);
    assert_true(resource_caught_up(f->c.r));
    assert_int_equal(observed, 1); /* the observer relies on it now */
    assert_int_equal(resource_rv(f->c.r), 20);
    core_put(&f->c, "t", NULL, "1", 25);
    core_delete(&f->c, "t", 26);
    resource_flush(f->c.r);
    assert_int_equal(resource_rv(f->c.r), 26);
    assert_int_equal(resource_metrics(f->c.r)->events_replayed, 3);

    /* Later changes are not replayed ones; no probe once caught up. */
    core_put(&f->c, "c", NULL, "1", 41);
    resource_flush(f->c.r);
    assert_int_equal(resource_metrics(f->c.r)->events_replayed, 3);
    probes = fake_upstream_probes(fu);
    core_run(&f->c, NULL, 400);
    assert_int_equal(fake_upstream_probes(fu), probes);

    /* A reset forgets the catch-up (a revision of the old history). */
    resource_list_begin(f->c.r);
    resource_catch_up(f->c.r, 50);
    resource_list_end(f->c.r, 41);
    assert_false(resource_caught_up(f->c.r));
    resource_history_reset(f->c.r, RESOURCE_RESET_REVISION, 50, 3);
    assert_int_equal(resource_catchup_rev(f->c.r), 0);
    resource_observe(f->c.r, NULL, NULL);
    resource_set_reader(f->c.r, NULL);
    fake_upstream_free(fu);
}

static void test_undecodable(void **state)
{
    struct fixture *f = *state;
    char *key = cm_key("a");
    static const char junk[] = "{not json";

    core_list(&f->c, 10, "ab");
    resource_put(f->c.r, key, strlen(key), junk, strlen(junk), 11);
    /* The object held leaves as DELETED at 11; nothing else is served. */
    assert_int_equal(last_event(f)->type, EVENT_DELETED);
    assert_int_equal(last_event(f)->rv, 11);
    assert_int_equal(objects(f), 1);
    assert_int_equal(resource_metrics(f->c.r)->undecodable, 1);
    assert_int_equal(resource_undecodable_under(f->c.r, CM_PREFIX "ns/",
                                                strlen(CM_PREFIX "ns/")),
                     1);
    /* A good value again makes it an object again. */
    core_put(&f->c, "a", NULL, "ok", 12);
    assert_int_equal(last_event(f)->type, EVENT_ADDED);
    assert_int_equal(objects(f), 2);
    assert_int_equal(resource_undecodable_under(f->c.r, CM_PREFIX,
                                                strlen(CM_PREFIX)),
                     0);
    free(key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lists, setup, teardown),
        cmocka_unit_test_setup_teardown(test_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relist_tells_subscriber, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bookmark_timer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_subscriber_lookup, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_waiters, setup, teardown),
        cmocka_unit_test_setup_teardown(test_history_reset, setup, teardown),
        cmocka_unit_test_setup_teardown(test_undecodable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_catch_up, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
