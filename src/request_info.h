/*
 * request_info.h: what a request asks, as the authorizer reads it: the
 * attributes kube-apiserver's RequestInfoFactory.NewRequestInfo derives
 * from the method, path and query, before any routing (a path that names
 * nothing served is still authorized first, as the apiserver's filter
 * chain does, and only then 404):
 *
 * - /api/VERSION/... and /apis/GROUP/VERSION/... with at least one more
 *   segment are resource requests; everything else (/metrics, /healthz,
 *   /version, /api, /apis, /apis/G, /apis/G/V, /openapi/...) is a
 *   non-resource request on its path;
 * - verb: "watch" under /watch/; else "get" for GET and HEAD, which
 *   becomes "list", or "watch" when the query's first watch value is not
 *   "0" or "false" (case-insensitive: the apiserver's bool conversion),
 *   when the request names no object;
 * - namespaces/NS/RESOURCE/NAME/SUBRESOURCE; namespaces/NS alone (or
 *   with status or finalize) is the namespace object itself;
 * - for list and watch, a fieldSelector requiring metadata.name=X (= or
 *   ==) sets the name to X when X is a valid path segment name (not "."
 *   or "..", no "/" or "%"), so that resourceNames can grant it; a query
 *   the apiserver cannot decode sets no name.
 * Other methods are the apiserver's create, update, patch, delete,
 * deletecollection (by whether a name is given).  A non-resource
 * request's verb is its method in lower case ("get", "head", "post").
 */
#ifndef REQUEST_INFO_H
#define REQUEST_INFO_H

#include "src/authz_attributes.h"
#include "src/stream_types.h"

/* The attributes request_info_init may decode or build, each owned:
 * group, version, resource, subresource, namespace, name, verb. */
#define REQUEST_INFO_STRINGS 7

struct request_info {
    struct authz_attributes a; /* points into strings[] and the request */
    char *strings[REQUEST_INFO_STRINGS]; /* owned */
};

/* Fills ri from req (borrowed: ri points into it; finalise ri first). */
void request_info_init(struct request_info *ri, const struct request *req);
void request_info_fini(struct request_info *ri);

#endif
