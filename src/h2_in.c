/*
 * h2_in.c: a client's bytes into nghttp2, a frame at a time (see
 * h2_in.h).
 *
 * A frame begins once its 9-byte header is in: a frame of a header block
 * being coalesced, or a HEADERS frame that opens one, waits until it is
 * whole and is absorbed (copied out of the input, its fragment appended
 * to the block); any other frame waits for the bytes the guard reads
 * (h2_guard_need), is shown to it, and is then fed to nghttp2 as its
 * bytes come (in->left counts down its payload).  The preface is fed
 * like a frame payload of 24 bytes.  nghttp2 always gets a frame header
 * in one call, so that its count of CONTINUATION frames is one per
 * frame.
 */
#include "src/h2_in.h"

#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "cache/rw.h"
#include "src/h2_frame.h"
#include "src/log.h"

/* A header block being coalesced. */
struct h2_in_block {
    int32_t stream;
    uint8_t flags;                     /* END_STREAM, PRIORITY of its HEADERS */
    uint8_t priority[H2_PRIORITY_LEN]; /* its priority fields (PRIORITY) */
    bool headers_fed;                  /* nghttp2 has had its HEADERS frame */
    size_t wire;                       /* bytes of its frames on the wire */
    size_t len;                        /* fragment bytes not yet fed */
    uint8_t frag[2 * H2_IN_FRAME_MAX];
};

void h2_in_init(struct h2_in *in)
{
    memset(in, 0, sizeof(*in));
    in->left = NGHTTP2_CLIENT_MAGIC_LEN; /* the preface, not yet fed */
    in->type = NGHTTP2_DATA;             /* (of no header block) */
}

void h2_in_fini(struct h2_in *in)
{
    free(in->block);
    in->block = NULL;
}

/* A connection error: GOAWAY with code, and RW_EPROTO. */
static long fail(nghttp2_session *session, uint32_t code, const char *why)
{
    log_debug("h2_in: %s: GOAWAY %s", why, nghttp2_http2_strerror(code));
    nghttp2_session_terminate_session(session, code);
    return RW_EPROTO;
}

/* Feeds nghttp2 len bytes at p, which it must consume whole; RW_EPROTO (the
 * session terminated) if it fails. */
static long feed(nghttp2_session *session, const uint8_t *p, size_t len)
{
    ssize_t rv = nghttp2_session_mem_recv(session, p, len);

    if (rv < 0) {
        log_debug("h2_in: %s", nghttp2_strerror((int)rv));
        nghttp2_session_terminate_session(session, NGHTTP2_PROTOCOL_ERROR);
        return RW_EPROTO;
    }
    return rv;
}

/* ---- the header block on the wire, for the timeouts ---- */

/* A frame's header is in: HEADERS opens a header block, CONTINUATION
 * keeps it open, any other frame means none is. */
static void wire_begin(struct h2_in *in, const uint8_t *head, uint64_t now_ms)
{
    if (head[3] == NGHTTP2_HEADERS && !in->in_block) {
        in->in_block = true;
        in->block_since_ms = now_ms;
    } else if (head[3] != NGHTTP2_HEADERS && head[3] != NGHTTP2_CONTINUATION) {
        in->in_block = false;
    }
}

/* A frame is in whole: END_HEADERS closes the block. */
static void wire_end(struct h2_in *in, uint8_t type, uint8_t flags)
{
    if ((type == NGHTTP2_HEADERS || type == NGHTTP2_CONTINUATION) &&
        (flags & NGHTTP2_FLAG_END_HEADERS))
        in->in_block = false;
}

/* ---- coalescing header blocks ---- */

/* Feeds the block's next frame: HEADERS first, then CONTINUATION, with
 * the first len fragment bytes; END_HEADERS when last. */
static long block_feed(nghttp2_session *session, struct h2_in_block *b,
                       size_t len, bool last)
{
    uint8_t head[H2_FRAME_HEAD_LEN + H2_PRIORITY_LEN];
    size_t head_len = H2_FRAME_HEAD_LEN;
    uint8_t flags = last ? NGHTTP2_FLAG_END_HEADERS : 0;

    if (!b->headers_fed) {
        flags |= b->flags;
        if (b->flags & NGHTTP2_FLAG_PRIORITY) {
            memcpy(head + H2_FRAME_HEAD_LEN, b->priority, H2_PRIORITY_LEN);
            head_len += H2_PRIORITY_LEN;
        }
    }
    h2_frame_head(head, (uint32_t)(head_len - H2_FRAME_HEAD_LEN + len),
                  b->headers_fed ? NGHTTP2_CONTINUATION : NGHTTP2_HEADERS,
                  flags, b->stream);
    b->headers_fed = true;
    if (feed(session, head, head_len) < 0 ||
        (len > 0 && feed(session, b->frag, len) < 0))
        return RW_EPROTO;
    b->len -= len;
    memmove(b->frag, b->frag + len, b->len);
    return 0;
}

/* Feeds every full frame of the block's fragment bytes; all of them,
 * with END_HEADERS, once the block is complete. */
static long block_flush(nghttp2_session *session, struct h2_in_block *b,
                        bool complete)
{
    for (;;) {
        size_t room = H2_IN_FRAME_MAX;

        if (!b->headers_fed && (b->flags & NGHTTP2_FLAG_PRIORITY))
            room -= H2_PRIORITY_LEN;
        if (b->len <= room)
            return complete ? block_feed(session, b, b->len, true) : 0;
        if (block_feed(session, b, room, false) < 0)
            return RW_EPROTO;
    }
}

/* The fragment of the whole HEADERS frame at f (len payload bytes):
 * *frag, *frag_len; RW_EPROTO on a connection error. */
static long headers_fragment(nghttp2_session *session, struct h2_in_block *b,
                             const uint8_t *f, size_t len, const uint8_t **frag,
                             size_t *frag_len)
{
    const uint8_t *p = f + H2_FRAME_HEAD_LEN;
    size_t fixed = 0, pad = 0;

    if (f[4] & NGHTTP2_FLAG_PADDED)
        fixed++;
    if (f[4] & NGHTTP2_FLAG_PRIORITY)
        fixed += H2_PRIORITY_LEN;
    if (len < fixed)
        return fail(session, NGHTTP2_FRAME_SIZE_ERROR,
                    "HEADERS shorter than its padding and priority");
    if (f[4] & NGHTTP2_FLAG_PADDED) {
        pad = *p++;
        if (pad > len - fixed)
            return fail(session, NGHTTP2_PROTOCOL_ERROR,
                        "HEADERS padding beyond its payload");
    }
    if (f[4] & NGHTTP2_FLAG_PRIORITY) {
        memcpy(b->priority, p, H2_PRIORITY_LEN);
        p += H2_PRIORITY_LEN;
    }
    b->stream = h2_frame_stream(f);
    b->flags = f[4] & (NGHTTP2_FLAG_END_STREAM | NGHTTP2_FLAG_PRIORITY);
    *frag = p;
    *frag_len = len - fixed - pad;
    return 0;
}

/* Absorbs the whole frame at f (len payload bytes) into the block,
 * opening it for a HEADERS frame, and feeds nghttp2 what it can. */
static long block_absorb(struct h2_in *in, nghttp2_session *session,
                         const uint8_t *f, size_t len)
{
    struct h2_in_block *b = in->block;
    const uint8_t *frag = f + H2_FRAME_HEAD_LEN;
    size_t frag_len = len;

    if (b == NULL) {
        b = in->block = xmalloc(sizeof(*b));
        b->headers_fed = false;
        b->wire = b->len = 0;
        if (headers_fragment(session, b, f, len, &frag, &frag_len) < 0)
            return RW_EPROTO;
    }
    b->wire += H2_FRAME_HEAD_LEN + len;
    if (b->wire > H2_IN_BLOCK_MAX)
        return fail(session, NGHTTP2_PROTOCOL_ERROR,
                    "header block beyond H2_IN_BLOCK_MAX bytes");
    memcpy(b->frag + b->len, frag, frag_len);
    b->len += frag_len;
    if (block_flush(session, b, f[4] & NGHTTP2_FLAG_END_HEADERS) < 0)
        return RW_EPROTO;
    if (f[4] & NGHTTP2_FLAG_END_HEADERS) {
        free(b);
        in->block = NULL;
    }
    return 0;
}

/* ---- feeding ---- */

/* The bytes a frame needs in before it is begun: whole for a frame of a
 * coalesced block (0 when it may not be one: a connection error), what
 * the guard reads for any other. */
static size_t frame_need(const struct h2_in *in, const uint8_t *head)
{
    uint32_t len = h2_frame_len(head);
    bool coalesced =
        in->block != NULL ||
        (head[3] == NGHTTP2_HEADERS && !(head[4] & NGHTTP2_FLAG_END_HEADERS));

    if (!coalesced)
        return h2_guard_need(head);
    if (len > H2_IN_FRAME_MAX)
        return 0;
    return H2_FRAME_HEAD_LEN + len;
}

/* The frame at head, its first need bytes in: inside a block, absorbs
 * it whole; else shows it to the guard, then opens a block (HEADERS
 * without END_HEADERS: absorbed whole) or starts feeding it.  Returns
 * the bytes it consumed, or RW_EPROTO. */
static long frame_begin(struct h2_in *in, nghttp2_session *session,
                        uint8_t *head, size_t need)
{
    uint32_t len = h2_frame_len(head);
    uint32_t code;

    if (in->block != NULL && (head[3] != NGHTTP2_CONTINUATION ||
                              h2_frame_stream(head) != in->block->stream))
        return fail(session, NGHTTP2_PROTOCOL_ERROR,
                    "header block interrupted by another frame");
    if (need == 0)
        return fail(session, NGHTTP2_FRAME_SIZE_ERROR,
                    "header block frame beyond SETTINGS_MAX_FRAME_SIZE");
    if (in->block == NULL &&
        (code = h2_guard_inspect(&in->guard, session, head)) != 0)
        return fail(session, code, "h2_guard");
    if (in->block != NULL ||
        (head[3] == NGHTTP2_HEADERS && !(head[4] & NGHTTP2_FLAG_END_HEADERS))) {
        if (block_absorb(in, session, head, len) < 0)
            return RW_EPROTO;
        wire_end(in, head[3], head[4]);
        return (long)need;
    }
    in->type = head[3];
    in->flags = head[4];
    in->left = len;
    return 0;
}

/* Feeds up to in->left bytes of the frame (or preface) being fed, from
 * the front of buf; returns the bytes fed, or RW_EPROTO. */
static long frame_feed(struct h2_in *in, nghttp2_session *session,
                       struct evbuffer *buf, size_t head)
{
    struct evbuffer_iovec v;
    long rv;
    size_t n;

    if (evbuffer_peek(buf, -1, NULL, &v, 1) < 1)
        return 0;
    n = RW_MIN(v.iov_len, head + in->left);
    if ((rv = feed(session, v.iov_base, n)) < 0)
        return RW_EPROTO;
    in->left -= (uint32_t)((size_t)rv - head);
    if (in->left == 0)
        wire_end(in, in->type, in->flags);
    return rv;
}

long h2_in_feed(struct h2_in *in, nghttp2_session *session,
                struct evbuffer *buf, uint64_t now_ms)
{
    long total = 0, rv;
    size_t need, head;
    uint8_t *p;

    while (evbuffer_get_length(buf) > 0) {
        head = 0;
        if (in->left == 0) { /* a frame begins */
            if (evbuffer_get_length(buf) < H2_FRAME_HEAD_LEN)
                break;
            p = evbuffer_pullup(buf, H2_FRAME_HEAD_LEN);
            wire_begin(in, p, now_ms);
            need = frame_need(in, p);
            if (evbuffer_get_length(buf) < need)
                break;
            p = evbuffer_pullup(buf,
                                need > 0 ? (ssize_t)need : H2_FRAME_HEAD_LEN);
            if ((rv = frame_begin(in, session, p, need)) < 0)
                return RW_EPROTO;
            if (rv > 0) { /* absorbed into a block */
                evbuffer_drain(buf, (size_t)rv);
                total += rv;
                continue;
            }
            head = H2_FRAME_HEAD_LEN; /* fed with the payload's start */
        }
        if ((rv = frame_feed(in, session, buf, head)) < 0)
            return RW_EPROTO;
        evbuffer_drain(buf, (size_t)rv);
        total += rv;
        if (rv == 0)
            break;
    }
    return total;
}
