/*
 * upstream_etcd.h: the etcd upstream adapter (src/upstream.h's
 * upstream_etcd_ops, for http:// URLs).  It keeps every target in step
 * with its key prefix in etcd, through the target's feed, over ONE HTTP/2
 * connection (src/h2_client.h) carrying one gRPC Watch stream per target
 * plus the unary calls (Range pages, Maintenance/Status, and the direct
 * reads of src/upstream_etcd_read.h).
 *
 * Per target, as kube-apiserver's reflector does against its storage:
 * a paged LIST of [prefix, prefix_end) at one revision R (the first page
 * at revision 0 fixes R from its header; every later page reads at R),
 * then a WATCH from R + 1 with prev_kv and progress notifications; on
 * reconnect the watch resumes from the feed's rv() + 1; if etcd compacted
 * past that revision, the target is relisted and the cache reconciles.
 * The prefix is the cache's (resource_type_ns_prefix): etcd's keys are
 * the kube-apiserver's layout.  See upstream_etcd.c for the protocol
 * details this relies on.
 */
#ifndef UPSTREAM_ETCD_H
#define UPSTREAM_ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/upstream.h"

struct event_base;
struct upstream_etcd;

/* The adapter, as the registry (src/upstream_registry.h) knows it. */
extern const struct upstream_ops upstream_etcd_ops;

struct upstream_etcd_config {
    size_t page_size;       /* keys per Range page; 0: 500 */
    double backoff_min;     /* seconds, first reconnect/retry delay; 0: 0.1 */
    double backoff_max;     /* seconds, cap of the growing delay; 0: 5 */
    double dial_timeout;    /* seconds to establish TCP; 0: 5 */
    double request_timeout; /* seconds per unary call (a Range page,
                               Status); 0: 60 */
    double keepalive;       /* seconds of silence before a PING, and to
                               wait for its answer; 0: 10; < 0: none */
};

/* Whether url is one upstream_etcd_new takes: http://HOST:PORT as
 * address_parse_url reads it.  RW_OK, or RW_EINVAL with why: https://
 * (TLS to etcd is not supported yet) or address_parse_url's words. */
int upstream_etcd_check(const char *url, char *why, size_t why_len);

/* An adapter for the etcd at url feeding the n targets (copied; their
 * ctx must outlive the adapter); every target's reader is set here.  cfg
 * may be NULL (defaults); it is copied.  Nothing happens before
 * upstream_etcd_start.  Returns NULL (and logs why) when
 * upstream_etcd_check refuses url. */
struct upstream_etcd *upstream_etcd_new(struct event_base *base,
                                        const char *url,
                                        const struct upstream_target *targets,
                                        size_t n,
                                        const struct upstream_etcd_config *cfg);

/* Connects and starts listing and watching every target; from then on
 * it reconnects by itself forever (jittered exponential backoff).  Returns
 * RW_OK (failures are retried, not returned). */
int upstream_etcd_start(struct upstream_etcd *u);

/* Cancels every call (an unfinished list gets its feed's list_abort),
 * sets every reader to NULL, closes the connection and frees u.  Not to
 * be called from inside a feed callback.  NULL is a no-op. */
void upstream_etcd_free(struct upstream_etcd *u);

/* Fills *st with the adapter's current state (store "etcd", version
 * from Maintenance/Status on this or the last connection). */
void upstream_etcd_status(const struct upstream_etcd *u,
                          struct upstream_status *st);

#endif
