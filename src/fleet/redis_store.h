/*
 * redis_store.h: ringwatch-fleet's side of a Redis store (--redis): one
 * connection (src/redis_client.h) and the keys of one resource in the
 * schema of ringwatch-redis(7).  The writer writes through it (FCALL
 * rw_put / rw_delete, the functions ringwatch loads), and the oracle and
 * the final check read the objects' hash and the change log with it.
 *
 * Commands given before the connection is ready wait for it; every
 * command's callback runs exactly once, from the loop: with the reply, or
 * with NULL and a sentence when the connection failed or went down (the
 * store is then dead: later commands fail at once, from the loop too).
 */
#ifndef FLEET_REDIS_STORE_H
#define FLEET_REDIS_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/resource_type.h"
#include "proto/etcd.h"

struct event_base;
struct redis_client_reply;
struct redis_store;

/* Where the store is and how its keys are laid out. */
struct redis_store_config {
    char *host, *port; /* from redis://HOST:PORT */
    char *password;    /* AUTH; NULL: none */
    bool per_resource; /* hash tag {rw:R} (else {rw}) */
    uint64_t history;  /* the log length writes trim to (>= 1) */
};

/* The four keys of a resource (redis_functions.h's KEYS, in order). */
enum redis_store_key {
    REDIS_STORE_REV,
    REDIS_STORE_OBJECTS,
    REDIS_STORE_LOG,
    REDIS_STORE_COMPACTED,
};

/*
 * Fills *cfg from url ("redis://HOST:PORT"), the file holding the password
 * (NULL: none; its first line, without the newline), revisions ("global"
 * or "per-resource") and history.  Returns RW_OK, or RW_EINVAL with one
 * line in config_fail's form in why (*cfg then empty).
 */
int redis_store_config_init(struct redis_store_config *cfg, const char *url,
                            const char *password_file, const char *revisions,
                            uint64_t history, char *why, size_t why_len);
void redis_store_config_fini(struct redis_store_config *cfg);

/* reply: the command's reply (an ERROR reply included), valid during the
 * call; NULL when the connection failed, with why. */
typedef void (*redis_store_reply_fn)(const struct redis_client_reply *reply,
                                     const char *why, void *arg);

/* A connection to the store of cfg (borrowed, must outlive it) for rt's
 * keys; connects at once.  Never NULL. */
struct redis_store *redis_store_new(struct event_base *base,
                                    const struct redis_store_config *cfg,
                                    const struct resource_type *rt);
/* Closes it; the callbacks of pending commands run first, with NULL (so
 * that their owners free what they hold).  NULL is a no-op. */
void redis_store_free(struct redis_store *s);

/* "T:R:log" and the others; valid while s is. */
const char *redis_store_key(const struct redis_store *s,
                            enum redis_store_key which);

/* Sends argv (argvlen NULL: C strings; both copied); fn as above. */
void redis_store_command(struct redis_store *s, int argc, const char **argv,
                         const size_t *argvlen, redis_store_reply_fn fn,
                         void *arg);

/* A write's outcome: err RW_OK and the revision it got, or RW_EIO (the
 * connection failed) or RW_EINVAL (the function refused it: why is its
 * error, "CONFLICT 12", "NOTFOUND ...") with why. */
typedef void (*redis_store_write_fn)(int err, const char *why, int64_t rev,
                                     void *arg);

/* FCALL rw_put of value (value_len bytes) at key, unconditional, or FCALL
 * rw_delete of key when value is NULL. */
void redis_store_write(struct redis_store *s, const char *key, size_t key_len,
                       const char *value, size_t value_len,
                       redis_store_write_fn fn, void *arg);

/* One change of the log as XREAD returns it. */
struct redis_store_entry {
    int64_t rev;  /* the ID's revision */
    bool deleted; /* type DELETE (else PUT) */
    const char *key, *value;
    size_t key_len, value_len;
};

/* Decodes one log entry ([ID, [field, value, ...]]: ID "<rev>-0", fields
 * type PUT|DELETE, key, value, as ringwatch-redis(7)) into *e, whose
 * strings point into entry.  Returns false when it is malformed. */
bool redis_store_entry(const struct redis_client_reply *entry,
                       struct redis_store_entry *e);

/* The entries of an XREAD reply of one stream ([[LOG, [entry...]]]) in
 * *entries, or NULL for NIL (BLOCK timed out).  Returns false when the
 * reply is neither. */
bool redis_store_xread_entries(const struct redis_client_reply *reply,
                               const struct redis_client_reply **entries);

/*
 * Reads every object of the hash whose key starts with prefix, with the
 * log's last revision, in one MULTI/EXEC (one consistent snapshot):
 * on_kv for each (kv->mod_revision from the "<modrev> <json>" field), then
 * on_done(0, NULL, revision) with the log's last revision (0: empty log),
 * or on_done(RW_EIO or RW_EPROTO, why, 0).  The callback types are
 * range.h's, so the etcd readers' callbacks serve.
 */
void redis_store_snapshot(struct redis_store *s, const char *prefix,
                          void (*on_kv)(const struct etcd_kv *kv, void *arg),
                          void (*on_done)(int err, const char *why,
                                          int64_t revision, void *arg),
                          void *arg);

#endif
