/*
 * h2_frame.h: the HTTP/2 frame header (RFC 9113 4.1), for the modules
 * that read or write frames on the wire beside nghttp2, which does not
 * export its own: h2_in (coalescing header blocks), h2_guard (looking at
 * client frames first) and h2_stream (the DATA frames it queues).
 * Header only.
 */
#ifndef H2_FRAME_H
#define H2_FRAME_H

#include <stdint.h>

/* A frame's header, and a priority's fields (exclusive bit, stream
 * dependency, weight: 6.2, 6.3), bytes. */
#define H2_FRAME_HEAD_LEN 9
#define H2_PRIORITY_LEN 5

/* The payload length of the frame whose header is at head. */
static inline uint32_t h2_frame_len(const uint8_t *head)
{
    return (uint32_t)head[0] << 16 | (uint32_t)head[1] << 8 | head[2];
}

/* The stream identifier of the frame whose header is at head (the
 * reserved bit cleared). */
static inline int32_t h2_frame_stream(const uint8_t *head)
{
    return (int32_t)(((uint32_t)head[5] << 24 | (uint32_t)head[6] << 16 |
                      (uint32_t)head[7] << 8 | head[8]) &
                     0x7fffffff);
}

/* Writes a frame header at head: a payload of len bytes (< 2^24), type,
 * flags, on stream id. */
static inline void h2_frame_head(uint8_t *head, uint32_t len, uint8_t type,
                                 uint8_t flags, int32_t id)
{
    head[0] = (uint8_t)(len >> 16);
    head[1] = (uint8_t)(len >> 8);
    head[2] = (uint8_t)len;
    head[3] = type;
    head[4] = flags;
    head[5] = (uint8_t)((uint32_t)id >> 24);
    head[6] = (uint8_t)(id >> 16);
    head[7] = (uint8_t)(id >> 8);
    head[8] = (uint8_t)id;
}

#endif
