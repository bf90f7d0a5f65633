/*
 * quantity_test.c: resource.Quantity's String() after ParseQuantity
 * (proto/quantity.c), with apimachinery 1.32's own expectations
 * (quantity_test.go: TestQuantityString's canonical and alternate forms,
 * TestQuantityParseEmit, the values of TestQuantityParse and
 * TestJSONWhitespace): strings kept as given, canonical forms (binary
 * suffixes, multiples of 3, DecimalExponent), rounding up to nano, the cap
 * of binary values, fractions of binary suffixes, negative values; the
 * ResourceList rounding up to milli; and what ParseQuantity refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/quantity.h"

static void expect_q(const char *in, bool milli, const char *want)
{
    struct sbuf sb = {0};
    int rc = quantity_format(in, milli, &sb);

    if (want == NULL) {
        if (rc != RW_EINVAL || sb.len != 0)
            fail_msg("%s: accepted as %s", in, sb.data ? sb.data : "");
        return;
    }
    if (rc != RW_OK || sb.data == NULL || strcmp(sb.data, want) != 0)
        fail_msg("%s%s: got %s (rc %d), want %s", in, milli ? " (milli)" : "",
                 sb.data ? sb.data : "nothing", rc, want);
    sbuf_fini(&sb);
}

/* in gives want, and -in gives -want (zero stays "0"). */
static void expect_signed(const char *in, const char *want)
{
    char neg_in[64], neg_want[64];

    expect_q(in, false, want);
    snprintf(neg_in, sizeof(neg_in), "-%s", in);
    snprintf(neg_want, sizeof(neg_want), "%s%s",
             strcmp(want, "0") == 0 ? "" : "-", want);
    expect_q(neg_in, false, neg_want);
}

static void test_kept(void **state)
{
    /* Canonical strings are kept as given (TestQuantityString). */
    static const char *const kept[] = {
        "1Gi",   "300Mi", "6Ki",   "1001Gi", "1Ti",  "5",    "500m",
        "1G",    "1m",    "80m",   "1080m",  "300M", "1T",   "1234567M",
        "3k",    "1025",  "0",     "1e9",    "1e-3", "1e-9", "80e-3",
        "300e6", "1e12",  "1e3",   "3e3",    "1n",   "80n",  "1080n",
        "1u",    "80u",   "1080u", "50k",    "40T",  "300T", "1E",
        "12E",   "1E-3",  "7Mi",   "5Ti",    "4Pi",  "3Ei",  "100Ti",
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(kept); i++)
        expect_q(kept[i], false, kept[i]);
    /* ... including what only looks canonical: a sign, leading zeros. */
    expect_q("+5", false, "+5");
    expect_q("05", false, "05");
    expect_q("01Gi", false, "01Gi");
    expect_q("100.035k", false, "100.035k");
    expect_q("7.123456M", false, "7.123456M");
    expect_q("-5.444T", false, "-5.444T");
    expect_q("1.", false, "1.");
    expect_q("1.G", false, "1.G");
}

static void test_canonical(void **state)
{
    /* TestQuantityString's alternates and TestQuantityParseEmit. */
    expect_signed("1024Mi", "1Gi");
    expect_signed("307200Ki", "300Mi");
    expect_signed("1025024Mi", "1001Gi");
    expect_signed("1024Gi", "1Ti");
    expect_signed("5000m", "5");
    expect_signed("0.5", "500m");
    expect_signed("1000M", "1G");
    expect_signed("0.001T", "1G");
    expect_signed("1000u", "1m");
    expect_signed("1.08", "1080m");
    expect_signed("1080000000n", "1080m");
    expect_signed(".001e12", "1e9");
    expect_signed("0.001e0", "1e-3");
    expect_signed("1000e-12", "1e-9");
    expect_signed(".001Ki", "1024m");
    expect_signed(".000001Ki", "1024u");
    expect_signed(".000000001Ki", "1024n");
    expect_signed(".000000000001Ki", "2n");
    expect_q("00", false, "0");
    /* TestQuantityParse's values, written canonically. */
    expect_signed("0.0005k", "500m");
    expect_signed("0.00500", "5m");
    expect_signed("8.1k", "8100");
    expect_signed("1.01E", "1010P");
    expect_signed("1.2e3", "1200");
    expect_signed("1.3E+6", "1300e3");
    expect_signed("1.40e9", "1400e6");
    expect_signed("1e14", "100e12");
    expect_signed("3.001n", "4n");
    expect_signed("1.1E-9", "2e-9");
    expect_signed("0.0000000001", "1n");
    expect_signed("0.00000012345", "124n");
    expect_signed("9Ei", "9223372036854775807");
    expect_signed("9223372036854775807Ki", "9223372036854775807");
    expect_signed("100.035Ki", "102435840m");
    expect_signed("0.5Mi", "512Ki");
    expect_signed("0.05Gi", "53687091200m");
    expect_signed("1.5Gi", "1536Mi");
    expect_signed(".0001k", "100m");
    expect_signed("1e100", "10e99");
    /* A DecimalSI exponent past E has no suffix, as apimachinery. */
    expect_q("1000E", false, "1");
    /* Zeros of every suffix; white space around the string. */
    expect_q("0Gi", false, "0");
    expect_q("0.0", false, "0");
    expect_q("-", false, "0");
    expect_q(" 1", false, "1");
    expect_q("1 ", false, "1");
    expect_q(" -1", false, "-1");
}

static void test_milli(void **state)
{
    /* A ResourceList value: RoundUp(-3) before String(). */
    expect_q("500u", true, "1m");
    expect_q("1234567n", true, "2m");
    expect_q("-1500u", true, "-2m");
    expect_q("1n", true, "1m");
    expect_q("100m", true, "100m");
    expect_q("0.5", true, "500m");
    expect_q("10Gi", true, "10Gi");
    expect_q("1.5Gi", true, "1536Mi");
    expect_q("0.000000000001Ki", true, "1m");
    expect_q("5", true, "5");
}

static void test_refused(void **state)
{
    static const char *const bad[] = {
        "",
        " ",
        "1ki",
        "1K",
        "1e",
        "1Ee3",
        "1Mi5",
        "1.5.5",
        "abc",
        "1 2",
        "1e+",
        "--1",
        "1e99999999999999999999",
        "0x10",
        "1i",
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(bad); i++)
        expect_q(bad[i], false, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kept),
        cmocka_unit_test(test_canonical),
        cmocka_unit_test(test_milli),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
