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
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
