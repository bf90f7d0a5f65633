/*
 * conn_h1.h: an HTTP/1.x server connection (RFC 9112), driving the stream
 * API of stream.h: keep-alive, sequential pipelining, HTTP/1.0, HEAD,
 * chunked streamed bodies.  Created by the listener once sniffing has
 * ruled out HTTP/2 and TLS.
 */
#ifndef CONN_H1_H
#define CONN_H1_H

struct bufferevent;
struct listener;

/*
 * Serves HTTP/1.x on bev, a connected bufferevent whose input may already
 * hold the first bytes of the first request (read while sniffing).  Takes
 * ownership of bev on every path; the connection registers itself with l
 * and frees itself when it closes (or on listener_free).
 */
void conn_h1_new(struct listener *l, struct bufferevent *bev);

#endif
