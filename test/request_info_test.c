/*
 * request_info_test.c: a request's authorization attributes
 * (src/request_info.c) as the apiserver's RequestInfoFactory reads them,
 * and the 403 messages and Status (src/authz.c) the apiserver writes for
 * them; --authorization-mode values.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rbuf.h"
#include "cache/rw.h"
#include "src/authz.h"
#include "src/request_info.h"

/* The attributes of method path?query as "verb group/version resource
 * sub ns name" (resource requests) or "verb path". */
static void expect(const char *method, const char *path, const char *query,
                   const char *want)
{
    struct request req = {.method = STREAM_GET,
                          .method_name = method,
                          .path = path,
                          .query = query};
    struct request_info ri;
    const struct authz_attributes *a = &ri.a;
    char got[512];

    if (strcmp(method, "HEAD") == 0)
        req.method = STREAM_HEAD;
    else if (strcmp(method, "POST") == 0)
        req.method = STREAM_POST;
    else if (strcmp(method, "DELETE") == 0)
        req.method = STREAM_DELETE;
    request_info_init(&ri, &req);
    if (a->resource_request)
        snprintf(got, sizeof(got), "%s %s/%s %s %s %s %s", a->verb,
                 a->api_group, a->api_version, a->resource, a->subresource,
                 a->ns, a->name);
    else
        snprintf(got, sizeof(got), "%s %s", a->verb, a->path);
    request_info_fini(&ri);
    if (strcmp(got, want) != 0)
        fail_msg("%s %s?%s: got \"%s\", want \"%s\"", method, path, query, got,
                 want);
}

static void test_resource_requests(void **state)
{
    (void)state;
    expect("GET", "/api/v1/pods", "", "list /v1 pods   ");
    expect("GET", "/api/v1/namespaces/ns/pods", "", "list /v1 pods  ns ");
    expect("GET", "/api/v1/namespaces/ns/pods/x", "", "get /v1 pods  ns x");
    expect("HEAD", "/api/v1/namespaces/ns/pods/x", "", "get /v1 pods  ns x");
    expect("GET", "/api/v1/namespaces/ns/pods/x/log", "",
           "get /v1 pods log ns x");
    expect("GET", "/api/v1/namespaces/ns/pods/x/proxy/a/b/c/d/e/f", "",
           "get /v1 pods proxy ns x");
    expect("GET", "/api/v1/namespaces/ns/pods/x/%zz", "",
           "get /api/v1/namespaces/ns/pods/x/%zz");
    expect("GET", "/apis/apps/v1/deployments", "watch=true",
           "watch apps/v1 deployments   ");
    expect("GET", "/api/v1/pods", "watch=1", "watch /v1 pods   ");
    expect("GET", "/api/v1/pods", "watch", "watch /v1 pods   ");
    expect("GET", "/api/v1/pods", "watch=false", "list /v1 pods   ");
    expect("GET", "/api/v1/pods", "watch=FALSE&watch=1", "list /v1 pods   ");
    expect("GET", "/api/v1/pods", "watch=0", "list /v1 pods   ");
    expect("GET", "/api/v1/watch/pods", "", "watch /v1 pods   ");
    expect("GET", "/api/v1/watch/namespaces/ns/pods/x", "",
           "watch /v1 pods  ns x");
    /* a named GET stays get, watch or not */
    expect("GET", "/api/v1/namespaces/ns/pods/x", "watch=1",
           "get /v1 pods  ns x");
    /* the namespace object itself */
    expect("GET", "/api/v1/namespaces/ns", "", "get /v1 namespaces  ns ns");
    expect("GET", "/api/v1/namespaces/ns/status", "",
           "get /v1 namespaces status ns ns");
    expect("GET", "/api/v1/namespaces", "", "list /v1 namespaces   ");
    /* trailing and doubled slashes as splitPath leaves them */
    expect("GET", "/api/v1/pods/", "", "list /v1 pods   ");
    /* escapes are decoded */
    expect("GET", "/api/v1/namespaces/n%73/pods", "", "list /v1 pods  ns ");
    expect("POST", "/api/v1/namespaces/ns/configmaps", "",
           "create /v1 configmaps  ns ");
    expect("DELETE", "/api/v1/namespaces/ns/configmaps", "",
           "deletecollection /v1 configmaps  ns ");
    expect("DELETE", "/api/v1/namespaces/ns/configmaps/x", "",
           "delete /v1 configmaps  ns x");
}

static void test_field_selector_name(void **state)
{
    (void)state;
    expect("GET", "/api/v1/pods", "fieldSelector=metadata.name%3Dx",
           "list /v1 pods   x");
    expect("GET", "/api/v1/namespaces/ns/pods",
           "watch=1&fieldSelector=spec.nodeName%3Dn,metadata.name%3D%3Dx",
           "watch /v1 pods  ns x");
    expect("GET", "/api/v1/pods", "fieldSelector=metadata.name!%3Dx",
           "list /v1 pods   ");
    expect("GET", "/api/v1/pods", "fieldSelector=metadata.name%3D..",
           "list /v1 pods   ");
    expect("GET", "/api/v1/pods", "fieldSelector=metadata.name%3Da%25b",
           "list /v1 pods   ");
    expect("GET", "/api/v1/pods", "fieldSelector=metadata.name",
           "list /v1 pods   ");
    /* a named GET keeps its name */
    expect("GET", "/api/v1/namespaces/ns/pods/x",
           "fieldSelector=metadata.name%3Dy", "get /v1 pods  ns x");
}

static void test_non_resource_requests(void **state)
{
    (void)state;
    expect("GET", "/metrics", "", "get /metrics");
    expect("HEAD", "/healthz", "", "head /healthz");
    expect("GET", "/api", "", "get /api");
    expect("GET", "/api/v1", "", "get /api/v1");
    expect("GET", "/apis/apps/v1", "", "get /apis/apps/v1");
    expect("GET", "/apis/apps", "", "get /apis/apps");
    expect("GET", "/openapi/v2", "", "get /openapi/v2");
    expect("POST", "/version", "", "post /version");
    expect("GET", "/", "", "get /");
}

static void message(const struct authz_attributes *a, const char *want)
{
    struct identity *id = identity_new(IDENTITY_X509, "alice", NULL);
    char got[512];

    authz_forbidden_message(id, a, got, sizeof(got));
    assert_string_equal(got, want);
    identity_unref(id);
}

static void test_messages(void **state)
{
    struct authz_attributes a = {.verb = "list",
                                 .resource_request = true,
                                 .api_group = "",
                                 .api_version = "v1",
                                 .resource = "pods",
                                 .subresource = "",
                                 .ns = "default",
                                 .name = "",
                                 .path = "/api/v1/namespaces/default/pods"};
    struct identity *id = identity_new(IDENTITY_X509, "al\"ice", NULL);
    struct rbuf *b;

    (void)state;
    message(&a, "pods is forbidden: User \"alice\" cannot list resource "
                "\"pods\" in API group \"\" in the namespace \"default\"");
    a.ns = "";
    message(&a, "pods is forbidden: User \"alice\" cannot list resource "
                "\"pods\" in API group \"\" at the cluster scope");
    a.verb = "get";
    a.ns = "default";
    a.name = "x";
    a.subresource = "log";
    message(&a, "pods \"x\" is forbidden: User \"alice\" cannot get resource "
                "\"pods/log\" in API group \"\" in the namespace \"default\"");
    a.api_group = "apps";
    a.resource = "deployments";
    a.subresource = "";
    message(&a, "deployments.apps \"x\" is forbidden: User \"alice\" cannot "
                "get resource \"deployments\" in API group \"apps\" in the "
                "namespace \"default\"");
    b = authz_forbidden_status(id, &a, "RBAC: because", false);
    assert_string_equal(
        b->data,
        "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
        "\"status\":\"Failure\",\"message\":\"deployments.apps \\\"x\\\" is "
        "forbidden: User \\\"al\\\\\\\"ice\\\" cannot get resource "
        "\\\"deployments\\\" in API group \\\"apps\\\" in the namespace "
        "\\\"default\\\": RBAC: because\",\"reason\":\"Forbidden\","
        "\"details\":{\"name\":\"x\",\"group\":\"apps\",\"kind\":"
        "\"deployments\"},\"code\":403}");
    rbuf_unref(b);
    a = (struct authz_attributes){.verb = "get", .path = "/metrics"};
    message(&a, "forbidden: User \"alice\" cannot get path \"/metrics\"");
    b = authz_forbidden_status(id, &a, "", true);
    assert_non_null(strstr(b->data, "{\"type\":\"ERROR\",\"object\":{"));
    assert_non_null(strstr(b->data, ",\"details\":{},\"code\":403}}\n"));
    rbuf_unref(b);
    identity_unref(id);
}

/* A 403 for a long path keeps its whole message and reason. */
static void test_long_message(void **state)
{
    struct identity *id = identity_new(IDENTITY_X509, "alice", NULL);
    char path[4001], want[4200];
    struct authz_attributes a = {.verb = "get", .path = path};
    struct rbuf *b;

    (void)state;
    memset(path, 'p', sizeof(path) - 1);
    path[0] = '/';
    path[sizeof(path) - 1] = '\0';
    snprintf(want, sizeof(want),
             "\"message\":\"forbidden: User \\\"alice\\\" cannot get path "
             "\\\"%s\\\": RBAC: why\",",
             path);
    b = authz_forbidden_status(id, &a, "RBAC: why", false);
    assert_non_null(strstr(b->data, want));
    rbuf_unref(b);
    identity_unref(id);
}

static void test_modes(void **state)
{
    unsigned m;
    char why[256];

    (void)state;
    assert_int_equal(authz_mode_parse("RBAC", &m, why, sizeof(why)), RW_OK);
    assert_int_equal(m, AUTHZ_RBAC);
    assert_int_equal(authz_mode_parse("AlwaysAllow", &m, why, sizeof(why)),
                     RW_OK);
    assert_int_equal(m, AUTHZ_ALWAYS_ALLOW);
    assert_int_equal(authz_mode_parse("RBAC,AlwaysAllow", &m, why, sizeof(why)),
                     RW_OK);
    assert_int_equal(m, AUTHZ_RBAC | AUTHZ_ALWAYS_ALLOW);
    assert_int_equal(authz_mode_parse("Node,RBAC", &m, why, sizeof(why)),
                     RW_EINVAL);
    assert_string_equal(why, "expected a comma-separated list of AlwaysAllow "
                             "and RBAC; Node is not supported");
    assert_int_equal(authz_mode_parse("RBAC,RBAC", &m, why, sizeof(why)),
                     RW_EINVAL);
    assert_int_equal(authz_mode_parse("", &m, why, sizeof(why)), RW_EINVAL);
    assert_int_equal(authz_mode_parse("rbac", &m, why, sizeof(why)), RW_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resource_requests),
        cmocka_unit_test(test_field_selector_name),
        cmocka_unit_test(test_non_resource_requests),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_long_message),
        cmocka_unit_test(test_modes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
