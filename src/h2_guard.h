/*
 * h2_guard.h: keeps an HTTP/2 client's stream errors to their stream
 * (RFC 9113 5.4.2) for conn_h2, where nghttp2 alone would end the whole
 * connection, every healthy watch on it included.
 *
 * What nghttp2 1.52 does by itself, with HTTP messaging on (the
 * default, kept): a malformed request (RFC 9113 8.1.1: content-length
 * that disagrees with the DATA frames, a missing, repeated, unknown or
 * misplaced pseudo-header, :path empty or not origin-form, an upper-case
 * or connection-specific field name, TE other than "trailers", trailers
 * with pseudo-headers or without END_STREAM; 8.2.1: a field name with a
 * space or another character outside a lower-case token, a value with
 * NUL, CR, LF or leading or trailing whitespace) is reset with
 * RST_STREAM PROTOCOL_ERROR and never reaches on_frame_recv, so it is
 * never dispatched.  That holds because no on_invalid_header callback is
 * set: one that returned 0 would make nghttp2 drop the field and serve
 * the request without it.  What it gets wrong: a HEADERS frame that
 * opens a stream beyond an acknowledged SETTINGS_MAX_CONCURRENT_STREAMS
 * ends the connection (GOAWAY PROTOCOL_ERROR) and every healthy watch on
 * it, where RFC 9113 5.1.2 makes it a stream error and Go's server
 * (kube-apiserver's) refuses just that stream.  nghttp2 is therefore
 * told no limit (H2_GUARD_NO_LIMIT), the SETTINGS frame on the wire
 * carries the configured one (h2_guard_settings), and conn_h2 refuses a
 * stream beyond it itself (h2_guard_refuse): RST_STREAM REFUSED_STREAM,
 * which tells the client that it may retry the request.
 *
 * nghttp2 also makes connection errors of a few frames that RFC 9113
 * makes stream errors; h2_in shows each client frame to
 * h2_guard_inspect before nghttp2 sees it, which resets the stream and
 * turns the frame into one nghttp2 ignores.  The stream is closed in
 * nghttp2 first, as a RST_STREAM from the client would close it (so
 * each such reset counts toward nghttp2's limit on resets, as the
 * client's own would), and nghttp2 has then forgotten it: this depends
 * on no other stream, and holds on the connection's first.  DATA or
 * HEADERS (trailers) on a stream the client has half-closed (5.1:
 * STREAM_CLOSED) are then ignored where nghttp2 would end the
 * connection, while a header block is still decoded (the HPACK table
 * stays in step with the client's) and DATA still counts against the
 * connection's flow-control window.  WINDOW_UPDATE of 0 on a stream
 * (6.9: PROTOCOL_ERROR) and PRIORITY making a stream depend on itself
 * (5.3.1: PROTOCOL_ERROR) are made frames of an unknown type (ignored);
 * a HEADERS frame that opens a stream depending on itself has the
 * dependency cleared and its stream refused (h2_guard_refuse).
 *
 * A HEADERS frame on a closed stream is a stream identifier used again
 * (5.1.1), which nghttp2 ignores (the request would hang) and Go's
 * server answers with GOAWAY PROTOCOL_ERROR: so does ringwatch, unless
 * ringwatch reset that stream itself lately (the last H2_GUARD_RESETS
 * it reset), when the client may have sent trailers before it saw the
 * reset and RFC 9113 5.1 wants them ignored.
 *
 * Connection errors stay connection errors (GOAWAY): HPACK decoding
 * errors, frame size errors, a bad preface or SETTINGS, frames on stream
 * 0 that belong to a stream, DATA on an idle stream.
 * Callbacks never return NGHTTP2_ERR_CALLBACK_FAILURE for a stream's
 * problem: that would end the session.
 */
#ifndef H2_GUARD_H
#define H2_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <nghttp2/nghttp2.h>

#include "src/h2_frame.h"

/* SETTINGS_MAX_CONCURRENT_STREAMS as nghttp2 is told it: none. */
#define H2_GUARD_NO_LIMIT UINT32_MAX

/* Refusals not yet sent (the client does not read) beyond which a
 * client that keeps opening streams is flooding: GOAWAY
 * ENHANCE_YOUR_CALM. */
#define H2_GUARD_REFUSING_MAX 256

/* Streams ringwatch reset that a client's HEADERS may still follow
 * (late trailers, ignored), at most: the last ones reset. */
#define H2_GUARD_RESETS 8

/* What h2_guard_inspect keeps from one frame to the next; zeroed. */
struct h2_guard {
    int32_t refuse_id; /* a stream to refuse (PROTOCOL_ERROR) as it opens */
    int32_t reset[H2_GUARD_RESETS]; /* streams reset lately (a ring) */
    uint8_t reset_next;
};

/* How many bytes of the client frame whose 9-byte header is at head
 * h2_guard_inspect needs: the header, and the start of the payload of
 * WINDOW_UPDATE, PRIORITY and HEADERS with a priority (never more than
 * the frame). */
size_t h2_guard_need(const uint8_t *head);

/*
 * Looks at a client frame before nghttp2 does: its first h2_guard_need
 * bytes at frame, which it may rewrite (see the top of this file); call
 * it between two frames, outside nghttp2's callbacks (it may feed
 * nghttp2 a frame of its own).  Queues RST_STREAM for a stream error; a
 * HEADERS frame that opens a stream depending on itself has its
 * dependency cleared and its stream noted in g->refuse_id, for conn_h2
 * to refuse as it opens (h2_guard_refuse).  Other frames are left to
 * nghttp2.  Returns 0, or the HTTP/2 error code of a connection error
 * (PROTOCOL_ERROR for a stream identifier used again; INTERNAL_ERROR if
 * nghttp2 failed), which the caller ends the session with.
 */
uint32_t h2_guard_inspect(struct h2_guard *g, nghttp2_session *session,
                          uint8_t *frame);

/* RST_STREAM on stream id was sent (whoever queued it: conn_h2 tells
 * from nghttp2's on_frame_send), for h2_guard_inspect. */
void h2_guard_reset_sent(struct h2_guard *g, int32_t id);

/* The longest SETTINGS frame h2_guard_settings rewrites, bytes. */
#define H2_GUARD_SETTINGS_MAX (H2_FRAME_HEAD_LEN + 6 * 8)

/*
 * If the len bytes at frame are one outgoing SETTINGS frame (not an
 * ACK) of at most H2_GUARD_SETTINGS_MAX bytes, copies it to out with the
 * value of every SETTINGS_MAX_CONCURRENT_STREAMS entry (RFC 9113 6.5.2)
 * set to max, and returns true; otherwise returns false and leaves out
 * alone.
 */
bool h2_guard_settings(const uint8_t *frame, size_t len, uint32_t max,
                       uint8_t out[H2_GUARD_SETTINGS_MAX]);

/*
 * Refuses stream id, whose HEADERS frame is being received (from
 * on_begin_headers): RST_STREAM with error_code (REFUSED_STREAM beyond
 * the limit, PROTOCOL_ERROR for g->refuse_id) is queued and the stream
 * marked (h2_guard_is_refused on its user data) so that the rest of its
 * header block is ignored.  *refusing counts the refusals not yet sent
 * (the caller decrements it when nghttp2 closes a marked stream); past
 * H2_GUARD_REFUSING_MAX the session is terminated with
 * ENHANCE_YOUR_CALM instead.  Returns 0, or an nghttp2 error code when
 * nghttp2 is out of memory.
 */
int h2_guard_refuse(nghttp2_session *session, int32_t id, uint32_t error_code,
                    uint32_t *refusing);

/* Whether a stream's user data marks it refused (h2_guard_refuse). */
bool h2_guard_is_refused(const void *stream_user_data);

/* Sets a callback that logs the stream errors nghttp2 finds (debug
 * level). */
void h2_guard_callbacks(nghttp2_session_callbacks *cbs);

#endif
