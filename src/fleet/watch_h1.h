/*
 * watch_h1.h: carries the watchers' LIST and WATCH requests over
 * HTTP/1.1 (over TLS for an https:// server: src/fleet/dial.h), one
 * connection per watcher, as informers built on Go's
 * net/http or the Python and JavaScript clients do.  A small client on a
 * libevent bufferevent, with Debian's http-parser decoding the response
 * (chunked watch streams, Content-Length LISTs); keep-alive connections
 * carry the watcher's next request.  Body bytes go to watcher_data as
 * pointers into the bufferevent's input (no copy).
 *
 * Each watcher holds a socket: watch_h1_new raises RLIMIT_NOFILE to its
 * hard limit when the watchers need more descriptors than the soft limit.
 */
#ifndef FLEET_WATCH_H1_H
#define FLEET_WATCH_H1_H

#include <stddef.h>

struct event_base;
struct fleet_dial;
struct watcher_set;
struct watch_h1;

/* A transport for every watcher of ws (which must outlive it) to the
 * server of d (borrowed), with d's Authorization on every request.
 * Returns NULL (logged) when its host does not resolve. */
struct watch_h1 *watch_h1_new(struct event_base *base,
                              const struct fleet_dial *d,
                              struct watcher_set *ws);
/* Closes every connection; no watcher callback runs.  NULL is a no-op. */
void watch_h1_free(struct watch_h1 *t);

/* Starts the next request of every watcher that has none in flight and
 * is not waiting out a backoff. */
void watch_h1_kick(struct watch_h1 *t);

/* Connections established and open now. */
size_t watch_h1_connections_open(const struct watch_h1 *t);

#endif
