/*
 * links.h: the fleet's HTTP/2 client connections to one server, a fixed
 * number of them, that a transport spreads its streams over (watch_h2:
 * kube watches; watch_etcd: etcd gRPC Watch calls).  A link holds at most
 * one h2c at a time; a connection that ends is freed here and the next
 * links_get opens another, so transports only ever ask for link i.
 */
#ifndef FLEET_LINKS_H
#define FLEET_LINKS_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct fleet_dial;
struct h2_client;
struct links;

/* n (>= 1) links to the server of d (borrowed: it must outlive ls);
 * `what` names them in the log ("h2", "etcd"; static).  Nothing connects
 * before links_get. */
struct links *links_new(struct event_base *base, const struct fleet_dial *d,
                        size_t n, const char *what);
/* Frees every connection (their streams close first, with their
 * callbacks), then ls.  NULL is a no-op. */
void links_free(struct links *ls);

/* Link i's connection: the current one, or a new one (connecting) when
 * there is none or the current one no longer takes streams (after a
 * GOAWAY it finishes its streams by itself).  Never NULL. */
struct h2_client *links_get(struct links *ls, size_t i);
/* Link i refused a new stream although it looked open: forget its
 * connection, so that links_get opens another.  Returns whether there was
 * one to forget (worth one more try). */
bool links_drop(struct links *ls, size_t i);

/* Connections established and not yet ended. */
size_t links_open(const struct links *ls);
/* Bytes of the links' own bookkeeping (not the connections'). */
size_t links_footprint(const struct links *ls);

#endif
