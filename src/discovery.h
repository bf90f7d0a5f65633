/*
 * discovery.h: the documents clients read before anything else: /version,
 * /api, /apis, /apis/GROUP, /api/v1 and /apis/GROUP/VERSION
 * (src/discovery_json.h), for the served types only.  Built once at start (the
 * set of types never changes) and shared by reference.
 *
 * Content negotiation as kube-apiserver 1.32 (proto/accept.h): /api and
 * /apis answer aggregated discovery (an APIGroupDiscoveryList of every
 * group, version and resource, apidiscovery.k8s.io v2 or v2beta1, with the
 * Content-Type "application/json;g=apidiscovery.k8s.io;v=V;as=
 * APIGroupDiscoveryList", an ETag, Vary: Accept and Cache-Control: public)
 * when the Accept header chooses it, as kubectl and client-go do, so that
 * they discover everything in two requests; otherwise, and on every other
 * document, plain JSON, or 406 NotAcceptable when the header allows no
 * plain JSON.  /version, /api, /api/v1 and /apis/GROUP/VERSION are
 * go-restful routes in the apiserver and refuse headers that name no
 * produced media type (accept_route); /apis and /apis/GROUP are the
 * aggregator's and do not.  The ETag is not the apiserver's (a hash of
 * the document all the same); If-None-Match is not honoured (200 with the
 * document, always).
 */
#ifndef DISCOVERY_H
#define DISCOVERY_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/resource_type.h"
#include "src/stream.h"

struct discovery;

/* types: the served types (borrowed, static); listen: host:port the server
 * announces in /api's serverAddressByClientCIDRs. */
struct discovery *discovery_new(const struct resource_type *const *types,
                                size_t n, const char *listen);
void discovery_free(struct discovery *d);

/* Answers path if it is a discovery document ("/api/" is "/api") and
 * returns true; false (nothing sent) otherwise. */
bool discovery_handle(struct discovery *d, struct stream *s, const char *path);

#endif
