/*
 * config_test.c: the option table, --help and man/ringwatch.8 agree, and
 * values parse with their units and bounds.
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
#include "src/config.h"
#include "test/option_doc.h"

static int parse(struct config *c, char *why, size_t len, int argc, ...)
{
    char *argv[16] = {"ringwatch"};
    va_list ap;

    va_start(ap, argc);
    for (int i = 1; i < argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    return config_parse(ringwatch_options, ringwatch_noptions, c, argc, argv,
                        "test", why, len);
}

static void test_man_page_agrees(void **state)
{
    option_doc_check_man(ringwatch_options, ringwatch_noptions,
                         "man/ringwatch.8");
}

static void test_help_lists_every_option(void **state)
{
    option_doc_check_help(ringwatch_options, ringwatch_noptions, "ringwatch",
                          "[options]");
}

static void test_defaults(void **state)
{
    struct config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 1), RW_OK);
    assert_string_equal(c.listen, "127.0.0.1:8080");
    assert_string_equal(c.etcd, "http://127.0.0.1:2379");
    assert_int_equal(c.ring_capacity, 10000);
    assert_int_equal(c.ring_bytes, 64 << 20);
    assert_true(c.bookmark_interval == 60.0);
    assert_int_equal(c.watch_high_water, 256 << 10);
}

static void test_values_and_units(void **state)
{
    struct config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 6, "--ring-capacity=8",
                           "--ring-bytes", "2Mi", "--bookmark-interval",
                           "500ms"),
                     RW_OK);
    assert_int_equal(c.ring_capacity, 8);
    assert_int_equal(c.ring_bytes, 2 << 20);
    assert_true(c.bookmark_interval == 0.5);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--ring-bytes", "1G"),
                     RW_OK);
    assert_int_equal(c.ring_bytes, 1000000000);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--resources=pods"),
                     RW_OK);
    assert_string_equal(c.resources, "pods");
}

static void test_errors(void **state)
{
    struct config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-capacity=0"),
                     RW_EINVAL);
    assert_non_null(strstr(why, "--ring-capacity"));
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-capacity=-3"),
                     RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-capacity=12x"),
                     RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-bytes=lots"),
                     RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--bookmark-interval=0"),
                     RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--nope"), RW_EINVAL);
    assert_string_equal(why, "unknown option --nope");
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--listen"), RW_EINVAL);
    assert_non_null(strstr(why, "needs a value"));
    assert_int_equal(parse(&c, why, sizeof(why), 2, "stray"), RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--help"), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_man_page_agrees),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values_and_units),
        cmocka_unit_test(test_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
