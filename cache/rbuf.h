/*
 * rbuf.h: immutable, reference-counted byte buffers.
 *
 * Everything ringwatch shares between many readers is an rbuf: an object's
 * JSON, an encoded watch event, a LIST page header.  It is written once by
 * its creator (between rbuf_new and the first rbuf_ref) and never again; after
 * that any number of rings, stores and socket queues hold references.  As
 * nghttp2's rcbuf; single-threaded, so the count is a plain integer.
 */
#ifndef RBUF_H
#define RBUF_H

#include <stddef.h>
#include <stdint.h>

struct rbuf {
    uint32_t refs;
    uint32_t pad;
    size_t len;  /* bytes in data */
    char data[]; /* len bytes, plus one NUL not counted in len */
};

/* A buffer of len bytes (contents undefined, data[len] = '\0'), refs 1. */
struct rbuf *rbuf_new(size_t len);
/* A buffer holding a copy of len bytes at p, refs 1. */
struct rbuf *rbuf_from(const void *p, size_t len);
/* A buffer holding a copy of the NUL-terminated string s, refs 1. */
struct rbuf *rbuf_from_str(const char *s);
/* Takes one more reference; returns b.  b may be NULL. */
struct rbuf *rbuf_ref(struct rbuf *b);
/* Drops one reference and frees b at zero.  NULL is a no-op. */
void rbuf_unref(struct rbuf *b);
/* Bytes the allocator holds for b (header included), for memory accounting. */
size_t rbuf_footprint(const struct rbuf *b);

#endif
