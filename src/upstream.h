/*
 * upstream.h: the interface between ringwatch and the store its caches are
 * fed from, whatever the store (etcd today; a Redis store and a
 * Kubernetes API server later).  Three parts:
 *
 *  - the adapter (struct upstream_ops): created for a URL whose scheme
 *    names it (src/upstream_registry.h), it keeps every target (one per
 *    served resource) in step with the store, reconnecting by itself, and
 *    reports a store-neutral status;
 *  - the feed (struct upstream_feed): how the adapter hands a target's
 *    store state over, as callbacks with the target's ctx (a resource's:
 *    src/resource_feed.h);
 *  - the direct calls (struct upstream_reader): what a resource may ask of
 *    the store itself when the cache alone cannot answer with proof
 *    (src/fresh.h): a linearizable probe, and pages at a revision; and
 *    the conditional writes and the linearizable get of one key the write
 *    verbs (create, update, patch, delete) are made of.
 *
 * Keys are the objects' keys in ringwatch's cache
 * (resource_type_ns_prefix, resource_type_key: the kube-apiserver's
 * /registry/... layout); a scope is a key prefix (a resource's, a
 * namespace's, an object's key).  Revisions are the store's, > 0, one per
 * write transaction, increasing (etcd's ModRevision, the header revision).
 */
#ifndef UPSTREAM_H
#define UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct resource_type;

/* ==== the feed ==== */

/* Why the store's history was reset (src/upstream_history.h). */
enum upstream_reset {
    UPSTREAM_RESET_REVISION, /* a revision below one already seen */
    UPSTREAM_RESET_IDENTITY, /* another store (etcd's cluster ID) */
};

struct upstream_reader;

/*
 * What an adapter calls, for one target, with the target's ctx.  The
 * contract every adapter keeps (test/upstream_contract.h checks it):
 *
 *  1. list_begin opens a list; then list_item for each key under the
 *     target's prefix, in key order (bytewise), each once, every mod_rev
 *     at or below the list's revision; then exactly one of list_end(rev)
 *     (the state at rev is complete: it replaces the cache) or list_abort
 *     (dropped).  No list_begin while a list is open.
 *  2. After list_end(rev), put and delete come in revision order: each
 *     mod_rev above rev and above the last one delivered, except that the
 *     keys of one write transaction share its revision (equal, never
 *     lower).  Deletes name keys the target holds.  No put, delete or
 *     progress before the first list_end (rv() == 0) nor during a list.
 *  3. progress(rev): no change under the prefix up to rev; rev at or
 *     above every revision delivered (never lower than the last progress).
 *  4. flush after each batch of put/delete/progress (one store message:
 *     etcd's WatchResponse), before returning to the event loop.
 *  5. A watch resumes after rv(): the next revision delivered is above it.
 *  6. history_reset: the target has dropped everything (rv() is 0 after
 *     it; an open list is dropped, and the adapter ends it with
 *     list_abort, never list_end); the adapter then lists again.
 *  7. set_reader(reader) once the adapter is created, set_reader(NULL)
 *     when it is freed; no callback runs after the adapter's free.
 *  8. Callbacks run from the event loop, never from inside create/start.
 */
struct upstream_feed {
    /* The revision the target's cache reflects (0: no complete list). */
    int64_t (*rv)(void *ctx);
    void (*list_begin)(void *ctx);
    void (*list_item)(void *ctx, const char *key, size_t key_len,
                      const void *value, size_t value_len, int64_t mod_rev);
    void (*list_end)(void *ctx, int64_t rev);
    void (*list_abort)(void *ctx);
    void (*put)(void *ctx, const char *key, size_t key_len, const void *value,
                size_t value_len, int64_t mod_rev);
    void (*del)(void *ctx, const char *key, size_t key_len, int64_t mod_rev);
    void (*progress)(void *ctx, int64_t rev);
    void (*flush)(void *ctx);
    /* Whether the target's watch is established (readiness, status). */
    void (*state)(void *ctx, bool watching);
    /* The target's watch was re-established after a lost connection. */
    void (*reconnect)(void *ctx);
    /* The store's history was reset (src/upstream_history.h): revisions
     * up to old_rev are lost, the store is at new_rev. */
    void (*history_reset)(void *ctx, enum upstream_reset why, int64_t old_rev,
                          int64_t new_rev);
    /* Optional (NULL: not told).  Right before the list_end(rev) of a
     * list read at a revision older than the store's (a warm start,
     * src/upstream_etcd_warm.h): the store was at store_rev, and the
     * watch that follows replays the changes in (rev, store_rev] before
     * it delivers newer ones. */
    void (*catch_up)(void *ctx, int64_t store_rev);
    /* The adapter's direct reads (borrowed until set_reader(NULL)). */
    void (*set_reader)(void *ctx, const struct upstream_reader *rd);
};

/* One resource an adapter keeps in step: its type (the adapter finds its
 * keys from it) and its feed. */
struct upstream_target {
    const struct resource_type *rt;
    const struct upstream_feed *feed;
    void *ctx;
};

/* ==== the adapter ==== */

/* What every adapter is configured with; 0 (or below): the adapter's
 * default. */
struct upstream_config {
    size_t page_size;       /* keys per list page (etcd: 500) */
    double backoff_min;     /* seconds, first reconnect/retry delay (0.1) */
    double backoff_max;     /* seconds, cap of the growing delay (5) */
    double dial_timeout;    /* seconds to establish a connection (5) */
    double request_timeout; /* seconds per request: a page (60) */
    double keepalive;       /* seconds of silence before a ping, and to wait
                               for its answer (10); < 0: none */
    /* TLS towards https:// members, PEM files (--etcd-cafile,
     * --etcd-certfile, --etcd-keyfile; checked at startup): the CA that
     * signs the members' certificates (NULL: the system's CA store) and
     * the client certificate with its key (NULL: none). */
    const char *tls_ca_file, *tls_cert_file, *tls_key_file;
    /* Called once, from the event loop, when the store cannot be reached
     * as configured: the first connection to every member failed TLS
     * verification (a wrong CA, a client certificate the store refuses).
     * The daemon exits with why.  NULL: the adapter keeps retrying. */
    void (*fatal)(const char *why, void *arg);
    void *fatal_arg;
    /* Seconds between two reads of the store's revision that move idle
     * targets' revisions (progress), for stores that do not send progress
     * themselves (Redis: the bookmark interval; 0: 1). */
    double progress_interval;
    /* Redis (src/upstream_redis.h): the password AUTH sends (NULL: none;
     * the daemon reads it from --redis-password-file), one revision
     * counter per resource instead of one for all (--redis-revisions
     * per-resource), and the log's history in entries
     * (--redis-history: the most one read of a log may return). */
    const char *redis_password;
    bool redis_per_resource;
    int64_t redis_history;
    /* etcd: revisions back from the current one a resource's first list
     * is read at, so that the watch from it replays them into the ring
     * (src/upstream_etcd_warm.h, --warm-start-window); 0: none, the
     * first list is at the current revision. */
    int64_t warm_window;
};

/* For /readyz, /metrics and SIGUSR1.  Strings are valid until the next
 * event loop turn. */
struct upstream_status {
    const char *store;         /* the adapter's name: "etcd" */
    bool connected;            /* the connection is up */
    const char *version;       /* the store's version; "" unknown */
    uint64_t connects;         /* connections established, the first
                                  included */
    uint64_t reconnects;       /* connections established after the first */
    uint64_t connect_failures; /* connection attempts that failed */
    size_t watching;           /* targets whose watch is established */
    size_t resources;          /* targets served */
    const char *last_error;    /* why the connection last ended; "" none */
    const char *tls_error;     /* while not connected: why the last TLS
                                  handshake failed ("certificate verify
                                  failed"); "" none */
    uint64_t malformed;        /* store records skipped as malformed (a
                                  Redis log entry without a revision) */
};

/* An adapter instance: opaque here; each adapter's ops cast it to its own
 * struct. */
struct upstream;

struct upstream_ops {
    const char *store;          /* "etcd": the store label on /metrics */
    const char *const *schemes; /* URL schemes it serves, NULL-terminated */
    /* Checks url (of one of schemes) as create will read it: RW_OK, or
     * RW_EINVAL with what form is wanted in why. */
    int (*check)(const char *url, char *why, size_t why_len);
    /* An adapter for url feeding the n targets (copied; their ctx must
     * outlive it); cfg may be NULL.  Nothing happens before start; the
     * targets' readers are set here.  NULL (logged) when check fails. */
    struct upstream *(*create)(struct event_base *base, const char *url,
                               const struct upstream_target *targets, size_t n,
                               const struct upstream_config *cfg);
    /* Connects, lists and watches every target; from then on reconnects
     * by itself (failures are retried, not returned).  RW_OK. */
    int (*start)(struct upstream *u);
    /* Cancels every call (an open list gets list_abort), sets every
     * reader to NULL, closes the connection, frees u.  Not from inside a
     * feed callback.  NULL is a no-op. */
    void (*free)(struct upstream *u);
    void (*status)(const struct upstream *u, struct upstream_status *st);
};

/* ==== the direct calls: reads ==== */

/*
 * Every read is asynchronous: its callback runs once, from the event loop,
 * never before the start function has returned, unless the read is
 * canceled first.  A start function returns NULL when the read cannot be
 * started (no connection): the callback is then never called.
 */
struct upstream_read; /* an outstanding read, owned by the adapter */

struct upstream_kv {
    const char *key;
    size_t key_len;
    const void *value;
    size_t value_len;
    int64_t mod_rev; /* the revision of the key's last write */
};

/* What a probe of a scope found. */
struct upstream_probe {
    int64_t rev;    /* the store's current revision when read (R) */
    bool unchanged; /* the keys under the scope at R are exactly the
                       caller's at `since` (no write under it in
                       (since, R], no key more or less) */
};

/* err: RW_OK (p valid during the call); RW_EUNAVAIL (connection lost),
 * RW_ETIMEDOUT, RW_EPROTO (malformed reply), with why in words. */
typedef void (*upstream_probe_cb)(int err, const char *why,
                                  const struct upstream_probe *p, void *arg);

/* err: RW_OK, kvs[0..n) in key order (valid during the call); next (next_len
 * bytes, valid during the call) is the cursor of the next page, NULL when
 * this page was the last; RW_EEXPIRED when rev was compacted; RW_EFUTURE
 * when rev is newer than the store; else as the probe. */
typedef void (*upstream_page_cb)(int err, const char *why, int64_t rev,
                                 const struct upstream_kv *kvs, size_t n,
                                 const char *next, size_t next_len, void *arg);

/* ==== the writes ==== */

/* What a conditional write does, as kube-apiserver's etcd3 store
 * (k8s.io/apiserver/pkg/storage/etcd3/store.go: Create, GuaranteedUpdate,
 * Delete). */
enum upstream_write_op {
    UPSTREAM_CREATE, /* only if the key is absent (etcd: Txn compare
                        create_revision == 0; Redis: rw_put expected "0") */
    UPSTREAM_UPDATE, /* only if the key exists and, when expected > 0, its
                        mod revision is expected (etcd: compare
                        mod_revision == expected) */
    UPSTREAM_DELETE, /* as UPDATE's condition, then the key is removed */
};

struct upstream_write {
    enum upstream_write_op op;
    const char *key;
    size_t key_len;
    /* CREATE, UPDATE: the object's JSON as it is stored (no
     * metadata.resourceVersion: the revision is the version); DELETE:
     * unused. */
    const void *value;
    size_t value_len;
    int64_t expected; /* UPDATE, DELETE: the mod revision the key must
                         still have; 0: any */
};

struct upstream_write_result {
    /* RW_OK: the write's revision (the object's new resourceVersion; for a
     * delete, the revision of the deletion). */
    int64_t rev;
    /* RW_OK of a DELETE: the object's last value; RW_ECONFLICT and
     * RW_EEXIST: the key's current value, when the adapter read it in the
     * same transaction (value NULL otherwise). */
    const void *value;
    size_t value_len;
    int64_t mod_rev; /* the key's current mod revision with RW_ECONFLICT
                        and RW_EEXIST; 0 unknown */
};

/*
 * err: RW_OK (r valid during the call); RW_EEXIST (CREATE: the key is
 * there); RW_ENOTFOUND (UPDATE, DELETE: the key is absent); RW_ECONFLICT
 * (its mod revision is not expected); RW_EINVAL (the store refused the
 * value: Redis's INVALID); RW_EUNAVAIL, RW_ETIMEDOUT, RW_EPROTO as the
 * probe, after which the write may or may not have been applied (the
 * apiserver's 500/504: the caller says so).  why in words.
 */
typedef void (*upstream_write_cb)(int err, const char *why,
                                  const struct upstream_write_result *r,
                                  void *arg);

/* err: RW_OK, rev the store's revision when read, kv the key (valid during
 * the call) or NULL when it is absent; else as the probe. */
typedef void (*upstream_get_cb)(int err, const char *why, int64_t rev,
                                const struct upstream_kv *kv, void *arg);

struct upstream_reader {
    void *ctx;
    /* Linearizable (reflects every write acknowledged before the call):
     * whether the keys under scope are still the caller's at revision
     * since, of which there were count (the caller's count, keys it could
     * not decode included).  etcd: one read-only Txn "if mod_revision <
     * since + 1 for every key under scope" whose either branch counts the
     * keys (no key or value sent back). */
    struct upstream_read *(*probe)(void *ctx, const char *scope,
                                   size_t scope_len, int64_t since,
                                   size_t count, upstream_probe_cb cb,
                                   void *arg);
    /* Up to limit keys under scope at revision rev (> 0), from cursor
     * (cursor_len bytes, as a page's callback handed it out; NULL: from
     * the first key).  The cursor is the adapter's own (etcd: the next
     * key), opaque to the caller. */
    struct upstream_read *(*page)(void *ctx, const char *scope,
                                  size_t scope_len, const char *cursor,
                                  size_t cursor_len, int64_t rev, size_t limit,
                                  upstream_page_cb cb, void *arg);
    /* Linearizable: the key's current value and mod revision (kv NULL
     * when the key is absent), and the store's revision when read. */
    struct upstream_read *(*get)(void *ctx, const char *key, size_t key_len,
                                 upstream_get_cb cb, void *arg);
    /* One conditional write, atomic in the store (etcd: one Txn; Redis:
     * one FCALL of the ringwatch library, man/ringwatch-redis.7). */
    struct upstream_read *(*write)(void *ctx, const struct upstream_write *w,
                                   upstream_write_cb cb, void *arg);
    /* Cancels rd: its callback will not run (a write may still happen).
     * NULL is a no-op. */
    void (*cancel)(void *ctx, struct upstream_read *rd);
};

#endif
