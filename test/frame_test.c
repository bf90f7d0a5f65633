/*
 * frame_test.c: fixed-width chunk frames (proto/frame.c): the head is
 * "%08zx\r\n" of the payload length, the tail "\r\n", and the payload
 * sits at FRAME_HEAD_LEN byte for byte.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "proto/frame.h"

/* Checks the framing of f around a payload of len bytes. */
static void assert_framed(struct rbuf *f, size_t len)
{
    char head[32];

    snprintf(head, sizeof(head), "%08zx\r\n", len);
    assert_int_equal(f->len, FRAME_HEAD_LEN + len + FRAME_TAIL_LEN);
    assert_memory_equal(f->data, head, FRAME_HEAD_LEN);
    assert_memory_equal(f->data + FRAME_HEAD_LEN + len, "\r\n", FRAME_TAIL_LEN);
    assert_int_equal(f->data[f->len], '\0');
    assert_int_equal(frame_payload_len(f), len);
    assert_ptr_equal(frame_payload(f), f->data + FRAME_HEAD_LEN);
}

static void test_alloc_then_fill(void **state)
{
    struct rbuf *f = frame_alloc(5);

    assert_framed(f, 5);
    memcpy(frame_payload(f), "hello", 5);
    assert_memory_equal(f->data, "00000005\r\nhello\r\n", f->len);
    assert_int_equal(f->refs, 1);
    rbuf_unref(f);
}

static void test_from_copies_payload(void **state)
{
    const char payload[] = "{\"type\":\"ADDED\",\"object\":{}}\n";
    struct rbuf *f = frame_from(payload, sizeof(payload) - 1);

    assert_framed(f, sizeof(payload) - 1);
    assert_memory_equal(frame_payload(f), payload, sizeof(payload) - 1);
    assert_memory_equal(f->data, "0000001d\r\n", FRAME_HEAD_LEN);
    rbuf_unref(f);
}

static void test_empty_payload(void **state)
{
    struct rbuf *f = frame_from(NULL, 0);

    assert_framed(f, 0);
    assert_memory_equal(f->data, "00000000\r\n\r\n", f->len);
    rbuf_unref(f);
}

static void test_large_payload_hex_width(void **state)
{
    size_t len = 0x12345;
    struct rbuf *f = frame_alloc(len);

    memset(frame_payload(f), 'x', len);
    assert_framed(f, len);
    assert_memory_equal(f->data, "00012345\r\n", FRAME_HEAD_LEN);
    rbuf_unref(f);
}

static void test_binary_payload(void **state)
{
    const char payload[] = {'\0', '\r', '\n', '\xff', '0'};
    struct rbuf *f = frame_from(payload, sizeof(payload));

    assert_framed(f, sizeof(payload));
    assert_memory_equal(frame_payload(f), payload, sizeof(payload));
    rbuf_unref(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_then_fill),
        cmocka_unit_test(test_from_copies_payload),
        cmocka_unit_test(test_empty_payload),
        cmocka_unit_test(test_large_payload_hex_width),
        cmocka_unit_test(test_binary_payload),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
