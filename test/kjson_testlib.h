/*
 * kjson_testlib.h: what the tests of the Kubernetes JSON codec share
 * (test/kjson_test.c, test/kjson_decode_test.c, test/kjson_scan_test.c):
 * decoding a store value that must decode (decode_ok, decode_exact, with
 * the resourceVersion splice checked) or must fail with a reason
 * (decode_fails), and a configmap's expected head (CM_*).
 */
#ifndef KJSON_TESTLIB_H
#define KJSON_TESTLIB_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cache/object.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "proto/kjson_decode.h"
#include "test/json_testlib.h"

static inline const struct resource_type *type(const char *spec)
{
    const struct resource_type *rt = resource_type_find(spec);

    assert_non_null(rt);
    return rt;
}

static inline struct object *decode_ok(const struct resource_type *rt,
                                       const char *key, const char *value,
                                       int64_t rv)
{
    struct object *o = (struct object *)1;
    const char *why = NULL;
    int rc = kjson_decode_object(rt, key, strlen(key), value, strlen(value), rv,
                                 &o, &why);

    if (rc != RW_OK)
        fail_msg("decode of %s failed: %s", key, why ? why : "(no reason)");
    assert_non_null(o);
    assert_int_equal(o->refs, 1);
    assert_int_equal(o->rv, rv);
    assert_int_equal(o->key_len, strlen(key));
    assert_string_equal(o->key, key);
    return o;
}

static inline void decode_fails(const struct resource_type *rt, const char *key,
                                const void *value, size_t len,
                                const char *reason)
{
    struct object *o = (struct object *)1;
    const char *why = NULL;
    int rc = kjson_decode_object(rt, key, strlen(key), value, len, 7, &o, &why);

    assert_int_equal(rc, RW_EINVAL);
    assert_null(o);
    assert_non_null(why);
    assert_string_equal(why, reason);
}

/* A literal value (its length from sizeof, NULs included). */
#define FAILS(rt, key, literal, reason)                                        \
    decode_fails(rt, key, literal, sizeof(literal) - 1, reason)

/* Checks that o's JSON parses, carries resourceVersion "rv" and has the
 * digits at rv_off/rv_len; returns the parsed tree. */
static inline cJSON *check_json_rv(const struct object *o, int64_t rv)
{
    char digits[32];
    cJSON *root = parse_rbuf(o->json);

    snprintf(digits, sizeof(digits), "%lld", (long long)rv);
    assert_string_equal(get_string(root, "metadata.resourceVersion"), digits);
    assert_int_equal(o->rv_len, strlen(digits));
    assert_true(o->rv_off + o->rv_len < o->json->len);
    assert_memory_equal(o->json->data + o->rv_off, digits, o->rv_len);
    assert_int_equal(o->json->data[o->rv_off - 1], '"');
    assert_int_equal(o->json->data[o->rv_off + o->rv_len], '"');
    assert_int_equal(o->json->data[o->json->len], '\0');
    assert_int_equal(strlen(o->json->data), o->json->len);
    return root;
}

#define CM_KEY "/registry/configmaps/ns/cm"
#define CM_HEAD "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
#define CM_META "\"metadata\":{\"name\":\"cm\",\"namespace\":\"ns\","
#define CM_INSERTED CM_HEAD CM_META "\"resourceVersion\":\"7\"}"

/* The digits of rv at rv_off, quoted, without parsing the JSON. */
static inline void check_digits(const struct object *o, int64_t rv)
{
    char digits[32];

    snprintf(digits, sizeof(digits), "%lld", (long long)rv);
    assert_int_equal(o->rv_len, strlen(digits));
    assert_memory_equal(o->json->data + o->rv_off, digits, o->rv_len);
    assert_int_equal(o->json->data[o->rv_off - 1], '"');
    assert_int_equal(o->json->data[o->rv_off + o->rv_len], '"');
    assert_memory_equal(o->json->data + o->rv_off - 19,
                        "\"resourceVersion\":\"", 19);
}

/*
 * Decodes value[0..len) with rv 7 and checks its JSON is want byte for
 * byte, then that object_with_rv splices where rv_off says.  With parse,
 * both JSONs are also parsed back (cJSON refuses lone surrogates).
 */
static inline struct object *decode_exact(const struct resource_type *rt,
                                          const char *key, const char *value,
                                          size_t len, const char *want,
                                          bool parse)
{
    struct object *o = NULL, *later;
    const char *why = NULL;

    if (kjson_decode_object(rt, key, strlen(key), value, len, 7, &o, &why) !=
        RW_OK)
        fail_msg("decode of %.*s failed: %s", (int)len, value, why);
    assert_string_equal(o->json->data, want);
    assert_int_equal(o->json->len, strlen(want));
    check_digits(o, 7);
    later = object_with_rv(o, 1234567890123LL);
    check_digits(later, 1234567890123LL);
    if (parse) {
        cJSON_Delete(check_json_rv(o, 7));
        cJSON_Delete(check_json_rv(later, 1234567890123LL));
    }
    object_unref(later);
    return o;
}

/* decode_exact of a literal value (its length from sizeof). */
#define DECODE_EXACT(rt, key, literal, want, parse)                            \
    decode_exact(rt, key, literal, sizeof(literal) - 1, want, parse)

/* A literal value decoded as a configmap under CM_KEY. */
#define EXACT(literal, want)                                                   \
    object_unref(DECODE_EXACT(type("configmaps"), CM_KEY, literal, want, true))

#endif
