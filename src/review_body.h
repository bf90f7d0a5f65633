/*
 * review_body.h: the bodies of the review endpoints (src/review.h) decoded
 * as the apiserver's create handler decodes them, by Content-Type:
 *
 *   application/json (or none: the apiserver's default): one JSON object
 *     (else 400 BadRequest "couldn't get version/kind; json parse error:
 *     ..."); a field of the wrong JSON type is 400 as Go's decoder words
 *     it ("... cannot be handled as a SelfSubjectAccessReview: json:
 *     cannot unmarshal number into Go struct field ...").
 *   application/vnd.kubernetes.protobuf, what kubectl and client-go send
 *     for built-in types: the "k8s\0" magic, a runtime.Unknown {typeMeta
 *     {apiVersion, kind}, raw} and raw the object's protobuf message
 *     (k8s.io/api authorization/v1 and authentication/v1 generated.proto;
 *     unknown fields skipped, as Go's gogo-protobuf decoder); malformed:
 *     400 "... cannot be handled as a ...: proto: ...".
 *   anything else: 415 UnsupportedMediaType.
 *
 * kind and apiVersion must be the endpoint's or empty (defaulted, as the
 * handler's defaultGVK): another apiVersion is 400 "the API version in
 * the data (X) does not match the expected API version (Y)", another kind
 * 400 "K in version \"V\" cannot be handled as a ...".  A
 * SelfSubjectAccessReview with both or neither attributes is 422 Invalid,
 * as the apiserver's ValidateSelfSubjectAccessReviewSpec.
 */
#ifndef REVIEW_BODY_H
#define REVIEW_BODY_H

#include <stdbool.h>
#include <stddef.h>

/* A SelfSubjectAccessReview's spec as decoded: every string "" when
 * absent. */
struct review_access {
    bool resource_request; /* resourceAttributes; else nonResourceAttributes */
    char *ns, *verb, *group, *version, *resource, *subresource, *name;
    char *path;
};

/* A decoding failure: the HTTP code, its Status reason and message. */
struct review_error {
    int code;
    const char *reason;
    char message[512];
};

/*
 * Decodes a SelfSubjectAccessReview body (len bytes at body, as
 * stream_body gives it; content_type the request's Content-Type) into *a
 * (review_body_access_fini frees it).  RW_OK, or RW_EINVAL with *err filled as
 * described at the top.
 */
int review_body_decode_access(const char *body, size_t len,
                              const char *content_type, struct review_access *a,
                              struct review_error *err);
void review_body_access_fini(struct review_access *a);

/*
 * Decodes a SelfSubjectRulesReview body the same way: *ns a new string,
 * spec.namespace ("" when absent; its status is ignored, as the apiserver
 * fills it).  RW_OK, or RW_EINVAL with *err and *ns NULL.
 */
int review_body_decode_rules(const char *body, size_t len,
                             const char *content_type, char **ns,
                             struct review_error *err);

/* Checks a SelfSubjectReview body the same way (its status is ignored, as
 * the apiserver fills it).  RW_OK or RW_EINVAL with *err. */
int review_body_decode_self(const char *body, size_t len,
                            const char *content_type, struct review_error *err);

#endif
