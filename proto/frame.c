/*
 * frame.c: fixed-width chunk framing for encoded events (see frame.h).
 */
#include "proto/frame.h"

#include <stdio.h>
#include <string.h>

#include "cache/rw.h"

struct rbuf *frame_alloc(size_t payload_len)
{
    struct rbuf *f;
    char head[FRAME_HEAD_LEN + 1];

    rw_assert(payload_len <= FRAME_MAX_PAYLOAD);
    f = rbuf_new(FRAME_HEAD_LEN + payload_len + FRAME_TAIL_LEN);
    snprintf(head, sizeof(head), "%08zx\r\n", payload_len);
    memcpy(f->data, head, FRAME_HEAD_LEN);
    memcpy(f->data + FRAME_HEAD_LEN + payload_len, "\r\n", FRAME_TAIL_LEN);
    return f;
}

struct rbuf *frame_from(const void *payload, size_t len)
{
    struct rbuf *f = frame_alloc(len);

    if (len)
        memcpy(frame_payload(f), payload, len);
    return f;
}

char *frame_payload(struct rbuf *f)
{
    return f->data + FRAME_HEAD_LEN;
}

size_t frame_payload_len(const struct rbuf *f)
{
    rw_assert(f->len >= FRAME_HEAD_LEN + FRAME_TAIL_LEN);
    return f->len - FRAME_HEAD_LEN - FRAME_TAIL_LEN;
}
