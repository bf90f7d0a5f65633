/*
 * fleet_churn_test.c: the churn generator (src/fleet/churn.c): the same
 * seed gives the same writes, the initial set is exactly `pods` creates,
 * the live count stays near `pods`, a busy pod is never picked again,
 * moves change the node, adopted pods are taken over, and every rendered
 * Pod decodes as the daemon decodes it, with its node, labels, stamp and
 * a realistic size.
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
#include "src/fleet/churn.h"
#include "src/fleet/profile.h"
#include "src/fleet/scan.h"

static const struct churn_config cfg = {
    .pods = 100, .nodes = 10, .move_fraction = 0.2, .seed = 42};

/* Runs n steps (initial set first), completing every write at once. */
static void run(struct churn *c, int n, struct churn_op *ops)
{
    int i = 0;

    while (i < n && churn_next(c, true, &ops[i])) {
        churn_done(c, &ops[i]);
        i++;
    }
    for (; i < n; i++) {
        assert_true(churn_next(c, false, &ops[i]));
        churn_done(c, &ops[i]);
    }
}

static void test_same_seed_same_writes(void **state)
{
    struct churn *a = churn_new(&cfg), *b = churn_new(&cfg);
    struct churn_config other = cfg;
    struct churn *d;
    struct churn_op x[600], y[600], z[600];

    other.seed = 43;
    d = churn_new(&other);
    run(a, 600, x);
    run(b, 600, y);
    run(d, 600, z);
    assert_memory_equal(x, y, sizeof(x));
    assert_memory_not_equal(x + 100, z + 100, sizeof(x) - 100 * sizeof(x[0]));
    churn_free(a);
    churn_free(b);
    churn_free(d);
}

static void test_mix_and_count(void **state)
{
    struct churn *c = churn_new(&cfg);
    static struct churn_op ops[5100];
    unsigned kinds[4] = {0};

    run(c, 5100, ops);
    for (int i = 0; i < 100; i++)
        assert_int_equal(ops[i].kind, CHURN_CREATE);
    for (int i = 100; i < 5100; i++) {
        kinds[ops[i].kind]++;
        if (ops[i].kind == CHURN_MOVE)
            assert_int_not_equal(ops[i].node_from, ops[i].node);
        else
            assert_int_equal(ops[i].node_from, ops[i].node);
        assert_true(ops[i].node < cfg.nodes);
    }
    assert_in_range(churn_live(c), 99, 101);
    /* 20% creates + deletes, 80% updates of which 20% moves. */
    assert_in_range(kinds[CHURN_CREATE] + kinds[CHURN_DELETE], 800, 1200);
    assert_in_range(kinds[CHURN_MOVE], 600, 1000);
    assert_in_range(kinds[CHURN_UPDATE], 2900, 3500);
    churn_free(c);
}

static void test_busy_pods_are_not_picked(void **state)
{
    struct churn_config one = {.pods = 3, .nodes = 2, .seed = 7};
    struct churn *c = churn_new(&one);
    struct churn_op ops[3], op;

    for (int i = 0; i < 3; i++)
        assert_true(churn_next(c, true, &ops[i]));
    assert_false(churn_next(c, true, &op)); /* the set is complete */
    /* All three busy: updates and deletes find nothing, creates only
     * when below the count. */
    for (int i = 0; i < 50; i++)
        assert_false(churn_next(c, false, &op));
    churn_done(c, &ops[1]);
    for (int i = 0; i < 50; i++) {
        if (churn_next(c, false, &op)) {
            assert_int_equal(op.pod, ops[1].pod);
            if (op.kind == CHURN_DELETE)
                break; /* it is gone; a create may follow */
            churn_done(c, &op);
        }
    }
    churn_free(c);
}

static void test_adopt_and_names(void **state)
{
    struct churn *c = churn_new(&cfg);
    struct churn_op op;
    char name[32];
    uint32_t serial;

    churn_name(0x2a, name, sizeof(name));
    assert_string_equal(name, "churn-0000002a");
    assert_true(churn_parse_name(name, strlen(name), &serial));
    assert_int_equal(serial, 0x2a);
    assert_false(churn_parse_name("churn-2a", 8, &serial));
    assert_false(churn_parse_name("other-0000002a", 14, &serial));
    churn_adopt(c, 0x2a, 3);
    churn_adopt(c, 0x2a, 3);
    assert_int_equal(churn_live(c), 1);
    assert_true(churn_next(c, true, &op));
    assert_int_equal(op.kind, CHURN_CREATE);
    assert_true(op.pod > 0x2a); /* new serials follow the adopted ones */
    churn_free(c);
}

static void test_rendered_pod_decodes(void **state)
{
    const struct resource_type *rt = resource_type_find("pods");
    struct churn *c = churn_new(&cfg);
    struct churn_op op;
    char buf[4096], node[32], key[64];
    struct object *obj = NULL;
    struct scan_object meta;
    const char *why;
    size_t len;

    assert_true(churn_next(c, true, &op));
    assert_true(churn_render(c, op.pod, 1234567890123456789, 1800000000, buf,
                             10) >= 10);
    len = churn_render(c, op.pod, 1234567890123456789, 1800000000, buf,
                       sizeof(buf));
    assert_true(len < sizeof(buf));
    assert_in_range(len, 1200, 2600);
    snprintf(key, sizeof(key), "/registry/pods/" CHURN_NAMESPACE "/churn-%08x",
             op.pod);
    assert_int_equal(
        kjson_decode_object(rt, key, strlen(key), buf, len, 7, &obj, &why),
        RW_OK);
    profile_node_name(op.node, node, sizeof(node));
    assert_string_equal(object_field(obj, FIELD_EXTRA + rt->indexed_field),
                        node);
    assert_non_null(object_label(obj, "app"));
    object_unref(obj);
    assert_int_equal(scan_object(buf, len, &meta), 0);
    assert_int_equal(meta.written_at, 1234567890123456789);
    assert_non_null(
        strstr(buf, "\"creationTimestamp\":\"2027-01-15T08:00:00Z\""));
    assert_non_null(strstr(buf, "\"containerStatuses\":["));
    assert_non_null(strstr(buf, "\"phase\":\"Pending\""));
    churn_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_seed_same_writes),
        cmocka_unit_test(test_mix_and_count),
        cmocka_unit_test(test_busy_pods_are_not_picked),
        cmocka_unit_test(test_adopt_and_names),
        cmocka_unit_test(test_rendered_pod_decodes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
