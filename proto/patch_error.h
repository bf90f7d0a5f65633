/*
 * patch_error.h: why a patch was not applied (proto/patch.h), worded as
 * kube-apiserver and the Go libraries it links word it, for the patch
 * engines.
 */
#ifndef PATCH_ERROR_H
#define PATCH_ERROR_H

struct jval;
struct sbuf;

/* Why a patch was not applied: the Status the apiserver answers with. */
struct patch_error {
    int code;           /* HTTP status: 400, 413, 415, 422, 500 */
    const char *reason; /* Status reason: "BadRequest", "Invalid",
                           "UnsupportedMediaType", "RequestEntityTooLarge",
                           "InternalError", or ""
                           (the apiserver's StatusReasonUnknown: a Status
                           without a reason member, for the errors that
                           strategicpatch returns unwrapped, code 500) */
    char message[512];  /* Status message, as the apiserver words it */
    char detail[512];   /* Why, in the library's words, when the Status
                           message does not say (a failed JSON Patch op:
                           the apiserver answers a fixed message); for
                           logs and tests, not sent; "" otherwise */
};

/* Fills *err with code, reason and the printf-formatted message (cut to
 * fit); returns RW_EINVAL. */
int patch_fail(struct patch_error *err, int code, const char *reason,
               const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Appends Go's %v of the decoded JSON value v to b, as the libraries'
 * errors print values: map[k:v ...] with sorted keys, [a b] for arrays,
 * strings bare, <nil> for null. */
void patch_go_format(struct sbuf *b, const struct jval *v);

#endif
