/*
 * sbuf_test.c: sbuf_add_base64 (cache/sbuf.c) on RFC 4648's test vectors
 * (section 10), in both alphabets, padded and raw, appended after what the
 * buffer holds, and on bytes that differ between the two alphabets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "cache/sbuf.h"

static void expect(const char *in, size_t n, bool url, const char *want)
{
    struct sbuf sb = {0};

    sbuf_add_base64(&sb, in, n, url);
    assert_non_null(sb.data);
    assert_string_equal(sb.data, want);
    assert_int_equal(sb.len, strlen(want));
    sbuf_fini(&sb);
}

static void test_base64_rfc4648(void **state)
{
    static const char *const std[] = {"",         "Zg==",     "Zm8=",
                                      "Zm9v",     "Zm9vYg==", "Zm9vYmE=",
                                      "Zm9vYmFy"};
    static const char *const raw[] = {"",       "Zg",       "Zm8",     "Zm9v",
                                      "Zm9vYg", "Zm9vYmE", "Zm9vYmFy"};

    (void)state;
    for (size_t n = 0; n <= 6; n++) {
        expect("foobar", n, false, std[n]);
        expect("foobar", n, true, raw[n]);
    }
}

static void test_base64_alphabets(void **state)
{
    struct sbuf sb = {0};

    (void)state;
    expect("\xfb\xff\xbf", 3, false, "+/+/");
    expect("\xfb\xff\xbf", 3, true, "-_-_");
    expect("\xff", 1, true, "_w");
    sbuf_add(&sb, "x:");
    sbuf_add_base64(&sb, "hi", 2, false);
    assert_string_equal(sb.data, "x:aGk=");
    sbuf_fini(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base64_rfc4648),
        cmocka_unit_test(test_base64_alphabets),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
