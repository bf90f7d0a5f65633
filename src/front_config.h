/*
 * front_config.h: the serving front's settings (listener, registry,
 * conn_h1, conn_h2), as src/config.c parses them from the command line.
 * listener_config_defaults (listener.h) fills in the defaults.
 */
#ifndef FRONT_CONFIG_H
#define FRONT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "src/stream_types.h"

struct tls_server;

struct front_config {
    /* Open connections at most (sniffing, HTTP/1.x and HTTP/2 together);
     * a connection accepted beyond it is closed at once.  0: no limit. */
    unsigned max_connections;
    /* SETTINGS_MAX_CONCURRENT_STREAMS sent to HTTP/2 clients; a stream
     * beyond it is refused alone (RST_STREAM REFUSED_STREAM, RFC 9113
     * 5.1.2), the connection and its other streams carry on. */
    unsigned h2_max_concurrent_streams;
    /* Request line and headers at most, bytes (HTTP/2: the header list
     * size as RFC 9113 6.5.2 counts it); beyond: 431, or 414 when the
     * HTTP/1.x request line alone is longer. */
    size_t max_header_bytes;
    /* Seconds a connection may wait for its next request before it is
     * closed: an HTTP/1.x keep-alive connection once its last response
     * is flushed, a connection still being sniffed, an HTTP/2 connection
     * without streams (GOAWAY; counted from its last stream's end, PINGs
     * and SETTINGS do not extend it, as Go's http2 server).  Also how
     * long a connection without a request being answered may wait for the
     * client to read its output (no progress: closed).  0: no limit. */
    unsigned idle_timeout;
    /* Seconds a client has to send a complete request once it began one:
     * HTTP/1.x from the request's first byte to its end (request line,
     * headers and the body, stream_body), HTTP/2 from a HEADERS frame's
     * first byte to the end of its header block (END_HEADERS; a GET or
     * HEAD is dispatched then) and, for a request with a body, from the
     * end of the first header block still waiting for its body to that
     * body's END_STREAM, on a connection without another request being
     * answered; the HTTP/2 preface from its first byte.  Beyond it
     * the connection is closed (HTTP/1.x answers 408 first, HTTP/2 sends
     * GOAWAY).  Responses, streamed ones (a WATCH) included, are never cut
     * by it.  As kube-apiserver's ReadHeaderTimeout (Go net/http).  0: no
     * limit. */
    unsigned header_timeout;
    /* SO_SNDBUF of accepted sockets, bytes; 0 keeps the kernel's default
     * (autotuned). */
    int sndbuf;
    /* Bytes a connection's output may hold, not yet taken by the kernel,
     * before HTTP/2 stops producing frames (it resumes as soon as the
     * kernel takes enough) and HTTP/1.x stops reading pipelined requests
     * (resumed when the output falls to half of it). */
    size_t output_high_water;
    /* TLS on the same port (tls.h; not owned): a connection whose first
     * byte is a TLS handshake record is served over TLS, the handshake
     * due within header_timeout.  NULL: such a connection is closed. */
    struct tls_server *tls;
    /* With tls: whether plaintext connections are served too (a loopback
     * address, or --insecure-allow-plaintext); if not, they are answered
     * 400 "Client sent an HTTP request to an HTTPS server." and closed,
     * as Go's net/http (listener.h).  Without tls, plaintext is always
     * served. */
    bool tls_plaintext;
    /* Decides a request with a body before the body is read (NULL:
     * none; stream_types.h). */
    request_precheck_fn precheck;
    void *precheck_arg;
};

#endif
