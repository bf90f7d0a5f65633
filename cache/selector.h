/*
 * selector.h: label and field selectors, parsed once per request and
 * matched against objects.
 *
 * Grammar and semantics are the apiserver's (k8s.io/apimachinery
 * labels.Parse and fields.ParseSelector), parsed by cache/label_selector.h
 * and cache/field_selector.h, which list them.  In short:
 *   labels: key=value, key==value, key!=value, key in (v1,v2),
 *           key notin (v1,v2), key, !key, key>N, key<N.
 *   fields: field=value, field==value, field!=value; metadata.name,
 *           metadata.namespace and the type's resource_type fields[].
 * All requirements must hold (AND).
 */
#ifndef SELECTOR_H
#define SELECTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/object.h"
#include "cache/resource_type.h"

struct selector;

/*
 * Parses labelSelector and fieldSelector (either NULL or "" for none) for
 * resource type rt.  On success returns RW_OK and *out (NULL when both are
 * empty: NULL matches everything).  On RW_EINVAL writes the message for a
 * 400 BadRequest Status into why (NUL-terminated, truncated to why_len),
 * worded as the apiserver words it, e.g.
 *   "field label not supported: spec.nope"
 *   "unable to parse requirement: ..." (labels)
 *   "found ',', expected: identifier after ','" (labels)
 *   "invalid selector: 'a'; can't understand 'a'" (fields)
 *   "invalid field selector: unescaped character in value: 61" (fields)
 * The label selector is checked before the field selector; within the
 * field selector, syntax errors (terms in sorted order) before unsupported
 * fields.
 */
int selector_parse(const char *label_selector, const char *field_selector,
                   const struct resource_type *rt, struct selector **out,
                   char *why, size_t why_len);
void selector_free(struct selector *sel);

/* Whether obj satisfies every requirement.  sel NULL matches everything. */
bool selector_matches(const struct selector *sel, const struct object *obj);

/*
 * For dispatch indexes: the value an equality requirement (= or ==) pins
 * field_id to (FIELD_NAME, FIELD_NAMESPACE or FIELD_EXTRA + i), or NULL if
 * the selector has none.  sel NULL returns NULL.
 */
const char *selector_field_value(const struct selector *sel, int field_id);

#endif
