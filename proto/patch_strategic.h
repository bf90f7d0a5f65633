/*
 * patch_strategic.h: Kubernetes' strategic merge patch
 * (application/strategic-merge-patch+json) as kube-apiserver applies it:
 * k8s.io/apimachinery/pkg/util/strategicpatch's StrategicMergeMapPatch,
 * with the merge keys and strategies of proto/patch_keys.h.
 */
#ifndef PATCH_STRATEGIC_H
#define PATCH_STRATEGIC_H

#include <stdbool.h>

#include "proto/patch.h"

struct jval;

/* Whether the kind group/kind has a merge-key table (patch_keys.h): the
 * apiserver serves strategic merge patch for its built-in types only. */
bool patch_strategic_supported(const char *group, const char *kind);

/*
 * Applies patch (an object, or null: no change) to *doc (an owned object,
 * edited in place) of kind group/kind.  Returns RW_OK, or RW_EINVAL with
 * *err set as the apiserver's interpretStrategicMergePatchError: 400 for
 * a malformed directive, 422 for a list of lists or a $retainKeys the
 * patch does not match, 500 (reason "") for the errors strategicpatch
 * returns unwrapped (a list item without its merge key, ...).
 */
int patch_strategic_apply(struct jval **doc, const struct jval *patch,
                          const char *group, const char *kind,
                          struct patch_error *err);

#endif
