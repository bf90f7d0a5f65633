/*
 * kjson_fuzz.c: kjson_decode_object on arbitrary bytes, as a pod's store
 * value under a fixed key.  Whatever the input, decoding either fails with
 * a reason and no object, or yields an object whose JSON parses, carries
 * metadata.resourceVersion "42" with its digits where rv_off/rv_len say,
 * and stays valid after object_with_rv and as a watch frame.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/frame.h"
#include "proto/kjson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEY "/registry/pods/default/fuzz"

/* Parses json and checks metadata.resourceVersion == digits[0..n). */
static void check_rv(const char *json, size_t len, const char *digits, size_t n)
{
    cJSON *root = cJSON_ParseWithLength(json, len), *meta, *rv;

    rw_assert(root != NULL);
    meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    rv = cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion");
    rw_assert(cJSON_IsString(rv));
    rw_assert(strlen(rv->valuestring) == n &&
              memcmp(rv->valuestring, digits, n) == 0);
    cJSON_Delete(root);
}

static void check_object(const struct object *o, int64_t rv)
{
    char digits[32];
    int n = snprintf(digits, sizeof(digits), "%lld", (long long)rv);

    rw_assert(o->rv == rv && o->rv_len == (uint32_t)n);
    rw_assert(memcmp(o->json->data + o->rv_off, digits, (size_t)n) == 0);
    check_rv(o->json->data, o->json->len, digits, (size_t)n);
    rw_assert(o->name[0] != '\0' && o->ns[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct resource_type *pods = resource_type_find("pods");
    struct object *o = NULL, *later;
    const char *why = NULL;
    struct rbuf *frame;
    char *copy;

    if (kjson_decode_object(pods, KEY, strlen(KEY), data, size, 42, &o, &why) !=
        RW_OK) {
        rw_assert(o == NULL && why != NULL);
    } else {
        check_object(o, 42);
        later = object_with_rv(o, 9876543210LL);
        check_object(later, 9876543210LL);
        frame = kjson_watch_frame(EVENT_DELETED, later);
        check_rv(frame_payload(frame) + strlen("{\"type\":\"DELETED\","
                                               "\"object\":"),
                 later->json->len, "9876543210", 10);
        rbuf_unref(frame);
        object_unref(later);
        object_unref(o);
    }

    /* The same bytes as a string to escape: always a valid JSON string. */
    copy = xmalloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *escaped = kjson_escape(copy);
    char *quoted = xasprintf("\"%s\"", escaped);
    cJSON *str = cJSON_Parse(quoted);
    rw_assert(cJSON_IsString(str));
    cJSON_Delete(str);
    free(quoted);
    free(escaped);
    free(copy);
    return 0;
}
