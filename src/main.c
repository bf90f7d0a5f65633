/*
 * main.c: ringwatch, the daemon.  Parses the options, builds one resource
 * per configured type, the etcd upstream that feeds them, the router and
 * the listener, and runs the event loop until SIGINT or SIGTERM.
 *
 * Graceful shutdown (SIGTERM, SIGINT): stop accepting, end every watch at
 * an event boundary, keep serving until every response has left
 * ringwatch's buffers or --shutdown-grace is over (then the connections
 * still unfinished are cut, counted and logged).  Shutdown order then:
 * the listener first (every stream's on_close runs, so watchers leave
 * their resources), then the upstream (unfinished lists are aborted into
 * their resources), then the resources.
 */
#include <event2/event.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "config.h"
#include "discovery.h"
#include "listener.h"
#include "log.h"
#include "resource.h"
#include "router.h"
#include "upstream_etcd.h"
#include "watch.h"

struct daemon {
    struct config cfg;
    struct event_base *base;
    const struct resource_type **types;
    struct resource **resources;
    size_t n;
    struct upstream_etcd *upstream;
    struct discovery *discovery;
    struct router *router;
    struct listener *listener;
    struct event *signals[2];
    struct event *drain; /* graceful shutdown: polls for drained streams */
    struct event *grace; /* graceful shutdown: its end */
    uint64_t connections_cut; /* closed unfinished by the shutdown */
    bool finished;            /* every response finished */
};

/* Resolves --resources into types; exits with a clear message on an
 * unknown or repeated type. */
static void daemon_resolve_types(struct daemon *d)
{
    char *list = xstrdup(d->cfg.resources), *save = NULL;

    for (char *tok = strtok_r(list, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        const struct resource_type *rt;

        while (*tok == ' ')
            tok++;
        if (*tok == '\0')
            continue;
        if ((rt = resource_type_find(tok)) == NULL)
            log_fatalx("--resources: unknown resource type \"%s\" (see "
                       "ringwatch(8) for the known types)",
                       tok);
        for (size_t i = 0; i < d->n; i++)
            if (d->types[i] == rt)
                log_fatalx("--resources: \"%s\" given twice", tok);
        d->types = xrealloc(d->types, (d->n + 1) * sizeof(*d->types));
        d->types[d->n++] = rt;
    }
    free(list);
    if (d->n == 0)
        log_fatalx("--resources: no resource type given");
}

/* Raises the descriptor limit so that --max-connections can be reached:
 * one per client connection, plus the upstream and the listener. */
static void daemon_raise_nofile(uint64_t connections)
{
    struct rlimit rl;
    rlim_t want = (rlim_t)connections + 64;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
        return;
    rl.rlim_cur =
        rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
        log_warn("setrlimit(RLIMIT_NOFILE, %llu)",
                 (unsigned long long)rl.rlim_cur);
    if (rl.rlim_cur < want)
        log_warnx("descriptor limit %llu allows fewer than --max-connections "
                  "%llu connections",
                  (unsigned long long)rl.rlim_cur,
                  (unsigned long long)connections);
}

static void daemon_stats_cb(struct metrics_global *g, void *arg)
{
    struct daemon *d = arg;
    struct listener_stats ls;
    struct upstream_etcd_status us;

    listener_stats(d->listener, &ls);
    upstream_etcd_status(d->upstream, &us);
    g->connections[0] = ls.connections_h1;
    g->connections[1] = ls.connections_h2;
    g->upstream_connected = us.connected;
    g->upstream_version = us.version;
    g->upstream_reconnects = us.reconnects;
    g->shutdown_connections_cut = d->connections_cut;
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
    for (size_t i = 0; i < d->n; i++)
        watch_set_end_all(resource_watch_set(d->resources[i]));
    d->drain = event_new(d->base, -1, EV_PERSIST, daemon_drain_cb, d);
    event_add(d->drain, &tick);
    d->grace = evtimer_new(d->base, daemon_grace_cb, d);
    evtimer_add(d->grace, &grace);
}

/* The --index-fields entry for type rt: an index into its fields[], or -1
 * when the list names none for it.  Exits with a clear message on a
 * malformed entry or a field the type has no selector for. */
static int daemon_index_field(const struct daemon *d,
                              const struct resource_type *rt)
{
    char *list = xstrdup(d->cfg.index_fields), *save = NULL;
    int found = -1;

    for (char *tok = strtok_r(list, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        const struct resource_type *t;
        int id;

        if (eq == NULL)
            log_fatalx("--index-fields: \"%s\" is not RESOURCE=FIELD", tok);
        *eq = '\0';
        if ((t = resource_type_find(tok)) == NULL)
            log_fatalx("--index-fields: unknown resource type \"%s\"", tok);
        if (t != rt)
            continue;
        id = resource_type_field_id(rt, eq + 1);
        if (id < FIELD_EXTRA)
            log_fatalx("--index-fields: %s has no field selector \"%s\" to "
                       "index (metadata.name and metadata.namespace are "
                       "always indexed)",
                       rt->resource, eq + 1);
        found = id - FIELD_EXTRA;
    }
    free(list);
    return found;
}

static void daemon_start(struct daemon *d)
{
    struct resource_config rc = {
        .ring_events = d->cfg.ring_capacity,
        .ring_bytes = d->cfg.ring_bytes,
        .bookmark_interval = d->cfg.bookmark_interval,
        .watch_high_water = d->cfg.watch_high_water,
        .min_request_timeout = d->cfg.min_request_timeout,
    };
    struct upstream_etcd_config uc = {.page_size = d->cfg.list_page_size};
    struct front_config fc;

    d->resources = xcalloc(d->n, sizeof(*d->resources));
    for (size_t i = 0; i < d->n; i++) {
        rc.indexed_field = daemon_index_field(d, d->types[i]);
        d->resources[i] = resource_new(d->base, d->types[i], &rc);
    }
    d->upstream =
        upstream_etcd_new(d->base, d->cfg.etcd, d->resources, d->n, &uc);
    if (d->upstream == NULL)
        log_fatalx("--etcd: \"%s\" is not an http://HOST:PORT URL",
                   d->cfg.etcd);
    d->discovery = discovery_new(d->types, d->n, d->cfg.listen);
    d->router =
        router_new(d->resources, d->n, d->discovery, daemon_stats_cb, d);

    listener_config_defaults(&fc);
    fc.max_connections = (unsigned)d->cfg.max_connections;
    fc.h2_max_concurrent_streams = (unsigned)d->cfg.h2_max_streams;
    fc.sndbuf = (int)d->cfg.sndbuf;
    fc.header_timeout = (unsigned)ceil(d->cfg.header_timeout);
    fc.idle_timeout = (unsigned)ceil(d->cfg.idle_timeout);
    d->listener =
        listener_new(d->base, d->cfg.listen, &fc, router_handle, d->router);
    if (d->listener == NULL)
        log_fatalx("--listen: cannot serve on %s", d->cfg.listen);
    log_info("serving %zu resource types on %s (port %d), upstream %s", d->n,
             d->cfg.listen, listener_port(d->listener), d->cfg.etcd);
    upstream_etcd_start(d->upstream);
}

static void daemon_stop(struct daemon *d)
{
    listener_free(d->listener);
    upstream_etcd_free(d->upstream);
    router_free(d->router);
    discovery_free(d->discovery);
    for (size_t i = 0; i < d->n; i++)
        resource_free(d->resources[i]);
    for (size_t i = 0; i < RW_ARRAY_LEN(d->signals); i++)
        event_free(d->signals[i]);
    if (d->drain != NULL) {
        event_free(d->drain);
        event_free(d->grace);
    }
    event_base_free(d->base);
    free(d->resources);
    free(d->types);
}

int main(int argc, char **argv)
{
    struct daemon d = {0};
    char why[256];
    int rc, level;

    rc = config_parse(ringwatch_options, ringwatch_noptions, &d.cfg, argc, argv,
                      "ringwatch " PACKAGE_VERSION, why, sizeof(why));
    if (rc == 1) {
        if (strcmp(argv[argc - 1], "--version") != 0)
            config_usage(stdout, "ringwatch", "[options]", ringwatch_options,
                         ringwatch_noptions);
        return 0;
    }
    if (rc != RW_OK) {
        fprintf(stderr, "ringwatch: %s (see ringwatch --help)\n", why);
        return 2;
    }
    if ((level = log_level_parse(d.cfg.log_level)) < 0) {
        fprintf(stderr, "ringwatch: --log-level: unknown level \"%s\"\n",
                d.cfg.log_level);
        return 2;
    }
    log_init(level, "ringwatch");
    signal(SIGPIPE, SIG_IGN);
    srandom((unsigned)time(NULL) ^ (unsigned)getpid());
    daemon_resolve_types(&d);
    daemon_raise_nofile(d.cfg.max_connections);

    d.base = event_base_new();
    if (d.base == NULL)
        log_fatalx("cannot create the event loop");
    d.signals[0] = evsignal_new(d.base, SIGINT, daemon_signal_cb, &d);
    d.signals[1] = evsignal_new(d.base, SIGTERM, daemon_signal_cb, &d);
    event_add(d.signals[0], NULL);
    event_add(d.signals[1], NULL);

    daemon_start(&d);
    event_base_dispatch(d.base);
    daemon_stop(&d);
    return 0;
}
