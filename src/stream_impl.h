/*
 * stream_impl.h: the inside of a stream, shared by stream.c and the
 * connection modules only: conn_h1.c with h1_req.c, and on the HTTP/2
 * side h2_stream.c (which owns conn_h2's streams) with h2_req.c.
 * Handlers program against stream.h and listener.h and never include
 * this file; connections meet the listener through registry.h.
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
 */
#ifndef STREAM_IMPL_H
#define STREAM_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "cache/rbuf.h"
#include "src/stream_types.h"

/* One response header added with stream_add_header: name and value in one
 * allocation, in the order they were added. */
struct stream_header {
    STAILQ_ENTRY(stream_header) link;
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
    char *body;      /* the request's body (stream_body); NULL: none */
    size_t body_len;
    stream_cb on_drain;
    stream_cb on_close;
    void *cb_arg;
    stream_cb on_release; /* stream_set_release */
    void *release_arg;
    STAILQ_HEAD(stream_headers, stream_header) headers; /* until begin */
    int64_t content_length; /* as declared to stream_begin */
    int64_t written;        /* body bytes accepted so far */
    uint8_t protocol;       /* 1 or 2 */
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
    STREAM_FIELD_AUTHORIZATION,
    STREAM_FIELD_CONTENT_TYPE,
    /* every Impersonate-* field, gathered (struct stream_gather): not
     * one name, so never stream_field_index's */
    STREAM_FIELD_IMPERSONATE,
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
 * Header fields handlers see together, repeated ones included, as Go's
 * Header map holds them: those whose name (any case) starts with
 * "impersonate-" (kube-apiserver's Impersonate-User, -Uid, -Group and
 * -Extra-KEY).  The connection modules gather them in arrival order as
 * "name: value" entries, the name in lower case, separated by '\n' (a
 * value never holds one), into STREAM_FIELD_IMPERSONATE.
 */
struct stream_gather {
    char *p; /* NUL-terminated; NULL: nothing gathered */
    size_t len, cap;
};

/* Whether a field named name (len bytes, any case) is gathered. */
bool stream_field_gathered(const char *name, size_t len);

/* Starts an entry for the field named name (len bytes, lower-cased). */
void stream_gather_begin(struct stream_gather *g, const char *name, size_t len);

/* Appends len bytes of the entry's value (in as many pieces as come). */
void stream_gather_add(struct stream_gather *g, const char *v, size_t len);

/* The gathered text as a stream_value (absent when nothing was). */
struct stream_value stream_gathered(const struct stream_gather *g);

/* Frees what g holds; g is empty after. */
void stream_gather_free(struct stream_gather *g);

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

/* Gives s the request's body: len bytes at body, NUL-terminated, owned
 * by s from now on (freed with the stream).  Before dispatch. */
void stream_set_body(struct stream *s, char *body, size_t len);

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

#endif
