/*
 * metatime_test.c: metav1.Time for the Table printers (proto/metatime.c):
 * duration.HumanDuration at its boundaries; RFC 3339 times, Go's zero time
 * read as unset; translateTimestampSince, "<unknown>" for what is not a
 * time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "proto/metatime.h"

/* 2024-01-02T03:04:05Z */
#define T0 ((time_t)1704164645)

static void assert_duration(int64_t s, const char *want)
{
    char buf[32];

    metatime_human_duration(buf, sizeof(buf), s);
    if (strcmp(buf, want) != 0)
        fail_msg("%lld s: want %s, got %s", (long long)s, want, buf);
}

static void test_human_duration(void **state)
{
    const int64_t m = 60, h = 3600, d = 86400;

    (void)state;
    assert_duration(-2, "<invalid>");
    assert_duration(-1, "0s");
    assert_duration(0, "0s");
    assert_duration(119, "119s");
    assert_duration(2 * m, "2m");
    assert_duration(2 * m + 5, "2m5s");
    assert_duration(10 * m - 1, "9m59s");
    assert_duration(10 * m + 59, "10m");
    assert_duration(3 * h - 1, "179m");
    assert_duration(3 * h, "3h");
    assert_duration(3 * h + 30 * m, "3h30m");
    assert_duration(8 * h - 1, "7h59m");
    assert_duration(48 * h - 1, "47h");
    assert_duration(2 * d + h, "2d1h");
    assert_duration(8 * d - 1, "7d23h");
    assert_duration(8 * d, "8d");
    assert_duration(730 * d - 1, "729d");
    assert_duration(730 * d, "2y");
    assert_duration(731 * d, "2y1d");
    assert_duration(8 * 365 * d, "8y");
    assert_duration(10 * 365 * d + 5 * d, "10y");
}

static void test_parse_time(void **state)
{
    int64_t t;

    (void)state;
    assert_true(metatime_parse("2024-01-02T03:04:05Z", &t));
    assert_int_equal(t, T0);
    assert_true(metatime_parse("2024-01-02T03:04:05.123456Z", &t));
    assert_int_equal(t, T0);
    assert_true(metatime_parse("2024-01-02T05:04:05+02:00", &t));
    assert_int_equal(t, T0);
    assert_true(metatime_parse("2024-01-01T22:04:05-05:00", &t));
    assert_int_equal(t, T0);
    assert_true(metatime_parse("1970-01-01T00:00:00Z", &t));
    assert_int_equal(t, 0);
    /* metav1.Time.IsZero: Go's zero time is unset. */
    assert_false(metatime_parse("0001-01-01T00:00:00Z", &t));
    assert_false(metatime_parse("", &t));
    assert_false(metatime_parse("2024-01-02 03:04:05Z", &t));
    assert_false(metatime_parse("2024-01-02T03:04:05", &t));
    assert_false(metatime_parse("2024-13-02T03:04:05Z", &t));
    assert_false(metatime_parse("2024-01-02T03:04:05Zjunk", &t));
}

static void assert_since(const char *timestamp, time_t now, const char *want)
{
    char buf[32];

    metatime_since(buf, sizeof(buf), timestamp, now);
    if (strcmp(buf, want) != 0)
        fail_msg("%s at %lld: want %s, got %s", timestamp, (long long)now, want,
                 buf);
}

static void test_since(void **state)
{
    (void)state;
    assert_since("2024-01-02T03:04:05Z", T0, "0s");
    assert_since("2024-01-02T03:04:05Z", T0 + 125, "2m5s");
    assert_since("2024-01-02T05:04:05+02:00", T0 + 3 * 3600, "3h");
    /* a clock skewed by a second reads 0s, further ahead <invalid> */
    assert_since("2024-01-02T03:04:06Z", T0, "0s");
    assert_since("2024-01-02T03:04:07Z", T0, "<invalid>");
    assert_since("", T0, "<unknown>");
    assert_since("0001-01-01T00:00:00Z", T0, "<unknown>");
    assert_since("yesterday", T0, "<unknown>");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_human_duration),
        cmocka_unit_test(test_parse_time),
        cmocka_unit_test(test_since),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
