/*
 * keys.h: the fleet-wide intern table of object keys.
 *
 * Every object the fleet hears of (from a LIST, a watch event, the oracle,
 * the writer or etcd's final state) is named by a small integer, its key
 * index, so that per-watcher views and the oracle's log hold 4-byte
 * indexes instead of strings.  A key is "NAMESPACE/NAME" for namespaced
 * objects and "NAME" for cluster-scoped ones (the etcd key without the
 * resource's prefix).  Indexes are dense, in order of first interning,
 * and never reused; the table only grows during a run.
 */
#ifndef FLEET_KEYS_H
#define FLEET_KEYS_H

#include <stddef.h>
#include <stdint.h>

struct keys;

/* "No such key" for keys_find. */
#define KEYS_NONE UINT32_MAX

struct keys *keys_new(void);
void keys_free(struct keys *k);

/* The index of ns + "/" + name (just name when ns_len is 0), interning it
 * when new.  Bytes are copied.  Aborts (rw_assert) past 2^31 keys. */
uint32_t keys_intern(struct keys *k, const char *ns, size_t ns_len,
                     const char *name, size_t name_len);

/* The index of that key, or KEYS_NONE when it was never interned. */
uint32_t keys_find(const struct keys *k, const char *ns, size_t ns_len,
                   const char *name, size_t name_len);

/* The key string of index i (NUL-terminated, valid while k lives). */
const char *keys_name(const struct keys *k, uint32_t i);

/* Keys interned so far (the largest index + 1). */
uint32_t keys_count(const struct keys *k);

/* Bytes the table holds. */
size_t keys_footprint(const struct keys *k);

#endif
