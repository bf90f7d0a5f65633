/*
 * fairness_test.c: the queue discipline of src/fairness.c on fake streams
 * and a real event loop: seats taken and given back when a response is
 * finished (or the stream closes, or a WATCH's stream_release), a request
 * queued while no seat is free, seats handed round robin across flows,
 * a flow's queue bounded (429 queue-full with Retry-After), a queued
 * request refused once it waited too long (429 time-out), a queued request
 * whose client goes away leaving its queue, exempt requests served
 * without a seat; and the counters /metrics shows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "cache/rw.h"
#include "src/fairness.h"
#include "test/fake_stream.h"

/* What was served, in order: each request's tag; and the last one. */
static char served[64];
static struct fake_stream *last;

static void serve_cb(struct stream *s, struct identity *id, void *arg)
{
    rw_assert(id != NULL && id->name != NULL);
    strncat(served, arg, sizeof(served) - strlen(served) - 1);
    last = (struct fake_stream *)s;
}

struct fx {
    struct event_base *base;
    struct fairness *f;
    struct identity *alice, *bob, *admin;
};

static struct fx *fx_new(unsigned seats, unsigned queue, unsigned wait_ms)
{
    struct fx *x = xcalloc(1, sizeof(*x));
    struct fairness_config cfg;

    fairness_config_defaults(&cfg);
    cfg.seats = seats;
    cfg.queue_length = queue;
    cfg.wait_ms = wait_ms;
    x->base = event_base_new();
    x->f = fairness_new(x->base, &cfg);
    x->alice = identity_new(IDENTITY_TOKEN_FILE, "alice", NULL);
    x->bob = identity_new(IDENTITY_TOKEN_FILE, "bob", NULL);
    x->admin = identity_new(IDENTITY_X509, "admin", NULL);
    identity_add_group(x->admin, IDENTITY_MASTERS);
    served[0] = '\0';
    return x;
}

static void fx_free(struct fx *x)
{
    fairness_free(x->f);
    identity_unref(x->alice);
    identity_unref(x->bob);
    identity_unref(x->admin);
    event_base_free(x->base);
    free(x);
}

/* Runs what the loop has ready. */
static void loop(struct fx *x)
{
    event_base_loop(x->base, EVLOOP_NONBLOCK);
}

static struct fake_stream *admit(struct fx *x, struct identity *id,
                                 const char *tag)
{
    struct fake_stream *fs =
        fake_stream_new("GET", "/api/v1/pods", "", NULL, 2);

    fairness_admit(x->f, &fs->s, id,
                   fairness_exempt(stream_request(&fs->s)->path, id), serve_cb,
                   (void *)tag);
    return fs;
}

static struct metrics_fairness stats(struct fx *x)
{
    struct metrics_fairness m;

    fairness_stats(x->f, &m);
    return m;
}

static void assert_429(struct fake_stream *fs)
{
    char v[16];

    assert_int_equal(fs->status, 429);
    assert_non_null(strstr(fs->body, FAIRNESS_MESSAGE));
    assert_non_null(strstr(fs->body, "\"reason\":\"TooManyRequests\""));
    assert_string_equal(fake_stream_header(fs, "retry-after", v, sizeof(v)),
                        "1");
}

/* Seats are taken at once while free and given back when the stream
 * finishes; a request beyond waits and is served then. */
static void test_seats(void **state)
{
    struct fx *x = fx_new(2, 50, 15000);
    struct fake_stream *a = admit(x, x->alice, "a");
    struct fake_stream *b = admit(x, x->alice, "b");
    struct fake_stream *c = admit(x, x->alice, "c");

    assert_string_equal(served, "ab");
    assert_int_equal(stats(x).seats_in_use, 2);
    assert_int_equal(stats(x).seats_limit, 2);
    assert_int_equal(stats(x).queued[METRICS_FLOW_WORKLOAD], 1);
    loop(x);
    assert_string_equal(served, "ab"); /* still no seat */
    fake_stream_free(a);
    assert_string_equal(served, "ab"); /* not from inside the release */
    loop(x);
    assert_string_equal(served, "abc");
    assert_int_equal(stats(x).seats_in_use, 2);
    assert_int_equal(stats(x).queued[METRICS_FLOW_WORKLOAD], 0);
    assert_int_equal(stats(x).dispatched[METRICS_FLOW_WORKLOAD], 3);
    /* a WATCH gives its seat back once its initial events are sent */
    stream_release(&b->s);
    assert_int_equal(stats(x).seats_in_use, 1);
    stream_release(&b->s); /* once */
    assert_int_equal(stats(x).seats_in_use, 1);
    fake_stream_free(b);
    fake_stream_free(c);
    assert_int_equal(stats(x).seats_in_use, 0);
    fx_free(x);
}

/* Free seats go to the flows in turn: alice queued three before bob's
 * two, yet bob's are served second and fourth. */
static void test_round_robin(void **state)
{
    struct fx *x = fx_new(1, 50, 15000);

    admit(x, x->alice, "0");
    admit(x, x->alice, "a");
    admit(x, x->alice, "a");
    admit(x, x->alice, "a");
    admit(x, x->bob, "b");
    admit(x, x->bob, "b");
    for (int i = 0; i < 6; i++) {
        assert_int_equal(strlen(served), (size_t)i + 1);
        fake_stream_free(last); /* the one with the seat is done */
        loop(x);
    }
    assert_string_equal(served, "0ababa");
    assert_int_equal(stats(x).seats_in_use, 0);
    fx_free(x);
}

/* A flow's queue holds queue_length requests: one more is refused 429
 * (queue-full), while another flow may still queue. */
static void test_bounded_queue(void **state)
{
    struct fx *x = fx_new(1, 2, 15000);
    struct fake_stream *a0 = admit(x, x->alice, "a");
    struct fake_stream *a1 = admit(x, x->alice, "a");
    struct fake_stream *a2 = admit(x, x->alice, "a");
    struct fake_stream *a3 = admit(x, x->alice, "a");
    struct fake_stream *b = admit(x, x->bob, "b");

    assert_int_equal(a1->status, 0);
    assert_int_equal(a2->status, 0);
    assert_429(a3);
    assert_int_equal(b->status, 0);
    assert_int_equal(stats(x).queued[METRICS_FLOW_WORKLOAD], 3);
    assert_int_equal(
        stats(x).rejected[METRICS_FLOW_WORKLOAD][METRICS_REJECT_QUEUE_FULL], 1);
    fake_stream_free(a3);
    fake_stream_free(a0);
    loop(x);
    assert_string_equal(served, "aa");
    fake_stream_free(a1);
    loop(x);
    assert_string_equal(served, "aab");
    fake_stream_free(b);
    fake_stream_free(a2);
    fx_free(x);
}

/* A queued request is refused once it waited wait_ms (time-out); one
 * whose client goes away leaves its queue, its seat never taken. */
static void test_timeout_and_close(void **state)
{
    struct fx *x = fx_new(1, 50, 50);
    struct fake_stream *a = admit(x, x->alice, "a");
    struct fake_stream *b = admit(x, x->bob, "b");
    struct fake_stream *c = admit(x, x->bob, "c");
    struct timeval tv = {0, 150 * 1000};

    fake_stream_finish(c); /* the client went away while queued */
    assert_int_equal(stats(x).queued[METRICS_FLOW_WORKLOAD], 1);
    event_base_loopexit(x->base, &tv);
    event_base_dispatch(x->base);
    assert_429(b);
    assert_int_equal(
        stats(x).rejected[METRICS_FLOW_WORKLOAD][METRICS_REJECT_TIME_OUT], 1);
    assert_int_equal(stats(x).queued[METRICS_FLOW_WORKLOAD], 0);
    fake_stream_free(b);
    fake_stream_free(c);
    fake_stream_free(a);
    loop(x);
    assert_string_equal(served, "a");
    assert_int_equal(stats(x).seats_in_use, 0);
    fx_free(x);
}

/* Probes and system:masters are served at once, without a seat, even
 * when none is free. */
static void test_exempt(void **state)
{
    struct fx *x = fx_new(1, 0, 15000);
    struct fake_stream *a = admit(x, x->alice, "a");
    struct fake_stream *m = admit(x, x->admin, "m");
    struct fake_stream *h = fake_stream_new("GET", "/healthz", "", NULL, 1);
    struct fake_stream *r;

    fairness_admit(x->f, &h->s, x->alice, fairness_exempt("/healthz", x->alice),
                   serve_cb, "h");
    assert_false(fairness_exempt("/metrics", x->alice));
    assert_true(fairness_exempt("/livez", x->alice));
    assert_true(fairness_exempt("/readyz", x->alice));
    assert_string_equal(served, "amh");
    assert_int_equal(stats(x).seats_in_use, 1);
    assert_int_equal(stats(x).dispatched[METRICS_FLOW_EXEMPT], 2);
    r = admit(x, x->bob, "r"); /* no queue at all: refused at once */
    assert_429(r);
    fake_stream_free(r);
    fake_stream_free(h);
    fake_stream_free(m);
    fake_stream_free(a);
    fx_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seats),
        cmocka_unit_test(test_round_robin),
        cmocka_unit_test(test_bounded_queue),
        cmocka_unit_test(test_timeout_and_close),
        cmocka_unit_test(test_exempt),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
