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

struct upstream_ops;

/* The adapter (src/upstream.h), as the registry (src/upstream_registry.h)
 * knows it: store "etcd", a list of member URLs, all http:// or all
 * https:// (src/upstream_members.h; TLS: src/upstream_etcd_tls.h).  Its
 * status's version is etcd's, from Maintenance/Status on this or the last
 * connection. */
extern const struct upstream_ops upstream_etcd_ops;

#endif
