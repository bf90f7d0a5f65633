/*
 * h2_req_test.c: an HTTP/2 request's fields as nghttp2 hands them
 * (src/h2_req.c): the fields kept and the first of a repeated name,
 * :path split into path and query, and the three refusals, each leaving
 * the stream untouched: a header list beyond the limit (RFC 9113 6.5.2
 * counting, 431), no :method or :path (400), an invalid URL escape in the
 * path (a stream reset); a request body kept up to its limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/h2_req.h"
#include "src/stream.h"
#include "src/stream_impl.h"

static const struct stream_ops no_ops;

static void add(struct h2_req *r, const char *name, const char *value,
                size_t max)
{
    h2_req_add(r, (const uint8_t *)name, strlen(name), (const uint8_t *)value,
               strlen(value), max);
}

static void test_fields_and_path(void **state)
{
    struct h2_req *r = h2_req_new();
    struct stream s;
    const struct request *q;

    add(r, ":method", "GET", 65536);
    add(r, ":scheme", "http", 65536);
    add(r, ":path", "/api/v1/pods?watch=1&x=%20", 65536);
    add(r, "accept", "application/json", 65536);
    add(r, "accept", "text/plain", 65536); /* repeated: the first counts */
    add(r, "user-agent", "kubectl/v1.32", 65536);
    stream_init(&s, &no_ops, 2);
    assert_int_equal(h2_req_apply(r, &s), RW_OK);
    h2_req_free(r);
    q = stream_request(&s);
    assert_int_equal(q->method, STREAM_GET);
    assert_string_equal(q->path, "/api/v1/pods");
    assert_string_equal(q->query, "watch=1&x=%20");
    assert_string_equal(q->accept, "application/json");
    assert_string_equal(q->user_agent, "kubectl/v1.32");
    assert_string_equal(q->if_none_match, "");
    assert_string_equal(q->impersonate, "");
    assert_int_equal(q->http_version, 20);
    stream_finish(&s);
}

/* Impersonate-* fields are gathered, repeated ones included. */
static void test_gathered(void **state)
{
    struct h2_req *r = h2_req_new();
    struct stream s;

    add(r, ":method", "GET", 65536);
    add(r, ":path", "/api", 65536);
    add(r, "impersonate-user", "alice", 65536);
    add(r, "impersonate-group", "dev", 65536);
    add(r, "impersonate-group", "qa", 65536);
    stream_init(&s, &no_ops, 2);
    assert_int_equal(h2_req_apply(r, &s), RW_OK);
    h2_req_free(r);
    assert_string_equal(stream_request(&s)->impersonate,
                        "impersonate-user: alice\nimpersonate-group: dev\n"
                        "impersonate-group: qa");
    stream_finish(&s);
}

static void test_refusals(void **state)
{
    struct h2_req *r = h2_req_new();
    struct stream s;

    stream_init(&s, &no_ops, 2);
    /* 7 + 3 + 32 + 5 + 1 + 32 = 80 bytes as RFC 9113 6.5.2 counts */
    add(r, ":method", "GET", 80);
    add(r, ":path", "/", 80);
    assert_int_equal(h2_req_apply(r, &s), RW_OK);
    add(r, "x", "", 80); /* 33 more */
    assert_int_equal(h2_req_apply(r, &s), RW_ELIMIT);
    h2_req_free(r);

    r = h2_req_new();
    add(r, ":method", "GET", 65536);
    assert_int_equal(h2_req_apply(r, &s), RW_EINVAL); /* no :path */
    h2_req_free(r);

    r = h2_req_new();
    add(r, ":method", "GET", 65536);
    add(r, ":path", "/api/%zz?a=b", 65536);
    assert_int_equal(h2_req_apply(r, &s), RW_EPROTO);
    h2_req_free(r);
    h2_req_free(NULL);
    stream_finish(&s);
}

/* A POST keeps its DATA, in pieces, as the stream's body; GET has none;
 * a body beyond the limit keeps nothing. */
static void test_body(void **state)
{
    struct h2_req *r = h2_req_new();
    struct stream s;
    const char *body;
    size_t len;

    add(r, ":method", "POST", 65536);
    add(r, ":path", "/apis/x", 65536);
    assert_true(h2_req_has_body(r));
    assert_int_equal(h2_req_body_add(r, (const uint8_t *)"{\"a\":", 5, 10),
                     RW_OK);
    assert_int_equal(h2_req_body_add(r, (const uint8_t *)"1}", 2, 10), RW_OK);
    stream_init(&s, &no_ops, 2);
    assert_int_equal(h2_req_apply(r, &s), RW_OK);
    h2_req_free(r);
    body = stream_body(&s, &len);
    assert_int_equal(len, 7);
    assert_string_equal(body, "{\"a\":1}");
    stream_finish(&s);
    assert_null(stream_body(&s, &len));
    assert_int_equal(len, 0);

    r = h2_req_new();
    add(r, ":method", "HEAD", 65536);
    assert_false(h2_req_has_body(r));
    h2_req_free(r);
    r = h2_req_new();
    add(r, ":method", "GET", 65536);
    add(r, ":path", "/", 65536);
    assert_false(h2_req_has_body(r));
    stream_init(&s, &no_ops, 2);
    assert_int_equal(h2_req_apply(r, &s), RW_OK);
    assert_null(stream_body(&s, &len));
    stream_finish(&s);
    h2_req_free(r);

    r = h2_req_new();
    add(r, ":method", "PUT", 65536);
    assert_int_equal(h2_req_body_add(r, (const uint8_t *)"0123456789", 10, 10),
                     RW_OK);
    assert_int_equal(h2_req_body_add(r, (const uint8_t *)"x", 1, 10),
                     RW_ELIMIT);
    assert_int_equal(h2_req_body_add(r, (const uint8_t *)"", 0, 10), RW_ELIMIT);
    h2_req_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fields_and_path),
        cmocka_unit_test(test_gathered),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_body),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
