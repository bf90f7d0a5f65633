/*
 * fake_stream.h: a struct stream (src/stream.h) without a connection, for
 * the unit tests of the handlers (watch, list, router): a connection
 * module of its own (src/stream_impl.h struct stream_ops) that records
 * what the handler answered -- status, Content-Type, headers, body bytes
 * and each frame of a streamed body -- and reports the pending bytes the
 * test sets, as nghttp2's tests drive a session with fake callbacks.
 *
 * Lifetime as with a connection: the handler owns nothing; on_close is
 * delivered by fake_stream_free (as a connection closing), or earlier by
 * fake_stream_finish (a client going away).
 */
#ifndef FAKE_STREAM_H
#define FAKE_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/stream_impl.h"

struct fake_stream {
    struct stream s; /* first: &fs->s is the handler's stream */
    int status;      /* 0 before stream_begin */
    char *content_type;
    int64_t content_length;
    char *headers;   /* "name: value\n" per stream_add_header */
    char *body;      /* every body byte written, NUL-terminated */
    size_t body_len;
    char **frames;   /* each frame's payload, NUL-terminated */
    size_t nframes;
    size_t pending;  /* what stream_pending reports */
    bool ended;      /* stream_end reached the connection */
};

/* A GET (or method) of path?query with Accept accept ("" or NULL: none)
 * over HTTP/1.1 (protocol 1) or HTTP/2 (2). */
struct fake_stream *fake_stream_new(const char *method, const char *path,
                                    const char *query, const char *accept,
                                    int protocol);

/* The connection is done with the stream: on_close, once. */
void fake_stream_finish(struct fake_stream *fs);
/* fake_stream_finish, then frees.  NULL is a no-op. */
void fake_stream_free(struct fake_stream *fs);

/* Sets the pending bytes; falling to STREAM_LOW_WATER or below fires
 * on_drain as a connection's write would. */
void fake_stream_set_pending(struct fake_stream *fs, size_t pending);

/* Frame i's payload (i < nframes). */
const char *fake_stream_frame(const struct fake_stream *fs, size_t i);

/* The value of response header name, or NULL. */
const char *fake_stream_header(const struct fake_stream *fs,
                               const char *name, char *buf, size_t len);

#endif
