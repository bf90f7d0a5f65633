/*
 * main.c: ringwatch-fleet, the load generator and verifier.  Parses the
 * options (setup.h checks them and derives the settings), builds the
 * modules and runs the phases on one event loop:
 *
 *   SETUP  with --churn: the writer adopts an earlier run's pods and
 *          creates the initial set (bounded: 120 s)
 *   LIST   each filter's leader LISTs S0 at R0 (bounded: 30 s); with
 *          --target etcd one etcd Range of the prefix gives every
 *          filter's S0 at R0 instead
 *   RUN    the oracle watches etcd from R0 + 1, the writer loads its
 *          objects at R0 and writes for --duration, the watchers WATCH
 *          from R0 (after --watch-delay); a progress line every second
 *   DRAIN  writes stop; wait (at most --drain-timeout) until every
 *          watcher has everything up to the last write's revision
 *   FINAL  read etcd's final state at that revision (paged) and compare
 *          every watcher's view with it (bounded: 60 s)
 *   DONE   summary on stdout, JSON report, exit 0 when every check passed
 *
 * Phases only move forward; SIGINT or SIGTERM jumps to DONE (the run
 * then fails as interrupted).  Everything is freed after the loop, in
 * reverse order of dependency: transports, ranges, writer, oracle,
 * watchers, filter index, filters, keys.
 *
 * Filters (--profile): filters[0] is the controllers' selection when
 * there are controllers; then one filter per node that has a kubelet
 * (nodes 0 .. min(kubelets, nodes) - 1, in order), so watcher i's filter
 * is found by arithmetic and the filter index (filter.h) finds a
 * change's filters without scanning them all.
 */
#include <event2/event.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/clock.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "proto/kjson_decode.h"
#include "src/fleet/churn.h"
#include "src/fleet/filter.h"
#include "src/fleet/histogram.h"
#include "src/fleet/keys.h"
#include "src/fleet/options.h"
#include "src/fleet/oracle.h"
#include "src/fleet/profile.h"
#include "src/fleet/range.h"
#include "src/fleet/redis_follow.h"
#include "src/fleet/redis_store.h"
#include "src/fleet/report.h"
#include "src/fleet/setup.h"
#include "src/fleet/watch_etcd.h"
#include "src/fleet/watch_h1.h"
#include "src/fleet/watch_h2.h"
#include "src/fleet/watch_redis.h"
#include "src/fleet/watcher.h"
#include "src/fleet/writer.h"
#include "src/log.h"
#include "src/transport.h"

#define FLEET_LIST_TIMEOUT 30.0   /* seconds for every initial LIST */
#define FLEET_FINAL_TIMEOUT 60.0  /* seconds to read the final state */
#define FLEET_DRAIN_TICK 0.05     /* seconds between drain checks */
#define FLEET_SETUP_TIMEOUT 120.0 /* seconds to create --churn's pods */

enum fleet_phase {
    PHASE_SETUP,
    PHASE_LIST,
    PHASE_RUN,
    PHASE_DRAIN,
    PHASE_FINAL,
    PHASE_DONE,
};

struct fleet {
    struct fleet_config cfg;
    struct event_base *base;
    struct setup setup;              /* what the options give: setup.h */
    struct redis_follow *follow;     /* the oracle's source over Redis */
    struct redis_store *final_store; /* the final state over Redis */
    struct redis_store *list_store;  /* S0 for --target redis */
    struct keys *keys;
    char *field_selector_shown; /* for the report */
    struct filter **filters;
    size_t nfilters, nready;
    size_t controller_filters; /* 1 when filters[0] is the controllers' */
    struct filter_index *ix;
    struct filter **candidates; /* scratch: filter_index_max entries */
    struct histogram latency, first_latency;
    struct oracle *oracle;
    struct writer *writer;
    struct watcher_set *ws;
    struct watch_h2 *h2;
    struct watch_h1 *h1;
    struct watch_etcd *etcd_t;
    struct watch_redis *redis_t;
    struct range *final, *snapshot;
    enum fleet_phase phase;
    double t_run, t_load_end, t_end; /* monotonic seconds */
    int64_t target;                  /* revision the drain waits for */
    bool drained, interrupted, oracle_failed, final_failed;
    struct event *progress, *phase_timer, *drain_tick, *release_timer;
    struct event *signals[2];
    uint64_t last_delivered;
    struct proc_sample server_start;
    int exit_code;
};

static void fleet_done(struct fleet *f);
static void fleet_final(struct fleet *f);

static void fleet_timer(struct event *ev, double seconds)
{
    struct timeval tv = rw_timeval(seconds);

    event_add(ev, &tv);
}

static void fleet_kick(struct fleet *f)
{
    if (f->h2)
        watch_h2_kick(f->h2);
    if (f->h1)
        watch_h1_kick(f->h1);
    if (f->etcd_t)
        watch_etcd_kick(f->etcd_t);
    if (f->redis_t)
        watch_redis_kick(f->redis_t);
}

static size_t fleet_connections_open(const struct fleet *f)
{
    if (f->etcd_t)
        return watch_etcd_connections_open(f->etcd_t);
    if (f->redis_t)
        return watch_redis_connections_open(f->redis_t);
    return f->h2 ? watch_h2_connections_open(f->h2)
                 : watch_h1_connections_open(f->h1);
}

/* ==== progress ==== */

static void fleet_progress_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fleet *f = arg;
    struct watcher_totals t;
    struct writer_stats st = {0};

    watcher_set_totals(f->ws, &t);
    if (f->writer)
        writer_stats(f->writer, &st);
    fprintf(stderr,
            "[%6.1fs] watching %llu/%llu, conns %zu, delivered %llu "
            "(%llu/s, relevant %llu), p99 %.2f ms, writes %llu, 410s %llu, "
            "bookmarks %llu, lost %llu\n",
            f->t_run > 0 ? clock_mono_s() - f->t_run : 0.0,
            (unsigned long long)t.watching, (unsigned long long)f->cfg.watchers,
            fleet_connections_open(f), (unsigned long long)t.delivered,
            (unsigned long long)(t.delivered - f->last_delivered),
            (unsigned long long)t.relevant,
            (double)histogram_quantile(&f->latency, 0.99) / 1e6,
            (unsigned long long)st.ok, (unsigned long long)t.expired_410,
            (unsigned long long)t.bookmarks, (unsigned long long)t.lost);
    f->last_delivered = t.delivered;
}

/* ==== callbacks of the modules ==== */

static void fleet_oracle_advance_cb(void *arg)
{
    struct fleet *f = arg;

    watcher_set_advance(f->ws);
}

static void fleet_oracle_error_cb(const char *why, void *arg)
{
    struct fleet *f = arg;

    f->oracle_failed = true;
    log_warnx("oracle failed, the run cannot be verified: %s", why);
}

static int64_t fleet_send_time_cb(int64_t rv, void *arg)
{
    struct fleet *f = arg;

    return f->writer ? writer_send_time(f->writer, rv) : -1;
}

static void fleet_start_list(struct fleet *f);

static void fleet_writer_ready_cb(size_t objects, void *arg)
{
    struct fleet *f = arg;

    if (f->phase == PHASE_SETUP) {
        fleet_start_list(f);
        return;
    }
    if (objects == 0) {
        log_warnx("writer: no %s to update: nothing will be written",
                  f->setup.rt->resource);
        return;
    }
    if (f->phase == PHASE_RUN)
        writer_start(f->writer);
}

static void fleet_writer_error_cb(const char *why, void *arg)
{
    struct fleet *f = arg;

    log_warnx("writer: %s", why);
    if (f->phase == PHASE_SETUP) {
        f->exit_code = 1;
        fleet_done(f);
    }
}

/* ==== phases ==== */

static void fleet_release_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fleet *f = arg;

    watcher_set_release(f->ws);
    fleet_kick(f);
}

static void fleet_load_end_cb(evutil_socket_t fd, short what, void *arg);

/* Every initial LIST is done: start the oracle, the writer, the watches. */
static void fleet_run(struct fleet *f)
{
    int64_t r0 = INT64_MAX;

    f->phase = PHASE_RUN;
    f->t_run = clock_mono_s();
    for (size_t i = 0; i < f->nfilters; i++)
        r0 = RW_MIN(r0, f->filters[i]->r0);
    log_info("initial LIST at resourceVersion %" PRId64 ": %u objects", r0,
             view_count(&f->filters[0]->s0));
    if (f->cfg.server_pid > 0)
        report_proc_sample((long)f->cfg.server_pid, &f->server_start);
    if (f->oracle) {
        oracle_start(f->oracle, r0 + 1);
        if (f->follow)
            redis_follow_start(f->follow, r0 + 1);
        watcher_set_advance(f->ws);
    }
    if (f->writer && f->cfg.churn)
        writer_start(f->writer);
    else if (f->writer)
        writer_load(f->writer, r0);
    event_del(f->phase_timer);
    event_assign(f->phase_timer, f->base, -1, 0, fleet_load_end_cb, f);
    fleet_timer(f->phase_timer, f->cfg.duration);
    if (f->cfg.watch_delay > 0)
        fleet_timer(f->release_timer, f->cfg.watch_delay);
    else
        fleet_release_cb(-1, 0, f);
}

static void fleet_list_ready_cb(struct filter *flt, void *arg)
{
    struct fleet *f = arg;

    if (++f->nready == f->nfilters && f->phase == PHASE_LIST)
        fleet_run(f);
}

static void fleet_list_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fleet *f = arg;

    if (f->phase == PHASE_SETUP)
        log_warnx("creating the initial pods took over %.0f s",
                  FLEET_SETUP_TIMEOUT);
    else
        log_warnx("the initial LIST did not complete in %.0f s",
                  FLEET_LIST_TIMEOUT);
    f->exit_code = 1;
    fleet_done(f);
}

/* Puts a decoded etcd value into the view `which` of every filter that
 * selects it (the S0 of --target etcd, or the final state). */
static void fleet_add_kv(struct fleet *f, const struct etcd_kv *kv, bool final)
{
    size_t plen = strlen(f->setup.rt->key_prefix), n;
    struct object *obj = NULL;
    const char *why;
    uint32_t key;

    if (kv->key_len <= plen ||
        kjson_decode_object(f->setup.rt, kv->key, kv->key_len, kv->value,
                            kv->value_len, kv->mod_revision, &obj,
                            &why) != RW_OK)
        return; /* not served by the daemon either */
    key = keys_intern(f->keys, "", 0, kv->key + plen, kv->key_len - plen);
    if (f->redis_t != NULL && !final)
        watch_redis_seed(f->redis_t, key, obj, kv->mod_revision);
    n = filter_index_candidates(f->ix, NULL, obj, f->candidates);
    for (size_t i = 0; i < n; i++)
        if (filter_matches(f->candidates[i], obj))
            view_put(final ? &f->candidates[i]->final : &f->candidates[i]->s0,
                     key, kv->mod_revision);
    object_unref(obj);
}

static void fleet_snapshot_kv_cb(const struct etcd_kv *kv, void *arg)
{
    fleet_add_kv(arg, kv, false);
}

static void fleet_snapshot_done_cb(int err, const char *why, int64_t revision,
                                   void *arg)
{
    struct fleet *f = arg;

    if (f->phase != PHASE_LIST)
        return;
    if (err != 0) {
        log_warnx("the initial etcd Range failed: %s", why);
        f->exit_code = 1;
        fleet_done(f);
        return;
    }
    for (size_t i = 0; i < f->nfilters; i++) {
        f->filters[i]->r0 = revision;
        f->filters[i]->ready = true;
    }
    f->nready = f->nfilters;
    fleet_run(f);
    fleet_kick(f);
}

/* The initial LIST: by the filters' leaders, or one etcd Range. */
static void fleet_start_list(struct fleet *f)
{
    struct writer_stats st = {0};

    if (f->writer != NULL)
        writer_stats(f->writer, &st);
    if (st.last_rev > 0)
        watcher_set_list_from(f->ws, st.last_rev);
    f->phase = PHASE_LIST;
    event_del(f->phase_timer);
    event_assign(f->phase_timer, f->base, -1, 0, fleet_list_timeout_cb, f);
    fleet_timer(f->phase_timer, FLEET_LIST_TIMEOUT);
    if (f->setup.target_etcd)
        f->snapshot =
            range_new(f->base, &f->setup.server, f->setup.rt->key_prefix, 0, 0,
                      0, fleet_snapshot_kv_cb, fleet_snapshot_done_cb, f);
    else if (f->setup.target_redis) {
        f->list_store = redis_store_new(f->base, &f->setup.redis, f->setup.rt);
        redis_store_snapshot(f->list_store, f->setup.rt->key_prefix,
                             fleet_snapshot_kv_cb, fleet_snapshot_done_cb, f);
    } else
        fleet_kick(f);
}

/* The revision the drain waits for: the last write, else the last change
 * the oracle saw. */
static int64_t fleet_target(struct fleet *f)
{
    struct writer_stats st = {0};

    if (f->writer)
        writer_stats(f->writer, &st);
    if (st.last_rev > 0)
        return st.last_rev;
    return f->oracle ? oracle_last_rv(f->oracle) : 0;
}

static void fleet_drain_tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fleet *f = arg;

    if (f->phase != PHASE_DRAIN)
        return;
    if (f->writer && !writer_idle(f->writer))
        return; /* Puts in flight: their revisions count */
    f->target = fleet_target(f);
    if (f->oracle_failed || f->oracle == NULL ||
        watcher_set_caught_up(f->ws, f->target)) {
        f->drained = true;
        fleet_final(f);
    }
}

static void fleet_drain_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fleet *f = arg;

    if (f->phase != PHASE_DRAIN)
        return;
    f->target = fleet_target(f);
    log_warnx(
        "drain: %zu watchers still behind revision %" PRId64 " after %.1f s",
        watcher_set_lagging(f->ws, f->target), f->target, f->cfg.drain_timeout);
    fleet_final(f);
}

static void fleet_load_end_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fleet *f = arg;

    f->phase = PHASE_DRAIN;
    f->t_load_end = clock_mono_s();
    if (f->writer)
        writer_stop(f->writer);
    event_assign(f->phase_timer, f->base, -1, 0, fleet_drain_timeout_cb, f);
    fleet_timer(f->phase_timer, f->cfg.drain_timeout);
    fleet_timer(f->drain_tick, FLEET_DRAIN_TICK);
}

/* ---- final state ---- */

static void fleet_final_kv_cb(const struct etcd_kv *kv, void *arg)
{
    fleet_add_kv(arg, kv, true);
}

static void fleet_final_done_cb(int err, const char *why, int64_t revision,
                                void *arg)
{
    struct fleet *f = arg;

    if (f->phase != PHASE_FINAL)
        return;
    if (err != 0) {
        log_warnx("reading the final state: %s", why);
        f->final_failed = true;
    } else if (f->setup.redis.host != NULL && f->target > 0 &&
               revision > f->target) {
        log_warnx("reading the final state: the store's log moved past "
                  "revision %" PRId64 " to %" PRId64 " (another writer?)",
                  f->target, revision);
        f->final_failed = true;
    } else {
        log_info("final state at revision %" PRId64 ": %u objects", revision,
                 view_count(&f->filters[0]->final));
        watcher_set_check_views(f->ws);
    }
    fleet_done(f);
}

static void fleet_final_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fleet *f = arg;

    log_warnx("reading the final state took over %.0f s", FLEET_FINAL_TIMEOUT);
    f->final_failed = true;
    fleet_done(f);
}

static void fleet_final(struct fleet *f)
{
    f->phase = PHASE_FINAL;
    f->t_end = clock_mono_s();
    event_del(f->drain_tick);
    event_del(f->phase_timer);
    if (f->oracle == NULL || f->oracle_failed) {
        fleet_done(f);
        return;
    }
    event_assign(f->phase_timer, f->base, -1, 0, fleet_final_timeout_cb, f);
    fleet_timer(f->phase_timer, FLEET_FINAL_TIMEOUT);
    if (f->setup.redis.host != NULL) {
        /* Redis has no old state to read at the target: the current one,
         * which must not have moved past it. */
        f->final_store = redis_store_new(f->base, &f->setup.redis, f->setup.rt);
        redis_store_snapshot(f->final_store, f->setup.rt->key_prefix,
                             fleet_final_kv_cb, fleet_final_done_cb, f);
        return;
    }
    f->final = range_new(f->base, &f->setup.etcd, f->setup.rt->key_prefix,
                         f->target > 0 ? f->target : 0, 0, 0, fleet_final_kv_cb,
                         fleet_final_done_cb, f);
}

/* ---- the end ---- */

static void fleet_fill_report(struct fleet *f, struct report *r)
{
    struct writer_stats st = {0};

    memset(r, 0, sizeof(*r));
    if (f->writer)
        writer_stats(f->writer, &st);
    r->watchers = f->cfg.watchers;
    r->connections = f->setup.connections;
    r->protocol = f->cfg.http1 ? "http1" : "h2";
    r->resource = f->cfg.resource;
    r->label_selector =
        f->setup.profile.controllers > 0 ? f->filters[0]->label_selector : NULL;
    r->field_selector = f->field_selector_shown;
    r->profile = profile_name(f->setup.profile.kind);
    r->target = f->cfg.target;
    r->controllers = f->setup.profile.controllers;
    r->kubelets = f->setup.profile.kubelets;
    r->nodes = f->setup.profile.nodes;
    r->churn = f->cfg.churn;
    r->creates = st.creates;
    r->updates = st.updates;
    r->moves = st.moves;
    r->deletes = st.deletes;
    r->initial_pods = st.initial;
    r->live_pods = f->cfg.churn ? st.live : st.objects;
    r->duration_s = f->cfg.duration;
    r->elapsed_s = f->t_run > 0 ? f->t_end - f->t_run : 0;
    r->writes = st.ok;
    r->writes_failed = st.failed;
    r->write_via = f->cfg.write_via;
    r->contention = f->cfg.contention;
    r->write_latency = f->writer ? writer_latency(f->writer) : NULL;
    r->first_latency = &f->first_latency;
    r->write_requests = st.requests;
    r->conflicts = st.conflicts;
    r->rereads = st.rereads;
    r->gave_up = st.gave_up;
    watcher_set_totals(f->ws, &r->t);
    r->expected = r->t.matched + r->t.lost;
    r->latency = &f->latency;
    r->verified = f->oracle != NULL && !f->oracle_failed && !f->final_failed &&
                  !f->interrupted;
    r->drained = f->drained;
    r->interrupted = f->interrupted;
    r->oracle_failed = f->oracle_failed;
    r->final_state_failed = f->final_failed;
    report_proc_sample(0, &r->fleet);
    r->watcher_bytes = watcher_set_footprint(f->ws) +
                       (f->etcd_t ? watch_etcd_footprint(f->etcd_t) : 0) +
                       (f->redis_t ? watch_redis_footprint(f->redis_t) : 0);
    if (f->cfg.server_pid > 0) {
        r->has_server = true;
        r->server_pid = (long)f->cfg.server_pid;
        if (report_proc_sample(r->server_pid, &r->server) == 0 &&
            f->server_start.ok)
            r->server_cpu_s = r->server.cpu_s - f->server_start.cpu_s;
        else
            log_warnx("--server-pid %ld: cannot read /proc", r->server_pid);
    }
    report_count_errors(r);
}

static void fleet_done(struct fleet *f)
{
    struct report r;
    int64_t end_rv;

    if (f->phase == PHASE_DONE)
        return;
    if (f->t_end == 0)
        f->t_end = clock_mono_s();
    f->phase = PHASE_DONE;
    watcher_set_stop(f->ws);
    /* Interrupted: what is still in flight is not lost. */
    end_rv = f->interrupted  ? 0
             : f->target > 0 ? f->target
             : f->oracle     ? oracle_known_rv(f->oracle)
                             : 0;
    watcher_set_finish(f->ws, end_rv);
    fleet_fill_report(f, &r);
    report_summary(stdout, &r);
    fflush(stdout);
    if (f->cfg.report && report_write_json(f->cfg.report, &r) != 0)
        log_warn("--report %s", f->cfg.report);
    if (f->exit_code == 0)
        f->exit_code = report_passed(&r) ? 0 : 1;
    event_base_loopbreak(f->base);
}

static void fleet_signal_cb(evutil_socket_t sig, short what, void *arg)
{
    struct fleet *f = arg;

    log_info("%s: stopping", strsignal((int)sig));
    f->interrupted = true;
    fleet_done(f);
}

/* The first phase: SETUP with --churn, else LIST. */
static void fleet_begin(struct fleet *f)
{
    if (f->cfg.churn) {
        f->phase = PHASE_SETUP;
        fleet_timer(f->phase_timer, FLEET_SETUP_TIMEOUT);
        writer_load(f->writer, 0);
    } else {
        fleet_start_list(f);
    }
}

static void fleet_follow_ready_cb(void *arg)
{
    fleet_begin(arg);
}

static void fleet_follow_error_cb(const char *why, void *arg)
{
    struct fleet *f = arg;

    log_warnx("redis: %s", why);
    f->exit_code = 1;
    fleet_done(f);
}

/* ==== building ==== */

/* filters[]: the controllers' selection, then one per watched node. */
static void fleet_build_filters(struct fleet *f)
{
    const struct profile *p = &f->setup.profile;
    size_t node_filters = (size_t)RW_MIN(p->kubelets, (uint64_t)p->nodes);
    char why[256], node[32];

    f->controller_filters = p->controllers > 0;
    f->nfilters = f->controller_filters + node_filters;
    f->filters = xcalloc(f->nfilters, sizeof(*f->filters));
    if (f->controller_filters) {
        f->filters[0] = filter_new(0, f->setup.rt, f->cfg.label_selector,
                                   f->cfg.field_selector, why, sizeof(why));
        if (f->filters[0] == NULL) {
            fprintf(stderr,
                    "ringwatch-fleet: --label-selector or --field-selector: "
                    "%s (see ringwatch-fleet --help)\n",
                    why);
            exit(2);
        }
    }
    for (size_t j = 0; j < node_filters; j++) {
        profile_node_name((uint32_t)j, node, sizeof(node));
        f->filters[f->controller_filters + j] = filter_new_node(
            (uint32_t)(f->controller_filters + j), f->setup.rt, node);
        rw_assert(f->filters[f->controller_filters + j] != NULL);
    }
    if (node_filters == 0)
        f->field_selector_shown = f->filters[0]->field_selector
                                      ? xstrdup(f->filters[0]->field_selector)
                                      : NULL;
    else
        f->field_selector_shown = xasprintf(
            "%s%sspec.nodeName=NODE (kubelets, %zu nodes watched)",
            f->controller_filters && f->filters[0]->field_selector
                ? f->filters[0]->field_selector
                : "",
            f->controller_filters && f->filters[0]->field_selector ? "; " : "",
            node_filters);
    f->ix = filter_index_new(f->setup.rt, f->filters, f->nfilters);
    f->candidates = xcalloc(filter_index_max(f->ix), sizeof(*f->candidates));
}

static struct filter *fleet_watcher_filter(struct fleet *f, uint64_t i)
{
    uint32_t node;

    if (profile_kubelet(&f->setup.profile, i, &node))
        return f->filters[f->controller_filters + node];
    return f->filters[0];
}

static void fleet_build_transport(struct fleet *f)
{
    if (f->setup.target_etcd)
        f->etcd_t = watch_etcd_new(f->base, &f->setup.server, f->setup.rt,
                                   f->keys, f->ws, f->setup.connections);
    else if (f->setup.target_redis)
        f->redis_t = watch_redis_new(f->base, &f->setup.redis, f->setup.rt,
                                     f->keys, f->ws);
    else if (f->cfg.http1)
        f->h1 = watch_h1_new(f->base, &f->setup.server, f->ws);
    else
        f->h2 = watch_h2_new(f->base, &f->setup.server, f->ws,
                             f->setup.connections);
    if (f->cfg.http1 && f->h1 == NULL)
        exit(1); /* it logged why: the host does not resolve */
}

static void fleet_build(struct fleet *f)
{
    static const struct oracle_callbacks ocbs = {
        .on_advance = fleet_oracle_advance_cb,
        .on_error = fleet_oracle_error_cb,
    };
    static const struct writer_callbacks wcbs = {
        .on_ready = fleet_writer_ready_cb,
        .on_error = fleet_writer_error_cb,
    };
    struct watcher_set_config wc = {0};
    struct churn_config churn = {
        .pods = f->cfg.pods,
        .nodes = f->setup.profile.nodes,
        .move_fraction = f->setup.move_fraction,
        .seed = f->cfg.seed,
    };

    static const struct redis_follow_callbacks fcbs = {
        .on_ready = fleet_follow_ready_cb,
        .on_error = fleet_follow_error_cb,
    };
    const struct redis_store_config *redis =
        f->setup.redis.host != NULL ? &f->setup.redis : NULL;
    struct writer_via via = {
        f->setup.write_via_server ? &f->setup.server : NULL,
        f->cfg.contention,
    };

    f->keys = keys_new();
    histogram_init(&f->latency);
    histogram_init(&f->first_latency);
    fleet_build_filters(f);
    if (f->cfg.etcd)
        f->oracle = oracle_new(f->base, &f->setup.etcd, f->setup.rt, f->keys,
                               f->ix, &ocbs, f);
    if (redis != NULL) {
        f->oracle =
            oracle_new(f->base, NULL, f->setup.rt, f->keys, f->ix, &ocbs, f);
        f->follow = redis_follow_new(f->base, redis, f->setup.rt, f->keys,
                                     f->oracle, &fcbs, f);
    }
    if (f->cfg.write_rate > 0)
        f->writer = writer_new(f->base, &f->setup.etcd, redis, &via,
                               f->setup.rt, f->keys, f->cfg.write_rate,
                               f->cfg.churn ? &churn : NULL, &wcbs, f);
    wc.rt = f->setup.rt;
    wc.collection = f->setup.collection;
    wc.keys = f->keys;
    wc.oracle = f->oracle;
    wc.latency = &f->latency;
    wc.first_latency = &f->first_latency;
    wc.send_time = fleet_send_time_cb;
    wc.on_list_ready = fleet_list_ready_cb;
    wc.arg = f;
    f->ws = watcher_set_new(&wc, f->cfg.watchers);
    for (uint64_t i = 0; i < f->cfg.watchers; i++)
        watcher_set_add(f->ws, fleet_watcher_filter(f, i));
    fleet_build_transport(f);
}

static void fleet_events(struct fleet *f)
{
    struct timeval second = {1, 0};

    f->base = event_base_new();
    if (f->base == NULL)
        log_fatalx("cannot create the event loop");
    f->signals[0] = evsignal_new(f->base, SIGINT, fleet_signal_cb, f);
    f->signals[1] = evsignal_new(f->base, SIGTERM, fleet_signal_cb, f);
    event_add(f->signals[0], NULL);
    event_add(f->signals[1], NULL);
    f->progress = event_new(f->base, -1, EV_PERSIST, fleet_progress_cb, f);
    event_add(f->progress, &second);
    f->phase_timer = evtimer_new(f->base, fleet_list_timeout_cb, f);
    f->drain_tick = event_new(f->base, -1, EV_PERSIST, fleet_drain_tick_cb, f);
    f->release_timer = evtimer_new(f->base, fleet_release_cb, f);
}

static void fleet_free(struct fleet *f)
{
    watch_h2_free(f->h2);
    watch_h1_free(f->h1);
    watch_etcd_free(f->etcd_t);
    watch_redis_free(f->redis_t);
    redis_store_free(f->list_store);
    range_free(f->final);
    range_free(f->snapshot);
    redis_store_free(f->final_store);
    writer_free(f->writer);
    redis_follow_free(f->follow);
    oracle_free(f->oracle);
    watcher_set_free(f->ws);
    for (size_t i = 0; i < f->nfilters; i++)
        filter_free(f->filters[i]);
    filter_index_free(f->ix);
    free(f->candidates);
    free(f->filters);
    free(f->field_selector_shown);
    keys_free(f->keys);
    event_free(f->progress);
    event_free(f->phase_timer);
    event_free(f->drain_tick);
    event_free(f->release_timer);
    for (size_t i = 0; i < RW_ARRAY_LEN(f->signals); i++)
        event_free(f->signals[i]);
    transport_base_free(f->base);
    setup_fini(&f->setup);
}

int main(int argc, char **argv)
{
    struct fleet f = {0};
    const struct config_program prog = {"ringwatch-fleet", FLEET_SYNOPSIS,
                                        "ringwatch-fleet " PACKAGE_VERSION,
                                        options_specs, options_nspecs};
    char why[1024]; /* config_unknown_type lists every resource type */
    int status, level;

    if (config_program_parse(&prog, &f.cfg, argc, argv, &status) != RW_OK)
        return status;
    if (config_log_level(f.cfg.log_level, &level, why, sizeof(why)) != RW_OK)
        return config_usage_error(&prog, why);
    log_init(level, "ringwatch-fleet");
    signal(SIGPIPE, SIG_IGN);
    if (setup_init(&f.setup, &f.cfg, why, sizeof(why)) != RW_OK)
        return config_usage_error(&prog, why);
    fleet_events(&f);
    fleet_build(&f);
    if (f.follow == NULL)
        fleet_begin(&f);
    else /* once the follower has its snapshot, bounded as a LIST */
        fleet_timer(f.phase_timer, FLEET_LIST_TIMEOUT);
    event_base_dispatch(f.base);
    if (f.phase != PHASE_DONE) /* the loop ran dry: should not happen */
        fleet_done(&f);
    watcher_set_stop(f.ws);
    fleet_free(&f);
    return f.exit_code;
}
