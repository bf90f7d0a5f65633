/*
 * patch_keys.h: the strategic merge patch's schema of the built-in kinds
 * ringwatch serves: for each struct type, the fields whose Go struct tags
 * carry patchStrategy (merge or replace) and patchMergeKey, and the struct
 * types under them (k8s.io/api core/v1, apps/v1, batch/v1, autoscaling/v2,
 * coordination/v1, rbac/v1 types.go; metav1.ObjectMeta).  A field that is
 * not listed has no tag: its maps merge and its lists are replaced, as
 * strategicpatch does for an untagged field.
 */
#ifndef PATCH_KEYS_H
#define PATCH_KEYS_H

#include <stdbool.h>

struct patch_keys_type;

/* One tagged field, or a field leading to tagged fields. */
struct patch_keys_field {
    const char *name;      /* JSON field name */
    bool merge;            /* patchStrategy "merge" (with "retainKeys" or
                              not): its list is merged */
    bool replace;          /* patchStrategy "replace": replaced whole */
    const char *merge_key; /* patchMergeKey; NULL for a list of scalars */
    const struct patch_keys_type *type; /* the field's (or its elements')
                                           struct; NULL: nothing tagged */
};

/* A struct type: its listed fields, NULL-terminated by name. */
struct patch_keys_type {
    const char *name; /* Go type name, for error messages */
    const struct patch_keys_field *fields;
};

/* The top-level type of kind group/kind ("" and "Pod"), NULL when the
 * kind has no table (custom resources, kinds ringwatch does not serve). */
const struct patch_keys_type *patch_keys_find(const char *group,
                                              const char *kind);

/* The field name of type t, NULL when t is NULL or the field is not
 * listed. */
const struct patch_keys_field *patch_keys_field(const struct patch_keys_type *t,
                                                const char *name);

#endif
