/*
 * write_meta_test.c: the write verbs' pure parts (src/write_meta.c): name
 * validation per rule in the apiserver's words (RFC 1123 subdomain and
 * label, DNS-1035, RBAC's path segments, lengths, a generateName's
 * trailing '-'); the types' rules; the body's checks (not JSON, not an
 * object, another kind or version, a repeated member); the stored JSON
 * (server fields first, resourceVersion and selfLink dropped, kind and
 * apiVersion defaulted, the rest kept byte for byte but compacted);
 * generation's rule; UUIDs, timestamps and generated names.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "src/write_meta.h"

static const struct resource_type *type(const char *spec)
{
    const struct resource_type *rt = resource_type_find(spec);

    assert_non_null(rt);
    return rt;
}

static size_t causes_of(const char *spec, const char *name, bool prefix,
                        struct write_cause *c)
{
    struct write_rules r;
    size_t n = 0;

    write_meta_rules(type(spec), &r);
    write_meta_check_name(&r, name, prefix, "metadata.name", c, &n);
    return n;
}

static void test_names(void **state)
{
    struct write_cause c[WRITE_MAX_CAUSES];
    char long_name[300];

    (void)state;
    assert_int_equal(causes_of("configmaps", "a.b-c", false, c), 0);
    assert_int_equal(causes_of("configmaps", "Bad_Name", false, c), 1);
    assert_string_equal(c[0].reason, "FieldValueInvalid");
    assert_string_equal(c[0].field, "metadata.name");
    assert_string_equal(
        c[0].message,
        "Invalid value: \"Bad_Name\": a lowercase RFC 1123 subdomain must "
        "consist of lower case alphanumeric characters, '-' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'example.com', "
        "regex used for validation is "
        "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    assert_int_equal(causes_of("configmaps", "a..b", false, c), 1);
    assert_int_equal(causes_of("configmaps", "-a", false, c), 1);
    memset(long_name, 'a', 254);
    long_name[254] = '\0';
    assert_int_equal(causes_of("configmaps", long_name, false, c), 1);
    assert_string_equal(strchr(c[0].message, ':') + 2 + 256 + 2,
                        "must be no more than 253 characters");
    /* namespaces: a label (no dots, 63 at most) */
    assert_int_equal(causes_of("namespaces", "a.b", false, c), 1);
    assert_non_null(strstr(c[0].message, "RFC 1123 label"));
    long_name[64] = '\0';
    assert_int_equal(causes_of("namespaces", long_name, false, c), 1);
    assert_non_null(strstr(c[0].message, "no more than 63 characters"));
    /* services: DNS-1035, a letter first */
    assert_int_equal(causes_of("services", "1abc", false, c), 1);
    assert_non_null(strstr(c[0].message, "DNS-1035 label"));
    assert_int_equal(causes_of("services", "abc1", false, c), 0);
    /* RBAC: path segments */
    assert_int_equal(causes_of("roles.rbac.authorization.k8s.io", "A:b", false,
                               c),
                     0);
    assert_int_equal(
        causes_of("roles.rbac.authorization.k8s.io", "..", false, c), 1);
    assert_string_equal(c[0].message, "Invalid value: \"..\": may not be '..'");
    assert_int_equal(
        causes_of("roles.rbac.authorization.k8s.io", "a/b%", false, c), 2);
    /* cronjobs: 52 at most */
    long_name[53] = '\0';
    assert_int_equal(causes_of("cronjobs.batch", long_name, false, c), 1);
    assert_non_null(strstr(c[0].message, "no more than 52 characters"));
    /* a generateName may end in '-' */
    assert_int_equal(causes_of("configmaps", "gen-", true, c), 0);
    assert_int_equal(causes_of("configmaps", "gen-", false, c), 1);
}

static void test_rules(void **state)
{
    struct write_rules r;

    (void)state;
    write_meta_rules(type("pods"), &r);
    assert_true(r.return_deleted);
    assert_false(r.create_on_update);
    write_meta_rules(type("configmaps"), &r);
    assert_false(r.return_deleted);
    assert_false(r.create_on_update);
    write_meta_rules(type("leases.coordination.k8s.io"), &r);
    assert_true(r.create_on_update);
    write_meta_rules(type("namespaces"), &r);
    assert_int_equal(r.name, WRITE_NAME_LABEL);
    assert_true(r.return_deleted);
}

static int decode(const char *spec, const char *body, char *why)
{
    struct write_body b;
    int code = write_meta_decode(type(spec), body, strlen(body), &b, why, 512);

    write_meta_body_fini(&b);
    return code;
}

static void test_decode(void **state)
{
    struct write_body b;
    char why[512];
    const char *ok = "{\"metadata\":{\"name\":\"a\",\"generateName\":\"g-\","
                     "\"resourceVersion\":\"7\"},\"data\":{}}";

    (void)state;
    assert_int_equal(write_meta_decode(type("configmaps"), ok, strlen(ok), &b,
                                       why, sizeof(why)),
                     0);
    assert_string_equal(b.name, "a");
    assert_string_equal(b.generate_name, "g-");
    assert_string_equal(b.resource_version, "7");
    assert_string_equal(b.kind, "");
    write_meta_body_fini(&b);

    assert_int_equal(decode("configmaps", "hello", why), 400);
    assert_string_equal(why, "the object provided is unrecognized (must be of "
                             "type ConfigMap): couldn't get version/kind; json "
                             "parse error: invalid JSON (68656c6c6f)");
    assert_int_equal(decode("configmaps", "", why), 400);
    assert_non_null(strstr(why, "(<empty>)"));
    assert_int_equal(decode("configmaps", "[1]", why), 400);
    assert_int_equal(
        decode("configmaps", "{\"kind\":\"Secret\",\"apiVersion\":\"v1\"}", why),
        400);
    assert_string_equal(why, "Secret in version \"v1\" cannot be handled as a "
                             "ConfigMap: converting (v1.Secret) to "
                             "(core.ConfigMap): unknown conversion");
    assert_int_equal(decode("deployments.apps",
                            "{\"kind\":\"Deployment\",\"apiVersion\":"
                            "\"apps/v1beta1\"}",
                            why),
                     400);
    assert_string_equal(why, "Deployment in version \"v1beta1\" cannot be "
                             "handled as a Deployment: no kind \"Deployment\" "
                             "is registered for version \"apps/v1beta1\" in "
                             "scheme \"pkg/api/legacyscheme/scheme.go:30\"");
    assert_int_equal(decode("configmaps", "{\"kind\":1}", why), 400);
    assert_int_equal(decode("configmaps", "{\"metadata\":[]}", why), 400);
    assert_int_equal(decode("configmaps", "{\"metadata\":{\"name\":5}}", why),
                     400);
    assert_int_equal(decode("configmaps",
                            "{\"metadata\":{\"name\":\"a\",\"name\":\"b\"}}",
                            why),
                     400);
    assert_string_equal(why, "strict decoding error: duplicate field "
                             "\"metadata.name\"");
}

static void test_render(void **state)
{
    const char *body =
        "{ \"data\" : { \"k\" : \"v\" }, \"metadata\": {\"labels\": {\"a\": "
        "\"b\"}, \"resourceVersion\": \"9\", \"selfLink\": \"/x\", \"uid\": "
        "\"old\", \"name\": \"n\"}, \"kind\": \"ConfigMap\"}";
    struct write_stamp st = {"n", "ns", "u-1", "2026-01-02T03:04:05Z", 3};
    size_t len;
    char *out;

    (void)state;
    out = write_meta_render(type("configmaps"), body, strlen(body), &st, &len);
    assert_int_equal(len, strlen(out));
    assert_string_equal(
        out, "{\"kind\":\"ConfigMap\",\"apiVersion\":\"v1\",\"metadata\":{"
             "\"name\":\"n\",\"namespace\":\"ns\",\"uid\":\"u-1\","
             "\"generation\":3,\"creationTimestamp\":\"2026-01-02T03:04:05Z\","
             "\"labels\":{\"a\":\"b\"}},\"data\":{\"k\":\"v\"}}");
    free(out);
    /* no metadata; cluster-scoped: no namespace */
    st.ns = NULL;
    out = write_meta_render(type("namespaces"), "{}", 2, &st, &len);
    assert_string_equal(out,
                        "{\"kind\":\"Namespace\",\"apiVersion\":\"v1\","
                        "\"metadata\":{\"name\":\"n\",\"uid\":\"u-1\","
                        "\"generation\":3,\"creationTimestamp\":"
                        "\"2026-01-02T03:04:05Z\"}}");
    free(out);
}

static void test_generation(void **state)
{
    const char *a = "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":[1,2]},"
                    "\"status\":{\"p\":1}}";
    const char *labels = "{\"spec\":{\"x\":[1,2]},\"metadata\":{\"name\":\"a\","
                         "\"labels\":{}},\"status\":{\"p\":2}}";
    const char *spec = "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":[2,1]}}";
    const char *more = "{\"metadata\":{},\"spec\":{\"x\":[1,2]},\"data\":1}";

    (void)state;
    assert_false(write_meta_spec_changed(a, strlen(a), labels, strlen(labels)));
    assert_true(write_meta_spec_changed(a, strlen(a), spec, strlen(spec)));
    assert_true(write_meta_spec_changed(a, strlen(a), more, strlen(more)));
    assert_true(write_meta_spec_changed(more, strlen(more), a, strlen(a)));
}

static void test_random(void **state)
{
    char u1[37], u2[37], ts[21], *n, *m;
    char base[80];

    (void)state;
    write_meta_uuid(u1);
    write_meta_uuid(u2);
    assert_int_equal(strlen(u1), 36);
    assert_string_not_equal(u1, u2);
    assert_int_equal(u1[14], '4');
    assert_non_null(strchr("89ab", u1[19]));
    assert_int_equal(u1[8], '-');
    write_meta_timestamp(86400 * 365 + 61, ts);
    assert_string_equal(ts, "1971-01-01T00:01:01Z");
    n = write_meta_generate_name("web-");
    assert_int_equal(strlen(n), 9);
    assert_memory_equal(n, "web-", 4);
    for (size_t i = 4; i < 9; i++)
        assert_non_null(strchr("bcdfghjklmnpqrstvwxz2456789", n[i]));
    memset(base, 'b', 70);
    base[70] = '\0';
    m = write_meta_generate_name(base);
    assert_int_equal(strlen(m), 63); /* the base cut to 58 */
    free(n);
    free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),      cmocka_unit_test(test_rules),
        cmocka_unit_test(test_decode),     cmocka_unit_test(test_render),
        cmocka_unit_test(test_generation), cmocka_unit_test(test_random),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
