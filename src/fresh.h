/*
 * fresh.h: the state a read is to be served from, with proof that it is
 * as fresh as the request's resourceVersion semantics demand
 * (docs/kube-wire.md "resourceVersion semantics"; kube-apiserver's cacher
 * and its waitUntilFreshAndBlock):
 *
 *   READ_ANY        RV=0: whatever the cache holds, now.
 *   READ_CONSISTENT RV unset: every write acknowledged before the request.
 *   READ_NOT_OLDER  RV=N: a state at N or newer.
 *   READ_EXACT      RV=N with resourceVersionMatch=Exact, with a limit, or
 *                   a continue token: the state exactly at N.
 *
 * (A plain WATCH from N needs no state and no proof: it starts at once,
 * whatever N, as the apiserver's cacher; see watch.h.)
 *
 * How freshness is proven without etcd's WatchProgressRequest (unsafe on
 * etcd < 3.4.25, etcd issue 15220): one linearizable probe (upstream.h)
 * returns the store's revision R and whether the keys under the prefix at
 * R are still those of the cache's snapshot at its revision s, of which
 * the cache counts n (etcd: no key under it written after s, and n keys
 * at R: a key modified or created after s would show its revision; a key
 * deleted after s would make the counts differ).  If so, nothing under
 * the prefix changed in (s, R], so the cache's snapshot at s IS the state
 * at every revision up to R.  Otherwise changes are on their
 * way: wait for the cache to reach the revision (FRESH_WAIT seconds at
 * most), and failing that read the state from the store at that revision
 * (FRESH_READ_LIMIT seconds at most).  The store count includes the keys
 * whose values the cache could not decode (resource_undecodable_under),
 * so they do not defeat the proof.  Concurrent reads of one prefix share
 * probes (fresh.c).
 */
#ifndef FRESH_H
#define FRESH_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/store.h"

struct resource;
struct fresh;

/* Seconds a read waits for the cache, as the apiserver's 3 s. */
#define FRESH_WAIT 3.0
/* Seconds a read of the state from the store may take, all pages. */
#define FRESH_READ_LIMIT 10.0

enum read_mode {
    READ_ANY,
    READ_CONSISTENT,
    READ_NOT_OLDER,
    READ_EXACT,
};

struct read_result {
    /* RW_OK; RW_EFUTURE: N is newer than the store and the cache did not
     * reach it in time (504 "Too large resource version"); RW_EEXPIRED: the
     * state at N left both the window and the store (410); RW_ERESET: the
     * store's history was reset while the read was in progress (429, as while
     * the cache relists); RW_EUNAVAIL / RW_ETIMEDOUT / RW_EPROTO: the store
     * could not be asked (504). */
    int err;
    struct store_snap *snap; /* the state (borrowed: ref it to keep); NULL
                                on error */
    int64_t rv;              /* the revision the state is at */
    int64_t cache_rv;        /* the cache's revision, for messages */
    bool upstream;           /* read from the store, not from memory */
    const char *why;         /* on error, in words */
};

typedef void (*fresh_cb)(const struct read_result *res, void *arg);

/*
 * Finds the state of the keys under prefix (a resource's or a namespace's
 * key prefix, copied) of resource r for a read in mode with revision rv
 * (ignored for ANY and CONSISTENT), and calls cb once with it.  When the
 * cache can answer at once, cb runs before fresh_read returns and NULL is
 * returned; otherwise the pending read is returned, to be canceled with
 * fresh_cancel if the caller goes away first.  Counts nothing: the caller
 * knows whether it was a hit (res->upstream false).  A READ_EXACT rv that
 * is lost (resource_rv_lost) is the caller's to refuse: only the caller
 * knows whether it is the client's or one ringwatch handed out in this
 * epoch (a continue token).
 *
 * resume: the answer's revision is handed out as one to watch from (a
 * LIST's resourceVersion, a sendInitialEvents watch's initial-events-end
 * bookmark), so it had better not be a lost revision, from which a watch
 * gets 410.  A state holds at every revision from the one it is at up to
 * the next change, so when the cache's revision is lost a READ_ANY or
 * READ_NOT_OLDER read probes the store as a consistent read does, and
 * when the store's revision R is past the lost ones, it is served at R or
 * later (the cache proven unchanged up to R, or caught up with it, or the
 * store read at R).  When R is not past them, or the probe fails, it is
 * served as without resume: then every revision true of the state is
 * lost.  Costs one shared probe per read only while the cache's revision
 * is lost.
 */
struct fresh *fresh_read(struct resource *r, const char *prefix,
                         enum read_mode mode, int64_t rv, bool resume,
                         fresh_cb cb, void *arg);

/* Cancels a pending read: cb will not run.  NULL is a no-op. */
void fresh_cancel(struct fresh *f);

struct rbuf;
struct stream;

/* Answers a failed read on s as the apiserver would (RW_EEXPIRED aside,
 * which the caller words), with Retry-After 1 and details
 * retryAfterSeconds 1: for RW_ERESET 429 TooManyRequests "storage is
 * (re)initializing: ..."; else 504 Timeout, for RW_EFUTURE "Timeout: Too
 * large resource version: N, current: M" with the cause
 * ResourceVersionTooLarge (as storage.NewTooLargeResourceVersionError),
 * else "Timeout: the cache could not be proven fresh and the store could
 * not be read: <why>". */
void fresh_respond_error(struct stream *s, const struct read_result *res);

/* The same Status as an ERROR watch event frame (a new rbuf), for a watch
 * answered HTTP 200: as the apiserver's cacher ends a sendInitialEvents
 * watch it could not make fresh in time (newErrWatcher). */
struct rbuf *fresh_error_frame(const struct read_result *res);

#endif
