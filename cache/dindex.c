/*
 * dindex.c: the dispatcher's index (see dindex.h).
 *
 * Data structure: slots[] of bucket chains; a bucket holds its key (copied
 * after the struct), the key's hash, and the list of entries
 * filed under it.  Invariants: a bucket is in exactly one chain, the one
 * of slot hash & (nslots - 1); a bucket has at least one entry; nbuckets
 * <= nslots after every add (the table doubles before it would exceed).
 */
#include "cache/dindex.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

#define DINDEX_MIN_SLOTS 64

struct dindex_bucket {
    struct dindex_bucket *chain;
    LIST_HEAD(, dindex_entry) entries;
    uint64_t hash;
    size_t len;
    char key[]; /* len bytes */
};

struct dindex {
    struct dindex_bucket **slots;
    size_t nslots; /* a power of two */
    size_t nbuckets;
};

/* FNV-1a, 64 bits: short keys, no adversary that could pick them (keys
 * come from the store's objects and from selectors the server parsed). */
static uint64_t dindex_hash(const char *key, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)key[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

struct dindex *dindex_new(void)
{
    struct dindex *ix = xcalloc(1, sizeof(*ix));

    ix->nslots = DINDEX_MIN_SLOTS;
    ix->slots = xcalloc(ix->nslots, sizeof(*ix->slots));
    return ix;
}

void dindex_free(struct dindex *ix)
{
    if (ix == NULL)
        return;
    for (size_t i = 0; i < ix->nslots; i++) {
        struct dindex_bucket *b = ix->slots[i], *next;
        struct dindex_entry *e;

        for (; b != NULL; b = next) {
            next = b->chain;
            LIST_FOREACH(e, &b->entries, link)
                e->bucket = NULL;
            free(b);
        }
    }
    free(ix->slots);
    free(ix);
}

static struct dindex_bucket *
dindex_find(const struct dindex *ix, const char *key, size_t len, uint64_t hash)
{
    struct dindex_bucket *b = ix->slots[hash & (ix->nslots - 1)];

    for (; b != NULL; b = b->chain)
        if (b->hash == hash && b->len == len && memcmp(b->key, key, len) == 0)
            return b;
    return NULL;
}

static void dindex_grow(struct dindex *ix)
{
    size_t n = ix->nslots * 2;
    struct dindex_bucket **slots = xcalloc(n, sizeof(*slots));

    for (size_t i = 0; i < ix->nslots; i++) {
        struct dindex_bucket *b = ix->slots[i], *next;

        for (; b != NULL; b = next) {
            next = b->chain;
            b->chain = slots[b->hash & (n - 1)];
            slots[b->hash & (n - 1)] = b;
        }
    }
    free(ix->slots);
    ix->slots = slots;
    ix->nslots = n;
}

void dindex_add(struct dindex *ix, const char *key, size_t len,
                struct dindex_entry *e)
{
    uint64_t hash = dindex_hash(key, len);
    struct dindex_bucket *b = dindex_find(ix, key, len, hash);

    rw_assert(e->bucket == NULL);
    if (b == NULL) {
        if (ix->nbuckets == ix->nslots)
            dindex_grow(ix);
        b = xmalloc(sizeof(*b) + len);
        memcpy(b->key, key, len);
        b->len = len;
        b->hash = hash;
        LIST_INIT(&b->entries);
        b->chain = ix->slots[hash & (ix->nslots - 1)];
        ix->slots[hash & (ix->nslots - 1)] = b;
        ix->nbuckets++;
    }
    e->bucket = b;
    LIST_INSERT_HEAD(&b->entries, e, link);
}

void dindex_remove(struct dindex *ix, struct dindex_entry *e)
{
    struct dindex_bucket *b = e->bucket, **link;

    if (b == NULL)
        return;
    LIST_REMOVE(e, link);
    e->bucket = NULL;
    if (!LIST_EMPTY(&b->entries))
        return;
    for (link = &ix->slots[b->hash & (ix->nslots - 1)]; *link != b;
         link = &(*link)->chain)
        ;
    *link = b->chain;
    ix->nbuckets--;
    free(b);
}

struct dindex_entry *dindex_first(const struct dindex *ix, const char *key,
                                  size_t len)
{
    struct dindex_bucket *b = dindex_find(ix, key, len, dindex_hash(key, len));

    return b ? LIST_FIRST(&b->entries) : NULL;
}

size_t dindex_keys(const struct dindex *ix)
{
    return ix->nbuckets;
}
