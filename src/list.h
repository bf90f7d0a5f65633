/*
 * list.h: LIST of a collection and GET of one object, served from memory
 * whenever the cache can prove the read fresh enough (src/fresh.h), else
 * from the store at the right revision.
 *
 * LIST (docs/kube-wire.md): 200, application/json, {"kind":"<Kind>List",
 * "apiVersion":...,"metadata":{"resourceVersion":"<rv>"[,"continue":T,
 * "remainingItemCount":n]},"items":[...]}, items in key order (etcd's), []
 * when none match; or, as the Accept header negotiated (proto/accept.h), a
 * meta.k8s.io Table (proto/table.h) or a PartialObjectMetadataList of the
 * items' metadata ("items":null when there are none, as the apiserver's
 * asPartialObjectMetadataList writes it; proto/partial.h).  resourceVersion
 * semantics as kube-apiserver:
 *
 *   unset                       consistent (fresh.h READ_CONSISTENT)
 *   "0"                         any cached state; limit is honoured
 *   N (NotOlderThan, no limit)  at least N; 504 Timeout "Too large
 *                               resource version" after 3 s if N is ahead
 *   N with limit, or Exact      exactly N: from memory inside the window,
 *                               else from the store, else 410 Expired;
 *                               410 at once for a lost N (resource.h
 *                               resource_rv_lost)
 *   continue=T                  the next page of T's snapshot (exactly its
 *                               revision); 410 Expired with a fresh token
 *                               that continues on current state when it
 *                               has gone or is of an earlier store
 *                               history; 400 with a non-zero
 *                               resourceVersion or a malformed token
 *
 * A LIST's resourceVersion is past the lost revisions whenever the store
 * is (src/fresh.h resume), so that a watch from it is not refused.
 *
 * Pages: at most limit items; when more match, metadata.continue (see
 * proto/ctoken.h) and, without selectors, remainingItemCount.  The body
 * is written as references to each object's JSON (large ones) or copied
 * into 64 KiB blocks (small ones): nothing is re-encoded per request.
 */
#ifndef LIST_H
#define LIST_H

#include "cache/selector.h"
#include "proto/accept.h"
#include "proto/query.h"
#include "src/stream.h"

struct resource;

/* LIST r in namespace ns (NULL: all) filtered by sel (taken; NULL: all),
 * options q (read now, not kept), in the representation accept negotiated
 * (a PartialObjectMetadata, or a Table with a bad includeObject, is
 * refused with 406 or 400 once the read succeeded: proto/repr.h
 * repr_resolve).  May answer later: the stream is kept (and released if
 * the client goes away) while the read is proven fresh.  429
 * TooManyRequests while the cache is not ready. */
void list_collection(struct stream *s, struct resource *r, const char *ns,
                     struct selector *sel, const struct query *q,
                     const struct accept_choice *accept);

/* GET the object ns/name (ns NULL for cluster-scoped types) with q's
 * resourceVersion semantics (unset: consistent; "0": any; N: not older
 * than N): its JSON, its one-row Table or its PartialObjectMetadata (a
 * PartialObjectMetadataList is refused with 406, as above), or 404
 * NotFound '<resource> "<name>" not found'. */
void list_object(struct stream *s, struct resource *r, const char *ns,
                 const char *name, const struct query *q,
                 const struct accept_choice *accept);

#endif
