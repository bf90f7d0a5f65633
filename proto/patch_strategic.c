/*
 * patch_strategic.c: strategic merge patch (see patch_strategic.h), as
 * strategicpatch.StrategicMergeMapPatch with its options of the apiserver
 * (MergeParallelList, IgnoreUnmatchedNulls):
 *
 *  - a map: "$patch": replace takes the patch map, "$patch": delete empties
 *    it; "$retainKeys" drops the members it does not name;
 *    "$setElementOrder/<list>" merges <list> and orders it; then each
 *    member: null deletes, a member absent or of another JSON type is
 *    taken (its nulls dropped), maps merge (unless the field's strategy is
 *    replace), lists merge when the field's strategy is merge and are
 *    replaced otherwise, scalars are replaced;
 *  - a merged list of maps: "$patch": delete items remove the original's
 *    items of their merge key, a "$patch": replace item makes the patch's
 *    items the list; the others merge into the original's item of the same
 *    merge key or are added; a list of scalars is a set, with
 *    "$deleteFromPrimitiveList/<list>" removing members;
 *  - the order: the patch's items in the patch's order, the original's
 *    other items in theirs, interleaved by the original's order
 *    (mergeSortedSlice): an item the original lacks goes before the
 *    original's items it is compared with.
 *
 * Lists are handled as vectors (jval_edit_take_all) with a hash index of
 * the merge key values (their JSON text), so merging lists of thousands of
 * items is linear.  Every error is the library's, with its code as the
 * apiserver's interpretStrategicMergePatchError maps it.
 */
#include "proto/patch_strategic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/jval_edit.h"
#include "proto/patch_keys.h"

#define SET_ORDER "$setElementOrder/"
#define DELETE_FROM "$deleteFromPrimitiveList/"
#define RETAIN_KEYS "$retainKeys"
#define DIRECTIVE "$patch"

/* ------------------------------------------------------------------ */
/* Errors as the library words them                                    */

/* Go's %v of a decoded JSON value: map[k:v ...] with sorted keys. */
static void go_format(struct sbuf *b, const struct jval *v);

static int key_cmp(const void *a, const void *b)
{
    return strcmp(jval_name(*(const struct jval *const *)a),
                  jval_name(*(const struct jval *const *)b));
}

static void go_format(struct sbuf *b, const struct jval *v)
{
    const struct jval *c, **members;
    size_t n = 0, i = 0;
    char *json;

    switch (jval_type(v)) {
    case JVAL_OBJECT:
        members = xcalloc(jval_count(v) + 1, sizeof(*members));
        JVAL_EACH(c, v) members[n++] = c;
        qsort(members, n, sizeof(*members), key_cmp);
        sbuf_add(b, "map[");
        for (i = 0; i < n; i++) {
            sbuf_addf(b, "%s%s:", i ? " " : "", jval_name(members[i]));
            go_format(b, members[i]);
        }
        sbuf_add(b, "]");
        free(members);
        break;
    case JVAL_ARRAY:
        sbuf_add(b, "[");
        JVAL_EACH(c, v) {
            sbuf_add(b, i++ ? " " : "");
            go_format(b, c);
        }
        sbuf_add(b, "]");
        break;
    case JVAL_STRING:
        sbuf_add(b, jval_str(v));
        break;
    case JVAL_NULL:
    case JVAL_NONE:
        sbuf_add(b, "<nil>");
        break;
    default:
        json = jval_edit_print(v, &n);
        sbuf_add(b, json);
        free(json);
        break;
    }
}

/* An error strategicpatch returns unwrapped: 500 without a reason. */
static int fail_raw(struct patch_error *err, const char *fmt,
                    const struct jval *v, const char *tail)
{
    struct sbuf b = {0};

    go_format(&b, v);
    patch_fail(err, 500, "", fmt, b.data != NULL ? b.data : "", tail);
    sbuf_fini(&b);
    return RW_EINVAL;
}

/* mergepatch.ErrNoMergeKey */
static int fail_no_merge_key(struct patch_error *err, const struct jval *m,
                             const char *key)
{
    return fail_raw(err, "map: %s does not contain declared merge key: %s",
                    m, key);
}

/* mergepatch.ErrBadArgType */
static int fail_bad_arg(struct patch_error *err, const char *want,
                        const struct jval *got)
{
    static const char *const kinds[] = {
        [JVAL_NONE] = "invalid",  [JVAL_NULL] = "invalid",
        [JVAL_FALSE] = "bool",    [JVAL_TRUE] = "bool",
        [JVAL_NUMBER] = "float64", [JVAL_STRING] = "string",
        [JVAL_ARRAY] = "slice",   [JVAL_OBJECT] = "map",
    };

    return patch_fail(err, 500, "", "expected a %s, but received a %s", want,
                      kinds[jval_type(got)]);
}

static int fail_bad_request(struct patch_error *err, const char *message)
{
    return patch_fail(err, 400, "BadRequest", "%s", message);
}

/* ErrNoListOfLists, ErrPatchContentNotMatchRetainKeys: the apiserver's
 * NewGenericServerResponse(422). */
static int fail_invalid(struct patch_error *err, const char *why)
{
    snprintf(err->detail, sizeof(err->detail), "%s", why);
    return patch_fail(err, 422, "Invalid",
                      "the server rejected our request due to an error in "
                      "our request");
}

/* ------------------------------------------------------------------ */
/* Vectors of items and the index of their merge key values            */

struct vec {
    struct jval **v;
    size_t n, cap;
};

static void vec_push(struct vec *a, struct jval *x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
    }
    a->v[a->n++] = x;
}

/* The JSON text identifying item: its merge key's value (NULL when it
 * has none), or the item itself in a list of scalars (key NULL). */
static char *item_key(const struct jval *item, const char *key)
{
    size_t n;

    if (key != NULL) {
        item = jval_member(item, key, strlen(key));
        if (item == NULL)
            return NULL;
    }
    return jval_edit_print(item, &n);
}

/* An open-addressing hash set of key texts, each with its first position
 * (findMapInSliceBasedOnKeyValue finds the first match). */
struct index {
    const char **keys;
    size_t *pos;
    size_t mask;
};

static size_t hash(const char *s)
{
    size_t h = 14695981039346656037u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211u;
    return h;
}

static void index_init(struct index *ix, size_t n)
{
    size_t cap = 16;

    while (cap < 2 * n)
        cap *= 2;
    ix->keys = xcalloc(cap, sizeof(*ix->keys));
    ix->pos = xcalloc(cap, sizeof(*ix->pos));
    ix->mask = cap - 1;
}

static void index_fini(struct index *ix)
{
    free(ix->keys);
    free(ix->pos);
}

/* The slot of key: where it is, or the empty one where it would go. */
static size_t index_slot(const struct index *ix, const char *key)
{
    size_t i = hash(key) & ix->mask;

    while (ix->keys[i] != NULL && strcmp(ix->keys[i], key) != 0)
        i = (i + 1) & ix->mask;
    return i;
}

/* Adds key (borrowed: it must outlive the index) at pos unless present. */
static void index_put(struct index *ix, const char *key, size_t pos)
{
    size_t i = index_slot(ix, key);

    if (ix->keys[i] == NULL) {
        ix->keys[i] = key;
        ix->pos[i] = pos;
    }
}

/* The first position of key, -1 when absent (key NULL included). */
static long index_get(const struct index *ix, const char *key)
{
    size_t i;

    if (key == NULL)
        return -1;
    i = index_slot(ix, key);
    return ix->keys[i] != NULL ? (long)ix->pos[i] : -1;
}

/* The key texts of n items, indexed (the index borrows them). */
struct keyed {
    char **keys;
    size_t n;
    struct index ix;
};

static void keyed_init(struct keyed *k, struct jval *const *items, size_t n,
                       const char *key)
{
    k->n = n;
    k->keys = xcalloc(n + 1, sizeof(*k->keys));
    index_init(&k->ix, n);
    for (size_t i = 0; i < n; i++) {
        k->keys[i] = item_key(items[i], key);
        if (k->keys[i] != NULL)
            index_put(&k->ix, k->keys[i], i);
    }
}

/* keyed_init over the elements of array list (NULL: none). */
static void keyed_init_list(struct keyed *k, const struct jval *list,
                            const char *key)
{
    struct vec items = {0};
    const struct jval *c;

    JVAL_EACH(c, list) vec_push(&items, jval_edit_mut(c));
    keyed_init(k, items.v, items.n, key);
    free(items.v);
}

static void keyed_fini(struct keyed *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    index_fini(&k->ix);
}

/* ------------------------------------------------------------------ */
/* List order                                                          */

struct ranked {
    struct jval *item;
    long rank;   /* position in the list ordering this side */
    long server; /* position in the original, -1 when new */
    size_t seq;
};

static int ranked_cmp(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * normalizeElementOrder: the items (taken, their keys checked) present in
 * order sorted by it, the others by server; then mergeSortedSlice: at each
 * step the server-only item goes first only when both items are in the
 * original and it comes first there.  The result replaces *items.
 */
static void order_items(struct vec *items, const struct keyed *order,
                        const struct keyed *server, const char *key)
{
    struct ranked *left = xcalloc(items->n + 1, sizeof(*left));
    struct ranked *right = xcalloc(items->n + 1, sizeof(*right));
    size_t nl = 0, nr = 0, i = 0, j = 0, k = 0;

    for (size_t n = 0; n < items->n; n++) {
        char *text = item_key(items->v[n], key);
        long r = index_get(&order->ix, text), s = index_get(&server->ix, text);

        if (r >= 0)
            right[nr++] = (struct ranked){items->v[n], r, s, n};
        else
            left[nl++] = (struct ranked){items->v[n], s, s, n};
        free(text);
    }
    qsort(left, nl, sizeof(*left), ranked_cmp);
    qsort(right, nr, sizeof(*right), ranked_cmp);
    while (i < nl || j < nr) {
        bool take_left = j >= nr || (i < nl && left[i].server >= 0 &&
                                     right[j].server >= 0 &&
                                     left[i].server < right[j].server);

        items->v[k++] = take_left ? left[i++].item : right[j++].item;
    }
    free(left);
    free(right);
}

/* ------------------------------------------------------------------ */
/* Lists                                                               */

static struct jval *merge_map(struct jval *orig, struct jval *patch,
                              const struct patch_keys_type *t,
                              struct patch_error *err);

/* Go's reflect type of a decoded JSON value, as far as lists compare
 * them (bools one type). */
static enum jval_type go_kind(const struct jval *v)
{
    return jval_type(v) == JVAL_TRUE ? JVAL_FALSE : jval_type(v);
}

/* sliceElementType: the one element type of lists a and b (arrays or
 * NULL; JVAL_NONE when both are empty), lists of lists refused. */
static int element_type(const struct jval *a, const struct jval *b,
                        enum jval_type *t, struct patch_error *err)
{
    const struct jval *lists[] = {a, b}, *c;
    struct sbuf s = {0};

    *t = JVAL_NONE;
    for (size_t i = 0; i < 2; i++) {
        JVAL_EACH(c, lists[i]) {
            enum jval_type k = go_kind(c);

            if (*t == JVAL_NONE && k == JVAL_ARRAY)
                return fail_invalid(err, "lists of lists are not supported");
            if (*t != JVAL_NONE && k != *t) {
                sbuf_add(&s, "[");
                go_format(&s, a);
                sbuf_add(&s, " ");
                go_format(&s, b);
                sbuf_add(&s, "]");
                patch_fail(err, 500, "",
                           "list element types are not identical: %s", s.data);
                sbuf_fini(&s);
                return RW_EINVAL;
            }
            *t = k;
        }
    }
    return RW_OK;
}

/* A list of scalars as a set: the original's and the patch's members
 * (deduplicateScalars), or the original's without the patch's for a
 * $deleteFromPrimitiveList. Items taken from o and p (left NULL). */
static void merge_scalars(struct jval **o, size_t no, struct jval **p,
                          size_t np, bool delete_list, struct vec *out)
{
    struct keyed ko, kp;
    struct index seen;

    keyed_init(&ko, o, no, NULL);
    keyed_init(&kp, p, np, NULL);
    index_init(&seen, no + np);
    for (size_t i = 0; i < no + np; i++) {
        struct jval **item = i < no ? &o[i] : &p[i - no];
        const char *text = i < no ? ko.keys[i] : kp.keys[i - no];

        if (delete_list ? i >= no || index_get(&kp.ix, text) >= 0
                        : index_get(&seen, text) >= 0)
            continue;
        index_put(&seen, text, i);
        vec_push(out, *item);
        *item = NULL;
    }
    if (!delete_list)
        order_items(out, &kp, &ko, NULL);
    index_fini(&seen);
    keyed_fini(&ko);
    keyed_fini(&kp);
}

/* mergeSliceWithSpecialElements: the patch's items without a $patch
 * into *rest (taken from p); "$patch": delete items remove the original's
 * items of their key from o (freed, left NULL); *replace set by a
 * "$patch": replace item. */
static int list_directives(struct jval **o, size_t no, struct jval **p,
                           size_t np, const char *key, struct vec *rest,
                           bool *replace, struct patch_error *err)
{
    struct vec gone = {0}; /* the key texts of the deleted items */
    struct index del;
    int rc = RW_OK;

    for (size_t i = 0; i < np && rc == RW_OK; i++) {
        const struct jval *d = jval_member(p[i], DIRECTIVE, strlen(DIRECTIVE));
        const char *word = jval_str(d);
        char *text;

        if (d == NULL) {
            vec_push(rest, p[i]);
            p[i] = NULL;
        } else if (strcmp(word, "delete") == 0 && jval_type(d) == JVAL_STRING) {
            if ((text = item_key(p[i], key)) == NULL)
                rc = fail_no_merge_key(err, p[i], key);
            else
                vec_push(&gone, (struct jval *)text);
        } else if (strcmp(word, "replace") == 0) {
            *replace = true;
        } else if (strcmp(word, "merge") == 0) {
            rc = patch_fail(err, 500, "",
                            "merging lists cannot yet be specified in the "
                            "patch");
        } else {
            struct sbuf b = {0}, m = {0};

            go_format(&b, d);
            go_format(&m, p[i]);
            rc = patch_fail(err, 500, "", "unknown patch type: %s in map: %s",
                            b.data, m.data);
            sbuf_fini(&b);
            sbuf_fini(&m);
        }
    }
    index_init(&del, gone.n);
    for (size_t i = 0; i < gone.n; i++)
        index_put(&del, (const char *)gone.v[i], i);
    for (size_t i = 0; i < no && gone.n > 0; i++) {
        char *text = item_key(o[i], key);

        if (index_get(&del, text) >= 0) {
            jval_free(o[i]);
            o[i] = NULL;
        }
        free(text);
    }
    index_fini(&del);
    for (size_t i = 0; i < gone.n; i++)
        free(gone.v[i]);
    free(gone.v);
    return rc;
}

/*
 * A merged list of maps: the directives, then each patch item merged into
 * the original's item of its key or added (mergeSliceWithoutSpecialElements),
 * then the order.  Items taken from o and p.
 */
static int merge_map_list(struct jval **o, size_t no, struct jval **p,
                          size_t np, const struct patch_keys_field *f,
                          struct vec *out, struct patch_error *err)
{
    const char *key = f->merge_key;
    struct vec rest = {0};
    struct keyed kp, ks;
    struct index at; /* key text -> position in out */
    bool replace = false;
    int rc;

    rc = list_directives(o, no, p, np, key, &rest, &replace, err);
    for (size_t i = 0; i < no && rc == RW_OK; i++) {
        if (o[i] != NULL && !replace) {
            if (jval_member(o[i], key, strlen(key)) == NULL)
                rc = fail_no_merge_key(err, o[i], key);
            vec_push(out, o[i]);
            o[i] = NULL;
        }
    }
    if (rc != RW_OK || replace) {
        for (size_t i = 0; i < rest.n; i++)
            vec_push(out, rest.v[i]); /* original := the patch's items */
        free(rest.v);
        return rc;
    }
    keyed_init(&ks, out->v, out->n, key);
    keyed_init(&kp, rest.v, rest.n, key);
    index_init(&at, out->n + rest.n);
    for (size_t i = 0; i < out->n; i++)
        index_put(&at, ks.keys[i], i);
    for (size_t i = 0; i < rest.n; i++) {
        long pos = index_get(&at, kp.keys[i]);
        struct jval *item = rest.v[i], *merged;

        if (rc == RW_OK && kp.keys[i] == NULL)
            rc = fail_no_merge_key(err, item, key);
        if (rc != RW_OK) {
            jval_free(item);
        } else if (pos >= 0) {
            merged = merge_map(out->v[pos], item, f->type, err);
            out->v[pos] = merged != NULL ? merged : jval_edit_new_null();
            rc = merged != NULL ? RW_OK : RW_EINVAL;
        } else {
            index_put(&at, kp.keys[i], out->n);
            vec_push(out, item);
        }
    }
    if (rc == RW_OK)
        order_items(out, &kp, &ks, key);
    index_fini(&at);
    keyed_fini(&kp);
    keyed_fini(&ks);
    free(rest.v);
    return rc;
}

/*
 * mergeSlice (the field's strategy is merge): orig and patch (owned
 * arrays) merged into a new array, owned by the caller; NULL with *err
 * set.
 */
static struct jval *merge_slice(struct jval *orig, struct jval *patch,
                                const struct patch_keys_field *f,
                                bool delete_list, struct patch_error *err)
{
    enum jval_type t;
    int rc = element_type(orig, patch, &t, err);
    size_t no, np;
    struct jval **o = jval_edit_take_all(orig, &no);
    struct jval **p = jval_edit_take_all(patch, &np);
    struct vec out = {0};

    jval_free(patch);
    if (rc == RW_OK && t != JVAL_OBJECT && t != JVAL_NONE)
        merge_scalars(o, no, p, np, delete_list, &out);
    else if (rc == RW_OK && t == JVAL_OBJECT && f->merge_key == NULL)
        rc = patch_fail(err, 500, "",
                        "cannot merge lists without merge key for %s",
                        f->name);
    else if (rc == RW_OK && t == JVAL_OBJECT)
        rc = merge_map_list(o, no, p, np, f, &out, err);
    for (size_t i = 0; i < out.n; i++)
        jval_edit_append(orig, out.v[i]);
    free(out.v);
    for (size_t i = 0; i < no + np; i++)
        jval_free(i < no ? o[i] : p[i - no]);
    free(o);
    free(p);
    if (rc != RW_OK) {
        jval_free(orig);
        return NULL;
    }
    return orig;
}

/* ------------------------------------------------------------------ */
/* Maps                                                                */

/* handleDirectiveInMergeMap: "$patch": replace or delete on a map. */
static struct jval *map_directive(struct jval *orig, struct jval *patch,
                                  const struct jval *d,
                                  struct patch_error *err)
{
    bool is_string = jval_type(d) == JVAL_STRING;
    struct sbuf b = {0}, m = {0};

    jval_free(orig);
    if (is_string && strcmp(jval_str(d), "replace") == 0) {
        jval_free(jval_edit_take(patch, DIRECTIVE));
        return patch;
    }
    if (is_string && strcmp(jval_str(d), "delete") == 0) {
        jval_free(patch);
        return jval_edit_new_object();
    }
    go_format(&b, d);
    go_format(&m, patch);
    patch_fail(err, 500, "", "unknown patch type: %s in map: %s", b.data,
               m.data);
    sbuf_fini(&b);
    sbuf_fini(&m);
    jval_free(patch);
    return NULL;
}

static bool has_prefix(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Whether the string name is an element of array list. */
static bool listed(const struct jval *list, const char *name)
{
    const struct jval *c;

    JVAL_EACH(c, list) {
        if (jval_type(c) == JVAL_STRING && strcmp(jval_str(c), name) == 0)
            return true;
    }
    return false;
}

/* applyRetainKeysDirective: the original's members the list does not name
 * dropped; a patch member it does not name is an error. */
static int retain_keys(struct jval *orig, struct jval *patch,
                       struct patch_error *err)
{
    struct jval *list = jval_edit_take(patch, RETAIN_KEYS);
    const struct jval *c, *next;
    int rc = RW_OK;

    if (list == NULL)
        return RW_OK;
    if (jval_type(list) != JVAL_ARRAY)
        rc = fail_bad_request(err, "invalid patch format of retainKeys");
    JVAL_EACH(c, patch) {
        if (rc == RW_OK && jval_type(c) != JVAL_NULL &&
            !has_prefix(jval_name(c), DELETE_FROM) &&
            !has_prefix(jval_name(c), SET_ORDER) &&
            !listed(list, jval_name(c)))
            rc = fail_bad_request(err, "invalid patch format of retainKeys");
    }
    for (c = jval_first(orig); c != NULL && rc == RW_OK; c = next) {
        next = jval_next(c);
        if (!listed(list, jval_name(c)))
            jval_free(jval_edit_detach(orig, c));
    }
    jval_free(list);
    return rc;
}

/* validatePatchWithSetOrderList: the patch list's items (but "$patch"
 * ones) must appear in the order list in the same order. */
static int check_order(const struct jval *patch_list, const struct jval *order,
                       const char *key, struct patch_error *err)
{
    const struct jval *p = jval_first(patch_list), *o = jval_first(order);
    struct sbuf a = {0}, b = {0};

    while (p != NULL && o != NULL) {
        char *pk, *ok;
        bool equal;

        if (key != NULL && jval_member(p, DIRECTIVE, strlen(DIRECTIVE))) {
            p = jval_next(p);
            continue;
        }
        pk = item_key(p, key);
        ok = item_key(o, key);
        if (pk == NULL || ok == NULL) {
            free(pk);
            free(ok);
            return fail_no_merge_key(err, pk == NULL ? p : o, key);
        }
        equal = strcmp(pk, ok) == 0;
        free(pk);
        free(ok);
        p = equal ? jval_next(p) : p;
        o = jval_next(o);
    }
    if (p == NULL || jval_count(order) == 0)
        return RW_OK;
    go_format(&a, patch_list);
    go_format(&b, order);
    patch_fail(err, 500, "",
               "The order in patch list:\n%s\n doesn't match $setElementOrder "
               "list:\n%s\n",
               a.data, b.data);
    sbuf_fini(&a);
    sbuf_fini(&b);
    return RW_EINVAL;
}

/* Detaches orig's member name, or returns an empty array. */
static struct jval *take_list(struct jval *obj, const char *name)
{
    struct jval *v = jval_edit_take(obj, name);

    return v != NULL ? v : jval_edit_new_array();
}

/* Orders the items of list (an array) as order_items; in a list of maps
 * every item needs its merge key. */
static int order_list(struct jval *list, const struct keyed *order,
                      const struct keyed *server, const char *key,
                      bool maps, struct patch_error *err)
{
    struct vec items = {0};
    int rc = RW_OK;

    items.v = jval_edit_take_all(list, &items.n);
    for (size_t i = 0; i < items.n && maps && rc == RW_OK; i++)
        if (jval_member(items.v[i], key, strlen(key)) == NULL)
            rc = fail_no_merge_key(err, items.v[i], key);
    if (rc == RW_OK)
        order_items(&items, order, server, maps ? key : NULL);
    for (size_t i = 0; i < items.n; i++)
        jval_edit_append(list, items.v[i]);
    free(items.v);
    return rc;
}

/*
 * One "$setElementOrder/<name>": order applied to the list name, merged
 * with the patch's list of that name (consumed) as mergeMap would, then
 * ordered: the items the order names in its order, the others by the
 * original's (normalizeElementOrder).  *stop set when neither side has the
 * list: mergePatchIntoOriginal returns there, leaving the other directives.
 */
static int set_element_order(struct jval *orig, struct jval *patch,
                             const char *name, const struct jval *order,
                             const struct patch_keys_type *t, bool *stop,
                             struct patch_error *err)
{
    const struct patch_keys_field *f = patch_keys_field(t, name);
    const char *key = f != NULL ? f->merge_key : NULL;
    const struct jval *ol = jval_member(orig, name, strlen(name));
    const struct jval *pl = jval_member(patch, name, strlen(name));
    struct jval *merged;
    struct keyed ko, ks;
    enum jval_type type;
    int rc;

    if (jval_type(order) != JVAL_ARRAY)
        return fail_bad_arg(err, "slice", order);
    if (ol != NULL && jval_type(ol) != JVAL_ARRAY)
        return fail_bad_arg(err, "slice", ol);
    if (pl != NULL && jval_type(pl) != JVAL_ARRAY)
        return fail_bad_arg(err, "slice", pl);
    if (pl != NULL && (rc = check_order(pl, order, key, err)) != RW_OK)
        return rc;
    if (ol == NULL && pl == NULL) {
        *stop = true;
        return RW_OK;
    }
    if ((rc = element_type(ol, pl, &type, err)) != RW_OK)
        return rc;
    if (type == JVAL_NONE)
        return patch_fail(err, 500, "",
                          "no elements in any of the given slices");
    if (type == JVAL_OBJECT && key == NULL)
        return patch_fail(err, 500, "",
                          "cannot merge lists without merge key for %s", name);
    keyed_init_list(&ks, ol, type == JVAL_OBJECT ? key : NULL);
    keyed_init_list(&ko, order, type == JVAL_OBJECT ? key : NULL);
    if (ol == NULL || pl == NULL)
        merged = take_list(ol == NULL ? patch : orig, name);
    else if (f != NULL && f->merge)
        merged = merge_slice(take_list(orig, name), take_list(patch, name), f,
                             false, err);
    else
        merged = take_list(patch, name);
    rc = merged == NULL ? RW_EINVAL
                        : order_list(merged, &ko, &ks, key,
                                     type == JVAL_OBJECT, err);
    if (merged != NULL)
        jval_edit_set(orig, name, merged);
    keyed_fini(&ko);
    keyed_fini(&ks);
    return rc;
}

/* mergePatchIntoOriginal: every "$setElementOrder/<list>" of the patch. */
static int set_element_orders(struct jval *orig, struct jval *patch,
                              const struct patch_keys_type *t,
                              struct patch_error *err)
{
    const struct jval *c, *next;
    bool stop = false;
    int rc = RW_OK;

    for (c = jval_first(patch); c != NULL && rc == RW_OK && !stop; c = next) {
        next = jval_next(c);
        if (has_prefix(jval_name(c), SET_ORDER)) {
            char *name = xstrdup(jval_name(c) + strlen(SET_ORDER));
            struct jval *order = jval_edit_detach(patch, c);

            rc = set_element_order(orig, patch, name, order, t, &stop, err);
            next = jval_first(patch); /* the patch's list may be gone */
            jval_free(order);
            free(name);
        }
    }
    return rc;
}

/* Merges the value at child (a member of orig) with pv (taken), in
 * place. */
static int merge_in_place(struct jval *orig, const struct jval *child,
                          struct jval *pv, const struct patch_keys_field *f,
                          bool delete_list, struct patch_error *err)
{
    struct jval *hole = jval_edit_new_null();
    struct jval *cur = jval_edit_swap(orig, child, hole), *res;

    if (jval_type(cur) == JVAL_OBJECT)
        res = merge_map(cur, pv, f != NULL ? f->type : NULL, err);
    else
        res = merge_slice(cur, pv, f, delete_list, err);
    if (res == NULL)
        return RW_EINVAL;
    jval_edit_replace(orig, hole, res);
    return RW_OK;
}

/* One member name of the patch, pv (taken), merged into orig. */
static int merge_member(struct jval *orig, const char *name, struct jval *pv,
                        const struct patch_keys_type *t,
                        struct patch_error *err)
{
    bool delete_list = has_prefix(name, DELETE_FROM);
    const char *k = delete_list ? strchr(name, '/') + 1 : name;
    const struct jval *cur = jval_member(orig, k, strlen(k));
    const struct patch_keys_field *f = patch_keys_field(t, k);
    enum jval_type ct = jval_type(cur), pt = jval_type(pv);

    if (pt == JVAL_NULL) {
        if (cur != NULL)
            jval_free(jval_edit_detach(orig, cur));
        jval_free(pv);
    } else if (cur == NULL || ct != pt ||
               (ct != JVAL_OBJECT && ct != JVAL_ARRAY)) {
        if (delete_list && (cur == NULL || ct != pt)) {
            jval_free(pv);
            return RW_OK;
        }
        if (cur == NULL || ct != pt)
            jval_edit_drop_nulls(pv);
        jval_edit_set(orig, k, pv);
    } else if ((ct == JVAL_OBJECT && (f == NULL || !f->replace)) ||
               (ct == JVAL_ARRAY && f != NULL && f->merge)) {
        return merge_in_place(orig, cur, pv, f, delete_list, err);
    } else {
        jval_edit_set(orig, k, pv); /* replace strategy, untagged list */
    }
    return RW_OK;
}

/* mergeMap: patch (taken) merged into orig (taken); the result, owned by
 * the caller, or NULL with *err set. */
static struct jval *merge_map(struct jval *orig, struct jval *patch,
                              const struct patch_keys_type *t,
                              struct patch_error *err)
{
    const struct jval *d = jval_member(patch, DIRECTIVE, strlen(DIRECTIVE));
    const struct jval *m;
    int rc;

    if (d != NULL)
        return map_directive(orig, patch, d, err);
    rc = retain_keys(orig, patch, err);
    if (rc == RW_OK)
        rc = set_element_orders(orig, patch, t, err);
    while (rc == RW_OK && (m = jval_first(patch)) != NULL) {
        char *name = xstrdup(jval_name(m));

        rc = merge_member(orig, name, jval_edit_detach(patch, m), t, err);
        free(name);
    }
    jval_free(patch);
    if (rc != RW_OK) {
        jval_free(orig);
        return NULL;
    }
    return orig;
}

/* ------------------------------------------------------------------ */

bool patch_strategic_supported(const char *group, const char *kind)
{
    return patch_keys_find(group, kind) != NULL;
}

int patch_strategic_apply(struct jval **doc, const struct jval *patch,
                          const char *group, const char *kind,
                          struct patch_error *err)
{
    if (jval_type(patch) == JVAL_NULL)
        return RW_OK;
    *doc = merge_map(*doc, jval_edit_dup(patch), patch_keys_find(group, kind),
                     err);
    return *doc != NULL ? RW_OK : RW_EINVAL;
}
