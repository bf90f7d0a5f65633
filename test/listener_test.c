/*
 * listener_test.c: the parts of src/listener.c the connection modules
 * lean on, without sockets: the work queue (listener_schedule: one service
 * call per batch of requests, none once reaped, rescheduling from inside
 * the work event waits for the next loop round; listener_reap: one
 * shutdown), listener_free shutting down queued and reaped connections at
 * once, deadlines (listener_until), and what the output queue helpers
 * cost in memory (listener_out_copy, listener_out_add), counted through
 * libevent's allocator hooks.
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
#include "src/listener.h"
#include "src/stream_impl.h"

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

        assert_int_equal(listener_out_add(out, &tail_ref, big, 0, len), 0);
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

    assert_int_equal(listener_out_add(out, &tail_ref, big, 0, big->len), 0);
    assert_true(tail_ref);
    assert_int_equal(big->refs, 2);
    /* evbuffer_add would take a 128 KiB chain for these 2 bytes */
    before = live_bytes;
    assert_int_equal(listener_out_copy(out, &tail_ref, "\r\n", 2), 0);
    assert_false(tail_ref);
    assert_true(live_bytes - before <= 2048);
    /* later small copies fill that chain */
    before = live_bytes;
    for (int i = 0; i < 8; i++)
        assert_int_equal(listener_out_copy(out, &tail_ref, "0123456789", 10),
                         0);
    assert_int_equal(live_bytes, before);
    /* small pieces of a shared buffer are copied: no reference kept */
    assert_int_equal(listener_out_add(out, &tail_ref, big, 0, 100), 0);
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

/* ---- the work queue ---- */

struct fake {
    struct front_conn base;
    int services, shutdowns;
    bool reschedule; /* from its own service call, once */
};

static int fakes_shut;

static void fake_service(struct front_conn *c)
{
    struct fake *f = (struct fake *)c;

    f->services++;
    if (f->reschedule) {
        f->reschedule = false;
        listener_schedule(c);
    }
}

static void fake_shutdown(struct front_conn *c)
{
    struct fake *f = (struct fake *)c;

    f->shutdowns++;
    fakes_shut++;
    listener_detach(c);
}

static void fake_handler(struct stream *s, void *arg)
{
    fail(); /* no requests here */
}

static struct listener *listener_for_test(struct event_base *base)
{
    struct front_config cfg;
    struct listener *l;

    listener_config_defaults(&cfg);
    l = listener_new(base, "127.0.0.1:0", &cfg, fake_handler, NULL);
    assert_non_null(l);
    return l;
}

static void fake_attach(struct listener *l, struct fake *f)
{
    memset(f, 0, sizeof(*f));
    f->base.service = fake_service;
    f->base.shutdown = fake_shutdown;
    listener_attach(l, &f->base, FRONT_H1);
}

static void test_schedule_and_reap(void **state)
{
    struct event_base *base = event_base_new();
    struct listener *l = listener_for_test(base);
    struct fake a, b;
    struct listener_stats st;

    fake_attach(l, &a);
    fake_attach(l, &b);
    listener_schedule(&a.base);
    listener_schedule(&a.base);
    listener_schedule(&b.base);
    assert_int_equal(a.services, 0); /* from the loop, not at once */
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(a.services, 1);
    assert_int_equal(b.services, 1);

    /* rescheduled from its own service call: the next loop round */
    a.reschedule = true;
    listener_schedule(&a.base);
    event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
    assert_int_equal(a.services, 2);
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(a.services, 3);

    /* scheduled, then reaped: shut down once, never served */
    listener_schedule(&b.base);
    listener_reap(&b.base);
    listener_reap(&b.base);
    listener_schedule(&b.base);
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(b.services, 1);
    assert_int_equal(b.shutdowns, 1);
    listener_stats(l, &st);
    assert_int_equal(st.connections_h1, 1);

    fakes_shut = 0;
    listener_free(l);
    assert_int_equal(a.shutdowns, 1);
    assert_int_equal(fakes_shut, 1);
    event_base_free(base);
}

static void test_free_queued_and_reaped(void **state)
{
    struct event_base *base = event_base_new();
    struct listener *l = listener_for_test(base);
    struct fake f[4];

    for (int i = 0; i < 4; i++)
        fake_attach(l, &f[i]);
    listener_schedule(&f[0].base);
    listener_reap(&f[1].base);
    listener_schedule(&f[2].base);
    listener_reap(&f[2].base);
    /* the loop never runs again (loopbreak): all shut down at once */
    fakes_shut = 0;
    listener_free(l);
    assert_int_equal(fakes_shut, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(f[i].shutdowns, 1);
        assert_int_equal(f[i].services, 0);
    }
    event_base_loop(base, EVLOOP_NONBLOCK); /* nothing left to run */
    event_base_free(base);
}

/* ---- deadlines and defaults ---- */

static void test_until_and_defaults(void **state)
{
    struct front_config cfg;
    struct timeval tv;
    uint64_t now = listener_now_ms();

    listener_until(now - 5000, &tv);
    assert_int_equal(tv.tv_sec, 0);
    assert_int_equal(tv.tv_usec, 1000); /* past: at once, not never */
    listener_until(listener_now_ms() + 32500, &tv);
    assert_true(tv.tv_sec == 32 || (tv.tv_sec == 32 - 1 && tv.tv_usec > 0));
    listener_config_defaults(&cfg);
    assert_int_equal(cfg.header_timeout, 32); /* kube ReadHeaderTimeout */
    assert_int_equal(cfg.idle_timeout, 90);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_copy_after_reference),
        cmocka_unit_test(test_out_cost),
        cmocka_unit_test(test_schedule_and_reap),
        cmocka_unit_test(test_free_queued_and_reaped),
        cmocka_unit_test(test_until_and_defaults),
    };

    event_set_mem_functions(count_malloc, count_realloc, count_free);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
