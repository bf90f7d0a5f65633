/*
 * review.h: the three review endpoints that let a client ask about
 * itself, so that `kubectl auth can-i [--list]` and `kubectl auth whoami`
 * work:
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
 *   POST /apis/authorization.k8s.io/v1/selfsubjectrulesreviews
 *        a SelfSubjectRulesReview: what may I do in spec.namespace?
 *        Answered 201 Created, as the apiserver's REST Create, with
 *        status {resourceRules [{verbs, apiGroups, resources,
 *        resourceNames}], nonResourceRules [{verbs, nonResourceURLs}],
 *        incomplete (always false: RBAC's and AlwaysAllow's rule
 *        resolvers are complete), evaluationError (the missing roles,
 *        when any)} from authz_rules (authz.h), the spec not echoed; 400
 *        BadRequest "no namespace on request" when spec.namespace is
 *        empty.
 *   POST /apis/authentication.k8s.io/v1/selfsubjectreviews
 *        a SelfSubjectReview: who am I?  Answered 201 Created with
 *        status.userInfo {username, uid (when known), groups} of the
 *        request's identity (identity.h).
 *
 * The body (stream_body) is decoded by src/review_body.h, in JSON or in
 * the Kubernetes protobuf encoding kubectl sends; answers are JSON.
 */
#ifndef REVIEW_H
#define REVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/resource_type.h"
#include "src/authz.h"
#include "src/identity.h"
#include "src/stream.h"

#define REVIEW_ACCESS_PATH                                                     \
    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
#define REVIEW_RULES_PATH                                                      \
    "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
#define REVIEW_SELF_PATH "/apis/authentication.k8s.io/v1/selfsubjectreviews"

/* The three review types, for discovery (without key_prefix: not
 * stored, verbs ["create"]; cluster-scoped, as the apiserver lists them);
 * *n set to 3. */
const struct resource_type *const *review_types(size_t *n);

/* Whether path is one of the three review endpoints (which take POST only). */
bool review_path(const char *path);

/* Answers the POST of s to a review_path as id (borrowed), asking z (NULL:
 * everything is allowed). */
void review_handle(struct stream *s, struct authz *z,
                   const struct identity *id);

#endif
