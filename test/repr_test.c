/*
 * repr_test.c: watch event frames in every representation (proto/repr.c):
 * distinct format numbers; the object's own JSON as kjson_watch_frame
 * writes it; PartialObjectMetadata around the stored metadata (v1 and
 * v1beta1); Table events without column definitions and the one copy with
 * them, identical elsewhere; BOOKMARKs in each representation, the
 * initial-events-end marker with its annotations and the list blueprint
 * decoded back; every frame a well-formed chunk of one line.
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
#include "proto/kjson_decode.h"
#include "proto/repr.h"

#define T0 ((time_t)1704164645) /* 2024-01-02T03:04:05Z */

static const struct repr OBJECT = {ACCEPT_OBJECT, false, TABLE_OBJECT_METADATA};
static const struct repr PARTIAL = {ACCEPT_PARTIAL, false,
                                    TABLE_OBJECT_METADATA};
static const struct repr TABLE = {ACCEPT_TABLE, false, TABLE_OBJECT_METADATA};

static const struct resource_type *pods(void)
{
    return resource_type_find("pods");
}

static struct object *pod(void)
{
    static const char json[] =
        "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p1\","
        "\"namespace\":\"ns\",\"creationTimestamp\":\"2024-01-02T03:03:05Z\","
        "\"labels\":{\"a\":\"b\"}},\"spec\":{\"nodeName\":\"n1\"},"
        "\"status\":{\"phase\":\"Running\"}}";
    const char *key = "/registry/pods/ns/p1", *why = NULL;
    struct object *o = NULL;

    assert_int_equal(kjson_decode_object(pods(), key, strlen(key), json,
                                         strlen(json), 42, &o, &why),
                     RW_OK);
    return o;
}

/* The frame's one event, parsed; checks the chunk and the line. */
static cJSON *parse_frame(struct rbuf *f)
{
    size_t n = frame_payload_len(f);
    const char *p = frame_payload(f);
    char head[16];
    cJSON *ev;

    snprintf(head, sizeof(head), "%08zx\r\n", n);
    assert_memory_equal(f->data, head, FRAME_HEAD_LEN);
    assert_memory_equal(p + n, "\r\n", 2);
    assert_true(n > 2 && p[n - 1] == '\n');
    assert_null(memchr(p, '\n', n - 1));
    ev = cJSON_ParseWithLength(p, n);
    assert_non_null(ev);
    return ev;
}

static const char *str(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItem(o, name);

    assert_true(cJSON_IsString(v));
    return v->valuestring;
}

static void test_formats(void **state)
{
    bool seen[REPR_FORMATS] = {false};
    int n = 0;

    for (int kind = ACCEPT_OBJECT; kind <= ACCEPT_PARTIAL; kind++)
        for (int beta = 0; beta < 2; beta++)
            for (int inc = 0; inc < 3; inc++) {
                struct repr r = {kind, beta, inc};
                unsigned f = repr_format(&r);

                assert_true(f < REPR_FORMATS);
                if (kind == ACCEPT_OBJECT) {
                    assert_int_equal(f, 0);
                } else if (kind == ACCEPT_TABLE || inc == 0) {
                    assert_false(seen[f]);
                }
                if (!seen[f])
                    n++;
                seen[f] = true;
                assert_int_equal(repr_ages(&r), kind == ACCEPT_TABLE);
            }
    assert_int_equal(n, REPR_FORMATS);
    for (unsigned f = 0; f < REPR_FORMATS; f++)
        assert_int_equal(repr_format(repr_of(f)), f);
}

static void test_resolve(void **state)
{
    struct accept_choice table = {ACCEPT_TABLE, true},
                         plist = {ACCEPT_PARTIAL_LIST, false},
                         plain = {ACCEPT_OBJECT, false};
    struct repr r;
    char why[256];

    assert_int_equal(repr_resolve(&table, ACCEPT_WATCH, pods(), "None", &r, why,
                                  sizeof(why)),
                     0);
    assert_true(r.kind == ACCEPT_TABLE && r.beta &&
                r.include == TABLE_OBJECT_NONE);
    assert_int_equal(
        repr_resolve(&table, ACCEPT_LIST, pods(), "", &r, why, sizeof(why)), 0);
    assert_int_equal(r.include, TABLE_OBJECT_METADATA);
    assert_int_equal(
        repr_resolve(&table, ACCEPT_GET, pods(), "all\"", &r, why, sizeof(why)),
        400);
    assert_string_equal(why, "Unable to convert to Table as requested: "
                             "includeObject: Invalid value: \"all\\\"\": "
                             "must be 'Metadata', 'Object', 'None', or empty");
    /* includeObject means nothing without a Table. */
    assert_int_equal(
        repr_resolve(&plain, ACCEPT_GET, pods(), "bogus", &r, why, sizeof(why)),
        0);
    assert_int_equal(
        repr_resolve(&plist, ACCEPT_LIST, pods(), "", &r, why, sizeof(why)), 0);
    assert_int_equal(r.kind, ACCEPT_PARTIAL_LIST);
    assert_int_equal(
        repr_resolve(&plist, ACCEPT_WATCH, pods(), "", &r, why, sizeof(why)),
        406);
}

static void test_events(void **state)
{
    struct object *o = pod();
    struct rbuf *plain =
        repr_event_frame(&OBJECT, pods(), EVENT_MODIFIED, o, T0);
    struct rbuf *want = kjson_watch_frame(EVENT_MODIFIED, o);
    struct repr beta = PARTIAL;
    cJSON *ev, *ob;

    assert_int_equal(plain->len, want->len);
    assert_memory_equal(plain->data, want->data, want->len);
    rbuf_unref(plain);
    rbuf_unref(want);

    beta.beta = true;
    for (int b = 0; b < 2; b++) {
        struct rbuf *f = repr_event_frame(b ? &beta : &PARTIAL, pods(),
                                          EVENT_DELETED, o, T0);

        ev = parse_frame(f);
        assert_string_equal(str(ev, "type"), "DELETED");
        ob = cJSON_GetObjectItem(ev, "object");
        assert_string_equal(str(ob, "kind"), "PartialObjectMetadata");
        assert_string_equal(str(ob, "apiVersion"),
                            b ? "meta.k8s.io/v1beta1" : "meta.k8s.io/v1");
        assert_string_equal(str(cJSON_GetObjectItem(ob, "metadata"), "name"),
                            "p1");
        assert_null(cJSON_GetObjectItem(ob, "spec"));
        cJSON_Delete(ev);
        rbuf_unref(f);
    }
    object_unref(o);
}

static void test_table_events(void **state)
{
    struct object *o = pod();
    struct rbuf *f = repr_event_frame(&TABLE, pods(), EVENT_ADDED, o, T0);
    struct rbuf *first = repr_with_columns(f, pods());
    struct sbuf cols = {0};
    cJSON *ev, *tab, *again;
    char *printed;

    ev = parse_frame(f);
    assert_string_equal(str(ev, "type"), "ADDED");
    tab = cJSON_GetObjectItem(ev, "object");
    assert_string_equal(str(tab, "kind"), "Table");
    assert_string_equal(
        str(cJSON_GetObjectItem(tab, "metadata"), "resourceVersion"), "42");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(tab, "columnDefinitions")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(tab, "rows")), 1);
    assert_string_equal(
        cJSON_GetArrayItem(
            cJSON_GetObjectItem(
                cJSON_GetArrayItem(cJSON_GetObjectItem(tab, "rows"), 0),
                "cells"),
            0)
            ->valuestring,
        "p1");

    /* The first event: the columns spliced in, nothing else changed. */
    again = parse_frame(first);
    table_append_columns(&cols, pods());
    printed = cJSON_PrintUnformatted(cJSON_GetObjectItem(
        cJSON_GetObjectItem(again, "object"), "columnDefinitions"));
    {
        cJSON *want = cJSON_Parse(cols.data);
        char *want_printed = cJSON_PrintUnformatted(want);

        assert_string_equal(printed, want_printed);
        cJSON_free(want_printed);
        cJSON_Delete(want);
    }
    cJSON_free(printed);
    assert_int_equal(frame_payload_len(first),
                     frame_payload_len(f) - strlen("null") + cols.len);
    cJSON_ReplaceItemInObject(cJSON_GetObjectItem(again, "object"),
                              "columnDefinitions", cJSON_CreateNull());
    assert_true(cJSON_Compare(ev, again, true));
    sbuf_fini(&cols);
    cJSON_Delete(ev);
    cJSON_Delete(again);
    rbuf_unref(f);
    rbuf_unref(first);
    object_unref(o);
}

static size_t unbase64(const char *in, char *out)
{
    static const char digits[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = 0;
    uint32_t v = 0;
    int bits = 0;

    for (; *in && *in != '='; in++) {
        const char *d = strchr(digits, *in);

        assert_non_null(d);
        v = v << 6 | (uint32_t)(d - digits);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (char)(v >> bits & 0xff);
        }
    }
    out[n] = '\0';
    return n;
}

/* The blueprint annotation of an initial-events-end bookmark object. */
static void expect_blueprint(const cJSON *meta, const char *want)
{
    const cJSON *ann = cJSON_GetObjectItem(meta, "annotations");
    char decoded[256];

    assert_int_equal(cJSON_GetArraySize(ann), 2);
    assert_string_equal(str(ann, "k8s.io/initial-events-end"), "true");
    unbase64(str(ann, "kubernetes.io/initial-events-list-blueprint"), decoded);
    assert_string_equal(decoded, want);
}

static void test_bookmarks(void **state)
{
    struct rbuf *f = repr_bookmark_frame(&OBJECT, pods(), 777, false, T0);
    cJSON *ev, *ob;

    assert_int_equal(frame_payload_len(f),
                     strlen("{\"type\":\"BOOKMARK\",\"object\":{\"kind\":"
                            "\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{"
                            "\"resourceVersion\":\"777\"}}}\n"));
    assert_memory_equal(frame_payload(f),
                        "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\","
                        "\"apiVersion\":\"v1\",\"metadata\":{"
                        "\"resourceVersion\":\"777\"}}}\n",
                        frame_payload_len(f));
    rbuf_unref(f);

    f = repr_bookmark_frame(&OBJECT, resource_type_find("deployments"), 5, true,
                            T0);
    ev = parse_frame(f);
    ob = cJSON_GetObjectItem(ev, "object");
    assert_string_equal(str(ob, "kind"), "Deployment");
    expect_blueprint(cJSON_GetObjectItem(ob, "metadata"),
                     "{\"kind\":\"DeploymentList\",\"apiVersion\":\"apps/v1\","
                     "\"metadata\":{},\"items\":null}\n");
    cJSON_Delete(ev);
    rbuf_unref(f);

    f = repr_bookmark_frame(&PARTIAL, pods(), 9, true, T0);
    ev = parse_frame(f);
    ob = cJSON_GetObjectItem(ev, "object");
    assert_string_equal(str(ev, "type"), "BOOKMARK");
    assert_string_equal(str(ob, "kind"), "PartialObjectMetadata");
    assert_string_equal(
        str(cJSON_GetObjectItem(ob, "metadata"), "resourceVersion"), "9");
    expect_blueprint(cJSON_GetObjectItem(ob, "metadata"),
                     "{\"kind\":\"PartialObjectMetadataList\",\"apiVersion\":"
                     "\"meta.k8s.io/v1\",\"metadata\":{},\"items\":null}\n");
    cJSON_Delete(ev);
    rbuf_unref(f);

    /* A Table: one row printed from the bookmark object. */
    f = repr_bookmark_frame(&TABLE, pods(), 11, false, T0);
    ev = parse_frame(f);
    ob = cJSON_GetObjectItem(ev, "object");
    assert_string_equal(str(ob, "kind"), "Table");
    assert_string_equal(
        str(cJSON_GetObjectItem(ob, "metadata"), "resourceVersion"), "11");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(ob, "rows")), 1);
    cJSON_Delete(ev);
    {
        struct rbuf *first = repr_with_columns(f, pods());

        ev = parse_frame(first);
        assert_int_equal(
            cJSON_GetArraySize(cJSON_GetObjectItem(
                cJSON_GetObjectItem(ev, "object"), "columnDefinitions")),
            9);
        cJSON_Delete(ev);
        rbuf_unref(first);
    }
    rbuf_unref(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),   cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_events),    cmocka_unit_test(test_table_events),
        cmocka_unit_test(test_bookmarks),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
