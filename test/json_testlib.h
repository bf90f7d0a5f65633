/*
 * json_testlib.h: what the tests of JSON documents share: parsing an
 * encoded rbuf with cJSON (the test fails on anything that is not JSON)
 * and reading a string member by a dotted path.  Header-only: each test
 * includes it once.
 */
#ifndef JSON_TESTLIB_H
#define JSON_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cache/rbuf.h"

/* b parsed (the caller deletes it); fails the test when b is not JSON. */
static inline cJSON *parse_rbuf(const struct rbuf *b)
{
    cJSON *root = cJSON_ParseWithLength(b->data, b->len);

    if (root == NULL)
        fail_msg("not JSON: %.*s", (int)b->len, b->data);
    return root;
}

/* The member at path ("metadata.name") in obj, or NULL. */
static inline const cJSON *json_path(const cJSON *obj, const char *path)
{
    char buf[256], *save = NULL, *part;
    const cJSON *item = obj;

    snprintf(buf, sizeof(buf), "%s", path);
    for (part = strtok_r(buf, ".", &save); part && item;
         part = strtok_r(NULL, ".", &save))
        item = cJSON_GetObjectItemCaseSensitive(item, part);
    return item;
}

/* The string at path ("metadata.name") in obj; fails the test when there
 * is none. */
static inline const char *get_string(const cJSON *obj, const char *path)
{
    const cJSON *item = json_path(obj, path);

    if (!cJSON_IsString(item))
        fail_msg("%s is not a string", path);
    return item->valuestring;
}

#endif
