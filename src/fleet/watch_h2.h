/*
 * watch_h2.h: carries the watchers' LIST and WATCH requests over HTTP/2
 * (src/h2_client.h; cleartext, or TLS for an https:// server, with the
 * bearer token of src/fleet/dial.h on every request): n watchers share C
 * connections, watcher i on connection i mod C, so streams are spread evenly.
 * Each watcher has at most one stream open; when it closes the watcher is asked
 * for its next request at once (on the same connection), or after its backoff.
 * A connection that fails is replaced when one of its watchers next
 * needs it.  Response bytes go to watcher_data as pointers into
 * nghttp2's receive buffer (no copy).
 */
#ifndef FLEET_WATCH_H2_H
#define FLEET_WATCH_H2_H

#include <stddef.h>

struct event_base;
struct fleet_dial;
struct watcher_set;
struct watch_h2;

/* A transport for every watcher of ws (which must outlive it), to the
 * server of d (borrowed) over `connections` (>= 1) connections.  Opens
 * nothing until watch_h2_kick. */
struct watch_h2 *watch_h2_new(struct event_base *base,
                              const struct fleet_dial *d,
                              struct watcher_set *ws, size_t connections);
/* Closes every connection (watchers get watcher_end(w, false); stop the
 * set first to keep that from counting).  NULL is a no-op. */
void watch_h2_free(struct watch_h2 *t);

/* Starts the next request of every watcher that has none in flight and
 * is not waiting out a backoff. */
void watch_h2_kick(struct watch_h2 *t);

/* Connections established and open now. */
size_t watch_h2_connections_open(const struct watch_h2 *t);

#endif
