/*
 * options.c: ringwatch-fleet's option table (see options.h).  Each entry's
 * default is what man/ringwatch-fleet.1 states as "Default: X." (NULL
 * strings read "none", flags "off").
 */
#include "src/fleet/options.h"

#include "cache/rw.h"

#define OFF(field) offsetof(struct fleet_config, field)

const struct option_spec options_specs[] = {
    {"server", OPT_STRING, OFF(server), 0, 0, "http://127.0.0.1:8080", "URL",
     "ringwatch (or any kube-apiserver-like server) to LIST and WATCH, "
     "http:// or https://; with --target etcd, the etcd or grpc-proxy to "
     "Watch"},
    {"cacert", OPT_STRING, OFF(cacert), 0, 0, NULL, "FILE",
     "PEM CA certificates that verify an https:// --server (default: the "
     "system's CA store)"},
    {"cert", OPT_STRING, OFF(cert), 0, 0, NULL, "FILE",
     "PEM client certificate presented to an https:// --server (with "
     "--key)"},
    {"key", OPT_STRING, OFF(key), 0, 0, NULL, "FILE",
     "PEM private key of --cert"},
    {"token", OPT_STRING, OFF(token), 0, 0, NULL, "TOKEN",
     "bearer token sent to --server with every request (Authorization: "
     "Bearer TOKEN)"},
    {"target", OPT_STRING, OFF(target), 0, 0, "ringwatch", "TARGET",
     "ringwatch (kube LIST and WATCH), etcd (native gRPC Watch streams) or "
     "redis (each watcher reads --redis's log with XREAD BLOCK)"},
    {"profile", OPT_STRING, OFF(profile), 0, 0, "controller", "PROFILE",
     "controller (all watch the selection), kubelet (one node each) or mix"},
    {"nodes", OPT_UINT, OFF(nodes), 0, 10000000, "0", "N",
     "nodes for kubelets and churn (0: one per kubelet watcher, at least 1)"},
    {"mix-controllers", OPT_UINT, OFF(mix_controllers), 0, 1000000, "10", "N",
     "watchers that are controllers with --profile mix (the rest kubelets)"},
    {"resource", OPT_STRING, OFF(resource), 0, 0, "pods", "RESOURCE",
     "resource type to watch, as ringwatch --resources spells it"},
    {"watchers", OPT_UINT, OFF(watchers), 1, 1000000, "100", "N",
     "watch streams to open"},
    {"connections", OPT_UINT, OFF(connections), 0, 1000000, "0", "C",
     "HTTP/2 connections the watchers share (0: one per 100 watchers)"},
    {"http1", OPT_FLAG, OFF(http1), 0, 0, NULL, NULL,
     "use HTTP/1.1, one connection per watcher, instead of HTTP/2"},
    {"label-selector", OPT_STRING, OFF(label_selector), 0, 0, NULL, "SELECTOR",
     "labelSelector of every LIST and WATCH"},
    {"field-selector", OPT_STRING, OFF(field_selector), 0, 0, NULL, "SELECTOR",
     "fieldSelector of every LIST and WATCH"},
    {"duration", OPT_SECONDS, OFF(duration), 0.1, 86400 * 7, "10", "SECONDS",
     "seconds of load (writes and watching) before the final checks"},
    {"watch-delay", OPT_SECONDS, OFF(watch_delay), 0, 3600, "0", "SECONDS",
     "seconds between the initial LIST and the first WATCH (writes go on)"},
    {"drain-timeout", OPT_SECONDS, OFF(drain_timeout), 0, 3600, "10", "SECONDS",
     "seconds to wait at the end for every watcher to catch up"},
    {"etcd", OPT_STRING, OFF(etcd), 0, 0, NULL, "URL",
     "etcd behind the server: oracle watch, writer and final state "
     "(http:// or https://)"},
    {"etcd-cacert", OPT_STRING, OFF(etcd_cacert), 0, 0, NULL, "FILE",
     "PEM CA certificates that verify an https:// --etcd (default: the "
     "system's CA store)"},
    {"etcd-cert", OPT_STRING, OFF(etcd_cert), 0, 0, NULL, "FILE",
     "PEM client certificate presented to an https:// --etcd (with "
     "--etcd-key)"},
    {"etcd-key", OPT_STRING, OFF(etcd_key), 0, 0, NULL, "FILE",
     "PEM private key of --etcd-cert"},
    {"redis", OPT_STRING, OFF(redis), 0, 0, NULL, "URL",
     "Redis behind the server, redis://HOST:PORT, in place of --etcd: "
     "oracle (its change log), writer (its functions) and final state"},
    {"redis-password-file", OPT_STRING, OFF(redis_password_file), 0, 0, NULL,
     "FILE", "file whose first line is --redis's password (AUTH)"},
    {"redis-revisions", OPT_STRING, OFF(redis_revisions), 0, 0, "global",
     "MODE", "global or per-resource: --redis's key layout, as ringwatch's"},
    {"redis-history", OPT_UINT, OFF(redis_history), 1, 1000000000, "10000",
     "EVENTS", "log length --redis's writes trim to (use ringwatch's)"},
    {"write-rate", OPT_UINT, OFF(write_rate), 0, 1000000, "0", "PER_SECOND",
     "updates per second written to etcd or Redis (needs --etcd or --redis)"},
    {"write-via", OPT_STRING, OFF(write_via), 0, 0, "store", "MODE",
     "store (writes straight to etcd or Redis) or server (Kubernetes PUT, "
     "POST and DELETE requests to --server)"},
    {"contention", OPT_UINT, OFF(contention), 1, 1000, "1", "K",
     "writers making each update at once from the same resourceVersion "
     "(needs --write-via server): 409 Conflicts, retried on conflict"},
    {"churn", OPT_FLAG, OFF(churn), 0, 0, NULL, NULL,
     "write pod churn (creates, updates, moves, deletes) instead of updates"},
    {"pods", OPT_UINT, OFF(pods), 1, 10000000, "1000", "N",
     "live pods --churn keeps (created before the initial LIST)"},
    {"move-fraction", OPT_STRING, OFF(move_fraction), 0, 0, "0.05", "FRACTION",
     "share of --churn updates that move a pod to another node"},
    {"seed", OPT_UINT, OFF(seed), 0, 4294967295.0, "1", "N",
     "random seed of --churn"},
    {"server-pid", OPT_UINT, OFF(server_pid), 0, 4194304, "0", "PID",
     "process id of the server, to report its CPU time and memory"},
    {"report", OPT_STRING, OFF(report), 0, 0, NULL, "FILE",
     "write the results as JSON to FILE"},
    {"log-level", OPT_STRING, OFF(log_level), 0, 0, "info", "LEVEL",
     "debug, info, warn or error"},
};
const size_t options_nspecs = RW_ARRAY_LEN(options_specs);
