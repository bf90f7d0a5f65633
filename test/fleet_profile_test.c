/*
 * fleet_profile_test.c: watcher roles and node assignment
 * (src/fleet/profile.c), and the filter index that finds a change's
 * filters among one per node (src/fleet/filter.c): a pod moving from one
 * node to another concerns exactly the controllers' filter and the two
 * nodes' filters, DELETED for the old node's and ADDED for the new one's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/object.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "proto/kjson_decode.h"
#include "src/fleet/filter.h"
#include "src/fleet/profile.h"

static void test_parse(void **state)
{
    enum profile_kind k;

    assert_int_equal(profile_parse("kubelet", &k), RW_OK);
    assert_int_equal(k, PROFILE_KUBELET);
    assert_int_equal(profile_parse("mix", &k), RW_OK);
    assert_int_equal(k, PROFILE_MIX);
    assert_int_equal(profile_parse("controller", &k), RW_OK);
    assert_int_equal(k, PROFILE_CONTROLLER);
    assert_int_equal(profile_parse("Kubelet", &k), RW_EINVAL);
    assert_int_equal(profile_parse(NULL, &k), RW_EINVAL);
    assert_string_equal(profile_name(PROFILE_MIX), "mix");
}

static void test_roles(void **state)
{
    struct profile p;
    uint32_t node;

    assert_int_equal(profile_init(&p, PROFILE_CONTROLLER, 50, 10, 0), RW_OK);
    assert_int_equal(p.controllers, 50);
    assert_int_equal(p.nodes, 1);
    assert_false(profile_kubelet(&p, 0, &node));

    assert_int_equal(profile_init(&p, PROFILE_KUBELET, 200, 10, 20), RW_OK);
    assert_int_equal(p.kubelets, 200);
    assert_true(profile_kubelet(&p, 0, &node));
    assert_int_equal(node, 0);
    assert_true(profile_kubelet(&p, 45, &node));
    assert_int_equal(node, 5);
    assert_false(profile_kubelet(&p, 200, &node));

    assert_int_equal(profile_init(&p, PROFILE_KUBELET, 300, 0, 0), RW_OK);
    assert_int_equal(p.nodes, 300); /* one node per kubelet */

    assert_int_equal(profile_init(&p, PROFILE_MIX, 100, 10, 0), RW_OK);
    assert_int_equal(p.controllers, 10);
    assert_int_equal(p.kubelets, 90);
    assert_int_equal(p.nodes, 90);
    assert_false(profile_kubelet(&p, 9, &node));
    assert_true(profile_kubelet(&p, 10, &node));
    assert_int_equal(node, 0);
    assert_true(profile_kubelet(&p, 99, &node));
    assert_int_equal(node, 89);

    assert_int_equal(profile_init(&p, PROFILE_MIX, 5, 10, 0), RW_OK);
    assert_int_equal(p.controllers, 5);
    assert_int_equal(p.kubelets, 0);
    assert_int_equal(p.nodes, 1);
}

static void test_node_names(void **state)
{
    char buf[32];
    uint32_t node;

    profile_node_name(7, buf, sizeof(buf));
    assert_string_equal(buf, "node-00007");
    assert_int_equal(profile_node_index(buf, strlen(buf), &node), RW_OK);
    assert_int_equal(node, 7);
    profile_node_name(123456, buf, sizeof(buf));
    assert_string_equal(buf, "node-123456");
    assert_int_equal(profile_node_index(buf, strlen(buf), &node), RW_OK);
    assert_int_equal(node, 123456);
    assert_int_equal(profile_node_index("node-007", 8, &node), RW_EINVAL);
    assert_int_equal(profile_node_index("node-0000x", 10, &node), RW_EINVAL);
    assert_int_equal(profile_node_index("node-012345", 11, &node), RW_EINVAL);
    assert_int_equal(profile_node_index("", 0, &node), RW_EINVAL);
}

static struct object *pod(const char *node, const char *app)
{
    const struct resource_type *rt = resource_type_find("pods");
    char *json = xasprintf(
        "{\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\",\"namespace\":"
        "\"ns\",\"labels\":{"
        "\"app\":\"%s\"}},\"spec\":{\"nodeName\":\"%s\"}}",
        app, node);
    struct object *obj = NULL;
    const char *why;

    assert_int_equal(kjson_decode_object(rt, "/registry/pods/ns/p", 19, json,
                                         strlen(json), 5, &obj, &why),
                     RW_OK);
    free(json);
    return obj;
}

static void test_index_finds_a_moves_filters(void **state)
{
    const struct resource_type *rt = resource_type_find("pods");
    struct filter *filters[101], *out[4];
    struct filter_index *ix;
    enum event_type type;
    struct object *a = pod("node-00003", "web"), *b = pod("node-00077", "web");
    char why[256], name[32];
    size_t n;

    filters[0] = filter_new(0, rt, "app=web", NULL, why, sizeof(why));
    for (uint32_t i = 0; i < 100; i++) {
        profile_node_name(i, name, sizeof(name));
        filters[i + 1] = filter_new_node(i + 1, rt, name);
        assert_non_null(filters[i + 1]);
    }
    assert_string_equal(filters[4]->field_selector, "spec.nodeName=node-00003");
    ix = filter_index_new(rt, filters, 101);
    assert_int_equal(filter_index_max(ix), 3);

    n = filter_index_candidates(ix, a, b, out);
    assert_int_equal(n, 3);
    assert_ptr_equal(out[0], filters[0]);
    assert_ptr_equal(out[1], filters[4]);
    assert_ptr_equal(out[2], filters[78]);
    assert_true(filter_transition(out[0], a, b, &type));
    assert_int_equal(type, EVENT_MODIFIED);
    assert_true(filter_transition(out[1], a, b, &type));
    assert_int_equal(type, EVENT_DELETED);
    assert_true(filter_transition(out[2], a, b, &type));
    assert_int_equal(type, EVENT_ADDED);

    n = filter_index_candidates(ix, a, a, out); /* same node once */
    assert_int_equal(n, 2);
    assert_true(filter_transition(out[1], a, a, &type));
    assert_int_equal(type, EVENT_MODIFIED);
    n = filter_index_candidates(ix, NULL, b, out);
    assert_int_equal(n, 2);
    assert_true(filter_transition(out[1], NULL, b, &type));
    assert_int_equal(type, EVENT_ADDED);
    n = filter_index_candidates(ix, b, NULL, out);
    assert_true(filter_transition(out[1], b, NULL, &type));
    assert_int_equal(type, EVENT_DELETED);
    object_unref(a);
    a = pod("node-99999", "db"); /* no kubelet there */
    n = filter_index_candidates(ix, a, NULL, out);
    assert_int_equal(n, 1);
    assert_false(filter_transition(out[0], a, NULL, &type));

    filter_index_free(ix);
    for (int i = 0; i < 101; i++)
        filter_free(filters[i]);
    object_unref(a);
    object_unref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_roles),
        cmocka_unit_test(test_node_names),
        cmocka_unit_test(test_index_finds_a_moves_filters),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
