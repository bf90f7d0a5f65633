/*
 * table_test.c: server-side Table output (proto/table.c).
 *
 * includeObject parsing; duration.HumanDuration at
 * its boundaries and RFC 3339 parsing; a pods Table (Running 1/1 on n1 with
 * 2 restarts, Pending in CrashLoopBackOff, init containers, Terminating,
 * Completed row conditions); the other printers' cells; the document's
 * shape parsed back with cJSON (kind, apiVersion, metadata, columns, rows
 * [] when empty); and the three includeObject variants, the spliced bytes
 * compared with the stored ones.  The .c is included to reach statics.
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

#include "proto/kjson.h"

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
    struct rbuf *b = table_render(type(spec), items, n, 42, NULL, -1, inc, false,
                                  now);
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

static const cJSON *cell(const cJSON *doc, int r, int c)
{
    const cJSON *v =
        cJSON_GetArrayItem(cJSON_GetObjectItem(row(doc, r), "cells"), c);

    assert_non_null(v);
    return v;
}

static void assert_cell(const cJSON *doc, int r, int c, const char *want)
{
    const cJSON *v = cell(doc, r, c);

    if (!cJSON_IsString(v) || strcmp(v->valuestring, want) != 0)
        fail_msg("row %d cell %d: want \"%s\", got %s", r, c, want,
                 cJSON_PrintUnformatted(v));
}

static void assert_cell_int(const cJSON *doc, int r, int c, int64_t want)
{
    const cJSON *v = cell(doc, r, c);

    assert_true(cJSON_IsNumber(v));
    assert_int_equal((int64_t)v->valuedouble, want);
}

static int ncells(const cJSON *doc, int r)
{
    return cJSON_GetArraySize(cJSON_GetObjectItem(row(doc, r), "cells"));
}

static void unref_all(struct object **items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        object_unref(items[i]);
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
/* Time                                                                */
/* ------------------------------------------------------------------ */

static void assert_duration(int64_t s, const char *want)
{
    char buf[32];

    human_duration(buf, sizeof(buf), s);
    if (strcmp(buf, want) != 0)
        fail_msg("%lld s: want %s, got %s", (long long)s, want, buf);
}

static void test_human_duration(void **state)
{
    const int64_t m = 60, h = 3600, d = 86400;

    (void)state;
    assert_duration(-2, "<invalid>");
    assert_duration(-1, "0s");
    assert_duration(0, "0s");
    assert_duration(10, "10s");
    assert_duration(119, "119s");
    assert_duration(2 * m, "2m");
    assert_duration(2 * m + 5, "2m5s");
    assert_duration(5 * m, "5m");
    assert_duration(10 * m - 1, "9m59s");
    assert_duration(10 * m, "10m");
    assert_duration(10 * m + 59, "10m");
    assert_duration(3 * h - 1, "179m");
    assert_duration(3 * h, "3h");
    assert_duration(3 * h + 30 * m, "3h30m");
    assert_duration(8 * h - 1, "7h59m");
    assert_duration(8 * h, "8h");
    assert_duration(48 * h - 1, "47h");
    assert_duration(2 * d, "2d");
    assert_duration(2 * d + h, "2d1h");
    assert_duration(8 * d - 1, "7d23h");
    assert_duration(8 * d, "8d");
    assert_duration(730 * d - 1, "729d");
    assert_duration(730 * d, "2y");
    assert_duration(731 * d, "2y1d");
    assert_duration(8 * 365 * d, "8y");
    assert_duration(10 * 365 * d + 5 * d, "10y");
}

static void test_rfc3339(void **state)
{
    int64_t t;

    (void)state;
    assert_true(parse_rfc3339("2024-01-02T03:04:05Z", &t));
    assert_int_equal(t, T0);
    assert_true(parse_rfc3339("2024-01-02T03:04:05.123456Z", &t));
    assert_int_equal(t, T0);
    assert_true(parse_rfc3339("2024-01-02T05:04:05+02:00", &t));
    assert_int_equal(t, T0);
    assert_true(parse_rfc3339("2024-01-01T22:04:05-05:00", &t));
    assert_int_equal(t, T0);
    assert_true(parse_rfc3339("1970-01-01T00:00:00Z", &t));
    assert_int_equal(t, 0);
    assert_false(parse_rfc3339("", &t));
    assert_false(parse_rfc3339("2024-01-02 03:04:05Z", &t));
    assert_false(parse_rfc3339("2024-01-02T03:04:05", &t));
    assert_false(parse_rfc3339("2024-13-02T03:04:05Z", &t));
    assert_false(parse_rfc3339("2024-01-02T03:04:05Zjunk", &t));
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
    b = table_render(type("pods"), NULL, 0, 1, "", -1, TABLE_OBJECT_NONE,
                     false, T0);
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

    /* A type without a printer here: Name and Age. */
    doc = render("leases", NULL, 0, TABLE_OBJECT_NONE, T0, NULL);
    assert_int_equal(
        cJSON_GetArraySize(cJSON_GetObjectItem(doc, "columnDefinitions")), 2);
    cJSON_Delete(doc);
}

/* ------------------------------------------------------------------ */
/* Pods                                                                */
/* ------------------------------------------------------------------ */

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

static const char crashing_pod[] =
    "{\"metadata\":{\"name\":\"p2\",\"namespace\":\"default\","
    "\"creationTimestamp\":\"2024-01-02T03:03:55Z\"},"
    "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}],"
    "\"readinessGates\":[{\"conditionType\":\"x/gate\"}]},"
    "\"status\":{\"phase\":\"Pending\",\"containerStatuses\":[{\"name\":"
    "\"c\",\"ready\":false,\"restartCount\":0,\"state\":{\"waiting\":{"
    "\"reason\":\"CrashLoopBackOff\"}}}]}}";

static void test_pods(void **state)
{
    struct object *items[2];
    cJSON *doc;

    (void)state;
    items[0] = obj("pods", "/registry/pods/default/p1", running_pod);
    items[1] = obj("pods", "/registry/pods/default/p2", crashing_pod);
    doc = render("pods", items, 2, TABLE_OBJECT_METADATA, T0, NULL);

    assert_int_equal(ncells(doc, 0), 9);
    assert_cell(doc, 0, 0, "p1");
    assert_cell(doc, 0, 1, "1/1");
    assert_cell(doc, 0, 2, "Running");
    assert_cell(doc, 0, 3, "2 (5m ago)");
    assert_cell(doc, 0, 4, "5m");
    assert_cell(doc, 0, 5, "10.0.0.5");
    assert_cell(doc, 0, 6, "n1");
    assert_cell(doc, 0, 7, "<none>");
    assert_cell(doc, 0, 8, "<none>");
    assert_null(cJSON_GetObjectItem(row(doc, 0), "conditions"));

    assert_cell(doc, 1, 0, "p2");
    assert_cell(doc, 1, 1, "0/1");
    assert_cell(doc, 1, 2, "CrashLoopBackOff");
    assert_cell(doc, 1, 3, "0");
    assert_cell(doc, 1, 4, "10s");
    assert_cell(doc, 1, 5, "<none>");
    assert_cell(doc, 1, 6, "<none>");
    assert_cell(doc, 1, 8, "0/1");
    cJSON_Delete(doc);
    unref_all(items, 2);
}

/* Status for one pod JSON. */
static void assert_pod_status(const char *json, const char *ready,
                              const char *status, const char *restarts)
{
    struct object *o = obj("pods", "/registry/pods/ns/x", json);
    cJSON *doc = render("pods", &o, 1, TABLE_OBJECT_NONE, T0, NULL);

    assert_cell(doc, 0, 1, ready);
    assert_cell(doc, 0, 2, status);
    assert_cell(doc, 0, 3, restarts);
    cJSON_Delete(doc);
    object_unref(o);
}

static void test_pod_status(void **state)
{
    (void)state;
    /* Phase, then status.reason. */
    assert_pod_status("{\"status\":{\"phase\":\"Pending\"}}", "0/0", "Pending",
                      "0");
    assert_pod_status(
        "{\"status\":{\"phase\":\"Failed\",\"reason\":\"Evicted\"}}", "0/0",
        "Evicted", "0");
    /* Terminating unless terminal; NodeLost reads Unknown. */
    assert_pod_status("{\"metadata\":{\"deletionTimestamp\":"
                      "\"2024-01-02T03:00:00Z\"},\"status\":{\"phase\":"
                      "\"Running\"}}",
                      "0/0", "Terminating", "0");
    assert_pod_status("{\"metadata\":{\"deletionTimestamp\":"
                      "\"2024-01-02T03:00:00Z\"},\"status\":{\"phase\":"
                      "\"Succeeded\"}}",
                      "0/0", "Succeeded", "0");
    assert_pod_status("{\"metadata\":{\"deletionTimestamp\":"
                      "\"2024-01-02T03:00:00Z\"},\"status\":{\"phase\":"
                      "\"Running\",\"reason\":\"NodeLost\"}}",
                      "0/0", "Unknown", "0");
    /* Terminated without a reason. */
    assert_pod_status("{\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
                      "\"status\":{\"phase\":\"Running\",\"containerStatuses\":"
                      "[{\"name\":\"a\",\"state\":{\"terminated\":{"
                      "\"exitCode\":3}}}]}}",
                      "0/1", "ExitCode:3", "0");
    assert_pod_status("{\"spec\":{\"containers\":[{\"name\":\"a\"}]},"
                      "\"status\":{\"phase\":\"Running\",\"containerStatuses\":"
                      "[{\"name\":\"a\",\"state\":{\"terminated\":{"
                      "\"exitCode\":137,\"signal\":9}}}]}}",
                      "0/1", "Signal:9", "0");
    /* Init containers: waiting, counting, failed; restarts counted. */
    assert_pod_status(
        "{\"spec\":{\"initContainers\":[{\"name\":\"i1\"},{\"name\":\"i2\"}],"
        "\"containers\":[{\"name\":\"a\"}]},\"status\":{\"phase\":\"Pending\","
        "\"initContainerStatuses\":[{\"name\":\"i1\",\"state\":{\"terminated\":"
        "{\"exitCode\":0}}},{\"name\":\"i2\",\"restartCount\":4,\"state\":{"
        "\"running\":{}}}]}}",
        "0/1", "Init:1/2", "4");
    assert_pod_status(
        "{\"spec\":{\"initContainers\":[{\"name\":\"i1\"}],\"containers\":[{"
        "\"name\":\"a\"}]},\"status\":{\"phase\":\"Pending\","
        "\"initContainerStatuses\":[{\"name\":\"i1\",\"state\":{\"waiting\":{"
        "\"reason\":\"ImagePullBackOff\"}}}]}}",
        "0/1", "Init:ImagePullBackOff", "0");
    assert_pod_status(
        "{\"spec\":{\"initContainers\":[{\"name\":\"i1\"}],\"containers\":[{"
        "\"name\":\"a\"}]},\"status\":{\"phase\":\"Pending\","
        "\"initContainerStatuses\":[{\"name\":\"i1\",\"state\":{"
        "\"terminated\":{\"exitCode\":2}}}]}}",
        "0/1", "Init:ExitCode:2", "0");
    /* A started sidecar counts in READY and total. */
    assert_pod_status(
        "{\"spec\":{\"initContainers\":[{\"name\":\"s\",\"restartPolicy\":"
        "\"Always\"}],\"containers\":[{\"name\":\"a\"}]},\"status\":{"
        "\"phase\":\"Running\",\"initContainerStatuses\":[{\"name\":\"s\","
        "\"started\":true,\"ready\":true,\"state\":{\"running\":{}}}],"
        "\"containerStatuses\":[{\"name\":\"a\",\"ready\":true,\"state\":{"
        "\"running\":{}}}]}}",
        "2/2", "Running", "0");
    /* Completed but one still running. */
    assert_pod_status(
        "{\"spec\":{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]},"
        "\"status\":{\"phase\":\"Running\",\"containerStatuses\":[{\"name\":"
        "\"a\",\"ready\":true,\"state\":{\"running\":{}}},{\"name\":\"b\","
        "\"state\":{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\"}}}"
        "]}}",
        "1/2", "NotReady", "0");
    /* Scheduling gates. */
    assert_pod_status("{\"status\":{\"phase\":\"Pending\",\"conditions\":[{"
                      "\"type\":\"PodScheduled\",\"status\":\"False\","
                      "\"reason\":\"SchedulingGated\"}]}}",
                      "0/0", "SchedulingGated", "0");
}

static void test_pod_conditions(void **state)
{
    struct object *o;
    cJSON *doc;
    const cJSON *cond;

    (void)state;
    o = obj("pods", "/registry/pods/ns/done",
            "{\"status\":{\"phase\":\"Succeeded\"}}");
    doc = render("pods", &o, 1, TABLE_OBJECT_NONE, T0, NULL);
    cond =
        cJSON_GetArrayItem(cJSON_GetObjectItem(row(doc, 0), "conditions"), 0);
    assert_non_null(cond);
    assert_string_equal(cJSON_GetObjectItem(cond, "type")->valuestring,
                        "Completed");
    assert_string_equal(cJSON_GetObjectItem(cond, "status")->valuestring,
                        "True");
    assert_string_equal(cJSON_GetObjectItem(cond, "reason")->valuestring,
                        "Succeeded");
    cJSON_Delete(doc);
    object_unref(o);
}

/* ------------------------------------------------------------------ */
/* Other printers                                                      */
/* ------------------------------------------------------------------ */

static void test_ages(void **state)
{
    static const struct {
        const char *created;
        const char *age;
    } cases[] = {
        {"2024-01-02T03:03:55Z", "10s"},       {"2024-01-02T02:59:05Z", "5m"},
        {"2024-01-02T00:04:05Z", "3h"},        {"2023-12-31T03:04:05Z", "2d"},
        {"2024-01-02T03:04:15Z", "<invalid>"}, {NULL, "<unknown>"},
    };

    (void)state;
    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        char json[256];
        struct object *o;
        cJSON *doc;

        if (cases[i].created)
            snprintf(json, sizeof(json),
                     "{\"metadata\":{\"creationTimestamp\":\"%s\"}}",
                     cases[i].created);
        else
            snprintf(json, sizeof(json), "{\"metadata\":{}}");
        o = obj("configmaps", "/registry/configmaps/ns/c", json);
        doc = render("configmaps", &o, 1, TABLE_OBJECT_NONE, T0, NULL);
        assert_cell(doc, 0, 2, cases[i].age);
        cJSON_Delete(doc);
        object_unref(o);
    }
}

static void test_simple_printers(void **state)
{
    struct object *o;
    cJSON *doc;

    (void)state;
    o = obj("configmaps", "/registry/configmaps/ns/cm",
            "{\"data\":{\"a\":\"1\",\"b\":\"2\",\"a\":\"3\"},"
            "\"binaryData\":{\"c\":\"AA==\"}}");
    doc = render("configmaps", &o, 1, TABLE_OBJECT_NONE, T0, NULL);
    assert_cell(doc, 0, 0, "cm");
    assert_cell_int(doc, 0, 1, 3);
    cJSON_Delete(doc);
    object_unref(o);

    o = obj("secrets", "/registry/secrets/ns/s",
            "{\"type\":\"Opaque\",\"data\":{\"k\":\"dg==\"}}");
    doc = render("secrets", &o, 1, TABLE_OBJECT_NONE, T0, NULL);
    assert_cell(doc, 0, 1, "Opaque");
    assert_cell_int(doc, 0, 2, 1);
    cJSON_Delete(doc);
    object_unref(o);

    o = obj("namespaces", "/registry/namespaces/kube-system", "{}");
    doc = render("namespaces", &o, 1, TABLE_OBJECT_NONE, T0, NULL);
    assert_cell(doc, 0, 0, "kube-system");
    assert_cell(doc, 0, 1, "Active");
    cJSON_Delete(doc);
    object_unref(o);

    o = obj("leases", "/registry/leases/ns/l", "{}");
    doc = render("leases", &o, 1, TABLE_OBJECT_NONE, T0, NULL);
    assert_int_equal(ncells(doc, 0), 2);
    assert_cell(doc, 0, 0, "l");
    assert_cell(doc, 0, 1, "<unknown>");
    cJSON_Delete(doc);
    object_unref(o);
}

static void test_nodes(void **state)
{
    struct object *items[2];
    cJSON *doc;

    (void)state;
    items[0] = obj(
        "nodes", "/registry/minions/n1",
        "{\"metadata\":{\"labels\":{\"node-role.kubernetes.io/control-plane\":"
        "\"\",\"kubernetes.io/role\":\"master\",\"node-role.kubernetes.io/"
        "master\":\"true\"}},\"spec\":{\"unschedulable\":true},\"status\":{"
        "\"conditions\":[{\"type\":\"MemoryPressure\",\"status\":\"False\"},"
        "{\"type\":\"Ready\",\"status\":\"True\"}],\"addresses\":[{\"type\":"
        "\"InternalIP\",\"address\":\"192.168.1.2\"}],\"nodeInfo\":{"
        "\"kubeletVersion\":\"v1.32.0\",\"osImage\":\"Debian\"}}}");
    items[1] = obj("nodes", "/registry/minions/n2",
                   "{\"status\":{\"conditions\":[{\"type\":\"Ready\","
                   "\"status\":\"Unknown\"}]}}");
    doc = render("nodes", items, 2, TABLE_OBJECT_NONE, T0, NULL);
    assert_int_equal(ncells(doc, 0), 10);
    assert_cell(doc, 0, 1, "Ready,SchedulingDisabled");
    assert_cell(doc, 0, 2, "control-plane,master");
    assert_cell(doc, 0, 4, "v1.32.0");
    assert_cell(doc, 0, 5, "192.168.1.2");
    assert_cell(doc, 0, 6, "<none>");
    assert_cell(doc, 0, 7, "Debian");
    assert_cell(doc, 0, 8, "<unknown>");
    assert_cell(doc, 1, 1, "NotReady");
    assert_cell(doc, 1, 2, "<none>");
    cJSON_Delete(doc);
    unref_all(items, 2);

    items[0] = obj("nodes", "/registry/minions/n3", "{}");
    doc = render("nodes", items, 1, TABLE_OBJECT_NONE, T0, NULL);
    assert_cell(doc, 0, 1, "Unknown");
    cJSON_Delete(doc);
    object_unref(items[0]);
}

static void test_services(void **state)
{
    struct object *items[3];
    cJSON *doc;

    (void)state;
    items[0] = obj("services", "/registry/services/specs/ns/web",
                   "{\"spec\":{\"type\":\"NodePort\",\"clusterIP\":"
                   "\"10.96.0.10\",\"clusterIPs\":[\"10.96.0.10\"],\"ports\":"
                   "[{\"port\":80,\"protocol\":\"TCP\",\"nodePort\":30080},"
                   "{\"port\":53,\"protocol\":\"UDP\"}],\"selector\":{"
                   "\"tier\":\"web\",\"app\":\"x\"}}}");
    items[1] = obj("services", "/registry/services/specs/ns/lb",
                   "{\"spec\":{\"type\":\"LoadBalancer\",\"clusterIP\":"
                   "\"10.96.0.11\",\"externalIPs\":[\"1.2.3.4\"]},\"status\":{"
                   "\"loadBalancer\":{\"ingress\":[{\"ip\":\"5.6.7.8\"},"
                   "{\"hostname\":\"a.example\"}]}}}");
    items[2] = obj("services", "/registry/services/specs/ns/ext",
                   "{\"spec\":{\"type\":\"ExternalName\",\"externalName\":"
                   "\"db.example\"}}");
    doc = render("services", items, 3, TABLE_OBJECT_NONE, T0, NULL);
    assert_int_equal(ncells(doc, 0), 7);
    assert_cell(doc, 0, 1, "NodePort");
    assert_cell(doc, 0, 2, "10.96.0.10");
    assert_cell(doc, 0, 3, "<none>");
    assert_cell(doc, 0, 4, "80:30080/TCP,53/UDP");
    assert_cell(doc, 0, 6, "app=x,tier=web");
    assert_cell(doc, 1, 2, "10.96.0.11");
    assert_cell(doc, 1, 3, "5.6.7.8,a.example,1.2.3.4");
    assert_cell(doc, 1, 4, "<none>");
    assert_cell(doc, 1, 6, "<none>");
    assert_cell(doc, 2, 2, "<none>");
    assert_cell(doc, 2, 3, "db.example");
    cJSON_Delete(doc);
    unref_all(items, 3);
}

static void test_deployments(void **state)
{
    struct object *items[2];
    cJSON *doc;

    (void)state;
    items[0] = obj(
        "apps/v1/deployments", "/registry/deployments/ns/d",
        "{\"spec\":{\"replicas\":3,\"selector\":{\"matchLabels\":{\"app\":"
        "\"d\"},\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\","
        "\"values\":[\"web\",\"api\"]},{\"key\":\"a-b\",\"operator\":"
        "\"DoesNotExist\"}]},\"template\":{\"spec\":{\"containers\":[{"
        "\"name\":\"a\",\"image\":\"img:1\"},{\"name\":\"b\",\"image\":"
        "\"img:2\"}]}}},\"status\":{\"readyReplicas\":2,\"updatedReplicas\":"
        "3,\"availableReplicas\":2}}");
    items[1] = obj("apps/v1/deployments", "/registry/deployments/ns/e",
                   "{\"spec\":{}}");
    doc = render("apps/v1/deployments", items, 2, TABLE_OBJECT_NONE, T0, NULL);
    assert_int_equal(ncells(doc, 0), 8);
    assert_cell(doc, 0, 1, "2/3");
    assert_cell_int(doc, 0, 2, 3);
    assert_cell_int(doc, 0, 3, 2);
    assert_cell(doc, 0, 5, "a,b");
    assert_cell(doc, 0, 6, "img:1,img:2");
    assert_cell(doc, 0, 7, "!a-b,app=d,tier in (api,web)");
    assert_cell(doc, 1, 1, "0/1");
    assert_cell(doc, 1, 7, "");
    cJSON_Delete(doc);
    unref_all(items, 2);
}

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
    table_append_object(&sb, type("pods"), o, TABLE_OBJECT_METADATA, true,
                        true, T0);
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
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "metadata"),
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
        cmocka_unit_test(test_human_duration),
        cmocka_unit_test(test_rfc3339),
        cmocka_unit_test(test_empty_list),
        cmocka_unit_test(test_columns),
        cmocka_unit_test(test_pods),
        cmocka_unit_test(test_pod_status),
        cmocka_unit_test(test_pod_conditions),
        cmocka_unit_test(test_ages),
        cmocka_unit_test(test_simple_printers),
        cmocka_unit_test(test_nodes),
        cmocka_unit_test(test_services),
        cmocka_unit_test(test_deployments),
        cmocka_unit_test(test_include_object),
        cmocka_unit_test(test_one_object),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
