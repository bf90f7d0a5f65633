/*
 * watchcache_test.c: one resource's cache (cache/watchcache.c): event
 * shapes (ADDED, MODIFIED with prev, DELETED carrying the last state with
 * the delete's revision), replays, progress, replace with its diff, reset
 * (the store's history was reset), and
 * where a watch from revision N starts -- kube-apiserver's
 * getAllEventsSinceLocked rule, including cases C01 and C03 of
 * docs/cases.md at the cache's level.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "cache/watchcache.h"

/* ---- objects, with a registry holding one reference to each ---- */

static struct object *made[1024];
static size_t nmade;

/* /registry/configmaps/ns/NAME at rv, JSON carrying data {"k":"DATA"}. */
static struct object *mkobj(const char *name, int64_t rv, const char *data)
{
    char json[512], key[128], digits[24];
    struct object_init in = {0};
    int n = snprintf(digits, sizeof(digits), "%lld", (long long)rv);
    int off = snprintf(json, sizeof(json),
                       "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"%s\","
                       "\"namespace\":\"ns\",\"resourceVersion\":\"",
                       name);
    int len = off + snprintf(json + off, sizeof(json) - off,
                             "%s\"},\"data\":{\"k\":\"%s\"}}", digits, data);
    struct object *o;

    snprintf(key, sizeof(key), "/registry/configmaps/ns/%s", name);
    in.key = key;
    in.key_len = strlen(key);
    in.rv = rv;
    in.ns = "ns";
    in.name = name;
    in.json = rbuf_from(json, len);
    in.rv_off = off;
    in.rv_len = n;
    o = object_new(&in);
    assert_true(nmade < RW_ARRAY_LEN(made));
    made[nmade++] = object_ref(o);
    return o;
}

static struct object *mk(const char *name, int64_t rv)
{
    return mkobj(name, rv, "v");
}

static void check_and_release_objects(void)
{
    for (size_t i = 0; i < nmade; i++) {
        assert_int_equal(made[i]->refs, 1);
        object_unref(made[i]);
    }
    nmade = 0;
}

#define KEY(name) "/registry/configmaps/ns/" name
#define KEYLEN(name) (sizeof(KEY(name)) - 1)

/* An initialised cache: the empty list at list_rv. */
static struct watchcache *cache_at(size_t ring_events, int64_t list_rv)
{
    struct watchcache *wc = watchcache_new(ring_events, 1 << 20);

    assert_false(watchcache_initialized(wc));
    watchcache_replace(wc, store_new(), list_rv, NULL, NULL);
    assert_true(watchcache_initialized(wc));
    return wc;
}

/* The rvs of the events a watch from rv would get, into out; count or -1
 * (with *too_old set) when the answer is 410. */
static int watch(const struct watchcache *wc, int64_t rv, int64_t *out,
                 int64_t *too_old)
{
    struct ring *r = watchcache_ring(wc);
    uint64_t seq;
    int n = 0;

    *too_old = 0;
    if (watchcache_watch_from(wc, rv, &seq, too_old) == RW_EEXPIRED)
        return -1;
    for (; seq < ring_head_seq(r); seq++)
        out[n++] = ring_get(r, seq)->rv;
    return n;
}

/* ---- tests ---- */

static void test_event_shapes(void **state)
{
    struct watchcache *wc = cache_at(16, 100);
    struct ring *r = watchcache_ring(wc);
    struct object *a1 = mkobj("a", 101, "1"), *a2 = mkobj("a", 102, "2");
    struct ring_event *ev;
    static const char deleted_json[] =
        "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"a\",\"namespace\":"
        "\"ns\",\"resourceVersion\":\"1005\"},\"data\":{\"k\":\"2\"}}";

    assert_int_equal(watchcache_rv(wc), 100);
    assert_int_equal(watchcache_list_rv(wc), 100);

    assert_int_equal(watchcache_put(wc, a1), RW_OK);
    ev = ring_get(r, ring_head_seq(r) - 1);
    assert_int_equal(ev->type, EVENT_ADDED);
    assert_int_equal(ev->rv, 101);
    assert_ptr_equal(ev->obj, a1);
    assert_null(ev->prev);
    assert_null(ev->gone);
    assert_ptr_equal(store_get(watchcache_store(wc), KEY("a"), KEYLEN("a")),
                     a1);
    assert_int_equal(watchcache_rv(wc), 101);

    assert_int_equal(watchcache_put(wc, a2), RW_OK);
    ev = ring_get(r, ring_head_seq(r) - 1);
    assert_int_equal(ev->type, EVENT_MODIFIED);
    assert_int_equal(ev->rv, 102);
    assert_ptr_equal(ev->obj, a2);
    assert_ptr_equal(ev->prev, a1); /* the event holds the replaced object */
    assert_int_equal(a1->refs, 3);  /* registry, ADDED obj, MODIFIED prev */

    /* C04: DELETED carries the last state with the delete's revision. */
    assert_int_equal(watchcache_delete(wc, KEY("a"), KEYLEN("a"), 1005), RW_OK);
    ev = ring_get(r, ring_head_seq(r) - 1);
    assert_int_equal(ev->type, EVENT_DELETED);
    assert_int_equal(ev->rv, 1005);
    assert_ptr_equal(ev->prev, a2);
    assert_int_equal(ev->obj->rv, 1005);
    assert_string_equal(ev->obj->json->data, deleted_json);
    assert_int_equal(ev->obj->json->len, strlen(deleted_json));
    assert_string_equal(ev->obj->key, KEY("a"));
    assert_string_equal(ev->obj->name, "a");
    assert_null(store_get(watchcache_store(wc), KEY("a"), KEYLEN("a")));
    assert_int_equal(watchcache_rv(wc), 1005);

    /* Deleting an absent key: no event, but the revision advances. */
    assert_int_equal(watchcache_delete(wc, KEY("a"), KEYLEN("a"), 1006),
                     RW_ENOTFOUND);
    assert_int_equal(ring_len(r), 3);
    assert_int_equal(watchcache_rv(wc), 1006);
    watchcache_free(wc);
    watchcache_free(NULL);
    check_and_release_objects();
}

static void test_replays_dropped(void **state)
{
    struct watchcache *wc = cache_at(16, 100);
    struct ring *r = watchcache_ring(wc);

    assert_int_equal(watchcache_put(wc, mk("a", 99)), RW_EINVAL);
    assert_int_equal(watchcache_put(wc, mk("a", 100)), RW_EINVAL);
    assert_int_equal(ring_len(r), 0);
    assert_int_equal(store_count(watchcache_store(wc)), 0);
    assert_int_equal(watchcache_put(wc, mk("a", 105)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("a", 105)), RW_EINVAL);
    assert_int_equal(watchcache_put(wc, mk("a", 104)), RW_EINVAL);
    assert_non_null(store_get(watchcache_store(wc), KEY("a"), KEYLEN("a")));
    assert_int_equal(ring_len(r), 1);
    assert_int_equal(watchcache_rv(wc), 105);

    /* A progress revision makes later replays below it replays too. */
    watchcache_progress(wc, 110);
    assert_int_equal(watchcache_put(wc, mk("b", 108)), RW_EINVAL);
    assert_int_equal(watchcache_put(wc, mk("b", 111)), RW_OK);
    watchcache_free(wc);
    /* Every dropped object was released (registry holds the only ref). */
    check_and_release_objects();
}

/* One etcd transaction writes several keys at one revision: each is a
 * change of its own, none a replay, and a watch from just below the
 * revision gets all of them. */
static void test_transaction_revision(void **state)
{
    struct watchcache *wc = cache_at(16, 100);
    struct ring *r = watchcache_ring(wc);
    int64_t too_old;
    uint64_t seq;

    assert_int_equal(watchcache_put(wc, mk("a", 101)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("b", 101)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("c", 101)), RW_OK);
    assert_int_equal(watchcache_delete(wc, KEY("a"), KEYLEN("a"), 102), RW_OK);
    assert_int_equal(watchcache_delete(wc, KEY("b"), KEYLEN("b"), 102), RW_OK);
    assert_int_equal(ring_len(r), 5);
    assert_int_equal(watchcache_rv(wc), 102);
    /* Replays of both. */
    assert_int_equal(watchcache_put(wc, mk("c", 101)), RW_EINVAL);
    assert_int_equal(watchcache_delete(wc, KEY("b"), KEYLEN("b"), 102),
                     RW_ENOTFOUND);
    assert_int_equal(ring_len(r), 5);
    assert_int_equal(watchcache_watch_from(wc, 100, &seq, &too_old), RW_OK);
    assert_int_equal(seq, ring_tail_seq(r));
    assert_int_equal(watchcache_watch_from(wc, 101, &seq, &too_old), RW_OK);
    assert_int_equal(seq, ring_tail_seq(r) + 3);
    /* A progress revision closes the revision: equal changes are replays. */
    watchcache_progress(wc, 103);
    assert_int_equal(watchcache_put(wc, mk("d", 103)), RW_EINVAL);
    watchcache_free(wc);
    check_and_release_objects();
}

/* An eviction that splits a transaction's revision: that revision can no
 * longer be delivered whole, so a watch from just below it is too old. */
static void test_split_revision_expires(void **state)
{
    struct watchcache *wc = cache_at(3, 100);
    int64_t too_old;
    uint64_t seq;

    assert_int_equal(watchcache_put(wc, mk("a", 101)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("b", 101)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("c", 101)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("d", 102)), RW_OK); /* evicts a */
    assert_int_equal(ring_oldest_rv(watchcache_ring(wc)), 101);
    assert_int_equal(watchcache_watch_from(wc, 100, &seq, &too_old),
                     RW_EEXPIRED);
    assert_int_equal(too_old, 101);
    assert_int_equal(watchcache_watch_from(wc, 101, &seq, &too_old), RW_OK);
    watchcache_free(wc);
    check_and_release_objects();
}

static void test_progress(void **state)
{
    struct watchcache *wc = watchcache_new(16, 1 << 20);
    int64_t rvs[16], too_old;

    watchcache_progress(wc, 50); /* before the first list: vouches nothing */
    assert_int_equal(watchcache_rv(wc), 0);
    watchcache_replace(wc, store_new(), 100, NULL, NULL);
    assert_int_equal(watchcache_rv(wc), 100);
    watchcache_progress(wc, 150);
    assert_int_equal(watchcache_rv(wc), 150);
    watchcache_progress(wc, 120); /* lower: ignored */
    assert_int_equal(watchcache_rv(wc), 150);
    assert_int_equal(watchcache_list_rv(wc), 100);

    /* Progress moves the cache, not the window: a watch from between the
     * list and the progress revision starts with no event to replay. */
    assert_int_equal(watch(wc, 130, rvs, &too_old), 0);
    assert_int_equal(watchcache_put(wc, mk("a", 151)), RW_OK);
    assert_int_equal(watch(wc, 130, rvs, &too_old), 1);
    assert_int_equal(rvs[0], 151);
    assert_int_equal(watch(wc, 100, rvs, &too_old), 1);
    watchcache_free(wc);
    check_and_release_objects();
}

struct diff_log {
    const struct object *old[8], *new_obj[8];
    int n;
};

static void diff_cb(struct object *old, struct object *new_obj, void *arg)
{
    struct diff_log *log = arg;

    assert_true(log->n < 8);
    log->old[log->n] = old;
    log->new_obj[log->n] = new_obj;
    log->n++;
}

static void test_replace_and_diff(void **state)
{
    struct watchcache *wc = cache_at(16, 100);
    struct store *fresh = store_new();
    struct diff_log log = {0};
    struct object *b_old, *c_old, *b_new, *d_new;
    int64_t rvs[16], too_old;
    uint64_t head;

    assert_int_equal(watchcache_put(wc, mk("a", 101)), RW_OK);
    assert_int_equal(watchcache_put(wc, b_old = mk("b", 102)), RW_OK);
    assert_int_equal(watchcache_put(wc, c_old = mk("c", 103)), RW_OK);
    head = ring_head_seq(watchcache_ring(wc));

    /* The relist at 120: a unchanged (a new object, same rv), b changed,
     * c gone, d new. */
    assert_null(store_put(fresh, mk("a", 101)));
    assert_null(store_put(fresh, b_new = mk("b", 110)));
    assert_null(store_put(fresh, d_new = mk("d", 111)));
    watchcache_replace(wc, fresh, 120, diff_cb, &log);

    assert_int_equal(log.n, 3);
    assert_ptr_equal(log.old[0], b_old);
    assert_ptr_equal(log.new_obj[0], b_new);
    assert_ptr_equal(log.old[1], c_old);
    assert_null(log.new_obj[1]);
    assert_null(log.old[2]);
    assert_ptr_equal(log.new_obj[2], d_new);

    assert_ptr_equal(watchcache_store(wc), fresh);
    assert_int_equal(ring_len(watchcache_ring(wc)), 0);
    assert_int_equal(ring_head_seq(watchcache_ring(wc)), head); /* seqs go on */
    assert_int_equal(watchcache_list_rv(wc), 120);
    assert_int_equal(watchcache_rv(wc), 120);

    /* The ring's history now starts at the list: older watches are 410. */
    assert_int_equal(watch(wc, 103, rvs, &too_old), -1);
    assert_int_equal(too_old, 120);
    assert_int_equal(watch(wc, 119, rvs, &too_old), -1);
    assert_int_equal(watch(wc, 120, rvs, &too_old), 0);

    /* A list older than the cache's revision never moves rv back. */
    watchcache_progress(wc, 200);
    watchcache_replace(wc, store_new(), 180, NULL, NULL);
    assert_int_equal(watchcache_rv(wc), 200);
    assert_int_equal(watchcache_list_rv(wc), 180);
    assert_int_equal(store_count(watchcache_store(wc)), 0);
    watchcache_free(wc);
    check_and_release_objects();
}

/* The store's history was reset: everything is forgotten and the next
 * list, at a lower revision, is the cache's revision (the one time it
 * goes down); the ring's seqs go on. */
static void test_reset(void **state)
{
    struct watchcache *wc = cache_at(4, 100);
    struct store *fresh = store_new();
    int64_t rvs[16], too_old;
    uint64_t head;

    for (int i = 0; i < 6; i++) /* evicts: the window is not the list's */
        assert_int_equal(watchcache_put(wc, mk("a", 101 + i)), RW_OK);
    head = ring_head_seq(watchcache_ring(wc));
    watchcache_reset(wc);
    assert_false(watchcache_initialized(wc));
    assert_int_equal(watchcache_rv(wc), 0);
    assert_int_equal(watchcache_list_rv(wc), 0);
    assert_int_equal(store_count(watchcache_store(wc)), 0);
    assert_int_equal(ring_len(watchcache_ring(wc)), 0);

    assert_null(store_put(fresh, mk("b", 40)));
    watchcache_replace(wc, fresh, 42, NULL, NULL);
    assert_true(watchcache_initialized(wc));
    assert_int_equal(watchcache_rv(wc), 42);
    assert_int_equal(watchcache_list_rv(wc), 42);
    assert_int_equal(ring_head_seq(watchcache_ring(wc)), head);
    /* Nothing evicted since this list: its window starts at it. */
    assert_int_equal(watch(wc, 41, rvs, &too_old), -1);
    assert_int_equal(too_old, 42);
    assert_int_equal(watchcache_put(wc, mk("b", 43)), RW_OK);
    assert_int_equal(watch(wc, 42, rvs, &too_old), 1);
    assert_int_equal(rvs[0], 43);
    watchcache_free(wc);
    check_and_release_objects();
}

/* C01: ring capacity 8, 20 puts; a watch from the first is too old, with
 * message numbers "too old resource version: <req> (<oldest-1>)". */
static void test_c01_too_old(void **state)
{
    struct watchcache *wc = cache_at(8, 1);
    int64_t rvs[16], too_old;

    for (int64_t rv = 2; rv <= 21; rv++)
        assert_int_equal(watchcache_put(wc, mk("a", rv)), RW_OK);
    assert_int_equal(ring_oldest_rv(watchcache_ring(wc)), 14);

    assert_int_equal(watch(wc, 2, rvs, &too_old), -1);
    assert_int_equal(too_old, 13); /* "too old resource version: 2 (13)" */
    assert_int_equal(watch(wc, 1, rvs, &too_old), -1); /* the list rv */
    assert_int_equal(too_old, 13);
    assert_int_equal(watch(wc, 12, rvs, &too_old), -1);
    assert_int_equal(too_old, 13);

    /* From oldest - 1 every retained event comes, in order. */
    assert_int_equal(watch(wc, 13, rvs, &too_old), 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(rvs[i], 14 + i);
    assert_int_equal(watch(wc, 20, rvs, &too_old), 1);
    assert_int_equal(rvs[0], 21);
    assert_int_equal(watch(wc, 21, rvs, &too_old), 0);
    /* Ahead of the cache: starts at the head (the caller waits). */
    assert_int_equal(watch(wc, 500, rvs, &too_old), 0);
    watchcache_free(wc);
    check_and_release_objects();
}

/* C03: ring capacity 4, list at L. */
static void test_c03_window_edge(void **state)
{
    const int64_t L = 50;
    struct watchcache *wc = cache_at(4, L);
    int64_t rvs[16], too_old;

    /* Nothing evicted since the list: a watch from L gets L+1, no 410. */
    assert_int_equal(watchcache_put(wc, mk("a", L + 1)), RW_OK);
    assert_int_equal(watch(wc, L, rvs, &too_old), 1);
    assert_int_equal(rvs[0], L + 1);
    assert_int_equal(watch(wc, L - 1, rvs, &too_old), -1);
    assert_int_equal(too_old, L);

    /* Five more writes: L+1 and L+2 are evicted, L+3..L+6 retained. */
    for (int64_t rv = L + 2; rv <= L + 6; rv++)
        assert_int_equal(watchcache_put(wc, mk("a", rv)), RW_OK);
    assert_int_equal(ring_oldest_rv(watchcache_ring(wc)), L + 3);

    /* From just before the oldest retained: every retained event. */
    assert_int_equal(watch(wc, L + 2, rvs, &too_old), 4);
    for (int i = 0; i < 4; i++)
        assert_int_equal(rvs[i], L + 3 + i);
    /* Two before: 410. */
    assert_int_equal(watch(wc, L + 1, rvs, &too_old), -1);
    assert_int_equal(too_old, L + 2);
    /* From L: 410 too, never a silent start that skips L+1 and L+2. */
    assert_int_equal(watch(wc, L, rvs, &too_old), -1);
    assert_int_equal(too_old, L + 2);
    watchcache_free(wc);
    check_and_release_objects();
}

/* Revisions of one resource have gaps (other resources write between). */
static void test_window_with_gaps(void **state)
{
    struct watchcache *wc = cache_at(2, 10);
    int64_t rvs[16], too_old;

    assert_int_equal(watchcache_put(wc, mk("a", 20)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("b", 30)), RW_OK);
    assert_int_equal(watch(wc, 10, rvs, &too_old), 2);
    assert_int_equal(watch(wc, 25, rvs, &too_old), 1);
    assert_int_equal(rvs[0], 30);
    assert_int_equal(watchcache_delete(wc, KEY("a"), KEYLEN("a"), 40), RW_OK);
    /* 20 evicted: the oldest deliverable is 30, as the apiserver says,
     * even though no event lay between 20 and 29. */
    assert_int_equal(watch(wc, 29, rvs, &too_old), 2);
    assert_int_equal(rvs[0], 30);
    assert_int_equal(rvs[1], 40);
    assert_int_equal(watch(wc, 28, rvs, &too_old), -1);
    assert_int_equal(too_old, 29);
    assert_int_equal(watch(wc, 35, rvs, &too_old), 1);
    assert_int_equal(rvs[0], 40);

    /* A relist resets the rule: nothing evicted since it. */
    watchcache_replace(wc, store_new(), 50, NULL, NULL);
    assert_int_equal(watch(wc, 49, rvs, &too_old), -1);
    assert_int_equal(too_old, 50);
    assert_int_equal(watch(wc, 50, rvs, &too_old), 0);
    assert_int_equal(watchcache_put(wc, mk("c", 60)), RW_OK);
    assert_int_equal(watch(wc, 50, rvs, &too_old), 1);
    watchcache_free(wc);
    check_and_release_objects();
}

/* The names (and rvs) a snapshot holds, as "a@20 b@30". */
static void snap_text(struct store_snap *snap, char *out, size_t len)
{
    struct object *o = NULL;
    size_t at = 0;

    out[0] = '\0';
    while ((o = o ? store_snap_seek(snap, o->key, o->key_len, false)
                  : store_snap_seek(snap, NULL, 0, true)) != NULL)
        at += snprintf(out + at, len - at, "%s%s@%lld", at ? " " : "", o->name,
                       (long long)o->rv);
}

/* An Exact read rebuilds the state at any revision inside the window. */
static void test_snapshot_at(void **state)
{
    struct watchcache *wc = cache_at(7, 10);
    struct store_snap *snap;
    char text[256];

    assert_int_equal(watchcache_put(wc, mk("a", 20)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("b", 30)), RW_OK);
    assert_int_equal(watchcache_put(wc, mkobj("a", 40, "w")), RW_OK);
    assert_int_equal(watchcache_delete(wc, KEY("b"), KEYLEN("b"), 50), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("c", 60)), RW_OK);

    static const struct {
        int64_t rv;
        const char *want;
    } at[] = {
        {10, ""},          {20, "a@20"}, {35, "a@20 b@30"},
        {40, "a@40 b@30"}, {50, "a@40"}, {60, "a@40 c@60"},
    };
    for (size_t i = 0; i < RW_ARRAY_LEN(at); i++) {
        assert_int_equal(watchcache_snapshot_at(wc, at[i].rv, &snap), RW_OK);
        snap_text(snap, text, sizeof(text));
        assert_string_equal(text, at[i].want);
        store_snap_unref(snap);
    }
    /* The live store is untouched by the rebuilds. */
    assert_int_equal(store_count(watchcache_store(wc)), 2);
    assert_int_equal(watchcache_snapshot_at(wc, 61, &snap), RW_EFUTURE);
    assert_int_equal(watchcache_snapshot_at(wc, 9, &snap), RW_EEXPIRED);
    /* Evict 20 and 30 (capacity 7): 35 is now outside the window. */
    assert_int_equal(watchcache_put(wc, mk("d", 70)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("e", 80)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("f", 90)), RW_OK);
    assert_int_equal(watchcache_put(wc, mk("g", 100)), RW_OK);
    assert_int_equal(watchcache_snapshot_at(wc, 35, &snap), RW_EEXPIRED);
    assert_int_equal(watchcache_snapshot_at(wc, 40, &snap), RW_OK);
    snap_text(snap, text, sizeof(text));
    assert_string_equal(text, "a@40 b@30");
    store_snap_unref(snap);
    watchcache_free(wc);
    check_and_release_objects();
}

/* Evictions for bytes count like evictions for events. */
static void test_window_bytes(void **state)
{
    struct watchcache *wc = watchcache_new(100, 1);
    int64_t rvs[16], too_old;

    watchcache_replace(wc, store_new(), 10, NULL, NULL);
    assert_int_equal(watchcache_put(wc, mk("a", 11)), RW_OK);
    assert_int_equal(watch(wc, 10, rvs, &too_old), 1);
    assert_int_equal(watchcache_put(wc, mk("a", 12)), RW_OK);
    assert_int_equal(ring_len(watchcache_ring(wc)), 1); /* newest kept */
    assert_int_equal(watch(wc, 10, rvs, &too_old), -1);
    assert_int_equal(too_old, 11);
    assert_int_equal(watch(wc, 11, rvs, &too_old), 1);
    assert_int_equal(rvs[0], 12);
    watchcache_free(wc);
    check_and_release_objects();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_event_shapes),
        cmocka_unit_test(test_replays_dropped),
        cmocka_unit_test(test_transaction_revision),
        cmocka_unit_test(test_split_revision_expires),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_replace_and_diff),
        cmocka_unit_test(test_reset),
        cmocka_unit_test(test_c01_too_old),
        cmocka_unit_test(test_c03_window_edge),
        cmocka_unit_test(test_window_with_gaps),
        cmocka_unit_test(test_window_bytes),
        cmocka_unit_test(test_snapshot_at),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
