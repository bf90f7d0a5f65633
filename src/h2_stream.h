/*
 * h2_stream.h: the streams of one HTTP/2 server connection (for
 * conn_h2): each request/response as a struct stream (stream_impl.h)
 * whose ops frame its body through nghttp2's no-copy data path, and the
 * nghttp2 callbacks that follow a stream's life (HEADERS begun, header
 * fields, header block complete, END_STREAM sent, stream closed).
 *
 * Streams beyond SETTINGS_MAX_CONCURRENT_STREAMS, and one that depends on
 * itself, are refused alone (h2_guard.h): a client's stream error never
 * ends the connection and its other watches.  A GET or HEAD request is
 * dispatched at the end of its header block (END_HEADERS), not at
 * END_STREAM; a request of another method once its body is complete
 * (END_STREAM: its DATA is kept for stream_body, up to STREAM_MAX_BODY,
 * 413 RequestEntityTooLarge as soon as it passes it; the connection's
 * streams keep at most twice that together, a stream passing it is reset
 * REFUSED_STREAM); once its
 * response is complete (END_STREAM sent) a stream whose request has not
 * ended is reset with NO_ERROR (RFC 9113 8.1, as Go's server), so that a
 * client cannot keep an answered stream open.
 *
 * Ordering: nghttp2's callbacks only record what happened by putting a
 * stream on the set's work FIFO; h2_stream_run_work, called by the
 * connection after nghttp2 returns, dispatches requests, delivers
 * on_drain, and delivers on_close and frees closed streams.  Stream API
 * calls only mark the set dirty and schedule the connection
 * (h2_stream_schedule).  A stream is freed only from the work FIFO, after
 * nghttp2 has closed it, or by h2_stream_set_fini.
 */
#ifndef H2_STREAM_H
#define H2_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <nghttp2/nghttp2.h>

struct front_conn;
struct h2_guard;
struct h2_out;
struct h2_stream;

/* A connection's streams and the state they share with it.  Embedded in
 * the connection, which passes it to nghttp2 as the session's user_data
 * (the connection's own callbacks find the connection around it). */
struct h2_streams {
    nghttp2_session *session;
    struct front_conn *conn; /* its registry: limits, dispatch, counts */
    struct h2_guard *guard;  /* the connection's input guard (h2_in.h) */
    struct h2_out *out;      /* the connection's output queue */
    LIST_HEAD(h2_stream_list, h2_stream) all; /* not yet freed */
    STAILQ_HEAD(h2_stream_fifo, h2_stream) work;
    uint32_t live; /* dispatched streams not yet freed */
    /* Requests whose header block is complete and whose body is still
     * coming (not yet dispatched), and since when there has been one: the
     * connection holds them to header_timeout from then (conn_h2.c). */
    uint32_t awaiting;
    uint64_t awaiting_since_ms;
    size_t body_bytes; /* request bodies kept, not yet dispatched */
    uint32_t open;     /* request streams nghttp2 has open, refused aside */
    uint32_t refusing; /* refused streams whose RST_STREAM is not sent */
    bool dirty;        /* something for nghttp2_session_send */
    bool in_service;   /* the connection is serving: no scheduling needed */
    bool dead;         /* the connection is done: no scheduling */
};

/* Starts an empty set for conn, whose guard and output queue it uses;
 * session is set by the connection once created. */
void h2_stream_set_init(struct h2_streams *ss, struct front_conn *conn,
                        struct h2_guard *guard, struct h2_out *out);

/* The connection is done: every stream is gone (stream_gone), so that
 * handlers stop writing; on_close follows from h2_stream_set_fini. */
void h2_stream_set_gone(struct h2_streams *ss);

/* Delivers on_close to every stream not yet freed (all of them gone
 * first, so that an on_close never reaches a live sibling) and frees
 * them.  Before the session is deleted. */
void h2_stream_set_fini(struct h2_streams *ss);

/* Registers the stream callbacks on cbs (see the top of this file). */
void h2_stream_callbacks(nghttp2_session_callbacks *cbs);

/* Marks the set dirty and, unless the connection is serving or dead,
 * schedules it with its registry. */
void h2_stream_schedule(struct h2_streams *ss);

/* Does what nghttp2's callbacks recorded (see the top of this file). */
void h2_stream_run_work(struct h2_streams *ss);

/*
 * For nghttp2's send_data callback: queues a DATA frame of the stream
 * source->ptr in the output queue: its 9-byte header (framehd) and pad
 * length copied, length bytes of its body by reference (h2_body_emit),
 * the padding as constant bytes.  Puts the stream on the work FIFO when
 * its body fell to STREAM_LOW_WATER (on_drain).
 */
void h2_stream_send_data(struct h2_streams *ss, const nghttp2_frame *frame,
                         const uint8_t *framehd, size_t length,
                         nghttp2_data_source *source);

#endif
