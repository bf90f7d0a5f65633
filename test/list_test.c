/*
 * list_test.c: LIST (src/list.c) with the real resource, cache and
 * freshness proofs (src/fresh.c), against fake streams and a fake store
 * behind the upstream reader (test/fake_upstream.h).
 *
 * Cases: limit and continue tokens page through a snapshot in key order
 * with remainingItemCount, each page at the first page's revision even
 * after later changes; resourceVersion semantics: "0" is the cache at
 * once, unset probes the store (consistent), NotOlderThan N waits for the
 * cache to reach N, Exact N inside the window is served from memory, an
 * Exact N the store compacted is 410 Expired; a continue token whose
 * snapshot left the window and the store is 410 Expired with a token that
 * continues on current state, and so is one of an earlier store history;
 * a continue token with a resourceVersion, or malformed, is 400; a LIST
 * before the first list is 429.
 */
#include "test/core_testlib.h"

#include "cache/sbuf.h"
#include "src/list.h"
#include "src/metrics_resource.h"
#include "test/fake_upstream.h"

struct fixture {
    struct core c;
    struct fake_upstream *fu;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    core_init(&f->c, 4, 3600);
    f->fu = fake_upstream_new(f->c.base);
    resource_set_reader(f->c.r, fake_upstream_reader(f->fu));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    core_run(&f->c, NULL, 10); /* drop canceled reads */
    resource_set_reader(f->c.r, NULL);
    core_fini(&f->c);
    fake_upstream_free(f->fu);
    free(f);
    return 0;
}

/* The store and the cache agree: names listed at rev in both. */
static void both_at(struct fixture *f, int64_t rev, const char *names)
{
    for (const char *n = names; *n; n++) {
        char name[2] = {*n, 0};
        char *key = cm_key(name), *v = cm_value(name, NULL, "0");

        fake_upstream_put(f->fu, key, v, rev);
        free(key);
        free(v);
    }
    fake_upstream_set_rev(f->fu, rev);
    core_list(&f->c, rev, names);
}

/* A change in the store and then in the cache. */
static void change(struct fixture *f, const char *name, const char *value,
                   int64_t rev)
{
    char *key = cm_key(name), *v = cm_value(name, NULL, value);

    fake_upstream_put(f->fu, key, v, rev);
    free(key);
    free(v);
    core_put(&f->c, name, NULL, value, rev);
    resource_flush(f->c.r);
}

/* A LIST of configmaps in ns with query q, answered (the loop runs until
 * it is, up to 5 s). */
static struct fake_stream *list(struct fixture *f, const char *q)
{
    struct fake_stream *fs = fake_stream_new("GET", "/", q, "", 1);
    struct selector *sel = NULL;
    struct accept_choice accept;
    struct query query;

    core_parse(&f->c, q, &query, &sel, &accept);
    list_collection(&fs->s, f->c.r, "ns", sel, &query, &accept);
    query_fini(&query);
    core_run(&f->c, &fs->ended, 5000);
    return fs;
}

/* The names of a list's items, concatenated ("abc"), into buf. */
static const char *names(const cJSON *j, char *buf, size_t len)
{
    const cJSON *item;
    size_t n = 0;

    buf[0] = '\0';
    cJSON_ArrayForEach(item, cJSON_GetObjectItem(j, "items"))
    {
        const char *name = json_str(item, "metadata.name");

        if (n + strlen(name) + 1 < len) {
            strcpy(buf + n, name);
            n += strlen(name);
        }
    }
    return buf;
}

/* A LIST answered 200 with the items named want at revision rv; returns
 * its continue token (freed by the caller; NULL: none). */
static char *assert_page(struct fixture *f, const char *q, const char *want,
                         const char *rv, double remaining)
{
    struct fake_stream *fs = list(f, q);
    char buf[64], *token = NULL;
    const char *cont;
    cJSON *j;

    assert_int_equal(fs->status, 200);
    j = body_json(fs);
    assert_string_equal(json_str(j, "kind"), "ConfigMapList");
    assert_string_equal(names(j, buf, sizeof(buf)), want);
    assert_string_equal(json_str(j, "metadata.resourceVersion"), rv);
    assert_true(json_num(j, "metadata.remainingItemCount") == remaining);
    cont = json_str(j, "metadata.continue");
    if (*cont)
        token = xstrdup(cont);
    cJSON_Delete(j);
    fake_stream_free(fs);
    return token;
}

static char *continue_query(const char *token)
{
    struct sbuf q = {0};

    sbuf_add(&q, "limit=2&continue=");
    for (const char *p = token; *p; p++)
        if (strchr("+/=", *p))
            sbuf_addf(&q, "%%%02X", (unsigned char)*p);
        else
            sbuf_addn(&q, p, 1);
    return q.data;
}

static void test_pages(void **state)
{
    struct fixture *f = *state;
    char *token, *q;

    both_at(f, 10, "abcde");
    token = assert_page(f, "limit=2&resourceVersion=0", "ab", "10", 3);
    assert_non_null(token);
    change(f, "e", "later", 11); /* the pages stay at 10 */
    q = continue_query(token);
    free(token);
    token = assert_page(f, q, "cd", "10", 1);
    free(q);
    assert_non_null(token);
    q = continue_query(token);
    free(token);
    token = assert_page(f, q, "e", "10", -1);
    free(q);
    assert_null(token);
    assert_int_equal(fake_upstream_pages(f->fu), 0); /* from memory */
}

static void test_rv_semantics(void **state)
{
    struct fixture *f = *state;
    struct fake_stream *fs;
    struct selector *sel = NULL;
    struct accept_choice accept;
    struct query query;

    both_at(f, 10, "ab");
    /* "0": the cache as it is, no store read. */
    free(assert_page(f, "resourceVersion=0", "ab", "10", -1));
    assert_int_equal(fake_upstream_probes(f->fu), 0);
    /* unset: consistent, proven by a probe of the store. */
    free(assert_page(f, "", "ab", "10", -1));
    assert_int_equal(fake_upstream_probes(f->fu), 1);
    assert_int_equal(resource_metrics(f->c.r)->list_hits, 2);

    /* NotOlderThan a revision the cache has passed: the cache. */
    free(assert_page(f, "resourceVersion=5&resourceVersionMatch=NotOlderThan",
                     "ab", "10", -1));
    /* ... one it has not reached: waits for it. */
    fs = fake_stream_new("GET", "/", "", "", 1);
    core_parse(&f->c, "resourceVersion=12&resourceVersionMatch=NotOlderThan",
               &query, &sel, &accept);
    list_collection(&fs->s, f->c.r, "ns", sel, &query, &accept);
    query_fini(&query);
    core_run(&f->c, NULL, 30);
    assert_int_equal(fs->status, 0);
    change(f, "c", "1", 12);
    core_run(&f->c, &fs->ended, 1000);
    assert_int_equal(fs->status, 200);
    fake_stream_free(fs);

    /* Exact inside the window: that state, from memory. */
    free(assert_page(f, "resourceVersion=10&resourceVersionMatch=Exact", "ab",
                     "10", -1));
    assert_int_equal(fake_upstream_pages(f->fu), 0);
    /* Exact at a revision the store compacted: 410. */
    fake_upstream_set_compacted(f->fu, 9);
    fs = list(f, "resourceVersion=3&resourceVersionMatch=Exact");
    assert_status(fs, 410, "Expired");
    fake_stream_free(fs);
}

/* A continue token whose revision is gone from the window and the store:
 * 410 with a token that continues on current state. */
static void test_continue_compacted(void **state)
{
    struct fixture *f = *state;
    struct fake_stream *fs;
    char *token, *q;
    cJSON *j;

    both_at(f, 10, "abcde");
    token = assert_page(f, "limit=2", "ab", "10", 3);
    for (int64_t rev = 11; rev <= 20; rev++)
        change(f, "a", "x", rev);
    fake_upstream_set_compacted(f->fu, 15);
    q = continue_query(token);
    free(token);
    fs = list(f, q);
    free(q);
    assert_status(fs, 410, "Expired");
    assert_int_equal(fake_upstream_pages(f->fu), 1); /* the store said so */
    j = body_json(fs);
    assert_true(*json_str(j, "metadata.continue") != '\0');
    cJSON_Delete(j);
    fake_stream_free(fs);
}

/* A token of a store history that was reset since is refused: 410. */
static void test_continue_after_reset(void **state)
{
    struct fixture *f = *state;
    struct fake_stream *fs;
    char *token, *q;

    both_at(f, 10, "abcde");
    token = assert_page(f, "limit=2", "ab", "10", 3);
    resource_history_reset(f->c.r, RESOURCE_RESET_REVISION, 10, 4);
    core_list(&f->c, 4, "abcde");
    q = continue_query(token);
    free(token);
    fs = list(f, q);
    assert_status(fs, 410, "Expired");
    fake_stream_free(fs);
    free(q);
}

static void test_bad_continue(void **state)
{
    struct fixture *f = *state;
    struct fake_stream *fs;

    both_at(f, 10, "ab");
    fs = list(f, "limit=2&continue=garbage");
    assert_status(fs, 400, "BadRequest");
    fake_stream_free(fs);
    fs = list(f, "limit=2&continue=garbage&resourceVersion=10");
    assert_status(fs, 400, "BadRequest");
    fake_stream_free(fs);
}

static void test_not_ready(void **state)
{
    struct fixture *f = *state;
    struct fake_stream *fs = list(f, "resourceVersion=0");

    assert_status(fs, 429, "TooManyRequests");
    fake_stream_free(fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rv_semantics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_continue_compacted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_continue_after_reset, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_bad_continue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_ready, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
