/*
 * upstream.h: the reads a resource may ask of its upstream store directly,
 * when the cache alone cannot answer with proof (src/fresh.h): a
 * linearizable probe of the store's current revision, and a range read at
 * a given revision.  Adapter-neutral: an upstream adapter (upstream_etcd
 * today) fills a struct upstream_reader and hands it to each resource with
 * resource_set_reader.
 *
 * Every read is asynchronous: its callback runs once, from the event loop,
 * never before the start function has returned, unless the read is
 * canceled first.  A start function returns NULL when the read cannot be
 * started (no connection): the callback is then never called.
 */
#ifndef UPSTREAM_H
#define UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct upstream_read; /* an outstanding read, owned by the adapter */

struct upstream_kv {
    const char *key;
    size_t key_len;
    const void *value;
    size_t value_len;
    int64_t mod_rev; /* the key's ModRevision */
};

/* What a probe of a key prefix found, all at one revision. */
struct upstream_probe {
    int64_t rev;   /* the store's current revision when read (R) */
    int64_t count; /* keys under the prefix at R */
    bool modified; /* some key under the prefix has a ModRevision above
                      `since` at R */
};

/* err: RW_OK (p valid during the call); RW_EUNAVAIL (connection lost),
 * RW_ETIMEDOUT, RW_EPROTO (malformed reply), with why in words. */
typedef void (*upstream_probe_cb)(int err, const char *why,
                                  const struct upstream_probe *p, void *arg);

/* err: RW_OK, kvs[0..n) in key order (valid during the call), more when
 * keys remain after the last one; RW_EEXPIRED when rev was compacted;
 * RW_EFUTURE when rev is newer than the store; else as the probe. */
typedef void (*upstream_page_cb)(int err, const char *why, int64_t rev,
                                 const struct upstream_kv *kvs, size_t n,
                                 bool more, void *arg);

struct upstream_reader {
    void *ctx;
    /* Linearizable: reflects every write acknowledged before the call (for
     * etcd: one read-only Txn "if mod_revision < since + 1 for every key of
     * [prefix, prefix_end)" whose either branch is a count-only Range of
     * that range: etcd sends no key or value back). */
    struct upstream_read *(*probe)(void *ctx, const char *prefix,
                                   size_t prefix_len, int64_t since,
                                   upstream_probe_cb cb, void *arg);
    /* Up to limit keys of [from, prefix_end(prefix)) at revision rev (> 0;
     * etcd RangeRequest fields 1, 2, 3 and 4). */
    struct upstream_read *(*page)(void *ctx, const char *from, size_t from_len,
                                  const char *prefix, size_t prefix_len,
                                  int64_t rev, size_t limit,
                                  upstream_page_cb cb, void *arg);
    /* Cancels rd: its callback will not run.  NULL is a no-op. */
    void (*cancel)(void *ctx, struct upstream_read *rd);
};

#endif
