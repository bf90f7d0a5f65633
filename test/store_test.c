/*
 * store_test.c: the persistent AVL store (cache/store.c, included to reach
 * the node layout): AVL and order invariants, path copying, snapshots that
 * never change, seek/scan/diff, and reference counts (every object and
 * node released; malloc'd bytes back to where they started).
 *
 * The main test is a randomized model test: thousands of puts, deletes,
 * clears, snapshots and snapshot drops against a plain array indexed by a
 * sorted pool of binary keys (NUL and 0xff bytes, prefixes of each other).
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
#include "cache/store.h"

/* A counting allocator around store.c's own allocations (nodes, snapshots,
 * stores): live_blocks must be back to zero when everything is freed. */
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
#include "cache/store.c"
#undef xmalloc
#undef xcalloc
#undef free

/* ---- objects ---- */

/* Every object a test makes, with one reference held here so that the
 * test can check at the end that nobody else still holds one. */
static struct object **made;
static size_t nmade, made_cap;

static struct object *mkobj(const char *key, size_t key_len, int64_t rv,
                            size_t pad)
{
    char json[256], digits[24];
    struct object_init in = {0};
    int n = snprintf(digits, sizeof(digits), "%lld", (long long)rv);
    int off =
        snprintf(json, sizeof(json), "{\"metadata\":{\"resourceVersion\":\"");
    int len = snprintf(json + off, sizeof(json) - off,
                       "%s\"},\"pad\":\"%.*s\"}", digits, (int)pad,
                       "................................................");
    struct object *o;

    in.key = key;
    in.key_len = key_len;
    in.rv = rv;
    in.name = "x";
    in.json = rbuf_from(json, off + len);
    in.rv_off = off;
    in.rv_len = n;
    o = object_new(&in);
    if (nmade == made_cap) {
        made_cap = made_cap ? made_cap * 2 : 1024;
        made = realloc(made, made_cap * sizeof(*made));
    }
    made[nmade++] = object_ref(o);
    return o;
}

static struct object *mk(const char *key, int64_t rv)
{
    return mkobj(key, strlen(key), rv, 0);
}

/* Every object made is held by nobody but the registry; release them. */
static void check_and_release_objects(void)
{
    for (size_t i = 0; i < nmade; i++) {
        assert_int_equal(made[i]->refs, 1);
        object_unref(made[i]);
    }
    free(made);
    made = NULL;
    nmade = made_cap = 0;
    assert_int_equal(live_blocks, 0);
}

/* ---- tree invariants ---- */

struct check {
    size_t count;
    size_t bytes;
    const struct object *last;
    bool private_only; /* every node must have refs == 1 */
};

static uint32_t check_node(const struct node *n, struct check *c)
{
    uint32_t hl, hr;

    if (n == NULL)
        return 0;
    assert_true(n->refs >= 1);
    if (c->private_only)
        assert_int_equal(n->refs, 1);
    hl = check_node(n->left, c);
    if (c->last != NULL)
        assert_true(key_cmp(c->last->key, c->last->key_len, n->obj->key,
                            n->obj->key_len) < 0);
    c->last = n->obj;
    c->count++;
    c->bytes += n->obj->json->len;
    hr = check_node(n->right, c);
    assert_true(hl <= hr + 1 && hr <= hl + 1);
    assert_int_equal(n->height, 1 + (hl > hr ? hl : hr));
    return n->height;
}

static void check_store(const struct store *s, bool private_only)
{
    struct check c = {0};

    c.private_only = private_only;
    check_node(s->root, &c);
    assert_int_equal(c.count, s->count);
    assert_int_equal(c.bytes, s->bytes);
}

/* ---- deterministic tests ---- */

static bool collect_cb(struct object *obj, void *arg)
{
    struct object ***cursor = arg;

    *(*cursor)++ = obj;
    return true;
}

static void test_put_get_delete(void **state)
{
    struct store *s = store_new();
    struct object *a = mk("/r/ns/a", 5), *b = mk("/r/ns/b", 6);
    struct object *a2 = mk("/r/ns/a", 7);

    assert_int_equal(store_count(s), 0);
    assert_null(store_put(s, a));
    assert_null(store_put(s, b));
    assert_int_equal(store_count(s), 2);
    assert_int_equal(store_bytes(s), a->json->len + b->json->len);
    assert_ptr_equal(store_get(s, "/r/ns/a", 7), a);
    assert_null(store_get(s, "/r/ns/a", 6)); /* a prefix is another key */
    assert_null(store_get(s, "/r/ns/c", 7));

    /* Replacing returns the old object with its reference. */
    assert_ptr_equal(store_put(s, a2), a);
    object_unref(a);
    assert_ptr_equal(store_get(s, "/r/ns/a", 7), a2);
    assert_int_equal(store_count(s), 2);
    assert_int_equal(store_bytes(s), a2->json->len + b->json->len);

    assert_null(store_delete(s, "/r/ns/zz", 8));
    assert_ptr_equal(store_delete(s, "/r/ns/b", 7), b);
    object_unref(b);
    assert_int_equal(store_count(s), 1);
    check_store(s, true);
    store_clear(s);
    assert_int_equal(store_count(s), 0);
    assert_int_equal(store_bytes(s), 0);
    store_free(s);
    store_free(NULL);
    check_and_release_objects();
    assert_int_equal(live_blocks, 0);
}

static void test_key_order(void **state)
{
    /* bytewise, shorter first on a tie, NUL and 0xff bytes included */
    static const struct {
        const char *k;
        size_t len;
    } keys[] = {{"", 0},    {"\0", 1}, {"\0\0", 2}, {"A", 1}, {"a", 1},
                {"a\0", 2}, {"aa", 2}, {"ab", 2},   {"b", 1}, {"\xff", 1}};
    struct store *s = store_new();
    struct store_snap *snap;
    struct object *got[16], **cursor = got;

    for (size_t i = RW_ARRAY_LEN(keys); i-- > 0;)
        assert_null(store_put(s, mkobj(keys[i].k, keys[i].len, 1 + i, 0)));
    snap = store_snapshot(s);
    store_snap_scan(snap, NULL, 0, collect_cb, &cursor);
    assert_int_equal(cursor - got, RW_ARRAY_LEN(keys));
    for (size_t i = 0; i < RW_ARRAY_LEN(keys); i++) {
        assert_int_equal(got[i]->key_len, keys[i].len);
        assert_memory_equal(got[i]->key, keys[i].k, keys[i].len);
    }
    store_snap_unref(snap);
    store_free(s);
    check_and_release_objects();
}

static void test_snapshot_isolation(void **state)
{
    struct store *s = store_new();
    struct store_snap *s1, *s2;
    char key[32];

    for (int i = 0; i < 100; i++) {
        snprintf(key, sizeof(key), "/k/%03d", i);
        assert_null(store_put(s, mk(key, 1 + i)));
    }
    s1 = store_snapshot(s);
    assert_int_equal(store_snap_count(s1), 100);
    /* Later writes: replace, delete, insert. */
    snprintf(key, sizeof(key), "/k/%03d", 7);
    object_unref(store_put(s, mk(key, 1000)));
    object_unref(store_delete(s, "/k/050", 6));
    assert_null(store_put(s, mk("/k/500", 1001)));
    s2 = store_snapshot(s);
    store_clear(s);

    assert_int_equal(store_snap_count(s1), 100);
    assert_int_equal(store_snap_get(s1, "/k/007", 6)->rv, 8);
    assert_non_null(store_snap_get(s1, "/k/050", 6));
    assert_null(store_snap_get(s1, "/k/500", 6));
    assert_int_equal(store_snap_count(s2), 100);
    assert_int_equal(store_snap_get(s2, "/k/007", 6)->rv, 1000);
    assert_null(store_snap_get(s2, "/k/050", 6));
    assert_non_null(store_snap_get(s2, "/k/500", 6));

    /* A snapshot outlives its store. */
    store_free(s);
    assert_ptr_equal(store_snap_ref(s2), s2);
    store_snap_unref(s2);
    assert_int_equal(store_snap_count(s2), 100);
    store_snap_unref(s2);
    store_snap_unref(s1);
    store_snap_unref(NULL);
    check_and_release_objects();
    assert_int_equal(live_blocks, 0);
}

/* Collects a tree's node pointers. */
static void nodes_of(const struct node *n, const struct node **out, size_t *k)
{
    if (n == NULL)
        return;
    out[(*k)++] = n;
    nodes_of(n->left, out, k);
    nodes_of(n->right, out, k);
}

static int ptr_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (const void *const *)a;
    uintptr_t y = (uintptr_t) * (const void *const *)b;

    return x < y ? -1 : x > y;
}

/* Nodes of the store's tree that the snapshot's tree does not hold. */
static size_t fresh_nodes(const struct store *s, const struct store_snap *snap)
{
    static const struct node *before[4096], *after[4096];
    size_t nb = 0, na = 0, fresh = 0;

    nodes_of(snap->root, before, &nb);
    nodes_of(s->root, after, &na);
    qsort(before, nb, sizeof(*before), ptr_cmp);
    for (size_t i = 0; i < na; i++)
        if (!bsearch(&after[i], before, nb, sizeof(*before), ptr_cmp))
            fresh++;
    return fresh;
}

static void test_path_copying(void **state)
{
    struct store *s = store_new();
    struct store_snap *snap;
    char key[32];
    uint32_t h;

    for (int i = 0; i < 2000; i++) {
        snprintf(key, sizeof(key), "/k/%05d", i * 7 % 2000);
        assert_null(store_put(s, mk(key, 1 + i)));
    }
    check_store(s, true);
    h = s->root->height;
    assert_true(h <= 15); /* 1.44 log2(2000) + 1 */

    /* No snapshot: writes copy nothing. */
    snap = store_snapshot(s);
    store_snap_unref(snap);
    assert_int_equal(s->root->refs, 1);

    /* A replace copies exactly the path. */
    snap = store_snapshot(s);
    object_unref(store_put(s, mk("/k/01234", 5000)));
    assert_true(fresh_nodes(s, snap) <= h);
    check_store(s, false);
    store_snap_unref(snap);
    check_store(s, true);

    /* Inserts and deletes copy the path plus what rotations touch. */
    for (int i = 0; i < 50; i++) {
        snap = store_snapshot(s);
        snprintf(key, sizeof(key), "/k/%05d", 3000 + i);
        assert_null(store_put(s, mk(key, 6000 + i)));
        assert_true(fresh_nodes(s, snap) <= 2 * h + 2);
        store_snap_unref(snap);
        snap = store_snapshot(s);
        snprintf(key, sizeof(key), "/k/%05d", i * 31);
        object_unref(store_delete(s, key, strlen(key)));
        assert_true(fresh_nodes(s, snap) <= 2 * h + 2);
        check_store(s, false);
        store_snap_unref(snap);
    }
    check_store(s, true);
    store_free(s);
    check_and_release_objects();
}

static void test_large_sequential(void **state)
{
    struct store *s = store_new();
    struct store_snap *snap;
    char key[32];
    int n = 200000;

    /* Sequential keys: the worst case for an unbalanced tree. */
    for (int i = 0; i < n; i++) {
        snprintf(key, sizeof(key), "/k/%08d", i);
        assert_null(store_put(s, mkobj(key, strlen(key), 1 + i, 0)));
    }
    check_store(s, true);
    assert_true(s->root->height <= 26); /* 1.44 log2(200000) + 1 */
    snap = store_snapshot(s);
    for (int i = 0; i < n; i += 2) {
        snprintf(key, sizeof(key), "/k/%08d", i);
        object_unref(store_delete(s, key, strlen(key)));
    }
    assert_int_equal(store_count(s), n / 2);
    assert_int_equal(store_snap_count(snap), n);
    check_store(s, false);
    /* Freeing is iterative: neither frees recurses. */
    store_free(s);
    store_snap_unref(snap);
    check_and_release_objects();
    assert_int_equal(live_blocks, 0);
}

static void test_seek_and_scan(void **state)
{
    struct store *s = store_new();
    struct store_snap *snap;
    struct object *got[16], **cursor;
    static const char *const keys[] = {"/a/1", "/a/2", "/ab", "/b/1",
                                       "/b/2", "/b/3", "/c"};

    for (size_t i = 0; i < RW_ARRAY_LEN(keys); i++)
        assert_null(store_put(s, mk(keys[i], 1 + i)));
    snap = store_snapshot(s);

    assert_string_equal(store_snap_seek(snap, NULL, 0, true)->key, "/a/1");
    assert_string_equal(store_snap_seek(snap, "/b/1", 4, true)->key, "/b/1");
    assert_string_equal(store_snap_seek(snap, "/b/1", 4, false)->key, "/b/2");
    assert_string_equal(store_snap_seek(snap, "/b/", 3, false)->key, "/b/1");
    assert_string_equal(store_snap_seek(snap, "/", 1, true)->key, "/a/1");
    assert_null(store_snap_seek(snap, "/c", 2, false));
    assert_null(store_snap_seek(snap, "/d", 2, true));

    cursor = got;
    store_snap_scan(snap, "/b/", 3, collect_cb, &cursor);
    assert_int_equal(cursor - got, 3);
    assert_string_equal(got[0]->key, "/b/1");
    assert_string_equal(got[2]->key, "/b/3");

    cursor = got;
    store_snap_scan(snap, "/a", 2, collect_cb, &cursor);
    assert_int_equal(cursor - got, 3); /* /a/1 /a/2 /ab */

    cursor = got;
    store_snap_scan(snap, "/x", 2, collect_cb, &cursor);
    assert_int_equal(cursor - got, 0);

    cursor = got;
    store_snap_scan(snap, "", 0, collect_cb, &cursor);
    assert_int_equal(cursor - got, RW_ARRAY_LEN(keys));

    store_snap_unref(snap);
    snap = store_snapshot(s);
    store_clear(s);
    cursor = got;
    store_snap_scan(snap, "/b/", 3, collect_cb, &cursor);
    assert_int_equal(cursor - got, 3);
    store_snap_unref(snap);

    /* An empty snapshot. */
    snap = store_snapshot(s);
    assert_null(store_snap_seek(snap, NULL, 0, true));
    cursor = got;
    store_snap_scan(snap, NULL, 0, collect_cb, &cursor);
    assert_int_equal(cursor - got, 0);
    store_snap_unref(snap);
    store_free(s);
    check_and_release_objects();
}

struct diff_log {
    struct object *old[64], *new_obj[64];
    size_t n;
};

static void diff_cb(struct object *old, struct object *new_obj, void *arg)
{
    struct diff_log *log = arg;

    assert_true(log->n < 64);
    log->old[log->n] = old;
    log->new_obj[log->n] = new_obj;
    log->n++;
}

static void test_diff(void **state)
{
    struct store *a = store_new(), *b = store_new();
    struct store_snap *sa, *sb;
    struct diff_log log = {0};
    struct object *same = mk("/k/same", 3);

    assert_null(store_put(a, object_ref(same)));
    assert_null(store_put(b, same));
    assert_null(store_put(a, mk("/k/gone", 4)));
    assert_null(store_put(a, mk("/k/changed", 5)));
    assert_null(store_put(b, mk("/k/changed", 9)));
    assert_null(store_put(a, mk("/k/relisted", 6))); /* same rv, new object */
    assert_null(store_put(b, mk("/k/relisted", 6)));
    assert_null(store_put(b, mk("/k/new", 10)));
    sa = store_snapshot(a);
    sb = store_snapshot(b);

    store_snap_diff(sa, sb, diff_cb, &log);
    assert_int_equal(log.n, 3);
    /* key order: changed, gone, new */
    assert_string_equal(log.old[0]->key, "/k/changed");
    assert_int_equal(log.old[0]->rv, 5);
    assert_int_equal(log.new_obj[0]->rv, 9);
    assert_string_equal(log.old[1]->key, "/k/gone");
    assert_null(log.new_obj[1]);
    assert_null(log.old[2]);
    assert_string_equal(log.new_obj[2]->key, "/k/new");

    log.n = 0;
    store_snap_diff(sa, sa, diff_cb, &log);
    assert_int_equal(log.n, 0);

    store_snap_unref(sa);
    store_snap_unref(sb);
    store_free(a);
    store_free(b);
    check_and_release_objects();
}

/* ---- the randomized model test ---- */

#define POOL 300
#define MAX_SNAPS 8

struct pool_key {
    char k[8];
    size_t len;
};

static struct pool_key pool[POOL];
static size_t npool;

struct model {
    struct object *obj[POOL]; /* by pool index; NULL: absent */
};

struct model_snap {
    struct store_snap *snap;
    struct model m;
};

static uint64_t rng_state = 88172645463325252ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int pool_cmp(const void *a, const void *b)
{
    const struct pool_key *x = a, *y = b;

    return key_cmp(x->k, x->len, y->k, y->len);
}

static void make_pool(void)
{
    static const char alphabet[] = {'a', 'b', 'c', '\0', '\xff', '/'};
    size_t kept = 0;

    for (size_t i = 0; i < POOL; i++) {
        pool[i].len = rnd() % 6;
        for (size_t j = 0; j < pool[i].len; j++)
            pool[i].k[j] = alphabet[rnd() % sizeof(alphabet)];
    }
    qsort(pool, POOL, sizeof(pool[0]), pool_cmp);
    for (size_t i = 0; i < POOL; i++)
        if (kept == 0 || pool_cmp(&pool[kept - 1], &pool[i]) != 0)
            pool[kept++] = pool[i];
    npool = kept;
}

struct walk {
    const struct model *m;
    size_t next; /* pool index to look from */
    size_t seen;
    size_t stop_after;
    const char *prefix;
    size_t prefix_len;
};

static bool has_prefix(const struct pool_key *k, const char *p, size_t n)
{
    return n == 0 || (k->len >= n && memcmp(k->k, p, n) == 0);
}

/* Checks that scan yields the model's present keys with the prefix, in
 * order, and stops when asked. */
static bool walk_cb(struct object *obj, void *arg)
{
    struct walk *w = arg;

    while (w->next < npool &&
           (w->m->obj[w->next] == NULL ||
            !has_prefix(&pool[w->next], w->prefix, w->prefix_len)))
        w->next++;
    assert_true(w->next < npool);
    assert_ptr_equal(obj, w->m->obj[w->next]);
    w->next++;
    return ++w->seen < w->stop_after;
}

static void check_scan(const struct store_snap *snap, const struct model *m,
                       const char *prefix, size_t prefix_len, size_t stop_after)
{
    struct walk w = {m, 0, 0, stop_after, prefix, prefix_len};
    size_t expected = 0;

    store_snap_scan(snap, prefix, prefix_len, walk_cb, &w);
    for (size_t i = 0; i < npool; i++)
        if (m->obj[i] && has_prefix(&pool[i], prefix, prefix_len))
            expected++;
    assert_int_equal(w.seen, RW_MIN(expected, stop_after));
}

static void check_seek(const struct store_snap *snap, const struct model *m,
                       const char *key, size_t len, bool inclusive)
{
    struct object *want = NULL;

    for (size_t i = 0; i < npool && want == NULL; i++) {
        int c = key_cmp(pool[i].k, pool[i].len, key, len);

        if (m->obj[i] && (c > 0 || (c == 0 && inclusive)))
            want = m->obj[i];
    }
    assert_ptr_equal(store_snap_seek(snap, key, len, inclusive), want);
}

static void check_snapshot(const struct store_snap *snap, const struct model *m)
{
    size_t count = 0;

    for (size_t i = 0; i < npool; i++) {
        count += m->obj[i] != NULL;
        assert_ptr_equal(store_snap_get(snap, pool[i].k, pool[i].len),
                         m->obj[i]);
    }
    assert_int_equal(store_snap_count(snap), count);
    check_scan(snap, m, NULL, 0, SIZE_MAX);
    for (int i = 0; i < 10; i++) {
        const struct pool_key *k = &pool[rnd() % npool];
        char probe[8];
        size_t plen = rnd() % 4;

        check_seek(snap, m, k->k, k->len, rnd() % 2);
        for (size_t j = 0; j < plen; j++)
            probe[j] = "ab\0\xff/c"[rnd() % 6];
        check_seek(snap, m, probe, plen, rnd() % 2);
        check_seek(snap, m, NULL, 0, true);
        check_scan(snap, m, k->k, RW_MIN(k->len, rnd() % 3), SIZE_MAX);
        check_scan(snap, m, k->k, RW_MIN(k->len, rnd() % 3), 1 + rnd() % 5);
    }
}

struct diff_check {
    const struct model *a, *b;
    size_t next;
    size_t calls;
};

static bool model_differs(const struct diff_check *d, size_t i)
{
    const struct object *x = d->a->obj[i], *y = d->b->obj[i];

    return x != y && (x == NULL || y == NULL || x->rv != y->rv);
}

static void diff_check_cb(struct object *old, struct object *new_obj, void *arg)
{
    struct diff_check *d = arg;

    while (d->next < npool && !model_differs(d, d->next))
        d->next++;
    assert_true(d->next < npool);
    assert_ptr_equal(old, d->a->obj[d->next]);
    assert_ptr_equal(new_obj, d->b->obj[d->next]);
    d->next++;
    d->calls++;
}

static void check_diff(const struct model_snap *a, const struct model_snap *b)
{
    struct diff_check d = {&a->m, &b->m, 0, 0};
    size_t expected = 0;

    store_snap_diff(a->snap, b->snap, diff_check_cb, &d);
    for (size_t i = 0; i < npool; i++)
        expected += model_differs(&d, i);
    assert_int_equal(d.calls, expected);
}

static void test_random_model(void **state)
{
    struct store *s = store_new();
    struct model cur = {0};
    struct model_snap snaps[MAX_SNAPS];
    size_t nsnaps = 0;
    int64_t rv = 0;

    make_pool();
    for (int op = 0; op < 30000; op++) {
        unsigned r = rnd() % 1000;
        size_t k = rnd() % npool;

        if (r < 500) {
            struct object *o = mkobj(pool[k].k, pool[k].len, ++rv, rnd() % 40);

            assert_ptr_equal(store_put(s, o), cur.obj[k]);
            object_unref(cur.obj[k]);
            cur.obj[k] = o;
        } else if (r < 850) {
            struct object *o = store_delete(s, pool[k].k, pool[k].len);

            assert_ptr_equal(o, cur.obj[k]);
            object_unref(o);
            cur.obj[k] = NULL;
        } else if (r < 900) {
            if (nsnaps < MAX_SNAPS) {
                snaps[nsnaps].snap = store_snapshot(s);
                snaps[nsnaps++].m = cur;
            }
        } else if (r < 940) {
            if (nsnaps > 0) {
                size_t i = rnd() % nsnaps;

                store_snap_unref(snaps[i].snap);
                snaps[i] = snaps[--nsnaps];
            }
        } else if (r < 942) {
            store_clear(s);
            for (size_t i = 0; i < npool; i++)
                cur.obj[i] = NULL;
        } else if (nsnaps > 0) {
            size_t i = rnd() % nsnaps, j = rnd() % nsnaps;

            check_snapshot(snaps[i].snap, &snaps[i].m);
            check_diff(&snaps[i], &snaps[j]);
        }
        if (op % 500 == 0) {
            struct model_snap now = {store_snapshot(s), cur};

            check_store(s, false);
            check_snapshot(now.snap, &cur);
            if (nsnaps > 0) {
                check_diff(&snaps[0], &now);
                check_diff(&now, &snaps[0]);
            }
            store_snap_unref(now.snap);
        }
    }
    while (nsnaps > 0)
        store_snap_unref(snaps[--nsnaps].snap);
    check_store(s, true);
    store_free(s);
    check_and_release_objects();
    assert_int_equal(live_blocks, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_delete),
        cmocka_unit_test(test_key_order),
        cmocka_unit_test(test_snapshot_isolation),
        cmocka_unit_test(test_path_copying),
        cmocka_unit_test(test_large_sequential),
        cmocka_unit_test(test_seek_and_scan),
        cmocka_unit_test(test_diff),
        cmocka_unit_test(test_random_model),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
