/*
 * watch_redis.h: the watchers' transport for --target redis: what a
 * client does without ringwatch in front of a Redis store laid out as
 * ringwatch-redis(7).  Each watcher has a Redis connection of its own and
 * reads the resource's change log (the stream T:R:log) with
 *   XREAD COUNT WATCH_REDIS_COUNT BLOCK WATCH_REDIS_BLOCK_MS STREAMS LOG ID
 * from the entry after its last revision, forever; the initial state is
 * the fleet's (main.c reads the objects' hash and the log's last revision
 * in one MULTI/EXEC, as --target etcd reads one Range).
 *
 * Redis cannot filter, so every watcher receives every change: each is
 * counted as delivered (watcher_wire_events), then the watcher's filter
 * decides with the kube-apiserver's transition rules whether it is
 * relevant and as which type (watcher_relevant_event).  A log entry has
 * the new value (PUT) or the last one (DELETE), not the value it replaced:
 * the transport keeps every object's current value, brought forward by
 * the first watcher to read each entry (every watcher reads the log in
 * order, so the entries are first read in order), and a small cache keyed
 * by (revision, key) holds each change's decoded objects while the
 * watchers work through the same entries.  A watcher so far behind that
 * its entry left the cache gets the entry decoded again with the object
 * itself as the value it replaced: exact for updates without selectors
 * (the bench's case), not in general.
 *
 * The log trimmed past a watcher (the compaction revision above its last
 * one) would need a relist, which this transport does not do: the
 * watcher is terminated (watcher_terminate).  A connection that fails is
 * replaced after a backoff and the watcher resumes from its last entry.
 */
#ifndef FLEET_WATCH_REDIS_H
#define FLEET_WATCH_REDIS_H

#include <stddef.h>

#include "cache/resource_type.h"
#include "src/fleet/keys.h"

#define WATCH_REDIS_COUNT 100       /* entries per XREAD at most: a reply
                                       waiting in Redis for a watcher is at
                                       most this many (about 110 KiB) */
#define WATCH_REDIS_BLOCK_MS "5000" /* XREAD's BLOCK */

struct event_base;
struct object;
struct redis_store_config;
struct watcher_set;
struct watch_redis;

/* A transport for every watcher of ws (which must outlive it) to the
 * store of cfg (borrowed) for resource type rt, interning keys in keys.
 * Raises the descriptor limit when the watchers need it.  Opens nothing
 * until watch_redis_kick. */
struct watch_redis *watch_redis_new(struct event_base *base,
                                    const struct redis_store_config *cfg,
                                    const struct resource_type *rt,
                                    struct keys *keys, struct watcher_set *ws);
/* The object of key index key (a reference is taken) at revision rv, from
 * the initial state: what the first change of the key replaced. */
void watch_redis_seed(struct watch_redis *t, uint32_t key, struct object *obj,
                      int64_t rv);

/* Closes every connection (stop the set first).  NULL is a no-op. */
void watch_redis_free(struct watch_redis *t);

/* Starts reading for every watcher that reads nothing and is not waiting
 * out a backoff. */
void watch_redis_kick(struct watch_redis *t);

/* Connections open now. */
size_t watch_redis_connections_open(const struct watch_redis *t);

/* Bytes held by the transport (slots and cache, objects excluded). */
size_t watch_redis_footprint(const struct watch_redis *t);

#endif
