/*
 * sbuf.h: a growable byte string, for building small documents and
 * messages (Status texts, selector errors, discovery JSON, /metrics, a
 * Table or PartialObjectMetadata event once per object and representation,
 * then copied into its frame).  Not for an event in the object's own JSON:
 * kjson_watch_frame writes that straight into its exact-size frame.
 *
 * A zeroed struct sbuf is empty; data is NULL until the first add, then
 * always NUL-terminated (the NUL is not counted in len).
 */
#ifndef SBUF_H
#define SBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct sbuf {
    char *data;
    size_t len; /* bytes, without the NUL */
    size_t cap; /* bytes allocated */
};

/* Makes room for n more bytes (and the NUL) without appending. */
void sbuf_reserve(struct sbuf *b, size_t n);
/* Appends n bytes at p (n may be 0: data is then allocated). */
void sbuf_addn(struct sbuf *b, const void *p, size_t n);
/* Appends the NUL-terminated string s. */
void sbuf_add(struct sbuf *b, const char *s);
/* Appends printf output. */
void sbuf_addf(struct sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same with a va_list. */
void sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap);
/*
 * Appends the n bytes at s quoted as Go's %q (strconv.Quote) quotes them,
 * for messages the apiserver words with %q: "\"", "\\" and the named
 * control escapes, other bytes below 0x20 and from 0x7f as \xNN, and
 * every valid multibyte UTF-8 sequence as is (Go would escape the
 * unprintable ones).
 */
void sbuf_add_quoted(struct sbuf *b, const char *s, size_t n);
/*
 * Appends the n bytes at p in base64: RFC 4648 section 4 with '=' padding
 * (Go's base64.StdEncoding) or, with url, section 5 without padding (Go's
 * base64.RawURLEncoding).
 */
void sbuf_add_base64(struct sbuf *b, const void *p, size_t n, bool url);
/*
 * Appends the bytes that the n characters at s encode in unpadded
 * base64url (RFC 4648 section 5, Go's base64.RawURLEncoding; leftover
 * bits of the last character are ignored, as Go's non-strict decoder).
 * Returns true; false when s is not that encoding, with the offending
 * character's index in *bad (b then holds a prefix of the bytes).
 */
bool sbuf_add_unbase64url(struct sbuf *b, const char *s, size_t n,
                          size_t *bad);
/* Frees the bytes and empties b. */
void sbuf_fini(struct sbuf *b);

#endif
