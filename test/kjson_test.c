/*
 * kjson_test.c: the Kubernetes JSON encoders (proto/kjson.c): watch frames
 * byte for byte, Status and list documents parsed back, and string
 * escaping.  The decoder's tests are test/kjson_decode_test.c, the strict
 * scanner's test/kjson_scan_test.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/frame.h"
#include "proto/kjson.h"
#include "test/json_testlib.h"
#include "test/kjson_testlib.h"

/* ------------------------------------------------------------------ */
/* Watch events                                                        */
/* ------------------------------------------------------------------ */

static void test_watch_frame_exact(void **state)
{
    static const char *const names[] = {"ADDED", "MODIFIED", "DELETED"};
    const struct resource_type *rt = type("configmaps");
    struct object *o = decode_ok(rt, "/registry/configmaps/ns/c",
                                 "{\"apiVersion\":\"v1\"}", 42);

    for (int t = 0; t < EVENT_TYPE_MAX; t++) {
        struct rbuf *f = kjson_watch_frame((enum event_type)t, o);
        char *want = xasprintf("{\"type\":\"%s\",\"object\":%s}\n", names[t],
                               o->json->data);
        char head[32];
        size_t n = strlen(want);

        snprintf(head, sizeof(head), "%08zx\r\n", n);
        assert_int_equal(f->len, FRAME_HEAD_LEN + n + FRAME_TAIL_LEN);
        assert_memory_equal(f->data, head, FRAME_HEAD_LEN);
        assert_memory_equal(frame_payload(f), want, n);
        assert_memory_equal(f->data + FRAME_HEAD_LEN + n, "\r\n", 2);
        assert_int_equal(frame_payload_len(f), n);
        free(want);
        rbuf_unref(f);
    }
    object_unref(o);
}

/* Parses a frame's payload, which must end in exactly one newline. */
static cJSON *parse_frame(struct rbuf *f)
{
    size_t n = frame_payload_len(f);
    const char *p = frame_payload(f);
    cJSON *root;

    assert_true(n > 1);
    assert_int_equal(p[n - 1], '\n');
    assert_null(memchr(p, '\n', n - 1));
    root = cJSON_ParseWithLength(p, n - 1);
    assert_non_null(root);
    return root;
}

/* ------------------------------------------------------------------ */
/* Status and lists                                                    */
/* ------------------------------------------------------------------ */

static void check_status(const cJSON *s, int code, const char *reason,
                         const char *message)
{
    assert_string_equal(get_string(s, "kind"), "Status");
    assert_string_equal(get_string(s, "apiVersion"), "v1");
    assert_true(
        cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "metadata")));
    assert_null(cJSON_GetObjectItemCaseSensitive(s, "metadata")->child);
    assert_string_equal(get_string(s, "status"), "Failure");
    assert_string_equal(get_string(s, "reason"), reason);
    assert_string_equal(get_string(s, "message"), message);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(s, "code")->valueint,
                     code);
}

static void test_status(void **state)
{
    struct rbuf *b =
        kjson_status(410, "Expired", "too old resource version: 5 (10)");
    cJSON *root = parse_rbuf(b);

    assert_string_equal(b->data,
                        "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
                        "\"metadata\":{},\"status\":\"Failure\",\"message\":"
                        "\"too old resource version: 5 (10)\",\"reason\":"
                        "\"Expired\",\"code\":410}");
    check_status(root, 410, "Expired", "too old resource version: 5 (10)");
    cJSON_Delete(root);
    rbuf_unref(b);

    /* Quotes, backslashes, control characters, UTF-8 and a broken byte. */
    b = kjson_status(400, "BadRequest",
                     "invalid value for watch: \"a\\b\"\n\x01 \xc3\xa9 \xff!");
    root = parse_rbuf(b);
    check_status(root, 400, "BadRequest",
                 "invalid value for watch: \"a\\b\"\n\x01 \xc3\xa9 "
                 "\xef\xbf\xbd!");
    cJSON_Delete(root);
    rbuf_unref(b);
}

static void test_error_frame(void **state)
{
    struct rbuf *f = kjson_error_frame(410, "Expired", "gone \"now\"");
    cJSON *root = parse_frame(f);

    assert_string_equal(get_string(root, "type"), "ERROR");
    check_status(cJSON_GetObjectItemCaseSensitive(root, "object"), 410,
                 "Expired", "gone \"now\"");
    cJSON_Delete(root);
    rbuf_unref(f);
}

/* The Status of storage.NewTooLargeResourceVersionError, byte for byte as
 * the apiserver encodes it, as a body and as an ERROR event; details
 * without causes or retryAfterSeconds. */
static void test_status_detailed(void **state)
{
    static const char too_large[] =
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"Timeout: Too large resource "
        "version: 9, current: 5\",\"reason\":\"Timeout\",\"details\":{"
        "\"causes\":[{\"reason\":\"ResourceVersionTooLarge\",\"message\":"
        "\"Too large resource version\"}],\"retryAfterSeconds\":1},"
        "\"code\":504}";
    struct rbuf *b = kjson_status_detailed(
        504, "Timeout", "Timeout: Too large resource version: 9, current: 5",
        "ResourceVersionTooLarge", "Too large resource version", 1, false);
    char *event = xasprintf("{\"type\":\"ERROR\",\"object\":%s}\n", too_large);

    assert_string_equal(b->data, too_large);
    rbuf_unref(b);
    b = kjson_status_detailed(
        504, "Timeout", "Timeout: Too large resource version: 9, current: 5",
        "ResourceVersionTooLarge", "Too large resource version", 1, true);
    assert_int_equal(frame_payload_len(b), strlen(event));
    assert_memory_equal(frame_payload(b), event, strlen(event));
    rbuf_unref(b);
    free(event);
    b = kjson_status_detailed(504, "Timeout", "x", NULL, NULL, 1, false);
    assert_non_null(strstr(b->data, ",\"details\":{\"retryAfterSeconds\":1},"));
    rbuf_unref(b);
    b = kjson_status_detailed(429, "TooManyRequests", "x", NULL, NULL, 0,
                              false);
    assert_non_null(strstr(b->data, ",\"details\":{},\"code\":429}"));
    rbuf_unref(b);
}

/* head + items joined by "," + tail, parsed. */
static cJSON *assemble_list(struct rbuf *head, struct object **items, size_t n)
{
    struct rbuf *tail = kjson_list_tail();
    char *text = xasprintf("%s", head->data), *next;
    cJSON *root;

    for (size_t i = 0; i < n; i++) {
        next = xasprintf("%s%s%s", text, i ? "," : "", items[i]->json->data);
        free(text);
        text = next;
    }
    next = xasprintf("%s%s", text, tail->data);
    free(text);
    assert_string_equal(tail->data, "]}");
    root = cJSON_Parse(next);
    assert_non_null(root);
    free(next);
    rbuf_unref(tail);
    return root;
}

static void test_list(void **state)
{
    const struct resource_type *rt = type("configmaps");
    struct object *items[2] = {
        decode_ok(rt, "/registry/configmaps/a/x", "{\"apiVersion\":\"v1\"}",
                  10),
        decode_ok(rt, "/registry/configmaps/b/y", "{\"apiVersion\":\"v1\"}",
                  11),
    };
    struct rbuf *head = kjson_list_head(rt, 20, NULL, -1);
    cJSON *root, *list;

    assert_string_equal(head->data,
                        "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\","
                        "\"metadata\":{\"resourceVersion\":\"20\"},"
                        "\"items\":[");
    root = assemble_list(head, items, 2);
    list = cJSON_GetObjectItemCaseSensitive(root, "items");
    assert_int_equal(cJSON_GetArraySize(list), 2);
    assert_string_equal(
        get_string(cJSON_GetArrayItem(list, 1), "metadata.resourceVersion"),
        "11");
    cJSON_Delete(root);
    rbuf_unref(head);

    /* Empty: items is [] (never null); continue and remainingItemCount. */
    head = kjson_list_head(type("apps/v1/deployments"), 30, "tok\"en=", 5);
    root = assemble_list(head, NULL, 0);
    assert_string_equal(get_string(root, "kind"), "DeploymentList");
    assert_string_equal(get_string(root, "apiVersion"), "apps/v1");
    assert_string_equal(get_string(root, "metadata.resourceVersion"), "30");
    assert_string_equal(get_string(root, "metadata.continue"), "tok\"en=");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(
                         cJSON_GetObjectItemCaseSensitive(root, "metadata"),
                         "remainingItemCount")
                         ->valueint,
                     5);
    list = cJSON_GetObjectItemCaseSensitive(root, "items");
    assert_true(cJSON_IsArray(list));
    assert_int_equal(cJSON_GetArraySize(list), 0);
    cJSON_Delete(root);
    rbuf_unref(head);
    object_unref(items[0]);
    object_unref(items[1]);
}

/* ------------------------------------------------------------------ */
/* Escaping                                                            */
/* ------------------------------------------------------------------ */

static void test_escape(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"", ""},
        {"plain text", "plain text"},
        {"q\"b\\s/", "q\\\"b\\\\s/"},
        {"\n\r\t\b\f\x01\x1f", "\\n\\r\\t\\u0008\\u000c\\u0001\\u001f"},
        {"\x7f", "\x7f"},
        {"\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80",
         "\xc3\xa9\xe6\x97\xa5\xf0\x9f\x98\x80"},
        /* Broken UTF-8 becomes U+FFFD, one per bad byte, as Go does. */
        {"a\xffz", "a\\ufffdz"},
        {"\xc3", "\\ufffd"},
        {"\xc0\xaf", "\\ufffd\\ufffd"},                       /* overlong */
        {"\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"},            /* surrogate */
        {"\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"}, /* > U+10FFFF */
        {"\xe6\x97", "\\ufffd\\ufffd"},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        char *got = kjson_escape(cases[i].in);

        assert_string_equal(got, cases[i].out);
        free(got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_frame_exact),
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_error_frame),
        cmocka_unit_test(test_status_detailed),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_escape),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
