/*
 * repr.h: the representations a resource's objects go out in -- their own
 * JSON, PartialObjectMetadata, or a Table row -- and the watch event frames
 * (proto/frame.h) in each, BOOKMARKs included.
 *
 * As kube-apiserver's watch encoder (handlers/response.go watchEncoder,
 * watchEmbeddedEncoder, doTransformObject), every event's object is
 * converted, ADDED/MODIFIED/DELETED and BOOKMARK alike; ERROR Status
 * objects pass through untouched (use kjson_error_frame for every
 * representation).  A Table event is the object's one-row Table
 * (proto/table.h); only a watch's first event carries column definitions,
 * later ones "columnDefinitions":null (TableOptions.NoHeaders), so frames
 * are built without them and repr_with_columns makes the one copy a
 * watcher's first event needs.  A BOOKMARK's object is the bookmark
 * object (kind, apiVersion, metadata.resourceVersion), converted the same
 * way: a Table of one row printed from that nearly empty object, or its
 * PartialObjectMetadata.
 *
 * The end of a sendInitialEvents watch's initial events is a BOOKMARK
 * annotated "k8s.io/initial-events-end": "true" and, as the 1.32
 * apiserver's watchListTransformer adds, "kubernetes.io/initial-events-
 * list-blueprint": the base64 (standard, padded) of an empty list of the
 * watch's representation as the JSON serializer writes it, newline
 * included: {"kind":"PodList","apiVersion":"v1","metadata":{},"items":null}
 * or, for PartialObjectMetadata, {"kind":"PartialObjectMetadataList",
 * "apiVersion":"meta.k8s.io/v1","metadata":{},"items":null}.  client-go's
 * watch-list clients refuse the marker without it.
 *
 * Every function returns a new frame (refs 1) owned by the caller.
 */
#ifndef REPR_H
#define REPR_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "proto/accept.h"
#include "cache/object.h"
#include "cache/rbuf.h"
#include "cache/resource_type.h"
#include "proto/table.h"

/* How a watch's objects are written. */
struct repr {
    enum accept_kind kind; /* ACCEPT_OBJECT, ACCEPT_PARTIAL or ACCEPT_TABLE */
    bool beta;             /* meta.k8s.io/v1beta1 */
    enum table_object include; /* Table rows' object (includeObject) */
};

/*
 * The representation a verb answers in: from what the Accept header
 * negotiated (c, proto/accept.h) and the includeObject query parameter
 * (include_object, decoded, "" when absent), for what verb returns for type
 * rt.  Returns 0 and *out; or the HTTP code the apiserver answers instead,
 * once the read itself succeeded (handlers/response.go transformObject,
 * after the storage call), with the message in why (size bytes): 400 when a
 * Table was negotiated and includeObject is not "", Metadata, None or
 * Object ("Unable to convert to Table as requested: includeObject: Invalid
 * value: \"V\": must be 'Metadata', 'Object', 'None', or empty"), 406 when
 * the verb's result does not convert (accept_convertible).  A LIST's *out
 * may be ACCEPT_PARTIAL_LIST; a GET's and a WATCH's ACCEPT_PARTIAL.
 */
int repr_resolve(const struct accept_choice *c, enum accept_verb verb,
                 const struct resource_type *rt, const char *include_object,
                 struct repr *out, char *why, size_t size);

/* Distinct representations of a watch event (kind, version and, for
 * Tables, includeObject); repr_format numbers them from 0, the object's
 * own JSON, and repr_of gives the representation of a number back (static,
 * format < REPR_FORMATS). */
#define REPR_FORMATS 9
unsigned repr_format(const struct repr *r);
const struct repr *repr_of(unsigned format);

/* Whether r's frames depend on when they are rendered (a Table's AGE
 * cells): cache them for one second at most. */
bool repr_ages(const struct repr *r);

/* The event {"type":TYPE,"object":<o in r>}\n of type t, o of type rt;
 * a Table without column definitions, its AGE as of now (seconds since
 * the epoch). */
struct rbuf *repr_event_frame(const struct repr *r,
                              const struct resource_type *rt, enum event_type t,
                              const struct object *o, time_t now);

/* A copy of the Table event (or BOOKMARK) frame f of type rt with rt's
 * column definitions in place of its "columnDefinitions":null: a Table
 * watch's first event. */
struct rbuf *repr_with_columns(const struct rbuf *f,
                               const struct resource_type *rt);

/* A BOOKMARK at revision rv in r (initial_end: the end of the initial
 * events, annotated as above); a Table without column definitions. */
struct rbuf *repr_bookmark_frame(const struct repr *r,
                                 const struct resource_type *rt, int64_t rv,
                                 bool initial_end, time_t now);

#endif
