/*
 * keys.c: intern table of object keys (see keys.h).
 *
 * Data structure: the key strings live back to back, NUL-terminated, in
 * one growing arena; offsets[i] is where key i starts.  An open-addressing
 * hash table (linear probing, power-of-two size, at most half full) maps a
 * key's hash to its index + 1 (0 = empty slot).  Keys are hashed in two
 * parts (namespace, name) as if joined by '/', so a lookup from a watch
 * event builds no string.
 */
#include "src/fleet/keys.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

struct keys {
    char *arena;
    size_t arena_len, arena_cap;
    uint32_t *offsets; /* count entries */
    uint32_t *hashes;  /* count entries: each key's hash */
    uint32_t count, cap;
    uint32_t *slots; /* index + 1, or 0 */
    uint32_t nslots; /* power of two */
};

/* FNV-1a over ns, '/', name (or name alone when ns is empty). */
static uint32_t keys_hash(const char *ns, size_t ns_len, const char *name,
                          size_t name_len)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < ns_len; i++)
        h = (h ^ (uint8_t)ns[i]) * 16777619u;
    if (ns_len > 0)
        h = (h ^ (uint8_t)'/') * 16777619u;
    for (size_t i = 0; i < name_len; i++)
        h = (h ^ (uint8_t)name[i]) * 16777619u;
    return h;
}

static int keys_equal(const struct keys *k, uint32_t i, const char *ns,
                      size_t ns_len, const char *name, size_t name_len)
{
    const char *s = k->arena + k->offsets[i];

    if (ns_len > 0) {
        if (memcmp(s, ns, ns_len) != 0 || s[ns_len] != '/')
            return 0;
        s += ns_len + 1;
    }
    return memcmp(s, name, name_len) == 0 && s[name_len] == '\0';
}

struct keys *keys_new(void)
{
    struct keys *k = xcalloc(1, sizeof(*k));

    k->nslots = 1024;
    k->slots = xcalloc(k->nslots, sizeof(*k->slots));
    return k;
}

void keys_free(struct keys *k)
{
    if (k == NULL)
        return;
    free(k->arena);
    free(k->offsets);
    free(k->hashes);
    free(k->slots);
    free(k);
}

static void keys_grow_slots(struct keys *k)
{
    uint32_t n = k->nslots * 2, mask = n - 1;
    uint32_t *slots = xcalloc(n, sizeof(*slots));

    for (uint32_t i = 0; i < k->count; i++) {
        uint32_t s = k->hashes[i] & mask;

        while (slots[s] != 0)
            s = (s + 1) & mask;
        slots[s] = i + 1;
    }
    free(k->slots);
    k->slots = slots;
    k->nslots = n;
}

/* The slot holding the key, or the empty slot where it would go. */
static uint32_t keys_slot(const struct keys *k, uint32_t h, const char *ns,
                          size_t ns_len, const char *name, size_t name_len)
{
    uint32_t mask = k->nslots - 1, s = h & mask;

    while (k->slots[s] != 0) {
        uint32_t i = k->slots[s] - 1;

        if (k->hashes[i] == h && keys_equal(k, i, ns, ns_len, name, name_len))
            return s;
        s = (s + 1) & mask;
    }
    return s;
}

uint32_t keys_find(const struct keys *k, const char *ns, size_t ns_len,
                   const char *name, size_t name_len)
{
    uint32_t h = keys_hash(ns, ns_len, name, name_len);
    uint32_t s = keys_slot(k, h, ns, ns_len, name, name_len);

    return k->slots[s] ? k->slots[s] - 1 : KEYS_NONE;
}

static uint32_t keys_append(struct keys *k, uint32_t h, const char *ns,
                            size_t ns_len, const char *name, size_t name_len)
{
    size_t need = ns_len + (ns_len > 0) + name_len + 1;
    char *s;

    rw_assert(k->count < (1u << 31));
    if (k->arena_len + need > k->arena_cap) {
        k->arena_cap = RW_MAX(k->arena_cap * 2, k->arena_len + need + 4096);
        k->arena = xrealloc(k->arena, k->arena_cap);
    }
    if (k->count == k->cap) {
        k->cap = k->cap ? k->cap * 2 : 1024;
        k->offsets = xrealloc(k->offsets, k->cap * sizeof(*k->offsets));
        k->hashes = xrealloc(k->hashes, k->cap * sizeof(*k->hashes));
    }
    rw_assert(k->arena_len < UINT32_MAX);
    s = k->arena + k->arena_len;
    if (ns_len > 0) {
        memcpy(s, ns, ns_len);
        s[ns_len] = '/';
        s += ns_len + 1;
    }
    memcpy(s, name, name_len);
    s[name_len] = '\0';
    k->offsets[k->count] = (uint32_t)k->arena_len;
    k->hashes[k->count] = h;
    k->arena_len += need;
    return k->count++;
}

uint32_t keys_intern(struct keys *k, const char *ns, size_t ns_len,
                     const char *name, size_t name_len)
{
    uint32_t h = keys_hash(ns, ns_len, name, name_len), s, i;

    s = keys_slot(k, h, ns, ns_len, name, name_len);
    if (k->slots[s] != 0)
        return k->slots[s] - 1;
    i = keys_append(k, h, ns, ns_len, name, name_len);
    k->slots[s] = i + 1;
    if ((uint64_t)k->count * 2 > k->nslots)
        keys_grow_slots(k);
    return i;
}

const char *keys_name(const struct keys *k, uint32_t i)
{
    rw_assert(i < k->count);
    return k->arena + k->offsets[i];
}

uint32_t keys_count(const struct keys *k)
{
    return k->count;
}

size_t keys_footprint(const struct keys *k)
{
    return sizeof(*k) + k->arena_cap + (size_t)k->cap * 8 +
           (size_t)k->nslots * 4;
}
