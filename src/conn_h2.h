/*
 * conn_h2.h: an HTTP/2 server connection with prior knowledge (h2c,
 * RFC 9113 3.3) over nghttp2, driving the stream API of stream.h with
 * nghttp2's no-copy data path.  Created by the listener once the client
 * preface has been seen.
 */
#ifndef CONN_H2_H
#define CONN_H2_H

struct registry;
struct transport;

/*
 * Serves HTTP/2 on t, a connected transport (transport.h) whose
 * bufferevent input holds the client connection preface and possibly
 * more (read while sniffing).
 * Takes ownership of t on every path; the connection registers itself in
 * r and frees itself (and t) when it closes, or on registry_close_all.
 */
void conn_h2_new(struct registry *r, struct transport *t);

#endif
