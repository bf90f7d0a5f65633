/*
 * review_body_test.c: the review endpoints' bodies (src/review_body.c):
 * SelfSubjectAccessReviews in JSON and in the protobuf kubectl 1.32 sends
 * (bytes captured from `kubectl auth can-i`), resource and non-resource
 * attributes, kind and apiVersion defaulted when empty; the
 * SelfSubjectRulesReview of `kubectl auth can-i --list` (its namespace),
 * in both encodings; and each refusal
 * with the apiserver's code and words: not JSON, truncated protobuf, a
 * wrong magic, another apiVersion or kind, a field of the wrong type (400),
 * both or neither attributes (422), another media type (415).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/review_body.h"

#define JSON "application/json"
#define PB "application/vnd.kubernetes.protobuf"

/* kubectl auth can-i list pods (namespace default) */
static const char can_i_list_pods[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x32, 0x0a, 0x17, 0x61, 0x75, 0x74, 0x68,
    0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e, 0x6b, 0x38,
    0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31, 0x12, 0x17, 0x53, 0x65, 0x6c,
    0x66, 0x53, 0x75, 0x62, 0x6a, 0x65, 0x63, 0x74, 0x41, 0x63, 0x63, 0x65,
    0x73, 0x73, 0x52, 0x65, 0x76, 0x69, 0x65, 0x77, 0x12, 0x3d, 0x0a, 0x10,
    0x0a, 0x00, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00,
    0x38, 0x00, 0x42, 0x00, 0x12, 0x1f, 0x0a, 0x1d, 0x0a, 0x07, 0x64, 0x65,
    0x66, 0x61, 0x75, 0x6c, 0x74, 0x12, 0x04, 0x6c, 0x69, 0x73, 0x74, 0x1a,
    0x00, 0x22, 0x00, 0x2a, 0x04, 0x70, 0x6f, 0x64, 0x73, 0x32, 0x00, 0x3a,
    0x00, 0x1a, 0x08, 0x08, 0x00, 0x12, 0x00, 0x1a, 0x00, 0x20, 0x00, 0x1a,
    0x00, 0x22, 0x00,
};
/* kubectl auth can-i get /metrics */
static const char can_i_get_metrics[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x32, 0x0a, 0x17, 0x61, 0x75, 0x74,
    0x68, 0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e,
    0x6b, 0x38, 0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31, 0x12, 0x17,
    0x53, 0x65, 0x6c, 0x66, 0x53, 0x75, 0x62, 0x6a, 0x65, 0x63, 0x74,
    0x41, 0x63, 0x63, 0x65, 0x73, 0x73, 0x52, 0x65, 0x76, 0x69, 0x65,
    0x77, 0x12, 0x2f, 0x0a, 0x10, 0x0a, 0x00, 0x12, 0x00, 0x1a, 0x00,
    0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12,
    0x11, 0x12, 0x0f, 0x0a, 0x08, 0x2f, 0x6d, 0x65, 0x74, 0x72, 0x69,
    0x63, 0x73, 0x12, 0x03, 0x67, 0x65, 0x74, 0x1a, 0x08, 0x08, 0x00,
    0x12, 0x00, 0x1a, 0x00, 0x20, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
/* kubectl auth can-i --list -n dev */
static const char can_i_list_dev[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x31, 0x0a, 0x17, 0x61, 0x75, 0x74, 0x68,
    0x6f, 0x72, 0x69, 0x7a, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e, 0x6b, 0x38,
    0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31, 0x12, 0x16, 0x53, 0x65, 0x6c,
    0x66, 0x53, 0x75, 0x62, 0x6a, 0x65, 0x63, 0x74, 0x52, 0x75, 0x6c, 0x65,
    0x73, 0x52, 0x65, 0x76, 0x69, 0x65, 0x77, 0x12, 0x1f, 0x0a, 0x10, 0x0a,
    0x00, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38,
    0x00, 0x42, 0x00, 0x12, 0x05, 0x0a, 0x03, 0x64, 0x65, 0x76, 0x1a, 0x04,
    0x18, 0x00, 0x22, 0x00, 0x1a, 0x00, 0x22, 0x00,
};
/* kubectl auth whoami */
static const char whoami[] = {
    0x6b, 0x38, 0x73, 0x00, 0x0a, 0x2d, 0x0a, 0x18, 0x61, 0x75, 0x74, 0x68,
    0x65, 0x6e, 0x74, 0x69, 0x63, 0x61, 0x74, 0x69, 0x6f, 0x6e, 0x2e, 0x6b,
    0x38, 0x73, 0x2e, 0x69, 0x6f, 0x2f, 0x76, 0x31, 0x12, 0x11, 0x53, 0x65,
    0x6c, 0x66, 0x53, 0x75, 0x62, 0x6a, 0x65, 0x63, 0x74, 0x52, 0x65, 0x76,
    0x69, 0x65, 0x77, 0x12, 0x1a, 0x0a, 0x10, 0x0a, 0x00, 0x12, 0x00, 0x1a,
    0x00, 0x22, 0x00, 0x2a, 0x00, 0x32, 0x00, 0x38, 0x00, 0x42, 0x00, 0x12,
    0x06, 0x0a, 0x04, 0x0a, 0x00, 0x12, 0x00, 0x1a, 0x00, 0x22, 0x00,
};

static int access(const char *body, size_t len, const char *type,
                  struct review_access *a, struct review_error *err)
{
    memset(err, 0, sizeof(*err));
    return review_body_decode_access(body, len, type, a, err);
}

static void refused(const char *body, size_t len, const char *type, int code,
                    const char *words)
{
    struct review_access a;
    struct review_error err;

    assert_int_equal(access(body, len, type, &a, &err), RW_EINVAL);
    assert_int_equal(err.code, code);
    if (strstr(err.message, words) == NULL)
        fail_msg("\"%s\" not in \"%s\"", words, err.message);
}

#define REFUSED_JSON(text, code, words)                                        \
    refused(text, strlen(text), JSON, code, words)

static void test_protobuf(void **state)
{
    struct review_access a;
    struct review_error err;

    assert_int_equal(
        access(can_i_list_pods, sizeof(can_i_list_pods), PB, &a, &err), RW_OK);
    assert_true(a.resource_request);
    assert_string_equal(a.ns, "default");
    assert_string_equal(a.verb, "list");
    assert_string_equal(a.group, "");
    assert_string_equal(a.resource, "pods");
    assert_string_equal(a.name, "");
    assert_string_equal(a.path, "");
    review_body_access_fini(&a);

    assert_int_equal(access(can_i_get_metrics, sizeof(can_i_get_metrics),
                            PB "; charset=x", &a, &err),
                     RW_OK);
    assert_false(a.resource_request);
    assert_string_equal(a.path, "/metrics");
    assert_string_equal(a.verb, "get");
    review_body_access_fini(&a);

    assert_int_equal(review_body_decode_self(whoami, sizeof(whoami), PB, &err),
                     RW_OK);
    /* a SelfSubjectReview is not an access review */
    refused(whoami, sizeof(whoami), PB, 400,
            "the API version in the data (authentication.k8s.io/v1) does not "
            "match the expected API version (authorization.k8s.io/v1)");
    /* every truncation is refused, never read past its end */
    for (size_t n = 0; n < sizeof(can_i_list_pods); n++) {
        memset(&err, 0, sizeof(err));
        if (access(can_i_list_pods, n, PB, &a, &err) == RW_OK) {
            review_body_access_fini(&a);
            continue; /* a prefix may end between fields */
        }
        assert_true(err.code == 400 || err.code == 422);
    }
    refused(can_i_list_pods, 6, PB, 400, "unexpected EOF");
    refused("k9s\0", 4, PB, 400, "expected prefix [107 56 115 0]");
}

static void test_json(void **state)
{
    static const char res[] =
        "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":"
        "\"authorization.k8s.io/v1\",\"spec\":{\"resourceAttributes\":{"
        "\"namespace\":\"ns\",\"verb\":\"watch\",\"group\":\"apps\","
        "\"version\":\"v1\",\"resource\":\"deployments\",\"subresource\":"
        "\"scale\",\"name\":\"web\",\"labelSelector\":{}}}}";
    static const char non[] =
        " {\"spec\":{\"nonResourceAttributes\":{\"path\":\"/healthz\","
        "\"verb\":\"get\"},\"resourceAttributes\":null}}\n";
    struct review_access a;
    struct review_error err;

    assert_int_equal(access(res, strlen(res), "", &a, &err), RW_OK);
    assert_true(a.resource_request);
    assert_string_equal(a.ns, "ns");
    assert_string_equal(a.verb, "watch");
    assert_string_equal(a.group, "apps");
    assert_string_equal(a.version, "v1");
    assert_string_equal(a.resource, "deployments");
    assert_string_equal(a.subresource, "scale");
    assert_string_equal(a.name, "web");
    review_body_access_fini(&a);
    /* kind and apiVersion empty: defaulted; null is absent */
    assert_int_equal(access(non, strlen(non), JSON, &a, &err), RW_OK);
    assert_false(a.resource_request);
    assert_string_equal(a.path, "/healthz");
    assert_string_equal(a.verb, "get");
    review_body_access_fini(&a);
    assert_int_equal(review_body_decode_self("{\"kind\":\"SelfSubjectReview\"}",
                                             28, JSON, &err),
                     RW_OK);
}

static void test_refusals(void **state)
{
    struct review_error err;

    REFUSED_JSON("", 400, "unexpected end of JSON input");
    REFUSED_JSON("not json", 400,
                 "couldn't get version/kind; json parse "
                 "error");
    REFUSED_JSON("[1]", 400, "couldn't get version/kind");
    REFUSED_JSON("{\"spec\":{}} x", 400, "couldn't get version/kind");
    REFUSED_JSON("{\"apiVersion\":\"v1\",\"spec\":{}}", 400,
                 "the API version in the data (v1) does not match the "
                 "expected API version (authorization.k8s.io/v1)");
    REFUSED_JSON("{\"kind\":\"Pod\",\"spec\":{}}", 400,
                 "Pod in version \"v1\" cannot be handled as a "
                 "SelfSubjectAccessReview");
    REFUSED_JSON("{\"kind\":7}", 400,
                 "cannot unmarshal number into Go struct field .kind of "
                 "type string");
    REFUSED_JSON("{\"spec\":{\"resourceAttributes\":{\"verb\":1}}}", 400,
                 "cannot unmarshal number into Go struct field "
                 "SelfSubjectAccessReview.spec.resourceAttributes.verb of "
                 "type string");
    REFUSED_JSON("{\"spec\":\"x\"}", 400,
                 "cannot unmarshal string into Go struct field "
                 "SelfSubjectAccessReview.spec of type "
                 "v1.SelfSubjectAccessReviewSpec");
    REFUSED_JSON("{\"spec\":{}}", 422,
                 "SelfSubjectAccessReview.authorization.k8s.io \"\" is "
                 "invalid: spec.resourceAttributes: Invalid value: \"null\": "
                 "exactly one of nonResourceAttributes or resourceAttributes "
                 "must be specified");
    REFUSED_JSON("{\"spec\":{\"resourceAttributes\":{},"
                 "\"nonResourceAttributes\":{}}}",
                 422,
                 "spec.nonResourceAttributes: Invalid value: \"null\": cannot "
                 "be specified in combination with resourceAttributes");
    refused("{}", 2, "application/yaml", 415,
            "the body of the request was in an unknown format");
    assert_int_equal(review_body_decode_self("{}", 2, "text/plain", &err),
                     RW_EINVAL);
    assert_int_equal(err.code, 415);
    assert_int_equal(
        review_body_decode_self("{\"kind\":\"SelfSubjectAccessReview\"}", 34,
                                JSON, &err),
        RW_EINVAL);
    assert_int_equal(err.code, 400);
    assert_string_equal(err.reason, "BadRequest");
}

/* review_body_decode_rules of body is RW_OK with namespace want. */
static void rules_ns(const char *body, size_t len, const char *type,
                     const char *want)
{
    struct review_error err = {0};
    char *ns = (char *)1;

    if (review_body_decode_rules(body, len, type, &ns, &err) != RW_OK)
        fail_msg("refused: %d %s", err.code, err.message);
    assert_string_equal(ns, want);
    free(ns);
}

/* review_body_decode_rules of body refused with code and words. */
static void rules_refused(const char *body, size_t len, const char *type,
                          int code, const char *words)
{
    struct review_error err = {0};
    char *ns = (char *)1;

    assert_int_equal(review_body_decode_rules(body, len, type, &ns, &err),
                     RW_EINVAL);
    assert_null(ns);
    assert_int_equal(err.code, code);
    if (strstr(err.message, words) == NULL)
        fail_msg("\"%s\" not in \"%s\"", words, err.message);
}

#define RULES_JSON(text, want) rules_ns(text, strlen(text), JSON, want)
#define RULES_REFUSED(text, code, words)                                       \
    rules_refused(text, strlen(text), JSON, code, words)

static void test_rules(void **state)
{
    (void)state;
    rules_ns(can_i_list_dev, sizeof(can_i_list_dev), PB, "dev");
    /* every truncation is refused or a prefix, never read past its end */
    for (size_t n = 0; n < sizeof(can_i_list_dev); n++) {
        struct review_error err = {0};
        char *ns = NULL;

        if (review_body_decode_rules(can_i_list_dev, n, PB, &ns, &err) == RW_OK)
            free(ns);
        else
            assert_int_equal(err.code, 400);
    }
    rules_refused(can_i_list_pods, sizeof(can_i_list_pods), PB, 400,
                  "SelfSubjectAccessReview in version \"v1\" cannot be "
                  "handled as a SelfSubjectRulesReview");
    rules_refused(whoami, sizeof(whoami), PB, 400,
                  "the API version in the data (authentication.k8s.io/v1) "
                  "does not match the expected API version "
                  "(authorization.k8s.io/v1)");
    RULES_JSON("{\"kind\":\"SelfSubjectRulesReview\",\"apiVersion\":"
               "\"authorization.k8s.io/v1\",\"spec\":{\"namespace\":\"dev\"},"
               "\"status\":{\"incomplete\":true}}",
               "dev");
    /* absent or null: "" (the endpoint answers 400 "no namespace") */
    RULES_JSON("{}", "");
    RULES_JSON("{\"spec\":null}", "");
    RULES_JSON("{\"spec\":{\"namespace\":null}}", "");
    RULES_REFUSED("{\"spec\":{\"namespace\":7}}", 400,
                  "SelfSubjectRulesReview in version \"v1\" cannot be handled "
                  "as a SelfSubjectRulesReview: json: cannot unmarshal number "
                  "into Go struct field SelfSubjectRulesReview.spec.namespace "
                  "of type string");
    RULES_REFUSED("{\"spec\":[]}", 400,
                  "cannot unmarshal array into Go struct field "
                  "SelfSubjectRulesReview.spec of type "
                  "v1.SelfSubjectRulesReviewSpec");
    RULES_REFUSED("{\"kind\":\"SelfSubjectAccessReview\"}", 400,
                  "SelfSubjectAccessReview in version \"v1\" cannot be "
                  "handled as a SelfSubjectRulesReview");
    RULES_REFUSED("{", 400, "couldn't get version/kind; json parse error");
    rules_refused("{}", 2, "text/yaml", 415,
                  "the body of the request was in an unknown format");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protobuf),
        cmocka_unit_test(test_json),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_rules),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
