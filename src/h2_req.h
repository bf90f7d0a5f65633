/*
 * h2_req.h: an HTTP/2 request's header fields while its header block
 * arrives (for conn_h2): the fields ringwatch keeps (:method, :path and
 * those handlers see, enum stream_field), the first of each name, copied
 * into one growing buffer, and the header list size as RFC 9113 6.5.2
 * counts it (each field's name and value plus 32 bytes), then its body
 * (DATA frames) when the method has one.  Freed when the request is
 * dispatched.
 */
#ifndef H2_REQ_H
#define H2_REQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct h2_req;
struct stream;

struct h2_req *h2_req_new(void);

/* NULL is a no-op. */
void h2_req_free(struct h2_req *r);

/* Adds a header field as nghttp2 decoded it (name in lower case); fields
 * handlers do not see are only counted, a repeated one's first value
 * counts (stream_field_index), and once the list exceeds max_bytes
 * nothing more is kept. */
void h2_req_add(struct h2_req *r, const uint8_t *name, size_t namelen,
                const uint8_t *value, size_t valuelen, size_t max_bytes);

/* Whether the request keeps a body: its :method is there and is neither
 * GET nor HEAD (stream_body); meaningful once the header block is
 * complete.  Requests that do not are dispatched at END_HEADERS. */
bool h2_req_has_body(const struct h2_req *r);

/* Appends len bytes of DATA to the body.  RW_OK; RW_ELIMIT when the body
 * would exceed max_bytes (nothing is kept from then on: the caller
 * answers 413). */
int h2_req_body_add(struct h2_req *r, const uint8_t *data, size_t len,
                    size_t max_bytes);

/*
 * Copies the complete request into s (stream_set_request), its :path
 * split into path and query at the first '?', and hands s its body
 * (stream_set_body; r keeps none after).  Returns RW_OK; RW_ELIMIT
 * when the header list exceeded max_bytes (a 431 for the caller);
 * RW_EINVAL without :method or :path (400); RW_EPROTO when the path's
 * escapes are invalid (a stream reset, as Go's server does where
 * url.ParseRequestURI fails).  s is untouched on an error.
 */
int h2_req_apply(struct h2_req *r, struct stream *s);

/* h2_req_apply without the body (r keeps it): the request's head, for a
 * decision before the body is read (front_config precheck). */
int h2_req_apply_head(const struct h2_req *r, struct stream *s);

#endif
