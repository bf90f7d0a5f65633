/*
 * h2_body.c: an HTTP/2 stream's body segments (see h2_body.h).
 */
#include "src/h2_body.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/h2_out.h"

static void h2_body_grow(struct h2_body *b)
{
    uint32_t cap = b->cap ? b->cap * 2 : H2_BODY_SEGS_MIN;
    struct h2_body_seg *segs = xmalloc(cap * sizeof(*segs));

    for (uint32_t i = 0; i < b->count; i++)
        segs[i] = b->segs[(b->head + i) & (b->cap - 1)];
    free(b->segs);
    b->segs = segs;
    b->cap = cap;
    b->head = 0;
}

void h2_body_push(struct h2_body *b, struct rbuf *buf, size_t off, size_t len)
{
    struct h2_body_seg *seg;

    if (b->count == b->cap)
        h2_body_grow(b);
    seg = &b->segs[(b->head + b->count) & (b->cap - 1)];
    seg->buf = rbuf_ref(buf);
    seg->off = off;
    seg->len = len;
    b->count++;
    b->queued += len;
}

/* Releases an empty ring's memory unless it is the minimal one. */
static void h2_body_shrink(struct h2_body *b)
{
    if (b->count > 0 || b->cap <= H2_BODY_SEGS_MIN)
        return;
    free(b->segs);
    b->segs = NULL;
    b->cap = 0;
    b->head = 0;
}

void h2_body_clear(struct h2_body *b)
{
    for (uint32_t i = 0; i < b->count; i++)
        rbuf_unref(b->segs[(b->head + i) & (b->cap - 1)].buf);
    free(b->segs);
    memset(b, 0, sizeof(*b));
}

void h2_body_emit(struct h2_body *b, struct h2_out *out, size_t length)
{
    while (length > 0) {
        struct h2_body_seg *seg = &b->segs[b->head];
        size_t take = RW_MIN(seg->len, length);

        rw_assert(b->count > 0);
        h2_out_ref(out, seg->buf, seg->off, take, take == seg->len);
        length -= take;
        b->queued -= take;
        if (take == seg->len) {
            b->head = (b->head + 1) & (b->cap - 1);
            b->count--;
        } else {
            seg->off += take;
            seg->len -= take;
        }
    }
    h2_body_shrink(b);
}
