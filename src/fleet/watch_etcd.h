/*
 * watch_etcd.h: the watchers' transport for --target etcd: each watcher
 * is a native etcd gRPC Watch call (etcdserverpb.Watch/Watch) with one
 * WatchCreateRequest (key = the resource's prefix, range_end its end,
 * start_revision = the watcher's last RV + 1, prev_kv = true), on h2c
 * connections shared as for ringwatch (watcher i on connection i mod C),
 * to an etcd or an etcd grpc-proxy.
 *
 * etcd cannot filter by field or label, so every watcher receives every
 * change of the prefix: each is counted as delivered
 * (watcher_wire_events), then the watcher's filter decides, with the
 * kube-apiserver's transition rules applied to the event's value and
 * prev_kv (filter_transition), whether it is relevant and as which type
 * (watcher_relevant_event).  Values are decoded once per change for all
 * watchers: a small direct-mapped cache keyed by (revision, key) holds the
 * decoded objects while the watchers work through the same changes.
 *
 * A watch canceled because its start revision was compacted is a 410;
 * the watcher would have to LIST, which this transport does not do: it
 * is terminated (watcher_terminate).  A call that ends otherwise is
 * resumed after a backoff from the last revision received.
 */
#ifndef FLEET_WATCH_ETCD_H
#define FLEET_WATCH_ETCD_H

#include <stddef.h>

#include "cache/resource_type.h"
#include "src/fleet/keys.h"

struct event_base;
struct fleet_dial;
struct watcher_set;
struct watch_etcd;

/* A transport for every watcher of ws (which must outlive it) to etcd
 * (d, borrowed) over `connections` (>= 1) connections, for resource type
 * rt, interning keys in keys.  Opens nothing until watch_etcd_kick. */
struct watch_etcd *watch_etcd_new(struct event_base *base,
                                  const struct fleet_dial *d,
                                  const struct resource_type *rt,
                                  struct keys *keys, struct watcher_set *ws,
                                  size_t connections);
/* Cancels every call and closes every connection (stop the set first).
 * NULL is a no-op. */
void watch_etcd_free(struct watch_etcd *t);

/* Starts the watch of every watcher that has none and is not waiting
 * out a backoff. */
void watch_etcd_kick(struct watch_etcd *t);

/* Connections established and open now. */
size_t watch_etcd_connections_open(const struct watch_etcd *t);

/* Bytes held by the transport (slots, cache entries' objects excluded). */
size_t watch_etcd_footprint(const struct watch_etcd *t);

#endif
