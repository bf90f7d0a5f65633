/*
 * table.h: server-side Table output (meta.k8s.io/v1 Table) for a LIST, as
 * kube-apiserver renders it for kubectl (Accept ...;as=Table;v=v1;
 * g=meta.k8s.io): column definitions and one row of cells per object,
 * computed the way the apiserver's default printers do
 * (pkg/printers/internalversion/printers.go, always with Wide set, as its
 * TableConvertor calls them), plus the row's object as includeObject asks.
 *
 * Part of the Kubernetes JSON codec: it reads objects with cJSON and writes
 * strings with kjson_escape's rules.  Nothing here is cached: a Table is
 * rendered per request, because its AGE cells depend on the render time.
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

/*
 * Whether an Accept header asks for a Table, e.g. kubectl's
 * "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json".
 * True when any media range is application/json (or application/\* or
 * \*\/\*, as the apiserver matches ranges against its JSON serializer) with
 * as=Table, g=meta.k8s.io and v=v1, and a q that is not 0.  Media types
 * and parameter names compare case-insensitively, parameter values
 * exactly (optionally quoted), as the apiserver's negotiation does.
 *
 * v1beta1: the apiserver answers a range asking only for a
 * meta.k8s.io/v1beta1 Table with a v1beta1 Table.  This renderer writes v1
 * only, so a header whose only Table range is v1beta1 is not accepted
 * here: the caller then serves the plain list if the header allows it (the
 * apiserver would have sent v1beta1).  A header that lists v1beta1 before
 * v1 gets the v1 Table (the apiserver would send v1beta1, same shape).
 * accept NULL or "" is false.
 */
bool table_accepted(const char *accept);

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
 * "" and "priority" 0 included, as the apiserver serialises them.  Types
 * with a printer here: pods, nodes, namespaces, configmaps, secrets,
 * services, deployments (every column, wide ones included).  Every other
 * type gets Name and Age only (the apiserver has a printer for each type
 * ringwatch serves; those columns are a subset of it).
 *
 * Rows: one per items[i], in order: {"cells":[...][,"conditions":[...]],
 * "object":...}.  Cells are JSON strings or integers exactly as the
 * printer computes them from the object (e.g. pods: "1/2", the status
 * reason, "2 (5m ago)"); pods that Succeeded or Failed carry the
 * printer's "Completed" row condition.  AGE is now minus
 * metadata.creationTimestamp as duration.HumanDuration writes it ("10s",
 * "2m5s", "3h", "2d1h", "<invalid>" in the future), "<unknown>" when
 * absent.  now: seconds since the epoch.
 *
 * The row's object, per include_object: TABLE_OBJECT_METADATA,
 * {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1",
 * "metadata":<the object's metadata>}, the metadata member's bytes as
 * stored (located by a scan of the top level; re-printed by cJSON only if
 * its name was written with escapes, which is lossless for metadata: no
 * number in it needs more than a double); TABLE_OBJECT_NONE, null (as
 * the apiserver's empty RawExtension); TABLE_OBJECT_FULL, the object's JSON
 * bytes spliced unchanged.
 *
 * items: n objects of type rt, borrowed.  An object whose JSON cJSON cannot
 * parse (never, for what kjson_decode_object accepted) renders as if empty.
 * Returns a new rbuf (refs 1) owned by the caller.
 */
struct rbuf *table_render(const struct resource_type *rt,
                          struct object *const *items, size_t n, int64_t rv,
                          const char *continue_token, int64_t remaining,
                          enum table_object include_object, time_t now);

/*
 * Parses the includeObject query parameter (already percent-decoded): ""
 * (absent) and "Metadata" give TABLE_OBJECT_METADATA, "None"
 * TABLE_OBJECT_NONE, "Object" TABLE_OBJECT_FULL, case-sensitively as the
 * apiserver's metav1.IncludeObjectPolicy validation.  Returns RW_OK and
 * *out; RW_EINVAL for any other value (the apiserver's 400:
 * "includeObject: Unsupported value"), *out unchanged.
 */
int table_parse_include(const char *value, enum table_object *out);

#endif
