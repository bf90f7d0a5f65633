/*
 * selector.c: label and field selectors (see selector.h): a parsed
 * selector and the matcher.  The parsers are cache/label_selector.c
 * (labels.Parse) and cache/field_selector.c (fields.ParseSelector).
 *
 * Data structure: a parsed selector is two flat arrays of requirements,
 * owned strings included; matching walks them and allocates nothing (it is
 * on the event path, per event per watcher whose selector no dispatch index
 * covers).  Label values of in/notin are sorted and unique, so that a
 * binary search finds them; gt/lt keep their integer.  All requirements
 * must hold.
 */
#include "cache/selector.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/field_selector.h"
#include "cache/label_selector.h"
#include "cache/rw.h"
#include "cache/sbuf.h"

struct selector {
    struct label_req *labels;
    size_t nlabels;
    struct field_req *fields;
    size_t nfields;
};

void selector_free(struct selector *sel)
{
    if (sel == NULL)
        return;
    label_selector_free(sel->labels, sel->nlabels);
    field_selector_free(sel->fields, sel->nfields);
    free(sel);
}

int selector_parse(const char *label_selector, const char *field_selector,
                   const struct resource_type *rt, struct selector **out,
                   char *why, size_t why_len)
{
    struct selector *sel = xcalloc(1, sizeof(*sel));
    struct sbuf msg = {0};
    int rc = RW_OK;

    *out = NULL;
    if (label_selector != NULL)
        rc = label_selector_parse(label_selector, &sel->labels, &sel->nlabels,
                                  &msg);
    if (rc == RW_OK && field_selector != NULL)
        rc = field_selector_parse(field_selector, rt, &sel->fields,
                                  &sel->nfields, &msg);
    if (rc != RW_OK) {
        if (why != NULL && why_len > 0)
            snprintf(why, why_len, "%s", msg.data ? msg.data : "");
        free(msg.data);
        selector_free(sel);
        return rc;
    }
    free(msg.data);
    if (sel->nlabels == 0 && sel->nfields == 0)
        selector_free(sel);
    else
        *out = sel;
    return RW_OK;
}

static bool has_value(const struct label_req *r, const char *v)
{
    size_t lo = 0, hi = r->nvalues;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r->values[mid], v);

        if (c == 0)
            return true;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

/* Requirement.Matches */
static bool label_matches(const struct label_req *r, const struct object *obj)
{
    const char *v = object_label(obj, r->key);
    int64_t n;

    switch (r->op) {
    case LABEL_IN:
        return v != NULL && has_value(r, v);
    case LABEL_NOTIN:
        return v == NULL || !has_value(r, v);
    case LABEL_EXISTS:
        return v != NULL;
    case LABEL_NOT_EXISTS:
        return v == NULL;
    case LABEL_GT:
        return v != NULL && label_selector_int64(v, &n) && n > r->number;
    case LABEL_LT:
        return v != NULL && label_selector_int64(v, &n) && n < r->number;
    }
    return false;
}

bool selector_matches(const struct selector *sel, const struct object *obj)
{
    if (sel == NULL)
        return true;
    for (size_t i = 0; i < sel->nfields; i++) {
        const struct field_req *f = &sel->fields[i];
        bool eq = strcmp(object_field(obj, f->field_id), f->value) == 0;

        if (eq == f->negate)
            return false;
    }
    for (size_t i = 0; i < sel->nlabels; i++)
        if (!label_matches(&sel->labels[i], obj))
            return false;
    return true;
}

const char *selector_field_value(const struct selector *sel, int field_id)
{
    if (sel == NULL)
        return NULL;
    for (size_t i = 0; i < sel->nfields; i++)
        if (sel->fields[i].field_id == field_id && !sel->fields[i].negate)
            return sel->fields[i].value;
    return NULL;
}
