/*
 * deadline_test.c: the deadline heap (cache/deadline.c): order, equal
 * times, removal from anywhere, and a random model test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "cache/deadline.h"
#include "cache/rw.h"

static void test_order(void **state)
{
    struct deadline_heap h = {0};
    struct deadline_item it[5] = {DEADLINE_ITEM_INIT, DEADLINE_ITEM_INIT,
                                  DEADLINE_ITEM_INIT, DEADLINE_ITEM_INIT,
                                  DEADLINE_ITEM_INIT};
    static const uint64_t at[5] = {50, 10, 30, 10, 40};

    assert_null(deadline_first(&h));
    for (int i = 0; i < 5; i++)
        deadline_add(&h, &it[i], at[i]);
    deadline_remove(&h, &it[2]); /* 30, from the middle */
    deadline_remove(&h, &it[2]); /* not in: no-op */
    uint64_t prev = 0;
    for (int i = 0; i < 4; i++) {
        struct deadline_item *first = deadline_first(&h);

        assert_true(first->at >= prev);
        prev = first->at;
        deadline_remove(&h, first);
        assert_int_equal(first->index, SIZE_MAX);
    }
    assert_int_equal(prev, 50);
    assert_null(deadline_first(&h));
    deadline_add(&h, &it[0], 7);
    deadline_fini(&h);
    assert_int_equal(it[0].index, SIZE_MAX);
}

/* 20,000 random adds and removes agree with a linear scan for the min. */
static void test_model(void **state)
{
    enum { N = 3000, OPS = 20000 };
    struct deadline_heap h = {0};
    struct deadline_item *it = xcalloc(N, sizeof(*it));
    uint64_t rng = 7;

    for (int i = 0; i < N; i++)
        it[i].index = SIZE_MAX;
    for (int op = 0; op < OPS; op++) {
        struct deadline_item *x, *min = NULL;

        rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
        x = &it[(rng >> 33) % N];
        if (x->index == SIZE_MAX)
            deadline_add(&h, x, (rng >> 17) % 1000);
        else
            deadline_remove(&h, x);
        for (int i = 0; i < N; i++)
            if (it[i].index != SIZE_MAX && (!min || it[i].at < min->at))
                min = &it[i];
        if (min == NULL)
            assert_null(deadline_first(&h));
        else
            assert_int_equal(deadline_first(&h)->at, min->at);
    }
    deadline_fini(&h);
    free(it);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
