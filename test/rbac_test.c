/*
 * rbac_test.c: the RBAC evaluator (src/rbac.c) and the parse of RBAC
 * objects (src/rbac_object.c), against the rules of the apiserver's
 * rbac.go and evaluation_helpers.go: verbs, apiGroups, resources with
 * "*", "*" then "/sub" and subresources, resourceNames, nonResourceURLs
 * with the trailing "*", the three subject kinds, RoleBindings to Roles
 * and ClusterRoles, aggregation, system:masters, the not-found reason,
 * and malformed objects refused; the rules that apply to a user in a
 * namespace (rbac_rules, RulesFor), with the missing roles' error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "src/authz.h"
#include "src/identity.h"
#include "src/rbac.h"
#include "src/rbac_object.h"

#define MAX_OBJECTS 32

/* An index over objects given as JSON. */
struct fixture {
    struct rbac_object *objs[MAX_OBJECTS];
    size_t n;
    struct rbac *x;
};

static void add(struct fixture *f, enum rbac_kind kind, const char *json)
{
    char why[256];

    assert_true(f->n < MAX_OBJECTS);
    if (rbac_object_parse(kind, json, strlen(json), &f->objs[f->n], why,
                          sizeof(why)) != RW_OK)
        fail_msg("%s: %s", json, why);
    f->n++;
}

static void build(struct fixture *f)
{
    f->x = rbac_new();
    for (size_t i = 0; i < f->n; i++)
        rbac_add(f->x, f->objs[i]);
    rbac_build(f->x);
}

static void fini(struct fixture *f)
{
    rbac_free(f->x);
    for (size_t i = 0; i < f->n; i++)
        rbac_object_free(f->objs[i]);
    memset(f, 0, sizeof(*f));
}

/* A ClusterRole name with rules (a JSON array). */
static void cluster_role(struct fixture *f, const char *name, const char *rules)
{
    char *j =
        xasprintf("{\"metadata\":{\"name\":\"%s\"},\"rules\":%s}", name, rules);

    add(f, RBAC_CLUSTERROLE, j);
    free(j);
}

/* A ClusterRoleBinding of subjects (a JSON array) to ClusterRole role. */
static void cluster_binding(struct fixture *f, const char *role,
                            const char *subjects)
{
    char *j = xasprintf("{\"metadata\":{\"name\":\"b-%s-%zu\"},\"roleRef\":{"
                        "\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":"
                        "\"ClusterRole\",\"name\":\"%s\"},\"subjects\":%s}",
                        role, f->n, role, subjects);

    add(f, RBAC_CLUSTERROLEBINDING, j);
    free(j);
}

/* A RoleBinding in ns of subjects to role (kind Role or ClusterRole). */
static void role_binding(struct fixture *f, const char *ns, const char *kind,
                         const char *role, const char *subjects)
{
    char *j = xasprintf("{\"metadata\":{\"name\":\"rb%zu\",\"namespace\":"
                        "\"%s\"},\"roleRef\":{\"kind\":\"%s\",\"name\":"
                        "\"%s\"},\"subjects\":%s}",
                        f->n, ns, kind, role, subjects);

    add(f, RBAC_ROLEBINDING, j);
    free(j);
}

#define ALICE "[{\"kind\":\"User\",\"name\":\"alice\"}]"

static struct identity *user(const char *name, const char *group)
{
    struct identity *id = identity_new(IDENTITY_TOKEN_FILE, name, NULL);

    if (group != NULL)
        identity_add_group(id, group);
    identity_add_group(id, IDENTITY_AUTHENTICATED);
    return id;
}

static struct authz_attributes res(const char *verb, const char *group,
                                   const char *resource, const char *sub,
                                   const char *ns, const char *name)
{
    return (struct authz_attributes){.verb = verb,
                                     .resource_request = true,
                                     .api_group = group,
                                     .api_version = "v1",
                                     .resource = resource,
                                     .subresource = sub,
                                     .ns = ns,
                                     .name = name,
                                     .path = ""};
}

static struct authz_attributes path(const char *verb, const char *p)
{
    return (struct authz_attributes){.verb = verb, .path = p};
}

static bool allows(const struct fixture *f, const struct identity *id,
                   struct authz_attributes a)
{
    char reason[512];

    return rbac_allows(f->x, id, &a, reason, sizeof(reason));
}

/* Whether alice may do a under the one ClusterRole rules, bound to her
 * cluster-wide. */
static bool rule_allows(const char *rules, struct authz_attributes a)
{
    struct fixture f = {0};
    struct identity *alice = user("alice", NULL);
    bool ok;

    cluster_role(&f, "r", rules);
    cluster_binding(&f, "r", ALICE);
    build(&f);
    ok = allows(&f, alice, a);
    identity_unref(alice);
    fini(&f);
    return ok;
}

static void test_verbs_groups_resources(void **state)
{
    const char *pods = "[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],"
                       "\"resources\":[\"pods\"]}]";
    const char *star = "[{\"verbs\":[\"*\"],\"apiGroups\":[\"*\"],"
                       "\"resources\":[\"*\"]}]";

    (void)state;
    assert_true(rule_allows(pods, res("list", "", "pods", "", "", "")));
    assert_true(rule_allows(pods, res("get", "", "pods", "", "ns", "x")));
    assert_false(rule_allows(pods, res("watch", "", "pods", "", "", "")));
    assert_false(rule_allows(pods, res("list", "apps", "pods", "", "", "")));
    assert_false(rule_allows(pods, res("list", "", "secrets", "", "", "")));
    assert_false(rule_allows(pods, path("get", "/healthz")));
    assert_true(
        rule_allows(star, res("watch", "apps", "deployments", "", "", "")));
    assert_true(rule_allows(star, res("get", "", "pods", "log", "n", "x")));
    /* "*" in resources does not grant non-resource paths */
    assert_false(rule_allows(star, path("get", "/metrics")));
    /* an empty rule grants nothing */
    assert_false(rule_allows("[{}]", res("get", "", "pods", "", "", "")));
}

static void test_subresources(void **state)
{
    const char *log = "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
                      "\"resources\":[\"pods/log\"]}]";
    const char *any_log = "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
                          "\"resources\":[\"*/log\"]}]";
    const char *pods_star = "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
                            "\"resources\":[\"pods/*\",\"pods\"]}]";

    (void)state;
    assert_true(rule_allows(log, res("get", "", "pods", "log", "n", "x")));
    assert_false(rule_allows(log, res("get", "", "pods", "", "n", "x")));
    assert_true(rule_allows(any_log, res("get", "", "nodes", "log", "", "x")));
    assert_false(
        rule_allows(any_log, res("get", "", "pods", "exec", "n", "x")));
    assert_false(rule_allows(any_log, res("get", "", "pods", "", "n", "x")));
    /* a bare resource never grants its subresources, and "pods/" then a
     * star is a literal, as evaluation_helpers.go compares it */
    assert_true(rule_allows(pods_star, res("get", "", "pods", "", "n", "x")));
    assert_false(
        rule_allows(pods_star, res("get", "", "pods", "log", "n", "x")));
}

static void test_resource_names(void **state)
{
    const char *x = "[{\"verbs\":[\"get\",\"list\",\"watch\"],\"apiGroups\":"
                    "[\"\"],\"resources\":[\"configmaps\"],\"resourceNames\":"
                    "[\"x\",\"z\"]}]";

    (void)state;
    assert_true(rule_allows(x, res("get", "", "configmaps", "", "n", "x")));
    assert_true(rule_allows(x, res("get", "", "configmaps", "", "n", "z")));
    assert_false(rule_allows(x, res("get", "", "configmaps", "", "n", "y")));
    /* a collection has no name */
    assert_false(rule_allows(x, res("list", "", "configmaps", "", "n", "")));
    /* a list or watch pinned by fieldSelector metadata.name=x */
    assert_true(rule_allows(x, res("list", "", "configmaps", "", "n", "x")));
    assert_true(rule_allows(x, res("watch", "", "configmaps", "", "", "x")));
}

static void test_non_resource_urls(void **state)
{
    const char *urls = "[{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz"
                       "\",\"/apis/*\",\"/metric*\"]}]";

    (void)state;
    assert_true(rule_allows(urls, path("get", "/healthz")));
    assert_false(rule_allows(urls, path("get", "/healthz/etcd")));
    assert_false(rule_allows(urls, path("head", "/healthz")));
    assert_true(rule_allows(urls, path("get", "/apis/apps/v1")));
    assert_true(rule_allows(urls, path("get", "/apis/")));
    assert_false(rule_allows(urls, path("get", "/apis")));
    assert_true(rule_allows(urls, path("get", "/metrics")));
    assert_true(rule_allows(urls, path("get", "/metric")));
    assert_true(rule_allows("[{\"verbs\":[\"get\"],\"nonResourceURLs\":"
                            "[\"*\"]}]",
                            path("get", "/anything")));
    /* nonResourceURLs do not grant resources */
    assert_false(rule_allows("[{\"verbs\":[\"*\"],\"nonResourceURLs\":"
                             "[\"*\"]}]",
                             res("get", "", "pods", "", "", "")));
}

static void test_subjects(void **state)
{
    struct fixture f = {0};
    struct identity *sa = user("system:serviceaccount:ns1:builder", NULL);
    struct identity *sa2 = user("system:serviceaccount:ns2:builder", NULL);
    struct identity *ops = user("bob", "ops");
    struct identity *alice = user("alice", NULL);
    struct identity *anon = identity_anonymous();

    (void)state;
    cluster_role(&f, "read",
                 "[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],"
                 "\"resources\":[\"pods\"]}]");
    cluster_binding(&f, "read", "[{\"kind\":\"Group\",\"name\":\"ops\"}]");
    /* a ServiceAccount subject without a namespace in a
     * ClusterRoleBinding matches nobody */
    cluster_binding(&f, "read",
                    "[{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}]");
    /* ... in a RoleBinding, the binding's namespace */
    role_binding(&f, "ns1", "ClusterRole", "read",
                 "[{\"kind\":\"ServiceAccount\",\"name\":\"builder\"}]");
    role_binding(&f, "ns3", "ClusterRole", "read",
                 "[{\"kind\":\"ServiceAccount\",\"name\":\"builder\","
                 "\"namespace\":\"ns2\"},{\"kind\":\"Group\",\"name\":"
                 "\"system:unauthenticated\"}]");
    build(&f);
    assert_true(allows(&f, ops, res("list", "", "pods", "", "", "")));
    assert_true(allows(&f, ops, res("list", "", "pods", "", "any", "")));
    assert_false(allows(&f, alice, res("list", "", "pods", "", "ns1", "")));
    assert_false(allows(&f, sa, res("list", "", "pods", "", "", "")));
    assert_true(allows(&f, sa, res("list", "", "pods", "", "ns1", "")));
    assert_false(allows(&f, sa, res("list", "", "pods", "", "ns3", "")));
    assert_true(allows(&f, sa2, res("list", "", "pods", "", "ns3", "")));
    assert_false(allows(&f, sa2, res("list", "", "pods", "", "ns1", "")));
    assert_true(allows(&f, anon, res("list", "", "pods", "", "ns3", "")));
    assert_false(allows(&f, anon, res("list", "", "pods", "", "ns1", "")));
    /* a user named like the group is not in it */
    identity_unref(alice);
    alice = user("ops", NULL);
    assert_false(allows(&f, alice, res("list", "", "pods", "", "", "")));
    identity_unref(sa);
    identity_unref(sa2);
    identity_unref(ops);
    identity_unref(alice);
    identity_unref(anon);
    fini(&f);
}

static void test_role_bindings(void **state)
{
    struct fixture f = {0};
    struct identity *alice = user("alice", NULL);
    char reason[512];
    struct authz_attributes a;

    (void)state;
    add(&f, RBAC_ROLE,
        "{\"metadata\":{\"name\":\"cm\",\"namespace\":\"a\"},\"rules\":[{"
        "\"verbs\":[\"get\"],\"apiGroups\":[\"\"],\"resources\":"
        "[\"configmaps\"]}]}");
    cluster_role(&f, "pods",
                 "[{\"verbs\":[\"get\"],\"apiGroups\":[\"\"],"
                 "\"resources\":[\"pods\"]}]");
    role_binding(&f, "a", "Role", "cm", ALICE);
    /* a Role of another namespace is not found */
    role_binding(&f, "b", "Role", "cm", ALICE);
    /* a RoleBinding to a ClusterRole grants in its namespace only */
    role_binding(&f, "a", "ClusterRole", "pods", ALICE);
    build(&f);
    assert_true(allows(&f, alice, res("get", "", "configmaps", "", "a", "x")));
    assert_false(allows(&f, alice, res("get", "", "configmaps", "", "", "x")));
    assert_true(allows(&f, alice, res("get", "", "pods", "", "a", "x")));
    assert_false(allows(&f, alice, res("get", "", "pods", "", "c", "x")));
    assert_false(allows(&f, alice, res("get", "", "pods", "", "", "x")));
    a = res("get", "", "configmaps", "", "b", "x");
    assert_false(rbac_allows(f.x, alice, &a, reason, sizeof(reason)));
    assert_string_equal(
        reason, "RBAC: role.rbac.authorization.k8s.io \"cm\" not found");
    identity_unref(alice);
    fini(&f);
}

static void test_missing_reason(void **state)
{
    struct fixture f = {0};
    struct identity *alice = user("alice", "team");
    struct identity *bob = user("bob", NULL);
    struct authz_attributes a = res("list", "", "pods", "", "ns", "");
    char reason[512];

    (void)state;
    cluster_binding(&f, "gone", ALICE);
    cluster_binding(&f, "gone", "[{\"kind\":\"Group\",\"name\":\"team\"}]");
    role_binding(&f, "ns", "ClusterRole", "lost", ALICE);
    role_binding(&f, "other", "ClusterRole", "elsewhere", ALICE);
    build(&f);
    assert_false(rbac_allows(f.x, alice, &a, reason, sizeof(reason)));
    /* each error once, in the order visited (utilerrors.NewAggregate) */
    assert_string_equal(
        reason, "RBAC: [clusterrole.rbac.authorization.k8s.io \"gone\" not "
                "found, clusterrole.rbac.authorization.k8s.io \"lost\" not "
                "found]");
    /* bindings that do not apply say nothing */
    assert_false(rbac_allows(f.x, bob, &a, reason, sizeof(reason)));
    assert_string_equal(reason, "");
    identity_unref(alice);
    identity_unref(bob);
    fini(&f);
}

/* The longest reason RBAC writes, 16 missing roles of 253-byte names,
 * fits in AUTHZ_REASON_MAX, the buffer its callers give it. */
static void test_missing_reason_fits(void **state)
{
    struct fixture f = {0};
    struct identity *alice = user("alice", NULL);
    struct authz_attributes a = res("list", "", "pods", "", "ns", "");
    char name[254], reason[AUTHZ_REASON_MAX];

    (void)state;
    memset(name, 'r', 253);
    name[253] = '\0';
    for (int i = 0; i < 16; i++) {
        name[0] = (char)('a' + i);
        role_binding(&f, "ns", "ClusterRole", name, ALICE);
    }
    build(&f);
    assert_false(rbac_allows(f.x, alice, &a, reason, sizeof(reason)));
    assert_int_equal(strlen(reason),
                     strlen("RBAC: []") +
                         16 * strlen("clusterrole.rbac.authorization.k8s.io "
                                     "\"\" not found") +
                         16 * 253 + 15 * strlen(", "));
    assert_string_equal(reason + strlen(reason) - 12, "\" not found]");
    identity_unref(alice);
    fini(&f);
}

static void test_aggregation(void **state)
{
    struct fixture f = {0};
    struct identity *alice = user("alice", NULL), *bob = user("bob", NULL);

    (void)state;
    /* stored rules of an aggregated role are the controller's to
     * replace: the union of what its selectors select counts */
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"agg\"},\"aggregationRule\":{"
        "\"clusterRoleSelectors\":[{\"matchLabels\":{\"agg\":\"yes\"}},"
        "{\"matchExpressions\":[{\"key\":\"tier\",\"operator\":\"In\","
        "\"values\":[\"a\",\"b\"]},{\"key\":\"skip\",\"operator\":"
        "\"DoesNotExist\"}]}]},\"rules\":[{\"verbs\":[\"get\"],"
        "\"apiGroups\":[\"\"],\"resources\":[\"stale\"]}]}");
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"p1\",\"labels\":{\"agg\":\"yes\"}},"
        "\"rules\":[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"pods\"]}]}");
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"p2\",\"labels\":{\"tier\":\"b\"}},"
        "\"rules\":[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"nodes\"]}]}");
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"p3\",\"labels\":{\"tier\":\"a\",\"skip\":"
        "\"1\"}},\"rules\":[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"secrets\"]}]}");
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"p4\",\"labels\":{\"agg\":\"no\"}},"
        "\"rules\":[{\"verbs\":[\"list\"],\"apiGroups\":[\"\"],"
        "\"resources\":[\"services\"]}]}");
    /* nested: top selects agg, which selects p1 and p2; and top itself */
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"top\",\"labels\":{\"top\":\"1\"}},"
        "\"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchExpressions\":"
        "[{\"key\":\"top\",\"operator\":\"Exists\"}]},{\"matchExpressions\":["
        "{\"key\":\"nested\",\"operator\":\"NotIn\",\"values\":[\"no\"]},"
        "{\"key\":\"nested\",\"operator\":\"Exists\"}]}]}}");
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"agg2\",\"labels\":{\"nested\":\"yes\"}},"
        "\"aggregationRule\":{\"clusterRoleSelectors\":[{\"matchLabels\":{"
        "\"agg\":\"yes\"}},{\"matchLabels\":{\"top\":\"1\"}}]}}");
    cluster_binding(&f, "agg", ALICE);
    role_binding(&f, "ns", "ClusterRole", "top",
                 "[{\"kind\":\"User\",\"name\":\"bob\"}]");
    build(&f);
    assert_true(allows(&f, alice, res("list", "", "pods", "", "", "")));
    assert_true(allows(&f, alice, res("list", "", "nodes", "", "", "")));
    assert_false(allows(&f, alice, res("list", "", "secrets", "", "", "")));
    assert_false(allows(&f, alice, res("list", "", "services", "", "", "")));
    assert_false(allows(&f, alice, res("get", "", "stale", "", "", "")));
    /* top -> agg2 -> p1 (agg2 also selects top: the cycle ends) */
    assert_true(allows(&f, bob, res("list", "", "pods", "", "ns", "")));
    assert_false(allows(&f, bob, res("list", "", "pods", "", "ns2", "")));
    assert_false(allows(&f, bob, res("list", "", "nodes", "", "ns", "")));
    identity_unref(alice);
    identity_unref(bob);
    fini(&f);

    /* an empty selector selects every other ClusterRole */
    alice = user("alice", NULL);
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"all\"},\"aggregationRule\":{"
        "\"clusterRoleSelectors\":[{}]}}");
    cluster_role(&f, "q",
                 "[{\"verbs\":[\"watch\"],\"apiGroups\":[\"\"],"
                 "\"resources\":[\"pods\"]}]");
    cluster_binding(&f, "all", ALICE);
    build(&f);
    assert_true(allows(&f, alice, res("watch", "", "pods", "", "", "")));
    identity_unref(alice);
    fini(&f);
}

static void test_masters(void **state)
{
    struct fixture f = {0};
    struct identity *root = user("root", IDENTITY_MASTERS);

    (void)state;
    build(&f);
    assert_true(allows(&f, root, res("delete", "x", "y", "z", "n", "w")));
    assert_true(allows(&f, root, path("get", "/metrics")));
    identity_unref(root);
    fini(&f);
}

/* Appends a rule to the sbuf arg as "verbs resources urls names;" (each
 * list joined by ","). */
static void collect_cb(const struct rbac_rule *r, void *arg)
{
    struct sbuf *b = arg;
    const struct rbac_strings *lists[] = {
        &r->verbs, &r->resources, &r->non_resource_urls, &r->resource_names};

    for (size_t l = 0; l < RW_ARRAY_LEN(lists); l++)
        for (size_t i = 0; i < lists[l]->n; i++)
            sbuf_addf(b, "%s%s", i ? "," : (l ? " " : ""), lists[l]->v[i]);
    sbuf_add(b, ";");
}

/* rbac_rules of id in ns, as collect_cb writes them, equal to want, with
 * the error want_error. */
static void rules_are(const struct fixture *f, const struct identity *id,
                      const char *ns, const char *want, const char *want_error)
{
    struct sbuf b = {0};
    char error[512] = "x";

    rbac_rules(f->x, id, ns, collect_cb, &b, error, sizeof(error));
    assert_string_equal(b.data != NULL ? b.data : "", want);
    assert_string_equal(error, want_error);
    sbuf_fini(&b);
}

static void test_rules(void **state)
{
    struct fixture f = {0};
    struct identity *alice = user("alice", "team");
    struct identity *root = user("root", IDENTITY_MASTERS);

    (void)state;
    cluster_role(&f, "viewer",
                 "[{\"verbs\":[\"get\",\"list\"],\"apiGroups\":[\"\"],"
                 "\"resources\":[\"pods\"],\"resourceNames\":[\"x\"]},"
                 "{\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\"]}]");
    cluster_binding(&f, "viewer", "[{\"kind\":\"Group\",\"name\":\"team\"}]");
    /* an aggregated ClusterRole: its source's rules */
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"agg\"},\"aggregationRule\":{"
        "\"clusterRoleSelectors\":[{\"matchLabels\":{\"a\":\"1\"}}]}}");
    add(&f, RBAC_CLUSTERROLE,
        "{\"metadata\":{\"name\":\"src\",\"labels\":{\"a\":\"1\"}},"
        "\"rules\":[{\"verbs\":[\"watch\"],\"apiGroups\":[\"apps\"],"
        "\"resources\":[\"deployments\"]}]}");
    cluster_binding(&f, "agg", ALICE);
    cluster_binding(&f, "gone", ALICE);
    /* a role in dev, another in prod; a binding for someone else */
    add(&f, RBAC_ROLE,
        "{\"metadata\":{\"name\":\"cm\",\"namespace\":\"dev\"},\"rules\":"
        "[{\"verbs\":[\"*\"],\"apiGroups\":[\"\"],\"resources\":"
        "[\"configmaps\"]}]}");
    role_binding(&f, "dev", "Role", "cm", ALICE);
    role_binding(&f, "dev", "Role", "lost", ALICE);
    role_binding(&f, "prod", "ClusterRole", "viewer", ALICE);
    role_binding(&f, "dev", "ClusterRole", "viewer",
                 "[{\"kind\":\"User\",\"name\":\"bob\"}]");
    build(&f);
    /* the ClusterRoleBindings' in name order (b-agg, b-gone, b-viewer),
     * then dev's RoleBindings' */
    rules_are(&f, alice, "dev",
              "watch deployments;get,list pods x;get /healthz;*"
              " configmaps;",
              "[clusterrole.rbac.authorization.k8s.io \"gone\" not found, "
              "role.rbac.authorization.k8s.io \"lost\" not found]");
    rules_are(&f, alice, "prod",
              "watch deployments;get,list pods x;get /healthz;get,list pods "
              "x;get /healthz;",
              "clusterrole.rbac.authorization.k8s.io \"gone\" not found");
    /* no namespace: the cluster's only */
    rules_are(&f, alice, "", "watch deployments;get,list pods x;get /healthz;",
              "clusterrole.rbac.authorization.k8s.io \"gone\" not found");
    /* system:masters resolves no rules of its own */
    rules_are(&f, root, "dev", "", "");
    identity_unref(alice);
    identity_unref(root);
    fini(&f);
}

/* kind's parse of json fails, saying want. */
static void refused(enum rbac_kind kind, const char *json, const char *want)
{
    struct rbac_object *o = (struct rbac_object *)1;
    char why[256] = "";

    assert_int_equal(
        rbac_object_parse(kind, json, strlen(json), &o, why, sizeof(why)),
        RW_EINVAL);
    assert_null(o);
    if (strstr(why, want) == NULL)
        fail_msg("%s: %s, not %s", json, why, want);
}

static void test_malformed(void **state)
{
    (void)state;
    refused(RBAC_ROLE, "{not json", "not JSON");
    refused(RBAC_ROLE, "", "not JSON");
    refused(RBAC_ROLE, "[1]", "not a JSON object");
    refused(RBAC_ROLE, "{\"metadata\":[]}", "metadata");
    refused(RBAC_ROLE, "{\"metadata\":{\"name\":7}}", "name");
    refused(RBAC_ROLE, "{\"rules\":{}}", "rules");
    refused(RBAC_ROLE, "{\"rules\":[\"get\"]}", "rules");
    refused(RBAC_ROLE, "{\"rules\":[{\"verbs\":\"get\"}]}", "verbs");
    refused(RBAC_ROLE, "{\"rules\":[{\"verbs\":[1]}]}", "verbs");
    refused(RBAC_CLUSTERROLE, "{\"rules\":[{\"nonResourceURLs\":[true]}]}",
            "nonResourceURLs");
    refused(RBAC_CLUSTERROLE, "{\"aggregationRule\":[]}", "aggregationRule");
    refused(RBAC_CLUSTERROLE,
            "{\"aggregationRule\":{\"clusterRoleSelectors\":[{"
            "\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Is\"}]}]}}",
            "not a valid label selector operator");
    refused(RBAC_CLUSTERROLE,
            "{\"aggregationRule\":{\"clusterRoleSelectors\":[{"
            "\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"In\"}]}]}}",
            "non-empty");
    refused(RBAC_CLUSTERROLE,
            "{\"aggregationRule\":{\"clusterRoleSelectors\":[{"
            "\"matchLabels\":{\"a\":1}}]}}",
            "matchLabels");
    refused(RBAC_CLUSTERROLE, "{\"metadata\":{\"labels\":{\"a\":[]}}}",
            "labels");
    refused(RBAC_ROLEBINDING, "{\"subjects\":[]}", "roleRef");
    refused(RBAC_ROLEBINDING,
            "{\"roleRef\":{\"kind\":\"Group\",\"name\":\"x\"}}",
            "roleRef.kind");
    refused(RBAC_CLUSTERROLEBINDING,
            "{\"roleRef\":{\"kind\":\"Role\",\"name\":\"x\"}}", "roleRef.kind");
    refused(RBAC_ROLEBINDING,
            "{\"roleRef\":{\"kind\":\"Role\",\"name\":\"x\"},\"subjects\":"
            "[{\"kind\":\"Robot\",\"name\":\"r\"}]}",
            "unknown kind \"Robot\"");
    refused(RBAC_ROLEBINDING,
            "{\"roleRef\":{\"kind\":\"Role\",\"name\":\"x\"},\"subjects\":"
            "{\"kind\":\"User\",\"name\":\"r\"}}",
            "subjects");
    refused(RBAC_ROLEBINDING,
            "{\"roleRef\":{\"kind\":\"Role\",\"name\":\"x\"},\"subjects\":"
            "[{\"kind\":\"User\",\"name\":[\"r\"]}]}",
            "name");
}

static void test_lenient(void **state)
{
    struct rbac_object *o;
    const char *json =
        "{\"metadata\":{\"name\":\"a\",\"name\":\"b\",\"labels\":null},"
        "\"rules\":null,\"aggregationRule\":null,\"kind\":\"ClusterRole\"}";
    char why[256];

    (void)state;
    /* null reads as absent; the last of a repeated member wins */
    assert_int_equal(rbac_object_parse(RBAC_CLUSTERROLE, json, strlen(json), &o,
                                       why, sizeof(why)),
                     RW_OK);
    assert_string_equal(o->name, "b");
    assert_int_equal(o->nrules, 0);
    assert_false(o->aggregated);
    rbac_object_free(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verbs_groups_resources),
        cmocka_unit_test(test_subresources),
        cmocka_unit_test(test_resource_names),
        cmocka_unit_test(test_non_resource_urls),
        cmocka_unit_test(test_subjects),
        cmocka_unit_test(test_role_bindings),
        cmocka_unit_test(test_missing_reason),
        cmocka_unit_test(test_missing_reason_fits),
        cmocka_unit_test(test_aggregation),
        cmocka_unit_test(test_masters),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_lenient),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
