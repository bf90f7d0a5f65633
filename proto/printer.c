/*
 * printer.c: the Table printers' shared toolkit (see printer.h): cell
 * writers (times through metatime.h), and the formats of
 * apimachinery's labels.FormatLabels, metav1.FormatLabelSelector and
 * LabelSelectorAsSelector, layoutContainerCells and Quantity.String().
 *
 * Cells are appended to the row's sbuf as JSON values separated by commas;
 * strings go out through kjson_add_string (so "<none>" is written as is, where
 * Go would write \u003cnone\u003e: the same JSON string).
 */
#include "proto/printer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/validation.h"
#include "proto/kjson.h"
#include "proto/metatime.h"
#include "proto/quantity.h"

/* ------------------------------------------------------------------ */
/* Cells                                                               */
/* ------------------------------------------------------------------ */

static void sep(struct printer_row *r)
{
    if (r->ncells++ > 0)
        sbuf_add(r->sb, ",");
}

void printer_cell_str(struct printer_row *r, const char *s)
{
    sep(r);
    kjson_add_string(r->sb, s);
}

void printer_cell_int(struct printer_row *r, int64_t v)
{
    sep(r);
    sbuf_addf(r->sb, "%lld", (long long)v);
}

void printer_cell_or(struct printer_row *r, const char *s, const char *fallback)
{
    printer_cell_str(r, *s ? s : fallback);
}

void printer_cell_ptr_or(struct printer_row *r, const struct jval *v,
                         const char *unset)
{
    printer_cell_str(r, v != NULL ? jval_str(v) : unset);
}

void printer_cell_sbuf(struct printer_row *r, struct sbuf *s,
                       const char *fallback)
{
    printer_cell_or(r, s->len ? s->data : "", fallback);
    sbuf_fini(s);
}

void printer_since(char *buf, size_t size, const struct jval *t, time_t now)
{
    metatime_since(buf, size, jval_str(t), now);
}

void printer_cell_age(struct printer_row *r, const struct object *o)
{
    char age[32];

    metatime_since(age, sizeof(age), o->created, r->now);
    printer_cell_str(r, age);
}

void printer_cell_since(struct printer_row *r, const struct jval *timestamp)
{
    char age[32];

    printer_since(age, sizeof(age), timestamp, r->now);
    printer_cell_str(r, age);
}

/* Length of the white space character (unicode.IsSpace, in UTF-8) that
 * starts s[0..n), or with back set ends it; 0 when there is none. */
static size_t space_at(const unsigned char *s, size_t n, bool back)
{
    static const char *const spaces[] = {
        "\t",           "\n",           "\v",
        "\f",           "\r",           " ",
        "\xc2\x85",     "\xc2\xa0",     "\xe1\x9a\x80",
        "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf",
        "\xe2\x81\x9f", "\xe3\x80\x80"};

    for (size_t i = 0; i < RW_ARRAY_LEN(spaces); i++) {
        size_t k = strlen(spaces[i]);

        if (k <= n && memcmp(back ? s + n - k : s, spaces[i], k) == 0)
            return k;
    }
    if (n >= 3) { /* U+2000..U+200A: e2 80 80..8a */
        const unsigned char *q = back ? s + n - 3 : s;

        if (q[0] == 0xe2 && q[1] == 0x80 && q[2] >= 0x80 && q[2] <= 0x8a)
            return 3;
    }
    return 0;
}

void printer_cell_trimmed(struct printer_row *r, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), k;
    char *t;

    while ((k = space_at(p, n, false)) > 0) {
        p += k;
        n -= k;
    }
    while ((k = space_at(p, n, true)) > 0)
        n -= k;
    t = xstrndup((const char *)p, n);
    printer_cell_str(r, t);
    free(t);
}

void printer_cell_labels(struct printer_row *r, const struct jval *map)
{
    struct printer_list l = {0};
    struct sbuf s = {0};
    const struct jval *c;

    JVAL_EACH(c, map)
    {
        if (jval_shadowed(c))
            continue;
        sbuf_addf(&s, "%s=%s", jval_name(c), jval_str(c));
        printer_list_add(&l, s.data);
        sbuf_fini(&s);
    }
    printer_list_sort_unique(&l);
    printer_list_join(&s, &l, ",");
    printer_list_fini(&l);
    printer_cell_sbuf(r, &s, "<none>");
}

void printer_cell_containers(struct printer_row *r,
                             const struct jval *containers)
{
    struct sbuf names = {0}, images = {0};
    const struct jval *c;
    size_t i = 0;

    JVAL_EACH(c, containers)
    {
        if (i++ > 0) {
            sbuf_add(&names, ",");
            sbuf_add(&images, ",");
        }
        sbuf_add(&names, jval_str(jval_get(c, "name")));
        sbuf_add(&images, jval_str(jval_get(c, "image")));
    }
    printer_cell_sbuf(r, &names, "");
    printer_cell_sbuf(r, &images, "");
}

void printer_add_quantity(struct sbuf *sb, const struct jval *q,
                          enum printer_quantity kind)
{
    const char *text = jval_str(q);
    char number[64];

    if (q == NULL) {
        sbuf_add(sb, kind == PRINTER_QUANTITY_LIST ? "0" : "<nil>");
        return;
    }
    if (jval_is_number(q)) { /* UnmarshalJSON reads a number's text too */
        double d = jval_double(q);

        if (d > -9e18 && d < 9e18 && d == (double)(int64_t)d)
            snprintf(number, sizeof(number), "%lld", (long long)d);
        else
            snprintf(number, sizeof(number), "%.17g", d);
        text = number;
    }
    if (quantity_format(text, kind == PRINTER_QUANTITY_LIST, sb) != RW_OK)
        sbuf_add(sb, text);
}

void printer_cell_quantity(struct printer_row *r, const struct jval *q,
                           enum printer_quantity kind)
{
    struct sbuf s = {0};

    printer_add_quantity(&s, q, kind);
    printer_cell_sbuf(r, &s, "");
}

/* ------------------------------------------------------------------ */
/* Label selectors                                                     */
/* ------------------------------------------------------------------ */

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One requirement: its key (the sort key) and its String(). */
struct requirement {
    char *key;
    char *text;
};

static int requirement_cmp(const void *a, const void *b)
{
    return strcmp(((const struct requirement *)a)->key,
                  ((const struct requirement *)b)->key);
}

/* Whether labels.NewRequirement accepts key and value v ("" for none):
 * validateLabelKey and validateLabelValue (the checks labels.Parse makes
 * of each requirement too). */
static bool valid_requirement(const char *key, const char *v)
{
    struct sbuf errs = {0};
    bool ok;

    validation_qualified_name(key, strlen(key), &errs);
    validation_label_value(v, strlen(v), &errs);
    ok = errs.len == 0;
    sbuf_fini(&errs);
    return ok;
}

/* A matchExpressions entry as a requirement (*out set in any case, the
 * caller's to free); false when LabelSelectorAsSelector refuses it. */
static bool expression(const struct jval *expr, struct requirement *out)
{
    const char *key = jval_str(jval_get(expr, "key"));
    const char *op = jval_str(jval_get(expr, "operator"));
    const struct jval *values = jval_get(expr, "values"), *v;
    bool set = strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0;
    struct printer_list l = {0};
    struct sbuf s = {0};
    bool ok;

    if (!set && strcmp(op, "Exists") != 0 && strcmp(op, "DoesNotExist") != 0) {
        *out = (struct requirement){xstrdup(key), xstrdup("")};
        return false;
    }
    ok = set ? jval_len(values) > 0 : jval_len(values) == 0;
    ok = ok && valid_requirement(key, "");
    JVAL_EACH(v, values)
    {
        ok = ok && valid_requirement(key, jval_str(v));
        printer_list_add(&l, jval_str(v));
    }
    if (l.n > 1) /* sorted on output (safeSort), duplicates kept */
        qsort(l.v, l.n, sizeof(*l.v), str_cmp);
    if (set) {
        sbuf_addf(&s, "%s %s (", key, strcmp(op, "In") == 0 ? "in" : "notin");
        printer_list_join(&s, &l, ",");
        sbuf_add(&s, ")");
    } else {
        sbuf_addf(&s, "%s%s", *op == 'D' ? "!" : "", key);
    }
    printer_list_fini(&l);
    *out = (struct requirement){xstrdup(key), s.data ? s.data : xstrdup("")};
    return ok;
}

/* LabelSelectorAsSelector(sel).String(): RW_OK and *out (malloc'd; "" for
 * an absent or empty selector, Nothing() and Everything() alike), or
 * RW_EINVAL for a requirement it refuses. */
static int selector_text(const struct jval *sel, char **out)
{
    const struct jval *labels = jval_get(sel, "matchLabels"), *c;
    const struct jval *exprs = jval_get(sel, "matchExpressions");
    struct requirement *reqs = NULL;
    size_t n = 0;
    bool ok = true;
    struct sbuf s = {0};

    JVAL_EACH(c, labels)
    {
        if (jval_shadowed(c))
            continue;
        reqs = xrealloc(reqs, (n + 1) * sizeof(*reqs));
        reqs[n].key = xstrdup(jval_name(c));
        reqs[n++].text = xasprintf("%s=%s", jval_name(c), jval_str(c));
        ok = ok && valid_requirement(jval_name(c), jval_str(c));
    }
    JVAL_EACH(c, exprs)
    {
        reqs = xrealloc(reqs, (n + 1) * sizeof(*reqs));
        ok = expression(c, &reqs[n++]) && ok;
    }
    if (n > 1)
        qsort(reqs, n, sizeof(*reqs), requirement_cmp);
    for (size_t i = 0; i < n; i++) {
        sbuf_addf(&s, "%s%s", i ? "," : "", reqs[i].text);
        free(reqs[i].key);
        free(reqs[i].text);
    }
    free(reqs);
    *out = s.data ? s.data : xstrdup("");
    if (ok)
        return RW_OK;
    free(*out);
    return RW_EINVAL;
}

void printer_cell_selector(struct printer_row *r, const struct jval *sel)
{
    char *text;

    if (selector_text(sel, &text) != RW_OK) {
        printer_cell_str(r, "<error>");
        return;
    }
    printer_cell_or(r, text, "<none>");
    free(text);
}

void printer_cell_selector_string(struct printer_row *r, const struct jval *sel)
{
    char *text;

    if (selector_text(sel, &text) != RW_OK) {
        printer_cell_str(r, "<invalid>");
        return;
    }
    printer_cell_str(r, text);
    free(text);
}

/* ------------------------------------------------------------------ */
/* Lists and conditions                                                */
/* ------------------------------------------------------------------ */

void printer_list_add(struct printer_list *l, const char *s)
{
    l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
    l->v[l->n++] = xstrdup(s);
}

void printer_list_sort_unique(struct printer_list *l)
{
    size_t out = 0;

    if (l->n == 0)
        return;
    qsort(l->v, l->n, sizeof(*l->v), str_cmp);
    for (size_t i = 0; i < l->n; i++) {
        if (out > 0 && strcmp(l->v[out - 1], l->v[i]) == 0)
            free(l->v[i]);
        else
            l->v[out++] = l->v[i];
    }
    l->n = out;
}

void printer_list_join(struct sbuf *sb, const struct printer_list *l,
                       const char *glue)
{
    for (size_t i = 0; i < l->n; i++) {
        if (i > 0)
            sbuf_add(sb, glue);
        sbuf_add(sb, l->v[i]);
    }
}

void printer_list_fini(struct printer_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    *l = (struct printer_list){0};
}

bool printer_first_condition_true(const struct jval *conditions,
                                  const char *type)
{
    const struct jval *c;

    JVAL_EACH(c, conditions)
    {
        if (strcmp(jval_str(jval_get(c, "type")), type) == 0)
            return strcmp(jval_str(jval_get(c, "status")), "True") == 0;
    }
    return false;
}
