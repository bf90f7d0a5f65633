/*
 * field_selector.h: field selectors (fieldSelector=), parsed into
 * requirements, as k8s.io/apimachinery fields.ParseSelector and the
 * apiserver's field label conversion.  cache/selector.c combines them with
 * the label requirements and matches them.
 *
 * Grammar: comma-separated field=value, field==value, field!=value, with
 * backslash escapes (\, \= \\) in values; supported fields are
 * metadata.name, metadata.namespace (namespaced types) and the type's
 * resource_type fields[].
 */
#ifndef FIELD_SELECTOR_H
#define FIELD_SELECTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/resource_type.h"
#include "cache/sbuf.h"

/* One requirement: the object's field field_id (FIELD_NAME,
 * FIELD_NAMESPACE or FIELD_EXTRA + i) equals value (or, negate, not). */
struct field_req {
    int field_id;
    bool negate; /* != */
    char *value;
};

/*
 * Parses the field selector s (NUL-terminated; "" has no requirement) for
 * resource type rt (NULL: only metadata.name and metadata.namespace) and
 * appends its requirements, in sorted term order, to the array *reqs of
 * *nreqs (grown with xrealloc; the caller frees it with field_selector_free,
 * after an error too).  Returns RW_OK, or RW_EINVAL with the apiserver's
 * message appended to why: syntax errors first, e.g.
 *   "invalid selector: 'a'; can't understand 'a'"
 *   "invalid field selector: unescaped character in value: 61"
 * then unsupported fields, "field label not supported: spec.nope".
 */
int field_selector_parse(const char *s, const struct resource_type *rt,
                         struct field_req **reqs, size_t *nreqs,
                         struct sbuf *why);

/* Frees the nreqs requirements at reqs and the array; reqs may be NULL. */
void field_selector_free(struct field_req *reqs, size_t nreqs);

#endif
