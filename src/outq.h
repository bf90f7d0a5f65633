/*
 * outq.h: a connection's buffered output, a libevent evbuffer (the
 * transport's bufferevent output, transport.h), filled the cheapest way
 * for memory: response bodies by reference (rbuf counts released when
 * libevent has written or dropped the bytes), short pieces and the
 * framing around them by copy.  For conn_h1 (conn_h2 writes its own
 * ring, h2_out.h, through transport_writev, and calls only outq_close,
 * for the bufferevent pairs of tests).
 */
#ifndef OUTQ_H
#define OUTQ_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/rbuf.h"

struct bufferevent;
struct evbuffer;

/*
 * Pieces shorter than this are copied into the output buffer, longer
 * ones referenced.  libevent 2.1 gives each reference a chain of its own
 * (a 1 KiB allocation), while copies pack into shared chains: up to about
 * this size a copy costs less memory than a reference.
 */
#define OUTQ_COPY_BELOW 1024

/*
 * Appends len bytes at p to out by copy.  *tail_ref tells whether the
 * last thing appended to out was a reference: libevent's evbuffer_add
 * would then allocate a new chain as long as the referenced bytes (twice
 * below 2 KiB), rounded up to a power of two (128 KiB for 2 bytes after a
 * 64 KiB reference); this starts a minimal chain instead (1 KiB), which
 * later copies fill.  Clears *tail_ref.  Returns RW_OK, or RW_EIO if
 * libevent failed.
 */
int outq_copy(struct evbuffer *out, bool *tail_ref, const void *p, size_t len);

/*
 * Appends len bytes of b at off to out: a copy (as outq_copy) below
 * OUTQ_COPY_BELOW, else a reference that holds one count on b until
 * libevent has written or dropped the bytes.  Sets *tail_ref to which it
 * was.  The caller keeps its own reference to b.  Returns RW_OK, or
 * RW_EIO if libevent failed (nothing queued, no reference kept).
 */
int outq_add(struct evbuffer *out, bool *tail_ref, struct rbuf *b, size_t off,
             size_t len);

/* Starts closing a bufferevent's output: no more low-water callbacks, and
 * the write times out after flush_seconds without progress; the
 * connection closes it when the output is empty or the write timed out. */
void outq_close(struct bufferevent *bev, unsigned flush_seconds);

#endif
