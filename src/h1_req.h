/*
 * h1_req.h: an HTTP/1.x request while its head arrives (for conn_h1,
 * which feeds it what http-parser extracts): its request target and the
 * header fields ringwatch keeps (those handlers see, enum stream_field,
 * and Expect), the first of each name, in one growing buffer; the head
 * reader (h1_head.h) and what http-parser concluded once the head is
 * complete.  Freed when the request is dispatched.
 */
#ifndef H1_REQ_H
#define H1_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/h1_head.h"
#include "src/stream_impl.h"

/* longest header name looked at (an Impersonate-Extra-KEY's longer
 * name is gathered cut to it) */
#define H1_FIELD_MAX 64

/* The header fields a request keeps: those handlers see (enum
 * stream_field), and Expect. */
#define H1_FIELD_EXPECT STREAM_FIELD_COUNT
#define H1_FIELDS (STREAM_FIELD_COUNT + 1)
#define H1_FIELD_OTHER (-1)

struct h1_value {
    size_t off, len; /* in h1_req.buf */
    bool seen;
};

/* The request being parsed. */
struct h1_req {
    char *buf; /* URL, then the values below; NULL between requests */
    size_t len, cap;
    size_t url_len;
    struct h1_value values[H1_FIELDS]; /* the first of each name */
    uint64_t deadline_ms;              /* complete by then (clock_mono_ms) */
    struct h1_reader reader;           /* head end, checks, body (h1_head.h) */
    char field[H1_FIELD_MAX];          /* current header name, lower case */
    size_t field_len;
    int field_kind; /* of the current field: H1_FIELD_*, or < 0 */
    bool in_value;
    bool gathering;              /* the current field is gathered */
    struct stream_gather gather; /* STREAM_FIELD_IMPERSONATE */
    bool complete; /* http-parser has the whole head; paused */
    bool keep_alive;
    const char *method;
};

/* A request whose first byte came now, due complete by deadline_ms
 * (clock_mono_ms; 0: no deadline). */
struct h1_req *h1_req_new(uint64_t deadline_ms);

/* NULL is a no-op. */
void h1_req_free(struct h1_req *r);

/* len more bytes of the request target, as http-parser hands them. */
void h1_req_url(struct h1_req *r, const char *at, size_t len);

/* len more bytes of a header field's name (kept lower case, the first
 * H1_FIELD_MAX bytes). */
void h1_req_field(struct h1_req *r, const char *at, size_t len);

/* len more bytes of the current field's value: kept for a field handlers
 * see or Expect, when it is the first of its name (stream_field_index). */
void h1_req_value(struct h1_req *r, const char *at, size_t len);

/* Whether the Expect field lists 100-continue (Go's hasToken: a
 * comma-separated element, in any case). */
bool h1_req_expects_continue(const struct h1_req *r);

/* An expectation other than 100-continue cannot be met (RFC 9110
 * 10.1.1): 417, and the connection closes, as Go's server answers. */
bool h1_req_expectation_failed(const struct h1_req *r);

/* Copies the complete request into s (stream_set_request): its HTTP
 * version as h1_head_parse read it (r->reader.head), its target
 * (origin or absolute form) split into path and query, a "#" kept where
 * it is, as Go's url.ParseRequestURI keeps it (a request target has no
 * fragment); an empty path is "/". */
void h1_req_apply(const struct h1_req *r, struct stream *s);

#endif
