/*
 * partial_test.c: PartialObjectMetadata (proto/partial.c): the metadata
 * member found by the top-level scan among lookalike names, strings with
 * brackets and escapes, nested containers, whitespace, scalars and
 * repeats (the last wins); names written with escapes; no metadata;
 * the document in v1 and v1beta1 around the stored bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/partial.h"

/* Where partial_locate finds metadata in json: the value's text, or NULL
 * (into buf). */
static const char *locate(const char *json, char *buf, size_t size)
{
    struct object o = {0};
    size_t off = 0, len = 0;
    bool found;

    o.json = rbuf_from_str(json);
    found = partial_locate(&o, &off, &len);
    if (found)
        snprintf(buf, size, "%.*s", (int)len, json + off);
    rbuf_unref(o.json);
    return found ? buf : NULL;
}

static void expect_meta(const char *json, const char *want)
{
    char buf[256];
    const char *got = locate(json, buf, sizeof(buf));

    if (want == NULL && got != NULL)
        fail_msg("%s: found %s", json, got);
    if (want != NULL && (got == NULL || strcmp(got, want) != 0))
        fail_msg("%s: got %s, want %s", json, got ? got : "nothing", want);
}

static void test_locate(void **state)
{
    expect_meta(
        "{\"kind\":\"X\",\"metadatax\":{\"a\":1},\"x\":[1,\"}\\\"\",{}],"
        "\"metadata\":{\"name\":\"n\",\"l\":[{\"k\":\"]\"}]},\"n\":-1.5e3}",
        "{\"name\":\"n\",\"l\":[{\"k\":\"]\"}]}");
    expect_meta(" { \"metadata\" : 12 , \"z\" : null } ", "12");
    expect_meta("{\"metadata\":{\"a\":1},\"metadata\":{\"b\":2}}", "{\"b\":2}");
    /* Names compare after unescaping. */
    expect_meta("{\"m\\u0065tadata\":{\"name\":\"q\"}}", "{\"name\":\"q\"}");
    expect_meta("{\"meta\\u0064ata\":{},\"metad\\/ata\":1}", "{}");
    expect_meta("{\"metadata\\u0000\":{}}", NULL);
    expect_meta("{\"metadat\\\\\":{}}", NULL);
    expect_meta("{\"metadat\":{},\"metadataa\":{}}", NULL);
    expect_meta("[]", NULL);
    expect_meta("{\"metadata\"", NULL);
    expect_meta("", NULL);
    expect_meta("{}", NULL);
}

static void test_append(void **state)
{
    struct object o = {0};
    struct sbuf sb = {0};

    o.json = rbuf_from_str("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\","
                           "\"resourceVersion\":\"7\"},\"spec\":{}}");
    partial_append(&sb, &o, false);
    assert_string_equal(sb.data,
                        "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":"
                        "\"meta.k8s.io/v1\",\"metadata\":{\"name\":\"p\","
                        "\"resourceVersion\":\"7\"}}");
    sbuf_fini(&sb);
    partial_append(&sb, &o, true);
    assert_non_null(strstr(sb.data, "\"apiVersion\":\"meta.k8s.io/v1beta1\""));
    assert_int_equal(
        strncmp(sb.data, partial_head(true), strlen(partial_head(true))), 0);
    sbuf_fini(&sb);
    rbuf_unref(o.json);

    o.json = rbuf_from_str("{\"kind\":\"Pod\"}");
    partial_append(&sb, &o, false);
    assert_string_equal(sb.data, "{\"kind\":\"PartialObjectMetadata\","
                                 "\"apiVersion\":\"meta.k8s.io/v1\","
                                 "\"metadata\":{}}");
    sbuf_fini(&sb);
    rbuf_unref(o.json);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locate),
        cmocka_unit_test(test_append),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
