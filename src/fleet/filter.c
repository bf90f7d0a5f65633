/*
 * filter.c: a shared selection and its expectations (see filter.h).
 */
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/selector.h"

char *filter_url_encode(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    char *out = xmalloc(strlen(s) * 3 + 1), *o = out;

    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;

        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
            c == '~') {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = hex[c >> 4];
            *o++ = hex[c & 15];
        }
    }
    *o = '\0';
    return out;
}

static char *filter_build_query(const char *label, const char *field)
{
    char *l = label ? filter_url_encode(label) : NULL;
    char *f = field ? filter_url_encode(field) : NULL;
    char *q = xasprintf("%s%s%s%s", l ? "&labelSelector=" : "", l ? l : "",
                        f ? "&fieldSelector=" : "", f ? f : "");

    free(l);
    free(f);
    return q;
}

struct filter *filter_new(uint32_t id, const struct resource_type *rt,
                          const char *label_selector,
                          const char *field_selector, char *why, size_t why_len)
{
    struct selector *sel = NULL;
    struct filter *f;

    if (label_selector != NULL && *label_selector == '\0')
        label_selector = NULL;
    if (field_selector != NULL && *field_selector == '\0')
        field_selector = NULL;
    if (selector_parse(label_selector, field_selector, rt, &sel, why,
                       why_len) != RW_OK)
        return NULL;
    f = xcalloc(1, sizeof(*f));
    f->id = id;
    f->sel = sel;
    f->label_selector = label_selector ? xstrdup(label_selector) : NULL;
    f->field_selector = field_selector ? xstrdup(field_selector) : NULL;
    f->query = filter_build_query(f->label_selector, f->field_selector);
    view_init(&f->s0);
    view_init(&f->final);
    return f;
}

void filter_free(struct filter *f)
{
    if (f == NULL)
        return;
    selector_free(f->sel);
    free(f->label_selector);
    free(f->field_selector);
    free(f->query);
    view_fini(&f->s0);
    view_fini(&f->final);
    free(f->expected);
    free(f);
}

bool filter_matches(const struct filter *f, const struct object *obj)
{
    return obj != NULL && selector_matches(f->sel, obj);
}

int filter_transition(const struct filter *f, const struct object *old,
                      const struct object *new_obj)
{
    bool before = filter_matches(f, old), now = filter_matches(f, new_obj);

    if (now)
        return before ? EVENT_MODIFIED : EVENT_ADDED;
    return before ? EVENT_DELETED : -1;
}

void filter_expect(struct filter *f, uint32_t entry, enum event_type type)
{
    rw_assert(entry < (1u << 30) && (unsigned)type < EVENT_TYPE_MAX);
    if (f->n_expected == f->cap_expected) {
        f->cap_expected = f->cap_expected ? f->cap_expected * 2 : 1024;
        f->expected =
            xrealloc(f->expected, f->cap_expected * sizeof(*f->expected));
    }
    f->expected[f->n_expected++] = entry << 2 | (uint32_t)type;
}
