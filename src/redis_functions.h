/*
 * redis_functions.h: the Redis Functions library "ringwatch", the only
 * writer of the Redis schema (ringwatch-redis(7)).  Its Lua source is
 * src/redis_functions.lua, compiled into the binary at build time; ringwatch
 * loads it at startup with FUNCTION LOAD REPLACE (Redis >= 7.0).
 *
 * T is the hash tag: "{rw}" with --redis-revisions global (one revision
 * counter for every resource, as etcd), "{rw:R}" with per-resource (one
 * counter per resource).  R is the resource's canonical name ("pods",
 * "deployments.apps").  All the keys of one call share T, so one Redis
 * Cluster slot.
 *
 *   FCALL rw_put 4 T:rev T:R:objects T:R:log T:R:compacted
 *         KEY JSON EXPECTED HISTORY
 *     Creates or updates the object at KEY (/registry/PREFIX/[NS/]NAME).
 *     EXPECTED: "" unconditional, "0" create only, N update only if the
 *     object's mod revision is N.  JSON must be an object whose
 *     metadata.name is KEY's last segment and whose metadata.namespace, when
 *     not empty, is the segment before it; metadata.resourceVersion is
 *     stripped.  Returns the new revision (integer reply).
 *   FCALL rw_delete 4 T:rev T:R:objects T:R:log T:R:compacted
 *         KEY EXPECTED HISTORY
 *     Deletes the object at KEY; EXPECTED "" or its mod revision N.  The
 *     log entry's value is the object's last JSON (as etcd's prev_kv).
 *     Returns the new revision.
 *   FCALL_RO rw_rev 1 T:rev
 *     The last revision given out under T (0 before the first write);
 *     flag no-writes, so it runs on replicas too.
 *
 * A write: INCR T:rev, HSET T:R:objects KEY "<rev> <json>" (or HDEL),
 * XADD T:R:log <rev>-0 type PUT|DELETE key KEY value JSON, XTRIM T:R:log
 * MAXLEN HISTORY (exact; HISTORY >= 1), and when that trimmed entries,
 * T:R:compacted := (the oldest kept entry's revision) - 1.  It checks
 * everything before writing anything.
 *
 * Errors (error replies; the first word is stable, the rest is text):
 *   CONFLICT <modrev>  EXPECTED N but the object's mod revision is modrev
 *   EXISTS <modrev>    EXPECTED "0" but the object exists
 *   NOTFOUND <key>     EXPECTED N (rw_put) or a delete, and no object
 *   INVALID <why>      bad keys or arguments, a value that is not UTF-8,
 *                      not a JSON object or disagrees with KEY, a stored
 *                      field that is not "<modrev> <json>", or T:rev behind
 *                      T:R:log (a restore that lost the counter)
 */
#ifndef REDIS_FUNCTIONS_H
#define REDIS_FUNCTIONS_H

/* The library's name (its "#!lua name=" line) and its functions. */
#define REDIS_FUNCTIONS_LIBRARY "ringwatch"
#define REDIS_FUNCTIONS_PUT "rw_put"
#define REDIS_FUNCTIONS_DELETE "rw_delete"
#define REDIS_FUNCTIONS_REV "rw_rev"

/* The library's Lua source, byte for byte src/redis_functions.lua, NUL
 * terminated, static: the argument of FUNCTION LOAD REPLACE. */
const char *redis_functions_source(void);

#endif
