/*
 * h2_body_test.c: an HTTP/2 stream's unframed body (src/h2_body.c): the
 * ring grows past its minimal size and keeps order, h2_body_emit moves
 * bytes into the output queue by reference (a segment taken whole hands
 * its reference over, a partial one takes its own), an emptied ring
 * beyond the minimal size is released, and h2_body_clear releases every
 * reference.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rbuf.h"
#include "cache/rw.h"
#include "src/h2_body.h"
#include "src/h2_out.h"

static void test_push_emit_clear(void **state)
{
    struct rbuf *b = rbuf_new(100);
    struct h2_body body = {0};
    struct h2_out out = {0};

    for (int i = 0; i < 6; i++) /* beyond H2_BODY_SEGS_MIN: grows */
        h2_body_push(&body, b, (size_t)i * 10, 10);
    assert_int_equal(body.queued, 60);
    assert_int_equal(body.cap, 8);
    assert_int_equal(b->refs, 7);
    /* one whole segment and half the next: 1 reference handed over, 1
     * more taken for the half */
    h2_body_emit(&body, &out, 15);
    assert_int_equal(body.queued, 45);
    assert_int_equal(out.bytes, 15);
    assert_int_equal(b->refs, 8);
    assert_ptr_equal(out.iov[out.head].iov_base, b->data);
    assert_ptr_equal(out.iov[(out.head + 1) & (out.cap - 1)].iov_base,
                     b->data + 10);
    /* the rest: the emptied ring (above the minimal size) is released */
    h2_body_emit(&body, &out, 45);
    assert_int_equal(body.queued, 0);
    assert_null(body.segs);
    h2_out_clear(&out);
    assert_int_equal(b->refs, 1);

    h2_body_push(&body, b, 0, 100);
    h2_body_push(&body, b, 0, 1);
    h2_body_clear(&body);
    assert_int_equal(b->refs, 1);
    assert_int_equal(body.queued, 0);
    rbuf_unref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_push_emit_clear),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
