/*
 * printers_testlib.h: what the Table printer tests share: one object of a
 * type decoded from JSON as ingest would, rendered as a Table row at a
 * fixed time, and its cells compared with the expected ones.
 *
 * Fixtures and expectations are JSON written with ' for " (so that they
 * read as JSON in C strings); the apiVersion every stored object carries is
 * added when the fixture has none.  The row is rendered by table_render
 * with includeObject None, as kube-apiserver's TableConvertor calls its
 * printers (wide).
 */
#ifndef PRINTERS_TESTLIB_H
#define PRINTERS_TESTLIB_H

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
#include "proto/kjson_decode.h"
#include "proto/table.h"

/* The render time: 2024-01-02T03:04:05Z; fixtures' times are relative to
 * it ("2024-01-02T02:59:05Z" is 5m ago). */
#define T0 ((time_t)1704164645)

/* Times relative to T0. */
#define AGO_10Y "2014-01-04T03:04:05Z"
#define AGO_3D "2023-12-30T03:04:05Z"
#define AGO_2D "2023-12-31T03:04:05Z"
#define AGO_20M "2024-01-02T02:44:05Z"
#define AGO_5M "2024-01-02T02:59:05Z"
#define AGO_30S "2024-01-02T03:03:35Z"
#define AGO_10S "2024-01-02T03:03:55Z"
#define IN_1S "2024-01-02T03:04:06Z"
#define IN_1M "2024-01-02T03:05:05Z"
#define IN_31M "2024-01-02T03:35:05Z"

/* s with every ' turned into " (a new string). */
static inline char *quotes(const char *s)
{
    char *out = xstrdup(s);

    for (char *p = out; *p != '\0'; p++)
        if (*p == '\'')
            *p = '"';
    return out;
}

/* The type named spec ("pods", "deployments.apps"). */
static inline const struct resource_type *type_of(const char *spec)
{
    const struct resource_type *rt = resource_type_find(spec);

    if (rt == NULL)
        fail_msg("no type %s", spec);
    return rt;
}

/* Object name (namespace "ns" when namespaced) of type spec from the
 * fixture json, decoded as ingest would. */
static inline struct object *fixture(const char *spec, const char *name,
                                     const char *json)
{
    const struct resource_type *rt = type_of(spec);
    char *text = quotes(json);
    char *value = strstr(text, "\"apiVersion\"") != NULL
                      ? xstrdup(text)
                      : xasprintf("{\"apiVersion\":\"%s\"%s%s", rt->api_version,
                                  strcmp(text, "{}") == 0 ? "" : ",", text + 1);
    char *key =
        xasprintf("%s%s%s", rt->key_prefix, rt->namespaced ? "ns/" : "", name);
    struct object *o = NULL;
    const char *why = NULL;

    if (kjson_decode_object(rt, key, strlen(key), value, strlen(value), 7, &o,
                            &why) != RW_OK)
        fail_msg("decode %s: %s", value, why);
    free(text);
    free(value);
    free(key);
    return o;
}

/* The cells of o's row at T0, as compact JSON (caller frees). */
static inline char *cells_of(const char *spec, const struct object *o)
{
    struct object *items[] = {(struct object *)o};
    struct rbuf *b = table_render(type_of(spec), items, 1, 1, NULL, -1,
                                  TABLE_OBJECT_NONE, false, T0);
    cJSON *doc = cJSON_ParseWithLength(b->data, b->len);
    const cJSON *row, *cells;
    char *out;

    if (doc == NULL)
        fail_msg("not JSON: %s", b->data);
    row = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rows"), 0);
    cells = cJSON_GetObjectItem(row, "cells");
    out = cJSON_PrintUnformatted(cells);
    cJSON_Delete(doc);
    rbuf_unref(b);
    return out;
}

/* The row of object name of type spec, from json, has exactly the cells
 * want (a JSON array, ' for "). */
static inline void row_is(const char *spec, const char *name, const char *json,
                          const char *want)
{
    struct object *o = fixture(spec, name, json);
    char *got = cells_of(spec, o);
    char *text = quotes(want);
    cJSON *parsed = cJSON_Parse(text);
    char *norm;

    if (parsed == NULL)
        fail_msg("bad expectation %s", want);
    norm = cJSON_PrintUnformatted(parsed);
    if (strcmp(got, norm) != 0)
        fail_msg("%s %s:\n  got  %s\n  want %s", spec, name, got, norm);
    cJSON_free(norm);
    cJSON_Delete(parsed);
    free(text);
    cJSON_free(got);
    object_unref(o);
}

#endif
