/*
 * table_fuzz.c: the Table printers (proto/table.c, printer.c,
 * printers_*.c, jval.c) and quantities (proto/quantity.c) on arbitrary
 * input.  The input is "RESOURCE\nJSON": the JSON, given the resource's
 * apiVersion, is decoded as a stored value of that type (another type
 * when the first line names none), and whatever kjson_decode_object
 * accepts renders as a Table that parses, with one cell per column, a
 * string or an integer each.  The whole input is also a quantity: what
 * quantity_format accepts, in either mode, it accepts again and prints
 * unchanged (its output is canonical or kept as given).
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/kjson_decode.h"
#include "proto/quantity.h"
#include "proto/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The type the first line names, else one picked by its bytes. */
static const struct resource_type *pick_type(const char *spec, size_t len)
{
    size_t n, sum = 0;
    const struct resource_type *all = resource_type_all(&n);
    char *name = xstrndup(spec, len);
    const struct resource_type *rt = resource_type_find(name);

    free(name);
    if (rt != NULL)
        return rt;
    for (size_t i = 0; i < len; i++)
        sum += (unsigned char)spec[i];
    return &all[sum % n];
}

static void check_table(const struct rbuf *b)
{
    cJSON *doc = cJSON_ParseWithLength(b->data, b->len);
    const cJSON *cols, *cells, *c;

    rw_assert(doc != NULL);
    cols = cJSON_GetObjectItem(doc, "columnDefinitions");
    cells = cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "rows"), 0), "cells");
    rw_assert(cJSON_GetArraySize(cols) == cJSON_GetArraySize(cells));
    cJSON_ArrayForEach(c, cells)
    {
        rw_assert(cJSON_IsString(c) || cJSON_IsNumber(c));
    }
    cJSON_Delete(doc);
}

static void render(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size);
    const struct resource_type *rt;
    struct object *o = NULL;
    const char *why = NULL, *json;
    size_t json_len;
    char *key, *value;
    struct rbuf *b;

    if (nl == NULL)
        return;
    rt = pick_type(text, (size_t)(nl - text));
    json = nl + 1;
    json_len = size - (size_t)(json - text);
    if (json_len == 0 || *json != '{')
        return;
    value = xasprintf("{\"apiVersion\":\"%s\",%.*s", rt->api_version,
                      (int)(json_len - 1), json + 1);
    key = xasprintf("%s%sfuzz", rt->key_prefix, rt->namespaced ? "ns/" : "");
    if (kjson_decode_object(rt, key, strlen(key), value, strlen(value), 9, &o,
                            &why) == RW_OK) {
        b = table_render(rt, &o, 1, 9, NULL, -1, TABLE_OBJECT_NONE, false,
                         1704164645);
        check_table(b);
        rbuf_unref(b);
        object_unref(o);
    }
    free(key);
    free(value);
}

static void quantity(const uint8_t *data, size_t size)
{
    char *s = xstrndup((const char *)data, RW_MIN(size, 256));

    for (int milli = 0; milli < 2; milli++) {
        struct sbuf once = {0}, twice = {0};

        if (quantity_format(s, milli, &once) != RW_OK) {
            rw_assert(once.len == 0);
            continue;
        }
        rw_assert(once.len > 0);
        rw_assert(quantity_format(once.data, milli, &twice) == RW_OK);
        rw_assert(strcmp(once.data, twice.data) == 0);
        sbuf_fini(&once);
        sbuf_fini(&twice);
    }
    free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    render(data, size);
    quantity(data, size);
    return 0;
}
