/*
 * h2_in.h: an HTTP/2 client's bytes on their way into nghttp2 (for
 * conn_h2): a frame at a time, each frame first shown to h2_guard (which
 * keeps a client's stream errors to their stream), header blocks of
 * several frames coalesced, and the client's header blocks followed on
 * the wire for the connection's timeouts.
 *
 * Header blocks.  nghttp2 1.52 as Debian 12 ships it (with the fix for
 * CVE-2024-28182) ends the connection after 8 CONTINUATION frames in a
 * block, and has no option to raise that; RFC 9113 sets no such limit,
 * and Go's server (kube-apiserver's) bounds a header block by its bytes,
 * not its frames.  So a HEADERS frame without END_HEADERS opens a block
 * that is read here, whole frames at a time, and handed to nghttp2
 * re-framed: its header block fragments (padding dropped) in a HEADERS
 * frame and CONTINUATION frames each as full as
 * SETTINGS_MAX_FRAME_SIZE allows (H2_IN_FRAME_MAX, which ringwatch never
 * changes), so that every block of up to H2_IN_BLOCK_MAX bytes reaches
 * nghttp2 in at most 7 CONTINUATION frames, however the client split it.
 * Such a block is held here at most two frames' worth at a time.  A
 * block is charged its frames as they came on the wire (frame headers
 * included): beyond H2_IN_BLOCK_MAX, many tiny frames or large ones,
 * the connection ends (GOAWAY PROTOCOL_ERROR, as Go's server for a block
 * far beyond its header list limit), after a bounded amount of work.  A
 * header list within the block limit but beyond the connection's
 * max_header_bytes is conn_h2's to refuse, on its stream (431).  The
 * framing errors of a block being coalesced are connection errors found
 * here (RFC 9113 4.2, 6.2, 6.10): a frame longer than H2_IN_FRAME_MAX
 * (FRAME_SIZE_ERROR), a HEADERS frame shorter than its padding and
 * priority fields (FRAME_SIZE_ERROR) or with more padding than payload
 * (PROTOCOL_ERROR), and any frame but a CONTINUATION of the same stream
 * before the block ends (PROTOCOL_ERROR).  Everything else about the
 * block (its stream, its HPACK) is nghttp2's to judge.
 *
 * Timeouts: a header block on the wire begins with the first 9 bytes of
 * a HEADERS frame and ends with the frame carrying END_HEADERS (or any
 * other frame); conn_h2 reads in_block and block_since_ms.
 */
#ifndef H2_IN_H
#define H2_IN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

#include "src/h2_guard.h"

struct evbuffer;

/* SETTINGS_MAX_FRAME_SIZE as ringwatch keeps it: its initial value
 * (RFC 9113 6.5.2), bytes of payload. */
#define H2_IN_FRAME_MAX 16384

/* A header block's frames as they arrive, frame headers included, at
 * most: bytes.  Re-framed, that is at most 7 CONTINUATION frames for
 * nghttp2. */
#define H2_IN_BLOCK_MAX (128 * 1024)

struct h2_in_block;

/* What reaches nghttp2 of one client connection; zeroed, then
 * h2_in_init. */
struct h2_in {
    struct h2_guard guard; /* stream errors kept to their stream */
    uint32_t left;       /* payload (or preface) bytes of the frame being fed */
    uint8_t type, flags; /* of the frame being fed */
    bool in_block;       /* a header block is open on the wire */
    uint64_t block_since_ms;   /* when it began (the caller's clock) */
    struct h2_in_block *block; /* a header block being coalesced */
};

/* Readies in for a connection whose first bytes are the client's
 * connection preface. */
void h2_in_init(struct h2_in *in);

/* Releases what in holds (a block being coalesced). */
void h2_in_fini(struct h2_in *in);

/*
 * Hands nghttp2 what it can of the client's bytes in buf (which are
 * drained as they are consumed): every whole frame, and the start of the
 * last when it is not one whose whole is needed first (a frame of a
 * header block being coalesced, or a part the guard reads).  now_ms is
 * the caller's clock, for block_since_ms.  Returns the bytes consumed,
 * or RW_EPROTO on a connection error: the session has then been
 * terminated (GOAWAY queued, with the error's code) and the caller stops
 * feeding it.
 */
long h2_in_feed(struct h2_in *in, nghttp2_session *session,
                struct evbuffer *buf, uint64_t now_ms);

#endif
