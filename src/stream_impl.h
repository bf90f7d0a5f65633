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
 * in its list of connections (for listener_free and listener_stats) and the
 * function that tears the connection down at once.
 */
#ifndef STREAM_IMPL_H
#define STREAM_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/listener.h"
#include "src/stream.h"

struct bufferevent;

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

/*
 * Copies the request into s (one allocation owned by s).  method is the
 * method as sent (mapped to enum http_method), path the request target's
 * path, query what follows '?' (may be empty), accept and user_agent the
 * header values (NULL or empty when absent); each given with its length in
 * bytes.  http_version is 10, 11 or 20.
 */
void stream_set_request(struct stream *s, int http_version, const char *method,
                        size_t method_len, const char *path, size_t path_len,
                        const char *query, size_t query_len, const char *accept,
                        size_t accept_len, const char *user_agent,
                        size_t user_agent_len);

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
    /* Closes the connection now: every live stream gets stream_gone and
     * stream_finish, the socket is closed, the connection freed.  Called
     * only from outside the connection's own callbacks: by the listener's
     * reaper (listener_reap) or by listener_free. */
    void (*shutdown)(struct front_conn *c);
    struct front_conn *reap_next;
    enum front_protocol protocol;
    bool dying; /* on the reaper's list */
};

/* Adds c to l's connections as protocol. */
void listener_attach(struct listener *l, struct front_conn *c,
                     enum front_protocol protocol);
/* Removes c from its listener's connections. */
void listener_detach(struct front_conn *c);
/* Has c->shutdown(c) called soon from the event loop, on a clean stack
 * (one event per listener serves every connection).  The caller has
 * disabled c's I/O; c's callbacks that still fire must do nothing.
 * Idempotent. */
void listener_reap(struct front_conn *c);
/* Counts a stream opened (delta 1) or finished (delta -1). */
void listener_count_stream(struct listener *l, enum front_protocol protocol,
                           int delta);
const struct front_config *listener_config(const struct listener *l);
/* Hands a complete request to the listener's handler. */
void listener_dispatch(struct listener *l, struct stream *s);
/* Starts serving bev (a connected socket or, in tests, one end of a
 * bufferevent pair): sniffs the protocol, then hands it to conn_h1 or
 * conn_h2.  Takes ownership of bev on every path. */
void listener_adopt(struct listener *l, struct bufferevent *bev);
/* Closes every connection (listener_free without closing the socket). */
void listener_close_connections(struct listener *l);

#endif
