/*
 * upstream_registry.h: the upstream adapters ringwatch knows, in one
 * table, and the choice of one by the URL's scheme (--upstream): etcd for
 * http:// and https:// today; a Redis store (redis://) and a Kubernetes
 * API server are to join it.
 */
#ifndef UPSTREAM_REGISTRY_H
#define UPSTREAM_REGISTRY_H

#include <stddef.h>

struct upstream_ops;

/*
 * The adapter for url, chosen by its scheme (the text before "://"), and
 * checked by that adapter (its ops->check).  Returns it, or NULL with why
 * set: no scheme or an unknown one ("unknown scheme \"ftp\": expected
 * http:// or https:// (etcd)", naming every scheme known), or the
 * adapter's own words.
 */
const struct upstream_ops *upstream_registry_find(const char *url, char *why,
                                                  size_t why_len);

/* The table, *n entries (for tests and --help). */
const struct upstream_ops *const *upstream_registry_all(size_t *n);

#endif
