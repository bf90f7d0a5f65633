/*
 * fleet_view_test.c: views (key index -> resourceVersion): puts, removes
 * with tombstones and their compaction, copies and equality, against a
 * plain array model with random operations (with right, stale and
 * out-of-range position hints).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/fleet/view.h"

static void test_basics(void **state)
{
    struct view v, w;

    view_init(&v);
    view_init(&w);
    assert_int_equal(view_get(&v, 3), 0);
    assert_int_equal(view_put(&v, 3, 30), 0);
    assert_int_equal(view_put(&v, 1, 10), 0);
    assert_int_equal(view_put(&v, 3, 31), 30);
    assert_int_equal(view_count(&v), 2);
    assert_int_equal(view_remove(&v, 1), 10);
    assert_int_equal(view_remove(&v, 1), 0);
    assert_int_equal(view_count(&v), 1);
    assert_false(view_equal(&v, &w));
    view_put(&w, 3, 31);
    assert_true(view_equal(&v, &w)); /* tombstones do not count */
    view_put(&w, 3, 32);
    assert_false(view_equal(&v, &w));
    view_copy(&w, &v);
    assert_true(view_equal(&v, &w));
    view_clear(&v);
    assert_int_equal(view_count(&v), 0);
    view_fini(&v);
    view_fini(&w);
}

static void test_random_against_model(void **state)
{
    enum { KEYS = 300 };
    int64_t model[KEYS] = {0};
    uint32_t hints[KEYS] = {0};
    uint64_t rng = 12345;
    struct view v, copy;

    view_init(&v);
    view_init(&copy);
    for (int i = 0; i < 100000; i++) {
        uint32_t k;

        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        k = (uint32_t)((rng >> 33) % KEYS);
        /* Half the time with a hint: right (the key's last position),
         * stale, or out of range; the result never depends on it. */
        uint32_t hint = (rng >> 40) % 2 ? hints[k] : (uint32_t)(rng >> 45);

        if ((rng >> 20) % 3 == 0) {
            assert_int_equal((rng >> 10) % 2 ? view_remove(&v, k)
                                             : view_remove_hint(&v, k, &hint),
                             model[k]);
            model[k] = 0;
        } else if ((rng >> 10) % 2) {
            assert_int_equal(view_put(&v, k, i + 1), model[k]);
            model[k] = i + 1;
        } else {
            assert_int_equal(view_put_hint(&v, k, i + 1, &hint), model[k]);
            assert_true(hint < v.n && v.keys[hint] == k); /* its place */
            hints[k] = hint;
            model[k] = i + 1;
        }
        if (i % 997 == 0) {
            uint32_t live = 0;

            for (uint32_t j = 0; j < KEYS; j++) {
                assert_int_equal(view_get(&v, j), model[j]);
                live += model[j] != 0;
            }
            assert_int_equal(view_count(&v), live);
            assert_true(v.n - v.live <= v.live + 16);
            view_copy(&copy, &v);
            assert_true(view_equal(&copy, &v));
        }
    }
    view_fini(&v);
    view_fini(&copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basics),
        cmocka_unit_test(test_random_against_model),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
