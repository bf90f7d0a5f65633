/*
 * conn_h2.h: an HTTP/2 server connection with prior knowledge (h2c,
 * RFC 9113 3.3) over nghttp2, driving the stream API of stream.h with
 * nghttp2's no-copy data path.  Created by the listener once the client
 * preface has been seen.
 */
#ifndef CONN_H2_H
#define CONN_H2_H

struct bufferevent;
struct listener;

/*
 * Serves HTTP/2 on bev, a connected bufferevent whose input holds the
 * client connection preface and possibly more (read while sniffing).
 * Takes ownership of bev on every path; the connection registers itself
 * with l and frees itself when it closes (or on listener_free).
 */
void conn_h2_new(struct listener *l, struct bufferevent *bev);

#endif
