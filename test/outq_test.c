/*
 * outq_test.c: what a connection's buffered output costs in memory
 * (outq_copy, outq_add), counted through libevent's allocator hooks: a
 * copy after a reference starts a minimal chain, short pieces are copied,
 * and every rbuf reference is released with the buffer.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/buffer.h>
#include <event2/event.h>

#include "cache/rbuf.h"
#include "cache/rw.h"
#include "src/outq.h"

/* ---- libevent's allocations, counted ---- */

static long live_bytes;

static void *count_malloc(size_t n)
{
    void *p = malloc(n);

    live_bytes += (long)malloc_usable_size(p);
    return p;
}

static void *count_realloc(void *p, size_t n)
{
    if (p != NULL)
        live_bytes -= (long)malloc_usable_size(p);
    p = realloc(p, n);
    live_bytes += (long)malloc_usable_size(p);
    return p;
}

static void count_free(void *p)
{
    if (p != NULL)
        live_bytes -= (long)malloc_usable_size(p);
    free(p);
}

/* Queues pieces of the given sizes (cycling) until total bytes, as the
 * connection modules do; returns libevent's bytes per byte queued. */
static double queue_cost(const size_t *sizes, size_t nsizes, size_t total)
{
    struct rbuf *big = rbuf_new(64 * 1024);
    struct evbuffer *out = evbuffer_new();
    long before = live_bytes;
    bool tail_ref = false;
    size_t queued = 0;
    double cost;

    memset(big->data, 'x', big->len);
    for (size_t i = 0; queued < total; i++) {
        size_t len = sizes[i % nsizes];

        assert_int_equal(outq_add(out, &tail_ref, big, 0, len), 0);
        queued += len;
    }
    assert_int_equal(evbuffer_get_length(out), queued);
    cost = (double)(live_bytes - before) / (double)queued;
    evbuffer_free(out);
    assert_int_equal(big->refs, 1); /* every reference released */
    rbuf_unref(big);
    return cost;
}

static void test_out_copy_after_reference(void **state)
{
    struct rbuf *big = rbuf_new(64 * 1024);
    struct evbuffer *out = evbuffer_new();
    bool tail_ref = false;
    long before;

    assert_int_equal(outq_add(out, &tail_ref, big, 0, big->len), 0);
    assert_true(tail_ref);
    assert_int_equal(big->refs, 2);
    /* evbuffer_add would take a 128 KiB chain for these 2 bytes */
    before = live_bytes;
    assert_int_equal(outq_copy(out, &tail_ref, "\r\n", 2), 0);
    assert_false(tail_ref);
    assert_true(live_bytes - before <= 2048);
    /* later small copies fill that chain */
    before = live_bytes;
    for (int i = 0; i < 8; i++)
        assert_int_equal(outq_copy(out, &tail_ref, "0123456789", 10), 0);
    assert_int_equal(live_bytes, before);
    /* small pieces of a shared buffer are copied: no reference kept */
    assert_int_equal(outq_add(out, &tail_ref, big, 0, 100), 0);
    assert_int_equal(big->refs, 2);
    assert_int_equal(evbuffer_get_length(out), big->len + 2 + 80 + 100);
    evbuffer_free(out);
    assert_int_equal(big->refs, 1);
    rbuf_unref(big);
}

static void test_out_cost(void **state)
{
    static const size_t small[] = {150};
    static const size_t mixed[] = {150, 150, 150, 2000};
    static const size_t spread[] = {150, 600, 150, 5000, 300, 300};
    static const size_t list[] = {1500, 1};
    static const size_t blocks[] = {65536, 10};

    /* measured with libevent 2.1.12; the former rule (copies under 512
     * bytes by evbuffer_add) cost 1.03, 2.09, 1.87, 3.41 and 1.52 */
    assert_true(queue_cost(small, 1, 256 * 1024) < 1.1);
    assert_true(queue_cost(mixed, 4, 256 * 1024) < 1.0);
    assert_true(queue_cost(spread, 6, 256 * 1024) < 0.8);
    assert_true(queue_cost(list, 2, 256 * 1024) < 1.5);
    assert_true(queue_cost(blocks, 2, 256 * 1024) < 0.1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_copy_after_reference),
        cmocka_unit_test(test_out_cost),
    };

    event_set_mem_functions(count_malloc, count_realloc, count_free);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
