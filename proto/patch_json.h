/*
 * patch_json.h: RFC 6902 JSON Patch (application/json-patch+json) as
 * kube-apiserver applies it: gopkg.in/evanphx/json-patch.v4's Patch.Apply
 * (add, remove, replace, move, copy, test; RFC 6901 pointers with ~0 and
 * ~1, "-" appending), its error texts kept in patch_error.detail.
 */
#ifndef PATCH_JSON_H
#define PATCH_JSON_H

#include "proto/patch.h"

struct jval;

/*
 * Applies the operations of patch (an array, or null: none) to *doc (an
 * owned object, edited in place) in order.  Returns RW_OK, or RW_EINVAL
 * with *err set when an operation fails: 422 Invalid with the apiserver's
 * fixed message (NewGenericServerResponse) and evanphx's words in
 * err->detail; *doc is then partly edited and the caller discards it.
 * More than 10000 operations: 413, as the apiserver's
 * maxJSONPatchOperations.
 */
int patch_json_apply(struct jval **doc, const struct jval *patch,
                     struct patch_error *err);

#endif
