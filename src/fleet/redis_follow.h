/*
 * redis_follow.h: the oracle's source over Redis (--redis): it follows the
 * resource's change log (the stream T:R:log of ringwatch-redis(7)) and
 * feeds the oracle every change as etcd's watch with prev_kv would send
 * it, independently of the server under test.
 *
 * A log entry carries the new value (PUT) or the last one (DELETE), not
 * the value a PUT replaced, so the follower keeps every object's current
 * value itself: at creation it reads the objects' hash and the log's last
 * revision S in one MULTI/EXEC (on_ready once done; the fleet LISTs only
 * after that, so S <= R0), then from redis_follow_start on reads the log
 * after S: entries up to start - 1 only bring its values forward, later
 * ones go to the oracle (oracle_feed) with the replaced value as prev_kv.
 *
 * Progress: each read is a pipeline of FCALL_RO rw_rev (the counter N),
 * GET T:R:compacted and XREAD BLOCK of the entries after the last one
 * read.  Every change up to N is in the log when N is read (a function
 * does both at once), so after the XREAD every change up to N has been
 * read unless the XREAD was cut at its COUNT: oracle_progress(N), as
 * etcd's progress notifications, so an idle resource's oracle advances.
 * A compaction revision above the last entry read means the log was
 * trimmed past the follower (raise --redis-history): the oracle fails.
 */
#ifndef FLEET_REDIS_FOLLOW_H
#define FLEET_REDIS_FOLLOW_H

#include <stdint.h>

#include "cache/resource_type.h"
#include "src/fleet/keys.h"

struct event_base;
struct oracle;
struct redis_follow;
struct redis_store_config;

struct redis_follow_callbacks {
    /* The snapshot is read: the fleet may LIST. */
    void (*on_ready)(void *arg);
    /* The snapshot could not be read (why in English); nothing follows.
     * Failures after on_ready go to the oracle (oracle_abort). */
    void (*on_error)(const char *why, void *arg);
};

/* A follower of rt's log at the store of cfg (borrowed), interning keys in
 * keys, feeding o (borrowed, created with no etcd); reads the snapshot at
 * once.  Never NULL. */
struct redis_follow *redis_follow_new(struct event_base *base,
                                      const struct redis_store_config *cfg,
                                      const struct resource_type *rt,
                                      struct keys *keys, struct oracle *o,
                                      const struct redis_follow_callbacks *cbs,
                                      void *arg);
/* Stops following; no callback afterwards.  NULL is a no-op. */
void redis_follow_free(struct redis_follow *rf);

/* Follows the log after the snapshot; changes from start_rev on go to the
 * oracle (oracle_start(o, start_rev) comes first).  After on_ready. */
void redis_follow_start(struct redis_follow *rf, int64_t start_rev);

#endif
