/*
 * discovery_json_test.c: the discovery documents (src/discovery_json.c):
 * /version, /api, /apis (groups in the apiserver's priority order),
 * /apis/GROUP, the APIResourceLists (resources by name, verbs get, list, watch,
 * shortNames and the "all" category where the apiserver has them), and the
 * aggregated APIGroupDiscoveryList (v2 and v2beta1) checked member by member
 * against the apidiscovery types: /api's core group, /apis' other groups.
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
#include "src/discovery_json.h"

static void test_version(void **state)
{
    struct rbuf *b = discovery_json_version();
    cJSON *root = parse_rbuf(b);
    const char *date;

    assert_string_equal(get_string(root, "major"), "1");
    assert_string_equal(get_string(root, "minor"), "32");
    assert_string_equal(get_string(root, "gitVersion"), "v1.32.0+ringwatch");
    assert_string_equal(get_string(root, "gitTreeState"), "clean");
    assert_string_equal(get_string(root, "goVersion"), "n/a");
    assert_string_equal(get_string(root, "compiler"), "gc");
    assert_string_equal(get_string(root, "platform"), "linux/amd64");
    get_string(root, "gitCommit");
    date = get_string(root, "buildDate");
    /* RFC 3339: 2025-03-05T12:34:56Z */
    assert_int_equal(strlen(date), 20);
    assert_int_equal(date[4], '-');
    assert_int_equal(date[10], 'T');
    assert_int_equal(date[19], 'Z');
    cJSON_Delete(root);
    rbuf_unref(b);
}

static void test_api_versions(void **state)
{
    struct rbuf *b = discovery_json_versions("127.0.0.1:6443");
    cJSON *root = parse_rbuf(b), *cidrs;

    assert_string_equal(
        b->data, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
                 "\"serverAddressByClientCIDRs\":[{\"clientCIDR\":"
                 "\"0.0.0.0/0\",\"serverAddress\":\"127.0.0.1:6443\"}]}");
    cidrs =
        cJSON_GetObjectItemCaseSensitive(root, "serverAddressByClientCIDRs");
    assert_string_equal(
        get_string(cJSON_GetArrayItem(cidrs, 0), "serverAddress"),
        "127.0.0.1:6443");
    cJSON_Delete(root);
    rbuf_unref(b);

    b = discovery_json_versions("[::1]:80\"x");
    root = parse_rbuf(b);
    cidrs =
        cJSON_GetObjectItemCaseSensitive(root, "serverAddressByClientCIDRs");
    assert_string_equal(
        get_string(cJSON_GetArrayItem(cidrs, 0), "serverAddress"),
        "[::1]:80\"x");
    cJSON_Delete(root);
    rbuf_unref(b);
}

static const struct resource_type *const *all_types(size_t *n)
{
    static const struct resource_type *ptrs[64];
    const struct resource_type *all = resource_type_all(n);

    assert_true(*n <= RW_ARRAY_LEN(ptrs));
    for (size_t i = 0; i < *n; i++)
        ptrs[i] = &all[i];
    return ptrs;
}

static void test_api_group_list(void **state)
{
    size_t n;
    const struct resource_type *const *types = all_types(&n);
    struct rbuf *b = discovery_json_group_list(types, n);
    cJSON *root = parse_rbuf(b), *groups, *g;
    int apps = 0, batch = 0, coordination = 0, autoscaling = 0;
    static const char *const order[] = {"apps", "autoscaling", "batch",
                                        "rbac.authorization.k8s.io",
                                        "coordination.k8s.io"};
    int i = 0;

    assert_string_equal(get_string(root, "kind"), "APIGroupList");
    assert_string_equal(get_string(root, "apiVersion"), "v1");
    groups = cJSON_GetObjectItemCaseSensitive(root, "groups");
    assert_int_equal(cJSON_GetArraySize(groups), 5);
    cJSON_ArrayForEach(g, groups)
    {
        const char *name = get_string(g, "name");
        cJSON *versions = cJSON_GetObjectItemCaseSensitive(g, "versions");
        const char *v = strcmp(name, "autoscaling") == 0 ? "v2" : "v1";
        char *gv = xasprintf("%s/%s", name, v);

        assert_string_equal(name, order[i++]); /* the apiserver's priority */
        autoscaling += strcmp(name, "autoscaling") == 0;
        apps += strcmp(name, "apps") == 0;
        batch += strcmp(name, "batch") == 0;
        coordination += strcmp(name, "coordination.k8s.io") == 0;
        assert_int_equal(cJSON_GetArraySize(versions), 1);
        assert_string_equal(
            get_string(cJSON_GetArrayItem(versions, 0), "groupVersion"), gv);
        assert_string_equal(
            get_string(cJSON_GetArrayItem(versions, 0), "version"), v);
        assert_string_equal(get_string(g, "preferredVersion.groupVersion"), gv);
        assert_string_equal(get_string(g, "preferredVersion.version"), v);
        free(gv);
    }
    assert_true(apps == 1 && batch == 1 && coordination == 1 &&
                autoscaling == 1);
    cJSON_Delete(root);
    rbuf_unref(b);

    /* Only core types: no groups at all. */
    b = discovery_json_group_list(types, 1);
    assert_string_equal(
        b->data,
        "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[]}");
    rbuf_unref(b);
}

/* The APIResource named name in list, or fail. */
static const cJSON *find_resource(const cJSON *list, const char *name)
{
    const cJSON *r;

    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(list, "resources"))
    {
        if (strcmp(get_string(r, "name"), name) == 0)
            return r;
    }
    fail_msg("no resource %s", name);
    return NULL;
}

static void test_api_resource_list(void **state)
{
    size_t n;
    const struct resource_type *const *types = all_types(&n);
    struct rbuf *b = discovery_json_resource_list("", "v1", types, n);
    cJSON *root = parse_rbuf(b), *verbs, *shorts;
    const cJSON *pods, *secrets, *nodes;

    assert_string_equal(get_string(root, "kind"), "APIResourceList");
    assert_string_equal(get_string(root, "apiVersion"), "v1");
    assert_string_equal(get_string(root, "groupVersion"), "v1");
    pods = find_resource(root, "pods");
    assert_string_equal(get_string(pods, "singularName"), "pod");
    assert_string_equal(get_string(pods, "kind"), "Pod");
    assert_true(
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pods, "namespaced")));
    verbs = cJSON_GetObjectItemCaseSensitive(pods, "verbs");
    assert_int_equal(cJSON_GetArraySize(verbs), 3);
    assert_string_equal(cJSON_GetArrayItem(verbs, 0)->valuestring, "get");
    assert_string_equal(cJSON_GetArrayItem(verbs, 1)->valuestring, "list");
    assert_string_equal(cJSON_GetArrayItem(verbs, 2)->valuestring, "watch");
    shorts = cJSON_GetObjectItemCaseSensitive(pods, "shortNames");
    assert_int_equal(cJSON_GetArraySize(shorts), 1);
    assert_string_equal(cJSON_GetArrayItem(shorts, 0)->valuestring, "po");
    secrets = find_resource(root, "secrets");
    assert_null(cJSON_GetObjectItemCaseSensitive(secrets, "shortNames"));
    nodes = find_resource(root, "nodes");
    assert_true(
        cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(nodes, "namespaced")));
    /* No type of another group leaks in. */
    cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(root, "resources"))
    {
        assert_string_not_equal(get_string(r, "name"), "deployments");
    }
    cJSON_Delete(root);
    rbuf_unref(b);

    b = discovery_json_resource_list("apps", "v1", types, n);
    root = parse_rbuf(b);
    assert_string_equal(get_string(root, "groupVersion"), "apps/v1");
    assert_int_equal(
        cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "resources")),
        4);
    assert_string_equal(get_string(find_resource(root, "deployments"), "kind"),
                        "Deployment");
    cJSON_Delete(root);
    rbuf_unref(b);

    b = discovery_json_resource_list("apps", "v2", types, n);
    assert_string_equal(b->data, "{\"kind\":\"APIResourceList\",\"apiVersion\":"
                                 "\"v1\",\"groupVersion\":\"apps/v2\","
                                 "\"resources\":[]}");
    rbuf_unref(b);
}

/* The strings of array member name of o, joined by ",". */
static char *strings(const cJSON *o, const char *name)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, name), *v;
    char buf[256] = "";

    cJSON_ArrayForEach(v, a)
    {
        assert_true(cJSON_IsString(v));
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s",
                 *buf ? "," : "", v->valuestring);
    }
    return strdup(buf);
}

static void expect_strings(const cJSON *o, const char *name, const char *want)
{
    char *got = strings(o, name);

    if (strcmp(got, want) != 0)
        fail_msg("%s: got [%s], want [%s]", name, got, want);
    free(got);
}

static void test_categories_and_order(void **state)
{
    size_t n;
    const struct resource_type *const *types = all_types(&n);
    struct rbuf *b = discovery_json_resource_list("apps", "v1", types, n);
    cJSON *root = parse_rbuf(b);
    const cJSON *r;
    static const char *const names[] = {"daemonsets", "deployments",
                                        "replicasets", "statefulsets"};
    int i = 0;

    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(root, "resources"))
    {
        assert_string_equal(get_string(r, "name"), names[i++]);
        expect_strings(r, "categories", "all");
    }
    expect_strings(find_resource(root, "deployments"), "shortNames", "deploy");
    cJSON_Delete(root);
    rbuf_unref(b);

    b = discovery_json_resource_list("", "v1", types, n);
    root = parse_rbuf(b);
    expect_strings(find_resource(root, "pods"), "categories", "all");
    expect_strings(find_resource(root, "services"), "categories", "all");
    expect_strings(find_resource(root, "services"), "shortNames", "svc");
    expect_strings(find_resource(root, "replicationcontrollers"), "categories",
                   "all");
    assert_null(cJSON_GetObjectItemCaseSensitive(
        find_resource(root, "configmaps"), "categories"));
    expect_strings(find_resource(root, "configmaps"), "shortNames", "cm");
    {
        const char *prev = "";

        cJSON_ArrayForEach(r,
                           cJSON_GetObjectItemCaseSensitive(root, "resources"))
        {
            assert_true(strcmp(prev, get_string(r, "name")) < 0);
            prev = get_string(r, "name");
        }
    }
    cJSON_Delete(root);
    rbuf_unref(b);

    b = discovery_json_resource_list("batch", "v1", types, n);
    root = parse_rbuf(b);
    expect_strings(find_resource(root, "cronjobs"), "shortNames", "cj");
    expect_strings(find_resource(root, "jobs"), "categories", "all");
    cJSON_Delete(root);
    rbuf_unref(b);
}

static void test_group(void **state)
{
    size_t n;
    const struct resource_type *const *types = all_types(&n);
    struct rbuf *b = discovery_json_group(types, n, "apps");

    assert_string_equal(b->data,
                        "{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\",\"name\":"
                        "\"apps\",\"versions\":[{\"groupVersion\":\"apps/v1\","
                        "\"version\":\"v1\"}],\"preferredVersion\":{"
                        "\"groupVersion\":\"apps/v1\",\"version\":\"v1\"}}");
    rbuf_unref(b);
}

/* Checks one APIResourceDiscovery against its type (v2 types.go: resource,
 * responseKind, scope, singularResource, verbs required; shortNames,
 * categories omitempty; nothing else). */
static void check_resource_discovery(const cJSON *r,
                                     const struct resource_type *rt)
{
    const cJSON *m;
    int members = 0;

    cJSON_ArrayForEach(m, r)
    {
        static const char *const known[] = {
            "resource", "responseKind", "scope",      "singularResource",
            "verbs",    "shortNames",   "categories",
        };
        bool ok = false;

        for (size_t i = 0; i < RW_ARRAY_LEN(known); i++)
            ok = ok || strcmp(m->string, known[i]) == 0;
        if (!ok)
            fail_msg("unknown member %s", m->string);
        members++;
    }
    assert_string_equal(get_string(r, "resource"), rt->resource);
    assert_string_equal(get_string(r, "responseKind.group"), rt->group);
    assert_string_equal(get_string(r, "responseKind.version"), rt->version);
    assert_string_equal(get_string(r, "responseKind.kind"), rt->kind);
    assert_string_equal(get_string(r, "scope"),
                        rt->namespaced ? "Namespaced" : "Cluster");
    assert_string_equal(get_string(r, "singularResource"), rt->singular);
    expect_strings(r, "verbs", "get,list,watch");
    assert_int_equal(members, 5 + (rt->short_names[0] != NULL) +
                                  (rt->categories[0] != NULL));
}

/* Every item of an aggregated document, against the types. */
static int check_aggregated(const cJSON *root, bool beta)
{
    const cJSON *item, *version, *r;
    int resources = 0;

    assert_string_equal(get_string(root, "kind"), "APIGroupDiscoveryList");
    assert_string_equal(get_string(root, "apiVersion"),
                        beta ? "apidiscovery.k8s.io/v2beta1"
                             : "apidiscovery.k8s.io/v2");
    assert_true(
        cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(root, "metadata")));
    cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(root, "items"))
    {
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(item, "metadata");
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");
        const char *group = name ? name->valuestring : "";

        assert_true(cJSON_IsNull(
            cJSON_GetObjectItemCaseSensitive(meta, "creationTimestamp")));
        assert_null(cJSON_GetObjectItemCaseSensitive(item, "kind"));
        cJSON_ArrayForEach(version,
                           cJSON_GetObjectItemCaseSensitive(item, "versions"))
        {
            assert_string_equal(get_string(version, "freshness"), "Current");
            cJSON_ArrayForEach(
                r, cJSON_GetObjectItemCaseSensitive(version, "resources"))
            {
                char spec[128];
                const struct resource_type *rt;

                snprintf(spec, sizeof(spec), "%s%s%s/%s", group,
                         *group ? "/" : "", get_string(version, "version"),
                         get_string(r, "resource"));
                rt = resource_type_find(spec);
                if (rt == NULL)
                    fail_msg("%s is not a served type", spec);
                check_resource_discovery(r, rt);
                resources++;
            }
        }
    }
    return resources;
}

static void test_aggregated(void **state)
{
    size_t n;
    const struct resource_type *const *types = all_types(&n);
    int total = 0;

    for (int beta = 0; beta < 2; beta++) {
        struct rbuf *core = discovery_json_aggregated(types, n, true, beta);
        struct rbuf *groups = discovery_json_aggregated(types, n, false, beta);
        cJSON *c = parse_rbuf(core), *g = parse_rbuf(groups);

        assert_int_equal(
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(c, "items")),
            1);
        assert_int_equal(
            cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "items")),
            5);
        assert_string_equal(
            get_string(cJSON_GetArrayItem(
                           cJSON_GetObjectItemCaseSensitive(g, "items"), 0),
                       "metadata.name"),
            "apps");
        total = check_aggregated(c, beta) + check_aggregated(g, beta);
        assert_int_equal(total, (int)n);
        cJSON_Delete(c);
        cJSON_Delete(g);
        rbuf_unref(core);
        rbuf_unref(groups);
    }

    /* No core type served: /api still lists the core group's v1. */
    {
        const struct resource_type *apps = resource_type_find("deployments");
        struct rbuf *core = discovery_json_aggregated(&apps, 1, true, false);

        assert_string_equal(
            core->data, "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":"
                        "\"apidiscovery.k8s.io/v2\",\"metadata\":{},"
                        "\"items\":[{\"metadata\":{\"creationTimestamp\":"
                        "null},\"versions\":[{\"version\":\"v1\","
                        "\"freshness\":\"Current\"}]}]}");
        rbuf_unref(core);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version),
        cmocka_unit_test(test_api_versions),
        cmocka_unit_test(test_api_group_list),
        cmocka_unit_test(test_api_resource_list),
        cmocka_unit_test(test_categories_and_order),
        cmocka_unit_test(test_group),
        cmocka_unit_test(test_aggregated),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
