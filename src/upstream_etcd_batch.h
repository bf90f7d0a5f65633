/*
 * upstream_etcd_batch.h: one etcd WatchResponse's events, delivered to a
 * target's feed as one batch, fragments included.
 *
 * The adapter's watch asks for fragment=true: etcd then splits a response
 * larger than its request size limit (--max-request-bytes, 1.5 MiB) into
 * several, each holding whole events (all but the last marked fragment),
 * so no single message nears the 64 MiB gRPC limit during a large
 * catch-up.  The fragments are held (as received) and applied together
 * with the last one, then flushed: a response holds whole revisions, and
 * several keys written in one transaction share a revision, so applying
 * fragments one loop turn apart could show a revision in part to a LIST,
 * a bookmark or a watcher.  Held bytes are bounded by
 * UPSTREAM_ETCD_BATCH_MAX_BYTES.
 */
#ifndef UPSTREAM_ETCD_BATCH_H
#define UPSTREAM_ETCD_BATCH_H

#include <stddef.h>
#include <stdint.h>

struct etcd_watch_response;
struct rbuf;
struct upstream_target;

/* Bytes of one WatchResponse's fragments held until its last fragment. */
#define UPSTREAM_ETCD_BATCH_MAX_BYTES (256u << 20)

/* Embedded in its owner; zeroed is empty. */
struct upstream_etcd_batch {
    struct rbuf **fragments; /* of the response in progress, in order */
    size_t n;
    size_t bytes;
};

/* Holds a fragment (a copy of msg, len bytes, one that decoded).  RW_OK;
 * RW_ELIMIT (nothing added) when the held bytes would pass
 * UPSTREAM_ETCD_BATCH_MAX_BYTES. */
int upstream_etcd_batch_hold(struct upstream_etcd_batch *b, const uint8_t *msg,
                             size_t len);

/* The last (or only) part w of a response: applies the held fragments,
 * then w, to t's feed (put, del), then flushes it, all in one loop turn;
 * the batch is empty after. */
void upstream_etcd_batch_deliver(struct upstream_etcd_batch *b,
                                 const struct etcd_watch_response *w,
                                 const struct upstream_target *t);

/* Drops the held fragments (the watch ended).  Empty is a no-op. */
void upstream_etcd_batch_drop(struct upstream_etcd_batch *b);

#endif
