/*
 * review.h: the two review endpoints that let a client ask about itself,
 * so that `kubectl auth can-i` and `kubectl auth whoami` work:
 *
 *   POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews
 *        a SelfSubjectAccessReview: may I do spec.resourceAttributes
 *        {namespace, verb, group, version, resource, subresource, name} or
 *        spec.nonResourceAttributes {path, verb}?  Answered 201 Created
 *        with the review echoed (as the apiserver re-encodes it: the
 *        fields above, empty ones omitted) and status {allowed, reason},
 *        decided by authz_authorize (authz.h; no authorizer: allowed).  A
 *        denial is the authorizer's "no opinion" (RBAC never denies
 *        outright), so status.denied is never set.
 *   POST /apis/authentication.k8s.io/v1/selfsubjectreviews
 *        a SelfSubjectReview: who am I?  Answered 201 Created with
 *        status.userInfo {username, uid (when known), groups} of the
 *        request's identity (identity.h).
 *
 * The body (stream_body) is decoded as the apiserver's create handler
 * does: Content-Type application/json (or none; another is 415
 * UnsupportedMediaType), one JSON object (else 400 BadRequest "couldn't
 * get version/kind; json parse error: ..."), kind and apiVersion the
 * endpoint's or empty (defaulted; another apiVersion is 400 "the API
 * version in the data (X) does not match the expected API version (Y)",
 * another kind 400 "K in version \"V\" cannot be handled as a ..."), a
 * field of the wrong JSON type 400 as Go's decoder words it; a
 * SelfSubjectAccessReview with both or neither attributes is 422 Invalid
 * as the apiserver's validation.  Bodies are at most STREAM_MAX_BODY
 * (the front answers 413 beyond).
 */
#ifndef REVIEW_H
#define REVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "src/authz.h"
#include "src/identity.h"
#include "src/stream.h"

#define REVIEW_ACCESS_PATH                                                     \
    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
#define REVIEW_SELF_PATH "/apis/authentication.k8s.io/v1/selfsubjectreviews"

/* Whether path is one of the two review endpoints (which take POST only). */
bool review_path(const char *path);

/* Answers the POST of s to a review_path as id (borrowed), asking z (NULL:
 * everything is allowed). */
void review_handle(struct stream *s, struct authz *z,
                   const struct identity *id);

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
 * (review_access_fini frees it).  RW_OK, or RW_EINVAL with *err filled as
 * described at the top.
 */
int review_decode_access(const char *body, size_t len,
                         const char *content_type, struct review_access *a,
                         struct review_error *err);
void review_access_fini(struct review_access *a);

/* Checks a SelfSubjectReview body the same way (its status is ignored, as
 * the apiserver fills it).  RW_OK or RW_EINVAL with *err. */
int review_decode_self(const char *body, size_t len, const char *content_type,
                       struct review_error *err);

#endif
