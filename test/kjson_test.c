/*
 * kjson_test.c: the Kubernetes JSON codec (proto/kjson.c).
 *
 * Decoding: every extracted field of pods, configmaps, nodes, events and a
 * synthetic type with numeric and boolean fields; the resourceVersion
 * splice (the produced JSON parsed back with cJSON, the digits where
 * rv_off/rv_len say, object_with_rv still valid JSON); the served bytes
 * are the stored ones, compared byte for byte (numbers beyond a double,
 * \u0000 in values and keys, escapes, raw UTF-8, lone surrogates, repeated
 * members, whitespace) except at the spliced spots; insertion of every
 * missing member; the key's authority over name and namespace; the type
 * (kind and apiVersion) the value names; rejections
 * with their reasons (invalid UTF-8, strict JSON syntax, the nesting
 * limit, repeated spliced members; under valgrind, nothing leaked).
 * Encoding: watch frames byte for byte, and Status and list documents
 * parsed back.
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
#include "test/json_testlib.h"
#include "proto/frame.h"
#include "proto/kjson.h"
#include "proto/kjson_decode.h"

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static const struct resource_type *type(const char *spec)
{
    const struct resource_type *rt = resource_type_find(spec);

    assert_non_null(rt);
    return rt;
}

static struct object *decode_ok(const struct resource_type *rt, const char *key,
                                const char *value, int64_t rv)
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

static void decode_fails(const struct resource_type *rt, const char *key,
                         const void *value, size_t len, const char *reason)
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
static cJSON *check_json_rv(const struct object *o, int64_t rv)
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

/* ------------------------------------------------------------------ */
/* Decoding                                                            */
/* ------------------------------------------------------------------ */

static const char pod_json[] =
    "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"web-1\","
    "\"namespace\":\"prod\",\"uid\":\"u-1\",\"resourceVersion\":\"999\","
    "\"creationTimestamp\":\"2024-05-01T10:00:00Z\",\"labels\":{\"tier\":"
    "\"frontend\",\"app\":\"web\",\"app.kubernetes.io/name\":\"shop\"}},"
    "\"spec\":{\"nodeName\":\"node-7\",\"restartPolicy\":\"Always\","
    "\"schedulerName\":\"default-scheduler\",\"serviceAccountName\":"
    "\"default\",\"hostNetwork\":true,\"containers\":[{\"name\":\"c\","
    "\"image\":\"nginx\"}]},\"status\":{\"phase\":\"Running\",\"podIP\":"
    "\"10.0.0.7\"}}";

static void test_decode_pod(void **state)
{
    const struct resource_type *rt = type("pods");
    struct object *o =
        decode_ok(rt, "/registry/pods/prod/web-1", pod_json, 12345);
    cJSON *root;

    assert_string_equal(o->ns, "prod");
    assert_string_equal(o->name, "web-1");
    assert_string_equal(o->created, "2024-05-01T10:00:00Z");
    assert_int_equal(o->nlabels, 3);
    assert_string_equal(o->labels[0].key, "app");
    assert_string_equal(o->labels[0].value, "web");
    assert_string_equal(o->labels[1].key, "app.kubernetes.io/name");
    assert_string_equal(o->labels[1].value, "shop");
    assert_string_equal(o->labels[2].key, "tier");
    assert_string_equal(object_label(o, "tier"), "frontend");
    assert_null(object_label(o, "missing"));
    assert_int_equal(o->nfields, 8);
    assert_string_equal(o->fields[0], "node-7");            /* nodeName */
    assert_string_equal(o->fields[1], "Always");            /* restart */
    assert_string_equal(o->fields[2], "default-scheduler"); /* scheduler */
    assert_string_equal(o->fields[3], "default");           /* sa */
    assert_string_equal(o->fields[4], "true");              /* hostNetwork */
    assert_string_equal(o->fields[5], "Running");           /* phase */
    assert_string_equal(o->fields[6], "10.0.0.7");          /* podIP */
    assert_string_equal(o->fields[7], "");                  /* nominated */
    assert_string_equal(object_field(o, FIELD_NAME), "web-1");
    assert_string_equal(object_field(o, FIELD_NAMESPACE), "prod");

    root = check_json_rv(o, 12345);
    assert_string_equal(get_string(root, "kind"), "Pod");
    assert_string_equal(get_string(root, "metadata.uid"), "u-1");
    assert_string_equal(get_string(root, "status.phase"), "Running");
    cJSON_Delete(root);
    /* Only the resourceVersion changed, in place. */
    assert_non_null(strstr(o->json->data, "\"uid\":\"u-1\","
                                          "\"resourceVersion\":\"12345\","
                                          "\"creationTimestamp\""));
    assert_int_equal(o->json->len, strlen(pod_json) + 2);
    object_unref(o);
}

static void test_decode_completes_configmap(void **state)
{
    const struct resource_type *rt = type("configmaps");
    struct object *o =
        decode_ok(rt, "/registry/configmaps/kube-system/cm-1",
                  " {\"apiVersion\":\"v1\",\"data\":{\"a\":\"b\"}} \n", 7);
    cJSON *root;

    assert_string_equal(o->json->data,
                        "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
                        "\"metadata\":{\"name\":\"cm-1\",\"namespace\":"
                        "\"kube-system\",\"resourceVersion\":\"7\"},"
                        "\"data\":{\"a\":\"b\"}}");
    assert_string_equal(o->ns, "kube-system");
    assert_string_equal(o->name, "cm-1");
    assert_string_equal(o->created, "");
    assert_int_equal(o->nlabels, 0);
    assert_int_equal(o->nfields, 0);
    root = check_json_rv(o, 7);
    cJSON_Delete(root);
    object_unref(o);
}

static void test_decode_fills_missing_in_metadata(void **state)
{
    const struct resource_type *rt = type("apps/v1/deployments");
    struct object *o = decode_ok(
        rt, "/registry/deployments/ns/dep",
        "{\"metadata\":{\"uid\":\"x\",\"name\":\"\",\"namespace\":null},"
        "\"kind\":\"\",\"apiVersion\":\"apps/v1\",\"spec\":{}}",
        100);

    /* An empty kind is replaced where it stands. */
    assert_string_equal(o->json->data,
                        "{\"metadata\":{\"uid\":\"x\",\"name\":\"dep\","
                        "\"namespace\":\"ns\",\"resourceVersion\":\"100\"},"
                        "\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\","
                        "\"spec\":{}}");
    assert_string_equal(o->ns, "ns");
    assert_string_equal(o->name, "dep");
    object_unref(o);
}

static void test_decode_node_cluster_scoped(void **state)
{
    const struct resource_type *rt = type("nodes");
    struct object *o = decode_ok(
        rt, "/registry/minions/node-1",
        "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
        "\"node-1\",\"namespace\":\"\",\"labels\":{\"kubernetes.io/"
        "hostname\":\"node-1\",\"node-role.kubernetes.io/control-plane\":"
        "\"\"}},\"spec\":{}}",
        5);
    struct object *o2;
    cJSON *root;

    assert_string_equal(o->ns, "");
    assert_string_equal(o->name, "node-1");
    assert_int_equal(o->nlabels, 2);
    assert_string_equal(
        object_label(o, "node-role.kubernetes.io/control-plane"), "");
    assert_int_equal(o->nfields, 1);
    /* spec.unschedulable is a Go bool: absent reads "false". */
    assert_string_equal(o->fields[0], "false");
    root = check_json_rv(o, 5);
    cJSON_Delete(root);
    object_unref(o);

    o2 = decode_ok(rt, "/registry/minions/n2",
                   "{\"apiVersion\":\"v1\",\"spec\":{\"unschedulable\":true}}",
                   6);
    assert_string_equal(o2->name, "n2");
    assert_string_equal(o2->fields[0], "true");
    assert_null(strstr(o2->json->data, "namespace"));
    object_unref(o2);

    /* A namespace on a cluster-scoped object: the key says it has none. */
    FAILS(rt, "/registry/minions/node-1",
          "{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":\"ignored\"}}",
          "metadata.namespace is set on a cluster-scoped object");
    FAILS(rt, "/registry/minions/node-1",
          "{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":1}}",
          "metadata.namespace is not a string");
}

static void test_decode_event_source(void **state)
{
    const struct resource_type *rt = type("events");
    struct object *a = decode_ok(
        rt, "/registry/events/default/e1",
        "{\"apiVersion\":\"v1\",\"involvedObject\":{\"kind\":\"Pod\","
        "\"namespace\":\"default\","
        "\"name\":\"web\",\"uid\":\"u\"},\"reason\":\"Started\",\"source\":"
        "{\"component\":\"kubelet\",\"host\":\"n1\"},\"type\":\"Normal\"}",
        1);
    struct object *b =
        decode_ok(rt, "/registry/events/default/e2",
                  "{\"apiVersion\":\"v1\",\"reportingComponent\":\"sched\","
                  "\"source\":{}}",
                  2);

    assert_string_equal(a->fields[0], "Pod");
    assert_string_equal(a->fields[1], "default");
    assert_string_equal(a->fields[2], "web");
    assert_string_equal(a->fields[3], "u");
    assert_string_equal(a->fields[4], "Started");
    assert_string_equal(a->fields[5], "kubelet");
    assert_string_equal(a->fields[6], "Normal");
    assert_string_equal(b->fields[5], "sched");
    assert_string_equal(b->fields[0], "");
    object_unref(a);
    object_unref(b);
}

static void test_decode_field_renderings(void **state)
{
    const struct resource_type rt = {
        .resource = "widgets",
        .singular = "widget",
        .kind = "Widget",
        .list_kind = "WidgetList",
        .group = "example.com",
        .version = "v1",
        .api_version = "example.com/v1",
        .namespaced = true,
        .key_prefix = "/registry/example.com/widgets/",
        .fields = {"spec.replicas", "spec.ratio", "spec.on", "spec.off",
                   "spec.obj", "spec.none", "spec.big", "spec.neg"},
        .indexed_field = -1,
    };
    struct object *o = decode_ok(
        &rt, "/registry/example.com/widgets/a/b",
        "{\"apiVersion\":\"example.com/"
        "v1\",\"spec\":{\"replicas\":3,\"ratio\":0.5,\"on\":true,\"off\":false,"
        "\"obj\":{\"x\":1},\"none\":null,\"big\":1e300,\"neg\":-42.0}}",
        9);

    assert_string_equal(o->fields[0], "3");
    assert_string_equal(o->fields[1], "0.5");
    assert_string_equal(o->fields[2], "true");
    assert_string_equal(o->fields[3], "false");
    assert_string_equal(o->fields[4], "");
    assert_string_equal(o->fields[5], "");
    assert_string_equal(o->fields[6], "1.0000000000000001e+300");
    assert_string_equal(o->fields[7], "-42");
    assert_non_null(strstr(o->json->data,
                           "{\"kind\":\"Widget\",\"apiVersion\":"
                           "\"example.com/v1\",\"metadata\":{\"name\":\"b\","
                           "\"namespace\":\"a\",\"resourceVersion\":\"9\"}"));
    object_unref(o);
}

static void test_decode_odd_labels_and_unicode(void **state)
{
    const struct resource_type *rt = type("configmaps");
    /* Raw UTF-8 (Japanese, an emoji), escapes, quotes and a control
     * character, in label keys and values and in the data. */
    const char *value =
        "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"example.com/"
        "na\\\"me\":\"a\\\"b\\\\c"
        "\\n\",\"uni\":\"\\u00e9t\\u00e9 \xe6\x97\xa5\xe6\x9c\xac\","
        "\"emoji\":\"\\ud83d\\ude00\",\"empty\":\"\"}},"
        "\"data\":{\"k\":\"\xe6\x97\xa5\xe6\x9c\xac \\u0001 \\/ \\t\"}}";
    struct object *o = decode_ok(rt, "/registry/configmaps/ns/odd", value, 3);
    cJSON *root = check_json_rv(o, 3);

    assert_int_equal(o->nlabels, 4);
    assert_string_equal(object_label(o, "example.com/na\"me"), "a\"b\\c\n");
    assert_string_equal(object_label(o, "uni"),
                        "\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
    assert_string_equal(object_label(o, "emoji"), "\xf0\x9f\x98\x80");
    assert_string_equal(object_label(o, "empty"), "");
    /* Values survive byte for byte through the re-encoding. */
    assert_string_equal(get_string(root, "data.k"),
                        "\xe6\x97\xa5\xe6\x9c\xac \x01 / \t");
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(root, "metadata"), "labels"),
            "example.com/na\"me")
            ->valuestring,
        "a\"b\\c\n");
    /* Raw UTF-8 stays raw; the control character stays escaped. */
    assert_non_null(strstr(o->json->data, "\xe6\x97\xa5\xe6\x9c\xac \\u0001"));
    cJSON_Delete(root);
    object_unref(o);
}

static void test_decode_large_rv_and_with_rv(void **state)
{
    const struct resource_type *rt = type("pods");
    struct object *o =
        decode_ok(rt, "/registry/pods/prod/web-1", pod_json, INT64_MAX);
    struct object *d, *e;
    cJSON *root = check_json_rv(o, INT64_MAX);

    cJSON_Delete(root);
    d = object_with_rv(o, 5);
    root = check_json_rv(d, 5);
    assert_string_equal(get_string(root, "metadata.name"), "web-1");
    assert_string_equal(get_string(root, "spec.nodeName"), "node-7");
    cJSON_Delete(root);
    assert_string_equal(d->fields[0], "node-7");
    assert_int_equal(d->nlabels, 3);
    e = object_with_rv(d, 1234567890123LL);
    root = check_json_rv(e, 1234567890123LL);
    cJSON_Delete(root);
    /* Apart from the digits, the bytes are unchanged. */
    assert_memory_equal(o->json->data, e->json->data, o->rv_off);
    assert_string_equal(o->json->data + o->rv_off + o->rv_len,
                        e->json->data + e->rv_off + e->rv_len);
    object_unref(o);
    object_unref(d);
    object_unref(e);
}

static void test_decode_rejections(void **state)
{
    const struct resource_type *pods = type("pods");
    const struct resource_type *nodes = type("nodes");
    const char *key = "/registry/pods/ns/p";
    const char protobuf[] = "k8s\0\n\x0b\n\x02v1\x12\x03Pod";

    decode_fails(pods, key, protobuf, sizeof(protobuf) - 1,
                 "value is protobuf (k8s\\0 prefix)");
    FAILS(pods, key, "", "value is not JSON");
    FAILS(pods, key, "not json", "value is not JSON");
    FAILS(pods, key, "{\"a\":1} x", "value is not JSON");
    FAILS(pods, key, "{\"a\":1}{}", "value is not JSON");
    FAILS(pods, key, "{\"a\":1", "value is not JSON");
    FAILS(pods, key, "{\"a\":1}\0", "value is not JSON");
    FAILS(pods, key, "[1,2]", "value is not a JSON object");
    FAILS(pods, key, "\"pod\"", "value is not a JSON object");
    FAILS(pods, key, "{\"apiVersion\":\"v1\",\"metadata\":\"x\"}",
          "metadata is not an object");
    FAILS(pods, key, "{\"apiVersion\":\"v1\",\"metadata\":[]}",
          "metadata is not an object");
    FAILS(pods, key, "{\"apiVersion\":\"v1\",\"kind\":1}",
          "kind is not a string");
    FAILS(pods, key, "{\"apiVersion\":{}}", "apiVersion is not a string");
    FAILS(pods, key, "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":5}}",
          "metadata.name is not a string");
    FAILS(pods, key,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":true}}",
          "metadata.namespace is not a string");
    FAILS(pods, key,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"a\":1}}}",
          "label values must be strings");
    FAILS(pods, key,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"a\":\"x\",\"b\":"
          "null}}}",
          "label values must be strings");
    FAILS(pods, key,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":[\"a\"]}}",
          "metadata.labels is not an object");

    const char *const bad_pod_keys[] = {
        "/registry/pods/ns",        "/registry/pods/ns/",
        "/registry/pods//p",        "/registry/pods/",
        "/registry/pods/a/b/c",     "/registry/podsx/ns/p",
        "/registry/configmaps/n/p", "",
    };
    for (size_t i = 0; i < RW_ARRAY_LEN(bad_pod_keys); i++)
        decode_fails(pods, bad_pod_keys[i], "{}", 2,
                     "key does not match the resource's layout");
    decode_fails(nodes, "/registry/minions/ns/n", "{}", 2,
                 "key does not match the resource's layout");
    decode_fails(nodes, "/registry/minions/", "{}", 2,
                 "key does not match the resource's layout");

    /* A NUL inside the key. */
    struct object *o = (struct object *)1;
    const char *why = NULL;
    assert_int_equal(kjson_decode_object(nodes, "/registry/minions/a\0b", 20,
                                         "{}", 2, 1, &o, &why),
                     RW_EINVAL);
    assert_null(o);
    assert_string_equal(why, "key does not match the resource's layout");
}

/* ------------------------------------------------------------------ */
/* Byte-exact decoding                                                 */
/* ------------------------------------------------------------------ */

#define CM_KEY "/registry/configmaps/ns/cm"
#define CM_HEAD "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\","
#define CM_META "\"metadata\":{\"name\":\"cm\",\"namespace\":\"ns\","
#define CM_INSERTED CM_HEAD CM_META "\"resourceVersion\":\"7\"}"

/* The digits of rv at rv_off, quoted, without parsing the JSON. */
static void check_digits(const struct object *o, int64_t rv)
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
static struct object *decode_exact(const struct resource_type *rt,
                                   const char *key, const char *value,
                                   size_t len, const char *want, bool parse)
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

static void test_decode_numbers_byte_exact(void **state)
{
    /* Each of these came out changed when cJSON printed the object. */
    EXACT("{\"apiVersion\":\"v1\",\"spec\":{\"generation\":9007199254740993,"
          "\"min\":-9223372036854775808,\"max\":9223372036854775807,"
          "\"huge\":1e400,\"dec\":1.50,\"exp\":-1.5E-7,\"zero\":-0,"
          "\"more\":[0,1e+2,2.50e-3,123456789012345678901234567890]}}",
          CM_INSERTED ",\"spec\":{\"generation\":9007199254740993,"
                      "\"min\":-9223372036854775808,"
                      "\"max\":9223372036854775807,"
                      "\"huge\":1e400,\"dec\":1.50,\"exp\":-1.5E-7,"
                      "\"zero\":-0,"
                      "\"more\":[0,1e+2,2.50e-3,"
                      "123456789012345678901234567890]}}");
    /* With metadata present, only the revision's digits change. */
    EXACT(
        "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
        "\"cm\",\"namespace\":\"ns\",\"generation\":9007199254740993,"
        "\"resourceVersion\":\"123\"},\"data\":{\"n\":1.50}}",
        CM_HEAD CM_META "\"generation\":9007199254740993,"
                        "\"resourceVersion\":\"7\"},\"data\":{\"n\":1.50}}");
}

static void test_decode_nul_escapes(void **state)
{
    const struct resource_type *pods = type("pods");
    struct object *o;

    /* \u0000 in a value and in keys (cJSON cut both at the NUL). */
    EXACT("{\"apiVersion\":\"v1\",\"data\":{\"v\":\"x\\u0000y\",\"x\\u0000y\":"
          "\"k\",\"x\":\"z\"}}",
          CM_INSERTED ",\"data\":{\"v\":\"x\\u0000y\",\"x\\u0000y\":\"k\","
                      "\"x\":\"z\"}}");
    /* "kind\u0000" is not kind: kind is inserted, the other kept. */
    EXACT("{\"apiVersion\":\"v1\",\"kind\\u0000\":1}",
          CM_INSERTED ",\"kind\\u0000\":1}");

    /* Extracted strings read U+FFFD for the NUL, so that a selector for
     * the part before it does not match. */
    o = DECODE_EXACT(
        pods, "/registry/pods/ns/p",
        "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"a\\u0000b\":"
        "\"x\\u0000y\"}},"
        "\"spec\":{\"nodeName\":\"n1\\u0000evil\"}}",
        "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\","
        "\"namespace\":\"ns\",\"labels\":{\"a\\u0000b\":\"x\\u0000y\"},"
        "\"resourceVersion\":\"7\"},\"spec\":{\"nodeName\":\"n1\\u0000evil\"}}",
        true);
    assert_int_equal(o->nlabels, 1);
    assert_string_equal(o->labels[0].key, "a\xef\xbf\xbd"
                                          "b");
    assert_string_equal(o->labels[0].value, "x\xef\xbf\xbdy");
    assert_null(object_label(o, "a"));
    assert_string_equal(o->fields[0], "n1\xef\xbf\xbd"
                                      "evil");
    object_unref(o);

    /* A NUL in the name cannot match the key (which has none). */
    FAILS(type("configmaps"), CM_KEY,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cm\\u0000\"}}",
          "metadata.name does not match the key");
}

static void test_decode_unicode_byte_exact(void **state)
{
    const struct resource_type *rt = type("configmaps");
    struct object *o;

    /* Escapes stay escapes (in either case), raw UTF-8 stays raw. */
    EXACT("{\"apiVersion\":\"v1\",\"data\":{\"e\":\"\\ud83d\\ude00\",\"E\":"
          "\"\\uD83D\\uDE00\","
          "\"raw\":\"\xf0\x9f\x98\x80 \xe6\x97\xa5 \xc3\xa9 \x7f\","
          "\"esc\":\"\\u00e9\\/\\b\\f\\n\\r\\t\\\"\\\\\\u001f\"}}",
          CM_INSERTED ",\"data\":{\"e\":\"\\ud83d\\ude00\","
                      "\"E\":\"\\uD83D\\uDE00\",\"raw\":\"\xf0\x9f\x98\x80 "
                      "\xe6\x97\xa5 \xc3\xa9 \x7f\",\"esc\":\"\\u00e9\\/\\b\\f"
                      "\\n\\r\\t\\\"\\\\\\u001f\"}}");
    /* In a raw 4-byte character in a label: extracted as is. */
    o = DECODE_EXACT(rt, CM_KEY,
                     "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"k\":"
                     "\"\xf0\x9f\x98\x80\"}}}",
                     CM_HEAD CM_META "\"labels\":{\"k\":\"\xf0\x9f\x98\x80\"},"
                                     "\"resourceVersion\":\"7\"}}",
                     true);
    assert_string_equal(object_label(o, "k"), "\xf0\x9f\x98\x80");
    object_unref(o);

    /* Lone surrogates, escaped, are accepted as Go accepts them (reading
     * U+FFFD), served as stored; cJSON would refuse them. */
    o = DECODE_EXACT(
        rt, CM_KEY,
        "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"l\":\"\\ud800\"}},"
        "\"data\":{\"a\":"
        "\"\\udc00\",\"b\":\"\\ud800\\u0041\",\"c\":\"x\\ud83d\"}}",
        CM_HEAD CM_META "\"labels\":{\"l\":\"\\ud800\"},"
                        "\"resourceVersion\":\"7\"},\"data\":{\"a\":"
                        "\"\\udc00\",\"b\":\"\\ud800\\u0041\","
                        "\"c\":\"x\\ud83d\"}}",
        false);
    assert_string_equal(object_label(o, "l"), "\xef\xbf\xbd");
    object_unref(o);
}

/*
 * A value that decodes but is another type is refused, as the apiserver's
 * storage decoder refuses it (it decodes with the group, version and kind
 * the stored bytes name, and that does not convert to the resource's
 * type): namespaced, cluster-scoped and grouped (apps/v1) types alike.
 */
static void test_decode_type_must_match(void **state)
{
    static const char *const kind = "kind does not match the resource";
    static const char *const api = "apiVersion does not match the resource";
    static const char *const no_api = "apiVersion is missing";
    static const struct {
        const char *type, *key, *value, *why;
    } cases[] = {
        /* Wrong kind, right apiVersion. */
        {"configmaps", CM_KEY, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\"}",
         kind},
        {"configmaps", CM_KEY, "{\"kind\":\"configmap\",\"apiVersion\":\"v1\"}",
         kind},
        {"configmaps", CM_KEY,
         "{\"kind\":\"ConfigMapList\",\"apiVersion\":\"v1\"}", kind},
        {"nodes", "/registry/minions/n1",
         "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\"}", kind},
        {"apps/v1/deployments", "/registry/deployments/ns/web",
         "{\"kind\":\"StatefulSet\",\"apiVersion\":\"apps/v1\"}", kind},
        /* Another group's type under a core prefix, and the reverse. */
        {"pods", "/registry/pods/ns/web",
         "{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\",\"metadata\":"
         "{\"name\":\"web\"}}",
         kind},
        {"apps/v1/deployments", "/registry/deployments/ns/web",
         "{\"kind\":\"Pod\",\"apiVersion\":\"v1\"}", kind},
        /* Right kind, another group or version. */
        {"configmaps", CM_KEY, "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v2\"}",
         api},
        {"configmaps", CM_KEY, "{\"kind\":\"ConfigMap\",\"apiVersion\":\"V1\"}",
         api},
        {"configmaps", CM_KEY,
         "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1 \"}", api},
        {"configmaps", CM_KEY,
         "{\"kind\":\"ConfigMap\",\"apiVersion\":\"core/v1\"}", api},
        {"configmaps", CM_KEY,
         "{\"kind\":\"ConfigMap\",\"apiVersion\":\"apps/v1\"}", api},
        {"configmaps", CM_KEY,
         "{\"kind\":\"ConfigMap\",\"apiVersion\":\"/v1\"}", api},
        {"nodes", "/registry/minions/n1",
         "{\"kind\":\"Node\",\"apiVersion\":\"v1beta1\"}", api},
        {"apps/v1/deployments", "/registry/deployments/ns/web",
         "{\"kind\":\"Deployment\",\"apiVersion\":\"v1\"}", api},
        {"apps/v1/deployments", "/registry/deployments/ns/web",
         "{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1beta2\"}", api},
        {"apps/v1/deployments", "/registry/deployments/ns/web",
         "{\"kind\":\"Deployment\",\"apiVersion\":\"extensions/v1beta1\"}",
         api},
        {"apps/v1/deployments", "/registry/deployments/ns/web",
         "{\"kind\":\"Deployment\",\"apiVersion\":\"apps\"}", api},
        {"apps/v1/deployments", "/registry/deployments/ns/web",
         "{\"kind\":\"Deployment\",\"apiVersion\":\"batch/v1\"}", api},
        /* No apiVersion: the decoder cannot tell the type. */
        {"configmaps", CM_KEY, "{\"kind\":\"ConfigMap\"}", no_api},
        {"configmaps", CM_KEY, "{\"kind\":\"ConfigMap\",\"apiVersion\":null}",
         no_api},
        {"configmaps", CM_KEY, "{\"kind\":\"ConfigMap\",\"apiVersion\":\"\"}",
         no_api},
        {"configmaps", CM_KEY, "{}", no_api},
        {"nodes", "/registry/minions/n1", "{\"kind\":\"Node\"}", no_api},
        {"apps/v1/deployments", "/registry/deployments/ns/web",
         "{\"kind\":\"Deployment\",\"spec\":{}}", no_api},
        {"configmaps", CM_KEY, "{\"kind\":\"ConfigMap\",\"apiVersion\":1}",
         "apiVersion is not a string"},
    };
    struct object *o;

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++)
        decode_fails(type(cases[i].type), cases[i].key, cases[i].value,
                     strlen(cases[i].value), cases[i].why);

    /* Missing kind: the decoder takes the type's (it names the type with
     * the type's apiVersion); equal after unescaping is equal. */
    o = DECODE_EXACT(type("apps/v1/deployments"),
                     "/registry/deployments/ns/web",
                     "{\"apiVersion\":\"apps/v1\"}",
                     "{\"kind\":\"Deployment\",\"apiVersion\":\"apps/v1\","
                     "\"metadata\":{\"name\":\"web\",\"namespace\":\"ns\","
                     "\"resourceVersion\":\"7\"}}",
                     true);
    object_unref(o);
    EXACT("{\"kind\":\"Config\\u004dap\",\"apiVersion\":\"\\u00761\"}",
          "{\"kind\":\"Config\\u004dap\",\"apiVersion\":\"\\u00761\"," CM_META
          "\"resourceVersion\":\"7\"}}");
}

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

static void test_decode_key_is_authoritative(void **state)
{
    const struct resource_type *cms = type("configmaps");
    const struct resource_type *nodes = type("nodes");
    struct object *o;

    /* Listed by key under team-a, so it cannot claim kube-system. */
    FAILS(cms, "/registry/configmaps/team-a/spoof",
          "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"spoof\","
          "\"namespace\":\"kube-system\"}}",
          "metadata.namespace does not match the key");
    FAILS(cms, "/registry/configmaps/team-a/spoof",
          "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"other\","
          "\"namespace\":\"team-a\"}}",
          "metadata.name does not match the key");
    FAILS(cms, CM_KEY, "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"CM\"}}",
          "metadata.name does not match the key");
    FAILS(cms, CM_KEY,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":\"ns \"}}",
          "metadata.namespace does not match the key");
    FAILS(cms, CM_KEY, "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"c\"}}",
          "metadata.name does not match the key");
    FAILS(cms, CM_KEY,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cmx\"}}",
          "metadata.name does not match the key");
    FAILS(nodes, "/registry/minions/n1",
          "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"n1\",\"namespace\":"
          "\"kube-system\"}}",
          "metadata.namespace is set on a cluster-scoped object");

    /* Equal after unescaping: accepted, and the escape is kept. */
    o = DECODE_EXACT(cms, "/registry/configmaps/team-a/x\"y",
                     "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
                     "\"x\\\"\\u0079\",\"namespace\":\"te\\u0061m-"
                     "a\"}}",
                     CM_HEAD
                     "\"metadata\":{\"name\":\"x\\\"\\u0079\",\"namespace\":"
                     "\"te\\u0061m-a\",\"resourceVersion\":\"7\"}}",
                     true);
    assert_string_equal(o->ns, "team-a");
    assert_string_equal(o->name, "x\"y");
    object_unref(o);

    /* Inserted names are escaped; ns and name come from the key. */
    o = DECODE_EXACT(cms, "/registry/configmaps/team-a/q\"\\\x01\xc3\xa9",
                     "{\"apiVersion\":\"v1\"}",
                     CM_HEAD "\"metadata\":{\"name\":\"q\\\"\\\\\\u0001\xc3\xa9"
                             "\",\"namespace\":\"team-a\",\"resourceVersion\":"
                             "\"7\"}}",
                     true);
    assert_string_equal(o->ns, "team-a");
    assert_string_equal(o->name, "q\"\\\x01\xc3\xa9");
    object_unref(o);

    /* A cluster-scoped object may carry an empty or null namespace. */
    o = DECODE_EXACT(
        nodes, "/registry/minions/n1",
        "{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":null}}",
        "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{"
        "\"name\":\"n1\",\"namespace\":null,\"resourceVersion\":"
        "\"7\"}}",
        true);
    assert_string_equal(o->ns, "");
    assert_string_equal(o->name, "n1");
    object_unref(o);
}

static void test_decode_inserts_missing(void **state)
{
    const struct resource_type *nodes = type("nodes");

    EXACT("{\"apiVersion\":\"v1\"}", CM_INSERTED "}");
    EXACT("{\"apiVersion\":\"v1\",\"a\":1}", CM_INSERTED ",\"a\":1}");
    /* kind goes first, metadata after apiVersion. */
    EXACT(
        "{\"a\":1,\"kind\":\"ConfigMap\",\"b\":2,\"apiVersion\":\"v1\"}",
        "{\"a\":1,\"kind\":\"ConfigMap\",\"b\":2,\"apiVersion\":\"v1\"," CM_META
        "\"resourceVersion\":\"7\"}}");
    EXACT("{\"a\":1,\"apiVersion\":\"v1\",\"b\":2}",
          "{\"kind\":\"ConfigMap\",\"a\":1,\"apiVersion\":\"v1\"," CM_META
          "\"resourceVersion\":\"7\"},\"b\":2}");
    EXACT("{\"metadata\":{},\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}",
          "{\"metadata\":{\"name\":\"cm\",\"namespace\":\"ns\","
          "\"resourceVersion\":\"7\"},\"apiVersion\":\"v1\","
          "\"kind\":\"ConfigMap\"}");
    /* A null or "" kind is the type's, replaced where it stands. */
    EXACT("{\"metadata\":null,\"kind\":null,\"apiVersion\":\"v1\"}",
          "{\"metadata\":{\"name\":\"cm\",\"namespace\":\"ns\","
          "\"resourceVersion\":\"7\"},\"kind\":\"ConfigMap\","
          "\"apiVersion\":\"v1\"}");
    EXACT("{\"kind\":\"\",\"apiVersion\":\"v1\"}", CM_INSERTED "}");
    EXACT("{\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"3\"}}",
          CM_HEAD CM_META "\"resourceVersion\":\"7\"}}");
    EXACT("{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":\"ns\",\"uid\":"
          "\"u\"}}",
          CM_HEAD "\"metadata\":{\"name\":\"cm\",\"namespace\":\"ns\","
                  "\"uid\":\"u\",\"resourceVersion\":\"7\"}}");
    EXACT(
        "{\"apiVersion\":\"v1\",\"metadata\":{\"uid\":\"u\",\"name\":\"cm\"}}",
        CM_HEAD "\"metadata\":{\"uid\":\"u\",\"name\":\"cm\","
                "\"namespace\":\"ns\",\"resourceVersion\":\"7\"}}");
    /* Whatever resourceVersion held is replaced. */
    EXACT("{\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":5,\"name\":"
          "null}}",
          CM_HEAD "\"metadata\":{\"resourceVersion\":\"7\",\"name\":\"cm\","
                  "\"namespace\":\"ns\"}}");
    EXACT("{\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":{\"a\":[1,"
          "\"}\"]},"
          "\"namespace\":\"\",\"name\":\"\"}}",
          CM_HEAD "\"metadata\":{\"resourceVersion\":\"7\",\"namespace\":"
                  "\"ns\",\"name\":\"cm\"}}");
    /* Cluster-scoped: no namespace is inserted. */
    object_unref(DECODE_EXACT(nodes, "/registry/minions/n1",
                              "{\"apiVersion\":\"v1\"}",
                              "{\"kind\":\"Node\",\"apiVersion\":\"v1\","
                              "\"metadata\":{\"name\":\"n1\","
                              "\"resourceVersion\":\"7\"}}",
                              true));
    object_unref(DECODE_EXACT(
        nodes, "/registry/minions/n1",
        "{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":\"\"}}",
        "{\"kind\":\"Node\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":"
        "\"n1\",\"namespace\":\"\",\"resourceVersion\":\"7\"}}",
        true));
}

static void test_decode_duplicates(void **state)
{
    const struct resource_type *rt = type("configmaps");
    struct object *o;

    FAILS(rt, CM_KEY, "{\"apiVersion\":\"v1\",\"kind\":\"A\",\"kind\":\"B\"}",
          "duplicate kind");
    FAILS(rt, CM_KEY, "{\"apiVersion\":\"v1\",\"apiVersion\":null}",
          "duplicate apiVersion");
    FAILS(rt, CM_KEY, "{\"apiVersion\":\"v1\",\"metadata\":{},\"metadata\":{}}",
          "duplicate metadata");
    FAILS(rt, CM_KEY,
          "{\"apiVersion\":\"v1\",\"metad\\u0061ta\":{},\"metadata\":null}",
          "duplicate metadata");
    FAILS(rt, CM_KEY,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cm\",\"name\":"
          "\"cm\"}}",
          "duplicate metadata.name");
    FAILS(rt, CM_KEY,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"cm\",\"na\\u006de\":"
          "\"x\"}}",
          "duplicate metadata.name");
    FAILS(rt, CM_KEY,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":\"ns\","
          "\"namespace\":\"ns\"}}",
          "duplicate metadata.namespace");
    FAILS(type("nodes"), "/registry/minions/n",
          "{\"apiVersion\":\"v1\",\"metadata\":{\"namespace\":\"\","
          "\"namespace\":null}}",
          "duplicate metadata.namespace");
    FAILS(rt, CM_KEY,
          "{\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"1\","
          "\"name\":\"cm\","
          "\"resourceVersion\":\"2\"}}",
          "duplicate metadata.resourceVersion");

    /* Elsewhere duplicates are served as stored; the last one is what is
     * extracted, as Go's encoding/json. */
    o = DECODE_EXACT(
        rt, CM_KEY,
        "{\"apiVersion\":\"v1\",\"metadata\":{\"labels\":{\"x\":\"1\",\"x\":"
        "\"2\"},\"labels\":{"
        "\"y\":\"1\",\"x\":\"3\"}},\"data\":{\"k\":\"1\",\"k\":\"2\"}}",
        CM_HEAD CM_META "\"labels\":{\"x\":\"1\",\"x\":\"2\"},\"labels\":{"
                        "\"y\":\"1\",\"x\":\"3\"},\"resourceVersion\":\"7\"},"
                        "\"data\":{\"k\":\"1\",\"k\":\"2\"}}",
        true);
    assert_int_equal(o->nlabels, 2);
    assert_string_equal(object_label(o, "x"), "3");
    assert_string_equal(object_label(o, "y"), "1");
    object_unref(o);
    /* Names differing in case are different members (as the apiserver's
     * case-sensitive decoder); a nested "metadata" is not ours. */
    EXACT("{\"apiVersion\":\"v1\",\"Kind\":\"x\",\"METADATA\":1,\"spec\":{"
          "\"metadata\":{\"name\":"
          "\"x\",\"name\":\"y\"},\"kind\":1,\"kind\":2}}",
          CM_INSERTED ",\"Kind\":\"x\",\"METADATA\":1,\"spec\":{\"metadata\":"
                      "{\"name\":\"x\",\"name\":\"y\"},\"kind\":1,"
                      "\"kind\":2}}");
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
        cmocka_unit_test(test_decode_pod),
        cmocka_unit_test(test_decode_completes_configmap),
        cmocka_unit_test(test_decode_fills_missing_in_metadata),
        cmocka_unit_test(test_decode_node_cluster_scoped),
        cmocka_unit_test(test_decode_event_source),
        cmocka_unit_test(test_decode_field_renderings),
        cmocka_unit_test(test_decode_odd_labels_and_unicode),
        cmocka_unit_test(test_decode_large_rv_and_with_rv),
        cmocka_unit_test(test_decode_rejections),
        cmocka_unit_test(test_decode_nesting_limit),
        cmocka_unit_test(test_decode_numbers_byte_exact),
        cmocka_unit_test(test_decode_nul_escapes),
        cmocka_unit_test(test_decode_unicode_byte_exact),
        cmocka_unit_test(test_decode_type_must_match),
        cmocka_unit_test(test_decode_rejects_invalid_utf8),
        cmocka_unit_test(test_decode_strict_syntax),
        cmocka_unit_test(test_decode_depth_limit),
        cmocka_unit_test(test_decode_key_is_authoritative),
        cmocka_unit_test(test_decode_inserts_missing),
        cmocka_unit_test(test_decode_duplicates),
        cmocka_unit_test(test_decode_whitespace),
        cmocka_unit_test(test_watch_frame_exact),
        cmocka_unit_test(test_status),
        cmocka_unit_test(test_error_frame),
        cmocka_unit_test(test_status_detailed),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_escape),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
