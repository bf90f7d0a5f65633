/*
 * fleet_keys_test.c: the key intern table: namespace/name and plain
 * names share one spelling, indexes are dense and stable across growth.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/fleet/keys.h"

static void test_intern(void **state)
{
    struct keys *k = keys_new();
    char ns[32], name[32];

    assert_int_equal(keys_find(k, "a", 1, "b", 1), KEYS_NONE);
    assert_int_equal(keys_intern(k, "a", 1, "b", 1), 0);
    assert_int_equal(keys_intern(k, "", 0, "a/b", 3), 0);
    assert_int_equal(keys_intern(k, "", 0, "node-1", 6), 1);
    assert_string_equal(keys_name(k, 0), "a/b");
    assert_string_equal(keys_name(k, 1), "node-1");
    for (uint32_t i = 0; i < 50000; i++) {
        int nl = snprintf(ns, sizeof(ns), "ns-%u", i % 7);
        int ml = snprintf(name, sizeof(name), "pod-%u", i);

        assert_int_equal(keys_intern(k, ns, (size_t)nl, name, (size_t)ml),
                         i + 2);
    }
    assert_int_equal(keys_count(k), 50002);
    assert_int_equal(keys_find(k, "ns-3", 4, "pod-17", 6), 19);
    assert_string_equal(keys_name(k, 19), "ns-3/pod-17");
    assert_int_equal(keys_find(k, "ns-4", 4, "pod-17", 6), KEYS_NONE);
    assert_true(keys_footprint(k) > 50000 * 8);
    keys_free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intern),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
