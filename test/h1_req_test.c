/*
 * h1_req_test.c: an HTTP/1.x request's target and fields as http-parser
 * hands them, in pieces (src/h1_req.c): names in any case, the first of a
 * repeated name, Expect's 100-continue as Go's hasToken finds it, and the
 * target split into path and query in origin and absolute form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/h1_req.h"
#include "src/stream.h"
#include "src/stream_impl.h"

static const struct stream_ops no_ops;

/* Feeds a field as http-parser may: name and value split in two. */
static void field(struct h1_req *r, const char *name, const char *value)
{
    size_t n = strlen(name) / 2, v = strlen(value) / 2;

    h1_req_field(r, name, n);
    h1_req_field(r, name + n, strlen(name) - n);
    h1_req_value(r, value, v);
    h1_req_value(r, value + v, strlen(value) - v);
}

static const struct request *apply(struct h1_req *r, struct stream *s)
{
    r->reader.head.version = 11;
    r->method = "GET";
    stream_init(s, &no_ops, 1);
    h1_req_apply(r, s);
    return stream_request(s);
}

static void test_fields(void **state)
{
    struct h1_req *r = h1_req_new(0);
    struct stream s;
    const struct request *q;

    h1_req_url(r, "/api/v1/po", 10);
    h1_req_url(r, "ds?watch=1", 10);
    field(r, "Accept", "application/json;as=Table");
    field(r, "ACCEPT", "text/plain"); /* repeated: the first counts */
    field(r, "X-Other", "ignored");
    field(r, "User-Agent", "kubectl/v1.32");
    assert_false(h1_req_expectation_failed(r)); /* no Expect */
    q = apply(r, &s);
    assert_string_equal(q->path, "/api/v1/pods");
    assert_string_equal(q->query, "watch=1");
    assert_string_equal(q->accept, "application/json;as=Table");
    assert_string_equal(q->user_agent, "kubectl/v1.32");
    assert_int_equal(q->http_version, 11);
    h1_req_free(r);
    stream_finish(&s);
}

/* Impersonate-* fields are gathered, repeated ones included, names in
 * lower case, values split across calls (stream_field_gathered). */
static void test_gathered(void **state)
{
    struct h1_req *r = h1_req_new(0);
    struct stream s;
    const struct request *q;

    h1_req_url(r, "/api", 4);
    field(r, "Impersonate-User", "alice");
    field(r, "Accept", "application/json");
    field(r, "IMPERSONATE-GROUP", "dev");
    field(r, "impersonate-group", "qa");
    field(r, "Impersonate-Extra-Scopes-With-A-Long-Key", "view");
    q = apply(r, &s);
    assert_string_equal(q->impersonate,
                        "impersonate-user: alice\nimpersonate-group: dev\n"
                        "impersonate-group: qa\n"
                        "impersonate-extra-scopes-with-a-long-key: view");
    assert_string_equal(q->accept, "application/json");
    h1_req_free(r);
    stream_finish(&s);
    r = h1_req_new(0);
    h1_req_url(r, "/api", 4);
    field(r, "Impersonator", "x"); /* not the prefix */
    q = apply(r, &s);
    assert_string_equal(q->impersonate, "");
    h1_req_free(r);
    stream_finish(&s);
}

static void test_expect(void **state)
{
    struct h1_req *r = h1_req_new(0);

    field(r, "Expect", " foo , 100-Continue\t");
    assert_true(h1_req_expects_continue(r));
    assert_false(h1_req_expectation_failed(r));
    h1_req_free(r);
    r = h1_req_new(0);
    field(r, "Expect", "200-ok");
    assert_false(h1_req_expects_continue(r));
    assert_true(h1_req_expectation_failed(r)); /* 417 */
    h1_req_free(r);
    h1_req_free(NULL);
}

static void test_targets(void **state)
{
    static const struct {
        const char *target, *path, *query;
    } cases[] = {
        {"http://example.com/api?x=1", "/api", "x=1"},
        {"http://example.com?x=1", "/", "x=1"},
        {"/a#b?c", "/a#b", "c"},
        {"/", "/", ""},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        struct h1_req *r = h1_req_new(0);
        struct stream s;
        const struct request *q;

        h1_req_url(r, cases[i].target, strlen(cases[i].target));
        q = apply(r, &s);
        assert_string_equal(q->path, cases[i].path);
        assert_string_equal(q->query, cases[i].query);
        h1_req_free(r);
        stream_finish(&s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_gathered),
        cmocka_unit_test(test_expect),
        cmocka_unit_test(test_targets),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
