/*
 * stream_test.c: the protocol-independent half of struct stream
 * (src/stream.c) against a fake connection module: request copying,
 * header list, the begin/write/end contract, HEAD, zero-length frames,
 * the on_drain edge, gone streams and the exactly-once on_close.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "proto/frame.h"
#include "src/stream.h"
#include "src/stream_impl.h"

/* ---- a fake connection module ---- */

static struct fake {
    int begins, writes, frames, ends;
    int status;
    int64_t content_length;
    size_t pending;
    size_t bytes;
    int headers_seen;
} fake;

static void fake_begin(struct stream *s, int status, const char *ct,
                       int64_t content_length)
{
    const struct stream_header *h;

    fake.begins++;
    fake.status = status;
    fake.content_length = content_length;
    STAILQ_FOREACH(h, &s->headers, link)
        fake.headers_seen++;
}

static void fake_write(struct stream *s, struct rbuf *buf, size_t off,
                       size_t len)
{
    fake.writes++;
    fake.bytes += len;
    fake.pending += len;
}

static void fake_write_frame(struct stream *s, struct rbuf *f)
{
    fake.frames++;
    fake.bytes += frame_payload_len(f);
    fake.pending += f->len;
}

static size_t fake_pending(const struct stream *s)
{
    return fake.pending;
}

static void fake_end(struct stream *s)
{
    fake.ends++;
}

static const struct stream_ops fake_ops = {
    .begin = fake_begin,
    .write = fake_write,
    .write_frame = fake_write_frame,
    .pending = fake_pending,
    .end = fake_end,
};

static int drains, closes;

static void on_drain(struct stream *s, void *arg)
{
    drains++;
}

static void on_close(struct stream *s, void *arg)
{
    closes++;
}

static struct stream *new_stream(const char *method)
{
    struct stream *s = calloc(1, sizeof(*s));
    struct stream_value fields[STREAM_FIELD_COUNT] = {
        [STREAM_FIELD_ACCEPT] = {"application/json", 16},
        [STREAM_FIELD_IF_NONE_MATCH] = {"\"ab\"x", 4},
    };

    memset(&fake, 0, sizeof(fake));
    drains = closes = 0;
    stream_init(s, &fake_ops, 1);
    stream_set_request(s, 11, method, strlen(method), "/api/v1/pods", 12,
                       "watch=1", 7, fields);
    stream_set_callbacks(s, on_drain, on_close, NULL);
    return s;
}

static void free_stream(struct stream *s)
{
    stream_finish(s);
    free(s);
}

/* ---- tests ---- */

static void test_request(void **state)
{
    struct stream *s = new_stream("PATCH");
    const struct request *r = stream_request(s);

    assert_int_equal(r->method, STREAM_PATCH);
    assert_string_equal(r->method_name, "PATCH");
    assert_string_equal(r->path, "/api/v1/pods");
    assert_string_equal(r->query, "watch=1");
    assert_string_equal(r->accept, "application/json");
    assert_string_equal(r->user_agent, "");
    assert_string_equal(r->if_none_match, "\"ab\"");
    assert_int_equal(r->http_version, 11);
    assert_int_equal(stream_protocol(s), 1);
    free_stream(s);

    s = new_stream("BREW");
    assert_int_equal(stream_request(s)->method, STREAM_OTHER);
    assert_string_equal(stream_request(s)->method_name, "BREW");
    free_stream(s);

    /* the fields handlers see, by name in any case */
    assert_int_equal(stream_field_index("Accept", 6), STREAM_FIELD_ACCEPT);
    assert_int_equal(stream_field_index("user-agent", 10),
                     STREAM_FIELD_USER_AGENT);
    assert_int_equal(stream_field_index("If-None-Match", 13),
                     STREAM_FIELD_IF_NONE_MATCH);
    assert_int_equal(stream_field_index("accept-encoding", 15), -1);
    assert_int_equal(stream_field_index("accep", 5), -1);
}

static void test_respond(void **state)
{
    struct stream *s = new_stream("GET");
    struct rbuf *body = rbuf_from_str("{}");

    stream_add_header(s, "retry-after", "1");
    stream_add_header(s, "x-two", "2");
    stream_respond(s, 429, "application/json", body);
    assert_int_equal(fake.begins, 1);
    assert_int_equal(fake.status, 429);
    assert_int_equal(fake.content_length, 2);
    assert_int_equal(fake.headers_seen, 2);
    assert_int_equal(fake.writes, 1);
    assert_int_equal(fake.ends, 1);
    assert_true(STAILQ_EMPTY(&s->headers));
    free_stream(s);
    assert_int_equal(closes, 1);
    rbuf_unref(body);
}

static void test_head_and_empty_frames(void **state)
{
    struct stream *s = new_stream("HEAD");
    struct rbuf *body = rbuf_from_str("hello");
    struct rbuf *empty = frame_alloc(0), *f = frame_from("x", 1);

    stream_respond(s, 200, "text/plain", body);
    assert_int_equal(fake.content_length, 5); /* as GET would say */
    assert_int_equal(fake.writes, 0);         /* but no body */
    assert_int_equal(fake.ends, 1);
    free_stream(s);

    s = new_stream("GET");
    stream_begin(s, 200, NULL, -1);
    stream_write_frame(s, empty); /* would be a last-chunk on HTTP/1.1 */
    assert_int_equal(fake.frames, 0);
    stream_write_frame(s, f);
    assert_int_equal(fake.frames, 1);
    stream_end(s);
    free_stream(s);
    rbuf_unref(body);
    rbuf_unref(empty);
    rbuf_unref(f);
}

static void test_drain_edge(void **state)
{
    struct stream *s = new_stream("GET");
    struct rbuf *big = rbuf_new(STREAM_LOW_WATER);

    stream_begin(s, 200, NULL, -1);
    stream_write(s, big, 0, 100);
    fake.pending = 0;
    stream_drained(s); /* never above: no call */
    assert_int_equal(drains, 0);

    stream_write(s, big, 0, STREAM_LOW_WATER);
    stream_write(s, big, 0, 10); /* above now */
    stream_drained(s);           /* still above */
    assert_int_equal(drains, 0);
    fake.pending = STREAM_LOW_WATER;
    stream_drained(s);
    assert_int_equal(drains, 1);
    stream_drained(s); /* once per crossing */
    assert_int_equal(drains, 1);

    fake.pending = STREAM_LOW_WATER - 1;
    stream_write(s, big, 0, 1); /* at the mark, not above */
    stream_drained(s);
    assert_int_equal(drains, 1);
    stream_end(s);
    free_stream(s);
    rbuf_unref(big);
}

static void test_gone(void **state)
{
    struct stream *s = new_stream("GET");
    struct rbuf *b = rbuf_from_str("abc");

    stream_begin(s, 200, NULL, -1);
    stream_gone(s);
    assert_int_equal(stream_pending(s), SIZE_MAX);
    stream_write(s, b, 0, 3);
    assert_int_equal(fake.writes, 0);
    stream_end(s);
    assert_int_equal(fake.ends, 0);
    stream_finish(s);
    stream_finish(s); /* idempotent: on_close once */
    assert_int_equal(closes, 1);
    free(s);
    rbuf_unref(b);
}

static void test_length_exact(void **state)
{
    struct stream *s = new_stream("GET");
    struct rbuf *b = rbuf_from_str("abcdef");

    stream_begin(s, 200, NULL, 6);
    stream_write(s, b, 0, 2);
    stream_write(s, b, 2, 4);
    assert_int_equal(fake.bytes, 6);
    stream_end(s);
    free_stream(s);
    rbuf_unref(b);
}

static void test_reason_date(void **state)
{
    const char *d = stream_date();

    assert_string_equal(stream_reason(404), "Not Found");
    assert_string_equal(stream_reason(431), "Request Header Fields Too Large");
    assert_string_equal(stream_reason(799), "Unknown");
    assert_int_equal(strlen(d), 29); /* "Sun, 06 Nov 1994 08:49:37 GMT" */
    assert_string_equal(d + 25, " GMT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request),
        cmocka_unit_test(test_respond),
        cmocka_unit_test(test_head_and_empty_frames),
        cmocka_unit_test(test_drain_edge),
        cmocka_unit_test(test_gone),
        cmocka_unit_test(test_length_exact),
        cmocka_unit_test(test_reason_date),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
