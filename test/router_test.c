/*
 * router_test.c: request routing (src/router.c) to the real handlers,
 * with fake streams: which path reaches which handler, and the Status a
 * path or method that names nothing gets.
 *
 * Cases: methods other than GET and HEAD get 405 MethodNotAllowed with
 * Allow on every path, "OPTIONS *" 200; paths that name nothing served
 * (unknown group version or resource, subresources, a namespaced object
 * without its namespace, a cluster-scoped type inside a namespace, a bad
 * escape, too many segments) get 404 NotFound; GET of an object, LIST,
 * WATCH (by ?watch and by the /watch/ path, on one object by name),
 * discovery, /metrics and health reach their handlers; a bad query is
 * 400, a bad option combination 422, an Accept nothing satisfies 406;
 * after router_shutting_down resource requests get 429 and health still
 * answers.
 */
#include "test/core_testlib.h"

#include "src/discovery.h"
#include "src/metrics.h"
#include "src/router.h"

struct fixture {
    struct core c;
    struct resource *ns_res; /* namespaces: cluster-scoped */
    struct resource *resources[2];
    struct discovery *d;
    struct router *rt;
};

static void stats(struct metrics_global *out, void *arg)
{
    out->upstream_connected = true;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    const struct resource_type *types[2];
    struct resource_config rc = {.ring_events = 16,
                                 .ring_bytes = 1 << 20,
                                 .bookmark_interval = 3600};
    struct watch_limits wl = {.high_water = 1 << 16,
                              .min_request_timeout = 1800,
                              .indexed_field = -1};

    core_init(&f->c, 16, 3600);
    f->ns_res = resource_new(f->c.base, resource_type_find("namespaces"), &rc);
    watch_set_new(f->ns_res, &wl);
    f->resources[0] = f->c.r;
    f->resources[1] = f->ns_res;
    types[0] = resource_type(f->c.r);
    types[1] = resource_type(f->ns_res);
    f->d = discovery_new(types, 2, "127.0.0.1:6443");
    f->rt = router_new(&(struct router_config){.resources = f->resources,
                                               .n = 2,
                                               .discovery = f->d,
                                               .stats = stats});
    core_list(&f->c, 10, "ab");
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    router_free(f->rt);
    discovery_free(f->d);
    watch_set_free(watch_set_of(f->ns_res));
    resource_free(f->ns_res);
    core_fini(&f->c);
    free(f);
    return 0;
}

/* A request handed to the router; the caller frees it. */
static struct fake_stream *req(struct fixture *f, const char *method,
                               const char *path, const char *query,
                               const char *accept)
{
    struct fake_stream *fs = fake_stream_new(method, path, query, accept, 1);

    router_handle(&fs->s, f->rt);
    return fs;
}

/* path (with query) answers a Status of code and reason. */
static void expect_status(struct fixture *f, const char *method,
                          const char *path, const char *query, int code,
                          const char *reason)
{
    struct fake_stream *fs = req(f, method, path, query, "");

    assert_status(fs, code, reason);
    assert_true(fs->ended);
    fake_stream_free(fs);
}

static void test_methods(void **state)
{
    struct fixture *f = *state;
    static const char *const paths[] = {"/api/v1/configmaps", "/healthz",
                                        "/nothing", "/api"};
    static const char *const methods[] = {"POST", "PUT", "DELETE", "PATCH",
                                          "BREW"};
    struct fake_stream *fs;
    char buf[64];

    for (size_t i = 0; i < RW_ARRAY_LEN(paths); i++) {
        for (size_t m = 0; m < RW_ARRAY_LEN(methods); m++) {
            fs = req(f, methods[m], paths[i], "", "");
            assert_status(fs, 405, "MethodNotAllowed");
            assert_non_null(fake_stream_header(fs, "allow", buf, sizeof(buf)));
            assert_string_equal(buf, "GET, HEAD");
            fake_stream_free(fs);
        }
    }
    fs = req(f, "OPTIONS", "*", "", "");
    assert_int_equal(fs->status, 200);
    fake_stream_free(fs);
}

static void test_not_found(void **state)
{
    struct fixture *f = *state;
    static const char *const paths[] = {
        "/api/v1/nothings",
        "/api/v2/configmaps",
        "/apis/apps/v1/configmaps",
        "/api/v1/namespaces/ns/configmaps/a/status",
        "/api/v1/configmaps/a",              /* namespaced, no namespace */
        "/api/v1/namespaces/ns/namespaces",  /* cluster-scoped in one */
        "/api/v1/namespaces/ns/configmaps%zz",
        "/api/v1/a/b/c/d/e/f/g/h/i/j/k",
        "/apis",
        "/nothing",
        "/api/v1/watch",
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(paths); i++) {
        struct fake_stream *fs = req(f, "GET", paths[i], "", "");

        if (strcmp(paths[i], "/apis") == 0) { /* discovery, not 404 */
            assert_int_equal(fs->status, 200);
            fake_stream_free(fs);
            continue;
        }
        assert_status(fs, 404, "NotFound");
        fake_stream_free(fs);
    }
}

static void test_routes(void **state)
{
    struct fixture *f = *state;
    struct fake_stream *fs, *w1, *w2;
    cJSON *j;

    /* GET of one object. */
    fs = req(f, "GET", "/api/v1/namespaces/ns/configmaps/a",
             "resourceVersion=0", "");
    assert_int_equal(fs->status, 200);
    j = body_json(fs);
    assert_string_equal(json_str(j, "kind"), "ConfigMap");
    assert_string_equal(json_str(j, "metadata.name"), "a");
    cJSON_Delete(j);
    fake_stream_free(fs);
    expect_status(f, "GET", "/api/v1/namespaces/ns/configmaps/zz",
                  "resourceVersion=0", 404, "NotFound");

    /* LIST. */
    fs = req(f, "GET", "/api/v1/configmaps", "resourceVersion=0", "");
    assert_int_equal(fs->status, 200);
    j = body_json(fs);
    assert_string_equal(json_str(j, "kind"), "ConfigMapList");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(j, "items")), 2);
    cJSON_Delete(j);
    fake_stream_free(fs);

    /* WATCH by query, and by the /watch/ path on one object. */
    w1 = req(f, "GET", "/api/v1/namespaces/ns/configmaps",
             "watch=1&resourceVersion=10", "");
    w2 = req(f, "GET", "/api/v1/watch/namespaces/ns/configmaps/b",
             "resourceVersion=10", "");
    assert_int_equal(w1->status, 200);
    assert_int_equal(w1->content_length, -1);
    assert_int_equal(w2->status, 200);
    assert_int_equal(watch_set_count(f->c.ws, 0), 2);
    core_put(&f->c, "a", NULL, "1", 11);
    core_put(&f->c, "b", NULL, "1", 12);
    resource_flush(f->c.r);
    assert_int_equal(w1->nframes, 2);
    assert_int_equal(w2->nframes, 1);
    assert_event(w2, 0, "MODIFIED", "b", 12);
    fake_stream_free(w1);
    fake_stream_free(w2);

    /* Discovery, metrics, health. */
    fs = req(f, "GET", "/api/v1", "", "");
    assert_int_equal(fs->status, 200);
    j = body_json(fs);
    assert_string_equal(json_str(j, "kind"), "APIResourceList");
    cJSON_Delete(j);
    fake_stream_free(fs);
    fs = req(f, "GET", "/metrics", "", "");
    assert_int_equal(fs->status, 200);
    assert_non_null(strstr(fs->body, "ringwatch_watchers{resource=\""
                                     "configmaps\",protocol=\"h1\"} 0\n"));
    fake_stream_free(fs);
    fs = req(f, "GET", "/healthz", "", "");
    assert_int_equal(fs->status, 200);
    fake_stream_free(fs);
    fs = req(f, "HEAD", "/version", "", "");
    assert_int_equal(fs->status, 200);
    fake_stream_free(fs);
}

static void test_bad_requests(void **state)
{
    struct fixture *f = *state;
    struct fake_stream *fs;

    expect_status(f, "GET", "/api/v1/configmaps", "limit=abc", 400,
                  "BadRequest");
    expect_status(f, "GET", "/api/v1/configmaps", "labelSelector=a%20in", 400,
                  "BadRequest");
    expect_status(f, "GET", "/api/v1/configmaps", "resourceVersionMatch=Exact",
                  422, "Invalid");
    fs = req(f, "GET", "/api/v1/configmaps", "", "application/yaml");
    assert_status(fs, 406, "NotAcceptable");
    fake_stream_free(fs);
}

static void test_shutting_down(void **state)
{
    struct fixture *f = *state;
    struct fake_stream *fs;

    router_shutting_down(f->rt);
    expect_status(f, "GET", "/api/v1/configmaps", "resourceVersion=0", 429,
                  "TooManyRequests");
    expect_status(f, "GET", "/api/v1/nothings", "", 404, "NotFound");
    fs = req(f, "GET", "/readyz", "", "");
    assert_int_not_equal(fs->status, 0);
    fake_stream_free(fs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_methods, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_routes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_shutting_down, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
