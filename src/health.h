/*
 * health.h: /healthz, /livez and /readyz, in the apiserver's shape: "ok"
 * with 200, or the list of checks ("[+]name ok" / "[-]name failed: why")
 * and 500 when one fails; ?verbose lists the checks either way.
 * Readiness: the upstream connection is up (check "upstream", whatever
 * the store: the apiserver names its storage check "etcd") and every
 * resource's cache holds a complete list (checks "cache/<resource>").
 */
#ifndef HEALTH_H
#define HEALTH_H

#include <stdbool.h>
#include <stddef.h>

#include "src/stream.h"

struct resource;

/* Answers path if it is a health endpoint and returns true, else false.
 * upstream_tls_error: while not connected, why the last TLS handshake
 * with the store failed (check "upstream" then says "failed: TLS
 * handshake: WHY"); NULL or "": none. */
bool health_handle(struct stream *s, const char *path, bool verbose,
                   struct resource *const *resources, size_t n,
                   bool upstream_connected, const char *upstream_tls_error);

#endif
