/*
 * h1_head.h: the strict syntax of an HTTP/1.1 request, checked before
 * http-parser sees it: the request head (RFC 9112 2-6, RFC 9110 5.5-5.6)
 * and the framing of a chunked body (RFC 9112 7.1).
 *
 * A lenient parser behind a proxy that parses differently is a request
 * smuggling risk (RFC 9112 11.2).  Debian's http-parser 2.9 is built
 * without HTTP_PARSER_STRICT and lets through: whitespace in a field name
 * or before its colon, obsolete line folding, a request line without a
 * version (HTTP/0.9) or with any version (HTTP/2.0 and 3.0 as text),
 * several spaces between its parts, bytes beyond ASCII in the target,
 * Transfer-Encoding with chunked twice or after another coding or in
 * HTTP/1.0, a missing or repeated Host, and in chunked bodies chunk data
 * not followed by CRLF, whitespace after the chunk size and control
 * characters in chunk extensions.  conn_h1 therefore checks each request
 * head with h1_head_parse before handing it to http-parser (which then
 * only extracts its fields), and reads bodies itself (h1_head_chunked_feed
 * for chunked ones), keeping their data for the stream (stream_body).
 *
 * Accepted, as RFC 9112 allows: LF alone as a line terminator (2.2),
 * HTTP/1.2 to HTTP/1.9 as HTTP/1.1 (2.3), empty lines before the request
 * line (2.2, drained by h1_head_reader_head), bytes beyond ASCII
 * (obs-text) in field values.  Refused: everything else outside the
 * grammar, with the status RFC 9112 names (400; 505 for a major version
 * other than 1; 501 for a transfer coding other than chunked).  Nothing
 * here allocates.
 */
#ifndef H1_HEAD_H
#define H1_HEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a request body is delimited (RFC 9112 6.3). */
enum h1_framing {
    H1_FRAMING_NONE,    /* no body */
    H1_FRAMING_LENGTH,  /* Content-Length bytes */
    H1_FRAMING_CHUNKED, /* Transfer-Encoding: chunked */
};

struct h1_head {
    int version;             /* 10, or 11 for HTTP/1.1 to HTTP/1.9 */
    enum h1_framing framing; /* of the body */
    uint64_t content_length; /* H1_FRAMING_LENGTH: bytes */
};

/*
 * Checks the request head of len bytes at p: the request line, the field
 * lines and the empty line that ends them, each line ending in CRLF or
 * LF (no empty line before the request line).  Fills *head and returns
 * 0 if it is well formed; otherwise returns the status to answer with
 * (400, 501 or 505) and writes why (the Status message, e.g.
 * "whitespace before the colon of field \"Host\"") to why (why_len
 * bytes, NUL-terminated, truncated if needed).  The checks:
 *   request line: method SP request-target SP HTTP-version, single
 *     spaces; the method a token; the target visible ASCII, in
 *     origin-form, absolute-form, authority-form (CONNECT only) or
 *     asterisk-form (OPTIONS only), every "%" before its query starting
 *     an escape of two hex digits (as Go's url.ParseRequestURI; a "#" is
 *     part of the path or query, as there); the version
 *     HTTP/DIGIT.DIGIT (505 unless the major digit is 1);
 *   field lines: a token, a colon with nothing before it, a value of
 *     visible characters, obs-text, spaces and tabs only (no NUL, CR,
 *     other control characters or DEL); no line starting with whitespace
 *     (obsolete line folding, or whitespace after the request line);
 *   Host: exactly one on HTTP/1.1 (at most one on 1.0), a valid uri-host
 *     [":" port] or empty;
 *   Content-Length: digits only, once, below 2^63;
 *   Transfer-Encoding: not on HTTP/1.0, not with Content-Length, chunked
 *     once and last (400), no other coding and no parameters on chunked
 *     (501, as Go's server: RFC 9112 7.1 gives chunked none).
 */
int h1_head_parse(const char *p, size_t len, struct h1_head *head, char *why,
                  size_t why_len);

/* The state of a chunked body being read (RFC 9112 7.1); zero it before
 * the first h1_head_chunked_feed. */
struct h1_chunked {
    uint64_t left;     /* bytes of the current chunk's data still due */
    uint64_t data;     /* data bytes so far, all chunks */
    size_t line_bytes; /* of the current chunk-size or trailer line */
    size_t trailer_bytes;
    uint8_t state;
    bool done; /* the last chunk and the trailer section are in */
    /* Set by h1_head_reader_body when it keeps the body: feeding stops
     * at the first byte of chunk data, which the reader moves itself. */
    bool stop_at_data;
};

/*
 * Reads up to len bytes at p of a chunked body: chunk-size (hex digits,
 * below 2^60), optional extensions after ";" (visible characters, spaces
 * and tabs), CRLF, the data, CRLF; after the last chunk (size 0) a
 * trailer section of field lines, as h1_head_parse checks them, ended by
 * an empty line.  Line ends are CRLF only.  A chunk-size line longer
 * than 1024 bytes, or a trailer section longer than max_trailer bytes,
 * is refused.  Returns the bytes consumed: all of len, or fewer once the
 * body is complete (ch->done; the rest is the next request); RW_EINVAL
 * if the framing is invalid, with why written as for h1_head_parse (the status
 * is 400).
 */
long h1_head_chunked_feed(struct h1_chunked *ch, const char *p, size_t len,
                          size_t max_trailer, char *why, size_t why_len);

/* ---- reading requests from a connection's input ---- */

struct evbuffer;

/* One request being read; zero it for each request. */
struct h1_reader {
    size_t scanned;            /* input bytes looked at for the head's end */
    size_t line_start;         /* where the current line of the head begins */
    size_t line1;              /* the request line's length; 0: not yet ended */
    struct h1_head head;       /* as h1_head_parse filled it */
    bool head_done;            /* the head is read; the body follows */
    uint64_t body_left;        /* H1_FRAMING_LENGTH: bytes still due */
    struct h1_chunked chunked; /* H1_FRAMING_CHUNKED */
};

/*
 * Looks in in (a connection's input, the request's first bytes at its
 * front) for the empty line that ends the request head, from where the
 * last call stopped: lines end at LF, and empty lines before the request
 * line are drained (RFC 9112 2.2).  Returns the head's length (the
 * caller checks it with h1_head_parse and then calls
 * h1_head_reader_head_done); 0 while it is incomplete; RW_EINVAL with *status
 * 414 when the request line is longer than max_head bytes, 431 when the
 * head is, and 400 or 505 as soon as the request line has ended if it
 * is invalid (as h1_head_parse checks it: a request line alone, as
 * HTTP/0.9 sends it, is refused at once, as by Go's server), why
 * written as for h1_head_parse.
 */
long h1_head_reader_head(struct h1_reader *r, struct evbuffer *in,
                         size_t max_head, int *status, char *why,
                         size_t why_len);

/* The head of len bytes, checked into r->head, was used: drains it and
 * gets ready for the body. */
void h1_head_reader_head_done(struct h1_reader *r, struct evbuffer *in,
                              size_t len);

/*
 * Reads the request body from in (RFC 9112 6.3): the Content-Length
 * bytes or a chunked body (h1_head_chunked_feed, with max_trailer).  Its
 * data (without the chunk framing) is moved to keep, or discarded when
 * keep is NULL.  Returns H1_READER_DONE once it is all in (what follows
 * in in is the next request), 0 while more is due, RW_EINVAL with *status
 * 400 (invalid chunked framing) or 413 (more than max_body bytes of
 * data: a Content-Length above it is refused before any byte is read, a
 * chunked body as soon as its data would pass it, so at most max_body
 * bytes are ever kept) and why ("Request entity too large: limit is N",
 * as kube-apiserver's 413).
 */
#define H1_READER_DONE 1
int h1_head_reader_body(struct h1_reader *r, struct evbuffer *in,
                        struct evbuffer *keep, size_t max_trailer,
                        uint64_t max_body, int *status, char *why,
                        size_t why_len);

#endif
