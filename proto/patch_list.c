/*
 * patch_list.c: vectors, the merge key index and the order of merged
 * lists (see patch_list.h).  The index is open addressing over a power of
 * two at least twice the keys, FNV-1a hashed.
 */
#include "proto/patch_list.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/jval_edit.h"

void patch_list_push(struct patch_list *a, struct jval *x)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
    }
    a->v[a->n++] = x;
}

/* The JSON text identifying item: its merge key's value (NULL when it
 * has none), or the item itself in a list of scalars (key NULL). */
char *patch_list_key(const struct jval *item, const char *key)
{
    size_t n;

    if (key != NULL) {
        item = jval_member(item, key, strlen(key));
        if (item == NULL)
            return NULL;
    }
    return jval_edit_print(item, &n);
}

static size_t hash(const char *s)
{
    size_t h = 14695981039346656037u;

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211u;
    return h;
}

void patch_list_index_init(struct patch_list_index *ix, size_t n)
{
    size_t cap = 16;

    while (cap < 2 * n)
        cap *= 2;
    ix->keys = xcalloc(cap, sizeof(*ix->keys));
    ix->pos = xcalloc(cap, sizeof(*ix->pos));
    ix->mask = cap - 1;
}

void patch_list_index_fini(struct patch_list_index *ix)
{
    free(ix->keys);
    free(ix->pos);
}

/* The slot of key: where it is, or the empty one where it would go. */
static size_t index_slot(const struct patch_list_index *ix, const char *key)
{
    size_t i = hash(key) & ix->mask;

    while (ix->keys[i] != NULL && strcmp(ix->keys[i], key) != 0)
        i = (i + 1) & ix->mask;
    return i;
}

/* Adds key (borrowed: it must outlive the index) at pos unless present. */
void patch_list_index_put(struct patch_list_index *ix, const char *key,
                          size_t pos)
{
    size_t i = index_slot(ix, key);

    if (ix->keys[i] == NULL) {
        ix->keys[i] = key;
        ix->pos[i] = pos;
    }
}

/* The first position of key, -1 when absent (key NULL included). */
long patch_list_index_get(const struct patch_list_index *ix, const char *key)
{
    size_t i;

    if (key == NULL)
        return -1;
    i = index_slot(ix, key);
    return ix->keys[i] != NULL ? (long)ix->pos[i] : -1;
}

void patch_list_keys_init(struct patch_list_keys *k, struct jval *const *items,
                          size_t n, const char *key)
{
    k->n = n;
    k->keys = xcalloc(n + 1, sizeof(*k->keys));
    patch_list_index_init(&k->ix, n);
    for (size_t i = 0; i < n; i++) {
        k->keys[i] = patch_list_key(items[i], key);
        if (k->keys[i] != NULL)
            patch_list_index_put(&k->ix, k->keys[i], i);
    }
}

/* patch_list_keys_init over the elements of array list (NULL: none). */
void patch_list_keys_init_array(struct patch_list_keys *k,
                                const struct jval *list, const char *key)
{
    struct patch_list items = {0};
    const struct jval *c;

    JVAL_EACH(c, list) patch_list_push(&items, jval_edit_mut(c));
    patch_list_keys_init(k, items.v, items.n, key);
    free(items.v);
}

void patch_list_keys_fini(struct patch_list_keys *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->keys[i]);
    free(k->keys);
    patch_list_index_fini(&k->ix);
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
void patch_list_order(struct patch_list *items,
                      const struct patch_list_keys *order,
                      const struct patch_list_keys *server, const char *key)
{
    struct ranked *left = xcalloc(items->n + 1, sizeof(*left));
    struct ranked *right = xcalloc(items->n + 1, sizeof(*right));
    size_t nl = 0, nr = 0, i = 0, j = 0, k = 0;

    for (size_t n = 0; n < items->n; n++) {
        char *text = patch_list_key(items->v[n], key);
        long r = patch_list_index_get(&order->ix, text),
             s = patch_list_index_get(&server->ix, text);

        if (r >= 0)
            right[nr++] = (struct ranked){items->v[n], r, s, n};
        else
            left[nl++] = (struct ranked){items->v[n], s, s, n};
        free(text);
    }
    qsort(left, nl, sizeof(*left), ranked_cmp);
    qsort(right, nr, sizeof(*right), ranked_cmp);
    while (i < nl || j < nr) {
        bool take_left =
            j >= nr || (i < nl && left[i].server >= 0 && right[j].server >= 0 &&
                        left[i].server < right[j].server);

        items->v[k++] = take_left ? left[i++].item : right[j++].item;
    }
    free(left);
    free(right);
}
