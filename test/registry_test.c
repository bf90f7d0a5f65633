/*
 * registry_test.c: the serving front's connection registry (src/registry.c)
 * with fake connections, without sockets: the work FIFO
 * (registry_schedule: one service call per batch of requests, none once
 * reaped, rescheduling from inside the work event waits for the next loop
 * round; registry_reap: one close_now), registry_free closing queued and
 * reaped connections at once, registry_drain scheduling every connection
 * but those being sniffed, and the counters registry_stats reports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "cache/rw.h"
#include "src/listener.h"
#include "src/registry.h"

struct fake {
    struct front_conn base;
    int services, closes;
    bool reschedule; /* from its own service call, once */
    size_t unsent;   /* what unfinished reports; 0: finished */
};

static int fakes_closed;

static void fake_service(struct front_conn *c)
{
    struct fake *f = (struct fake *)c;

    f->services++;
    if (f->reschedule) {
        f->reschedule = false;
        registry_schedule(c);
    }
}

static void fake_close_now(struct front_conn *c)
{
    struct fake *f = (struct fake *)c;

    f->closes++;
    fakes_closed++;
    registry_detach(c);
}

static bool fake_unfinished(const struct front_conn *c, size_t *unsent)
{
    *unsent = ((const struct fake *)c)->unsent;
    return *unsent > 0;
}

static void fake_handler(struct stream *s, void *arg)
{
    fail(); /* no requests here */
}

static struct front_config test_cfg;

static struct registry *registry_for_test(struct event_base *base)
{
    listener_config_defaults(&test_cfg);
    return registry_new(base, &test_cfg, fake_handler, NULL);
}

static void fake_attach(struct registry *r, struct fake *f,
                        enum front_protocol protocol)
{
    memset(f, 0, sizeof(*f));
    f->base.service = fake_service;
    f->base.close_now = fake_close_now;
    f->base.unfinished = fake_unfinished;
    registry_attach(r, &f->base, protocol);
}

static void test_schedule_and_reap(void **state)
{
    struct event_base *base = event_base_new();
    struct registry *r = registry_for_test(base);
    struct fake a, b;
    struct registry_stats st;

    fake_attach(r, &a, FRONT_H1);
    fake_attach(r, &b, FRONT_H1);
    registry_schedule(&a.base);
    registry_schedule(&a.base);
    registry_schedule(&b.base);
    assert_int_equal(a.services, 0); /* from the loop, not at once */
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(a.services, 1);
    assert_int_equal(b.services, 1);

    /* rescheduled from its own service call: the next loop round */
    a.reschedule = true;
    registry_schedule(&a.base);
    event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
    assert_int_equal(a.services, 2);
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(a.services, 3);

    /* scheduled, then reaped: closed once, never served */
    registry_schedule(&b.base);
    registry_reap(&b.base);
    registry_reap(&b.base);
    registry_schedule(&b.base);
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(b.services, 1);
    assert_int_equal(b.closes, 1);
    registry_stats(r, &st);
    assert_int_equal(st.open[FRONT_H1], 1);
    assert_int_equal(registry_open(r), 1);

    fakes_closed = 0;
    registry_free(r);
    assert_int_equal(a.closes, 1);
    assert_int_equal(fakes_closed, 1);
    event_base_free(base);
}

static void test_free_queued_and_reaped(void **state)
{
    struct event_base *base = event_base_new();
    struct registry *r = registry_for_test(base);
    struct fake f[4];

    for (int i = 0; i < 4; i++)
        fake_attach(r, &f[i], FRONT_H2);
    registry_schedule(&f[0].base);
    registry_reap(&f[1].base);
    registry_schedule(&f[2].base);
    registry_reap(&f[2].base);
    /* the loop never runs again (loopbreak): all closed at once */
    fakes_closed = 0;
    registry_free(r);
    assert_int_equal(fakes_closed, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(f[i].closes, 1);
        assert_int_equal(f[i].services, 0);
    }
    event_base_loop(base, EVLOOP_NONBLOCK); /* nothing left to run */
    event_base_free(base);
}

static void test_drain_and_stats(void **state)
{
    struct event_base *base = event_base_new();
    struct registry *r = registry_for_test(base);
    struct fake f[3];
    struct registry_stats st;

    fake_attach(r, &f[0], FRONT_SNIFFING);
    fake_attach(r, &f[1], FRONT_H1);
    fake_attach(r, &f[2], FRONT_H2);
    f[2].unsent = 300;
    registry_count_stream(r, FRONT_H2, 1);
    registry_count_stream(r, FRONT_H2, 1);
    registry_count_stream(r, FRONT_H2, -1);
    registry_stats(r, &st);
    assert_int_equal(st.open[FRONT_SNIFFING], 1);
    assert_int_equal(st.open[FRONT_H2], 1);
    assert_int_equal(st.streams[FRONT_H2], 1);
    assert_int_equal(st.streams_total[FRONT_H2], 2);
    assert_int_equal(st.unfinished, 1);
    assert_int_equal(st.unsent, 300);

    assert_false(registry_draining(r));
    registry_drain(r);
    assert_true(registry_draining(r));
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(f[0].services, 0); /* sniffing: the listener's */
    for (int i = 1; i < 3; i++)
        assert_int_equal(f[i].services, 1);          /* every other one, once */
    assert_int_equal(registry_flush_seconds(r), 90); /* idle_timeout */
    test_cfg.idle_timeout = 0;
    assert_int_equal(registry_flush_seconds(r), REGISTRY_CLOSE_FLUSH_SECONDS);
    registry_free(r);
    event_base_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schedule_and_reap),
        cmocka_unit_test(test_free_queued_and_reaped),
        cmocka_unit_test(test_drain_and_stats),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
