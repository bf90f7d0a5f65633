/*
 * patch_strategic_test.c: strategic merge patch (proto/patch_strategic.c,
 * patch_keys.c) on the built-in kinds: the cases of apimachinery's
 * strategicpatch tests (lists merged by key, $patch replace/delete on maps
 * and list items, $setElementOrder, $deleteFromPrimitiveList, $retainKeys,
 * null deletion, the pod template inside a Deployment), the order of
 * merged items as mergeSortedSlice gives it, the errors with their codes,
 * and a list of thousands of items merged in linear time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "test/patch_testlib.h"

#define POD(spec) "{\"kind\":\"Pod\",\"spec\":" spec "}"

static void smp(const char *group, const char *kind, const char *doc,
                const char *patch, const char *want)
{
    assert_patched(PATCH_STRATEGIC, group, kind, doc, patch, want);
}

static void test_merge_by_key(void **state)
{
    (void)state;
    /* containers by name: the patched one merged in place */
    smp("", "Pod",
        POD("{\"containers\":[{\"name\":\"a\",\"image\":\"a:1\"},"
            "{\"name\":\"b\",\"image\":\"b:1\"}]}"),
        POD("{\"containers\":[{\"name\":\"b\",\"image\":\"b:2\"}]}"),
        POD("{\"containers\":[{\"name\":\"a\",\"image\":\"a:1\"},"
            "{\"name\":\"b\",\"image\":\"b:2\"}]}"));
    /* a new item goes before the original's (mergeSortedSlice) */
    smp("", "Pod", POD("{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}"),
        POD("{\"containers\":[{\"name\":\"c\"}]}"),
        POD("{\"containers\":[{\"name\":\"c\"},{\"name\":\"a\"},"
            "{\"name\":\"b\"}]}"));
    /* env by name, ports by containerPort, volumeMounts by mountPath, in
     * an existing container; volumes by name */
    smp("", "Pod",
        POD("{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"X\","
            "\"value\":\"1\"},{\"name\":\"Y\",\"value\":\"2\"}],"
            "\"ports\":[{\"containerPort\":80,\"name\":\"http\"}],"
            "\"volumeMounts\":[{\"mountPath\":\"/a\",\"name\":\"v\"}]}],"
            "\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}]}"),
        POD("{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"Y\","
            "\"value\":\"3\"}],\"ports\":[{\"containerPort\":80,"
            "\"protocol\":\"TCP\"}],\"volumeMounts\":[{\"mountPath\":\"/a\","
            "\"readOnly\":true}]}],\"volumes\":[{\"name\":\"w\","
            "\"emptyDir\":{}}]}"),
        POD("{\"containers\":[{\"name\":\"a\",\"env\":[{\"name\":\"X\","
            "\"value\":\"1\"},{\"name\":\"Y\",\"value\":\"3\"}],"
            "\"ports\":[{\"containerPort\":80,\"name\":\"http\","
            "\"protocol\":\"TCP\"}],\"volumeMounts\":[{\"mountPath\":\"/a\","
            "\"name\":\"v\",\"readOnly\":true}]}],\"volumes\":[{\"name\":"
            "\"w\",\"emptyDir\":{}},{\"name\":\"v\",\"emptyDir\":{}}]}"));
    /* tolerations have no merge key: replaced */
    smp("", "Pod", POD("{\"tolerations\":[{\"key\":\"a\"},{\"key\":\"b\"}]}"),
        POD("{\"tolerations\":[{\"key\":\"c\"}]}"),
        POD("{\"tolerations\":[{\"key\":\"c\"}]}"));
    /* a Service's ports by port; ownerReferences by uid, any kind */
    smp("", "Service",
        "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"name\":\"x\"}]},"
        "\"spec\":{\"ports\":[{\"port\":80,\"name\":\"a\"},{\"port\":443}]}}",
        "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"name\":\"y\"}]},"
        "\"spec\":{\"ports\":[{\"port\":443,\"name\":\"b\"}]}}",
        "{\"metadata\":{\"ownerReferences\":[{\"uid\":\"1\",\"name\":\"y\"}]},"
        "\"spec\":{\"ports\":[{\"port\":80,\"name\":\"a\"},{\"port\":443,"
        "\"name\":\"b\"}]}}");
    /* a kind without tagged lists still merges maps and drops nulls */
    smp("", "ConfigMap", "{\"data\":{\"a\":\"1\",\"b\":\"2\"}}",
        "{\"data\":{\"a\":null,\"c\":\"3\"}}",
        "{\"data\":{\"b\":\"2\",\"c\":\"3\"}}");
}

/* The pod template inside a Deployment, a CronJob's job template. */
static void test_pod_template(void **state)
{
    (void)state;
    smp("apps", "Deployment",
        "{\"spec\":{\"replicas\":1,\"template\":{\"metadata\":{\"labels\":"
        "{\"app\":\"x\"}},\"spec\":{\"containers\":[{\"name\":\"a\","
        "\"image\":\"a:1\",\"env\":[{\"name\":\"E\",\"value\":\"1\"}]},"
        "{\"name\":\"b\",\"image\":\"b:1\"}]}}}}",
        "{\"spec\":{\"replicas\":2,\"template\":{\"metadata\":{\"labels\":"
        "{\"v\":\"2\"}},\"spec\":{\"containers\":[{\"name\":\"a\",\"env\":"
        "[{\"name\":\"F\",\"value\":\"2\"}]}]}}}}",
        "{\"spec\":{\"replicas\":2,\"template\":{\"metadata\":{\"labels\":"
        "{\"app\":\"x\",\"v\":\"2\"}},\"spec\":{\"containers\":[{\"name\":"
        "\"a\",\"image\":\"a:1\",\"env\":[{\"name\":\"F\",\"value\":\"2\"},"
        "{\"name\":\"E\",\"value\":\"1\"}]},{\"name\":\"b\",\"image\":"
        "\"b:1\"}]}}}}");
    smp("batch", "CronJob",
        "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":"
        "{\"containers\":[{\"name\":\"a\",\"image\":\"1\"},{\"name\":\"b\"}]"
        "}}}}}}",
        "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":"
        "{\"containers\":[{\"name\":\"a\",\"image\":\"2\"}]}}}}}}",
        "{\"spec\":{\"jobTemplate\":{\"spec\":{\"template\":{\"spec\":"
        "{\"containers\":[{\"name\":\"a\",\"image\":\"2\"},{\"name\":\"b\"}]"
        "}}}}}}");
}

static void test_directives(void **state)
{
    (void)state;
    /* $patch: delete on a list item, by its merge key */
    smp("", "Pod",
        POD("{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"},"
            "{\"name\":\"c\"}]}"),
        POD("{\"containers\":[{\"name\":\"b\",\"$patch\":\"delete\"}]}"),
        POD("{\"containers\":[{\"name\":\"a\"},{\"name\":\"c\"}]}"));
    /* $patch: replace in a list: the patch's items are the list */
    smp("", "Pod", POD("{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}"),
        POD("{\"containers\":[{\"name\":\"x\"},{\"$patch\":\"replace\"}]}"),
        POD("{\"containers\":[{\"name\":\"x\"}]}"));
    /* $patch: replace and delete on maps */
    smp("", "Pod", "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}}}",
        "{\"metadata\":{\"labels\":{\"$patch\":\"replace\",\"c\":\"3\"}}}",
        "{\"metadata\":{\"labels\":{\"c\":\"3\"}}}");
    smp("", "Pod", POD("{\"securityContext\":{\"runAsUser\":1}}"),
        POD("{\"securityContext\":{\"$patch\":\"delete\"}}"),
        POD("{\"securityContext\":{}}"));
    /* $setElementOrder: kubectl apply's order for the merged list */
    smp("", "Pod", POD("{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}"),
        POD("{\"$setElementOrder/containers\":[{\"name\":\"a\"},"
            "{\"name\":\"b\"},{\"name\":\"c\"}],\"containers\":[{\"name\":"
            "\"c\",\"image\":\"c\"}]}"),
        POD("{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":"
            "\"c\",\"image\":\"c\"}]}"));
    smp("", "Pod", POD("{\"containers\":[{\"name\":\"a\"},{\"name\":\"b\"}]}"),
        POD("{\"$setElementOrder/containers\":[{\"name\":\"b\"},"
            "{\"name\":\"a\"}]}"),
        POD("{\"containers\":[{\"name\":\"b\"},{\"name\":\"a\"}]}"));
    /* finalizers: a set, merged; $deleteFromPrimitiveList removes */
    smp("", "ConfigMap", "{\"metadata\":{\"finalizers\":[\"a\",\"b\"]}}",
        "{\"metadata\":{\"finalizers\":[\"b\",\"c\"]}}",
        "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}");
    smp("", "ConfigMap", "{\"metadata\":{\"finalizers\":[\"a\",\"b\",\"c\"]}}",
        "{\"metadata\":{\"$deleteFromPrimitiveList/finalizers\":[\"b\"]}}",
        "{\"metadata\":{\"finalizers\":[\"a\",\"c\"]}}");
    /* $retainKeys: the members not named are dropped (a Deployment's
     * strategy) */
    smp("apps", "Deployment",
        "{\"spec\":{\"strategy\":{\"type\":\"RollingUpdate\","
        "\"rollingUpdate\":{\"maxSurge\":1}}}}",
        "{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"],\"type\":"
        "\"Recreate\"}}}",
        "{\"spec\":{\"strategy\":{\"type\":\"Recreate\"}}}");
    /* null deletes, also a whole list; a null patch changes nothing */
    smp("", "Pod",
        "{\"metadata\":{\"labels\":{\"a\":\"1\",\"b\":\"2\"}},"
        "\"spec\":{\"volumes\":[{\"name\":\"v\"}]}}",
        "{\"metadata\":{\"labels\":{\"a\":null}},\"spec\":{\"volumes\":null}}",
        "{\"metadata\":{\"labels\":{\"b\":\"2\"}},\"spec\":{}}");
    smp("", "Pod", "{\"a\":1}", "null", "{\"a\":1}");
    /* a member the original lacks is taken, its nulls dropped */
    smp("", "Pod", "{}", "{\"spec\":{\"nodeName\":\"n\",\"x\":null}}",
        "{\"spec\":{\"nodeName\":\"n\"}}");
}

static void smp_refused(const char *patch, int code, const char *reason,
                        const char *message)
{
    assert_refused(PATCH_STRATEGIC, "", "Pod",
                   "{\"metadata\":{\"name\":\"p\",\"finalizers\":[]},\"spec\":{\"containers\":"
                   "[{\"name\":\"a\"}]}}",
                   patch, code, reason, message);
}

static void test_errors(void **state)
{
    (void)state;
    smp_refused(POD("{\"containers\":[{\"image\":\"x\"}]}"), 500, "",
                "map: map[image:x] does not contain declared merge key: name");
    smp_refused(POD("{\"containers\":[{\"name\":\"a\",\"$patch\":"
                    "\"merge\"}]}"),
                500, "", "merging lists cannot yet be specified in the patch");
    smp_refused("{\"metadata\":{\"$patch\":\"frob\",\"a\":1}}", 500, "",
                "unknown patch type: frob in map: map[$patch:frob a:1]");
    smp_refused("{\"metadata\":{\"finalizers\":[[\"x\"]]}}", 422, "Invalid",
                "the server rejected our request due to an error in our "
                "request");
    smp_refused(POD("{\"containers\":[\"a\"]}"), 500, "",
                "list element types are not identical: [[map[name:a]] [a]]");
    smp_refused("{\"metadata\":{\"$retainKeys\":[\"name\"],\"labels\":{}}}",
                400, "BadRequest", "invalid patch format of retainKeys");
    smp_refused("{\"metadata\":{\"$retainKeys\":\"name\"}}", 400,
                "BadRequest", "invalid patch format of retainKeys");
    smp_refused(POD("{\"$setElementOrder/containers\":[{\"name\":\"a\"}],"
                    "\"containers\":[{\"name\":\"z\"}]}"),
                500, "",
                "The order in patch list:\n[map[name:z]]\n doesn't match "
                "$setElementOrder list:\n[map[name:a]]\n");
    smp_refused("[]", 400, "BadRequest",
                "json: cannot unmarshal array into Go value of type "
                "map[string]interface {}");
    /* atomic: the failing container after a good change: nothing */
    smp_refused("{\"metadata\":{\"labels\":{\"a\":\"1\"}},\"spec\":"
                "{\"containers\":[{\"image\":\"x\"}]}}",
                500, "",
                "map: map[image:x] does not contain declared merge key: name");
}

/* Lists of thousands of items merge in linear time (a hash index of the
 * merge keys), not quadratic. */
static void test_large_list(void **state)
{
    struct sbuf doc = {0}, patch = {0};
    struct patch_error err;
    const int n = 20000;
    clock_t t0;
    char *out;
    size_t len;

    (void)state;
    sbuf_add(&doc, "{\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[");
    sbuf_add(&patch, "{\"spec\":{\"containers\":[{\"name\":\"c\",\"env\":[");
    for (int i = 0; i < n; i++) {
        sbuf_addf(&doc, "%s{\"name\":\"E%d\",\"value\":\"1\"}", i ? "," : "",
                  i);
        sbuf_addf(&patch, "%s{\"name\":\"E%d\",\"value\":\"2\"}",
                  i ? "," : "", n - 1 - i);
    }
    sbuf_add(&doc, "]}]}}");
    sbuf_add(&patch, "]}]}}");
    t0 = clock();
    assert_int_equal(patch_apply(PATCH_STRATEGIC, "", "Pod", doc.data,
                                 doc.len, patch.data, patch.len, &out, &len,
                                 &err),
                     RW_OK);
    /* the patch's order: E19999 first */
    assert_non_null(strstr(out, "[{\"name\":\"E19999\",\"value\":\"2\"}"));
    assert_null(strstr(out, "\"value\":\"1\""));
    assert_true(clock() - t0 < 2 * CLOCKS_PER_SEC);
    free(out);
    sbuf_fini(&doc);
    sbuf_fini(&patch);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_by_key),
        cmocka_unit_test(test_pod_template),
        cmocka_unit_test(test_directives),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_large_list),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
