/*
 * authz_attributes.h: what a request asks to do, as kube-apiserver's
 * authorizer.Attributes (filled from the request the way its
 * RequestInfoFactory reads the path and query).  Apart from authz.h so
 * that the evaluators under the authorizer (src/rbac.h) read it without
 * depending on the authorizer.
 */
#ifndef AUTHZ_ATTRIBUTES_H
#define AUTHZ_ATTRIBUTES_H

#include <stdbool.h>

/* A request's attributes, as the apiserver's authorizer.Attributes.
 * Every string is borrowed and never NULL ("" when not set). */
struct authz_attributes {
    const char *verb; /* "get", "list", "watch", "create", ... */
    bool resource_request;
    /* resource requests */
    const char *api_group;   /* "" for the core group */
    const char *api_version; /* "v1" */
    const char *resource;    /* "pods" */
    const char *subresource; /* "" when none */
    const char *ns;          /* "" for all namespaces / cluster scope */
    const char *name;        /* "" for a collection; for list and watch the
                                name a fieldSelector metadata.name=X pins */
    /* non-resource requests: the path, "/metrics" */
    const char *path;
};

#endif
