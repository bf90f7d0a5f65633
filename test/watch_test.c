/*
 * watch_test.c: WATCH (src/watch.c) with the real resource and cache,
 * fed through the sink functions, against fake streams that record every
 * frame (test/fake_stream.h).
 *
 * Cases: a watch from a revision in the window gets the changes after it,
 * in order, then bookmarks at the cache's revision; one from a revision
 * that left the window gets HTTP 200 and one ERROR 410 Expired event; a
 * label selector filters and turns transitions into ADDED/DELETED; a
 * relist ends only the watchers whose selection changed in the gap
 * (ERROR 410) and carries the others; a store history reset ends every
 * watch with 410; a slow watcher pulls in order after draining, and one
 * the ring laps gets 410; end-all ends every stream cleanly; a watch
 * before the first list gets 429; resourceVersion=0 and sendInitialEvents
 * give the synthetic ADDED events (and the initial-events-end bookmark).
 */
#include "test/core_testlib.h"

#include "src/metrics_resource.h"

/* A WATCH of configmaps in ns (NULL: all) with query q. */
static struct fake_stream *watch(struct core *c, const char *ns,
                                 const char *q)
{
    struct fake_stream *fs = fake_stream_new("GET", "/", q, "", 1);
    struct selector *sel = NULL;
    struct accept_choice accept;
    struct query query;

    core_parse(c, q, &query, &sel, &accept);
    watch_start(&fs->s, c->r, ns, sel, &query, &accept, NULL);
    query_fini(&query);
    return fs;
}

static struct metrics_resource *counters(struct core *c)
{
    return resource_metrics(c->r);
}

static void test_from_rv_in_order_then_bookmarks(void **state)
{
    struct core c;
    struct fake_stream *fs;
    bool bookmarked = false;

    core_init(&c, 64, 0.02);
    core_list(&c, 10, "ab");
    core_put(&c, "c", NULL, "1", 11);
    core_put(&c, "a", NULL, "2", 12);
    core_delete(&c, "b", 13);
    resource_flush(c.r);

    fs = watch(&c, NULL, "watch=1&resourceVersion=11&allowWatchBookmarks=true");
    assert_int_equal(fs->status, 200);
    assert_int_equal(fs->content_length, -1);
    assert_string_equal(fs->content_type, "application/json");
    assert_int_equal(fs->nframes, 2);
    assert_event(fs, 0, "MODIFIED", "a", 12);
    assert_event(fs, 1, "DELETED", "b", 13);
    assert_int_equal(counters(&c)->watch_hits, 1);

    /* Later batches, in revision order, once per flush. */
    core_put(&c, "d", NULL, "1", 14);
    core_put(&c, "c", NULL, "2", 14);
    assert_int_equal(fs->nframes, 2);
    resource_flush(c.r);
    assert_int_equal(fs->nframes, 4);
    assert_event(fs, 2, "ADDED", "d", 14);
    assert_event(fs, 3, "MODIFIED", "c", 14);
    assert_int_equal(watch_set_count(c.ws, 0), 1);
    assert_int_equal(watch_set_count(c.ws, 1), 0);

    /* The bookmark timer: a BOOKMARK at the cache's revision. */
    for (int i = 0; i < 100 && !bookmarked; i++) {
        core_run(&c, NULL, 10);
        bookmarked = fs->nframes > 4;
    }
    assert_true(bookmarked);
    assert_event(fs, 4, "BOOKMARK", NULL, 14);
    assert_false(fs->ended);
    fake_stream_free(fs);
    assert_int_equal(watch_set_count(c.ws, 0), 0);
    core_fini(&c);
}

static void test_from_rv_out_of_window_expired(void **state)
{
    struct core c;
    struct fake_stream *fs;
    char want[64];
    int64_t rev;

    core_init(&c, 4, 3600);
    core_list(&c, 10, "a");
    for (rev = 11; rev <= 20; rev++)
        core_put(&c, "a", NULL, "x", rev);
    resource_flush(c.r);

    fs = watch(&c, NULL, "watch=1&resourceVersion=11");
    assert_int_equal(fs->status, 200);
    assert_int_equal(fs->nframes, 1);
    /* The ring holds 17..20: a watch can start from 16. */
    snprintf(want, sizeof(want), "too old resource version: 11 (16)");
    assert_error_event(fs, 0, 410, "Expired", want);
    assert_true(fs->ended);
    assert_int_equal(counters(&c)->watch_misses, 1);
    fake_stream_free(fs);

    /* From 16 (the oldest it can) it gets 17..20. */
    fs = watch(&c, NULL, "watch=1&resourceVersion=16");
    assert_int_equal(fs->nframes, 4);
    assert_event(fs, 0, "MODIFIED", "a", 17);
    assert_event(fs, 3, "MODIFIED", "a", 20);
    assert_false(fs->ended);
    fake_stream_free(fs);
    core_fini(&c);
}

static void test_label_selector_transitions(void **state)
{
    struct core c;
    struct fake_stream *fs;

    core_init(&c, 64, 3600);
    core_list(&c, 10, "a");
    fs = watch(&c, NULL, "watch=1&resourceVersion=10&labelSelector=app%3Dx");

    core_put(&c, "b", "y", "1", 11); /* never selected: nothing */
    core_put(&c, "a", "x", "1", 12); /* enters: ADDED */
    core_put(&c, "a", "x", "2", 13); /* stays: MODIFIED */
    core_put(&c, "a", "y", "3", 14); /* leaves: DELETED, old state */
    core_put(&c, "c", "x", "1", 15);
    core_delete(&c, "c", 16);
    resource_flush(c.r);
    assert_int_equal(fs->nframes, 5);
    assert_event(fs, 0, "ADDED", "a", 12);
    assert_event(fs, 1, "MODIFIED", "a", 13);
    assert_event(fs, 2, "DELETED", "a", 14);
    assert_event(fs, 3, "ADDED", "c", 15);
    assert_event(fs, 4, "DELETED", "c", 16);
    fake_stream_free(fs);

    /* A namespace filters too. */
    fs = watch(&c, "other", "watch=1&resourceVersion=10");
    assert_int_equal(fs->nframes, 0);
    fake_stream_free(fs);
    core_fini(&c);
}

/* A relist ends the watchers whose selection changed in the gap and
 * carries the others, which then get the changes after the list. */
static void test_relist(void **state)
{
    struct core c;
    struct fake_stream *fa, *fb;
    char *key, *v;

    core_init(&c, 64, 3600);
    core_list(&c, 10, "ab");
    fa = watch(&c, NULL, "watch=1&resourceVersion=10&"
                         "fieldSelector=metadata.name%3Da");
    fb = watch(&c, NULL, "watch=1&resourceVersion=10&"
                         "fieldSelector=metadata.name%3Db");

    /* Relisted at 20: a changed in the gap, b did not. */
    resource_list_begin(c.r);
    key = cm_key("a");
    v = cm_value("a", NULL, "changed");
    resource_list_item(c.r, key, strlen(key), v, strlen(v), 15);
    free(key);
    free(v);
    key = cm_key("b");
    v = cm_value("b", NULL, "0");
    resource_list_item(c.r, key, strlen(key), v, strlen(v), 10);
    free(key);
    free(v);
    resource_list_end(c.r, 20);
    resource_flush(c.r);

    assert_int_equal(fa->nframes, 1);
    assert_error_event(fa, 0, 410, "Expired",
                       "too old resource version: 10 (20)");
    assert_true(fa->ended);
    assert_int_equal(fb->nframes, 0);
    assert_false(fb->ended);
    assert_int_equal(counters(&c)->terminated_relist, 1);
    assert_int_equal(counters(&c)->relists, 1);

    core_put(&c, "b", NULL, "1", 21);
    resource_flush(c.r);
    assert_int_equal(fb->nframes, 1);
    assert_event(fb, 0, "MODIFIED", "b", 21);
    fake_stream_free(fa);
    fake_stream_free(fb);
    core_fini(&c);
}

static void test_history_reset_ends_all(void **state)
{
    struct core c;
    struct fake_stream *f1, *f2;

    core_init(&c, 64, 3600);
    core_list(&c, 10, "ab");
    core_put(&c, "a", NULL, "1", 11);
    resource_flush(c.r);
    f1 = watch(&c, NULL, "watch=1&resourceVersion=10");
    f2 = watch(&c, "ns", "watch=1&resourceVersion=11");
    assert_int_equal(f1->nframes, 1);

    resource_history_reset(c.r, RESOURCE_RESET_REVISION, 11, 3);
    assert_int_equal(f1->nframes, 2);
    assert_error_event(f1, 1, 410, "Expired",
                       "too old resource version: 11 (3)");
    assert_error_event(f2, 0, 410, "Expired",
                       "too old resource version: 11 (3)");
    assert_true(f1->ended && f2->ended);
    assert_int_equal(counters(&c)->terminated_reset, 2);
    fake_stream_free(f1);
    fake_stream_free(f2);

    /* Not ready until the next list: 429. */
    f1 = watch(&c, NULL, "watch=1&resourceVersion=0");
    assert_status(f1, 429, "TooManyRequests");
    fake_stream_free(f1);
    core_fini(&c);
}

/* A watcher above the high-water mark takes nothing; drained, it pulls
 * what it missed, in order, and is pushed to again. */
static void test_slow_watcher_pulls_in_order(void **state)
{
    struct core c;
    struct fake_stream *fs;

    core_init(&c, 64, 3600);
    core_list(&c, 10, "a");
    fs = watch(&c, NULL, "watch=1&resourceVersion=10");
    fake_stream_set_pending(fs, 1 << 20);
    for (int64_t rev = 11; rev <= 15; rev++)
        core_put(&c, "a", NULL, "x", rev);
    resource_flush(c.r);
    assert_int_equal(fs->nframes, 0);

    fake_stream_set_pending(fs, 0); /* on_drain */
    assert_int_equal(fs->nframes, 5);
    for (size_t i = 0; i < 5; i++)
        assert_event(fs, i, "MODIFIED", "a", 11 + (int64_t)i);
    core_put(&c, "a", NULL, "y", 16);
    resource_flush(c.r);
    assert_int_equal(fs->nframes, 6);
    assert_event(fs, 5, "MODIFIED", "a", 16);
    fake_stream_free(fs);
    core_fini(&c);
}

/* A watcher so slow that the ring laps it gets 410 and ends. */
static void test_lapped_watcher_expires(void **state)
{
    struct core c;
    struct fake_stream *fs;

    core_init(&c, 4, 3600);
    core_list(&c, 10, "a");
    fs = watch(&c, NULL, "watch=1&resourceVersion=10");
    fake_stream_set_pending(fs, 1 << 20);
    for (int64_t rev = 11; rev <= 20; rev++) {
        core_put(&c, "a", NULL, "x", rev);
        resource_flush(c.r);
    }
    assert_int_equal(fs->nframes, 0);
    fake_stream_set_pending(fs, 0);
    assert_int_equal(fs->nframes, 1);
    assert_error_event(fs, 0, 410, "Expired", NULL);
    assert_true(fs->ended);
    assert_int_equal(counters(&c)->terminated_expired, 1);
    fake_stream_free(fs);
    core_fini(&c);
}

static void test_end_all(void **state)
{
    struct core c;
    struct fake_stream *f1, *f2;

    core_init(&c, 64, 3600);
    core_list(&c, 10, "a");
    f1 = watch(&c, NULL, "watch=1&resourceVersion=10");
    f2 = watch(&c, NULL, "watch=1&resourceVersion=10&timeoutSeconds=30");
    watch_set_end_all(c.ws);
    assert_true(f1->ended && f2->ended);
    assert_int_equal(f1->nframes + f2->nframes, 0); /* cleanly: no ERROR */
    fake_stream_free(f1);
    fake_stream_free(f2);
    assert_int_equal(watch_set_count(c.ws, 0), 0);
    core_fini(&c);
}

static void test_timeout_seconds_ends(void **state)
{
    struct core c;
    struct fake_stream *fs;

    core_init(&c, 64, 3600);
    core_list(&c, 10, "a");
    fs = watch(&c, NULL, "watch=1&resourceVersion=10&timeoutSeconds=1");
    core_run(&c, &fs->ended, 3000);
    assert_true(fs->ended);
    assert_int_equal(fs->nframes, 0);
    fake_stream_free(fs);
    core_fini(&c);
}

static void test_initial_events(void **state)
{
    struct core c;
    struct fake_stream *fs;
    cJSON *j, *ann;

    core_init(&c, 64, 3600);
    core_list(&c, 10, "ba");

    /* resourceVersion=0: ADDED for the cache's state, in key order, then
     * the changes. */
    fs = watch(&c, NULL, "watch=1&resourceVersion=0");
    assert_int_equal(fs->nframes, 2);
    assert_event(fs, 0, "ADDED", "a", 10);
    assert_event(fs, 1, "ADDED", "b", 10);
    core_put(&c, "c", NULL, "1", 11);
    resource_flush(c.r);
    assert_int_equal(fs->nframes, 3);
    assert_event(fs, 2, "ADDED", "c", 11);
    fake_stream_free(fs);

    /* sendInitialEvents: the state, then the initial-events-end marker. */
    fs = watch(&c, NULL,
               "watch=1&sendInitialEvents=true&allowWatchBookmarks=true&"
               "resourceVersionMatch=NotOlderThan&resourceVersion=10");
    core_run(&c, NULL, 20);
    assert_int_equal(fs->nframes, 4);
    assert_event(fs, 0, "ADDED", "a", 10);
    assert_event(fs, 2, "ADDED", "c", 11);
    assert_event(fs, 3, "BOOKMARK", NULL, 11);
    j = frame_json(fs, 3);
    ann = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(j, "object"), "metadata"),
        "annotations");
    assert_string_equal(
        cJSON_GetStringValue(
            cJSON_GetObjectItemCaseSensitive(ann, "k8s.io/initial-events-end")),
        "true");
    cJSON_Delete(j);
    fake_stream_free(fs);
    core_fini(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_rv_in_order_then_bookmarks),
        cmocka_unit_test(test_from_rv_out_of_window_expired),
        cmocka_unit_test(test_label_selector_transitions),
        cmocka_unit_test(test_relist),
        cmocka_unit_test(test_history_reset_ends_all),
        cmocka_unit_test(test_slow_watcher_pulls_in_order),
        cmocka_unit_test(test_lapped_watcher_expires),
        cmocka_unit_test(test_end_all),
        cmocka_unit_test(test_timeout_seconds_ends),
        cmocka_unit_test(test_initial_events),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
