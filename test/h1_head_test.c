/*
 * h1_head_test.c: strict HTTP/1.1 request syntax (src/h1_head.c): every
 * request head of a table gets its status (0: accepted, with its
 * framing), every chunked body of another is accepted or refused, fed
 * whole and split at every byte, and the reader finds heads, drops empty
 * lines before them, refuses a bad request line as soon as it has ended
 * and applies the 414/431/413 limits on a real evbuffer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <event2/buffer.h>

#include "cache/rw.h"
#include "src/h1_head.h"

#define H "Host: a\r\n"

static const struct {
    const char *head;
    int status;
    enum h1_framing framing;
} heads[] = {
    {"GET /api/v1/pods?watch=1 HTTP/1.1\r\n" H "\r\n", 0, H1_FRAMING_NONE},
    {"GET /x HTTP/1.1\n" H "\n", 0, H1_FRAMING_NONE}, /* LF alone */
    {"GET /x HTTP/1.0\r\n\r\n", 0, H1_FRAMING_NONE},  /* 1.0 without Host */
    {"GET /x HTTP/1.2\r\n" H "\r\n", 0, H1_FRAMING_NONE},
    {"GET /x HTTP/1.1\r\nHost:\r\n\r\n", 0, H1_FRAMING_NONE},
    {"GET /x HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", 0, H1_FRAMING_NONE},
    {"GET http://a:1/x?y HTTP/1.1\r\n" H "\r\n", 0, H1_FRAMING_NONE},
    {"OPTIONS * HTTP/1.1\r\n" H "\r\n", 0, H1_FRAMING_NONE},
    {"CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", 0, H1_FRAMING_NONE},
    {"GET /x HTTP/1.1\r\n" H "X-A: caf\xc3\xa9  \r\n\r\n", 0, H1_FRAMING_NONE},
    {"GET /x HTTP/1.1\r\n" H "X-A:\r\n\r\n", 0, H1_FRAMING_NONE},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 0\r\n\r\n", 0, H1_FRAMING_NONE},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 12\r\n\r\n", 0,
     H1_FRAMING_LENGTH},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: Chunked\r\n\r\n", 0,
     H1_FRAMING_CHUNKED},
    /* the request line */
    {"GET /x HTTP/2.0\r\n" H "\r\n", 505, 0},
    {"GET /x HTTP/3.0\r\n" H "\r\n", 505, 0},
    {"GET /x HTTP/0.9\r\n" H "\r\n", 505, 0},
    {"PRI * HTTP/2.0\r\n\r\n", 505, 0},
    {"GET /x\r\n" H "\r\n", 400, 0},
    {"GET\r\n\r\n", 400, 0},
    {"GET /x HTTP/11.1\r\n" H "\r\n", 400, 0},
    {"GET /x http/1.1\r\n" H "\r\n", 400, 0},
    {"GET /x HTTP/1.1 \r\n" H "\r\n", 400, 0},
    {"GET /x HTTP/1\r\n" H "\r\n", 400, 0},
    {"GET  /x HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET /x  HTTP/1.1\r\n" H "\r\n", 400, 0},
    {" GET /x HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET\t/x HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"G@T /x HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET /x\x01 HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET /\xc3\xa9 HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET /x\ry HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET x HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET * HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"CONNECT /x HTTP/1.1\r\n" H "\r\n", 400, 0},
    /* field lines */
    {"GET /x HTTP/1.1\r\n" H "Ho st: a\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\nHost : a\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\nHost\t: a\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H "X(A): a\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H ": a\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H "X-A\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H "X-A: a\r\n b\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n " H "\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H "X-A: a\rb\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H "X-A: a\x01\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H "X-A: a\x7f\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H "X-A: a\x1b[0m\r\n\r\n", 400, 0},
    /* Host */
    {"GET /x HTTP/1.1\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\n" H H "\r\n", 400, 0},
    {"GET /x HTTP/1.0\r\n" H H "\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\nHost: a b\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, 0},
    {"GET /x HTTP/1.1\r\nHost: a@b\r\n\r\n", 400, 0},
    /* Content-Length and Transfer-Encoding */
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 3\r\nContent-Length: 3\r\n\r\n",
     400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 3\r\nContent-Length: 4\r\n\r\n",
     400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 3, 3\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: +3\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: -1\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 0x3\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 1 2\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length:\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 99999999999999999999\r\n\r\n",
     400, 0},
    {"POST /x HTTP/1.1\r\n" H "Content-Length: 3\r\n"
     "Transfer-Encoding: chunked\r\n\r\n",
     400, 0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: gzip\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: chunked, gzip\r\n\r\n", 400,
     0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: gzip, chunked\r\n\r\n", 501,
     0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: chunked\r\n"
     "Transfer-Encoding: chunked\r\n\r\n",
     400, 0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: chunked, chunked\r\n\r\n",
     400, 0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: xchunked\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding:\r\n\r\n", 400, 0},
    {"POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400, 0},
    /* chunked has no parameters (RFC 9112 7.1): 501 as Go's server */
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: chunked;x=1\r\n\r\n", 501, 0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: chunked ; x=1\r\n\r\n", 501,
     0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: CHUNKED;\r\n\r\n", 501, 0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: chunked;x=1, gzip\r\n\r\n",
     400, 0},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: chunked \t\r\n\r\n", 0,
     H1_FRAMING_CHUNKED},
    {"POST /x HTTP/1.1\r\n" H "Transfer-Encoding: , chunked,\r\n\r\n", 0,
     H1_FRAMING_CHUNKED},
    /* the target's escapes (Go's url.ParseRequestURI); "#" is part of it */
    {"GET /a%2Fb%e6 HTTP/1.1\r\n" H "\r\n", 0, H1_FRAMING_NONE},
    {"GET /x#y HTTP/1.1\r\n" H "\r\n", 0, H1_FRAMING_NONE},
    {"GET /x?q=%zz HTTP/1.1\r\n" H "\r\n", 0, H1_FRAMING_NONE},
    {"GET /x%zz HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET /x%2 HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET /x% HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET /x%?q HTTP/1.1\r\n" H "\r\n", 400, 0},
    {"GET http://a/%g0 HTTP/1.1\r\n" H "\r\n", 400, 0},
    /* the end */
    {"GET /x HTTP/1.1\r\n" H, 400, 0},
    {"GET /x HTTP/1.1\r\n" H "\r\nGET", 400, 0},
};

static void test_heads(void **state)
{
    struct h1_head h;
    char why[256];

    for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
        size_t len = strlen(heads[i].head);
        int rc;

        why[0] = '\0';
        rc = h1_head_parse(heads[i].head, len, &h, why, sizeof(why));
        if (rc != heads[i].status)
            fail_msg("head %zu \"%s\": got %d (%s), want %d", i, heads[i].head,
                     rc, why, heads[i].status);
        if (rc == 0)
            assert_int_equal(h.framing, heads[i].framing);
        else
            assert_true(why[0] != '\0');
    }
}

static void test_versions(void **state)
{
    struct h1_head h;
    char why[128];

    assert_int_equal(
        h1_head_parse("GET /x HTTP/1.0\r\n\r\n", 19, &h, why, sizeof(why)), 0);
    assert_int_equal(h.version, 10);
    assert_int_equal(h1_head_parse("GET /x HTTP/1.9\r\nHost: a\r\n\r\n", 28, &h,
                                   why, sizeof(why)),
                     0);
    assert_int_equal(h.version, 11);
    assert_int_equal(h1_head_parse("POST /x HTTP/1.1\r\nHost: a\r\n"
                                   "Content-Length: 0012\r\n\r\n",
                                   51, &h, why, sizeof(why)),
                     0);
    assert_int_equal(h.content_length, 12);
}

/* A NUL in a field value (strlen cannot give these heads' length). */
static void test_nul(void **state)
{
    static const char head[] =
        "GET /x HTTP/1.1\r\nHost: a\r\nX-A: a\0b\r\n\r\n";
    struct h1_head h;
    char why[128];

    assert_int_equal(
        h1_head_parse(head, sizeof(head) - 1, &h, why, sizeof(why)), 400);
    assert_non_null(strstr(why, "0x00"));
}

static const struct {
    const char *body;
    bool ok;
    uint64_t data;
} bodies[] = {
    {"3\r\nabc\r\n0\r\n\r\n", true, 3},
    {"3;a=b\r\nabc\r\n0\r\n\r\n", true, 3},
    {"3 ;a=\"b c\"\r\nabc\r\n0\r\n\r\n", true, 3},
    {"A\r\n0123456789\r\n00\r\n\r\n", true, 10},
    {"0\r\nX-T: 1\r\nX-U:\r\n\r\n", true, 0},
    {"0\r\n\r\n", true, 0},
    {"0x3\r\nabc\r\n0\r\n\r\n", false, 0},
    {"-3\r\nabc\r\n0\r\n\r\n", false, 0},
    {"+3\r\nabc\r\n0\r\n\r\n", false, 0},
    {" 3\r\nabc\r\n0\r\n\r\n", false, 0},
    {"3 \r\nabc\r\n0\r\n\r\n", false, 0},
    {"\r\nabc\r\n0\r\n\r\n", false, 0},
    {"g\r\nabc\r\n0\r\n\r\n", false, 0},
    {"3\nabc\n0\n\n", false, 0},
    {"3\r\nabcXX0\r\n\r\n", false, 0},
    {"3\r\nabc\n0\r\n\r\n", false, 0},
    {"3;a\x01\r\nabc\r\n0\r\n\r\n", false, 0},
    {"3\rX\nabc\r\n0\r\n\r\n", false, 0},
    {"fffffffffffffffff\r\n", false, 0},
    {"0\r\nX T: 1\r\n\r\n", false, 0},
    {"0\r\n X-T: 1\r\n\r\n", false, 0},
    {"0\r\nX-T: a\x01\r\n\r\n", false, 0},
    {"0\r\n\n", false, 0},
};

/* Feeds body in pieces of step bytes; returns 1 done, 0 more due, -1. */
static int feed(const char *body, size_t len, size_t step,
                struct h1_chunked *ch)
{
    char why[128];

    memset(ch, 0, sizeof(*ch));
    for (size_t at = 0; at < len && !ch->done; at += step) {
        size_t n = len - at < step ? len - at : step;
        long got =
            h1_head_chunked_feed(ch, body + at, n, 1024, why, sizeof(why));

        if (got < 0)
            return -1;
        if ((size_t)got < n && !ch->done)
            fail_msg("consumed %ld of %zu without being done", got, n);
    }
    return ch->done ? 1 : 0;
}

static void test_chunked(void **state)
{
    struct h1_chunked ch;

    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
        size_t len = strlen(bodies[i].body);

        for (size_t step = 1; step <= len; step++) {
            int rc = feed(bodies[i].body, len, step, &ch);

            if (bodies[i].ok && (rc != 1 || ch.data != bodies[i].data))
                fail_msg("body %zu (step %zu): got %d, data %llu", i, step, rc,
                         (unsigned long long)ch.data);
            if (!bodies[i].ok && rc == 1)
                fail_msg("body %zu (step %zu) accepted", i, step);
        }
    }
    /* the next request after a complete body is not consumed */
    memset(&ch, 0, sizeof(ch));
    assert_int_equal(
        h1_head_chunked_feed(&ch, "0\r\n\r\nGET", 8, 1024, NULL, 0), 5);
    assert_true(ch.done);
}

/* The reader on an evbuffer: empty lines before the request dropped, the
 * head's end found across reads, the limits. */
static void test_reader(void **state)
{
    struct evbuffer *in = evbuffer_new();
    struct h1_reader r;
    char why[128];
    int status = 0;
    long len;

    memset(&r, 0, sizeof(r));
    evbuffer_add_printf(in, "\r\n\nGET /x HTTP/1.1\r\nHo");
    assert_int_equal(
        h1_head_reader_head(&r, in, 100, &status, why, sizeof(why)), 0);
    evbuffer_add_printf(in, "st: a\r\n\r\nnext");
    len = h1_head_reader_head(&r, in, 100, &status, why, sizeof(why));
    assert_int_equal(len, 28);
    assert_int_equal(h1_head_parse((const char *)evbuffer_pullup(in, len),
                                   (size_t)len, &r.head, why, sizeof(why)),
                     0);
    h1_head_reader_head_done(&r, in, (size_t)len);
    assert_int_equal(
        h1_head_reader_body(&r, in, NULL, 100, 10, &status, why, 128),
        H1_READER_DONE);
    assert_int_equal(evbuffer_get_length(in), 4);
    evbuffer_drain(in, 4);

    memset(&r, 0, sizeof(r));
    evbuffer_add_printf(in, "GET /%0200d", 0);
    assert_int_equal(
        h1_head_reader_head(&r, in, 100, &status, why, sizeof(why)), RW_EINVAL);
    assert_int_equal(status, 414);
    evbuffer_drain(in, evbuffer_get_length(in));

    memset(&r, 0, sizeof(r));
    evbuffer_add_printf(in, "GET / HTTP/1.1\r\nX: %0200d\r\n", 0);
    assert_int_equal(
        h1_head_reader_head(&r, in, 100, &status, why, sizeof(why)), RW_EINVAL);
    assert_int_equal(status, 431);
    evbuffer_drain(in, evbuffer_get_length(in));

    /* a request line is checked as soon as it has ended (HTTP/0.9 sends
     * one alone) */
    memset(&r, 0, sizeof(r));
    evbuffer_add_printf(in, "\r\nGET /");
    assert_int_equal(
        h1_head_reader_head(&r, in, 100, &status, why, sizeof(why)), 0);
    evbuffer_add_printf(in, "\r\n");
    assert_int_equal(
        h1_head_reader_head(&r, in, 100, &status, why, sizeof(why)), RW_EINVAL);
    assert_int_equal(status, 400);
    assert_non_null(strstr(why, "HTTP/0.9"));
    evbuffer_drain(in, evbuffer_get_length(in));
    memset(&r, 0, sizeof(r));
    evbuffer_add_printf(in, "GET / HTTP/2.0\r\nHost: a\r\n");
    assert_int_equal(
        h1_head_reader_head(&r, in, 100, &status, why, sizeof(why)), RW_EINVAL);
    assert_int_equal(status, 505);
    evbuffer_drain(in, evbuffer_get_length(in));
    memset(&r, 0, sizeof(r));
    evbuffer_add_printf(in, "GET / HTTP/1.1\r\nHo st");
    assert_int_equal(
        h1_head_reader_head(&r, in, 100, &status, why, sizeof(why)), 0);
    evbuffer_drain(in, evbuffer_get_length(in));

    memset(&r, 0, sizeof(r));
    r.head_done = true;
    r.head.framing = H1_FRAMING_CHUNKED;
    evbuffer_add_printf(in, "20\r\n%032d\r\n0\r\n\r\n", 0);
    assert_int_equal(
        h1_head_reader_body(&r, in, NULL, 100, 16, &status, why, 128),
        RW_EINVAL);
    assert_int_equal(status, 413);
    evbuffer_free(in);
}

/* A kept body: its data without the chunk framing, in any pieces, the
 * next request left in the input; Content-Length bodies alike; at most
 * the limit is ever kept. */
static void test_reader_keep(void **state)
{
    static const char chunked[] = "3;x=y\r\nabc\r\n4\r\ndefg\r\n0\r\n"
                                  "T: v\r\n\r\n";
    struct evbuffer *in = evbuffer_new(), *keep = evbuffer_new();
    struct h1_reader r;
    char why[128], out[16];
    int status = 0, rc = 0;

    memset(&r, 0, sizeof(r));
    r.head_done = true;
    r.head.framing = H1_FRAMING_CHUNKED;
    for (size_t i = 0; i < sizeof(chunked) - 1; i++) {
        assert_int_equal(rc, 0);
        evbuffer_add(in, chunked + i, 1); /* a byte at a time */
        if (i == sizeof(chunked) - 2)
            evbuffer_add(in, "GET", 3); /* the next request, with the last */
        rc = h1_head_reader_body(&r, in, keep, 100, 16, &status, why, 128);
    }
    assert_int_equal(rc, H1_READER_DONE);
    assert_int_equal(evbuffer_get_length(keep), 7);
    evbuffer_remove(keep, out, 7);
    assert_memory_equal(out, "abcdefg", 7);
    assert_int_equal(evbuffer_get_length(in), 3); /* the next request */
    evbuffer_drain(in, 3);

    memset(&r, 0, sizeof(r));
    r.head_done = true;
    r.head.framing = H1_FRAMING_LENGTH;
    r.body_left = r.head.content_length = 5;
    evbuffer_add(in, "hello", 5);
    assert_int_equal(
        h1_head_reader_body(&r, in, keep, 100, 16, &status, why, 128),
        H1_READER_DONE);
    assert_int_equal(evbuffer_get_length(keep), 5);
    evbuffer_drain(keep, 5);

    /* a chunk passing the limit is refused before its data is kept */
    memset(&r, 0, sizeof(r));
    r.head_done = true;
    r.head.framing = H1_FRAMING_CHUNKED;
    evbuffer_add_printf(in, "8\r\n%08d\r\n10\r\n", 0);
    assert_int_equal(
        h1_head_reader_body(&r, in, keep, 100, 16, &status, why, 128),
        RW_EINVAL);
    assert_int_equal(status, 413);
    assert_int_equal(evbuffer_get_length(keep), 8);
    assert_non_null(strstr(why, "Request entity too large: limit is 16"));
    evbuffer_free(keep);
    evbuffer_free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heads),  cmocka_unit_test(test_versions),
        cmocka_unit_test(test_nul),    cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_reader), cmocka_unit_test(test_reader_keep),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
