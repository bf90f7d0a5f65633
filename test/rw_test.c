/*
 * rw_test.c: the shared helpers of cache/rw.c that are not allocators:
 * rw_timeval (timer intervals) and rw_strerror (every error has a name).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"

static void test_timeval(void **state)
{
    struct timeval tv = rw_timeval(3.25);

    assert_int_equal(tv.tv_sec, 3);
    assert_int_equal(tv.tv_usec, 250000);
    tv = rw_timeval(0.0005);
    assert_int_equal(tv.tv_sec, 0);
    assert_int_equal(tv.tv_usec, 500);
    tv = rw_timeval(-2);
    assert_int_equal(tv.tv_sec, 0);
    assert_int_equal(tv.tv_usec, 0);
    tv = rw_timeval(1800);
    assert_int_equal(tv.tv_sec, 1800);
    assert_int_equal(tv.tv_usec, 0);
}

static void test_strerror(void **state)
{
    for (int err = RW_OK; err >= RW_EEXIST; err--)
        assert_string_not_equal(rw_strerror(err), "unknown error");
    assert_string_equal(rw_strerror(RW_EEXIST - 1), "unknown error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeval),
        cmocka_unit_test(test_strerror),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
