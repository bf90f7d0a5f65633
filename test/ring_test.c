/*
 * ring_test.c: the event window (cache/ring.c, included to reach the slot
 * array): bounds in events and bytes, the newest event always kept, seqs
 * that never reset, lapped cursors, ring_seq_after across wrap-around,
 * lazy geometric growth, the references events hold, and what a
 * selection sees of an event.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/ring.h"
#include "cache/selector.h"

/* Counting allocator around ring.c's own allocations. */
static long live_blocks;

static void *counted_xmalloc(size_t n)
{
    live_blocks++;
    return xmalloc(n);
}

static void *counted_xcalloc(size_t nmemb, size_t n)
{
    live_blocks++;
    return xcalloc(nmemb, n);
}

static void counted_free(void *p)
{
    if (p != NULL)
        live_blocks--;
    free(p);
}

#define xmalloc counted_xmalloc
#define xcalloc counted_xcalloc
#define free counted_free
#include "cache/ring.c"
#undef xmalloc
#undef xcalloc
#undef free

/* ---- objects, with a registry holding one reference to each ---- */

static struct object *made[4096];
static size_t nmade;

/* An object whose JSON is exactly json_len bytes (>= 40). */
static struct object *mkobj(const char *key, int64_t rv, size_t json_len)
{
    char json[8192], digits[24];
    struct object_init in = {0};
    int n = snprintf(digits, sizeof(digits), "%lld", (long long)rv);
    int off =
        snprintf(json, sizeof(json), "{\"metadata\":{\"resourceVersion\":\"");
    int len = off + snprintf(json + off, sizeof(json) - off, "%s\"}", digits);
    struct object *o;

    assert_true(json_len >= (size_t)len + 8 && json_len < sizeof(json));
    /* pad with a trailing field: ,"p":"...."} */
    len += snprintf(json + len, sizeof(json) - len, ",\"p\":\"");
    while ((size_t)len < json_len - 2)
        json[len++] = '.';
    memcpy(json + len, "\"}", 2);
    len += 2;
    in.key = key;
    in.key_len = strlen(key);
    in.rv = rv;
    in.name = key;
    in.json = rbuf_from(json, len);
    in.rv_off = off;
    in.rv_len = n;
    o = object_new(&in);
    assert_int_equal(o->json->len, json_len);
    assert_true(nmade < RW_ARRAY_LEN(made));
    made[nmade++] = object_ref(o);
    return o;
}

static void check_and_release_objects(void)
{
    for (size_t i = 0; i < nmade; i++) {
        assert_int_equal(made[i]->refs, 1);
        object_unref(made[i]);
    }
    nmade = 0;
    assert_int_equal(live_blocks, 0);
}

static size_t push(struct ring *r, int64_t rv, size_t json_len)
{
    struct ring_event ev = {0};

    ev.rv = rv;
    ev.type = EVENT_ADDED;
    ev.obj = mkobj("/k", rv, json_len);
    return ring_push(r, &ev);
}

/* ---- tests ---- */

static void test_empty(void **state)
{
    struct ring *r = ring_new(8, 1000);

    assert_int_equal(ring_len(r), 0);
    assert_int_equal(ring_bytes(r), 0);
    assert_int_equal(ring_head_seq(r), 0);
    assert_int_equal(ring_tail_seq(r), 0);
    assert_null(ring_get(r, 0));
    assert_int_equal(ring_seq_after(r, 5), 0);
    assert_int_equal(ring_oldest_rv(r), 0);
    assert_int_equal(ring_newest_rv(r), 0);
    assert_int_equal(ring_max_events(r), 8);
    assert_int_equal(ring_max_bytes(r), 1000);
    assert_int_equal(ring_evictions(r), 0);
    ring_free(r);
    ring_free(NULL);
    check_and_release_objects();
}

static void test_capacity_events(void **state)
{
    struct ring *r = ring_new(4, 1 << 20);
    size_t evicted = 0;

    for (int64_t rv = 1; rv <= 10; rv++)
        evicted += push(r, rv, 64);
    assert_int_equal(evicted, 6);
    assert_int_equal(ring_evictions(r), 6);
    assert_int_equal(ring_len(r), 4);
    assert_int_equal(ring_bytes(r), 4 * 64);
    assert_int_equal(ring_tail_seq(r), 6);
    assert_int_equal(ring_head_seq(r), 10);
    assert_int_equal(ring_oldest_rv(r), 7);
    assert_int_equal(ring_newest_rv(r), 10);
    assert_null(ring_get(r, 5));
    assert_int_equal(ring_get(r, 6)->rv, 7);
    assert_int_equal(ring_get(r, 9)->rv, 10);
    assert_null(ring_get(r, 10));
    for (uint64_t seq = 6; seq < 10; seq++)
        assert_int_equal(ring_get(r, seq)->obj->rv, (int64_t)seq + 1);
    ring_free(r);
    check_and_release_objects();
}

static void test_capacity_bytes(void **state)
{
    struct ring *r = ring_new(100, 1000);

    for (int64_t rv = 1; rv <= 10; rv++)
        push(r, rv, 300);
    /* 3 x 300 <= 1000 < 4 x 300 */
    assert_int_equal(ring_len(r), 3);
    assert_int_equal(ring_bytes(r), 900);
    assert_int_equal(ring_oldest_rv(r), 8);
    assert_int_equal(ring_evictions(r), 7);

    /* An event alone above the bound: the newest is always kept. */
    assert_int_equal(push(r, 11, 4000), 3);
    assert_int_equal(ring_len(r), 1);
    assert_int_equal(ring_bytes(r), 4000);
    assert_int_equal(ring_oldest_rv(r), 11);
    assert_int_equal(push(r, 12, 100), 1);
    assert_int_equal(ring_len(r), 1);
    assert_int_equal(ring_bytes(r), 100);
    assert_int_equal(push(r, 13, 900), 0);
    assert_int_equal(ring_len(r), 2);
    assert_int_equal(ring_bytes(r), 1000); /* exactly at the bound */
    assert_int_equal(ring_evictions(r), 11);
    ring_free(r);
    check_and_release_objects();
}

static void test_seq_and_lapping(void **state)
{
    struct ring *r = ring_new(3, 1 << 20);
    uint64_t cursor;

    push(r, 10, 64);
    cursor = ring_head_seq(r); /* a watcher that has seen rv 10 */
    assert_int_equal(cursor, 1);
    push(r, 11, 64);
    push(r, 12, 64);
    assert_true(cursor >= ring_tail_seq(r));
    assert_int_equal(ring_get(r, cursor)->rv, 11);
    push(r, 13, 64);
    assert_true(cursor >= ring_tail_seq(r));
    push(r, 14, 64);
    /* The event the cursor needed (rv 11) is gone: lapped. */
    assert_true(cursor < ring_tail_seq(r));
    assert_null(ring_get(r, cursor));

    /* ring_clear drops everything but seqs keep counting. */
    ring_clear(r);
    assert_int_equal(ring_len(r), 0);
    assert_int_equal(ring_bytes(r), 0);
    assert_int_equal(ring_tail_seq(r), 5);
    assert_int_equal(ring_head_seq(r), 5);
    assert_int_equal(ring_oldest_rv(r), 0);
    assert_int_equal(ring_evictions(r), 2); /* a clear is no eviction */
    push(r, 20, 64);
    assert_int_equal(ring_get(r, 5)->rv, 20);
    assert_int_equal(ring_tail_seq(r), 5);
    assert_int_equal(ring_head_seq(r), 6);
    ring_free(r);
    check_and_release_objects();
}

static void test_seq_after(void **state)
{
    struct ring *r = ring_new(5, 1 << 20);

    /* rvs 10, 20, ..., 80 in 5 slots: the array has wrapped around. */
    for (int64_t rv = 10; rv <= 80; rv += 10)
        push(r, rv, 64);
    assert_int_equal(ring_oldest_rv(r), 40);
    assert_int_equal(ring_tail_seq(r), 3);
    assert_true(r->start != 0);
    assert_int_equal(ring_seq_after(r, 0), 3);
    assert_int_equal(ring_seq_after(r, 39), 3);
    assert_int_equal(ring_seq_after(r, 40), 4);
    assert_int_equal(ring_seq_after(r, 45), 4);
    assert_int_equal(ring_seq_after(r, 70), 7);
    assert_int_equal(ring_seq_after(r, 79), 7);
    assert_int_equal(ring_seq_after(r, 80), 8);
    assert_int_equal(ring_seq_after(r, 1000), ring_head_seq(r));
    for (int64_t after = 0; after <= 90; after++) {
        uint64_t seq = ring_seq_after(r, after);

        if (seq < ring_head_seq(r))
            assert_true(ring_get(r, seq)->rv > after);
        if (seq > ring_tail_seq(r))
            assert_true(ring_get(r, seq - 1)->rv <= after);
    }
    ring_free(r);
    check_and_release_objects();
}

static void test_lazy_growth(void **state)
{
    struct ring *r = ring_new(1000000, SIZE_MAX);
    struct ring *small = ring_new(20, SIZE_MAX);

    assert_int_equal(r->cap, 0); /* nothing allocated up front */
    assert_null(r->slots);
    push(r, 1, 64);
    assert_int_equal(r->cap, RING_MIN_SLOTS);
    for (int64_t rv = 2; rv <= 17; rv++)
        push(r, rv, 64);
    assert_int_equal(r->cap, 2 * RING_MIN_SLOTS);
    for (uint64_t seq = 0; seq < 17; seq++)
        assert_int_equal(ring_get(r, seq)->rv, (int64_t)seq + 1);

    /* Growth stops at max_events, and growth after a wrap keeps order. */
    for (int64_t rv = 1; rv <= 30; rv++)
        push(small, rv, 64);
    assert_int_equal(small->cap, 20);
    assert_int_equal(ring_len(small), 20);
    assert_int_equal(ring_oldest_rv(small), 11);
    for (uint64_t seq = ring_tail_seq(small); seq < ring_head_seq(small); seq++)
        assert_int_equal(ring_get(small, seq)->rv, (int64_t)seq + 1);
    ring_free(r);
    ring_free(small);
    check_and_release_objects();
}

static void test_event_references(void **state)
{
    struct ring *r = ring_new(1, 1 << 20);
    struct object *prev = mkobj("/a", 1, 64), *obj = mkobj("/a", 2, 64);
    struct object *gone = mkobj("/a", 2, 64);
    struct ring_event ev = {0};

    ev.rv = 2;
    ev.type = EVENT_MODIFIED;
    ev.obj = obj;
    ev.prev = prev;
    ev.gone = gone;
    ring_push(r, &ev);
    assert_int_equal(obj->refs, 2); /* the registry's and the event's */
    assert_int_equal(prev->refs, 2);
    assert_int_equal(gone->refs, 2);
    assert_int_equal(ring_bytes(r), 64); /* obj only: ring_event_bytes */
    assert_int_equal(ring_event_bytes(ring_get(r, 0)), 64);
    push(r, 3, 64); /* evicts the first event and its three references */
    assert_int_equal(obj->refs, 1);
    assert_int_equal(prev->refs, 1);
    assert_int_equal(gone->refs, 1);
    ring_free(r);
    check_and_release_objects();
}

/* Keys written by one transaction share its revision: equal rvs are held
 * in order, seq_after skips all of them, and an eviction that splits the
 * revision is reported by ring_evicted_rv. */
static void test_equal_revisions(void **state)
{
    struct ring *r = ring_new(4, 1 << 20);

    push(r, 5, 64);
    push(r, 7, 64);
    push(r, 7, 64);
    push(r, 7, 64);
    assert_int_equal(ring_len(r), 4);
    assert_int_equal(ring_seq_after(r, 5), 1);
    assert_int_equal(ring_seq_after(r, 6), 1);
    assert_int_equal(ring_seq_after(r, 7), 4);
    assert_int_equal(ring_evicted_rv(r), 0);
    push(r, 8, 64); /* evicts rv 5 */
    assert_int_equal(ring_evicted_rv(r), 5);
    push(r, 9, 64); /* evicts one of the three rv 7 events */
    assert_int_equal(ring_evicted_rv(r), 7);
    assert_int_equal(ring_oldest_rv(r), 7);
    ring_clear(r);
    assert_int_equal(ring_evicted_rv(r), 0);
    ring_free(r);
    check_and_release_objects();
}

/* A ConfigMap ns/name labelled app=app at rv (registered like mkobj's). */
static struct object *mklabelled(const char *ns, const char *name,
                                 const char *app, int64_t rv)
{
    char json[128], key[64];
    struct label label = {"app", app};
    int off =
        snprintf(json, sizeof(json), "{\"metadata\":{\"resourceVersion\":\"");
    int len = off + snprintf(json + off, sizeof(json) - off, "%lld\"}}",
                             (long long)rv);
    struct object_init in = {
        .key = key,
        .key_len = (size_t)snprintf(key, sizeof(key), "/r/%s/%s", ns, name),
        .rv = rv,
        .ns = ns,
        .name = name,
        .labels = &label,
        .nlabels = 1,
        .json = rbuf_from(json, (size_t)len),
        .rv_off = (size_t)off,
        .rv_len = (size_t)(len - off - 3),
    };
    struct object *o = object_new(&in);

    made[nmade++] = object_ref(o);
    return o;
}

/* What a selection sees of an event (selector transitions, c05): old and
 * new selected MODIFIED, only the new ADDED, only the old DELETED with the
 * old state at the event's revision (made once), neither nothing; a
 * namespace selects like a selector; no selection sees everything. */
static void test_event_view(void **state)
{
    const struct resource_type *rt = resource_type_find("configmaps");
    struct object *x = mklabelled("ns", "a", "x", 5);
    struct object *y = mklabelled("ns", "a", "y", 7);
    struct ring_event mod = {
        .rv = 7, .type = EVENT_MODIFIED, .obj = y, .prev = x};
    struct ring_event add = {.rv = 5, .type = EVENT_ADDED, .obj = x};
    struct selector *app_x, *app_y, *app_z;
    enum event_type t;
    struct object *gone;
    char why[128];

    assert_int_equal(
        selector_parse("app=x", NULL, rt, &app_x, why, sizeof(why)), 0);
    assert_int_equal(
        selector_parse("app=y", NULL, rt, &app_y, why, sizeof(why)), 0);
    assert_int_equal(
        selector_parse("app in (x,y)", NULL, rt, &app_z, why, sizeof(why)), 0);

    assert_ptr_equal(ring_event_view(&mod, NULL, NULL, &t), y);
    assert_int_equal(t, EVENT_MODIFIED);
    assert_ptr_equal(ring_event_view(&mod, "ns", app_z, &t), y);
    assert_int_equal(t, EVENT_MODIFIED);
    assert_ptr_equal(ring_event_view(&mod, NULL, app_y, &t), y);
    assert_int_equal(t, EVENT_ADDED);
    gone = ring_event_view(&mod, "ns", app_x, &t);
    assert_int_equal(t, EVENT_DELETED);
    assert_string_equal(gone->labels[0].value, "x");
    assert_int_equal(gone->rv, 7);
    assert_ptr_equal(ring_event_view(&mod, NULL, app_x, &t), gone);
    assert_null(ring_event_view(&mod, "other", NULL, &t));
    assert_null(ring_event_view(&mod, "other", app_x, &t));

    assert_ptr_equal(ring_event_view(&add, "ns", app_x, &t), x);
    assert_int_equal(t, EVENT_ADDED);
    assert_null(ring_event_view(&add, NULL, app_y, &t));
    assert_true(ring_event_selects(x, "ns", app_x));
    assert_false(ring_event_selects(x, "ns", app_y));
    assert_false(ring_event_selects(x, "other", NULL));

    object_unref(mod.gone);
    selector_free(app_x);
    selector_free(app_y);
    selector_free(app_z);
    for (size_t i = 0; i < nmade; i++)
        object_unref(made[i]);
    nmade = 0;
}

/* ring_push asserts non-decreasing revisions: run it in a child, expect
 * abort. */
static void test_push_asserts_increasing_rv(void **state)
{
    int status;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct ring *r = ring_new(4, 1 << 20);

        freopen("/dev/null", "w", stderr);
        push(r, 5, 64);
        push(r, 4, 64);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_equal_revisions),
        cmocka_unit_test(test_capacity_events),
        cmocka_unit_test(test_capacity_bytes),
        cmocka_unit_test(test_seq_and_lapping),
        cmocka_unit_test(test_seq_after),
        cmocka_unit_test(test_lazy_growth),
        cmocka_unit_test(test_event_references),
        cmocka_unit_test(test_push_asserts_increasing_rv),
        cmocka_unit_test(test_event_view),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
