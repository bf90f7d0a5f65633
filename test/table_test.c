/*
 * table_test.c: the Table document (proto/table.c): includeObject parsing;
 * the document's shape parsed back with cJSON (kind, apiVersion, metadata,
 * columns as the apiserver serialises them, rows [] when empty); a printer
 * for every type ringwatch serves, with well-formed columns and one cell
 * per column even for an empty object; the Completed row condition; and
 * the three includeObject variants, the spliced bytes compared with the
 * stored ones.  Each type's cells: test/printers_test.c.  The .c is
 * included to reach statics.
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

#include "proto/table.c"

#include "proto/kjson_decode.h"

/* 2024-01-02T03:04:05Z */
#define T0 ((time_t)1704164645)

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static const struct resource_type *type(const char *spec)
{
    const struct resource_type *rt = resource_type_find(spec);

    assert_non_null(rt);
    return rt;
}

/* An object of type spec decoded from json as ingest would.  The
 * fixtures name only what a Table reads: the apiVersion every stored
 * object carries is added first when json has none. */
static struct object *obj(const char *spec, const char *key, const char *json)
{
    const struct resource_type *rt = type(spec);
    struct object *o = NULL;
    const char *why = NULL;
    char *value = strstr(json, "\"apiVersion\"") != NULL
                      ? xstrdup(json)
                      : xasprintf("{\"apiVersion\":\"%s\"%s%s", rt->api_version,
                                  strcmp(json, "{}") == 0 ? "" : ",", json + 1);
    int rc = kjson_decode_object(rt, key, strlen(key), value, strlen(value), 7,
                                 &o, &why);

    free(value);
    if (rc != RW_OK)
        fail_msg("decode %s: %s", key, why);
    return o;
}

/* Renders and parses back; *raw gets the bytes (caller unrefs). */
static cJSON *render(const char *spec, struct object **items, size_t n,
                     enum table_object inc, time_t now, struct rbuf **raw)
{
    struct rbuf *b =
        table_render(type(spec), items, n, 42, NULL, -1, inc, false, now);
    cJSON *doc = cJSON_ParseWithLength(b->data, b->len);

    if (doc == NULL)
        fail_msg("not JSON: %s", b->data);
    if (raw)
        *raw = b;
    else
        rbuf_unref(b);
    return doc;
}

static const cJSON *row(const cJSON *doc, int i)
{
    return cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rows"), i);
}

static int ncells(const cJSON *doc, int r)
{
    return cJSON_GetArraySize(cJSON_GetObjectItem(row(doc, r), "cells"));
}

/* ------------------------------------------------------------------ */
/* Negotiation                                                         */
/* ------------------------------------------------------------------ */

static void test_parse_include(void **state)
{
    enum table_object t = TABLE_OBJECT_NONE;

    (void)state;
    assert_int_equal(table_parse_include("", &t), RW_OK);
    assert_int_equal(t, TABLE_OBJECT_METADATA);
    assert_int_equal(table_parse_include("None", &t), RW_OK);
    assert_int_equal(t, TABLE_OBJECT_NONE);
    assert_int_equal(table_parse_include("Object", &t), RW_OK);
    assert_int_equal(t, TABLE_OBJECT_FULL);
    assert_int_equal(table_parse_include("Metadata", &t), RW_OK);
    assert_int_equal(t, TABLE_OBJECT_METADATA);
    assert_int_equal(table_parse_include("metadata", &t), RW_EINVAL);
    assert_int_equal(table_parse_include("All", &t), RW_EINVAL);
    assert_int_equal(t, TABLE_OBJECT_METADATA);
}

/* ------------------------------------------------------------------ */
/* Document shape                                                      */
/* ------------------------------------------------------------------ */

static void test_empty_list(void **state)
{
    struct rbuf *b;
    cJSON *doc, *meta, *cols;

    (void)state;
    b = table_render(type("pods"), NULL, 0, 42, "tok\"en", 3,
                     TABLE_OBJECT_METADATA, false, T0);
    assert_non_null(strstr(b->data, "\"rows\":[]}"));
    doc = cJSON_ParseWithLength(b->data, b->len);
    assert_non_null(doc);
    assert_string_equal(cJSON_GetObjectItem(doc, "kind")->valuestring, "Table");
    assert_string_equal(cJSON_GetObjectItem(doc, "apiVersion")->valuestring,
                        "meta.k8s.io/v1");
    meta = cJSON_GetObjectItem(doc, "metadata");
    assert_string_equal(
        cJSON_GetObjectItem(meta, "resourceVersion")->valuestring, "42");
    assert_string_equal(cJSON_GetObjectItem(meta, "continue")->valuestring,
                        "tok\"en");
    assert_int_equal(
        cJSON_GetObjectItem(meta, "remainingItemCount")->valuedouble, 3);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "rows")), 0);
    cols = cJSON_GetObjectItem(doc, "columnDefinitions");
    assert_int_equal(cJSON_GetArraySize(cols), 9);
    cJSON_Delete(doc);
    rbuf_unref(b);

    /* Omitted members, as ListMeta's omitempty. */
    b = table_render(type("pods"), NULL, 0, 1, NULL, -1, TABLE_OBJECT_NONE,
                     false, T0);
    assert_non_null(
        strstr(b->data, "\"metadata\":{\"resourceVersion\":\"1\"},"));
    rbuf_unref(b);
    b = table_render(type("pods"), NULL, 0, 1, "", -1, TABLE_OBJECT_NONE, false,
                     T0);
    assert_null(strstr(b->data, "continue"));
    rbuf_unref(b);
}

/* Columns as the apiserver serialises them (cf. a captured v1.30 pods
 * Table: every member, "format":"" and "priority":0 included). */
static void test_columns(void **state)
{
    struct rbuf *b;
    cJSON *doc;
    const cJSON *c;
    static const char *const names[] = {
        "Name", "Ready", "Status",         "Restarts",       "Age",
        "IP",   "Node",  "Nominated Node", "Readiness Gates"};
    int i = 0;

    (void)state;
    b = table_render(type("pods"), NULL, 0, 1, NULL, -1, TABLE_OBJECT_NONE,
                     false, T0);
    assert_non_null(strstr(
        b->data, "\"columnDefinitions\":[{\"name\":\"Name\",\"type\":"
                 "\"string\",\"format\":\"name\",\"description\":\"Name must "
                 "be unique within a namespace."));
    assert_non_null(strstr(
        b->data, "{\"name\":\"Ready\",\"type\":\"string\",\"format\":\"\","
                 "\"description\":\"The aggregate readiness state of this pod "
                 "for accepting traffic.\",\"priority\":0}"));
    assert_non_null(strstr(b->data, "in UTC.\\n\\nPopulated by the system."));
    doc = cJSON_ParseWithLength(b->data, b->len);
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "columnDefinitions"))
    {
        assert_string_equal(cJSON_GetObjectItem(c, "name")->valuestring,
                            names[i]);
        assert_string_equal(cJSON_GetObjectItem(c, "type")->valuestring,
                            "string");
        assert_int_equal(cJSON_GetObjectItem(c, "priority")->valuedouble,
                         i >= 5);
        i++;
    }
    assert_int_equal(i, 9);
    cJSON_Delete(doc);
    rbuf_unref(b);
}

/* Every served type has its printer; its columns are well formed (one
 * with format "name": the first, but for events where it is the last and
 * wide; types and priorities as the apiserver has them) and an empty
 * object gets one cell per column. */
static void test_every_type(void **state)
{
    size_t n;
    const struct resource_type *all = resource_type_all(&n);

    (void)state;
    for (size_t i = 0; i < n; i++) {
        const struct resource_type *rt = &all[i];
        const struct printer *p = printer_lookup(rt);
        bool events = strcmp(rt->resource, "events") == 0;
        char key[256], spec[128];
        struct object *o;
        cJSON *doc;
        int names = 0;

        if (p == NULL)
            fail_msg("%s: no printer", rt->resource);
        for (size_t c = 0; c < p->ncolumns; c++) {
            const struct printer_column *col = &p->columns[c];

            /* "date": the default table convertor's Created At */
            assert_true(strcmp(col->type, "string") == 0 ||
                        strcmp(col->type, "integer") == 0 ||
                        strcmp(col->type, "boolean") == 0 ||
                        strcmp(col->type, "date") == 0);
            assert_true(col->priority == 0 || col->priority == 1);
            assert_true(*col->description != '\0');
            names += strcmp(col->format, "name") == 0;
        }
        assert_int_equal(names, 1);
        assert_string_equal(p->columns[events ? p->ncolumns - 1 : 0].format,
                            "name");
        snprintf(spec, sizeof(spec), "%s%s%s", rt->resource,
                 *rt->group ? "." : "", rt->group);
        snprintf(key, sizeof(key), "%s%sx", rt->key_prefix,
                 rt->namespaced ? "ns/" : "");
        o = obj(spec, key, "{}");
        doc = render(spec, &o, 1, TABLE_OBJECT_NONE, T0, NULL);
        assert_int_equal(ncells(doc, 0), (int)p->ncolumns);
        cJSON_Delete(doc);
        object_unref(o);
    }
}

/* Pods that Succeeded or Failed carry the Completed row condition, the
 * others none. */
static void test_pod_conditions(void **state)
{
    static const char *const phases[] = {"Succeeded", "Failed", "Running"};
    static const char *const messages[] = {
        "The pod has completed successfully.", "The pod failed.", NULL};

    (void)state;
    for (int i = 0; i < 3; i++) {
        char json[64];
        struct object *o;
        cJSON *doc;
        const cJSON *cond;

        snprintf(json, sizeof(json), "{\"status\":{\"phase\":\"%s\"}}",
                 phases[i]);
        o = obj("pods", "/registry/pods/ns/done", json);
        doc = render("pods", &o, 1, TABLE_OBJECT_NONE, T0, NULL);
        cond = cJSON_GetArrayItem(
            cJSON_GetObjectItem(row(doc, 0), "conditions"), 0);
        if (messages[i] == NULL) {
            assert_null(cJSON_GetObjectItem(row(doc, 0), "conditions"));
            cJSON_Delete(doc);
            object_unref(o);
            continue;
        }
        assert_non_null(cond);
        assert_string_equal(cJSON_GetObjectItem(cond, "type")->valuestring,
                            "Completed");
        assert_string_equal(cJSON_GetObjectItem(cond, "status")->valuestring,
                            "True");
        assert_string_equal(cJSON_GetObjectItem(cond, "reason")->valuestring,
                            phases[i]);
        assert_string_equal(cJSON_GetObjectItem(cond, "message")->valuestring,
                            messages[i]);
        cJSON_Delete(doc);
        object_unref(o);
    }
}

static const char running_pod[] =
    "{\"metadata\":{\"name\":\"p1\",\"namespace\":\"default\","
    "\"creationTimestamp\":\"2024-01-02T02:59:05Z\",\"labels\":{\"a\":\"b\"}},"
    "\"spec\":{\"nodeName\":\"n1\",\"containers\":[{\"name\":\"c\","
    "\"image\":\"nginx\"}]},"
    "\"status\":{\"phase\":\"Running\",\"podIP\":\"10.0.0.5\","
    "\"podIPs\":[{\"ip\":\"10.0.0.5\"}],"
    "\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\"}],"
    "\"containerStatuses\":[{\"name\":\"c\",\"ready\":true,"
    "\"restartCount\":2,\"state\":{\"running\":{\"startedAt\":"
    "\"2024-01-02T03:00:00Z\"}},\"lastState\":{\"terminated\":{"
    "\"exitCode\":1,\"finishedAt\":\"2024-01-02T02:59:05Z\"}}}]}}";

/* ------------------------------------------------------------------ */
/* Row objects                                                         */
/* ------------------------------------------------------------------ */

static void test_include_object(void **state)
{
    struct object *o;
    struct rbuf *raw;
    cJSON *doc;
    const cJSON *ob, *meta;
    const char *m;
    size_t mlen;

    (void)state;
    o = obj("pods", "/registry/pods/default/p1", running_pod);
    m = strstr(o->json->data, "\"metadata\":") + strlen("\"metadata\":");
    mlen = (size_t)(strstr(m, "},\"spec\"") + 1 - m);

    /* Metadata: PartialObjectMetadata with the stored metadata bytes. */
    doc = render("pods", &o, 1, TABLE_OBJECT_METADATA, T0, &raw);
    ob = cJSON_GetObjectItem(row(doc, 0), "object");
    assert_string_equal(cJSON_GetObjectItem(ob, "kind")->valuestring,
                        "PartialObjectMetadata");
    assert_string_equal(cJSON_GetObjectItem(ob, "apiVersion")->valuestring,
                        "meta.k8s.io/v1");
    meta = cJSON_GetObjectItem(ob, "metadata");
    assert_string_equal(cJSON_GetObjectItem(meta, "name")->valuestring, "p1");
    assert_string_equal(
        cJSON_GetObjectItem(meta, "resourceVersion")->valuestring, "7");
    assert_null(cJSON_GetObjectItem(ob, "spec"));
    {
        char *want = xasprintf("\"object\":{\"kind\":\"PartialObjectMetadata\","
                               "\"apiVersion\":\"meta.k8s.io/v1\","
                               "\"metadata\":%.*s}}",
                               (int)mlen, m);

        assert_non_null(strstr(raw->data, want));
        free(want);
    }
    cJSON_Delete(doc);
    rbuf_unref(raw);

    /* None: null. */
    doc = render("pods", &o, 1, TABLE_OBJECT_NONE, T0, &raw);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(row(doc, 0), "object")));
    assert_non_null(strstr(raw->data, "],\"object\":null}]}"));
    cJSON_Delete(doc);
    rbuf_unref(raw);

    /* Object: the stored bytes, spliced. */
    doc = render("pods", &o, 1, TABLE_OBJECT_FULL, T0, &raw);
    ob = cJSON_GetObjectItem(row(doc, 0), "object");
    assert_string_equal(cJSON_GetObjectItem(ob, "kind")->valuestring, "Pod");
    assert_non_null(cJSON_GetObjectItem(ob, "spec"));
    {
        char *want = xasprintf("\"object\":%s}]}", o->json->data);

        assert_non_null(strstr(raw->data, want));
        free(want);
    }
    cJSON_Delete(doc);
    rbuf_unref(raw);
    object_unref(o);
}

/* v1beta1: the Table's and its rows' apiVersion; one object's Table with
 * and without column definitions, as a GET and a watch event carry it. */
static void test_one_object(void **state)
{
    struct object *o = obj("pods", "/registry/pods/default/p1", running_pod);
    struct sbuf sb = {0};
    struct rbuf *list;
    cJSON *doc, *cols;

    (void)state;
    list = table_render(type("pods"), &o, 1, o->rv, NULL, -1,
                        TABLE_OBJECT_METADATA, true, T0);
    doc = cJSON_ParseWithLength(list->data, list->len);
    assert_string_equal(cJSON_GetObjectItem(doc, "apiVersion")->valuestring,
                        "meta.k8s.io/v1beta1");
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(row(doc, 0), "object"),
                            "apiVersion")
            ->valuestring,
        "meta.k8s.io/v1beta1");
    cJSON_Delete(doc);

    /* With columns: the same bytes as a one-item LIST at the object's RV. */
    table_append_object(&sb, type("pods"), o, TABLE_OBJECT_METADATA, true, true,
                        T0);
    assert_int_equal(sb.len, list->len);
    assert_memory_equal(sb.data, list->data, list->len);
    sbuf_fini(&sb);
    rbuf_unref(list);

    /* Without: "columnDefinitions":null, the row unchanged. */
    table_append_object(&sb, type("pods"), o, TABLE_OBJECT_NONE, false, false,
                        T0);
    doc = cJSON_Parse(sb.data);
    assert_non_null(doc);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "columnDefinitions")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(doc, "rows")), 1);
    assert_string_equal(
        cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"),
                            "resourceVersion")
            ->valuestring,
        "7");
    cJSON_Delete(doc);
    sbuf_fini(&sb);

    /* table_append_columns is what a LIST carries. */
    table_append_columns(&sb, type("pods"));
    cols = cJSON_Parse(sb.data);
    assert_int_equal(cJSON_GetArraySize(cols), 9);
    cJSON_Delete(cols);
    sbuf_fini(&sb);
    object_unref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_include),
        cmocka_unit_test(test_empty_list),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_every_type),
        cmocka_unit_test(test_pod_conditions),
        cmocka_unit_test(test_include_object),
        cmocka_unit_test(test_one_object),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
