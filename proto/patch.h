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
 * by the other types), as the apiserver's patcher would on the object it
 * read: the whole patch or nothing.  Both texts are read as Go's decoder
 * reads them (a repeated member's last occurrence); the result is compact
 * JSON whose numbers went through a double (integers beyond 2^53 lose
 * precision, as in any cJSON tree) and whose members keep the object's
 * order, new ones last.
 *
 * On success returns RW_OK and the patched object's JSON in *out
 * (malloc'd, *out_len bytes, owned by the caller).  Else returns RW_EINVAL,
 * *out NULL, and *err filled as the apiserver answers:
 *  - 400 BadRequest: a body that is not JSON of the type's shape (merge:
 *    "Invalid JSON Patch"; JSON patch and strategic: Go's "json: cannot
 *    unmarshal ..."), nested deeper than 1000 levels (cJSON's limit; also
 *    a result that deep), not UTF-8; a malformed strategic directive
 *    ("invalid patch format of retainKeys");
 *  - 413 RequestEntityTooLarge: a JSON patch of more than 10000 operations;
 *  - 415 UnsupportedMediaType: a strategic patch of a kind without a table
 *    (custom resources), with the apiserver's message;
 *  - 422 Invalid: a JSON patch operation that fails, "test" included, and
 *    a strategic list of lists (the apiserver's fixed message "the server
 *    rejected our request due to an error in our request"; the library's
 *    words in err->detail); a result that is not a JSON object;
 *  - 500 with reason "": the errors strategicpatch returns unwrapped ("map:
 *    map[image:x] does not contain declared merge key: name", ...); 500
 *    InternalError: doc is not a JSON object.
 * doc and patch are not modified.
 */
int patch_apply(enum patch_type t, const char *group, const char *kind,
                const char *doc, size_t doc_len, const char *patch,
                size_t patch_len, char **out, size_t *out_len,
                struct patch_error *err);

#endif
