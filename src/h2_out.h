/*
 * h2_out.h: an HTTP/2 connection's output queue (for conn_h2): a ring of
 * iovecs written through the connection's transport, a contiguous span
 * of the ring per transport_writev (transport.h), and beside each what it
 * holds on to: a payload reference (an rbuf count, released once the
 * bytes are written), a copy in the arena, or constant bytes (padding).
 * The arena is a FIFO byte ring for the 9-byte DATA frame headers and
 * the frames nghttp2 serializes (SETTINGS, HEADERS, WINDOW_UPDATE,
 * GOAWAY...); a copy that follows the previous one in the arena extends
 * its iovec, and a copy that does not fit grows the arena (doubling, the
 * queued copies moved and their iovecs re-pointed).  Nothing is
 * allocated per frame: the rings only grow, and an empty queue keeps its
 * memory while its connection has live streams (h2_out_trim).
 *
 * The struct is embedded in the connection: zero it to start;
 * h2_out_clear releases everything.
 */
#ifndef H2_OUT_H
#define H2_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "cache/rbuf.h"
#include "src/transport.h"

#define H2_OUT_MIN 16       /* output pieces: first size */
#define H2_OUT_KEEP 1024    /* kept while streams are live, at most */
#define H2_ARENA_MIN 256    /* copy arena bytes: first size */
#define H2_ARENA_KEEP 16384 /* kept while streams are live, at most */

enum h2_piece_kind {
    H2_PIECE_REF,    /* bytes of an rbuf: one reference, released */
    H2_PIECE_ARENA,  /* bytes copied into the arena */
    H2_PIECE_STATIC, /* constant bytes (padding) */
};

/* What a queued iovec holds on to; parallel to h2_out.iov. */
struct h2_piece {
    struct rbuf *ref;   /* H2_PIECE_REF */
    uint32_t arena_end; /* H2_PIECE_ARENA: arena offset past its bytes */
    uint8_t kind;
};

/* The connection's output queue (see the header comment). */
struct h2_out {
    struct iovec *iov;      /* ring of cap: bytes of each piece left */
    struct h2_piece *piece; /* ring of cap, parallel to iov */
    uint32_t head, count, cap;
    size_t bytes;   /* left to write, all pieces */
    bool fresh;     /* pieces queued since the last write attempt */
    uint8_t *arena; /* FIFO byte ring of arena_cap for copies */
    uint32_t arena_cap, arena_head, arena_tail;
    uint32_t arena_pieces; /* H2_PIECE_ARENA pieces queued */
};

/* Appends a copy of len bytes at p (0: nothing), in the last piece when
 * it is the arena's and the bytes follow it. */
void h2_out_copy(struct h2_out *o, const void *p, size_t len);

/* Appends len bytes of b at off by reference (0: nothing); takes over
 * the caller's reference if give (released even when len is 0), else
 * takes one. */
void h2_out_ref(struct h2_out *o, struct rbuf *b, size_t off, size_t len,
                bool give);

/* Appends len constant bytes at p (they outlive the queue). */
void h2_out_static(struct h2_out *o, const void *p, size_t len);

/* Drops the first piece, written or not (its reference released). */
void h2_out_pop(struct h2_out *o);

/* n bytes of the queue's front were written (n <= o->bytes); returns how
 * many pieces that completed. */
uint32_t h2_out_consume(struct h2_out *o, size_t n);

/* Writes the queue through t, by reference, a contiguous span of the
 * ring (TRANSPORT_IOV_MAX pieces at most) per transport_writev, until it
 * is empty or t takes no more (a partial write: the kernel is full, or
 * t's write_max was reached); written pieces are popped.  Clears fresh.
 * Returns the bytes written (0: none, see transport_wants), or RW_EIO on
 * a socket error. */
ssize_t h2_out_write(struct h2_out *o, struct transport *t);

/* Releases every piece and the queue's memory; o is zeroed. */
void h2_out_clear(struct h2_out *o);

/* An empty queue keeps its memory while live, unless it grew past
 * H2_OUT_KEEP pieces or H2_ARENA_KEEP bytes (reallocated small on the
 * next append); otherwise it is released. */
void h2_out_trim(struct h2_out *o, bool live);

#endif
