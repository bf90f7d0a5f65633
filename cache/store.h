/*
 * store.h: one resource's current objects, ordered by key, with O(1)
 * snapshots.
 *
 * The store is a persistent (path-copying) balanced tree of reference-
 * counted nodes: a write copies the O(log n) nodes on its path and shares
 * the rest, so a snapshot is a reference to a root and stays valid and
 * unchanged however the store moves on.  LISTs and continue tokens read
 * snapshots; the upstream writes the store.  Keys order bytewise (memcmp,
 * shorter first on a tie), as etcd orders them.
 */
#ifndef STORE_H
#define STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/object.h"

struct store;
struct store_snap;

struct store *store_new(void);
/* Frees the store's own references; snapshots taken stay valid.  NULL ok. */
void store_free(struct store *s);

size_t store_count(const struct store *s);
/* Sum of the objects' JSON lengths, in bytes. */
size_t store_bytes(const struct store *s);

/* The object under key, or NULL; borrowed, valid until the next write. */
struct object *store_get(const struct store *s, const char *key, size_t len);

/*
 * Inserts or replaces obj under obj->key, taking the caller's reference.
 * Returns the object it replaced (the caller now owns that reference), or
 * NULL if the key was new.  O(log n); copies only the nodes on the key's
 * path that a snapshot shares, none when no snapshot is held.
 */
struct object *store_put(struct store *s, struct object *obj);

/* Removes key; returns the removed object (caller owns the reference) or
 * NULL if absent. */
struct object *store_delete(struct store *s, const char *key, size_t len);

/* Removes everything (a relist replaces the contents). */
void store_clear(struct store *s);

/* The current contents as an immutable snapshot, refs 1.  O(1). */
struct store_snap *store_snapshot(const struct store *s);
struct store_snap *store_snap_ref(struct store_snap *snap);
void store_snap_unref(struct store_snap *snap);
size_t store_snap_count(const struct store_snap *snap);
/* A new store whose contents are snap's (a private version: writes to it
 * copy only the nodes they touch, and neither snap nor any other holder
 * sees them).  O(n) for the byte count, O(1) otherwise. */
struct store *store_from_snap(const struct store_snap *snap);
struct object *store_snap_get(const struct store_snap *snap, const char *key,
                              size_t len);

/*
 * The first object whose key is >= key (inclusive) or > key (!inclusive),
 * or NULL past the end; key NULL means the first object.  Borrowed, valid
 * while the snapshot is held.  O(log n).
 */
struct object *store_snap_seek(const struct store_snap *snap, const char *key,
                               size_t len, bool inclusive);

/*
 * Calls fn for every object whose key starts with prefix (NULL/0: all), in
 * key order, until fn returns false.  O(log n + matches).
 */
typedef bool (*store_visit_fn)(struct object *obj, void *arg);
void store_snap_scan(const struct store_snap *snap, const char *prefix,
                     size_t prefix_len, store_visit_fn fn, void *arg);

/*
 * Calls fn(old, new, arg) for every key whose object differs between a and
 * b (old NULL: only in b; new NULL: only in a; both: different objects,
 * i.e. different rv), in key order.  Two objects under one key with the
 * same rv count as equal: a ModRevision names one stored value, so a relist
 * that decodes the same value again is no change.  A merge walk:
 * O(count(a) + count(b)).
 */
typedef void (*store_diff_fn)(struct object *old, struct object *new_obj,
                              void *arg);
void store_snap_diff(const struct store_snap *a, const struct store_snap *b,
                     store_diff_fn fn, void *arg);

#endif
