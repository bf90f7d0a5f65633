/*
 * table.h: server-side Tables (meta.k8s.io Table, v1 or v1beta1), as
 * kube-apiserver renders them for kubectl (Accept ...;as=Table;v=v1;
 * g=meta.k8s.io, negotiated by proto/accept.h): column definitions and one
 * row of cells per object, computed the way the apiserver's default
 * printers do (pkg/printers/internalversion/printers.go, always with Wide
 * set, as its TableConvertor calls them), plus the row's object as
 * includeObject asks.  A LIST is one Table of its items; a GET and each
 * object of a WATCH one Table of one row (handlers/response.go asTable).
 *
 * Each type's columns and cells come from its printer (proto/printer.h,
 * proto/printers_*.c); this module writes the document around them.  The
 * caller decides what to cache: a Table's AGE cells depend on the render
 * time.
 */
#ifndef TABLE_H
#define TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cache/object.h"
#include "cache/rbuf.h"
#include "cache/resource_type.h"
#include "cache/sbuf.h"

/* What each row's "object" holds: the apiserver's includeObject. */
enum table_object {
    TABLE_OBJECT_METADATA, /* default: PartialObjectMetadata */
    TABLE_OBJECT_NONE,     /* "object":null */
    TABLE_OBJECT_FULL,     /* the object's JSON bytes */
};

/*
 * A Table for a LIST:
 *   {"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":
 *    {"resourceVersion":"rv"[,"continue":token][,"remainingItemCount":n]},
 *    "columnDefinitions":[...],"rows":[...]}
 * (continue_token NULL or "", or remaining < 0, omits that member, as
 * ListMeta's omitempty; the token is JSON-escaped here).  rows is [] when n is
 * 0.
 *
 * Columns: every column is {"name","type","format","description",
 * "priority"} as the apiserver's printer for rt declares them, "format"
 * "" and "priority" 0 included, as the apiserver serialises them, wide
 * ones (priority 1) included.  Every type ringwatch serves has its
 * apiserver printer (cache/resource_type.c's table; rt must be one of
 * them).
 *
 * Rows: one per items[i], in order: {"cells":[...][,"conditions":[...]],
 * "object":...}.  Cells are JSON strings or integers exactly as the
 * printer computes them from the object (e.g. pods: "1/2", the status
 * reason, "2 (5m ago)"; events: "3d", "deployment/web"); pods that
 * Succeeded or Failed carry the printer's "Completed" row condition.  AGE
 * is now minus metadata.creationTimestamp as duration.HumanDuration writes
 * it ("10s", "2m5s", "3h", "2d1h", "<invalid>" in the future),
 * "<unknown>" when absent.  now: seconds since the epoch.
 *
 * The row's object, per include_object: TABLE_OBJECT_METADATA, the
 * object's PartialObjectMetadata (proto/partial.h); TABLE_OBJECT_NONE, null
 * (as the apiserver's empty RawExtension); TABLE_OBJECT_FULL, the object's
 * JSON bytes spliced unchanged.
 *
 * beta: apiVersion meta.k8s.io/v1beta1 (the Table's and its rows'
 * PartialObjectMetadata), the same shape.  items: n objects of type rt,
 * borrowed.  An object whose JSON cannot be parsed (never, for what
 * kjson_decode_object accepted) renders as if empty.  Returns a new rbuf
 * (refs 1) owned by the caller.
 */
struct rbuf *table_render(const struct resource_type *rt,
                          struct object *const *items, size_t n, int64_t rv,
                          const char *continue_token, int64_t remaining,
                          enum table_object include_object, bool beta,
                          time_t now);

/*
 * Appends to sb the Table of one object o of type rt, as a GET returns it
 * and as each WATCH event carries it (the apiserver's GenerateTable for a
 * single object): {"kind":"Table","apiVersion":"meta.k8s.io/v1",
 * "metadata":{"resourceVersion":"<o->rv>"},"columnDefinitions":COLUMNS,
 * "rows":[<o's row>]}, rows as table_render writes them.  COLUMNS is the
 * column definitions when columns is true, else null: the apiserver sends
 * them in a watch's first event only (TableOptions.NoHeaders afterwards),
 * and columnDefinitions has no omitempty.
 */
void table_append_object(struct sbuf *sb, const struct resource_type *rt,
                         const struct object *o, enum table_object include,
                         bool beta, bool columns, time_t now);

/* Appends rt's column definitions, the JSON array table_render writes
 * as columnDefinitions. */
void table_append_columns(struct sbuf *sb, const struct resource_type *rt);

/*
 * Parses the includeObject query parameter (already percent-decoded): ""
 * (absent) and "Metadata" give TABLE_OBJECT_METADATA, "None"
 * TABLE_OBJECT_NONE, "Object" TABLE_OBJECT_FULL, case-sensitively as the
 * apiserver's ValidateTableOptions.  Returns RW_OK and *out; RW_EINVAL for
 * any other value, *out unchanged (the apiserver's 400 BadRequest "Unable
 * to convert to Table as requested: includeObject: Invalid value: \"V\":
 * must be 'Metadata', 'Object', 'None', or empty", only when a Table was
 * negotiated).
 */
int table_parse_include(const char *value, enum table_object *out);

#endif
