/*
 * frame.h: the one buffer an event is encoded into, serving both wire
 * formats.
 *
 * A frame is an rbuf laid out as an HTTP/1.1 chunk whose size line has a
 * fixed width:
 *
 *     "%08zx\r\n" payload "\r\n"
 *
 * HTTP/1.1 writes the whole frame (chunk-size may carry leading zeros,
 * RFC 9112 7.1); HTTP/2 sends only the payload as DATA.  So an event is
 * encoded once, whatever mix of protocols its watchers speak, and each
 * connection holds a reference rather than a copy.
 */
#ifndef FRAME_H
#define FRAME_H

#include <stddef.h>

#include "cache/rbuf.h"

#define FRAME_HEAD_LEN 10 /* "xxxxxxxx\r\n" */
#define FRAME_TAIL_LEN 2  /* "\r\n" */
#define FRAME_MAX_PAYLOAD 0xffffffffu

/* A frame for payload_len bytes (<= FRAME_MAX_PAYLOAD), refs 1: head and
 * tail written, payload left for the caller to fill at frame_payload(). */
struct rbuf *frame_alloc(size_t payload_len);
/* A frame holding a copy of len bytes at payload. */
struct rbuf *frame_from(const void *payload, size_t len);
/* Where the payload starts inside frame f. */
char *frame_payload(struct rbuf *f);
/* Offset of the payload in f (FRAME_HEAD_LEN) and its length in bytes. */
size_t frame_payload_len(const struct rbuf *f);

#endif
