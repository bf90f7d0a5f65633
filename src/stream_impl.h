/*
 * stream_impl.h: the inside of the serving front, shared by stream.c,
 * listener.c, conn_h1.c and conn_h2.c only.  Handlers program against
 * stream.h and listener.h and never include this file.
 *
 * struct stream is the protocol-independent half of a request/response:
 * the parsed request, the handler's callbacks, the response headers added
 * before stream_begin, and the state bits every protocol shares.  Each
 * connection module embeds it as the first member of its own stream and
 * implements struct stream_ops; stream.c checks the contract (order of
 * calls, Content-Length accounting) before calling down, so the modules
 * only move bytes.
 *
 * States of a stream, in order: dispatched (handed to the handler) ->
 * begun (status sent) -> ended (stream_end called) -> finished (on_close
 * delivered, then freed by its connection).  "gone" may be set at any
 * point before finished: the transport will carry nothing more (client
 * reset or disconnect, connection error, shutdown); from then on writes
 * are dropped, stream_pending() is SIZE_MAX so writers stop, and on_close
 * is coming.  on_close is delivered exactly once, by stream_finish(),
 * which the connection modules call only from the event loop (never from
 * inside a handler's call into the stream API, nor from inside nghttp2's
 * or libevent's callbacks for that connection).
 *
 * struct front_conn is the part of a connection the listener sees: a node
 * in its list of connections (for listener_free and listener_stats), the
 * function that serves the connection from the loop on a clean stack (the
 * modules' "run me soon") and the one that tears it down at once.  The
 * listener runs both from one event of its own, so no connection holds a
 * libevent event or a deferred callback of its own (a deferred bufferevent
 * callback holds a reference on the bufferevent that only the loop
 * releases: listener_free could not free such a connection).
 */
#ifndef STREAM_IMPL_H
#define STREAM_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/listener.h"
#include "src/stream.h"

struct bufferevent;
struct evbuffer;
struct timeval;

/* One response header added with stream_add_header: name and value in one
 * allocation, in the order they were added. */
struct stream_header {
    struct stream_header *next;
    const char *value; /* points after name's NUL in the same allocation */
    char name[];
};

/*
 * What a connection module does for its streams.  stream.c calls these
 * only for streams that are not gone, in the order begin, (write |
 * write_frame)*, end; writes are non-empty and fit the declared length.
 * write and write_frame take their own reference to the buffer.
 */
struct stream_ops {
    void (*begin)(struct stream *s, int status, const char *content_type,
                  int64_t content_length);
    void (*write)(struct stream *s, struct rbuf *buf, size_t off, size_t len);
    void (*write_frame)(struct stream *s, struct rbuf *frame);
    size_t (*pending)(const struct stream *s);
    void (*end)(struct stream *s);
};

struct stream {
    const struct stream_ops *ops;
    struct request req;
    char *req_block; /* the request's strings, one allocation */
    stream_cb on_drain;
    stream_cb on_close;
    void *cb_arg;
    struct stream_header *headers; /* until stream_begin */
    int64_t content_length;        /* as declared to stream_begin */
    int64_t written;               /* body bytes accepted so far */
    uint8_t protocol;              /* 1 or 2 */
    bool begun : 1;
    bool ended : 1;
    bool gone : 1;      /* the transport carries nothing more */
    bool head : 1;      /* HEAD request: no body bytes are sent */
    bool above_low : 1; /* pending went above STREAM_LOW_WATER */
    bool finished : 1;  /* on_close delivered */
    bool in_drain : 1;  /* inside on_drain */
};

/* ---- for the connection modules (stream.c) ---- */

/* Zeroes s and binds it to its module's ops; protocol is 1 or 2. */
void stream_init(struct stream *s, const struct stream_ops *ops, int protocol);

/* The request header fields handlers see (struct request). */
enum stream_field {
    STREAM_FIELD_ACCEPT,
    STREAM_FIELD_USER_AGENT,
    STREAM_FIELD_IF_NONE_MATCH,
    STREAM_FIELD_COUNT,
};

/* A header field's value as received: len bytes at p (NULL: absent). */
struct stream_value {
    const char *p;
    size_t len;
};

/*
 * Which field handlers see a header field named name (len bytes, any
 * case) is, or -1.  The connection modules keep the value of the first
 * field of each name and ignore the others, as Go's Header.Get (no
 * field handlers see is one that Go's servers join).
 */
int stream_field_index(const char *name, size_t len);

/*
 * Copies the request into s (one allocation owned by s).  method is the
 * method as sent (mapped to enum stream_method), path the request target's
 * path, query what follows '?' (may be empty), fields the header values
 * by enum stream_field; each given with its length in bytes.
 * http_version is 10, 11 or 20.
 */
void stream_set_request(struct stream *s, int http_version, const char *method,
                        size_t method_len, const char *path, size_t path_len,
                        const char *query, size_t query_len,
                        const struct stream_value fields[STREAM_FIELD_COUNT]);

/* The transport will carry nothing more for s (see the top of this file).
 * Idempotent. */
void stream_gone(struct stream *s);

/* Called by the module when s's pending bytes may have fallen: fires
 * on_drain once if they had been above STREAM_LOW_WATER and are now at or
 * below it (and the stream is neither ended nor gone). */
void stream_drained(struct stream *s);

/* Delivers on_close (once; marks s gone) and releases what stream.c
 * allocated.  The module frees its own struct right after. */
void stream_finish(struct stream *s);

/* Whether a response of status has no content by definition (RFC 9110
 * 6.4.1: 1xx, 204, 304): the modules then send neither a body nor its
 * framing (no Content-Length, which a 304 would have to give as its 200
 * does, nor chunks), as Go's server does. */
bool stream_bodiless(int status);

/* The reason phrase of an HTTP status ("OK", "Not Found"; "Unknown"). */
const char *stream_reason(int status);

/* The current time as an IMF-fixdate (RFC 9110 5.6.7) for the Date
 * header, cached per second; a static buffer. */
const char *stream_date(void);

/* ---- connections, as the listener sees them (listener.c) ---- */

enum front_protocol {
    FRONT_SNIFFING = 0,
    FRONT_H1 = 1,
    FRONT_H2 = 2,
};

struct front_conn {
    struct front_conn *prev, *next;
    struct listener *listener;
    /* Serves the connection (its scheduled work).  Called only from the
     * listener's event, never from inside the connection's own callbacks,
     * after listener_schedule. */
    void (*service)(struct front_conn *c);
    /* Closes the connection now: every live stream gets stream_gone and
     * stream_finish, the socket is closed, the connection freed.  Called
     * only from outside the connection's own callbacks: from the
     * listener's event (after listener_reap) or by listener_free. */
    void (*shutdown)(struct front_conn *c);
    /* Whether the connection has a response left to finish: a stream
     * open, or bytes queued in ringwatch (output buffers, nghttp2's
     * frames) that the kernel has not taken yet, *unsent of them.  A
     * response is finished when its last byte has left ringwatch, not
     * when it was queued (graceful shutdown waits for that).  NULL: never
     * (a connection being sniffed). */
    bool (*unfinished)(const struct front_conn *c, size_t *unsent);
    struct front_conn *work_next; /* on the listener's work queue */
    enum front_protocol protocol;
    bool queued; /* on the work queue */
    bool dying;  /* listener_reap called: shutdown comes, service never */
};

/* Adds c to l's connections as protocol. */
void listener_attach(struct listener *l, struct front_conn *c,
                     enum front_protocol protocol);
/* Removes c from its listener's connections. */
void listener_detach(struct front_conn *c);
/* Has c->service(c) called soon from the event loop, on a clean stack:
 * after the current callback if called from outside the listener's event,
 * on the next loop iteration (after polling) if called from inside it, so
 * that a connection that keeps rescheduling itself does not starve I/O.
 * Many calls before it runs make one call.  No-op for a dying
 * connection. */
void listener_schedule(struct front_conn *c);
/* Has c->shutdown(c) called soon from the event loop, on a clean stack
 * (one event per listener serves every connection).  The caller has
 * disabled c's I/O; c's callbacks that still fire must do nothing.
 * Idempotent. */
void listener_reap(struct front_conn *c);
/* Counts a stream opened (delta 1) or finished (delta -1). */
void listener_count_stream(struct listener *l, enum front_protocol protocol,
                           int delta);
const struct front_config *listener_config(const struct listener *l);
/* listener_drain was called: connections close once finished. */
bool listener_draining(const struct listener *l);

/* Seconds a closing connection may go without flushing progress: the idle
 * timeout, else LISTENER_CLOSE_FLUSH_SECONDS. */
#define LISTENER_CLOSE_FLUSH_SECONDS 30
unsigned listener_flush_seconds(const struct listener *l);
/* Starts closing a connection's output: no more low-water callbacks, and
 * the write times out after flush_seconds without progress; the connection
 * module closes it when the output is empty or the write timed out. */
void listener_close_output(struct bufferevent *bev, unsigned flush_seconds);
/* Hands a complete request to the listener's handler. */
void listener_dispatch(struct listener *l, struct stream *s);
/* Starts serving bev (a connected socket or, in tests, one end of a
 * bufferevent pair): sniffs the protocol, then hands it to conn_h1 or
 * conn_h2.  Takes ownership of bev on every path. */
void listener_adopt(struct listener *l, struct bufferevent *bev);
/* Closes every connection at once, those already reaped included; each
 * open stream gets its on_close (listener_free without closing the
 * listening socket).  Not from inside a callback of the front. */
void listener_close_connections(struct listener *l);

/* ---- deadlines and output queues, for the connection modules ---- */

/* CLOCK_MONOTONIC in milliseconds, for deadlines. */
uint64_t listener_now_ms(void);
/* The time left until deadline_ms (listener_now_ms), at least 1 ms, as a
 * bufferevent timeout. */
void listener_until(uint64_t deadline_ms, struct timeval *tv);

/*
 * Pieces shorter than this are copied into a connection's output buffer,
 * longer ones referenced.  libevent 2.1 gives each reference a chain of
 * its own (a 1 KiB allocation), while copies pack into shared chains: up
 * to about this size a copy costs less memory than a reference.
 */
#define LISTENER_COPY_BELOW 1024

/*
 * Appends len bytes at p to a connection's output buffer out by copy.
 * *tail_ref tells whether the last thing appended to out was a
 * reference: libevent's evbuffer_add would then allocate a new chain as
 * long as the referenced bytes (twice below 2 KiB), rounded up to a power
 * of two (128 KiB for 2 bytes after a 64 KiB reference); this starts a
 * minimal chain instead (1 KiB), which later copies fill.  Clears
 * *tail_ref.  Returns 0, or -1 if libevent failed.
 */
int listener_out_copy(struct evbuffer *out, bool *tail_ref, const void *p,
                      size_t len);

/*
 * Appends len bytes of b at off to out: a copy (as listener_out_copy)
 * below LISTENER_COPY_BELOW, else a reference that holds one count on b
 * until libevent has written or dropped the bytes.  Sets *tail_ref to
 * which it was.  The caller keeps its own reference to b.  Returns 0, or
 * -1 if libevent failed (nothing queued, no reference kept).
 */
int listener_out_add(struct evbuffer *out, bool *tail_ref, struct rbuf *b,
                     size_t off, size_t len);

#endif
