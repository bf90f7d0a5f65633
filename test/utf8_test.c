/*
 * utf8_test.c: cache/utf8 (utf8_len, utf8_encode, utf8_valid) against RFC
 * 3629's boundaries, the rules Go's utf8.DecodeRune applies: every sequence
 * length, overlong forms, surrogates, code points above U+10FFFF, truncation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cache/utf8.h"

static size_t len_of(const char *s, size_t avail)
{
    return utf8_len((const unsigned char *)s, avail);
}

static void test_lengths(void **state)
{
    (void)state;
    assert_int_equal(len_of("a", 1), 1);
    assert_int_equal(len_of("\0", 1), 1);
    assert_int_equal(len_of("\x7f", 1), 1);
    assert_int_equal(len_of("\xc2\x80", 2), 2);         /* U+0080 */
    assert_int_equal(len_of("\xdf\xbf", 2), 2);         /* U+07FF */
    assert_int_equal(len_of("\xe0\xa0\x80", 3), 3);     /* U+0800 */
    assert_int_equal(len_of("\xef\xbf\xbf", 3), 3);     /* U+FFFF */
    assert_int_equal(len_of("\xf0\x90\x80\x80", 4), 4); /* U+10000 */
    assert_int_equal(len_of("\xf4\x8f\xbf\xbf", 4), 4); /* U+10FFFF */
    assert_int_equal(len_of("a", 0), 0);
}

static void test_invalid(void **state)
{
    (void)state;
    assert_int_equal(len_of("\x80", 1), 0);             /* continuation */
    assert_int_equal(len_of("\xc0\x80", 2), 0);         /* overlong NUL */
    assert_int_equal(len_of("\xc1\xbf", 2), 0);         /* overlong */
    assert_int_equal(len_of("\xe0\x9f\xbf", 3), 0);     /* overlong */
    assert_int_equal(len_of("\xed\xa0\x80", 3), 0);     /* U+D800 */
    assert_int_equal(len_of("\xed\xbf\xbf", 3), 0);     /* U+DFFF */
    assert_int_equal(len_of("\xf0\x8f\xbf\xbf", 4), 0); /* overlong */
    assert_int_equal(len_of("\xf4\x90\x80\x80", 4), 0); /* > U+10FFFF */
    assert_int_equal(len_of("\xf5\x80\x80\x80", 4), 0);
    assert_int_equal(len_of("\xff", 1), 0);
    assert_int_equal(len_of("\xe2\x82\xac", 2), 0); /* truncated */
    assert_int_equal(len_of("\xe2\x28\xac", 3), 0); /* bad continuation */
    assert_int_equal(len_of("\xf0\x90\x80\x28", 4), 0);
}

static void test_valid(void **state)
{
    (void)state;
    assert_true(utf8_valid("", 0));
    assert_true(utf8_valid("plain ascii", 11));
    assert_true(utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14));
    assert_true(utf8_valid("a\0b", 3));
    assert_false(utf8_valid("caf\xc3", 4));
    assert_false(utf8_valid("\xed\xa0\x80", 3));
    assert_false(utf8_valid("ok\xfftail", 7));
    /* len bounds the check: the invalid byte after it is not read */
    assert_true(utf8_valid("ok\xff", 2));
}

static void test_encode(void **state)
{
    static const struct {
        uint32_t cp;
        const char *bytes;
    } cases[] = {
        {0x00, "\x00"},
        {0x7f, "\x7f"},
        {0x80, "\xc2\x80"},
        {0x7ff, "\xdf\xbf"},
        {0x800, "\xe0\xa0\x80"},
        {0xfffd, "\xef\xbf\xbd"},
        {0xffff, "\xef\xbf\xbf"},
        {0x10000, "\xf0\x90\x80\x80"},
        {0x10ffff, "\xf4\x8f\xbf\xbf"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        unsigned char out[4];
        size_t want = cases[i].cp == 0 ? 1 : strlen(cases[i].bytes);
        size_t n = utf8_encode(cases[i].cp, out);

        assert_int_equal(n, want);
        assert_memory_equal(out, cases[i].bytes, n);
        /* what is written reads back as one well-formed sequence */
        assert_int_equal(utf8_len(out, n), n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_encode),
        cmocka_unit_test(test_valid),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
