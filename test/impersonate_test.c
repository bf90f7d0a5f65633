/*
 * impersonate_test.c: the identity an impersonating request gets
 * (src/impersonate.c) with every part allowed (no authorizer), as
 * kube-apiserver's WithImpersonation builds it: the groups given or a
 * service account's, system:authenticated added unless it or
 * system:unauthenticated is there, system:unauthenticated for
 * system:anonymous; groups without a user refused.  The denials are
 * test/integration/secure_front_test.py's (real RBAC, real kubectl).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "src/impersonate.h"

/* The identity fields make of alice's request, as "name uid g1,g2". */
static const char *acting(const char *fields, char *out, size_t len)
{
    struct identity *id = identity_new(IDENTITY_X509, "alice", NULL), *as;
    struct rbuf *forbidden;
    char message[256];
    size_t at;

    identity_add_group(id, "system:masters");
    assert_int_equal(impersonate(NULL, id, fields, &as, &forbidden, message,
                                 sizeof(message)),
                     IMPERSONATE_OK);
    assert_null(forbidden);
    at = (size_t)snprintf(out, len, "%s %s ", as->name, as->uid);
    for (size_t i = 0; i < as->ngroups; i++)
        at += (size_t)snprintf(out + at, len - at, "%s%s", i ? "," : "",
                               as->groups[i]);
    identity_unref(as);
    identity_unref(id);
    return out;
}

static void test_identity(void **state)
{
    char b[512];

    assert_string_equal(acting("", b, sizeof(b)), "alice  system:masters");
    assert_string_equal(acting("impersonate-user: bob", b, sizeof(b)),
                        "bob  system:authenticated");
    assert_string_equal(acting("impersonate-user: bob\nimpersonate-group: dev\n"
                               "impersonate-group: qa\nimpersonate-uid: 42\n"
                               "impersonate-extra-scopes: view",
                               b, sizeof(b)),
                        "bob 42 dev,qa,system:authenticated");
    assert_string_equal(
        acting(
            "impersonate-user: bob\nimpersonate-group: system:unauthenticated",
            b, sizeof(b)),
        "bob  system:unauthenticated");
    assert_string_equal(
        acting("impersonate-user: system:serviceaccount:kube-system:ctl", b,
               sizeof(b)),
        "system:serviceaccount:kube-system:ctl  system:serviceaccounts,"
        "system:serviceaccounts:kube-system,system:authenticated");
    assert_string_equal(
        acting("impersonate-user: system:anonymous", b, sizeof(b)),
        "system:anonymous  system:unauthenticated");
    /* an empty user, as Go's Header.Get finds it, is no impersonation */
    assert_string_equal(acting("impersonate-user: ", b, sizeof(b)),
                        "alice  system:masters");
}

/* A user is a service account only as serviceaccount.SplitUsername reads
 * it (NS a DNS-1123 label, NAME a DNS-1123 subdomain, nothing after):
 * only then is it authorized as "serviceaccounts" and given their groups;
 * any other system:serviceaccount:... name is a plain user's. */
static void test_service_account_names(void **state)
{
    static const char *const users[] = {
        "system:serviceaccount:kube-system:a:b", /* three parts */
        "system:serviceaccount:Kube_System:ctl", /* not a label */
        "system:serviceaccount::ctl",            /* empty namespace */
        "system:serviceaccount:ns:",             /* empty name */
        "system:serviceaccount:ns:Ctl",          /* not a subdomain */
        "system:serviceaccount:"
        "a123456789b123456789c123456789d123456789e123456789f123456789g123:x",
        "system:serviceaccount:ns",
    };
    char ns[IDENTITY_NS_MAX + 1], fields[256], want[256], b[512];
    const char *name;

    (void)state;
    assert_true(identity_sa_split("system:serviceaccount:kube-system:my.ctl-1",
                                  ns, &name));
    assert_string_equal(ns, "kube-system");
    assert_string_equal(name, "my.ctl-1");
    for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
        assert_false(identity_sa_split(users[i], ns, &name));
        snprintf(fields, sizeof(fields), "impersonate-user: %s", users[i]);
        snprintf(want, sizeof(want), "%s  system:authenticated", users[i]);
        assert_string_equal(acting(fields, b, sizeof(b)), want);
    }
}

static void test_invalid(void **state)
{
    struct identity *id = identity_anonymous(), *as;
    struct rbuf *forbidden;
    char message[256];

    for (int i = 0; i < 3; i++) {
        const char *fields[] = {"impersonate-group: dev", "impersonate-uid: 1",
                                "impersonate-extra-k: v"};

        assert_int_equal(impersonate(NULL, id, fields[i], &as, &forbidden,
                                     message, sizeof(message)),
                         IMPERSONATE_INVALID);
        assert_null(as);
        assert_non_null(strstr(message, "without impersonating a user"));
    }
    identity_unref(id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_service_account_names),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
