/*
 * upstream_etcd.h: the etcd upstream adapter.  It keeps every served
 * resource in step with its key prefix in etcd, through the sink in
 * src/resource.h, over ONE HTTP/2 connection (src/h2_client.h) carrying
 * one gRPC Watch stream per resource plus the unary calls (Range pages,
 * Maintenance/Status).
 *
 * Per resource, as kube-apiserver's reflector does against its storage:
 * a paged LIST of [prefix, prefix_end) at one revision R (the first page
 * at revision 0 fixes R from its header; every later page reads at R),
 * then a WATCH from R + 1 with prev_kv and progress notifications; on
 * reconnect the watch resumes from resource_rv() + 1; if etcd compacted
 * past that revision, the resource is relisted and the cache reconciles.
 * See upstream_etcd.c for the protocol details this relies on.
 */
#ifndef UPSTREAM_ETCD_H
#define UPSTREAM_ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct resource;
struct upstream_etcd;

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

/* For /readyz and /metrics. */
struct upstream_etcd_status {
    bool connected;             /* the connection is up */
    const char *version;        /* etcd's version from Maintenance/Status on
                                   this or the last connection; "" unknown.
                                   Valid until the next event loop turn. */
    bool progress_request_safe; /* version >= 3.4.25 (etcd issue 15220):
                                   informational, never used */
    uint64_t connects;          /* connections established, the first
                                   included */
    uint64_t reconnects;        /* connections established after the first */
    uint64_t connect_failures;  /* connection attempts that failed */
    size_t watching;            /* resources whose watch is established */
    size_t resources;           /* resources served */
    const char *last_error;     /* why the connection last ended; "" none.
                                   Valid until the next event loop turn. */
};

/* An adapter for the etcd at url (http://HOST:PORT as address_parse_url
 * reads it; https is not supported) feeding the n resources (borrowed:
 * they must outlive the adapter; their prefixes are read here).  cfg may
 * be NULL (defaults); it is copied.  Nothing happens before
 * upstream_etcd_start.  Returns NULL (and logs why) when url is not of
 * that form. */
struct upstream_etcd *upstream_etcd_new(struct event_base *base,
                                        const char *url,
                                        struct resource *const *resources,
                                        size_t n,
                                        const struct upstream_etcd_config *cfg);

/* Connects and starts listing and watching every resource; from then on
 * it reconnects by itself forever (jittered exponential backoff).  Returns
 * 0 (failures are retried, not returned). */
int upstream_etcd_start(struct upstream_etcd *u);

/* Cancels every call (an unfinished list is aborted with
 * resource_list_abort), closes the connection and frees u.  Not to be
 * called from inside a resource sink function.  NULL is a no-op. */
void upstream_etcd_free(struct upstream_etcd *u);

/* Fills *st with the adapter's current state. */
void upstream_etcd_status(const struct upstream_etcd *u,
                          struct upstream_etcd_status *st);

#endif
