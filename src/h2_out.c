/*
 * h2_out.c: an HTTP/2 connection's output queue (see h2_out.h).
 *
 * Invariants: cap is 0 or a power of two; the pieces are iov[head ..
 * head + count) modulo cap; bytes is the sum of their lengths; the live
 * arena bytes run from arena_head to arena_tail (wrapping; head == tail
 * with arena_pieces > 0 means full), in queue order.
 */
#include "src/h2_out.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

static void out_grow(struct h2_out *o)
{
    uint32_t cap = o->cap ? o->cap * 2 : H2_OUT_MIN;
    struct iovec *iov = xmalloc(cap * sizeof(*iov));
    struct h2_piece *piece = xmalloc(cap * sizeof(*piece));

    for (uint32_t i = 0; i < o->count; i++) {
        iov[i] = o->iov[(o->head + i) & (o->cap - 1)];
        piece[i] = o->piece[(o->head + i) & (o->cap - 1)];
    }
    free(o->iov);
    free(o->piece);
    o->iov = iov;
    o->piece = piece;
    o->cap = cap;
    o->head = 0;
}

/* Appends a piece of len (> 0) bytes at p; returns it to be filled in. */
static struct h2_piece *out_push(struct h2_out *o, const void *p, size_t len)
{
    uint32_t i;

    if (o->count == o->cap)
        out_grow(o);
    i = (o->head + o->count) & (o->cap - 1);
    o->iov[i].iov_base = (void *)p;
    o->iov[i].iov_len = len;
    o->count++;
    o->bytes += len;
    o->fresh = true;
    return &o->piece[i];
}

/* The index of the last piece (count > 0). */
static uint32_t out_last(const struct h2_out *o)
{
    return (o->head + o->count - 1) & (o->cap - 1);
}

/* Where len contiguous arena bytes fit (live bytes run from arena_head
 * to arena_tail, wrapping; head == tail with pieces: full); false if
 * they do not. */
static bool out_arena_fit(const struct h2_out *o, size_t len, uint32_t *off)
{
    uint32_t head = o->arena_head, tail = o->arena_tail, cap = o->arena_cap;

    if (o->arena_pieces == 0) {
        *off = 0;
        return len <= cap;
    }
    if (tail > head) {
        *off = cap - tail >= len ? tail : 0;
        return cap - tail >= len || len <= head;
    }
    *off = tail;
    return tail < head && head - tail >= len;
}

/* Moves the queued copies into a new arena with room for len more bytes
 * (their iovecs follow); amortized over the doublings. */
static void out_arena_grow(struct h2_out *o, size_t len)
{
    size_t live = 0, cap = o->arena_cap ? o->arena_cap * 2 : H2_ARENA_MIN;
    uint8_t *arena;
    uint32_t pos = 0;

    for (uint32_t n = 0; n < o->count; n++) {
        uint32_t i = (o->head + n) & (o->cap - 1);

        if (o->piece[i].kind == H2_PIECE_ARENA)
            live += o->iov[i].iov_len;
    }
    while (cap < live + len)
        cap *= 2;
    rw_assert(cap <= UINT32_MAX);
    arena = xmalloc(cap);
    for (uint32_t n = 0; n < o->count; n++) {
        uint32_t i = (o->head + n) & (o->cap - 1);

        if (o->piece[i].kind != H2_PIECE_ARENA)
            continue;
        memcpy(arena + pos, o->iov[i].iov_base, o->iov[i].iov_len);
        o->iov[i].iov_base = arena + pos;
        pos += (uint32_t)o->iov[i].iov_len;
        o->piece[i].arena_end = pos;
    }
    free(o->arena);
    o->arena = arena;
    o->arena_cap = (uint32_t)cap;
    o->arena_head = 0;
    o->arena_tail = pos;
}

void h2_out_copy(struct h2_out *o, const void *p, size_t len)
{
    struct h2_piece *pc;
    uint32_t off, last;

    if (len == 0)
        return;
    if (!out_arena_fit(o, len, &off)) {
        out_arena_grow(o, len);
        off = o->arena_tail;
    }
    memcpy(o->arena + off, p, len);
    o->arena_tail = off + (uint32_t)len;
    if (o->count > 0) {
        last = out_last(o);
        if (o->piece[last].kind == H2_PIECE_ARENA &&
            (uint8_t *)o->iov[last].iov_base + o->iov[last].iov_len ==
                o->arena + off) {
            o->iov[last].iov_len += len;
            o->piece[last].arena_end = o->arena_tail;
            o->bytes += len;
            o->fresh = true;
            return;
        }
    }
    pc = out_push(o, o->arena + off, len);
    pc->kind = H2_PIECE_ARENA;
    pc->arena_end = o->arena_tail;
    pc->ref = NULL;
    o->arena_pieces++;
}

void h2_out_ref(struct h2_out *o, struct rbuf *b, size_t off, size_t len,
                bool give)
{
    struct h2_piece *pc;

    if (len == 0) {
        if (give)
            rbuf_unref(b);
        return;
    }
    pc = out_push(o, b->data + off, len);
    pc->kind = H2_PIECE_REF;
    pc->ref = give ? b : rbuf_ref(b);
}

void h2_out_static(struct h2_out *o, const void *p, size_t len)
{
    struct h2_piece *pc;

    if (len == 0)
        return;
    pc = out_push(o, p, len);
    pc->kind = H2_PIECE_STATIC;
    pc->ref = NULL;
}

void h2_out_pop(struct h2_out *o)
{
    struct h2_piece *pc = &o->piece[o->head];

    o->bytes -= o->iov[o->head].iov_len;
    if (pc->kind == H2_PIECE_REF) {
        rbuf_unref(pc->ref);
    } else if (pc->kind == H2_PIECE_ARENA) {
        o->arena_head = pc->arena_end;
        if (--o->arena_pieces == 0)
            o->arena_head = o->arena_tail = 0;
    }
    o->head = (o->head + 1) & (o->cap - 1);
    o->count--;
}

uint32_t h2_out_consume(struct h2_out *o, size_t n)
{
    uint32_t done = 0;

    while (n > 0) {
        struct iovec *v = &o->iov[o->head];

        rw_assert(o->count > 0);
        if (n < v->iov_len) {
            v->iov_base = (uint8_t *)v->iov_base + n;
            v->iov_len -= n;
            o->bytes -= n;
            break;
        }
        n -= v->iov_len;
        h2_out_pop(o);
        done++;
    }
    return done;
}

ssize_t h2_out_write(struct h2_out *o, struct transport *t)
{
    size_t total = 0;

    o->fresh = false;
    while (o->count > 0) {
        uint32_t n = RW_MIN(RW_MIN(o->count, o->cap - o->head),
                            (uint32_t)TRANSPORT_IOV_MAX);
        ssize_t w = transport_writev(t, &o->iov[o->head], (int)n);

        if (w < 0)
            return RW_EIO;
        if (w == 0)
            break;
        total += (size_t)w;
        if (h2_out_consume(o, (size_t)w) < n)
            break; /* the kernel is full, or write_max was reached */
    }
    return (ssize_t)total;
}

void h2_out_clear(struct h2_out *o)
{
    while (o->count > 0)
        h2_out_pop(o);
    free(o->iov);
    free(o->piece);
    free(o->arena);
    memset(o, 0, sizeof(*o));
}

void h2_out_trim(struct h2_out *o, bool live)
{
    if (o->count == 0 &&
        (!live || o->cap > H2_OUT_KEEP || o->arena_cap > H2_ARENA_KEEP))
        h2_out_clear(o);
}
