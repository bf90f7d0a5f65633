/*
 * fleet_scan_test.c: the fleet's JSON scanner (src/fleet/scan.c) against
 * the truth of kjson (the daemon's encoder and decoder) and cJSON: watch
 * events as the daemon frames them, bookmarks, ERROR events, LIST bodies,
 * randomly shaped objects, escapes, malformed input and SCAN_FAST.
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
#include "proto/frame.h"
#include "proto/kjson.h"
#include "proto/kjson_decode.h"
#include "proto/repr.h"
#include "src/fleet/scan.h"

#define POD_KEY "/registry/pods/team-a/web-1"

/* Pods of different shapes; all are in namespace team-a, name web-1. */
static const char *const pods[] = {
    "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-1\","
    "\"namespace\":\"team-a\",\"annotations\":{\"ringwatch.io/written-at\":"
    "\"1764443922123456789\"}},\"spec\":{\"nodeName\":\"n1\"}}",
    /* annotations first, other annotations around ours */
    "{\"metadata\":{\"annotations\":{\"a\":\"1\",\"ringwatch.io/written-at\":"
    "\"42\",\"z\":\"{\\\"x\\\":1}\"},\"namespace\":\"team-a\",\"name\":"
    "\"web-1\"},\"kind\":\"Pod\",\"apiVersion\":\"v1\"}",
    /* nested metadata in spec.template must not count */
    "{\"apiVersion\":\"v1\",\"spec\":{\"template\":{\"metadata\":{"
    "\"name\":\"decoy\",\"namespace\":"
    "\"decoy\",\"annotations\":{\"ringwatch.io/written-at\":\"7\"}}}},"
    "\"metadata\":{\"namespace\":\"team-a\",\"name\":\"web-1\"}}",
    /* whitespace everywhere, escaped annotation key */
    "{ \"apiVersion\" : \"v1\" , \"metadata\" : { \"name\" : \"web-1\" , "
    "\"namespace\" : \"team-a\" ,"
    "\n \"annotations\" : { \"ringwatch.io\\/written-at\" : \"99\" } } ,\t"
    "\"status\" : { \"phase\" : \"Running\" , \"n\" : [ 1 , -2.5e3 , true ,"
    " null , { } , [ ] ] } }",
    /* annotations null, strings with escapes elsewhere */
    "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-1\",\"namespace\":"
    "\"team-a\",\"annotations\":null,\"labels\":{\"q\":"
    "\"\\u00e9\\ud83d\\ude00\\n\"}},"
    "\"data\":\"\\\"}{][\"}",
};

/* The written-at annotation by cJSON, or -1. */
static int64_t cjson_written_at(const char *json, size_t len)
{
    cJSON *root = cJSON_ParseWithLength(json, len), *m, *a, *v;
    int64_t out = -1;

    assert_non_null(root);
    m = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    a = cJSON_GetObjectItemCaseSensitive(m, "annotations");
    v = cJSON_GetObjectItemCaseSensitive(a, SCAN_WRITTEN_AT);
    if (cJSON_IsString(v))
        out = strtoll(v->valuestring, NULL, 10);
    cJSON_Delete(root);
    return out;
}

static void assert_str(const struct scan_str *s, const char *want)
{
    char buf[512];

    assert_int_equal(scan_str_decode(s, buf, sizeof(buf)), strlen(want));
    assert_string_equal(buf, want);
}

static void check_event(struct rbuf *frame, enum scan_event_type type,
                        const struct object *o, int64_t written_at)
{
    const char *line = frame_payload(frame);
    size_t len = frame_payload_len(frame);
    struct scan_event ev;

    for (unsigned flags = 0; flags <= SCAN_FAST; flags += SCAN_FAST) {
        assert_int_equal(scan_event(line, len, flags, &ev), 0);
        assert_int_equal(ev.type, type);
        assert_true(ev.has_object);
        assert_str(&ev.object.ns, o->ns);
        assert_str(&ev.object.name, o->name);
        assert_int_equal(ev.object.rv, o->rv);
        assert_int_equal(ev.object.written_at, written_at);
        /* Spans lie inside the line. */
        assert_true(ev.object.name.p > line &&
                    ev.object.name.p + ev.object.name.len < line + len);
    }
}

static void test_events_match_kjson(void **state)
{
    const struct resource_type *rt = resource_type_find("pods");

    for (size_t i = 0; i < RW_ARRAY_LEN(pods); i++) {
        struct object *o = NULL, *gone;
        const char *why = NULL;
        int64_t wa;
        struct rbuf *fr;

        assert_int_equal(kjson_decode_object(rt, POD_KEY, strlen(POD_KEY),
                                             pods[i], strlen(pods[i]),
                                             123456789012LL, &o, &why),
                         RW_OK);
        wa = cjson_written_at(o->json->data, o->json->len);
        for (int t = EVENT_ADDED; t <= EVENT_MODIFIED; t++) {
            fr = kjson_watch_frame((enum event_type)t, o);
            check_event(fr, t == EVENT_ADDED ? SCAN_ADDED : SCAN_MODIFIED, o,
                        wa);
            rbuf_unref(fr);
        }
        gone = object_with_rv(o, 123456789013LL);
        fr = kjson_watch_frame(EVENT_DELETED, gone);
        check_event(fr, SCAN_DELETED, gone, wa);
        rbuf_unref(fr);
        object_unref(gone);
        object_unref(o);
    }
}

static void test_bookmark_and_error(void **state)
{
    const struct resource_type *rt = resource_type_find("pods");
    static const struct repr plain = {ACCEPT_OBJECT, false,
                                      TABLE_OBJECT_METADATA};
    struct rbuf *fr = repr_bookmark_frame(&plain, rt, 777, true, 0);
    struct scan_event ev;

    assert_int_equal(
        scan_event(frame_payload(fr), frame_payload_len(fr), SCAN_FAST, &ev),
        0);
    assert_int_equal(ev.type, SCAN_BOOKMARK);
    assert_int_equal(ev.object.rv, 777);
    assert_null(ev.object.name.p);
    rbuf_unref(fr);

    fr = kjson_error_frame(410, "Expired",
                           "too old resource version: 5 (\"9\")");
    for (unsigned flags = 0; flags <= SCAN_FAST; flags += SCAN_FAST) {
        assert_int_equal(
            scan_event(frame_payload(fr), frame_payload_len(fr), flags, &ev),
            0);
        assert_int_equal(ev.type, SCAN_ERROR);
        assert_int_equal(ev.object.code, 410);
        assert_str(&ev.object.reason, "Expired");
        assert_str(&ev.object.message, "too old resource version: 5 (\"9\")");
        assert_int_equal(ev.object.rv, -1);
    }
    rbuf_unref(fr);
}

struct items {
    int n;
    char names[8][64];
    int64_t rvs[8];
};

static void item_cb(const struct scan_object *item, void *arg)
{
    struct items *it = arg;

    assert_true(it->n < 8);
    scan_str_decode(&item->name, it->names[it->n], 64);
    it->rvs[it->n++] = item->rv;
}

static void test_list(void **state)
{
    const struct resource_type *rt = resource_type_find("pods");
    struct rbuf *head = kjson_list_head(rt, 4242, NULL, -1);
    struct rbuf *tail = kjson_list_tail();
    struct items it = {0};
    char body[4096];
    int64_t rv;
    int n;

    n = snprintf(body, sizeof(body), "%s%s,%s%s", head->data,
                 "{\"metadata\":{\"name\":\"a\",\"namespace\":\"x\","
                 "\"resourceVersion\":\"10\"}}",
                 "{\"metadata\":{\"name\":\"b\",\"resourceVersion\":\"11\"},"
                 "\"spec\":{\"metadata\":{\"name\":\"no\"}}}",
                 tail->data);
    assert_int_equal(scan_list(body, (size_t)n, &rv, item_cb, &it), 0);
    assert_int_equal(rv, 4242);
    assert_int_equal(it.n, 2);
    assert_string_equal(it.names[0], "a");
    assert_string_equal(it.names[1], "b");
    assert_int_equal(it.rvs[0], 10);
    assert_int_equal(it.rvs[1], 11);

    /* An empty list, items null, and a malformed one. */
    memset(&it, 0, sizeof(it));
    n = snprintf(body, sizeof(body), "%s%s", head->data, tail->data);
    assert_int_equal(scan_list(body, (size_t)n, &rv, item_cb, &it), 0);
    assert_int_equal(it.n, 0);
    assert_int_equal(scan_list("{\"items\":null}", 14, &rv, item_cb, &it), 0);
    assert_int_equal(rv, -1);
    assert_int_equal(scan_list("{\"items\":[1]}", 13, &rv, item_cb, &it),
                     RW_EINVAL);
    assert_int_equal(scan_list("{\"items\":[{}", 12, &rv, item_cb, &it),
                     RW_EINVAL);
    rbuf_unref(head);
    rbuf_unref(tail);
}

static void test_malformed(void **state)
{
    static const char *const bad[] = {
        "",
        "[]",
        "\"x\"",
        "{",
        "{\"type\"",
        "{\"type\":}",
        "{\"type\":\"ADDED\",}",
        "{\"type\":\"ADDED\" \"object\":{}}",
        "{\"type\":\"AD\\qDED\"}",
        "{\"type\":\"\\u12G4\"}",
        "{\"type\":\"a\nb\"}",
        "{\"n\":01}",
        "{\"n\":-}",
        "{\"n\":1.}",
        "{\"n\":1e}",
        "{\"n\":tru}",
        "{\"n\":[1,]}",
        "{\"n\":[1 2]}",
        "{} x",
        "{}}",
        "{\"a\":{\"b\":[}]}}",
    };
    struct scan_event ev;
    struct scan_object obj;

    for (size_t i = 0; i < RW_ARRAY_LEN(bad); i++) {
        assert_int_equal(scan_event(bad[i], strlen(bad[i]), 0, &ev), RW_EINVAL);
        assert_int_equal(scan_object(bad[i], strlen(bad[i]), &obj), RW_EINVAL);
    }
    /* Trailing whitespace and a newline are fine. */
    assert_int_equal(scan_event("{\"type\":\"ADDED\"} \r\n", 19, 0, &ev), 0);
    assert_int_equal(ev.type, SCAN_ADDED);
    assert_false(ev.has_object);
}

static void test_depth_limit(void **state)
{
    size_t n = SCAN_MAX_DEPTH + 10, len = 0;
    char *s = xmalloc(2 * n + 16);
    struct scan_event ev;

    len += (size_t)sprintf(s, "{\"a\":");
    for (size_t i = 0; i < n; i++)
        s[len++] = '[';
    for (size_t i = 0; i < n; i++)
        s[len++] = ']';
    s[len++] = '}';
    assert_int_equal(scan_event(s, len, 0, &ev), RW_EINVAL);
    /* Just below the limit is fine. */
    len = (size_t)sprintf(s, "{\"a\":");
    for (size_t i = 0; i < SCAN_MAX_DEPTH - 2; i++)
        s[len++] = '[';
    for (size_t i = 0; i < SCAN_MAX_DEPTH - 2; i++)
        s[len++] = ']';
    s[len++] = '}';
    assert_int_equal(scan_event(s, len, 0, &ev), 0);
    free(s);
}

static void test_last_wins_and_null(void **state)
{
    const char *s = "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":"
                    "\"a\",\"name\":\"b\",\"namespace\":null,"
                    "\"resourceVersion\":\"5\"}},\"type\":\"DELETED\"}";
    struct scan_event ev;

    assert_int_equal(scan_event(s, strlen(s), 0, &ev), 0);
    assert_int_equal(ev.type, SCAN_DELETED);
    assert_str(&ev.object.name, "b");
    assert_null(ev.object.ns.p);
    assert_int_equal(ev.object.rv, 5);
    /* "object" not an object: absent. */
    s = "{\"type\":\"ADDED\",\"object\":[1]}";
    assert_int_equal(scan_event(s, strlen(s), 0, &ev), 0);
    assert_false(ev.has_object);
    /* Unknown type. */
    s = "{\"type\":\"added\",\"object\":{}}";
    assert_int_equal(scan_event(s, strlen(s), 0, &ev), 0);
    assert_int_equal(ev.type, SCAN_UNKNOWN);
}

static void test_fast_stops_after_metadata(void **state)
{
    /* Garbage after metadata: only a full scan sees it. */
    const char *s = "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{"
                    "\"name\":\"a\",\"resourceVersion\":\"9\"},\"spec\":{]";
    struct scan_event ev;

    assert_int_equal(scan_event(s, strlen(s), SCAN_FAST, &ev), 0);
    assert_int_equal(ev.type, SCAN_MODIFIED);
    assert_int_equal(ev.object.rv, 9);
    assert_int_equal(scan_event(s, strlen(s), 0, &ev), RW_EINVAL);
    /* ERROR events are always scanned whole (code comes after metadata). */
    s = "{\"type\":\"ERROR\",\"object\":{\"metadata\":{},\"code\":500}}";
    assert_int_equal(scan_event(s, strlen(s), SCAN_FAST, &ev), 0);
    assert_int_equal(ev.object.code, 500);
    /* Type after object: no early stop, still right. */
    s = "{\"object\":{\"metadata\":{\"resourceVersion\":\"3\"}},\"type\":"
        "\"BOOKMARK\"}";
    assert_int_equal(scan_event(s, strlen(s), SCAN_FAST, &ev), 0);
    assert_int_equal(ev.type, SCAN_BOOKMARK);
    assert_int_equal(ev.object.rv, 3);
}

static void test_strings_and_numbers(void **state)
{
    struct scan_str s = {"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t", 20, true};
    char buf[64];

    assert_int_equal(scan_str_decode(&s, buf, sizeof(buf)), 12);
    assert_memory_equal(buf, "a\"b\\c/d\b\f\n\r\t", 13);
    s = (struct scan_str){"\\u00e9\\ud83d\\ude00\\udc00x", 25, true};
    assert_int_equal(scan_str_decode(&s, buf, sizeof(buf)), 2 + 4 + 3 + 1);
    assert_string_equal(buf, "\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbdx");
    /* Truncation keeps the full length and a terminated prefix. */
    assert_int_equal(scan_str_decode(&s, buf, 3), 10);
    assert_string_equal(buf, "\xc3\xa9");
    assert_true(
        scan_str_eq(&(struct scan_str){"ab\\u0063", 8, true}, "abc", 3));
    assert_false(scan_str_eq(&(struct scan_str){"abc", 3, false}, "abd", 3));
    assert_false(scan_str_eq(&(struct scan_str){NULL, 0, false}, "", 0));

    assert_int_equal(scan_decimal("0", 1), 0);
    assert_int_equal(scan_decimal("9223372036854775807", 19), INT64_MAX);
    assert_int_equal(scan_decimal("9223372036854775808", 19), -1);
    assert_int_equal(scan_decimal("12345678901234567890", 20), -1);
    assert_int_equal(scan_decimal("12a", 3), -1);
    assert_int_equal(scan_decimal("", 0), -1);
    assert_int_equal(scan_decimal("-1", 2), -1);
}

/* ---- random objects through cJSON ---- */

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void random_string(char *out, size_t cap)
{
    static const char *const pieces[] = {
        "a", "Z", "-", ".", "\"", "\\", "/", "\n", "\xc3\xa9", "\t", "9"};
    size_t n = 1 + rnd(12), len = 0;

    for (size_t i = 0; i < n; i++) {
        const char *p = pieces[rnd(RW_ARRAY_LEN(pieces))];

        if (len + strlen(p) + 1 >= cap)
            break;
        strcpy(out + len, p);
        len += strlen(p);
    }
    out[len] = '\0';
}

static cJSON *random_value(int depth)
{
    char s[64];
    cJSON *v;

    switch (depth > 3 ? rnd(3) : rnd(5)) {
    case 0:
        random_string(s, sizeof(s));
        return cJSON_CreateString(s);
    case 1:
        return cJSON_CreateNumber((double)rnd(100000) - 500);
    case 2:
        return rnd(2) ? cJSON_CreateNull() : cJSON_CreateBool(rnd(2));
    case 3:
        v = cJSON_CreateArray();
        for (unsigned i = rnd(4); i > 0; i--)
            cJSON_AddItemToArray(v, random_value(depth + 1));
        return v;
    default:
        v = cJSON_CreateObject();
        for (unsigned i = rnd(4); i > 0; i--) {
            random_string(s, sizeof(s));
            cJSON_AddItemToObject(v, s, random_value(depth + 1));
        }
        return v;
    }
}

static void test_random_objects(void **state)
{
    for (int round = 0; round < 2000; round++) {
        cJSON *root = cJSON_CreateObject(), *meta = cJSON_CreateObject();
        cJSON *ann = cJSON_CreateObject(), *ev = cJSON_CreateObject();
        char ns[64], name[64], rv[24], wa[24], *text;
        struct scan_event out;
        int64_t want_rv = (int64_t)rnd(1000000) + 1;
        int64_t want_wa = rnd(2) ? (int64_t)rnd(99999) : -1;

        random_string(ns, sizeof(ns));
        random_string(name, sizeof(name));
        snprintf(rv, sizeof(rv), "%lld", (long long)want_rv);
        snprintf(wa, sizeof(wa), "%lld", (long long)want_wa);
        cJSON_AddItemToObject(root, "spec", random_value(0));
        cJSON_AddItemToObject(ann, "x", random_value(1));
        if (want_wa >= 0)
            cJSON_AddStringToObject(ann, SCAN_WRITTEN_AT, wa);
        cJSON_AddItemToObject(meta, rnd(2) ? "labels" : "uid", random_value(1));
        cJSON_AddStringToObject(meta, "name", name);
        cJSON_AddItemToObject(meta, "annotations", ann);
        cJSON_AddStringToObject(meta, "namespace", ns);
        cJSON_AddStringToObject(meta, "resourceVersion", rv);
        cJSON_AddItemToObject(root, "metadata", meta);
        cJSON_AddItemToObject(root, "status", random_value(0));
        cJSON_AddStringToObject(ev, "type", "MODIFIED");
        cJSON_AddItemToObject(ev, "object", root);
        text = rnd(2) ? cJSON_Print(ev) : cJSON_PrintUnformatted(ev);
        for (unsigned flags = 0; flags <= SCAN_FAST; flags += SCAN_FAST) {
            assert_int_equal(scan_event(text, strlen(text), flags, &out), 0);
            assert_int_equal(out.type, SCAN_MODIFIED);
            assert_str(&out.object.ns, ns);
            assert_str(&out.object.name, name);
            assert_int_equal(out.object.rv, want_rv);
            assert_int_equal(out.object.written_at, want_wa);
        }
        free(text);
        cJSON_Delete(ev);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_events_match_kjson),
        cmocka_unit_test(test_bookmark_and_error),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_last_wins_and_null),
        cmocka_unit_test(test_fast_stops_after_metadata),
        cmocka_unit_test(test_strings_and_numbers),
        cmocka_unit_test(test_random_objects),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
