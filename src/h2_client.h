/*
 * h2_client.h: one HTTP/2 client connection over cleartext TCP ("h2c" with
 * prior knowledge, RFC 9113 3.3), driven by nghttp2 on a libevent
 * bufferevent.  Generic: gRPC (src/grpc_client.h) and the load generator's
 * HTTP/2 watchers both run on it.
 *
 * A connection is created connecting; requests may be submitted at once
 * and go out when TCP is up.  Each request is a stream with its own
 * callbacks; response bytes are handed over as pointers into nghttp2's
 * receive buffer (no copy).  Streams beyond the peer's
 * SETTINGS_MAX_CONCURRENT_STREAMS are queued by nghttp2 and start, in
 * order, as earlier ones close.  Receive windows are large (16 MiB per
 * stream and per connection by default) so a catch-up burst is not
 * throttled by WINDOW_UPDATE round trips.
 *
 * Callback rules.  Every stream that was not reset gets on_close exactly
 * once: when it ends, when the connection ends (error
 * H2_CLIENT_ERROR_CONNECTION, before the connection's on_close) or when
 * h2_client_free is called.  After h2_client_reset, or after on_close returns,
 * the stream handle is invalid.  The connection's on_close fires at most once
 * and never after h2_client_free.  No function but h2_client_free runs a
 * callback itself: output they queue is written from the loop.  Any function
 * may be called from inside any callback, h2_client_free included: the
 * connection is then released only when the outermost callback returns (as
 * redis' freeClientAsync), never under its own feet.
 */
#ifndef H2_CLIENT_H
#define H2_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct h2_client;
struct transport;
struct h2_client_stream;

/* Stream error code meaning "the connection ended (lost or freed) before
 * the stream did".  Outside HTTP/2's error code space (0x0..0xd). */
#define H2_CLIENT_ERROR_CONNECTION 0x100u

struct h2_client_config {
    double connect_timeout; /* seconds to establish TCP; 0: 10 */
    uint32_t window_size;   /* receive window per stream and for the
                               connection, bytes; 0: 16 MiB */
    double ping_interval;   /* seconds; when streams are open and no byte
                               arrived for this long a PING is sent, and
                               when none arrives in the next interval
                               either the connection fails with
                               RW_ETIMEDOUT; 0: no keepalive.  Keep it
                               above the server's minimum ping interval
                               (grpc-go, etcd: 5 s) */
    size_t max_send_buffer; /* bytes queued towards the socket before
                               nghttp2 is asked for more; 0: 1 MiB */
    /* Makes the connection's transport (transport.h's
     * transport_client_fn, given transport_arg); NULL: plaintext
     * (transport_plain_client). */
    struct transport *(*transport)(struct event_base *base, int fd, void *arg);
    void *transport_arg;
};

struct h2_client_callbacks {
    /* TCP is connected; the connection preface and SETTINGS are queued. */
    void (*on_connect)(struct h2_client *c, void *arg);
    /* The connection ended.  err: RW_EIO (connect or socket error),
     * RW_ETIMEDOUT (connect timeout or keepalive), RW_EPROTO (HTTP/2
     * protocol error, ours or the peer's), RW_ECLOSED (peer closed the TCP
     * connection, or GOAWAY and every stream done), RW_ENOTFOUND (host did
     * not resolve).  h2_client_last_error() says more.  The caller still frees
     * c (h2_client_free, allowed inside this callback). */
    void (*on_close)(struct h2_client *c, int err, void *arg);
};

struct h2_client_stream_callbacks {
    /* One response header field; name and value are NUL-terminated and
     * valid during the call.  trailer is true for a header block that ends
     * the stream (trailers, or a response without body), as gRPC's
     * trailers-only responses need. */
    void (*on_header)(const char *name, size_t name_len, const char *value,
                      size_t value_len, bool trailer, void *arg);
    /* len bytes of response body at data: a pointer into nghttp2's receive
     * buffer, valid during the call only. */
    void (*on_data)(const uint8_t *data, size_t len, void *arg);
    /* The stream is closed: error_code is the HTTP/2 error code (0 after a
     * complete exchange; the peer's RST_STREAM code otherwise) or
     * H2_CLIENT_ERROR_CONNECTION.  The handle is invalid once this returns. */
    void (*on_close)(uint32_t error_code, void *arg);
};

/* A request header beyond the pseudo-headers. */
struct h2_client_header {
    const char *name; /* lower case */
    const char *value;
};

/* Flags of h2_client_request. */
enum {
    /* The request has a body, sent with h2_client_send; without this flag the
     * HEADERS frame ends the request (END_STREAM). */
    H2_CLIENT_REQUEST_BODY = 1u << 0,
};

/* A new connection to host:port (host numeric or resolvable by
 * getaddrinfo; port decimal), connecting at once.  cfg may be NULL
 * (defaults); it is copied.  cbs is copied.  Never NULL: failures,
 * resolution included, are reported through cbs->on_close from the event
 * loop. */
struct h2_client *h2_client_new(struct event_base *base, const char *host,
                                const char *port,
                                const struct h2_client_config *cfg,
                                const struct h2_client_callbacks *cbs,
                                void *arg);

/* Ends every stream (their on_close gets H2_CLIENT_ERROR_CONNECTION; callbacks
 * there must not use c), closes the socket and releases c, at once or,
 * inside one of c's callbacks, when that returns.  The connection's
 * on_close is not called.  NULL is a no-op. */
void h2_client_free(struct h2_client *c);

/* Starts a request: :method method, :scheme http, :path path, :authority
 * authority (NULL: "host:port" of the connection), then the n_extra
 * headers (copied).  flags: H2_CLIENT_REQUEST_BODY.  cbs is copied; arg is
 * passed to them.  Returns the stream, or NULL when c cannot start one
 * (closed, GOAWAY received, stream ids exhausted). */
struct h2_client_stream *
h2_client_request(struct h2_client *c, const char *method, const char *path,
                  const char *authority, const struct h2_client_header *extra,
                  size_t n_extra, unsigned flags,
                  const struct h2_client_stream_callbacks *cbs, void *arg);

/* Queues len bytes (copied) of request body on stream s, which was started
 * with H2_CLIENT_REQUEST_BODY; end_stream ends the request body (a
 * bidirectional gRPC stream such as Watch keeps it open).  Returns 0, RW_EINVAL
 * (s has no body), or RW_ECLOSED (body already ended, stream or connection
 * closed).  DATA frames follow the peer's flow-control window. */
int h2_client_send(struct h2_client_stream *s, const void *data, size_t len,
                   bool end_stream);

/* Cancels stream s (RST_STREAM CANCEL, or dropped before it was sent if
 * it is still queued).  No callback for s afterwards; s is invalid. */
void h2_client_reset(struct h2_client_stream *s);

/* Whether c is connected and still accepting new streams (no GOAWAY). */
bool h2_client_is_open(const struct h2_client *c);
/* Whether c has ended: its streams are being or have been closed with
 * H2_CLIENT_ERROR_CONNECTION and its on_close runs next (or ran).  A connection
 * that is neither open nor closed is connecting, or going away after a
 * GOAWAY while its older streams finish. */
bool h2_client_is_closed(const struct h2_client *c);
/* The event base c runs on. */
struct event_base *h2_client_base(const struct h2_client *c);
/* "host:port" of c. */
const char *h2_client_authority(const struct h2_client *c);
/* Why the connection ended, in English ("" while it is up). */
const char *h2_client_last_error(const struct h2_client *c);

#endif
