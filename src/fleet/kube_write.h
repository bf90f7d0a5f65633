/*
 * kube_write.h: the fleet's writes through the server (--write-via
 * server): each write is the Kubernetes request a client library sends,
 * on HTTP/2 to --server, instead of a Put straight to the store:
 *   create  POST COLLECTION (the object's namespace's for a namespaced
 *           type), the object as the body;
 *   update  PUT OBJECT with metadata.resourceVersion set to the revision
 *           the caller last saw (0: unset, an unconditional update);
 *   delete  DELETE OBJECT.
 * COLLECTION is /api/V/namespaces/NS/R (/apis/G/V/... past the core
 * group; cluster-scoped types without /namespaces/NS), OBJECT is
 * COLLECTION/NAME; NS and NAME come from the store key
 * (PREFIX NS/NAME, or PREFIX NAME).  A 2xx response's object carries the
 * write's revision (metadata.resourceVersion), as kube-apiserver's does
 * (a DELETE's: the deleted object at the deletion's revision).
 *
 * Conflicts are handled as client-go's retry.RetryOnConflict with
 * retry.DefaultRetry does: an update answered 409 Conflict waits 10 ms
 * (+ up to 10% jitter), GETs the object, lets the caller apply its change
 * to what it read (kube_write_modify_fn: the "modify" of a
 * read-modify-write) and PUTs that with the resourceVersion it read; at
 * most KUBE_WRITE_ATTEMPTS PUTs, then the write gives up with the
 * conflict.  Each request has its own timeout (KUBE_WRITE_TIMEOUT s).
 *
 * The connections: `writers` HTTP/2 connections (links.h), one per
 * simulated writer (--contention K), each request on the writer's own.
 */
#ifndef FLEET_KUBE_WRITE_H
#define FLEET_KUBE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "cache/resource_type.h"
#include "src/fleet/histogram.h"

#define KUBE_WRITE_ATTEMPTS 5   /* PUTs per update: DefaultRetry's Steps */
#define KUBE_WRITE_BACKOFF 0.01 /* seconds before re-reading: its Duration */
#define KUBE_WRITE_TIMEOUT 10.0 /* seconds per request */

struct event_base;
struct fleet_dial;
struct kube_write;
struct sbuf;

enum kube_write_op {
    KUBE_WRITE_CREATE,
    KUBE_WRITE_UPDATE,
    KUBE_WRITE_DELETE,
};

/* Counters over every write (kube_write_stats). */
struct kube_write_stats {
    uint64_t requests;  /* POST, PUT and DELETE requests sent */
    uint64_t conflicts; /* of which answered 409 Conflict */
    uint64_t rereads;   /* GETs after a conflict */
    uint64_t gave_up;   /* updates still conflicting after
                           KUBE_WRITE_ATTEMPTS PUTs */
    uint64_t not_found; /* DELETEs answered 404 (neither ok nor failed) */
};

/*
 * A write's end, once per kube_write_send: err RW_OK with the revision the
 * write got and sent_ns, the wall-clock unix ns at which the request that
 * succeeded was sent (after a conflict: the last PUT's); or RW_ENOTFOUND
 * (a DELETE answered 404), RW_ECONFLICT (gave up), RW_EIO (no answer:
 * the stream, the connection or the timeout) or RW_EPROTO (another
 * status, or a 2xx body without a resourceVersion) with why in English.
 */
typedef void (*kube_write_fn)(int err, const char *why, int64_t rev,
                              int64_t sent_ns, void *arg);

/*
 * After a conflict: the new body of the update, made from the object as
 * read (cur, len bytes: the GET's JSON, its resourceVersion included),
 * appended to out; *sent_ns is set to the wall-clock time the caller
 * stamped into it (now).  Returns false when cur cannot be changed (the
 * write then fails with RW_EPROTO).
 */
typedef bool (*kube_write_modify_fn)(const char *cur, size_t len,
                                     struct sbuf *out, int64_t *sent_ns,
                                     void *arg);

/* Writes to the server of d (borrowed, must outlive it) for type rt, over
 * writers (>= 1) connections.  Nothing connects before the first write.
 * Never NULL. */
struct kube_write *kube_write_new(struct event_base *base,
                                  const struct fleet_dial *d,
                                  const struct resource_type *rt,
                                  size_t writers);
/* Ends every request in flight (their callbacks run, with RW_EIO) and
 * frees kw.  NULL is a no-op. */
void kube_write_free(struct kube_write *kw);

/*
 * Sends one write of key (key_len bytes, a store key of rt) as writer
 * `writer` (taken modulo the writers): value (value_len bytes, a JSON
 * object; NULL for a delete) stamped at sent_ns; rv: the update's
 * expected resourceVersion (0: unconditional); modify: the update's
 * change after a conflict (NULL: a conflict fails the write at once).
 * fn runs once, from the loop; modify and fn get arg.
 */
void kube_write_send(struct kube_write *kw, size_t writer,
                     enum kube_write_op op, const char *key, size_t key_len,
                     const char *value, size_t value_len, int64_t rv,
                     int64_t sent_ns, kube_write_modify_fn modify,
                     kube_write_fn fn, void *arg);

void kube_write_stats(const struct kube_write *kw, struct kube_write_stats *st);

/*
 * Appends to out the JSON object value (len bytes) with
 * metadata.resourceVersion set to rv (decimal string): the first member of
 * metadata, any other resourceVersion member dropped; rv 0 only drops it.
 * Returns false (out unchanged) when value is not an object with an object
 * "metadata".
 */
bool kube_write_set_rv(const char *value, size_t len, int64_t rv,
                       struct sbuf *out);

#endif
