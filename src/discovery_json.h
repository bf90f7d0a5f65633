/*
 * discovery_json.h: the JSON of the discovery documents (src/discovery.h serves
 * them), for the served types only, as kube-apiserver 1.32 writes them
 * (k8s.io/apimachinery meta/v1 discovery types; k8s.io/api apidiscovery/v2 and
 * v2beta1 for aggregated discovery).
 *
 * Order: groups in the apiserver's priority order (apps 17800, autoscaling
 * 17500, batch 17400, coordination.k8s.io 16500: for the groups ringwatch
 * serves, their name order), the versions of a group in the order types
 * list them, the resources of a group version by name (the apiserver
 * installs its paths sorted).  Every resource has verbs get, list and
 * watch (what ringwatch serves; a type without key_prefix, not stored: a
 * review, src/review.h: create), its shortNames and categories when it has
 * any (resource_type.h), and no subresources; storageVersionHash is not
 * given.
 *
 * Every function returns a new rbuf (refs 1) owned by the caller; types
 * is n borrowed pointers, in any order.
 */
#ifndef DISCOVERY_JSON_H
#define DISCOVERY_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/rbuf.h"
#include "cache/resource_type.h"

/* /version: major "1", minor "32", gitVersion "v1.32.0+ringwatch",
 * gitCommit from -DRINGWATCH_GIT_COMMIT="..." (else "unknown"), buildDate
 * the compile time in RFC 3339. */
struct rbuf *discovery_json_version(void);

/* /api: {"kind":"APIVersions","versions":["v1"],
 * "serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0",
 * "serverAddress":server_address}]} (NULL reads ""). */
struct rbuf *discovery_json_versions(const char *server_address);

/* /apis: {"kind":"APIGroupList","apiVersion":"v1","groups":[APIGroup...]}
 * with one APIGroup per group of types (the core group aside). */
struct rbuf *discovery_json_group_list(const struct resource_type *const *types,
                                       size_t n);

/* /apis/GROUP: {"kind":"APIGroup","apiVersion":"v1","name":group,
 * "versions":[{"groupVersion":"G/V","version":"V"}...],"preferredVersion":
 * the first of them}; group must be one of types'. */
struct rbuf *discovery_json_group(const struct resource_type *const *types,
                                  size_t n, const char *group);

/* /api/v1 and /apis/GROUP/VERSION: {"kind":"APIResourceList",
 * "apiVersion":"v1","groupVersion":...,"resources":[APIResource...]}: name,
 * singularName, namespaced, kind, verbs, shortNames, categories.  group ""
 * (or NULL) is the core group. */
struct rbuf *
discovery_json_resource_list(const char *group, const char *version,
                             const struct resource_type *const *types,
                             size_t n);

/*
 * Aggregated discovery: {"kind":"APIGroupDiscoveryList","apiVersion":
 * "apidiscovery.k8s.io/v2" (beta: v2beta1),"metadata":{},"items":[
 * {"metadata":{"name":GROUP,"creationTimestamp":null},"versions":[
 * {"version":V,"resources":[APIResourceDiscovery...],"freshness":
 * "Current"}]}...]}, each resource {"resource","responseKind":{"group",
 * "version","kind"},"scope":"Namespaced"|"Cluster","singularResource",
 * "verbs","shortNames","categories"}.  core: /api's document, the core
 * group only (always listed, with version v1, its resources omitted when
 * none is served); else /apis', every other group.
 */
struct rbuf *discovery_json_aggregated(const struct resource_type *const *types,
                                       size_t n, bool core, bool beta);

#endif
