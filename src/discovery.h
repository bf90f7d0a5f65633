/*
 * discovery.h: the documents kubectl reads before `kubectl get`: /version,
 * /api, /apis, /api/v1 and /apis/GROUP/VERSION, for the served types only.
 * Built once at start (the set of types never changes) and shared by
 * reference.  Plain JSON only: kubectl 1.32 asks for aggregated discovery
 * first and falls back to these when the server answers application/json.
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

/* Answers path if it is a discovery document and returns true; false
 * (nothing sent) otherwise. */
bool discovery_handle(struct discovery *d, struct stream *s,
                      const char *path);

#endif
