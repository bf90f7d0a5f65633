/*
 * main.c: ringwatch, the daemon.  Parses and checks the options (any
 * configuration error exits 2 before anything starts), builds one resource
 * per configured type, the upstream adapter that feeds them (chosen by
 * --upstream's scheme, src/upstream_registry.h), the router and
 * the listener, and runs the event loop until SIGINT or SIGTERM.  SIGHUP,
 * SIGUSR1 and SIGUSR2 are the operator's (signals.h).
 *
 * Graceful shutdown (SIGTERM, SIGINT): close the listening socket (new
 * clients are refused, as by Go's Server.Shutdown), end every watch at
 * an event boundary, keep serving until every response has left
 * ringwatch's buffers or --shutdown-grace is over (then the connections
 * still unfinished are cut, counted and logged).  Shutdown order then:
 * the listener first (every stream's on_close runs, so watchers leave
 * their resources), then the upstream (unfinished lists are aborted into
 * their resources), then the resources.
 */
#include <errno.h>
#include <event2/event.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/store.h"
#include "cache/watchcache.h"
#include "src/address.h"
#include "src/authn.h"
#include "src/authz.h"
#include "src/config.h"
#include "src/discovery.h"
#include "src/fairness.h"
#include "src/fdlimit.h"
#include "src/listener.h"
#include "src/log.h"
#include "src/resource.h"
#include "src/resource_feed.h"
#include "src/review.h"
#include "src/router.h"
#include "src/signals.h"
#include "src/tls.h"
#include "src/tls_server.h"
#include "src/transport.h"
#include "src/upstream.h"
#include "src/upstream_registry.h"
#include "src/watch.h"
#include "src/watch_authz.h"

/* Descriptors kept for everything but client connections: the upstream (and a
 * reconnect's overlap), the listener, the log file, standard streams, the
 * event loop's own, files read at runtime. */
#define DAEMON_FD_RESERVE 64

/* Seconds between checks of the TLS files for a change. */
#define DAEMON_TLS_WATCH_SECONDS 5

struct daemon {
    struct config cfg;
    struct event_base *base;
    struct config_resources served; /* from config_check */
    struct resource **resources;    /* one per served type */
    uint64_t max_connections; /* --max-connections, sized */
    const struct upstream_ops *upstream_ops; /* chosen by --upstream */
    struct upstream *upstream;
    struct discovery *discovery;
    struct fairness *fairness; /* NULL: --max-requests-inflight 0 */
    struct authn *authn; /* who each request is */
    struct authz *authz;
    struct router *router;
    struct listener *listener;
    struct tls_server *tls;  /* --tls-cert-file; NULL: plaintext only */
    struct event *tls_watch; /* re-reads changed TLS files */
    struct event *signals[2];
    struct signals *operator_signals; /* SIGHUP, SIGUSR1, SIGUSR2 */
    struct event *drain; /* graceful shutdown: polls for drained streams */
    struct event *grace; /* graceful shutdown: its end */
    uint64_t connections_cut; /* closed unfinished by the shutdown */
    int status;               /* the exit status */
    bool finished;            /* every response finished */
};

/* Raises the descriptor limit to the hard limit and sizes the number of
 * client connections from it: all it leaves beyond DAEMON_FD_RESERVE by
 * default, and at most that when --max-connections asks for more. */
static void daemon_size_connections(struct daemon *d)
{
    uint64_t limit = fdlimit_raise(), fit;

    fit = limit > DAEMON_FD_RESERVE * 2 ? limit - DAEMON_FD_RESERVE
                                        : limit / 2;
    fit = RW_MIN(fit, (uint64_t)CONFIG_MAX_CONNECTIONS);
    d->max_connections = d->cfg.max_connections ? d->cfg.max_connections : fit;
    if (d->max_connections > fit) {
        log_warnx("--max-connections %" PRIu64 " does not fit the descriptor "
                  "limit %" PRIu64
                  " (%d kept for the upstream, the listener and "
                  "the log): serving at most %" PRIu64 " connections",
                  d->max_connections, limit, DAEMON_FD_RESERVE, fit);
        d->max_connections = fit;
    }
}

static void daemon_stats_cb(struct metrics_global *g, void *arg)
{
    struct daemon *d = arg;
    struct listener_stats ls;
    struct upstream_status us;

    listener_stats(d->listener, &ls);
    d->upstream_ops->status(d->upstream, &us);
    g->connections[0] = ls.connections_h1;
    g->connections[1] = ls.connections_h2;
    g->upstream_store = us.store;
    g->upstream_connected = us.connected;
    g->upstream_version = us.version;
    g->upstream_connects = us.connects;
    g->upstream_connect_failures = us.connect_failures;
    g->upstream_malformed = us.malformed;
    g->upstream_tls_error = us.tls_error;
    g->shutdown_connections_cut = d->connections_cut;
    g->tls = d->tls != NULL ? tls_stats() : NULL;
}

/* Graceful shutdown: done when every response has finished, that is
 * when its last byte has left ringwatch's buffers (not when it was
 * queued: a slow reader still has its events coming), or when the grace
 * period is over. */
static void daemon_drain_cb(evutil_socket_t fd, short what, void *arg)
{
    struct daemon *d = arg;
    struct listener_stats ls;

    listener_stats(d->listener, &ls);
    if (ls.connections_unfinished == 0 && !d->finished) {
        d->finished = true;
        log_info("shutdown: every response finished");
    }
    /* and every connection closed, after the client read the last byte */
    if (ls.connections_h1 + ls.connections_h2 + ls.connections_sniffing == 0)
        event_base_loopbreak(d->base);
}

/* Closes the connections still unfinished (counted, logged); the loop
 * ends, and listener_free closes them. */
static void daemon_cut(struct daemon *d, const char *why)
{
    struct listener_stats ls;

    listener_stats(d->listener, &ls);
    d->connections_cut += ls.connections_unfinished;
    log_info("shutdown: %s: %" PRIu64 " connections cut with a response "
             "unfinished (%" PRIu64 " streams open, %" PRIu64
             " bytes unsent)",
             why, ls.connections_unfinished, ls.streams_h1 + ls.streams_h2,
             ls.bytes_unsent);
    event_base_loopbreak(d->base);
}

static void daemon_grace_cb(evutil_socket_t fd, short what, void *arg)
{
    daemon_cut(arg, "grace period over");
}

static void daemon_signal_cb(evutil_socket_t sig, short what, void *arg)
{
    struct daemon *d = arg;
    struct timeval tick = {0, 20000};
    struct timeval grace = rw_timeval(d->cfg.shutdown_grace);

    if (d->drain != NULL) {
        daemon_cut(d, strsignal((int)sig));
        return;
    }
    log_info("%s: shutting down: ending every watch, %.0f s to drain",
             strsignal((int)sig), d->cfg.shutdown_grace);
    listener_drain(d->listener);
    router_shutting_down(d->router);
    for (size_t i = 0; i < d->served.n; i++)
        watch_set_end_all(watch_set_of(d->resources[i]));
    d->drain = event_new(d->base, -1, EV_PERSIST, daemon_drain_cb, d);
    event_add(d->drain, &tick);
    d->grace = evtimer_new(d->base, daemon_grace_cb, d);
    evtimer_add(d->grace, &grace);
}

/* SIGHUP: the log file, when there is one, is reopened (log rotation). */
static int daemon_reload_log_cb(void *arg, char *done, size_t done_len)
{
    if (log_reopen() != RW_OK) {
        snprintf(done, done_len, "cannot reopen %s: %s", log_path(),
                 strerror(errno));
        return RW_EIO;
    }
    snprintf(done, done_len, "%s reopened", log_path());
    return RW_OK;
}

/* SIGHUP (and a change of the files): the TLS certificate, key and
 * client CA re-read; new connections use them, open ones keep theirs. */
static int daemon_reload_tls_cb(void *arg, char *done, size_t done_len)
{
    struct daemon *d = arg;

    if (tls_server_reload(d->tls, done, done_len) != RW_OK)
        return RW_EINVAL;
    snprintf(done, done_len, "%s reloaded", d->cfg.tls_cert_file);
    return RW_OK;
}

static void daemon_tls_watch_cb(evutil_socket_t fd, short what, void *arg)
{
    struct daemon *d = arg;
    char why[512];

    if (!tls_server_files_changed(d->tls))
        return;
    if (daemon_reload_tls_cb(d, why, sizeof(why)) == RW_OK)
        log_info("TLS: files changed: %s", why);
    else
        log_warnx("TLS: files changed, keeping the old certificate: %s", why);
}

/* TLS on the listening port when configured; exits 2 on a bad file, as
 * any configuration error. */
static void daemon_tls(struct daemon *d, const struct config_program *prog)
{
    struct tls_server_config tc = {.cert_file = d->cfg.tls_cert_file,
                                   .key_file = d->cfg.tls_key_file,
                                   .client_ca_file = d->cfg.client_ca_file};
    struct timeval every = {DAEMON_TLS_WATCH_SECONDS, 0};
    char why[512];
    int version;

    if (d->cfg.tls_cert_file == NULL)
        return;
    config_tls_min_version(d->cfg.tls_min_version, &version, why, sizeof(why));
    tc.min_version = (enum tls_version)version;
    d->tls = tls_server_new(&tc, why, sizeof(why));
    if (d->tls == NULL)
        exit(config_usage_error(prog, why));
    if (tls_ktls_available(why, sizeof(why)))
        log_info("TLS: kTLS available: records of the connections that can "
                 "use it are encrypted by the kernel");
    else
        log_info("TLS: kTLS unavailable (%s): OpenSSL encrypts", why);
    signals_on_reload(d->operator_signals, "TLS certificates",
                      daemon_reload_tls_cb, d);
    d->tls_watch = event_new(d->base, -1, EV_PERSIST, daemon_tls_watch_cb, d);
    event_add(d->tls_watch, &every);
}

/* SIGUSR1: upstream, connections, and per resource its revision, objects
 * and watchers, on one line. */
static void daemon_state_cb(struct sbuf *line, void *arg)
{
    struct daemon *d = arg;
    struct listener_stats ls;
    struct upstream_status us;

    listener_stats(d->listener, &ls);
    d->upstream_ops->status(d->upstream, &us);
    sbuf_addf(line,
              "upstream %s %s %s; connections %" PRIu64 " (h1 %" PRIu64
              ", h2 %" PRIu64 ", limit %" PRIu64 "); requests %" PRIu64,
              us.store, d->cfg.upstream,
              us.connected ? "connected" : "disconnected",
              ls.connections_h1 + ls.connections_h2 + ls.connections_sniffing,
              ls.connections_h1, ls.connections_h2, d->max_connections,
              ls.streams_h1 + ls.streams_h2);
    for (size_t i = 0; i < d->served.n; i++) {
        struct resource *r = d->resources[i];
        struct watch_set *ws = watch_set_of(r);

        sbuf_addf(line, "; %s %s rv %" PRId64 " objects %zu watchers %zu",
                  resource_type(r)->resource,
                  resource_ready(r) ? "ready" : "listing", resource_rv(r),
                  store_count(watchcache_store(resource_cache(r))),
                  watch_set_count(ws, 0) + watch_set_count(ws, 1));
    }
}

/* The upstream cannot work as configured (upstream_config's fatal): the
 * daemon exits with status 1. */
static void daemon_upstream_fatal_cb(const char *why, void *arg)
{
    struct daemon *d = arg;

    log_error("upstream %s: %s: exiting (see ringwatch(8): TLS to etcd, "
              "the Redis store)",
              d->cfg.upstream, why);
    d->status = 1;
    event_base_loopbreak(d->base);
}

/* Discovery of the served types and the reviews (review.h). */
static struct discovery *daemon_discovery(struct daemon *d)
{
    size_t nreview, n = d->served.n;
    const struct resource_type *const *review = review_types(&nreview);
    const struct resource_type **all = xcalloc(n + nreview, sizeof(*all));
    struct discovery *disc;

    memcpy(all, d->served.types, n * sizeof(*all));
    memcpy(all + n, review, nreview * sizeof(*all));
    disc = discovery_new(all, n + nreview, d->cfg.listen);
    free(all);
    return disc;
}

/* The authenticator from the authentication options: a bad token file
 * or key file ends the process (status 2) before anything is served.
 * Pod-bound service-account tokens are checked against the pods
 * resource's cache when pods are served. */
static void daemon_authn(struct daemon *d)
{
    struct authn_config ac = {
        .anonymous = d->cfg.anonymous_auth,
        .token_file = d->cfg.token_auth_file,
        .key_files = d->cfg.service_account_key_files.v,
        .nkey_files = d->cfg.service_account_key_files.n,
        .issuers = d->cfg.service_account_issuers.v,
        .nissuers = d->cfg.service_account_issuers.n,
        .audiences = d->cfg.api_audiences.v,
        .naudiences = d->cfg.api_audiences.n,
    };
    char why[1024];

    for (size_t i = 0; i < d->served.n; i++) {
        const struct resource_type *t = d->served.types[i];

        if (*t->group == '\0' && strcmp(t->resource, "pods") == 0) {
            ac.pod_exists = authn_pod_in_cache;
            ac.pod_arg = d->resources[i];
        }
    }
    if (ac.nissuers > 0 && ac.pod_exists == NULL)
        log_warnx("pods are not served (--resources): service-account "
                  "tokens bound to a pod will be refused, since ringwatch "
                  "cannot see whether the pod still exists");
    d->authn = authn_new(&ac, why, sizeof(why));
    if (d->authn == NULL) {
        fprintf(stderr, "ringwatch: %s\n", why);
        exit(2);
    }
}

/* RBAC changed: the watches whose users lost access end. */
static void daemon_rbac_changed_cb(void *arg)
{
    struct daemon *d = arg;

    watch_authz_recheck(d->resources, d->served.n);
}

/* The authorizer of --authorization-mode; with RBAC, over the served RBAC
 * types (config_check added them). */
static struct authz *daemon_authz(struct daemon *d)
{
    static const char *const kinds[] = {"roles", "rolebindings",
                                        "clusterroles", "clusterrolebindings"};
    struct resource *rbac[RW_ARRAY_LEN(kinds)] = {NULL};
    struct authz *z;

    if (!(d->served.authz_modes & AUTHZ_RBAC))
        return authz_new(d->served.authz_modes, NULL);
    for (size_t k = 0; k < RW_ARRAY_LEN(kinds); k++)
        for (size_t i = 0; i < d->served.n; i++)
            if (strcmp(d->served.types[i]->group,
                       "rbac.authorization.k8s.io") == 0 &&
                strcmp(d->served.types[i]->resource, kinds[k]) == 0)
                rbac[k] = d->resources[i];
    z = authz_new(d->served.authz_modes, rbac);
    authz_on_change(z, daemon_rbac_changed_cb, d);
    return z;
}

static void daemon_start(struct daemon *d)
{
    struct resource_config rc = {
        .ring_events = d->cfg.ring_capacity,
        .ring_bytes = d->cfg.ring_bytes,
        .bookmark_interval = d->cfg.bookmark_interval,
    };
    struct watch_limits wl = {
        .high_water = d->cfg.watch_high_water,
        .min_request_timeout = d->cfg.min_request_timeout,
    };
    struct upstream_config uc = {
        .page_size = d->cfg.list_page_size,
        .tls_ca_file = d->cfg.etcd_cafile,
        .tls_cert_file = d->cfg.etcd_certfile,
        .tls_key_file = d->cfg.etcd_keyfile,
        .fatal = daemon_upstream_fatal_cb,
        .fatal_arg = d,
        .progress_interval = d->cfg.bookmark_interval,
        .redis_per_resource =
            strcmp(d->cfg.redis_revisions, "per-resource") == 0,
        .redis_history = (int64_t)d->cfg.redis_history,
    };
    struct upstream_target *targets;
    char *password;
    struct front_config fc;
    char why[160];

    d->resources = xcalloc(d->served.n, sizeof(*d->resources));
    targets = xcalloc(d->served.n ? d->served.n : 1, sizeof(*targets));
    for (size_t i = 0; i < d->served.n; i++) {
        d->resources[i] = resource_new(d->base, d->served.types[i], &rc);
        wl.indexed_field = d->served.indexed_field[i];
        watch_set_new(d->resources[i], &wl);
        targets[i] = (struct upstream_target){d->served.types[i],
                                              &resource_feed, d->resources[i]};
    }
    /* config_check read the URL */
    d->upstream_ops = upstream_registry_find(d->cfg.upstream, why, sizeof(why));
    rw_assert(d->upstream_ops != NULL);
    /* config_check read the file too; a file gone since fails here */
    password = config_redis_password(&d->cfg, why, sizeof(why));
    if (password == NULL && d->cfg.redis_password_file != NULL)
        log_fatalx("%s", why);
    uc.redis_password = password;
    d->upstream = d->upstream_ops->create(d->base, d->cfg.upstream, targets,
                                          d->served.n, &uc);
    rw_assert(d->upstream != NULL);
    free(password);
    free(targets);
    d->discovery = daemon_discovery(d);
    if (d->cfg.max_requests_inflight > 0) {
        struct fairness_config fcfg;

        fairness_config_defaults(&fcfg);
        fcfg.seats = (unsigned)d->cfg.max_requests_inflight;
        d->fairness = fairness_new(d->base, &fcfg);
    }
    daemon_authn(d);
    d->authz = daemon_authz(d);
    d->router =
        router_new(&(struct router_config){.resources = d->resources,
                                           .n = d->served.n,
                                           .discovery = d->discovery,
                                           .stats = daemon_stats_cb,
                                           .stats_arg = d,
                                           .authn = d->authn,
                                           .authz = d->authz,
                                           .fairness = d->fairness});

    listener_config_defaults(&fc);
    fc.max_connections = (unsigned)d->max_connections;
    fc.h2_max_concurrent_streams = (unsigned)d->cfg.h2_max_streams;
    fc.sndbuf = (int)d->cfg.sndbuf;
    fc.header_timeout = (unsigned)ceil(d->cfg.header_timeout);
    fc.idle_timeout = (unsigned)ceil(d->cfg.idle_timeout);
    fc.tls = d->tls;
    fc.tls_plaintext =
        d->cfg.insecure_allow_plaintext || d->served.listen_loopback;
    fc.precheck = router_precheck;
    fc.precheck_arg = d->router;
    d->listener =
        listener_new(d->base, d->cfg.listen, &fc, router_handle, d->router);
    if (d->listener == NULL)
        exit(1); /* it logged why: the address is in use, say */
    log_info("serving %zu resource types on %s (port %d, %s, at most %" PRIu64
             " connections), upstream %s, authorization %s",
             d->served.n, d->cfg.listen, listener_port(d->listener),
             d->tls == NULL        ? "plaintext"
             : fc.tls_plaintext ? "TLS and plaintext"
                                : "TLS",
             d->max_connections, d->cfg.upstream,
             d->served.authz_modes == AUTHZ_RBAC ? "RBAC"
             : d->served.authz_modes & AUTHZ_RBAC
                 ? "RBAC,AlwaysAllow (everything allowed)"
                 : "AlwaysAllow (everything allowed)");
    d->upstream_ops->start(d->upstream);
}

static void daemon_stop(struct daemon *d)
{
    signals_free(d->operator_signals);
    listener_free(d->listener);
    if (d->tls_watch != NULL)
        event_free(d->tls_watch);
    tls_server_free(d->tls);
    d->upstream_ops->free(d->upstream);
    router_free(d->router);
    fairness_free(d->fairness); /* after the listener's streams */
    authn_free(d->authn);
    authz_free(d->authz);
    discovery_free(d->discovery);
    for (size_t i = 0; i < d->served.n; i++) {
        watch_set_free(watch_set_of(d->resources[i]));
        resource_free(d->resources[i]);
    }
    for (size_t i = 0; i < RW_ARRAY_LEN(d->signals); i++)
        event_free(d->signals[i]);
    if (d->drain != NULL) {
        event_free(d->drain);
        event_free(d->grace);
    }
    transport_base_free(d->base); /* runs what libevent still owes */
    free(d->resources);
    config_resources_fini(&d->served);
}

int main(int argc, char **argv)
{
    struct daemon d = {0};
    const struct config_program prog = {
        "ringwatch", "[options]", "ringwatch " PACKAGE_VERSION,
        config_options, config_noptions};
    char why[1024];
    int status, level;

    signals_ignore();
    if (config_program_parse(&prog, &d.cfg, argc, argv, &status) != RW_OK)
        return status;
    if (config_check(&d.cfg, &d.served, why, sizeof(why)) != RW_OK)
        return config_usage_error(&prog, why);
    config_log_level(d.cfg.log_level, &level, why, sizeof(why));
    log_init(level, "ringwatch");
    if (d.cfg.log_file != NULL && log_open(d.cfg.log_file) != RW_OK) {
        fprintf(stderr, "ringwatch: --log-file %s: %s\n", d.cfg.log_file,
                strerror(errno));
        config_resources_fini(&d.served);
        return 1;
    }
    srandom((unsigned)time(NULL) ^ (unsigned)getpid());
    daemon_size_connections(&d);

    d.base = event_base_new();
    if (d.base == NULL)
        log_fatalx("cannot create the event loop");
    d.signals[0] = evsignal_new(d.base, SIGINT, daemon_signal_cb, &d);
    d.signals[1] = evsignal_new(d.base, SIGTERM, daemon_signal_cb, &d);
    event_add(d.signals[0], NULL);
    event_add(d.signals[1], NULL);

    d.operator_signals = signals_new(d.base, daemon_state_cb, &d);
    if (d.cfg.log_file != NULL)
        signals_on_reload(d.operator_signals, "log file", daemon_reload_log_cb,
                          &d);
    daemon_tls(&d, &prog);
    daemon_start(&d);
    event_base_dispatch(d.base);
    daemon_stop(&d);
    return d.status;
}
