/*
 * h2_out_test.c: the HTTP/2 connection's output queue (src/h2_out.c,
 * included for its statics): copies into the arena ring (coalesced,
 * wrapping, grown while pieces point into it), payload references
 * (taken, handed over, released once written), constant pieces, and
 * partial writes at any byte.  A seeded random sequence of appends and
 * consumes must reproduce the appended byte stream exactly, keep the
 * byte count, and release every reference.  The socket path itself is
 * covered by test/integration/front_test.py and the fleet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/h2_out.c"

#define STREAM_MAX (8u << 20)
#define OPS 40000

struct model {
    uint8_t *bytes; /* everything appended, in order */
    size_t appended, consumed;
};

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return rnd_state >> 8;
}

static void model_add(struct model *m, const void *p, size_t len)
{
    assert_true(m->appended + len <= STREAM_MAX);
    memcpy(m->bytes + m->appended, p, len);
    m->appended += len;
}

/* Checks that the queue holds exactly the model's unconsumed bytes. */
static void check_queue(const struct h2_out *o, const struct model *m)
{
    size_t at = m->consumed;

    assert_int_equal(o->bytes, m->appended - m->consumed);
    for (uint32_t n = 0; n < o->count; n++) {
        const struct iovec *v = &o->iov[(o->head + n) & (o->cap - 1)];

        assert_true(v->iov_len > 0);
        assert_memory_equal(v->iov_base, m->bytes + at, v->iov_len);
        at += v->iov_len;
    }
    assert_int_equal(at, m->appended);
}

/* Writes n bytes as the kernel would: checks them, then consumes. */
static void consume(struct h2_out *o, struct model *m, size_t n)
{
    check_queue(o, m);
    h2_out_consume(o, n);
    m->consumed += n;
}

static void test_out_random(void **state)
{
    static const uint8_t zeros[64];
    struct h2_out o = {0};
    struct model m = {.bytes = malloc(STREAM_MAX)};
    struct rbuf *b = rbuf_new(8192);
    uint8_t tmp[2048];

    for (size_t i = 0; i < b->len; i++)
        b->data[i] = (char)rnd();
    for (int op = 0; op < OPS; op++) {
        uint32_t r = rnd() % 100;

        if (r < 35) { /* a copy: a frame header, a control frame */
            size_t len = rnd() % 4 == 0 ? 1 + rnd() % 2000 : 1 + rnd() % 40;

            for (size_t i = 0; i < len; i++)
                tmp[i] = (uint8_t)rnd();
            h2_out_copy(&o, tmp, len);
            model_add(&m, tmp, len);
        } else if (r < 70) { /* a payload reference */
            size_t off = rnd() % b->len;
            size_t len = rnd() % (b->len - off + 1);
            bool give = rnd() % 2;

            if (give)
                rbuf_ref(b);
            h2_out_ref(&o, b, off, len, give);
            model_add(&m, b->data + off, len);
        } else if (r < 73) {
            size_t len = rnd() % sizeof(zeros);

            h2_out_static(&o, zeros, len);
            model_add(&m, zeros, len);
        } else if (o.bytes > 0) { /* a partial or whole write */
            size_t n = r < 95 ? 1 + rnd() % o.bytes : o.bytes;

            consume(&o, &m, n);
            h2_out_trim(&o, rnd() % 2);
        }
        if (m.appended > STREAM_MAX - 16384) {
            consume(&o, &m, o.bytes);
            m.appended = m.consumed = 0;
        }
    }
    check_queue(&o, &m);
    consume(&o, &m, o.bytes);
    assert_int_equal(o.count, 0);
    assert_int_equal(o.arena_pieces, 0);
    assert_int_equal(o.arena_head, 0);
    assert_int_equal(o.arena_tail, 0);
    assert_int_equal(b->refs, 1); /* every reference released */
    h2_out_clear(&o);
    rbuf_unref(b);
    free(m.bytes);
}

/* Copies that follow each other in the arena share one iovec; the arena
 * grows while a partly written copy points into it. */
static void test_out_coalesce_and_grow(void **state)
{
    struct h2_out o = {0};
    struct rbuf *b = rbuf_from_str("payload");
    uint8_t big[3000];

    memset(big, 'x', sizeof(big));
    h2_out_copy(&o, "abc", 3);
    h2_out_copy(&o, "def", 3);
    assert_int_equal(o.count, 1);
    assert_memory_equal(o.iov[o.head].iov_base, "abcdef", 6);
    h2_out_ref(&o, b, 0, 7, false);
    h2_out_copy(&o, "ghi", 3);
    assert_int_equal(o.count, 3);
    h2_out_consume(&o, 2);             /* "cdef" left of the first copy */
    h2_out_copy(&o, big, sizeof(big)); /* beyond H2_ARENA_MIN: grows */
    assert_true(o.arena_cap >= sizeof(big) + 7);
    assert_memory_equal(o.iov[o.head].iov_base, "cdef", 4);
    assert_int_equal(o.bytes, 4 + 7 + 3 + sizeof(big));
    assert_int_equal(b->refs, 2);
    h2_out_consume(&o, 4 + 7);
    assert_int_equal(b->refs, 1);
    h2_out_consume(&o, o.bytes);
    h2_out_trim(&o, false);
    assert_null(o.iov);
    assert_null(o.arena);
    rbuf_unref(b);
}

/* Clearing a queue releases the references it still holds. */
static void test_out_clear_releases(void **state)
{
    struct h2_out o = {0};
    struct rbuf *b = rbuf_from_str("0123456789");

    for (int i = 0; i < 100; i++) {
        h2_out_copy(&o, "h", 1);
        h2_out_ref(&o, b, (size_t)i % 10, 1, false);
    }
    h2_out_consume(&o, 51);
    assert_int_equal(b->refs, 1 + 75);
    h2_out_clear(&o);
    assert_int_equal(b->refs, 1);
    rbuf_unref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_random),
        cmocka_unit_test(test_out_coalesce_and_grow),
        cmocka_unit_test(test_out_clear_releases),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
