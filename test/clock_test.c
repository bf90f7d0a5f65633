/*
 * clock_test.c: cache/clock's clock_until: a deadline already past gives
 * 1 ms (at once, never "no timeout"), a future one the time left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>

#include <cmocka.h>

#include "cache/clock.h"

static void test_until(void **state)
{
    struct timeval tv;

    (void)state;
    clock_until(clock_mono_ms() - 5000, &tv);
    assert_int_equal(tv.tv_sec, 0);
    assert_int_equal(tv.tv_usec, 1000); /* past: at once, not never */
    clock_until(clock_mono_ms() + 32500, &tv);
    assert_true(tv.tv_sec == 32 || (tv.tv_sec == 32 - 1 && tv.tv_usec > 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_until),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
