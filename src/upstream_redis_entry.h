/*
 * upstream_redis_entry.h: reading the Redis schema's values out of replies
 * (ringwatch-redis(7)): decimal revisions, stream entry IDs "<rev>-0",
 * a log entry's type/key/value fields, a hash value "<modrev> <json>".
 * Pure functions over src/redis_client.h's replies (outside input: every
 * one checks what it reads; test/fuzz/redis_entry_fuzz.c).
 */
#ifndef UPSTREAM_REDIS_ENTRY_H
#define UPSTREAM_REDIS_ENTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct redis_client_reply;

/* The decimal integer filling str[0..len) (1 to 18 digits, no sign), or
 * -1. */
int64_t upstream_redis_entry_int(const char *str, size_t len);

/* A GET's answer: the integer it holds, 0 when absent (nil), -1 when it is
 * not a decimal integer. */
int64_t upstream_redis_entry_reply_int(const struct redis_client_reply *r);

/* A stream entry ID "<ms>-<seq>": true with both, false when r is not
 * one. */
bool upstream_redis_entry_id(const struct redis_client_reply *r, int64_t *ms,
                             int64_t *seq);

/* A log entry ID "<rev>-0": rev, or -1 (another ID, not an ID). */
int64_t upstream_redis_entry_rev(const struct redis_client_reply *r);

/* The type, key and value fields of a log entry's field list f ([name,
 * value, ...]; the last of a name wins), each NULL when absent or when f
 * is not an array. */
void upstream_redis_entry_fields(const struct redis_client_reply *f,
                                 const struct redis_client_reply **type,
                                 const struct redis_client_reply **key,
                                 const struct redis_client_reply **value);

/* A hash value "<modrev> <json>" (v, len bytes): the mod revision (> 0)
 * with *json, *json_len the rest after the space; -1 when it is not of
 * that form. */
int64_t upstream_redis_entry_hash_value(const char *v, size_t len,
                                        const char **json, size_t *json_len);

#endif
