/*
 * watch_authz.h: a running WATCH whose user loses access ends (the
 * apiserver authorizes a watch only when it starts).  A watch keeps a
 * grant (src/watch.h) holding a reference to its identity and a copy of
 * its authorization attributes; after every change of the RBAC objects
 * (authz_on_change) every watch is
 * asked again, and one the authorizer now denies gets an ERROR event with
 * the 403 Forbidden Status it would get if it started now, then its
 * stream ends: its informer's re-list or re-watch gets 403.  Counted per
 * resource as ringwatch_watches_ended_unauthorized_total.
 */
#ifndef WATCH_AUTHZ_H
#define WATCH_AUTHZ_H

#include <stddef.h>

#include "src/authz.h"
#include "src/watch.h"

struct resource;

/* A grant for a watch by id (a reference is taken) with attributes a
 * (copied), checked with z (borrowed, outlives the watch).  For
 * watch_start, which takes it. */
struct watch_grant *watch_authz_grant(struct authz *z, struct identity *id,
                                      const struct authz_attributes *a);

/* Re-checks every watch of the n resources (watch_set_recheck); returns
 * how many ended. */
size_t watch_authz_recheck(struct resource *const *res, size_t n);

#endif
