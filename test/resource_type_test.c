/*
 * resource_type_test.c: the table of built-in types (cache/resource_type.c):
 * every spelling resource_type_find accepts, table consistency, and the
 * field ids of field selectors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/resource_type.h"
#include "cache/rw.h"

static void expect_find(const char *spec, const char *resource)
{
    const struct resource_type *rt = resource_type_find(spec);

    if (resource == NULL) {
        if (rt != NULL)
            fail_msg("%s found %s", spec, rt->resource);
        return;
    }
    if (rt == NULL || strcmp(rt->resource, resource) != 0)
        fail_msg("%s: want %s, got %s", spec, resource,
                 rt ? rt->resource : "NULL");
}

static void test_find_spellings(void **state)
{
    expect_find("pods", "pods");
    expect_find("v1/pods", "pods");
    expect_find("configmaps", "configmaps");
    expect_find("deployments", "deployments");
    expect_find("apps/v1/deployments", "deployments");
    expect_find("deployments.apps", "deployments");
    expect_find("leases.coordination.k8s.io", "leases");
    expect_find("coordination.k8s.io/v1/leases", "leases");
    expect_find("batch/v1/jobs", "jobs");

    expect_find("", NULL);
    expect_find("nope", NULL);
    expect_find("pod", NULL); /* singular and short names are not specs */
    expect_find("po", NULL);
    expect_find("Pods", NULL);
    expect_find("v1/deployments", NULL);
    expect_find("apps/v1/pods", NULL);
    expect_find("apps/v2/deployments", NULL);
    expect_find("pods.apps", NULL); /* core types have no group */
    expect_find("deployments.batch", NULL);
    expect_find("/pods", NULL);
    expect_find("v1/", NULL);
}

static void test_table(void **state)
{
    size_t n;
    const struct resource_type *all = resource_type_all(&n);

    assert_true(n >= 17);
    for (size_t i = 0; i < n; i++) {
        const struct resource_type *rt = &all[i];
        size_t plen = strlen(rt->key_prefix), nf = resource_type_nfields(rt);
        char want[128];

        assert_true(plen > 1 && rt->key_prefix[plen - 1] == '/');
        assert_int_equal(strncmp(rt->key_prefix, "/registry/", 10), 0);
        snprintf(want, sizeof(want), "%sList", rt->kind);
        assert_string_equal(rt->list_kind, want);
        if (*rt->group)
            snprintf(want, sizeof(want), "%s/%s", rt->group, rt->version);
        else
            snprintf(want, sizeof(want), "%s", rt->version);
        assert_string_equal(rt->api_version, want);
        assert_ptr_equal(resource_type_find(rt->resource), rt);
        snprintf(want, sizeof(want), "%s/%s", rt->api_version, rt->resource);
        assert_ptr_equal(resource_type_find(want), rt);
        assert_true(nf <= RESOURCE_TYPE_MAX_FIELDS);
        assert_true(rt->indexed_field < (int)nf);
        for (size_t f = 0; f < nf; f++)
            assert_int_equal(resource_type_field_id(rt, rt->fields[f]),
                             FIELD_EXTRA + (int)f);
        /* No two types share a prefix that would make one list the other. */
        for (size_t j = 0; j < n; j++)
            if (j != i)
                assert_true(
                    strncmp(all[j].key_prefix, rt->key_prefix, plen) != 0);
    }
}

/* The key layout, in its one place: prefix, namespace prefix, object key,
 * the apiserver's exceptions included. */
static void test_keys(void **state)
{
    const struct resource_type *pods = resource_type_find("pods");
    const struct resource_type *nodes = resource_type_find("nodes");
    const struct resource_type *svcs = resource_type_find("services");
    char *k;

    k = resource_type_ns_prefix(pods, NULL);
    assert_string_equal(k, "/registry/pods/");
    free(k);
    k = resource_type_ns_prefix(pods, "kube-system");
    assert_string_equal(k, "/registry/pods/kube-system/");
    free(k);
    k = resource_type_key(pods, "kube-system", "dns-0");
    assert_string_equal(k, "/registry/pods/kube-system/dns-0");
    free(k);
    k = resource_type_key(nodes, NULL, "n1");
    assert_string_equal(k, "/registry/minions/n1");
    free(k);
    k = resource_type_key(svcs, "default", "kubernetes");
    assert_string_equal(k, "/registry/services/specs/default/kubernetes");
    free(k);
}

static bool split(const struct resource_type *rt, const char *key,
                  struct resource_key *out)
{
    return resource_type_key_split(rt, key, strlen(key), out);
}

/* The layout read back: namespace and name, and the keys it refuses. */
static void test_key_split(void **state)
{
    const struct resource_type *pods = resource_type_find("pods");
    const struct resource_type *nodes = resource_type_find("nodes");
    struct resource_key k;

    assert_true(split(pods, "/registry/pods/ns1/p-0", &k));
    assert_int_equal(k.ns_len, 3);
    assert_memory_equal(k.ns, "ns1", 3);
    assert_int_equal(k.name_len, 3);
    assert_memory_equal(k.name, "p-0", 3);
    assert_true(split(nodes, "/registry/minions/n1", &k));
    assert_int_equal(k.ns_len, 0);
    assert_int_equal(k.name_len, 2);
    assert_false(split(pods, "/registry/pods/", &k));
    assert_false(split(pods, "/registry/pods/ns1", &k));
    assert_false(split(pods, "/registry/pods/ns1/", &k));
    assert_false(split(pods, "/registry/pods//p", &k));
    assert_false(split(pods, "/registry/pods/a/b/c", &k));
    assert_false(split(pods, "/registry/podsx/a/b", &k));
    assert_false(split(nodes, "/registry/minions/a/b", &k));
    assert_false(
        resource_type_key_split(pods, "/registry/pods/a/b\0c", 20, &k));
}

static void test_field_ids(void **state)
{
    const struct resource_type *pods = resource_type_find("pods");
    const struct resource_type *nodes = resource_type_find("nodes");
    const struct resource_type *cms = resource_type_find("configmaps");
    const struct resource_type *events = resource_type_find("events");

    assert_int_equal(resource_type_field_id(pods, "metadata.name"), FIELD_NAME);
    assert_int_equal(resource_type_field_id(pods, "metadata.namespace"),
                     FIELD_NAMESPACE);
    assert_int_equal(resource_type_field_id(pods, "spec.nodeName"),
                     FIELD_EXTRA + 0);
    assert_int_equal(resource_type_field_id(pods, "status.phase"),
                     FIELD_EXTRA + 5);
    /* The eighth field fills the array: no NULL terminator to rely on. */
    assert_int_equal(resource_type_field_id(pods, "status.nominatedNodeName"),
                     FIELD_EXTRA + 7);
    assert_int_equal(resource_type_nfields(pods), 8);
    assert_int_equal(pods->indexed_field, 0);
    assert_int_equal(resource_type_field_id(pods, "spec.nope"), -1);
    assert_int_equal(resource_type_field_id(pods, "metadata.name "), -1);
    assert_int_equal(resource_type_field_id(pods, ""), -1);

    /* Cluster-scoped types have no metadata.namespace field. */
    assert_int_equal(resource_type_field_id(nodes, "metadata.name"),
                     FIELD_NAME);
    assert_int_equal(resource_type_field_id(nodes, "metadata.namespace"), -1);
    assert_int_equal(resource_type_field_id(nodes, "spec.unschedulable"),
                     FIELD_EXTRA);

    assert_int_equal(resource_type_nfields(cms), 0);
    assert_int_equal(resource_type_field_id(cms, "spec.nodeName"), -1);
    assert_int_equal(cms->indexed_field, -1);
    /* the apiserver's event GetAttrs, every field */
    assert_int_equal(resource_type_nfields(events), 11);
    {
        static const char *const event_fields[] = {
            "involvedObject.kind",       "involvedObject.namespace",
            "involvedObject.name",       "involvedObject.uid",
            "involvedObject.apiVersion", "involvedObject.resourceVersion",
            "involvedObject.fieldPath",  "reason",
            "reportingComponent",        "source",
            "type",
        };

        for (size_t i = 0; i < RW_ARRAY_LEN(event_fields); i++)
            if (resource_type_field_id(events, event_fields[i]) < FIELD_EXTRA)
                fail_msg("events: no field selector %s", event_fields[i]);
    }
    assert_int_equal(resource_type_field_id(events, "involvedObject.uid"),
                     FIELD_EXTRA + 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_spellings),
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_keys),
        cmocka_unit_test(test_key_split),
        cmocka_unit_test(test_field_ids),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
