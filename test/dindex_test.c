/*
 * dindex_test.c: the dispatcher's index (cache/dindex.c): filing and
 * finding, keys that differ only in length or by a NUL, growth to many
 * keys, removal while walking, and a random model test against a plain
 * array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/dindex.h"
#include "cache/rw.h"

struct item {
    struct dindex_entry e; /* first: an entry is its item */
    int key;               /* which key it is filed under, -1 none */
};

static size_t count(const struct dindex *ix, const char *key, size_t len)
{
    size_t n = 0;

    for (struct dindex_entry *e = dindex_first(ix, key, len); e;
         e = dindex_next(e))
        n++;
    return n;
}

static void test_basics(void **state)
{
    struct dindex *ix = dindex_new();
    struct item a = {0}, b = {0}, c = {0};

    assert_null(dindex_first(ix, "n1", 2));
    dindex_add(ix, "n1", 2, &a.e);
    dindex_add(ix, "n1", 2, &b.e);
    dindex_add(ix, "n1\0x", 4, &c.e); /* a NUL inside is part of the key */
    assert_int_equal(count(ix, "n1", 2), 2);
    assert_int_equal(count(ix, "n1\0x", 4), 1);
    assert_int_equal(count(ix, "n", 1), 0);
    assert_int_equal(count(ix, "", 0), 0);
    assert_int_equal(dindex_keys(ix), 2);
    dindex_remove(ix, &a.e);
    dindex_remove(ix, &a.e); /* not filed: no-op */
    assert_int_equal(count(ix, "n1", 2), 1);
    assert_ptr_equal(dindex_first(ix, "n1", 2), &b.e);
    dindex_remove(ix, &b.e);
    assert_null(dindex_first(ix, "n1", 2));
    assert_int_equal(dindex_keys(ix), 1);
    dindex_add(ix, "", 0, &a.e); /* the empty key is a key */
    assert_int_equal(count(ix, "", 0), 1);
    dindex_free(ix); /* with entries still filed */
}

/* The dispatcher's walk: an entry may leave while it is visited. */
static void test_remove_while_walking(void **state)
{
    struct dindex *ix = dindex_new();
    struct item items[10];
    size_t seen = 0;

    memset(items, 0, sizeof(items));
    for (int i = 0; i < 10; i++)
        dindex_add(ix, "node-1", 6, &items[i].e);
    for (struct dindex_entry *e = dindex_first(ix, "node-1", 6), *next; e;
         e = next) {
        next = dindex_next(e);
        seen++;
        if (seen % 2)
            dindex_remove(ix, e);
    }
    assert_int_equal(seen, 10);
    assert_int_equal(count(ix, "node-1", 6), 5);
    dindex_free(ix);
}

/* Random adds and removes over 5,000 items and 3,000 keys (the table
 * grows through several doublings) agree with a plain model. */
static void test_model(void **state)
{
    enum { ITEMS = 5000, KEYS = 3000, OPS = 60000 };
    struct dindex *ix = dindex_new();
    struct item *items = xcalloc(ITEMS, sizeof(*items));
    size_t *per_key = xcalloc(KEYS, sizeof(*per_key));
    size_t filed_keys = 0;
    uint64_t rng = 42;
    char key[32];

    for (int i = 0; i < ITEMS; i++)
        items[i].key = -1;
    for (int op = 0; op < OPS; op++) {
        struct item *it;
        int len;

        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        it = &items[(rng >> 33) % ITEMS];
        if (it->key < 0) {
            it->key = (int)((rng >> 13) % KEYS);
            len = snprintf(key, sizeof(key), "node-%d", it->key);
            dindex_add(ix, key, (size_t)len, &it->e);
            if (per_key[it->key]++ == 0)
                filed_keys++;
        } else {
            dindex_remove(ix, &it->e);
            if (--per_key[it->key] == 0)
                filed_keys--;
            it->key = -1;
        }
        if (op % 997 == 0) {
            for (int k = 0; k < KEYS; k++) {
                len = snprintf(key, sizeof(key), "node-%d", k);
                assert_int_equal(count(ix, key, (size_t)len), per_key[k]);
            }
            assert_int_equal(dindex_keys(ix), filed_keys);
        }
    }
    for (int i = 0; i < ITEMS; i++)
        dindex_remove(ix, &items[i].e);
    assert_int_equal(dindex_keys(ix), 0);
    dindex_free(ix);
    free(items);
    free(per_key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basics),
        cmocka_unit_test(test_remove_while_walking),
        cmocka_unit_test(test_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
