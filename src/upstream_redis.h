/*
 * upstream_redis.h: the Redis upstream adapter (src/upstream.h's
 * upstream_redis_ops, for redis:// URLs).  It keeps every target in step
 * with its resource in Redis, stored as ringwatch-redis(7) lays it out: per
 * resource R under hash tag T ("{rw}", or "{rw:R}" with per-resource
 * revisions) a hash T:R:objects of "<modrev> <json>" values, a stream
 * T:R:log whose entry IDs are the revisions ("<rev>-0", fields type, key,
 * value), a counter T:rev and T:R:compacted (every change above it is in
 * the log).
 *
 * Two connections per node (src/redis_client.h): one for commands
 * (FUNCTION LOAD REPLACE of the library at every connect, the snapshots,
 * the direct reads, CLIENT UNBLOCK) and one that reads the logs of the
 * node's resources (XREAD BLOCK over all of them at once).  A standalone
 * Redis is one node; on a Redis Cluster (found by CLUSTER SLOTS) each hash
 * tag is one node, at its slot's master, following MOVED/ASK and
 * failovers (src/upstream_redis_nodes.c).  Per target, as kube-apiserver's
 * reflector over its storage: a snapshot (see upstream_redis.c), then the
 * log from the snapshot's revision on; on reconnect the log resumes after
 * the feed's rv(); a log trimmed past it (T:R:compacted above it) relists
 * the target, and the cache reconciles (as etcd's compaction); a counter
 * behind what the cache served (Redis restarted from an older RDB/AOF, or a
 * replica promoted behind its primary) resets the target's history first
 * (its watches end with 410).  Redis keeps no old values: direct reads of
 * a past revision answer RW_EEXPIRED.  Plaintext only (hiredis 0.14).
 */
#ifndef UPSTREAM_REDIS_H
#define UPSTREAM_REDIS_H

struct upstream_ops;

/* The adapter: store "redis", scheme redis:// (comma-separated
 * redis://HOST[:PORT] seeds, PORT 6379 by default; discovery asks the
 * first that answers, moving on when a connection fails; a seed of a
 * Redis Cluster leads to the whole cluster).  Its status's version
 * is redis_version from INFO server. */
extern const struct upstream_ops upstream_redis_ops;

/* The resource name R of a target's keys: "pods", "deployments.apps"
 * (its resource, "." and its group when not core); a new string. */
struct resource_type;
char *upstream_redis_resource_name(const struct resource_type *rt);

#endif
