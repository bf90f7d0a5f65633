/*
 * patch_test.c: the patch formats (proto/patch.c, patch_merge.c,
 * patch_json.c): the Content-Type's patch type; RFC 7386 appendix A and
 * RFC 6902 appendix A, their documents wrapped in an object member where
 * the RFC's top level is not an object (ringwatch patches objects);
 * evanphx/json-patch v4's quirks the apiserver shows; every error with its
 * code, reason and message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/jval_edit.h"
#include "proto/patch.h"
#include "test/patch_testlib.h"

static void test_type_of(void **state)
{
    (void)state;
    assert_int_equal(patch_type_of("application/merge-patch+json"),
                     PATCH_MERGE);
    assert_int_equal(patch_type_of("application/json-patch+json"),
                     PATCH_JSON);
    assert_int_equal(
        patch_type_of("application/strategic-merge-patch+json; charset=utf-8"),
        PATCH_STRATEGIC);
    /* as PatchResource: exact, the parameters after ';' cut */
    assert_int_equal(patch_type_of("application/merge-patch+json;x=y"),
                     PATCH_MERGE);
    assert_int_equal(patch_type_of("application/merge-patch+json ;x=y"), -1);
    assert_int_equal(patch_type_of("Application/Merge-Patch+JSON"), -1);
    assert_int_equal(patch_type_of("application/apply-patch+yaml"), -1);
    assert_int_equal(patch_type_of("application/json"), -1);
    assert_int_equal(patch_type_of(""), -1);
    assert_int_equal(patch_type_of(";application/json-patch+json"), -1);
}

/* RFC 7386 appendix A: target, patch, result (each wrapped as {"x": ...}
 * so that the document is an object). */
static void test_merge_rfc7386(void **state)
{
    static const char *const cases[][3] = {
        {"{\"a\":\"b\"}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"b\":\"c\"}", "{\"a\":\"b\",\"b\":\"c\"}"},
        {"{\"a\":\"b\"}", "{\"a\":null}", "{}"},
        {"{\"a\":\"b\",\"b\":\"c\"}", "{\"a\":null}", "{\"b\":\"c\"}"},
        {"{\"a\":[\"b\"]}", "{\"a\":\"c\"}", "{\"a\":\"c\"}"},
        {"{\"a\":\"c\"}", "{\"a\":[\"b\"]}", "{\"a\":[\"b\"]}"},
        {"{\"a\":{\"b\":\"c\"}}", "{\"a\":{\"b\":\"d\",\"c\":null}}",
         "{\"a\":{\"b\":\"d\"}}"},
        {"{\"a\":[{\"b\":\"c\"}]}", "{\"a\":[1]}", "{\"a\":[1]}"},
        {"[\"a\",\"b\"]", "[\"c\",\"d\"]", "[\"c\",\"d\"]"},
        {"{\"a\":\"b\"}", "[\"c\"]", "[\"c\"]"},
        {"{\"a\":\"foo\"}", "\"bar\"", "\"bar\""},
        {"{\"e\":null}", "{\"a\":1}", "{\"e\":null,\"a\":1}"},
        {"[1,2]", "{\"a\":\"b\",\"c\":null}", "{\"a\":\"b\"}"},
        {"{}", "{\"a\":{\"bb\":{\"ccc\":null}}}", "{\"a\":{\"bb\":{}}}"},
    };
    char doc[256], patch[256], want[256];

    (void)state;
    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        snprintf(doc, sizeof(doc), "{\"x\":%s}", cases[i][0]);
        snprintf(patch, sizeof(patch), "{\"x\":%s}", cases[i][1]);
        snprintf(want, sizeof(want), "{\"x\":%s}", cases[i][2]);
        assert_patched(PATCH_MERGE, "", "ConfigMap", doc, patch, want);
    }
    /* the RFC's own top level where it is an object */
    assert_patched(PATCH_MERGE, "", "ConfigMap", "{\"a\":\"foo\"}",
                   "{\"a\":null,\"b\":{\"c\":null,\"d\":1}}",
                   "{\"b\":{\"d\":1}}");
    /* a null target member: the patch's object is added, nulls pruned */
    assert_patched(PATCH_MERGE, "", "ConfigMap", "{\"a\":null}",
                   "{\"a\":{\"b\":null,\"c\":2}}", "{\"a\":{\"c\":2}}");
    /* a repeated member: the last one counts (Go's decoder) */
    assert_patched(PATCH_MERGE, "", "ConfigMap", "{\"a\":1}",
                   "{\"a\":2,\"a\":3}", "{\"a\":3}");
    /* the RFC's example of section 3 */
    assert_patched(PATCH_MERGE, "", "ConfigMap",
                   "{\"title\":\"Goodbye!\",\"author\":{\"givenName\":\"John\","
                   "\"familyName\":\"Doe\"},\"tags\":[\"example\",\"sample\"],"
                   "\"content\":\"This will be unchanged\"}",
                   "{\"title\":\"Hello!\",\"phoneNumber\":\"+01-123-456-7890\","
                   "\"author\":{\"familyName\":null},\"tags\":[\"example\"]}",
                   "{\"title\":\"Hello!\",\"author\":{\"givenName\":\"John\"},"
                   "\"tags\":[\"example\"],\"content\":\"This will be "
                   "unchanged\",\"phoneNumber\":\"+01-123-456-7890\"}");
}

/* evanphx v4's rules that differ from the RFC's letter, as the apiserver
 * answers. */
static void test_merge_evanphx(void **state)
{
    (void)state;
    /* nulls inside objects inside an added array are pruned; the array's
     * null elements stay */
    assert_patched(PATCH_MERGE, "", "ConfigMap", "{}",
                   "{\"a\":[{\"b\":null,\"c\":1},null]}",
                   "{\"a\":[{\"c\":1},null]}");
    /* replacing an object by an array: the array as sent */
    assert_patched(PATCH_MERGE, "", "ConfigMap", "{\"a\":{\"k\":1}}",
                   "{\"a\":[{\"b\":null}]}", "{\"a\":[{\"b\":null}]}");
}

static void test_merge_errors(void **state)
{
    (void)state;
    assert_refused(PATCH_MERGE, "", "Pod", "{}", "{", 400, "BadRequest",
                   "Invalid JSON Patch");
    assert_refused(PATCH_MERGE, "", "Pod", "{}", "null", 400, "BadRequest",
                   "Invalid JSON Patch");
    assert_refused(PATCH_MERGE, "", "Pod", "{}", "\"x\"", 400, "BadRequest",
                   "Invalid JSON Patch");
    assert_refused(PATCH_MERGE, "", "Pod", "{}", "{} {}", 400, "BadRequest",
                   "Invalid JSON Patch");
    /* an array patch replaces the object: the apiserver cannot decode it */
    assert_refused(PATCH_MERGE, "", "Pod", "{}", "[1]", 422, "Invalid",
                   " \"\" is invalid: patch: Invalid value: \"[1]\": the "
                   "patched object is not a JSON object");
}

/* RFC 6902 appendix A.1 to A.16. */
static void test_json_rfc6902(void **state)
{
    (void)state;
    assert_patched(PATCH_JSON, "", "Pod", "{\"foo\":\"bar\"}",
                   "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\"}]",
                   "{\"baz\":\"qux\",\"foo\":\"bar\"}");
    assert_patched(PATCH_JSON, "", "Pod", "{\"foo\":[\"bar\",\"baz\"]}",
                   "[{\"op\":\"add\",\"path\":\"/foo/1\",\"value\":\"qux\"}]",
                   "{\"foo\":[\"bar\",\"qux\",\"baz\"]}");
    assert_patched(PATCH_JSON, "", "Pod", "{\"baz\":\"qux\",\"foo\":\"bar\"}",
                   "[{\"op\":\"remove\",\"path\":\"/baz\"}]",
                   "{\"foo\":\"bar\"}");
    assert_patched(PATCH_JSON, "", "Pod", "{\"foo\":[\"bar\",\"qux\",\"baz\"]}",
                   "[{\"op\":\"remove\",\"path\":\"/foo/1\"}]",
                   "{\"foo\":[\"bar\",\"baz\"]}");
    assert_patched(
        PATCH_JSON, "", "Pod", "{\"baz\":\"qux\",\"foo\":\"bar\"}",
        "[{\"op\":\"replace\",\"path\":\"/baz\",\"value\":\"boo\"}]",
        "{\"baz\":\"boo\",\"foo\":\"bar\"}");
    assert_patched(PATCH_JSON, "", "Pod",
                   "{\"foo\":{\"bar\":\"baz\",\"waldo\":\"fred\"},"
                   "\"qux\":{\"corge\":\"grault\"}}",
                   "[{\"op\":\"move\",\"from\":\"/foo/waldo\","
                   "\"path\":\"/qux/thud\"}]",
                   "{\"foo\":{\"bar\":\"baz\"},\"qux\":{\"corge\":\"grault\","
                   "\"thud\":\"fred\"}}");
    assert_patched(
        PATCH_JSON, "", "Pod", "{\"foo\":[\"all\",\"grass\",\"cows\",\"eat\"]}",
        "[{\"op\":\"move\",\"from\":\"/foo/1\",\"path\":\"/foo/3\"}]",
        "{\"foo\":[\"all\",\"cows\",\"eat\",\"grass\"]}");
    assert_patched(PATCH_JSON, "", "Pod",
                   "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}",
                   "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"qux\"},"
                   "{\"op\":\"test\",\"path\":\"/foo/1\",\"value\":2}]",
                   "{\"baz\":\"qux\",\"foo\":[\"a\",2,\"c\"]}");
    assert_json_failed("{\"baz\":\"qux\"}",
                       "[{\"op\":\"test\",\"path\":\"/baz\",\"value\":\"bar\"}]",
                       "testing value /baz failed: test failed");
    assert_patched(PATCH_JSON, "", "Pod", "{\"foo\":\"bar\"}",
                   "[{\"op\":\"add\",\"path\":\"/child\",\"value\":"
                   "{\"grandchild\":{}}}]",
                   "{\"foo\":\"bar\",\"child\":{\"grandchild\":{}}}");
    assert_patched(PATCH_JSON, "", "Pod", "{\"foo\":\"bar\"}",
                   "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\","
                   "\"xyz\":123}]",
                   "{\"foo\":\"bar\",\"baz\":\"qux\"}");
    assert_json_failed(
        "{\"foo\":\"bar\"}",
        "[{\"op\":\"add\",\"path\":\"/baz/bat\",\"value\":\"qux\"}]",
        "add operation does not apply: doc is missing path: \"/baz/bat\": "
        "missing value");
    /* A.13: a repeated "op": Go keeps the last, remove of an absent key */
    assert_json_failed("{\"foo\":\"bar\"}",
                       "[{\"op\":\"add\",\"path\":\"/baz\",\"value\":\"qux\","
                       "\"op\":\"remove\"}]",
                       "error in remove for path: '/baz': Unable to remove "
                       "nonexistent key: baz: missing value");
    assert_patched(PATCH_JSON, "", "Pod", "{\"/\":9,\"~1\":10}",
                   "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":10}]",
                   "{\"/\":9,\"~1\":10}");
    assert_json_failed("{\"/\":9,\"~1\":10}",
                       "[{\"op\":\"test\",\"path\":\"/~01\",\"value\":\"10\"}]",
                       "testing value /~01 failed: test failed");
    assert_patched(
        PATCH_JSON, "", "Pod", "{\"foo\":[\"bar\"]}",
        "[{\"op\":\"add\",\"path\":\"/foo/-\",\"value\":[\"abc\",\"def\"]}]",
        "{\"foo\":[\"bar\",[\"abc\",\"def\"]]}");
}

/* evanphx v4's rules beyond the RFC, as the apiserver answers. */
static void test_json_evanphx(void **state)
{
    (void)state;
    /* ~1 is a slash, also in the middle of a token (annotation keys) */
    assert_patched(PATCH_JSON, "", "Pod",
                   "{\"metadata\":{\"annotations\":{\"a/b\":\"1\"}}}",
                   "[{\"op\":\"replace\",\"path\":"
                   "\"/metadata/annotations/a~1b\",\"value\":\"2\"}]",
                   "{\"metadata\":{\"annotations\":{\"a/b\":\"2\"}}}");
    /* negative indices count from the end */
    assert_patched(PATCH_JSON, "", "Pod", "{\"a\":[1,2,3]}",
                   "[{\"op\":\"remove\",\"path\":\"/a/-1\"}]", "{\"a\":[1,2]}");
    /* replace of an absent member adds it; replace "" takes the value */
    assert_patched(PATCH_JSON, "", "Pod", "{}",
                   "[{\"op\":\"replace\",\"path\":\"/a\",\"value\":1}]",
                   "{\"a\":1}");
    assert_patched(PATCH_JSON, "", "Pod", "{\"a\":1}",
                   "[{\"op\":\"replace\",\"path\":\"\",\"value\":{\"b\":2}}]",
                   "{\"b\":2}");
    /* add without a value adds null; test of an absent member passes
     * against null */
    assert_patched(PATCH_JSON, "", "Pod", "{}",
                   "[{\"op\":\"add\",\"path\":\"/a\"},"
                   "{\"op\":\"test\",\"path\":\"/b\",\"value\":null}]",
                   "{\"a\":null}");
    /* null patch: no operations */
    assert_patched(PATCH_JSON, "", "Pod", "{\"a\":1}", "null", "{\"a\":1}");
    /* test compares objects whatever their member order, numbers by
     * value */
    assert_patched(PATCH_JSON, "", "Pod", "{\"a\":{\"x\":1,\"y\":[2]}}",
                   "[{\"op\":\"test\",\"path\":\"/a\",\"value\":"
                   "{\"y\":[2.0],\"x\":1}}]",
                   "{\"a\":{\"x\":1,\"y\":[2]}}");
    /* copy */
    assert_patched(PATCH_JSON, "", "Pod", "{\"a\":{\"b\":1}}",
                   "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/c\"}]",
                   "{\"a\":{\"b\":1},\"c\":{\"b\":1}}");
}

static void test_json_errors(void **state)
{
    char *ops;
    size_t n = 0;

    (void)state;
    assert_refused(PATCH_JSON, "", "Pod", "{}", "{\"op\":\"add\"}", 400,
                   "BadRequest",
                   "json: cannot unmarshal object into Go value of type "
                   "jsonpatch.Patch");
    assert_refused(PATCH_JSON, "", "Pod", "{}", "[\"add\"]", 400, "BadRequest",
                   "json: cannot unmarshal string into Go value of type "
                   "jsonpatch.Operation");
    assert_json_failed("{}", "[{\"op\":\"frob\",\"path\":\"/a\"}]",
                       "Unexpected kind: frob");
    assert_json_failed("{}", "[{\"path\":\"/a\"}]", "Unexpected kind: unknown");
    assert_json_failed("{}", "[{\"op\":\"add\",\"value\":1}]",
                       "add operation failed to decode path: missing value");
    assert_json_failed("{}", "[{\"op\":\"test\",\"path\":5}]",
                       "test operation failed to decode path: json: cannot "
                       "unmarshal number into Go value of type string");
    assert_json_failed("{\"a\":[1]}",
                       "[{\"op\":\"add\",\"path\":\"/a/5\",\"value\":1}]",
                       "error in add for path: '/a/5': Unable to access "
                       "invalid index: 5: invalid index referenced");
    assert_json_failed("{\"a\":[1]}",
                       "[{\"op\":\"add\",\"path\":\"/a/x\",\"value\":1}]",
                       "error in add for path: '/a/x': value was not a proper "
                       "array index: 'x': strconv.Atoi: parsing \"x\": "
                       "invalid syntax");
    assert_json_failed("{\"a\":[1]}",
                       "[{\"op\":\"remove\",\"path\":\"/a/-\"}]",
                       "error in remove for path: '/a/-': strconv.Atoi: "
                       "parsing \"-\": invalid syntax");
    assert_json_failed("{}",
                       "[{\"op\":\"move\",\"from\":\"/x\",\"path\":\"/y\"}]",
                       "error in move for path: 'x': Unable to remove "
                       "nonexistent key: x: missing value");
    assert_json_failed("{\"a\":{}}",
                       "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/a/b\"}]",
                       "move operation does not apply: doc is missing "
                       "destination path: /a/b: missing value");
    /* atomic: the first op applied, the second failing: nothing applied */
    assert_json_failed("{\"a\":1}",
                       "[{\"op\":\"add\",\"path\":\"/b\",\"value\":2},"
                       "{\"op\":\"test\",\"path\":\"/a\",\"value\":2}]",
                       "testing value /a failed: test failed");
    /* maxJSONPatchOperations */
    ops = xmalloc(10001 * 40 + 2);
    ops[n++] = '[';
    for (int i = 0; i < 10001; i++)
        n += (size_t)sprintf(ops + n, "%s{\"op\":\"test\",\"path\":\"/a\"}",
                             i ? "," : "");
    ops[n++] = ']';
    ops[n] = '\0';
    assert_refused(PATCH_JSON, "", "Pod", "{}", ops, 413,
                   "RequestEntityTooLarge",
                   "Request entity too large: The allowed maximum operations "
                   "in a JSON patch is 10000, got 10001");
    free(ops);
    /* copies doubling the object are bounded */
    ops = xmalloc(64 * 40 + 2);
    n = 0;
    ops[n++] = '[';
    for (int i = 0; i < 64; i++)
        n += (size_t)sprintf(ops + n,
                             "%s{\"op\":\"copy\",\"from\":\"/a\","
                             "\"path\":\"/a/%d\"}",
                             i ? "," : "", i % 2);
    ops[n++] = ']';
    ops[n] = '\0';
    assert_refused(PATCH_JSON, "", "Pod", "{\"a\":[1,2]}", ops, 422, "Invalid",
                   "the server rejected our request due to an error in our "
                   "request");
    free(ops);
}

/* The limits the apiserver's decoders have, and the kinds without a
 * strategic table. */
/* A patch {"a": [[...]]} nested levels deep in all. */
static char *nested_patch(int levels)
{
    char *p = xmalloc(2 * (size_t)levels + 16), *w = p;

    w += sprintf(w, "{\"a\":");
    for (int i = 1; i < levels; i++)
        *w++ = '[';
    for (int i = 1; i < levels; i++)
        *w++ = ']';
    strcpy(w, "}");
    return p;
}

static void test_limits(void **state)
{
    char *deep = nested_patch(1001), *ok = nested_patch(1000);
    struct patch_error err;
    char *out;
    size_t n;

    (void)state;
    /* cJSON's limit: 1000 levels read, 1001 refused */
    assert_refused(PATCH_MERGE, "", "Pod", "{}", deep, 400, "BadRequest",
                   "the patch is nested deeper than 1000 levels");
    assert_int_equal(patch_apply(PATCH_MERGE, "", "Pod", "{}", 2, ok,
                                 strlen(ok), &out, &n, &err),
                     RW_OK);
    free(out);
    /* a result deeper than the limit: a copy of a 999-level array into
     * itself */
    assert_refused(PATCH_JSON, "", "Pod", ok,
                   "[{\"op\":\"copy\",\"from\":\"/a\",\"path\":\"/a/0\"}]", 400,
                   "BadRequest",
                   "the patched object is nested deeper than 1000 levels");
    free(deep);
    free(ok);
    assert_refused(PATCH_MERGE, "", "Pod", "{}", "{\"a\":\"\xff\"}", 400,
                   "BadRequest", "Invalid JSON Patch");
    assert_refused(PATCH_STRATEGIC, "example.com", "Widget", "{}", "{}", 415,
                   "UnsupportedMediaType",
                   "the body of the request was in an unknown format - "
                   "accepted media types include: application/json-patch+json, "
                   "application/merge-patch+json, application/apply-patch+yaml");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_of),
        cmocka_unit_test(test_merge_rfc7386),
        cmocka_unit_test(test_merge_evanphx),
        cmocka_unit_test(test_merge_errors),
        cmocka_unit_test(test_json_rfc6902),
        cmocka_unit_test(test_json_evanphx),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_limits),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
