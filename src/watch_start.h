/*
 * watch_start.h: starting a WATCH request: the checks and the start
 * revision (resourceVersion, sendInitialEvents, resourceVersionMatch), the
 * wait for a consistent or not-older-than state (src/fresh.h) when the
 * watch begins with initial events, then the watcher's registration in
 * its resource's watch set (watch.h) at the right ring position.  The
 * semantics, kube-apiserver's cacher's, are listed in watch.h.
 */
#ifndef WATCH_START_H
#define WATCH_START_H

#include "cache/selector.h"
#include "proto/accept.h"
#include "proto/query.h"
#include "src/stream.h"
#include "src/watch.h"

struct resource;

/*
 * Starts a WATCH on stream s for resource r: namespace ns (NULL: all),
 * selector sel (taken, may be NULL), options from q (resourceVersion,
 * allowWatchBookmarks, timeoutSeconds, sendInitialEvents, includeObject;
 * read now, not kept), events in the representation accept negotiated
 * (the object, PartialObjectMetadata or a Table: proto/repr.h; a
 * PartialObjectMetadataList or a bad includeObject for a Table is refused
 * with 406 or 400 once the start is proven, as repr_resolve says).
 * Answers at once when the start revision is too old (ERROR 410) or the
 * cache is not ready (429); a watch with initial events may keep the
 * stream until its state is proven (see watch.h), releasing it if the
 * client goes away.  grant (taken, may be NULL) is the watch's right to
 * run, checked again when it starts and at every watch_set_recheck.
 */
void watch_start(struct stream *s, struct resource *r, const char *ns,
                 struct selector *sel, const struct query *q,
                 const struct accept_choice *accept,
                 struct watch_grant *grant);

#endif
