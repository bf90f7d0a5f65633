/*
 * filter.c: a shared selection and its expectations (see filter.h).
 *
 * The index keeps node filters sorted by node name (binary search, no
 * per-entry allocation) and the unindexed ones in an array.
 */
#include "src/fleet/filter.h"

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
    free(f->node);
    view_fini(&f->s0);
    view_fini(&f->final);
    free(f->expected);
    free(f);
}

bool filter_matches(const struct filter *f, const struct object *obj)
{
    return obj != NULL && selector_matches(f->sel, obj);
}

bool filter_transition(const struct filter *f, const struct object *old,
                       const struct object *new_obj, enum event_type *type)
{
    bool before = filter_matches(f, old), now = filter_matches(f, new_obj);

    if (!before && !now)
        return false;
    *type = now ? (before ? EVENT_MODIFIED : EVENT_ADDED) : EVENT_DELETED;
    return true;
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

struct filter *filter_new_node(uint32_t id, const struct resource_type *rt,
                               const char *node)
{
    char *field = xasprintf("spec.nodeName=%s", node);
    char why[256];
    struct filter *f = filter_new(id, rt, NULL, field, why, sizeof(why));

    free(field);
    if (f != NULL)
        f->node = xstrdup(node);
    return f;
}

/* ==== index ==== */

struct filter_index {
    int node_field;          /* object_field id of spec.nodeName; -1 */
    struct filter **generic; /* unindexed */
    size_t ngeneric;
    struct filter **nodes; /* sorted by node name */
    size_t nnodes;
};

static int filter_node_cmp(const void *a, const void *b)
{
    const struct filter *x = *(struct filter *const *)a;
    const struct filter *y = *(struct filter *const *)b;

    return strcmp(x->node, y->node);
}

struct filter_index *filter_index_new(const struct resource_type *rt,
                                      struct filter *const *filters, size_t n)
{
    struct filter_index *ix = xcalloc(1, sizeof(*ix));

    ix->node_field = resource_type_field_id(rt, "spec.nodeName");
    ix->generic = xcalloc(n ? n : 1, sizeof(*ix->generic));
    ix->nodes = xcalloc(n ? n : 1, sizeof(*ix->nodes));
    for (size_t i = 0; i < n; i++) {
        if (filters[i]->node != NULL && ix->node_field >= 0)
            ix->nodes[ix->nnodes++] = filters[i];
        else
            ix->generic[ix->ngeneric++] = filters[i];
    }
    qsort(ix->nodes, ix->nnodes, sizeof(*ix->nodes), filter_node_cmp);
    return ix;
}

void filter_index_free(struct filter_index *ix)
{
    if (ix == NULL)
        return;
    free(ix->generic);
    free(ix->nodes);
    free(ix);
}

size_t filter_index_max(const struct filter_index *ix)
{
    return ix->ngeneric + 2;
}

static struct filter *filter_index_node(const struct filter_index *ix,
                                        const struct object *obj)
{
    const char *node;
    size_t lo = 0, hi = ix->nnodes;

    if (obj == NULL || ix->nnodes == 0)
        return NULL;
    node = object_field(obj, ix->node_field);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(ix->nodes[mid]->node, node);

        if (c == 0)
            return ix->nodes[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

size_t filter_index_candidates(const struct filter_index *ix,
                               const struct object *old,
                               const struct object *new_obj,
                               struct filter **out)
{
    struct filter *a = filter_index_node(ix, old);
    struct filter *b = filter_index_node(ix, new_obj);
    size_t n = ix->ngeneric;

    memcpy(out, ix->generic, n * sizeof(*out));
    if (a != NULL)
        out[n++] = a;
    if (b != NULL && b != a)
        out[n++] = b;
    return n;
}
