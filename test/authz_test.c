/*
 * authz_test.c: the authorizer over the served RBAC resources
 * (src/authz.c), fed as the upstream adapter feeds them (src/resource.h).
 *
 * Cases: a cold first list takes effect at once; after a warm start
 * (resource_catch_up: the list read at an older revision, the history
 * since replayed) the RBAC objects take effect only once caught up, so
 * that a binding deleted since the warm start's revision does not grant
 * during the replay; once caught up, later changes take effect as they
 * come.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "src/authz.h"
#include "src/identity.h"
#include "src/log.h"
#include "src/resource.h"

#define READER                                                                 \
    "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":"               \
    "\"ClusterRole\",\"metadata\":{\"name\":\"reader\"},\"rules\":[{"          \
    "\"apiGroups\":[\"\"],\"resources\":[\"pods\"],\"verbs\":[\"list\"]}]}"
#define BINDING                                                                \
    "{\"apiVersion\":\"rbac.authorization.k8s.io/v1\",\"kind\":"               \
    "\"ClusterRoleBinding\",\"metadata\":{\"name\":\"alice\"},\"roleRef\":{"   \
    "\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","     \
    "\"name\":\"reader\"},\"subjects\":[{\"kind\":\"User\",\"name\":"          \
    "\"alice\"}]}"

enum { ROLES, ROLEBINDINGS, CLUSTERROLES, CLUSTERROLEBINDINGS, KINDS };

struct fixture {
    struct event_base *base;
    struct resource *r[KINDS];
    struct authz *z;
    struct identity *alice;
};

static int setup(void **state)
{
    static const char *const specs[KINDS] = {
        "rbac.authorization.k8s.io/v1/roles",
        "rbac.authorization.k8s.io/v1/rolebindings",
        "rbac.authorization.k8s.io/v1/clusterroles",
        "rbac.authorization.k8s.io/v1/clusterrolebindings",
    };
    struct resource_config rc = {
        .ring_events = 16, .ring_bytes = 1 << 20, .bookmark_interval = 60};
    struct fixture *f = calloc(1, sizeof(*f));

    f->base = event_base_new();
    for (int k = 0; k < KINDS; k++) {
        const struct resource_type *rt = resource_type_find(specs[k]);

        assert_non_null(rt);
        f->r[k] = resource_new(f->base, rt, &rc);
    }
    f->z = authz_new(AUTHZ_RBAC, f->r);
    f->alice = identity_new(IDENTITY_TOKEN_FILE, "alice", NULL);
    identity_add_group(f->alice, IDENTITY_AUTHENTICATED);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    identity_unref(f->alice);
    authz_free(f->z);
    for (int k = 0; k < KINDS; k++)
        resource_free(f->r[k]);
    event_base_free(f->base);
    free(f);
    return 0;
}

/* A list of kind k at rev holding value (NULL: nothing) under name,
 * announced as read below the store's revision store_rev (0: not). */
static void list(struct fixture *f, int k, int64_t rev, const char *name,
                 const char *value, int64_t store_rev)
{
    resource_list_begin(f->r[k]);
    if (value != NULL) {
        char *key = resource_type_key(resource_type(f->r[k]), NULL, name);

        resource_list_item(f->r[k], key, strlen(key), value, strlen(value),
                           rev);
        free(key);
    }
    if (store_rev > 0)
        resource_catch_up(f->r[k], store_rev);
    resource_list_end(f->r[k], rev);
    resource_flush(f->r[k]);
}

static bool alice_lists_pods(struct fixture *f)
{
    struct authz_attributes a = {.verb = "list",
                                 .resource_request = true,
                                 .api_group = "",
                                 .api_version = "v1",
                                 .resource = "pods",
                                 .ns = "default",
                                 .path = ""};
    char reason[AUTHZ_REASON_MAX];

    return authz_authorize(f->z, f->alice, &a, reason, sizeof(reason)) ==
           AUTHZ_ALLOW;
}

static void test_cold_start(void **state)
{
    struct fixture *f = *state;

    list(f, ROLES, 10, NULL, NULL, 0);
    list(f, ROLEBINDINGS, 10, NULL, NULL, 0);
    list(f, CLUSTERROLES, 10, "reader", READER, 0);
    list(f, CLUSTERROLEBINDINGS, 10, "alice", BINDING, 0);
    assert_true(alice_lists_pods(f));
}

static void test_warm_start_replay(void **state)
{
    struct fixture *f = *state;
    char *key = resource_type_key(resource_type(f->r[CLUSTERROLEBINDINGS]),
                                  NULL, "alice");

    /* Listed at 10, when the binding still existed; the store is at 30. */
    list(f, ROLES, 10, NULL, NULL, 30);
    list(f, ROLEBINDINGS, 10, NULL, NULL, 30);
    list(f, CLUSTERROLES, 10, "reader", READER, 30);
    list(f, CLUSTERROLEBINDINGS, 10, "alice", BINDING, 30);
    assert_false(alice_lists_pods(f)); /* not the state at 10 */

    /* The replay: the binding was deleted at 20; not caught up yet. */
    resource_delete(f->r[CLUSTERROLEBINDINGS], key, strlen(key), 20);
    resource_flush(f->r[CLUSTERROLEBINDINGS]);
    assert_false(alice_lists_pods(f));

    /* Caught up: the state at 30, without the binding. */
    for (int k = 0; k < KINDS; k++)
        resource_progress(f->r[k], 30);
    assert_false(alice_lists_pods(f));

    /* Later changes take effect as they come. */
    resource_put(f->r[CLUSTERROLEBINDINGS], key, strlen(key), BINDING,
                 strlen(BINDING), 31);
    resource_flush(f->r[CLUSTERROLEBINDINGS]);
    assert_true(alice_lists_pods(f));
    free(key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_cold_start, setup, teardown),
        cmocka_unit_test_setup_teardown(test_warm_start_replay, setup,
                                        teardown),
    };

    log_set_level(LOG_WARN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
