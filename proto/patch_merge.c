/*
 * patch_merge.c: RFC 7386 JSON Merge Patch (see patch_merge.h), a walk of
 * the patch's members over the document's, as evanphx/json-patch v4's
 * mergeDocs: a null member deletes, an object merges into an object, any
 * other value replaces.
 */
#include "proto/patch_merge.h"

#include <string.h>

#include "cache/rw.h"
#include "proto/jval_edit.h"

/* evanphx's pruneNulls: drops the null members of every object in v,
 * descending into arrays (whose null elements stay). */
static void prune_nulls(struct jval *v)
{
    const struct jval *c, *next;

    for (c = jval_first(v); c != NULL; c = next) {
        next = jval_next(c);
        if (jval_type(v) == JVAL_OBJECT && jval_type(c) == JVAL_NULL)
            jval_free(jval_edit_detach(v, c));
        else
            prune_nulls(jval_edit_mut(c));
    }
}

static void merge_object(struct jval *doc, const struct jval *patch)
{
    const struct jval *p, *cur;

    JVAL_EACH(p, patch) {
        const char *name = jval_name(p);
        struct jval *v;

        cur = jval_member(doc, name, strlen(name));
        if (jval_type(p) == JVAL_NULL) {
            if (cur != NULL)
                jval_free(jval_edit_detach(doc, cur));
            continue;
        }
        if (jval_type(cur) == JVAL_OBJECT && jval_type(p) == JVAL_OBJECT) {
            merge_object(jval_edit_mut(cur), p);
            continue;
        }
        v = jval_edit_dup(p);
        if (jval_type(cur) != JVAL_OBJECT)
            prune_nulls(v);
        jval_edit_set(doc, name, v);
    }
}

int patch_merge_apply(struct jval **doc, const struct jval *patch,
                      struct patch_error *err)
{
    (void)err;
    if (jval_type(patch) == JVAL_ARRAY) {
        struct jval *v = jval_edit_dup(patch);

        prune_nulls(v);
        jval_free(*doc);
        *doc = v;
        return RW_OK;
    }
    merge_object(*doc, patch);
    return RW_OK;
}
