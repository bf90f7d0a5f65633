/*
 * h2_body.h: an HTTP/2 stream's response body not yet framed (for
 * conn_h2): a ring of (rbuf, offset, length) segments, by reference, that
 * nghttp2's no-copy data path takes from the head into the connection's
 * output queue (h2_out.h).  The ring is allocated on the first write and
 * released when it empties beyond its minimal size, so that an idle watch
 * costs nothing here.
 *
 * The struct is embedded in the stream: zero it to start; h2_body_clear
 * releases everything.
 */
#ifndef H2_BODY_H
#define H2_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "cache/rbuf.h"

struct h2_out;

#define H2_BODY_SEGS_MIN 4 /* segments: first and kept size */

struct h2_body_seg {
    struct rbuf *buf;
    size_t off, len;
};

struct h2_body {
    struct h2_body_seg *segs; /* ring of cap (a power of two) */
    size_t queued;            /* bytes in segs */
    uint32_t head, count, cap;
};

/* Appends len bytes of b at off (len > 0), taking one reference to b. */
void h2_body_push(struct h2_body *b, struct rbuf *buf, size_t off, size_t len);

/* Moves length bytes (at most b->queued) from the head into out, by
 * reference: a segment taken whole hands its reference over. */
void h2_body_emit(struct h2_body *b, struct h2_out *out, size_t length);

/* Releases every segment and the ring; b is zeroed. */
void h2_body_clear(struct h2_body *b);

#endif
