/*
 * grpc_test.c: gRPC length-prefixed framing (proto/grpc.c): prefixes,
 * encoding into rbufs and caller buffers, and the streaming deframer fed
 * whole, byte by byte and in every two-way split, with zero-copy delivery
 * when a message lies in one slice, the size limit and the compressed flag.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "proto/grpc.h"

#define MAX_SEEN 16

struct seen {
    size_t n;
    size_t len[MAX_SEEN];
    char data[MAX_SEEN][64];
    const uint8_t *ptr[MAX_SEEN];
    int stop_after; /* return 42 after this many messages (0 = never) */
};

static int seen_cb(const uint8_t *msg, size_t len, void *arg)
{
    struct seen *s = arg;

    assert_true(s->n < MAX_SEEN);
    assert_true(len < sizeof(s->data[0]));
    memcpy(s->data[s->n], msg, len);
    s->len[s->n] = len;
    s->ptr[s->n] = msg;
    s->n++;
    if (s->stop_after && (int)s->n == s->stop_after)
        return 42;
    return 0;
}

/* Three frames back to back: "hello", "" and "world!". */
static size_t three_frames(uint8_t *out)
{
    size_t off = 0;
    long n;

    n = grpc_frame_encode_into(out + off, 64, "hello", 5);
    assert_int_equal(n, 10);
    off += (size_t)n;
    n = grpc_frame_encode_into(out + off, 64, "", 0);
    assert_int_equal(n, 5);
    off += (size_t)n;
    n = grpc_frame_encode_into(out + off, 64, "world!", 6);
    assert_int_equal(n, 11);
    return off + (size_t)n;
}

static void check_three(const struct seen *s)
{
    assert_int_equal(s->n, 3);
    assert_int_equal(s->len[0], 5);
    assert_memory_equal(s->data[0], "hello", 5);
    assert_int_equal(s->len[1], 0);
    assert_int_equal(s->len[2], 6);
    assert_memory_equal(s->data[2], "world!", 6);
}

static void test_prefix(void **state)
{
    uint8_t p[GRPC_PREFIX_LEN];
    struct rbuf *b;

    grpc_prefix_write(p, 0x01020304);
    assert_memory_equal(p, "\0\x01\x02\x03\x04", 5);
    b = grpc_frame_encode("abc", 3);
    assert_int_equal(b->len, 8);
    assert_memory_equal(b->data,
                        "\0\0\0\0\x03"
                        "abc",
                        8);
    rbuf_unref(b);
    b = grpc_frame_encode(NULL, 0);
    assert_int_equal(b->len, 5);
    assert_memory_equal(b->data, "\0\0\0\0\0", 5);
    rbuf_unref(b);
    assert_int_equal(grpc_frame_encode_into(p, 5, "x", 1), RW_ELIMIT);
    assert_string_equal(grpc_status_name(11), "OUT_OF_RANGE");
    assert_string_equal(grpc_status_name(14), "UNAVAILABLE");
    assert_string_equal(grpc_status_name(99), "UNKNOWN");
    assert_string_equal(grpc_status_name(-1), "UNKNOWN");
}

static void test_whole_zero_copy(void **state)
{
    uint8_t buf[64];
    size_t len = three_frames(buf);
    struct grpc_deframer d;
    struct seen s = {0};

    grpc_deframer_init(&d, 0);
    assert_true(grpc_deframer_idle(&d));
    assert_int_equal(grpc_deframer_feed(&d, buf, len, seen_cb, &s), 0);
    check_three(&s);
    /* Whole messages in one slice are delivered in place. */
    assert_ptr_equal(s.ptr[0], buf + 5);
    assert_ptr_equal(s.ptr[2], buf + 20);
    assert_null(d.buf);
    assert_true(grpc_deframer_idle(&d));
    grpc_deframer_fini(&d);
}

static void test_byte_by_byte(void **state)
{
    uint8_t buf[64];
    size_t len = three_frames(buf);
    struct grpc_deframer d;
    struct seen s = {0};

    grpc_deframer_init(&d, 0);
    for (size_t i = 0; i < len; i++) {
        assert_int_equal(grpc_deframer_feed(&d, buf + i, 1, seen_cb, &s), 0);
        if (i == 3)
            assert_false(grpc_deframer_idle(&d));
    }
    check_three(&s);
    assert_true(grpc_deframer_idle(&d));
    grpc_deframer_fini(&d);
}

static void test_every_split(void **state)
{
    uint8_t buf[64];
    size_t len = three_frames(buf);

    for (size_t cut = 0; cut <= len; cut++) {
        struct grpc_deframer d;
        struct seen s = {0};

        grpc_deframer_init(&d, 0);
        assert_int_equal(grpc_deframer_feed(&d, buf, cut, seen_cb, &s), 0);
        assert_int_equal(
            grpc_deframer_feed(&d, buf + cut, len - cut, seen_cb, &s), 0);
        check_three(&s);
        assert_true(grpc_deframer_idle(&d));
        grpc_deframer_fini(&d);
    }
}

static void test_prefix_split_then_whole_body(void **state)
{
    uint8_t buf[64];
    struct grpc_deframer d;
    struct seen s = {0};

    three_frames(buf);
    grpc_deframer_init(&d, 0);
    /* The prefix alone, then the whole body in the next slice: no copy. */
    assert_int_equal(grpc_deframer_feed(&d, buf, 5, seen_cb, &s), 0);
    assert_int_equal(s.n, 0);
    assert_int_equal(grpc_deframer_feed(&d, buf + 5, 5, seen_cb, &s), 0);
    assert_int_equal(s.n, 1);
    assert_ptr_equal(s.ptr[0], buf + 5);
    grpc_deframer_fini(&d);
}

static void test_oversize(void **state)
{
    uint8_t frame[16];
    struct grpc_deframer d;
    struct seen s = {0};

    grpc_deframer_init(&d, 4);
    assert_int_equal(grpc_frame_encode_into(frame, sizeof(frame), "abcd", 4),
                     9);
    assert_int_equal(grpc_deframer_feed(&d, frame, 9, seen_cb, &s), 0);
    assert_int_equal(s.n, 1);
    assert_int_equal(grpc_frame_encode_into(frame, sizeof(frame), "abcde", 5),
                     10);
    /* Refused from the prefix alone, before any body byte arrives. */
    assert_int_equal(grpc_deframer_feed(&d, frame, 5, seen_cb, &s), RW_ELIMIT);
    assert_int_equal(grpc_deframer_feed(&d, frame + 5, 5, seen_cb, &s),
                     RW_ELIMIT);
    assert_int_equal(s.n, 1);
    grpc_deframer_fini(&d);

    /* A prefix announcing 4 GiB does not allocate it. */
    grpc_deframer_init(&d, 0);
    assert_int_equal(
        grpc_deframer_feed(&d, "\0\xff\xff\xff\xff", 5, seen_cb, &s),
        RW_ELIMIT);
    grpc_deframer_fini(&d);
}

static void test_compressed(void **state)
{
    struct grpc_deframer d;
    struct seen s = {0};

    grpc_deframer_init(&d, 0);
    assert_int_equal(grpc_deframer_feed(&d,
                                        "\x01\0\0\0\x02"
                                        "ab",
                                        7, seen_cb, &s),
                     RW_EPROTO);
    assert_int_equal(s.n, 0);
    grpc_deframer_fini(&d);
    grpc_deframer_init(&d, 0);
    assert_int_equal(grpc_deframer_feed(&d, "\x80\0\0\0\0", 5, seen_cb, &s),
                     RW_EPROTO);
    grpc_deframer_fini(&d);
}

static void test_callback_stops(void **state)
{
    uint8_t buf[64];
    size_t len = three_frames(buf);
    struct grpc_deframer d;
    struct seen s = {.stop_after = 1};

    grpc_deframer_init(&d, 0);
    assert_int_equal(grpc_deframer_feed(&d, buf, len, seen_cb, &s), 42);
    assert_int_equal(s.n, 1);
    /* Stopped for good. */
    assert_int_equal(grpc_deframer_feed(&d, buf, len, seen_cb, &s), 42);
    assert_int_equal(s.n, 1);
    grpc_deframer_fini(&d);
}

static int big_cb(const uint8_t *msg, size_t len, void *arg)
{
    size_t *count = arg;

    for (size_t i = 0; i < len; i++)
        assert_int_equal(msg[i], (uint8_t)(i * 7));
    *count += len;
    return 0;
}

static void test_large_split(void **state)
{
    size_t len = 1000000;
    uint8_t *msg = malloc(len);
    struct rbuf *f;
    struct grpc_deframer d;
    size_t got = 0;

    for (size_t i = 0; i < len; i++)
        msg[i] = (uint8_t)(i * 7);
    f = grpc_frame_encode(msg, len);
    grpc_deframer_init(&d, 0);
    /* 16 KiB slices, like HTTP/2 DATA frames. */
    for (size_t off = 0; off < f->len; off += 16384) {
        size_t n = RW_MIN((size_t)16384, f->len - off);

        assert_int_equal(grpc_deframer_feed(&d, f->data + off, n, big_cb, &got),
                         0);
    }
    assert_int_equal(got, len);
    assert_true(grpc_deframer_idle(&d));
    assert_null(d.buf); /* large assembly buffers are not kept */
    grpc_deframer_fini(&d);
    rbuf_unref(f);
    free(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefix),
        cmocka_unit_test(test_whole_zero_copy),
        cmocka_unit_test(test_byte_by_byte),
        cmocka_unit_test(test_every_split),
        cmocka_unit_test(test_prefix_split_then_whole_body),
        cmocka_unit_test(test_oversize),
        cmocka_unit_test(test_compressed),
        cmocka_unit_test(test_callback_stops),
        cmocka_unit_test(test_large_split),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
