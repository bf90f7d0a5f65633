/*
 * patch_list.h: the lists of a strategic merge patch (patch_strategic.c):
 * vectors of owned items, an index of merge key values (their JSON text,
 * in a hash table: lookups in O(1), so merging lists of thousands of items
 * is linear), and the order strategicpatch gives a merged list
 * (normalizeElementOrder, mergeSortedSlice).
 */
#ifndef PATCH_LIST_H
#define PATCH_LIST_H

#include <stddef.h>

struct jval;

struct patch_list {
    struct jval **v;
    size_t n, cap;
};

/* An open-addressing hash set of key texts, each with its first position
 * (findMapInSliceBasedOnKeyValue finds the first match). */
struct patch_list_index {
    const char **keys;
    size_t *pos;
    size_t mask;
};

/* The key texts of n items, indexed (the index borrows them). */
struct patch_list_keys {
    char **keys;
    size_t n;
    struct patch_list_index ix;
};

/* Appends x (taken) to a (zeroed at first); a->v is xrealloc'd. */
void patch_list_push(struct patch_list *a, struct jval *x);

/* The JSON text identifying item (malloc'd): its member key's value (NULL
 * when it has none), or the item itself in a list of scalars (key
 * NULL). */
char *patch_list_key(const struct jval *item, const char *key);

/* An index for n keys; free with patch_list_index_fini. */
void patch_list_index_init(struct patch_list_index *ix, size_t n);
void patch_list_index_fini(struct patch_list_index *ix);

/* Adds key (borrowed: it must outlive the index) at pos unless present:
 * the first position is kept (findMapInSliceBasedOnKeyValue finds the
 * first match). */
void patch_list_index_put(struct patch_list_index *ix, const char *key,
                          size_t pos);

/* The first position of key, -1 when absent or key is NULL. */
long patch_list_index_get(const struct patch_list_index *ix, const char *key);

/* The key texts of n items (patch_list_key with key), indexed; of the
 * elements of array list (NULL: none). */
void patch_list_keys_init(struct patch_list_keys *k, struct jval *const *items,
                          size_t n, const char *key);
void patch_list_keys_init_array(struct patch_list_keys *k,
                                const struct jval *list, const char *key);
void patch_list_keys_fini(struct patch_list_keys *k);

/*
 * normalizeElementOrder then mergeSortedSlice: the items (their keys
 * present) that order names sorted by order, the others by server; then
 * merged: at each step a server-only item goes first only when both items
 * are in server and it comes first there (so an item the original lacks
 * goes before the original's items).  Reorders items->v in place.
 */
void patch_list_order(struct patch_list *items,
                      const struct patch_list_keys *order,
                      const struct patch_list_keys *server, const char *key);

#endif
