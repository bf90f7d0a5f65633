/*
 * patch.c: the patch formats' dispatch (see patch.h): the Content-Type's
 * patch type, the parse of the object and of the patch (as Go's decoder:
 * a repeated member's last occurrence), the engine, and the checks of the
 * result the apiserver makes when it decodes the patched object.
 *
 * Each engine edits a private copy of the object, so a patch that fails
 * half-way leaves nothing applied (the apiserver's atomicity).
 */
#include "proto/patch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/utf8.h"
#include "proto/jval_edit.h"
#include "proto/patch_json.h"
#include "proto/patch_merge.h"
#include "proto/patch_strategic.h"

int patch_type_of(const char *content_type)
{
    static const char *const names[] = {
        [PATCH_MERGE] = "application/merge-patch+json",
        [PATCH_JSON] = "application/json-patch+json",
        [PATCH_STRATEGIC] = "application/strategic-merge-patch+json",
    };
    /* as PatchResource: the text before the first ';', when not first */
    size_t n = strcspn(content_type, ";");

    if (n == 0)
        n = strlen(content_type);
    for (size_t i = 0; i < RW_ARRAY_LEN(names); i++)
        if (strlen(names[i]) == n && memcmp(names[i], content_type, n) == 0)
            return (int)i;
    return -1;
}

int patch_fail(struct patch_error *err, int code, const char *reason,
               const char *fmt, ...)
{
    va_list ap;

    err->code = code;
    err->reason = reason;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    return RW_EINVAL;
}

/* Go's name of a JSON value's type in "json: cannot unmarshal X". */
static const char *go_json_type(const struct jval *v)
{
    switch (jval_type(v)) {
    case JVAL_OBJECT:
        return "object";
    case JVAL_ARRAY:
        return "array";
    case JVAL_STRING:
        return "string";
    case JVAL_NUMBER:
        return "number";
    default:
        return "bool";
    }
}

/*
 * Parses the patch body as its type's decoder does: Go's json.Unmarshal
 * into jsonpatch.Patch (an array, or null: no operations), into
 * map[string]interface{} (strategic: an object, or null: an empty patch),
 * or evanphx's MergePatch (an object, or an array that becomes the result).
 * Returns the parsed patch, or NULL with *err set (400).
 */
static struct jval *parse_patch(enum patch_type t, const char *patch,
                                size_t len, struct patch_error *err)
{
    const char *why = "not JSON";
    struct jval *p = NULL;
    enum jval_type type;

    if (utf8_valid(patch, len))
        p = jval_edit_parse(patch, len, &why);
    if (p == NULL) {
        if (t == PATCH_MERGE && strcmp(why, "not JSON") == 0)
            patch_fail(err, 400, "BadRequest", "Invalid JSON Patch");
        else
            patch_fail(err, 400, "BadRequest", "the patch is %s", why);
        return NULL;
    }
    type = jval_type(p);
    if (t == PATCH_MERGE && type != JVAL_OBJECT && type != JVAL_ARRAY) {
        patch_fail(err, 400, "BadRequest", "Invalid JSON Patch");
    } else if (t == PATCH_JSON && type != JVAL_ARRAY && type != JVAL_NULL) {
        patch_fail(err, 400, "BadRequest",
                   "json: cannot unmarshal %s into Go value of type "
                   "jsonpatch.Patch",
                   go_json_type(p));
    } else if (t == PATCH_STRATEGIC && type != JVAL_OBJECT &&
               type != JVAL_NULL) {
        patch_fail(err, 400, "BadRequest",
                   "json: cannot unmarshal %s into Go value of type "
                   "map[string]interface {}",
                   go_json_type(p));
    } else {
        return p;
    }
    jval_free(p);
    return NULL;
}

/* The apiserver decodes the patched JSON into the kind's struct: anything
 * but an object, or a document cJSON could not read back, is refused. */
static int check_result(const struct jval *res, struct patch_error *err)
{
    if (jval_type(res) != JVAL_OBJECT) {
        size_t n;
        char *json = jval_edit_print(res, &n);

        patch_fail(err, 422, "Invalid",
                   " \"\" is invalid: patch: Invalid value: \"%.200s\": "
                   "the patched object is not a JSON object",
                   json);
        free(json);
        return RW_EINVAL;
    }
    if (jval_edit_depth(res) > JVAL_EDIT_MAX_DEPTH)
        return patch_fail(err, 400, "BadRequest",
                          "the patched object is nested deeper than %d "
                          "levels",
                          JVAL_EDIT_MAX_DEPTH);
    return RW_OK;
}

int patch_apply(enum patch_type t, const char *group, const char *kind,
                const char *doc, size_t doc_len, const char *patch,
                size_t patch_len, char **out, size_t *out_len,
                struct patch_error *err)
{
    struct jval *obj, *p;
    const char *why;
    int rc;

    memset(err, 0, sizeof(*err));
    *out = NULL;
    *out_len = 0;
    if (t == PATCH_STRATEGIC && !patch_strategic_supported(group, kind))
        return patch_fail(err, 415, "UnsupportedMediaType",
                          "the body of the request was in an unknown format "
                          "- accepted media types include: "
                          "application/json-patch+json, "
                          "application/merge-patch+json, "
                          "application/apply-patch+yaml");
    obj = jval_edit_parse(doc, doc_len, &why);
    if (obj == NULL || jval_type(obj) != JVAL_OBJECT) {
        jval_free(obj);
        return patch_fail(err, 500, "InternalError",
                          "Internal error occurred: the stored object is "
                          "not a JSON object");
    }
    p = parse_patch(t, patch, patch_len, err);
    if (p == NULL) {
        jval_free(obj);
        return RW_EINVAL;
    }
    switch (t) {
    case PATCH_MERGE:
        rc = patch_merge_apply(&obj, p, err);
        break;
    case PATCH_JSON:
        rc = patch_json_apply(&obj, p, err);
        break;
    default:
        rc = patch_strategic_apply(&obj, p, group, kind, err);
        break;
    }
    if (rc == RW_OK)
        rc = check_result(obj, err);
    if (rc == RW_OK)
        *out = jval_edit_print(obj, out_len);
    jval_free(p);
    jval_free(obj);
    return rc;
}
