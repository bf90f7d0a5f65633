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

enum patch_type {
    PATCH_MERGE,     /* application/merge-patch+json */
    PATCH_JSON,      /* application/json-patch+json */
    PATCH_STRATEGIC, /* application/strategic-merge-patch+json */
};

/* Why a patch was not applied: the Status the apiserver answers with. */
struct patch_error {
    int code;           /* HTTP status: 400, 415, 422, 500 */
    const char *reason; /* Status reason: "BadRequest", "Invalid",
                           "UnsupportedMediaType", "InternalError", or ""
                           (the apiserver's StatusReasonUnknown: a Status
                           without a reason member, for the errors that
                           strategicpatch returns unwrapped, code 500) */
    char message[512];  /* Status message, as the apiserver words it */
    char detail[512];   /* Why, in the library's words, when the Status
                           message does not say (a failed JSON Patch op:
                           the apiserver answers a fixed message); for
                           logs and tests, not sent; "" otherwise */
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

/* For the engines (patch_merge.c, patch_json.c, patch_strategic.c): fills
 * *err with code, reason and the printf-formatted message (cut to fit);
 * returns RW_EINVAL. */
int patch_fail(struct patch_error *err, int code, const char *reason,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
