/*
 * patch.h: the three patch formats kube-apiserver applies to an object
 * (k8s.io/apiserver/pkg/endpoints/handlers/patch.go), applied to the
 * object's JSON:
 *
 *  - application/merge-patch+json: RFC 7386 JSON Merge Patch;
 *  - application/json-patch+json: RFC 6902 JSON Patch, "test" included;
 *  - application/strategic-merge-patch+json: Kubernetes' strategic merge
 *    patch (k8s.io/apimachinery/pkg/util/strategicpatch), for the built-in
 *    kinds whose merge keys ringwatch has a table for (taken from the
 *    Kubernetes API types' patchStrategy/patchMergeKey tags); any other
 *    kind is refused with 415, never merged wrongly.
 *
 * Server-side apply (application/apply-patch+yaml) is not applied here:
 * the caller answers 415.
 */
#ifndef PATCH_H
#define PATCH_H

#include <stddef.h>

#include "proto/patch_error.h"

enum patch_type {
    PATCH_MERGE,     /* application/merge-patch+json */
    PATCH_JSON,      /* application/json-patch+json */
    PATCH_STRATEGIC, /* application/strategic-merge-patch+json */
};

/*
 * The patch type a Content-Type names (parameters after ';' ignored, case
 * as the apiserver: exact), or -1 when it names none of the three.
 */
int patch_type_of(const char *content_type);

/*
 * Applies patch (patch_len bytes of JSON) of type t to doc (doc_len bytes,
 * the current object's JSON, an object) of the kind group/kind ("" and
 * "Pod"; "apps" and "Deployment": the strategic patch's table key; unused
 * by the other types).  On success returns RW_OK and the patched object's
 * JSON in *out (malloc'd, *out_len bytes, owned by the caller).  Else
 * returns RW_EINVAL with *err filled: a patch that is not JSON of the
 * type's shape (400 BadRequest), a JSON Patch op that fails, "test"
 * included, or a result that is not a JSON object (422 Invalid, as the
 * apiserver), a strategic patch of a kind without a table (415
 * UnsupportedMediaType); documents nested deeper than 1000 levels are
 * refused (400).  doc and patch are not modified.
 */
int patch_apply(enum patch_type t, const char *group, const char *kind,
                const char *doc, size_t doc_len, const char *patch,
                size_t patch_len, char **out, size_t *out_len,
                struct patch_error *err);

#endif
