/*
 * authz.h: whether an identity may do what a request asks, as
 * kube-apiserver's authorizers: --authorization-mode AlwaysAllow or RBAC
 * (evaluated from the store's rbac.authorization.k8s.io/v1 objects,
 * cached and watched like any other resource).
 *
 * (This header is the interface the router, the watch re-check and the
 * access-review endpoint use; the module that implements it documents
 * its configuration here.)
 */
#ifndef AUTHZ_H
#define AUTHZ_H

#include <stdbool.h>
#include <stddef.h>

#include "src/identity.h"

struct authz;

/* A request's attributes, as the apiserver's authorizer.Attributes. */
struct authz_attributes {
    const char *verb;  /* "get", "list", "watch", "create", ... */
    bool resource_request;
    /* resource requests */
    const char *api_group;   /* "" for the core group */
    const char *api_version; /* "v1" */
    const char *resource;    /* "pods" */
    const char *subresource; /* "" when none */
    const char *ns;          /* "" for all namespaces / cluster scope */
    const char *name;        /* "" for a collection */
    /* non-resource requests: the path, "/metrics" */
    const char *path;
};

enum authz_decision {
    AUTHZ_DENY = 0,
    AUTHZ_ALLOW = 1,
};

/*
 * Decides whether id may do a.  AUTHZ_ALLOW, or AUTHZ_DENY with reason
 * (the apiserver's "RBAC: ..." reason text, possibly "") in reason.
 */
enum authz_decision authz_authorize(struct authz *z, const struct identity *id,
                                    const struct authz_attributes *a,
                                    char *reason, size_t reason_len);

/*
 * Writes the 403 Forbidden Status message of a denial, in the apiserver's
 * form: `pods is forbidden: User "alice" cannot list resource "pods" in
 * API group "" in the namespace "default"`, `... at the cluster scope`,
 * or `forbidden: User "alice" cannot get path "/metrics"`.
 */
void authz_forbidden_message(const struct identity *id,
                             const struct authz_attributes *a, char *out,
                             size_t out_len);

#endif
