/*
 * stream.h: one HTTP request and its response, the same for HTTP/1.1 and
 * HTTP/2, so that handlers never know which protocol they speak.
 *
 * A connection module (conn_h1.c, conn_h2.c) creates a stream per request
 * and hands it to the request handler once the request is complete.  The
 * handler answers at once (stream_respond) or keeps the stream (a WATCH):
 * it begins a streamed body, writes references to shared, immutable
 * buffers, and stops writing while stream_pending() is above its
 * high-water mark; on_drain tells it when to go on.  Bytes are never copied
 * on the way to the socket: HTTP/1.1 queues references in the socket
 * buffer (evbuffer_add_reference), HTTP/2 uses nghttp2's no-copy data path.
 *
 * Lifetime: the connection owns the stream.  on_close fires exactly once,
 * when the stream is finished for any reason (response fully handed to the
 * socket after stream_end, client reset or disconnect, server shutdown);
 * the stream is freed right after on_close returns.  A handler that keeps
 * a stream must set on_close and stop using the stream there.  Calling
 * stream functions from inside on_drain is allowed; from inside on_close
 * it is not.
 */
#ifndef STREAM_H
#define STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/rbuf.h"
#include "src/stream_types.h"

/* on_drain fires when stream_pending() falls to this many bytes or fewer
 * after having been above it. */
#define STREAM_LOW_WATER (16 * 1024)

/* Request body bytes kept at most, as kube-apiserver's limit for a JSON
 * request body (3 MiB: its maxRequestBodyBytes); beyond it the front
 * answers 413 RequestEntityTooLarge "Request entity too large: limit is
 * 3145728" without reading more of it into memory. */
#define STREAM_MAX_BODY (3 * 1024 * 1024)

const struct request *stream_request(const struct stream *s);

/*
 * The request's body: *len bytes, NUL-terminated for convenience (the
 * NUL not counted), owned by the stream; NULL with *len 0 when it had
 * none.  A request is dispatched once its body is complete (HTTP/1.1:
 * Content-Length or chunked, its data without the framing; HTTP/2:
 * END_STREAM).  GET and HEAD requests never have one here: their body
 * has no meaning (RFC 9110 9.3.1), HTTP/1.1 reads and drops it, HTTP/2
 * dispatches them at the end of their header block.  Valid until
 * stream_forget_request or on_close.
 */
const char *stream_body(const struct stream *s, size_t *len);
/* Releases the request's strings (path, query, header fields: they
 * then read "") and its body, keeping its method and HTTP version: for
 * long-lived streams (watches) that no longer need them, so that ten thousand
 * idle watches do not keep ten thousand copies of their query strings. */
void stream_forget_request(struct stream *s);
/* 1 for HTTP/1.x, 2 for HTTP/2. */
int stream_protocol(const struct stream *s);

void stream_set_callbacks(struct stream *s, stream_cb on_drain,
                          stream_cb on_close, void *arg);

/*
 * The release hook, for admission (src/fairness.h): fn(s, arg) is called
 * once, when s finishes (after on_close) or at stream_release, whichever
 * comes first.  Independent of stream_set_callbacks; replaces an earlier
 * hook, fn NULL clears it.
 */
void stream_set_release(struct stream *s, stream_cb fn, void *arg);

/* Calls the release hook now, once (a WATCH whose initial events are
 * sent gives back its seat); a no-op without one. */
void stream_release(struct stream *s);

/* Adds a response header (copied) before stream_begin, e.g. Retry-After.
 * name in lower case. */
void stream_add_header(struct stream *s, const char *name, const char *value);

/*
 * Sends the status and headers.  content_length >= 0: exactly that many
 * body bytes follow (Content-Length); -1: a streamed body (HTTP/1.1
 * chunked, HTTP/2 DATA frames until stream_end).  HEAD requests get the
 * headers only, whatever is written.
 */
void stream_begin(struct stream *s, int status, const char *content_type,
                  int64_t content_length);

/* Queues len bytes of buf at off as body.  Takes its own reference to buf;
 * the caller keeps its own.  Chunk-framed on streamed HTTP/1.1 bodies. */
void stream_write(struct stream *s, struct rbuf *buf, size_t off, size_t len);

/* Queues a frame (proto/frame.h) of a streamed body: HTTP/1.1 sends it
 * whole (it is a chunk), HTTP/2 its payload.  Takes its own reference. */
void stream_write_frame(struct stream *s, struct rbuf *frame);

/* Body bytes queued by this stream and not yet handed to the kernel. */
size_t stream_pending(const struct stream *s);

/* Finishes the response after the queued bytes (HTTP/1.1: the last chunk
 * of a streamed body; HTTP/2: END_STREAM).  The stream must not be written
 * after this; on_close follows once everything is handed to the socket. */
void stream_end(struct stream *s);

/* stream_begin + one write + stream_end; body may be NULL (empty). */
void stream_respond(struct stream *s, int status, const char *content_type,
                    struct rbuf *body);

#endif
