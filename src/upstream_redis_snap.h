/*
 * upstream_redis_snap.h: the state of one Redis resource being listed
 * (src/upstream_redis.c's snapshot): the hash's fields as HSCAN returned
 * them (maybe twice, maybe stale), then the log's changes after L0
 * replayed over them, handed out at the end in key order, each key once
 * with its latest value.  Keys and values are copied.
 */
#ifndef UPSTREAM_REDIS_SNAP_H
#define UPSTREAM_REDIS_SNAP_H

#include <stddef.h>
#include <stdint.h>

struct upstream_redis_snap;

/* An empty snapshot whose scan started after the log's entry l0 (0: the
 * log was empty). */
struct upstream_redis_snap *upstream_redis_snap_new(int64_t l0);
/* NULL is a no-op. */
void upstream_redis_snap_free(struct upstream_redis_snap *s);
int64_t upstream_redis_snap_l0(const struct upstream_redis_snap *s);

/* key now holds value (mod revision mod_rev); later calls win. */
void upstream_redis_snap_put(struct upstream_redis_snap *s, const char *key,
                             size_t key_len, const char *value,
                             size_t value_len, int64_t mod_rev);
/* key was deleted; later calls win. */
void upstream_redis_snap_del(struct upstream_redis_snap *s, const char *key,
                             size_t key_len);

typedef void (*upstream_redis_snap_fn)(const char *key, size_t key_len,
                                       const char *value, size_t value_len,
                                       int64_t mod_rev, void *arg);

/* Calls fn for every key present, in bytewise key order, with its latest
 * value, skipping those whose mod revision is above max_rev (inconsistent
 * data: a hash value newer than the log).  Returns how many were skipped;
 * upstream_redis_snap_count says how many were handed out. */
size_t upstream_redis_snap_emit(struct upstream_redis_snap *s, int64_t max_rev,
                                upstream_redis_snap_fn fn, void *arg);
size_t upstream_redis_snap_count(const struct upstream_redis_snap *s);

#endif
