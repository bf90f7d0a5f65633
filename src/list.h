/*
 * list.h: LIST of a collection and GET of one object, served from the
 * resource's store in memory.
 *
 * LIST (kube-wire.md): 200, application/json, {"kind":"<Kind>List",
 * "apiVersion":...,"metadata":{"resourceVersion":"<cache revision>"},
 * "items":[...]}, items in key order (etcd's), [] when none match.  The
 * body is written as references to each object's JSON: nothing is copied
 * or re-encoded per request.  limit and continue are not implemented yet:
 * limit is ignored and the whole list returned, with no continue token
 * (never a wrong page).
 */
#ifndef LIST_H
#define LIST_H

#include "cache/selector.h"
#include "proto/query.h"
#include "src/stream.h"

struct resource;

/* LIST r in namespace ns (NULL: all) filtered by sel (borrowed, NULL: all).
 * 429 TooManyRequests while the cache is not ready. */
void list_collection(struct stream *s, struct resource *r, const char *ns,
                     const struct selector *sel, const struct query *q);

/* GET the object ns/name (ns NULL for cluster-scoped types): its JSON, or
 * 404 NotFound '<resource> "<name>" not found'. */
void list_object(struct stream *s, struct resource *r, const char *ns,
                 const char *name);

#endif
