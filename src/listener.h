/*
 * listener.h: one listening address of the serving front.
 *
 * A listener accepts TCP connections on one loopback or configured
 * address, sniffs each connection's first bytes and hands it to conn_h1
 * or conn_h2, which turn requests into streams (stream.h) for the one
 * request handler.  It keeps the list of its connections so that it can
 * close them all, and counts them for /metrics.
 *
 * Sniffing, in order:
 *  - with TLS configured (front_config.tls), the first byte, peeked at on
 *    the socket: 0x16 (a TLS handshake record: a ClientHello) starts TLS,
 *    the handshake due within header_timeout; after it, ALPN "h2" goes to
 *    conn_h2, "http/1.1" or none to the plaintext sniff below (over TLS).
 *    A failed handshake (garbage, an unknown ALPN, a version below
 *    --tls-min-version) closes the connection after OpenSSL's alert.  Any
 *    other first byte is plaintext: sniffed below when plaintext is
 *    served next to TLS (tls_plaintext), else treated as Go's net/http
 *    does: when its first 5 bytes look like an HTTP/1.x request ("GET /",
 *    "HEAD ", "POST ", "PUT /", "OPTIO") it gets "HTTP/1.0 400 Bad
 *    Request" with "Client sent an HTTP request to an HTTPS server.", and
 *    is closed (2 s after its first byte at the latest, however slowly
 *    the client sends or reads); anything else is closed at once.
 *  - the plaintext: the HTTP/2 client preface
 *    "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" means HTTP/2 with prior
 *    knowledge, anything else HTTP/1.x; without TLS configured, a first
 *    byte 0x16 (a ClientHello) is closed at once.
 */
#ifndef LISTENER_H
#define LISTENER_H

#include <stddef.h>
#include <stdint.h>

#include "src/front_config.h"
#include "src/stream.h"

struct event_base;
struct listener;
struct transport;

/* Defaults for cfg: max_connections 10000, h2_max_concurrent_streams
 * 1000, max_header_bytes 65536, idle_timeout 90 (as Go's net/http server
 * under kube-apiserver), header_timeout 32 (kube-apiserver's
 * ReadHeaderTimeout), sndbuf 0, output_high_water 131072. */
void listener_config_defaults(struct front_config *cfg);

/*
 * Listens on address, "127.0.0.1:8080" or "[::1]:8080" (port 0: the
 * kernel picks one; see listener_port), with SO_REUSEADDR, and serves
 * every complete request by calling handler(stream, arg) from base's loop.
 * cfg is copied.  Returns NULL (after logging why) if the address does not
 * parse or cannot be bound.
 */
struct listener *listener_new(struct event_base *base, const char *address,
                              const struct front_config *cfg,
                              request_handler_fn handler, void *arg);

/* Closes the listening socket and every connection, those already closing
 * included, at once: each open stream gets its on_close (exactly once),
 * queued output is dropped and its buffer references released.  Needs no
 * further run of the loop: after a loopbreak, listener_free then
 * transport_base_free free everything (transport.h: libevent frees a
 * bufferevent's last bytes there).  Must not be called from inside a stream
 * callback or the request handler.  NULL is a no-op. */
void listener_free(struct listener *l);

/* Stops accepting connections, for a graceful shutdown: closes the
 * listening socket, so that a client connecting from now on is refused
 * at once (ECONNREFUSED) and tries another replica, as Go's
 * Server.Shutdown closes its listeners first (connections the kernel
 * completed but ringwatch had not accepted yet are reset).  The open
 * ones carry on until listener_free; listener_port still tells the port
 * it had. */
void listener_stop_accepting(struct listener *l);

/*
 * Graceful shutdown: stops accepting (listener_stop_accepting), and from
 * now on every connection closes once it has no response left to
 * finish: HTTP/1.x after its current response (keep-alive ends; an idle
 * one at once), HTTP/2 after a GOAWAY (NO_ERROR, the last stream it
 * took) once its streams are done, as Go's http.Server.Shutdown.  Each
 * flushes its output, then
 * shuts down its write side and reads until the client closes (a couple
 * of seconds at most), so that the client reads every byte and not a
 * reset.  listener_stats tells the progress (connections_unfinished,
 * then no connections at all).
 */
void listener_drain(struct listener *l);

/* Starts serving t (a connected transport, transport.h; in tests, one
 * over an end of a bufferevent pair) as if accepted: sniffs the
 * protocol, then hands t to conn_h1 or conn_h2.  Takes ownership of t on
 * every path. */
void listener_adopt(struct listener *l, struct transport *t);

/* Starts serving fd, an accepted socket, as if accepted on l: its socket
 * options, then the sniffing above.  Takes ownership of fd. */
void listener_adopt_socket(struct listener *l, int fd);

/* Closes every connection at once, those already closing included; each
 * open stream gets its on_close (listener_free without closing the
 * listening socket).  Not from inside a callback of the front. */
void listener_close_connections(struct listener *l);

/* The bound port (useful after port 0), host byte order. */
int listener_port(const struct listener *l);

struct listener_stats {
    uint64_t connections_sniffing; /* open, protocol not known yet */
    uint64_t connections_h1;       /* open HTTP/1.x connections */
    uint64_t connections_h2;       /* open HTTP/2 connections */
    uint64_t streams_h1;           /* requests being answered, HTTP/1.x */
    uint64_t streams_h2;           /* open HTTP/2 streams */
    uint64_t connections_total;    /* accepted since listener_new */
    uint64_t connections_rejected; /* closed at accept: max_connections */
    uint64_t streams_h1_total;     /* requests since listener_new */
    uint64_t streams_h2_total;     /* streams since listener_new */
    /* open connections with a response left to finish (a stream open, or
     * output queued in ringwatch that the kernel has not taken yet), and
     * the bytes they have queued */
    uint64_t connections_unfinished;
    uint64_t bytes_unsent;
};

/* A snapshot of l's counters. */
void listener_stats(const struct listener *l, struct listener_stats *out);

#endif
