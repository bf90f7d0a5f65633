/*
 * conn_h1.h: an HTTP/1.x server connection (RFC 9112), driving the stream
 * API of stream.h: keep-alive, sequential pipelining, HTTP/1.0, HEAD,
 * chunked streamed bodies.  Created by the listener once sniffing has
 * ruled out HTTP/2 and TLS.
 */
#ifndef CONN_H1_H
#define CONN_H1_H

struct registry;
struct transport;

/*
 * Serves HTTP/1.x on t, a connected transport (transport.h) whose
 * bufferevent input may already hold the first bytes of the first request (read
 * while sniffing). Takes ownership of t on every path; the connection registers
 * itself in r and frees itself (and t) when it closes, or on
 * registry_close_all.
 */
void conn_h1_new(struct registry *r, struct transport *t);

#endif
