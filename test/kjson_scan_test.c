/*
 * kjson_scan_test.c: the strict JSON scanner (proto/kjson_scan.c), through
 * its caller kjson_decode_object, as the daemon reaches it: invalid UTF-8
 * and strict JSON syntax refused with their reasons (what cJSON would
 * accept and Go's decoders do not), the nesting limit it shares with cJSON
 * and input far past it, and whitespace everywhere it may be, removed byte
 * for byte.
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
#include "test/json_testlib.h"
#include "test/kjson_testlib.h"

static void test_decode_rejects_invalid_utf8(void **state)
{
    const struct resource_type *rt = type("configmaps");
    static const char *const bad[] = {
        "{\"data\":{\"k\":\"\xc0\xaf\"}}",         /* overlong '/' */
        "{\"data\":{\"k\":\"\xe0\x80\xaf\"}}",     /* overlong, 3 bytes */
        "{\"data\":{\"k\":\"\xe6\x97\"}}",         /* truncated sequence */
        "{\"data\":{\"k\":\"\xff\"}}",             /* never in UTF-8 */
        "{\"data\":{\"k\":\"\x80\"}}",             /* lone continuation */
        "{\"data\":{\"k\":\"\xed\xa0\x80\"}}",     /* surrogate D800 */
        "{\"data\":{\"k\":\"\xf4\x90\x80\x80\"}}", /* above U+10FFFF */
        "{\"data\":{\"\xff\":\"v\"}}",             /* in a key */
        "{\"data\":{}}\xe6",                       /* truncated at the end */
        "\xef\xbb\xbf{}\xff",                      /* after a BOM */
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(bad); i++)
        decode_fails(rt, CM_KEY, bad[i], strlen(bad[i]),
                     "value is not valid UTF-8");
    decode_fails(rt, "/registry/configmaps/ns/c\xff", "{}", 2,
                 "key is not valid UTF-8");
}

static void test_decode_strict_syntax(void **state)
{
    const struct resource_type *rt = type("configmaps");
    /* cJSON accepts several of these; Go's decoders accept none. */
    static const char *const bad[] = {
        "{\"a\":01}",
        "{\"a\":+1}",
        "{\"a\":1.}",
        "{\"a\":.5}",
        "{\"a\":-}",
        "{\"a\":1e}",
        "{\"a\":1e+}",
        "{\"a\":-01}",
        "{\"a\":0x1}",
        "{\"a\":\"\x01\"}",
        "{\"a\":\"\t\"}",
        "{\"a\x1f\":1}",
        "{\"a\":\"\\x\"}",
        "{\"a\":\"\\u12\"}",
        "{\"a\":\"\\u12G4\"}",
        "{\"a\":\"\\'\"}",
        "{\"a\":1,}",
        "{,}",
        "{'a':1}",
        "{\"a\":NaN}",
        "{\"a\":tru}",
        "{\"a\" 1}",
        "{\"a\":[1,]}",
        "{\"a\":[1 2]}",
        "{\"a\":[,1]}",
        "{\"a\":1}}",
        "\xef\xbb\xbf{}",
        "{}\f",
        "\x0b{}",
        "{\x01}",
        "{\"a\":\"x}",
        "{\"a\":nul}",
        "{\"a\"}",
        "{\"a\":1 \"b\":2}",
        "{a:1}",
        "{\"a\":[}",
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(bad); i++) {
        struct object *o = (struct object *)1;
        const char *why = NULL;

        if (kjson_decode_object(rt, CM_KEY, strlen(CM_KEY), bad[i],
                                strlen(bad[i]), 1, &o, &why) != RW_EINVAL)
            fail_msg("accepted %s", bad[i]);
        assert_null(o);
        assert_string_equal(why, "value is not JSON");
    }
    EXACT(" {\"apiVersion\":\"v1\",\"a\":-0.0e+0,\"b\":[],\"c\":{},\"d\":[{}],"
          "\"e\":\"\\/\","
          "\"f\":[true,false,null]} ",
          CM_INSERTED ",\"a\":-0.0e+0,\"b\":[],\"c\":{},\"d\":[{}],"
                      "\"e\":\"\\/\",\"f\":[true,false,null]}");
}

#define NESTED_HEAD "{\"apiVersion\":\"v1\""

/* {"apiVersion":"v1","a":[[...]]} with containers containers in all. */
static char *nested(size_t containers, size_t *len)
{
    static const char head[] = NESTED_HEAD ",\"a\":";
    size_t arrays = containers - 1, n = sizeof(head) - 1;
    char *s = xmalloc(n + 2 * arrays + 2);

    memcpy(s, head, n);
    memset(s + n, '[', arrays);
    memset(s + n + arrays, ']', arrays);
    memcpy(s + n + 2 * arrays, "}", 2);
    *len = n + 2 * arrays + 1;
    return s;
}

/* The scanner and cJSON agree on the nesting limit: 1000 containers. */
static void test_decode_depth_limit(void **state)
{
    const struct resource_type *rt = type("configmaps");
    struct object *o = NULL;
    const char *why = NULL;
    size_t len;
    char *s = nested(1000, &len);

    assert_int_equal(
        kjson_decode_object(rt, CM_KEY, strlen(CM_KEY), s, len, 1, &o, &why),
        RW_OK);
    assert_int_equal(o->json->len,
                     len - strlen(NESTED_HEAD) + strlen(CM_INSERTED));
    object_unref(o);
    free(s);
    s = nested(1001, &len);
    decode_fails(rt, CM_KEY, s, len, "value is not JSON");
    free(s);
}

static void test_decode_whitespace(void **state)
{
    const struct resource_type *rt = type("configmaps");
    static const char value[] =
        " \t\r\n{ \"kind\" : \"ConfigMap\" , \"apiVersion\" : \"v1\" ,\n "
        "\"metadata\" :\t{ \"name\" "
        ": \"cm\" , \"resourceVersion\" : \"1\" , \"labels\" : { \"a b\" : "
        "\" x y \" } } ,\r\n \"data\" : { \"s\" : \"  a \\\" b \\\\\" , "
        "\"n\" : [ 1 , 2.50 , { } , [ ] , { \"k\" : null } ] } \n } \n\n";
    struct object *o = decode_exact(
        rt, CM_KEY, value, sizeof(value) - 1,
        "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
        "\"cm\",\"namespace\":\"ns\",\"resourceVersion\":\"7\",\"labels\":{"
        "\"a b\":\" x y \"}},\"data\":{\"s\":\"  a \\\" b \\\\\",\"n\":[1,"
        "2.50,{},[],{\"k\":null}]}}",
        true);
    struct rbuf *f = kjson_watch_frame(EVENT_ADDED, o);

    /* One event, one line. */
    assert_null(memchr(frame_payload(f), '\n', frame_payload_len(f) - 1));
    assert_string_equal(object_label(o, "a b"), " x y ");
    rbuf_unref(f);
    object_unref(o);
}

static void test_decode_nesting_limit(void **state)
{
    const struct resource_type *rt = type("configmaps");
    size_t depth = 5000;
    char *deep = malloc(2 * depth + 6);

    /* {"a":[[[[...]]]]} far deeper than cJSON's nesting limit. */
    memcpy(deep, "{\"a\":", 5);
    memset(deep + 5, '[', depth);
    memset(deep + 5 + depth, ']', depth);
    deep[5 + 2 * depth] = '}';
    decode_fails(rt, "/registry/configmaps/n/c", deep, 6 + 2 * depth,
                 "value is not JSON");
    free(deep);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_nesting_limit),
        cmocka_unit_test(test_decode_rejects_invalid_utf8),
        cmocka_unit_test(test_decode_strict_syntax),
        cmocka_unit_test(test_decode_depth_limit),
        cmocka_unit_test(test_decode_whitespace),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
