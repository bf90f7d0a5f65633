/*
 * jval_edit.c: mutable JSON values (see jval_edit.h), the jval module's
 * second half over cJSON's tree.
 *
 * A parsed document holds each object member name once (the last
 * occurrence, as Go's decoder into a map): the edits below rely on it, and
 * keep it (jval_edit_set replaces in place).  The depth limit is checked by
 * a scan before cJSON parses, so that "too deep" and "not JSON" are told
 * apart.  Repeated members are found by sorting an object's members by
 * name (objects may hold thousands of labels).
 */
#include "proto/jval_edit.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

static cJSON *node(const struct jval *v)
{
    return (cJSON *)v;
}

static struct jval *val(cJSON *c)
{
    return (struct jval *)c;
}

static void edit_init(void)
{
    static bool done;
    cJSON_Hooks hooks = {.malloc_fn = xmalloc, .free_fn = free};

    if (!done) {
        cJSON_InitHooks(&hooks);
        done = true;
    }
}

/* The deepest container nesting of the text json[0..len), strings
 * skipped; stops counting past JVAL_EDIT_MAX_DEPTH + 1. */
static size_t text_depth(const char *json, size_t len)
{
    size_t depth = 0, max = 0;
    bool in_string = false;

    for (size_t i = 0; i < len && max <= JVAL_EDIT_MAX_DEPTH; i++) {
        char c = json[i];

        if (in_string) {
            if (c == '\\')
                i++;
            else if (c == '"')
                in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            depth++;
            max = RW_MAX(max, depth);
        } else if ((c == ']' || c == '}') && depth > 0) {
            depth--;
        }
    }
    return max;
}

struct member_ref {
    cJSON *item;
    size_t pos;
};

static int member_ref_cmp(const void *a, const void *b)
{
    const struct member_ref *x = a, *y = b;
    int c = strcmp(x->item->string, y->item->string);

    return c != 0 ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Drops every member of object o that a later one of the same name
 * shadows. */
static void dedup_object(cJSON *o)
{
    size_t n = (size_t)cJSON_GetArraySize(o), i = 0;
    struct member_ref *refs;

    if (n < 2)
        return;
    refs = xcalloc(n, sizeof(*refs));
    for (cJSON *c = o->child; c != NULL; c = c->next, i++)
        refs[i] = (struct member_ref){c, i};
    qsort(refs, n, sizeof(*refs), member_ref_cmp);
    for (i = 0; i + 1 < n; i++)
        if (strcmp(refs[i].item->string, refs[i + 1].item->string) == 0)
            cJSON_Delete(cJSON_DetachItemViaPointer(o, refs[i].item));
    free(refs);
}

static void dedup(cJSON *c)
{
    if (cJSON_IsObject(c))
        dedup_object(c);
    if (cJSON_IsObject(c) || cJSON_IsArray(c))
        for (cJSON *e = c->child; e != NULL; e = e->next)
            dedup(e);
}

struct jval *jval_edit_parse(const char *json, size_t len, const char **why)
{
    const char *end = NULL;
    cJSON *root;

    edit_init();
    if (text_depth(json, len) > JVAL_EDIT_MAX_DEPTH) {
        *why = "nested deeper than 1000 levels";
        return NULL;
    }
    root = cJSON_ParseWithLengthOpts(json, len, &end, false);
    if (root != NULL)
        while (end < json + len && strchr(" \t\r\n", *end) != NULL && *end)
            end++;
    if (root == NULL || end != json + len) {
        cJSON_Delete(root);
        *why = "not JSON";
        return NULL;
    }
    dedup(root);
    return val(root);
}

size_t jval_edit_depth(const struct jval *v)
{
    const cJSON *c = node(v);
    size_t max = 0;

    if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
        return 0;
    for (const cJSON *e = c->child; e != NULL; e = e->next) {
        size_t d = jval_edit_depth(val((cJSON *)e));

        max = RW_MAX(max, d);
    }
    return max + 1;
}

char *jval_edit_print(const struct jval *v, size_t *len)
{
    char *s;

    edit_init();
    s = cJSON_PrintUnformatted(node(v));
    rw_assert(s != NULL); /* the allocator aborts; numbers print as null */
    *len = strlen(s);
    return s;
}

/* Object o's members sorted by name (then position), *n of them; NULL when
 * it has none.  Freed by the caller. */
static struct member_ref *sorted_members(const cJSON *o, size_t *n)
{
    struct member_ref *refs;
    size_t i = 0;

    *n = (size_t)cJSON_GetArraySize(o);
    if (*n == 0)
        return NULL;
    refs = xcalloc(*n, sizeof(*refs));
    for (cJSON *c = o->child; c != NULL; c = c->next, i++)
        refs[i] = (struct member_ref){c, i};
    qsort(refs, *n, sizeof(*refs), member_ref_cmp);
    return refs;
}

static bool equal(const cJSON *a, const cJSON *b);

/* Objects by their member sets: both sorted once, then compared in step
 * (cJSON_Compare looks every member up by a linear scan: quadratic in the
 * members, which a 100,000-key ConfigMap turns into a hang). */
static bool equal_objects(const cJSON *a, const cJSON *b)
{
    size_t na, nb;
    struct member_ref *x = sorted_members(a, &na), *y;
    bool same = true;

    if (na != (size_t)cJSON_GetArraySize(b)) {
        free(x);
        return false;
    }
    y = sorted_members(b, &nb);
    for (size_t i = 0; i < na && same; i++)
        same = strcmp(x[i].item->string, y[i].item->string) == 0 &&
               equal(x[i].item, y[i].item);
    free(x);
    free(y);
    return same;
}

/* As cJSON_Compare with case-sensitive names: numbers equal within a
 * double's precision, arrays element by element. */
static bool equal(const cJSON *a, const cJSON *b)
{
    if (a == NULL || b == NULL || (a->type & 0xFF) != (b->type & 0xFF))
        return false;
    if (cJSON_IsNumber(a)) {
        double x = a->valuedouble < 0 ? -a->valuedouble : a->valuedouble;
        double y = b->valuedouble < 0 ? -b->valuedouble : b->valuedouble;
        double d = a->valuedouble - b->valuedouble;

        return (d < 0 ? -d : d) <= RW_MAX(x, y) * DBL_EPSILON;
    }
    if (cJSON_IsString(a) || cJSON_IsRaw(a))
        return a->valuestring != NULL && b->valuestring != NULL &&
               strcmp(a->valuestring, b->valuestring) == 0;
    if (cJSON_IsObject(a))
        return equal_objects(a, b);
    if (cJSON_IsArray(a)) {
        const cJSON *x = a->child, *y = b->child;

        for (; x != NULL && y != NULL; x = x->next, y = y->next)
            if (!equal(x, y))
                return false;
        return x == NULL && y == NULL;
    }
    return !cJSON_IsInvalid(a); /* null, true, false */
}

bool jval_edit_equal(const struct jval *a, const struct jval *b)
{
    return a != b ? equal(node(a), node(b)) : a != NULL;
}

void jval_edit_drop_nulls(struct jval *v)
{
    cJSON *c = node(v), *e, *next;

    if (!cJSON_IsObject(c) && !cJSON_IsArray(c))
        return;
    for (e = c->child; e != NULL; e = next) {
        next = e->next;
        if (cJSON_IsObject(c) && cJSON_IsNull(e))
            cJSON_Delete(cJSON_DetachItemViaPointer(c, e));
        else
            jval_edit_drop_nulls(val(e));
    }
}

struct jval *jval_edit_dup(const struct jval *v)
{
    edit_init();
    return val(cJSON_Duplicate(node(v), true));
}

struct jval *jval_edit_new_object(void)
{
    edit_init();
    return val(cJSON_CreateObject());
}

struct jval *jval_edit_new_array(void)
{
    edit_init();
    return val(cJSON_CreateArray());
}

struct jval *jval_edit_new_null(void)
{
    edit_init();
    return val(cJSON_CreateNull());
}

struct jval *jval_edit_new_string(const char *s)
{
    edit_init();
    return val(cJSON_CreateString(s));
}

struct jval *jval_edit_mut(const struct jval *v)
{
    return (struct jval *)v;
}

/* Names item name (NULL: no name, for an array element), freeing the old
 * one. */
static void set_name(cJSON *item, const char *name)
{
    char *copy = name != NULL ? xstrdup(name) : NULL;

    if (item->string != NULL && !(item->type & cJSON_StringIsConst))
        free(item->string);
    item->type &= ~cJSON_StringIsConst;
    item->string = copy;
}

void jval_edit_set(struct jval *obj, const char *name, struct jval *v)
{
    cJSON *o = node(obj), *old = cJSON_GetObjectItemCaseSensitive(o, name);

    rw_assert(cJSON_IsObject(o));
    set_name(node(v), name);
    if (old != NULL)
        jval_edit_replace(obj, val(old), v);
    else
        cJSON_AddItemToObject(o, name, node(v));
}

struct jval *jval_edit_take(struct jval *obj, const char *name)
{
    return val(cJSON_DetachItemFromObjectCaseSensitive(node(obj), name));
}

struct jval *jval_edit_detach(struct jval *parent, const struct jval *child)
{
    return val(cJSON_DetachItemViaPointer(node(parent), node(child)));
}

struct jval *jval_edit_swap(struct jval *parent, const struct jval *child,
                            struct jval *v)
{
    cJSON *p = node(parent), *c = node(child), *n = node(v);

    set_name(n, c->string);
    n->next = c->next;
    n->prev = c->prev;
    if (c == p->child)
        p->child = n;
    else
        c->prev->next = n;
    if (c->next != NULL)
        c->next->prev = n;
    else
        p->child->prev = n; /* the first element's prev is the last */
    c->next = c->prev = NULL;
    return val(c);
}

void jval_edit_replace(struct jval *parent, const struct jval *child,
                       struct jval *v)
{
    jval_free(jval_edit_swap(parent, child, v));
}

void jval_edit_append(struct jval *arr, struct jval *v)
{
    rw_assert(cJSON_IsArray(node(arr)));
    set_name(node(v), NULL);
    cJSON_AddItemToArray(node(arr), node(v));
}

void jval_edit_insert(struct jval *arr, size_t i, struct jval *v)
{
    cJSON *a = node(arr), *item = node(v), *after;

    rw_assert(cJSON_IsArray(a) && i <= (size_t)INT32_MAX);
    set_name(item, NULL);
    after = cJSON_GetArrayItem(a, (int)i);
    if (after == NULL) {
        cJSON_AddItemToArray(a, item);
        return;
    }
    /* linked by hand: Debian's cJSON 1.7.15 refuses to insert in the
     * middle (cJSON_InsertItemInArray returns false) */
    item->next = after;
    item->prev = after->prev;
    if (after == a->child)
        a->child = item;
    else
        after->prev->next = item;
    after->prev = item;
}

struct jval **jval_edit_take_all(struct jval *arr, size_t *n)
{
    cJSON *a = node(arr), *e, *next;
    struct jval **items;
    size_t i = 0;

    *n = (size_t)cJSON_GetArraySize(a);
    items = xcalloc(*n + 1, sizeof(*items));
    for (e = a->child; e != NULL; e = next) {
        next = e->next;
        e->next = e->prev = NULL;
        items[i++] = val(e);
    }
    a->child = NULL;
    return items;
}
