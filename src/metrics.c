/*
 * metrics.c: Prometheus text exposition of ringwatch's counters (see
 * metrics.h).  One family at a time: HELP, TYPE, then one sample per
 * resource, so the output passes `promtool check metrics`.
 */
#include "src/metrics.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cache/ring.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/store.h"
#include "cache/watchcache.h"
#include "src/metrics_resource.h"
#include "src/resource.h"
#include "src/tls.h"
#include "src/watch.h"

static void family(struct sbuf *t, const char *name, const char *type,
                   const char *help)
{
    sbuf_addf(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* ---- per-resource families ---- */

enum value_kind { U64, I64, RATIO };

struct family_def {
    const char *name, *type, *help;
    enum value_kind kind;
    /* fills the value for one resource; NULL: the struct
     * metrics_resource counter at offset `counter` */
    void (*get)(struct resource *r, double *out);
    size_t counter;
};

#define GET(fn) fn, 0
#define COUNTER(field) NULL, offsetof(struct metrics_resource, field)

static double ratio(uint64_t hits, uint64_t misses)
{
    return hits + misses ? (double)hits / (double)(hits + misses) : NAN;
}

#define M(r) resource_metrics(r)
#define RING(r) watchcache_ring(resource_cache(r))

static void get_ring_capacity_events(struct resource *r, double *v)
{
    *v = (double)ring_max_events(RING(r));
}
static void get_ring_capacity_bytes(struct resource *r, double *v)
{
    *v = (double)ring_max_bytes(RING(r));
}
static void get_ring_events(struct resource *r, double *v)
{
    *v = (double)ring_len(RING(r));
}
static void get_ring_bytes(struct resource *r, double *v)
{
    *v = (double)ring_bytes(RING(r));
}
static void get_ring_oldest(struct resource *r, double *v)
{
    *v = (double)ring_oldest_rv(RING(r));
}
static void get_ring_newest(struct resource *r, double *v)
{
    *v = (double)ring_newest_rv(RING(r));
}
static void get_ring_evictions(struct resource *r, double *v)
{
    *v = (double)ring_evictions(RING(r));
}
static void get_cache_rv(struct resource *r, double *v)
{
    *v = (double)watchcache_rv(resource_cache(r));
}
static void get_store_objects(struct resource *r, double *v)
{
    *v = (double)store_count(watchcache_store(resource_cache(r)));
}
static void get_store_bytes(struct resource *r, double *v)
{
    *v = (double)store_bytes(watchcache_store(resource_cache(r)));
}
static void get_ready(struct resource *r, double *v)
{
    *v = resource_caught_up(r) ? 1 : 0;
}
static void get_start_rv(struct resource *r, double *v)
{
    *v = (double)watchcache_list_rv(resource_cache(r));
}
static void get_catchup_rv(struct resource *r, double *v)
{
    *v = (double)resource_catchup_rev(r);
}
static void get_watch_ratio(struct resource *r, double *v)
{
    *v = ratio(M(r)->watch_hits, M(r)->watch_misses);
}
static void get_list_ratio(struct resource *r, double *v)
{
    *v = ratio(M(r)->list_hits, M(r)->list_misses);
}

/* Malformed RBAC objects: those the authorizer skipped, and for the RBAC
 * types the values that are not JSON objects at all, which never reach it. */
static void get_rbac_skipped(struct resource *r, double *v)
{
    bool rbac =
        strcmp(resource_type(r)->group, "rbac.authorization.k8s.io") == 0;

    *v = (double)(M(r)->rbac_skipped + (rbac ? M(r)->undecodable : 0));
}

static const struct family_def families[] = {
    {"ringwatch_ring_capacity_events", "gauge",
     "Events the resource's ring can hold.", U64,
     GET(get_ring_capacity_events)},
    {"ringwatch_ring_capacity_bytes", "gauge",
     "Bytes of object JSON the resource's ring can hold.", U64,
     GET(get_ring_capacity_bytes)},
    {"ringwatch_ring_events", "gauge", "Events in the resource's ring.", U64,
     GET(get_ring_events)},
    {"ringwatch_ring_bytes", "gauge",
     "Bytes of object JSON held by the resource's ring.", U64,
     GET(get_ring_bytes)},
    {"ringwatch_ring_oldest_resource_version", "gauge",
     "Revision of the oldest event in the ring (0 when empty).", I64,
     GET(get_ring_oldest)},
    {"ringwatch_ring_newest_resource_version", "gauge",
     "Revision of the newest event in the ring (0 when empty).", I64,
     GET(get_ring_newest)},
    {"ringwatch_ring_evictions_total", "counter",
     "Events evicted from the ring to stay within capacity.", U64,
     GET(get_ring_evictions)},
    {"ringwatch_cache_resource_version", "gauge",
     "Revision the resource's cache reflects.", I64, GET(get_cache_rv)},
    {"ringwatch_cache_objects", "gauge", "Objects in the resource's store.",
     U64, GET(get_store_objects)},
    {"ringwatch_cache_object_bytes", "gauge",
     "Bytes of object JSON in the resource's store.", U64,
     GET(get_store_bytes)},
    {"ringwatch_cache_ready", "gauge",
     "1 when the resource's cache holds a complete list (not (re)listing) "
     "and has caught up with the store after a warm start, as /readyz.",
     U64, GET(get_ready)},
    {"ringwatch_cache_start_revision", "gauge",
     "Revision of the cache's last complete list: its ring's history starts "
     "after it (a warm start lists below the store's revision).",
     I64, GET(get_start_rv)},
    {"ringwatch_cache_catchup_revision", "gauge",
     "The store's revision when the cache was warm-started below it; ready "
     "once the cache reaches it (0: no warm start).",
     I64, GET(get_catchup_rv)},
    {"ringwatch_warm_start_replayed_events_total", "counter",
     "Changes at or below the catch-up revision that the upstream watch "
     "replayed into the cache after a warm start.",
     U64, COUNTER(events_replayed)},
    {"ringwatch_watch_cache_hits_total", "counter",
     "WATCH starts with an explicit resourceVersion served from the ring.", U64,
     COUNTER(watch_hits)},
    {"ringwatch_watch_cache_misses_total", "counter",
     "WATCH starts with an explicit resourceVersion answered 410 Expired.", U64,
     COUNTER(watch_misses)},
    {"ringwatch_watch_cache_hit_ratio", "gauge",
     "hits / (hits + misses) of WATCH starts (NaN before the first).", RATIO,
     GET(get_watch_ratio)},
    {"ringwatch_watch_starts_total", "counter",
     "WATCH requests started, with or without a resourceVersion.", U64,
     COUNTER(watch_starts)},
    {"ringwatch_list_cache_hits_total", "counter",
     "LIST requests served from memory.", U64, COUNTER(list_hits)},
    {"ringwatch_list_cache_misses_total", "counter",
     "LIST requests delegated to the upstream store.", U64,
     COUNTER(list_misses)},
    {"ringwatch_list_cache_hit_ratio", "gauge",
     "hits / (hits + misses) of LIST requests (NaN before the first).", RATIO,
     GET(get_list_ratio)},
    {"ringwatch_get_requests_total", "counter",
     "GET requests for one object, served from memory.", U64, COUNTER(gets)},
    {"ringwatch_watch_events_received_total", "counter",
     "Changes received from the upstream and applied to the cache.", U64,
     COUNTER(events_received)},
    {"ringwatch_watch_events_dispatched_total", "counter",
     "Event frames written to watch streams (one per watcher and event).", U64,
     COUNTER(events_dispatched)},
    {"ringwatch_freshness_probes_total", "counter",
     "Linearizable reads sent to the store to prove a consistent read fresh "
     "(shared by the reads of one prefix that wait at the same time), or "
     "the end of a warm start's replay.",
     U64, COUNTER(probes)},
    {"ringwatch_dispatch_visits_total", "counter",
     "(event, watcher) pairs examined to dispatch events; per received "
     "event it counts the watchers an event may concern, not all watchers.",
     U64, COUNTER(dispatch_visits)},
    {"ringwatch_bookmarks_sent_total", "counter",
     "BOOKMARK events written to watch streams.", U64, COUNTER(bookmarks_sent)},
    {"ringwatch_upstream_reconnects_total", "counter",
     "Times the resource's upstream watch was re-established.", U64,
     COUNTER(reconnects)},
    {"ringwatch_relists_total", "counter",
     "Lists after the first (after compaction past the resume revision).", U64,
     COUNTER(relists)},
    {"ringwatch_undecodable_values_total", "counter",
     "Store values that are not JSON objects of the resource's type "
     "(counted, logged, not served).",
     U64, COUNTER(undecodable)},
    {"ringwatch_rbac_objects_skipped_total", "counter",
     "RBAC objects (roles, rolebindings, clusterroles, clusterrolebindings) "
     "that are malformed (not JSON, wrong types, an unknown subject or "
     "roleRef kind, a bad aggregation selector): skipped, they grant "
     "nothing.",
     U64, GET(get_rbac_skipped)},
    {"ringwatch_watches_ended_unauthorized_total", "counter",
     "WATCH streams ended because a change of RBAC took away their user's "
     "access (an ERROR 403 Forbidden event, then the end).",
     U64, COUNTER(ended_unauthorized)},
};

/* The counter at offset off of r's struct metrics_resource. */
static double counter_value(struct resource *r, size_t off)
{
    const uint64_t *c =
        (const uint64_t *)((const char *)resource_metrics(r) + off);

    return (double)*c;
}

static void render_value(struct sbuf *t, double v, enum value_kind kind)
{
    if (kind == RATIO) {
        if (isnan(v))
            sbuf_addf(t, "NaN\n");
        else
            sbuf_addf(t, "%.6f\n", v);
    } else {
        sbuf_addf(t, "%.0f\n", v);
    }
}

static void render_resources(struct sbuf *t, struct resource *const *res,
                             size_t n)
{
    for (size_t f = 0; f < RW_ARRAY_LEN(families); f++) {
        const struct family_def *def = &families[f];

        family(t, def->name, def->type, def->help);
        for (size_t i = 0; i < n; i++) {
            double v;

            if (def->get != NULL)
                def->get(res[i], &v);
            else
                v = counter_value(res[i], def->counter);
            sbuf_addf(t, "%s{resource=\"%s\"} ", def->name,
                      resource_type(res[i])->resource);
            render_value(t, v, def->kind);
        }
    }

    family(t, "ringwatch_watchers", "gauge",
           "Current watch streams by client protocol.");
    for (size_t i = 0; i < n; i++) {
        const struct watch_set *ws = watch_set_of(res[i]);
        const char *name = resource_type(res[i])->resource;

        sbuf_addf(t,
                  "ringwatch_watchers{resource=\"%s\",protocol=\"h1\"} "
                  "%zu\n",
                  name, watch_set_count(ws, 0));
        sbuf_addf(t,
                  "ringwatch_watchers{resource=\"%s\",protocol=\"h2\"} "
                  "%zu\n",
                  name, watch_set_count(ws, 1));
    }
    family(t, "ringwatch_watchers_terminated_total", "counter",
           "Watch streams ended by the server with ERROR 410, by reason.");
    for (size_t i = 0; i < n; i++) {
        const struct metrics_resource *m = resource_metrics(res[i]);
        const char *name = resource_type(res[i])->resource;

        sbuf_addf(t,
                  "ringwatch_watchers_terminated_total{resource=\"%s\","
                  "reason=\"lapped\"} %" PRIu64 "\n",
                  name, m->terminated_expired);
        sbuf_addf(t,
                  "ringwatch_watchers_terminated_total{resource=\"%s\","
                  "reason=\"relist\"} %" PRIu64 "\n",
                  name, m->terminated_relist);
        sbuf_addf(t,
                  "ringwatch_watchers_terminated_total{resource=\"%s\","
                  "reason=\"store_reset\"} %" PRIu64 "\n",
                  name, m->terminated_reset);
    }
    family(t, "ringwatch_upstream_store_resets_total", "counter",
           "Times the store's history was reset under the resource's cache, "
           "by reason: revision (a revision below one already seen: the store "
           "was restored from an older copy) or identity (another store, "
           "e.g. etcd's cluster ID changed); each ends every watch with 410 "
           "and relists.");
    for (size_t i = 0; i < n; i++)
        for (int why = 0; why < RESOURCE_RESET_MAX; why++)
            sbuf_addf(t,
                      "ringwatch_upstream_store_resets_total{resource=\"%s\","
                      "reason=\"%s\"} %" PRIu64 "\n",
                      resource_type(res[i])->resource,
                      resource_reset_name((enum resource_reset)why),
                      resource_metrics(res[i])->store_resets[why]);
}

/* ---- process and server ---- */

static void render_process(struct sbuf *t)
{
    struct rusage ru;
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");

    if (f != NULL) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    getrusage(RUSAGE_SELF, &ru);
    family(t, "process_resident_memory_bytes", "gauge",
           "Resident memory size in bytes.");
    sbuf_addf(t, "process_resident_memory_bytes %ld\n",
              rss * sysconf(_SC_PAGESIZE));
    family(t, "process_cpu_seconds_total", "counter",
           "Total user and system CPU time spent in seconds.");
    sbuf_addf(t, "process_cpu_seconds_total %.3f\n",
              ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
                  ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
}

/* ringwatch_authentication_attempts_total{result,method}. */
static void render_authn(struct sbuf *t, const struct metrics_global *g)
{
    static const char *const results[] = {"success", "failure"};
    static const char *const methods[] = {"anonymous", "x509", "token",
                                          "serviceaccount"};
    static_assert(RW_ARRAY_LEN(methods) == IDENTITY_METHODS,
                  "a label per enum identity_method");

    if (!g->authn)
        return;
    family(t, "ringwatch_authentication_attempts_total", "counter",
           "Requests authenticated (success) or answered 401 Unauthorized "
           "(failure), by the method of their credentials.");
    for (size_t r = 0; r < RW_ARRAY_LEN(results); r++)
        for (size_t m = 0; m < RW_ARRAY_LEN(methods); m++)
            sbuf_addf(t,
                      "ringwatch_authentication_attempts_total{result=\"%s\","
                      "method=\"%s\"} %" PRIu64 "\n",
                      results[r], methods[m], g->authn_attempts[r][m]);
}

static void render_global(struct sbuf *t, const struct metrics_global *g)
{
    const char *store = g->upstream_store ? g->upstream_store : "";

    family(t, "ringwatch_connections", "gauge",
           "Current client connections by protocol.");
    sbuf_addf(t, "ringwatch_connections{protocol=\"h1\"} %" PRIu64 "\n",
              g->connections[0]);
    sbuf_addf(t, "ringwatch_connections{protocol=\"h2\"} %" PRIu64 "\n",
              g->connections[1]);
    render_authn(t, g);
    family(t, "ringwatch_shutdown_connections_cut_total", "counter",
           "Connections closed by a shutdown with a response unfinished "
           "(--shutdown-grace over, or a second signal).");
    sbuf_addf(t, "ringwatch_shutdown_connections_cut_total %" PRIu64 "\n",
              g->shutdown_connections_cut);
    family(t, "ringwatch_upstream_connected", "gauge",
           "1 while the connection to the upstream store is up; the label "
           "names the store (its adapter).");
    sbuf_addf(t, "ringwatch_upstream_connected{store=\"%s\"} %d\n", store,
              g->upstream_connected ? 1 : 0);
    family(t, "ringwatch_upstream_connects_total", "counter",
           "Connections established to the upstream store, the first "
           "included.");
    sbuf_addf(t,
              "ringwatch_upstream_connects_total{store=\"%s\"} %" PRIu64 "\n",
              store, g->upstream_connects);
    family(t, "ringwatch_upstream_connect_failures_total", "counter",
           "Connection attempts to the upstream store that failed.");
    sbuf_addf(t,
              "ringwatch_upstream_connect_failures_total{store=\"%s\"} %" PRIu64
              "\n",
              store, g->upstream_connect_failures);
    family(t, "ringwatch_upstream_malformed_total", "counter",
           "Store records skipped as malformed by the upstream adapter (a "
           "Redis log entry without a revision, type or key).");
    sbuf_addf(t,
              "ringwatch_upstream_malformed_total{store=\"%s\"} %" PRIu64 "\n",
              store, g->upstream_malformed);
    family(t, "ringwatch_build_info", "gauge",
           "Always 1; labels give the version, the upstream store and its "
           "version.");
    sbuf_addf(t,
              "ringwatch_build_info{version=\"%s\",upstream_store=\"%s\","
              "upstream_version=\"%s\"} 1\n",
              PACKAGE_VERSION, store,
              g->upstream_version ? g->upstream_version : "");
}

static void render_fairness(struct sbuf *t, const struct metrics_fairness *f)
{
    static const char *const cls[] = {"exempt", "workload"};
    static const char *const why[] = {"queue-full", "time-out"};

    if (f->seats_limit == 0)
        return;
    family(t, "ringwatch_fairness_seats_limit", "gauge",
           "Requests answered at once at most (--max-requests-inflight).");
    sbuf_addf(t, "ringwatch_fairness_seats_limit %" PRIu64 "\n",
              f->seats_limit);
    family(t, "ringwatch_fairness_seats_in_use", "gauge",
           "Requests being answered that hold a seat.");
    sbuf_addf(t, "ringwatch_fairness_seats_in_use %" PRIu64 "\n",
              f->seats_in_use);
    family(t, "ringwatch_fairness_queued", "gauge",
           "Requests waiting for a seat, by flow class.");
    for (int c = 0; c < METRICS_FLOW_CLASSES; c++)
        sbuf_addf(t,
                  "ringwatch_fairness_queued{flow_class=\"%s\"} %" PRIu64 "\n",
                  cls[c], f->queued[c]);
    family(t, "ringwatch_fairness_dispatched_total", "counter",
           "Requests admitted to be answered, by flow class.");
    for (int c = 0; c < METRICS_FLOW_CLASSES; c++)
        sbuf_addf(t,
                  "ringwatch_fairness_dispatched_total{flow_class=\"%s\"} "
                  "%" PRIu64 "\n",
                  cls[c], f->dispatched[c]);
    family(t, "ringwatch_fairness_rejected_total", "counter",
           "Requests refused 429 TooManyRequests, by flow class and reason "
           "(their flow's queue was full, or they waited too long).");
    for (int c = 0; c < METRICS_FLOW_CLASSES; c++)
        for (int r = 0; r < METRICS_REJECT_REASONS; r++)
            sbuf_addf(t,
                      "ringwatch_fairness_rejected_total{flow_class=\"%s\","
                      "reason=\"%s\"} %" PRIu64 "\n",
                      cls[c], why[r], f->rejected[c][r]);
}

/* With TLS: handshakes, reloads, kTLS in use. */
static void render_tls(struct sbuf *t, const struct tls_stats *s)
{
    family(t, "ringwatch_tls_handshakes_total", "counter",
           "TLS handshakes of the connections clients made, by result.");
    sbuf_addf(t, "ringwatch_tls_handshakes_total{result=\"ok\"} %" PRIu64
              "\nringwatch_tls_handshakes_total{result=\"failed\"} %" PRIu64
              "\n", s->handshakes_ok, s->handshakes_failed);
    family(t, "ringwatch_tls_reloads_total", "counter",
           "Reloads of the TLS certificate, key and client CA (SIGHUP, or "
           "the files changed) by result; a failed one keeps the old pair.");
    sbuf_addf(t, "ringwatch_tls_reloads_total{result=\"ok\"} %" PRIu64
              "\nringwatch_tls_reloads_total{result=\"failed\"} %" PRIu64
              "\n", s->reloads_ok, s->reloads_failed);
    family(t, "ringwatch_tls_ktls_connections", "gauge",
           "Open TLS connections whose records the kernel encrypts (send) "
           "or decrypts (receive): kTLS; 0 where the kernel has no tls "
           "module.");
    sbuf_addf(t, "ringwatch_tls_ktls_connections{direction=\"send\"} %" PRIu64
              "\nringwatch_tls_ktls_connections{direction=\"receive\"} %" PRIu64
              "\n", s->ktls_send, s->ktls_recv);
}

struct rbuf *metrics_render(struct resource *const *resources, size_t n,
                            const struct metrics_global *global)
{
    struct sbuf t = {0};
    struct rbuf *b;

    render_resources(&t, resources, n);
    render_global(&t, global);
    render_fairness(&t, &global->fairness);
    if (global->tls != NULL)
        render_tls(&t, global->tls);
    render_process(&t);
    b = rbuf_from(t.data, t.len);
    sbuf_fini(&t);
    return b;
}
