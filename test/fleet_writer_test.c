/*
 * fleet_writer_test.c: the writer's templates (writer_template): the
 * stamp lands in metadata.annotations whatever the value's shape, other
 * annotations and the rest of the value are kept, earlier stamps are
 * replaced, and values that are not objects with an object metadata are
 * refused.  Checked by parsing the stamped value with cJSON and the
 * fleet's own scanner.  Also the bodies of the writes through the server
 * (kube_write_set_rv): metadata.resourceVersion set once, whatever the
 * value carried, the rest kept, bad values refused.
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
#include "cache/sbuf.h"
#include "src/fleet/kube_write.h"
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

/* Sets rv on value and returns the parsed result (cJSON_Delete it),
 * checking that metadata has resourceVersion exactly once when rv > 0. */
static cJSON *with_rv(const char *value, int64_t rv)
{
    struct sbuf b = {0};
    cJSON *root, *meta, *m;
    int seen = 0;

    sbuf_add(&b, "junk");
    assert_true(kube_write_set_rv(value, strlen(value), rv, &b));
    assert_memory_equal(b.data, "junk", 4);
    root = cJSON_Parse(b.data + 4);
    assert_non_null(root);
    meta = cJSON_GetObjectItem(root, "metadata");
    cJSON_ArrayForEach(m, meta) seen +=
        strcmp(m->string, "resourceVersion") == 0;
    assert_int_equal(seen, rv > 0);
    sbuf_fini(&b);
    return root;
}

static void test_set_rv(void **state)
{
    cJSON *r, *meta;
    struct sbuf b = {0};

    r = with_rv("{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\"spec\":{}}",
                42);
    meta = cJSON_GetObjectItem(r, "metadata");
    assert_string_equal(
        cJSON_GetObjectItem(meta, "resourceVersion")->valuestring, "42");
    assert_string_equal(cJSON_GetObjectItem(meta, "name")->valuestring, "p");
    assert_non_null(cJSON_GetObjectItem(r, "spec"));
    cJSON_Delete(r);
    /* A read object's resourceVersion is replaced, not duplicated. */
    r = with_rv("{\"metadata\":{\"resourceVersion\":\"7\",\"name\":\"p\","
                "\"resourceVersion\":\"8\"}}",
                9);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(r, "metadata"),
                                            "resourceVersion")
                            ->valuestring,
                        "9");
    cJSON_Delete(r);
    /* 0 drops it (an unconditional update), also from an empty metadata. */
    cJSON_Delete(with_rv("{\"metadata\":{\"resourceVersion\":\"7\"}}", 0));
    cJSON_Delete(with_rv("{\"metadata\":{}}", 0));
    cJSON_Delete(with_rv("{\"metadata\":{}}", 3));
    /* No object metadata, not an object, malformed: refused, b unchanged. */
    assert_false(kube_write_set_rv("{}", 2, 1, &b));
    assert_false(kube_write_set_rv("[]", 2, 1, &b));
    assert_false(kube_write_set_rv("{\"metadata\":[]}", 15, 1, &b));
    assert_false(kube_write_set_rv("{\"metadata\":{\"a\":}}", 19, 1, &b));
    assert_int_equal(b.len, 0);
    sbuf_fini(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_set_rv),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
