/*
 * fleet_writer_test.c: the writer's templates (writer_template): the
 * stamp lands in metadata.annotations whatever the value's shape, other
 * annotations and the rest of the value are kept, earlier stamps are
 * replaced, and values that are not objects with an object metadata are
 * refused.  Checked by parsing the stamped value with cJSON and the
 * fleet's own scanner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "cache/rw.h"
#include "src/fleet/scan.h"
#include "src/fleet/stamp.h"
#include "src/fleet/writer.h"

#define STAMP                                                                  \
    "\"" SCAN_WRITTEN_AT "\":\"1234\",\"" STAMP_WRITE_COUNT "\":\"7\""

/* Stamps value and returns the parsed result (cJSON_Delete it). */
static cJSON *stamp(const char *value)
{
    char *head, *tail, *out;
    size_t hl, tl;
    struct scan_object obj;
    cJSON *root;

    assert_true(writer_template(value, strlen(value), &head, &hl, &tail, &tl));
    out = xasprintf("%s%s%s", head, STAMP, tail);
    assert_int_equal(strlen(head), hl);
    assert_int_equal(strlen(tail), tl);
    root = cJSON_Parse(out);
    if (root == NULL)
        fail_msg("stamped value is not JSON: %s", out);
    assert_int_equal(scan_object(out, strlen(out), &obj), 0);
    assert_int_equal(obj.written_at, 1234);
    free(out);
    free(head);
    free(tail);
    return root;
}

static const char *annotation(cJSON *root, const char *key)
{
    cJSON *a = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "metadata"), "annotations");
    cJSON *v = cJSON_GetObjectItemCaseSensitive(a, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int count_annotations(cJSON *root)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(root, "metadata"), "annotations"));
}

static void test_shapes(void **state)
{
    cJSON *r;

    r = stamp("{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":[1,2]}}");
    assert_string_equal(annotation(r, SCAN_WRITTEN_AT), "1234");
    assert_string_equal(annotation(r, STAMP_WRITE_COUNT), "7");
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(r, "metadata"), "name")
            ->valuestring,
        "a");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(
                         cJSON_GetObjectItem(r, "spec"), "x")),
                     2);
    cJSON_Delete(r);

    r = stamp("{\"metadata\":{}}");
    assert_int_equal(count_annotations(r), 2);
    cJSON_Delete(r);

    r = stamp("{\"metadata\":{\"annotations\":{}}}");
    assert_int_equal(count_annotations(r), 2);
    cJSON_Delete(r);

    r = stamp("{\"metadata\":{\"annotations\":null,\"name\":\"b\"}}");
    assert_int_equal(count_annotations(r), 2);
    cJSON_Delete(r);

    /* Earlier stamps go, others stay (escaped key included). */
    r = stamp(" { \"kind\" : \"Pod\" , \"metadata\" : { \"annotations\" : "
              "{ \"keep\" : \"{\\\"q\\\":1}\" , \"ringwatch.io\\/written-at\""
              " : \"1\" , \"" STAMP_WRITE_COUNT "\" : \"3\" , "
              "\"also\" : \"x\" } , \"name\" : \"c\" } } ");
    assert_int_equal(count_annotations(r), 4);
    assert_string_equal(annotation(r, "keep"), "{\"q\":1}");
    assert_string_equal(annotation(r, "also"), "x");
    assert_string_equal(annotation(r, STAMP_WRITE_COUNT), "7");
    cJSON_Delete(r);

    /* A decoy metadata deeper down is not touched. */
    r = stamp("{\"spec\":{\"template\":{\"metadata\":{\"annotations\":{"
              "\"d\":\"1\"}}}},\"metadata\":{\"name\":\"d\"}}");
    assert_int_equal(count_annotations(r), 2);
    assert_int_equal(
        cJSON_GetArraySize(cJSON_GetObjectItem(
            cJSON_GetObjectItem(
                cJSON_GetObjectItem(cJSON_GetObjectItem(r, "spec"), "template"),
                "metadata"),
            "annotations")),
        1);
    cJSON_Delete(r);
}

static void test_refused(void **state)
{
    static const char *const bad[] = {
        "",
        "[]",
        "\"x\"",
        "{}",
        "{\"metadata\":null}",
        "{\"metadata\":[]}",
        "{\"metadata\":{\"a\":}}",
        "k8s\0protobuf",
    };
    char *head, *tail;
    size_t hl, tl;

    for (size_t i = 0; i < RW_ARRAY_LEN(bad); i++)
        assert_false(
            writer_template(bad[i], strlen(bad[i]), &head, &hl, &tail, &tl));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
