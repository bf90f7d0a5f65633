/*
 * patch_testlib.h: assertions shared by the patch formats' tests
 * (patch_test.c, patch_strategic_test.c): a patch's result compared with
 * the expected JSON as Go's reflect.DeepEqual (member order ignored), an
 * error compared by code, reason and message.
 */
#ifndef PATCH_TESTLIB_H
#define PATCH_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/jval_edit.h"
#include "proto/patch.h"

static inline void assert_patched(enum patch_type t, const char *group,
                                  const char *kind, const char *doc,
                                  const char *patch, const char *want)
{
    struct patch_error err;
    struct jval *got_v, *want_v;
    const char *why;
    char *out;
    size_t n;

    if (patch_apply(t, group, kind, doc, strlen(doc), patch, strlen(patch),
                    &out, &n, &err) != RW_OK)
        fail_msg("%s + %s: %d %s: %s (%s)", doc, patch, err.code, err.reason,
                 err.message, err.detail);
    got_v = jval_edit_parse(out, n, &why);
    want_v = jval_edit_parse(want, strlen(want), &why);
    assert_non_null(want_v);
    if (got_v == NULL || !jval_edit_equal(got_v, want_v))
        fail_msg("%s + %s:\n want %s\n got  %s", doc, patch, want, out);
    jval_free(got_v);
    jval_free(want_v);
    free(out);
}

static inline void assert_refused(enum patch_type t, const char *group,
                                  const char *kind, const char *doc,
                                  const char *patch, int code,
                                  const char *reason, const char *message)
{
    struct patch_error err;
    char *out = (char *)"unset";
    size_t n;

    if (patch_apply(t, group, kind, doc, strlen(doc), patch, strlen(patch),
                    &out, &n, &err) == RW_OK)
        fail_msg("%.200s + %.200s: applied: %.200s", doc, patch, out);
    assert_null(out);
    if (err.code != code || strcmp(err.reason, reason) != 0 ||
        strcmp(err.message, message) != 0)
        fail_msg("%.200s + %.200s:\n want %d %s: %s\n got  %d %s: %s", doc,
                 patch, code, reason, message, err.code, err.reason,
                 err.message);
}

/* A JSON Patch whose operation fails: the apiserver's 422 and evanphx's
 * words in detail. */
static inline void assert_json_failed(const char *doc, const char *patch,
                                      const char *detail)
{
    struct patch_error err;
    char *out;
    size_t n;

    assert_refused(PATCH_JSON, "", "Pod", doc, patch, 422, "Invalid",
                   "the server rejected our request due to an error in our "
                   "request");
    patch_apply(PATCH_JSON, "", "Pod", doc, strlen(doc), patch, strlen(patch),
                &out, &n, &err);
    if (strcmp(err.detail, detail) != 0)
        fail_msg("%s + %s:\n want %s\n got  %s", doc, patch, detail,
                 err.detail);
}

#endif
