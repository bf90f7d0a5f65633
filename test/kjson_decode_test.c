/*
 * kjson_decode_test.c: the decoder of stored Kubernetes JSON
 * (proto/kjson_decode.c).
 *
 * Every extracted field of pods, configmaps, nodes, events and a
 * synthetic type with numeric and boolean fields; the resourceVersion
 * splice (the produced JSON parsed back with cJSON, the digits where
 * rv_off/rv_len say, object_with_rv still valid JSON); the served bytes
 * are the stored ones, compared byte for byte (numbers beyond a double,
 * \u0000 in values and keys, escapes, raw UTF-8, lone surrogates, repeated
 * members) except at the spliced spots; insertion of every missing
 * member; the key's authority over name and namespace; the type (kind and
 * apiVersion) the value names; rejections with their reasons (repeated
 * spliced members; under valgrind, nothing leaked).  What the strict
 * scanner refuses is test/kjson_scan_test.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/kjson_decode.h"
#include "test/json_testlib.h"
#include "test/kjson_testlib.h"

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
        cmocka_unit_test(test_decode_numbers_byte_exact),
        cmocka_unit_test(test_decode_nul_escapes),
        cmocka_unit_test(test_decode_unicode_byte_exact),
        cmocka_unit_test(test_decode_type_must_match),
        cmocka_unit_test(test_decode_key_is_authoritative),
        cmocka_unit_test(test_decode_inserts_missing),
        cmocka_unit_test(test_decode_duplicates),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
