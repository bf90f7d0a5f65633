/*
 * view.h: a compact map from key index (keys.h) to resourceVersion: what
 * one watcher believes the state of its selection is, or what a LIST or
 * etcd's final state says it is.
 *
 * Two parallel arrays sorted by key index (12 bytes per live object, no
 * per-entry allocation).  A removed entry stays as a tombstone (rv 0) so
 * that removal is O(log n); tombstones are reused when the key comes back
 * and squeezed out when they outnumber live entries.  Key indexes of new
 * objects are the largest so far, so adding one is usually an append.
 * A caller that knows where a key probably is (view_put_hint) skips the
 * binary search.
 */
#ifndef FLEET_VIEW_H
#define FLEET_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct view {
    uint32_t *keys; /* sorted, unique */
    int64_t *rvs;   /* rvs[i] of keys[i]; 0: tombstone */
    uint32_t n;     /* entries, tombstones included */
    uint32_t cap;
    uint32_t live; /* entries with rv > 0 */
};

/* An empty view (no allocation until the first put). */
void view_init(struct view *v);
void view_fini(struct view *v);
/* Empties v, keeping its memory. */
void view_clear(struct view *v);

/* The rv of key, 0 when absent. */
int64_t view_get(const struct view *v, uint32_t key);

/* Sets key's rv (> 0); returns the previous rv, 0 when it was absent. */
int64_t view_put(struct view *v, uint32_t key, int64_t rv);

/* Removes key; returns its rv, 0 when it was absent. */
int64_t view_remove(struct view *v, uint32_t key);

/*
 * view_put and view_remove with a position hint: *hint (any value; an
 * index into the arrays) is tried before the binary search, and is set to
 * key's position afterwards.  Views that hold the same keys have the same
 * layout, so one hint shared by the watchers of a filter (line_cache.h
 * keeps one per event line) finds the entry in one probe
 * instead of about log2(n) cache misses.  A wrong hint costs one compare.
 */
int64_t view_put_hint(struct view *v, uint32_t key, int64_t rv, uint32_t *hint);
int64_t view_remove_hint(struct view *v, uint32_t key, uint32_t *hint);

/* dst becomes a copy of src (dst's memory reused). */
void view_copy(struct view *dst, const struct view *src);

/* Whether a and b hold the same live keys with the same rvs. */
bool view_equal(const struct view *a, const struct view *b);

/* Live entries. */
static inline uint32_t view_count(const struct view *v)
{
    return v->live;
}

/* Bytes allocated. */
size_t view_footprint(const struct view *v);

#endif
