/*
 * fairness.c: seats, per-flow queues and round-robin dispatch (see
 * fairness.h).
 *
 * Data structure: the flows with a queued request, each a FIFO of its
 * waiting requests, found by name in a small hash table and kept in a
 * ring (the order in which free seats visit them: the flow served goes to
 * the back); every queued request also sits in one arrival-ordered FIFO,
 * whose head is the next to time out, so that a single timer serves them
 * all.  A flow is freed when its queue empties, so memory follows what
 * waits, not how many users there ever were.
 */
#include "src/fairness.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/status.h"

/* Buckets of the flow table, hashed by user name: a flow exists only
 * while it has a queued request, a handful even under load. */
#define FAIRNESS_BUCKETS 64

/* A request admitted or waiting. */
struct fair_req {
    struct fairness *f;
    struct stream *s;
    struct identity *id;              /* a reference while queued */
    struct fair_flow *flow;           /* while queued */
    TAILQ_ENTRY(fair_req) in_flow;    /* its flow's queue */
    TAILQ_ENTRY(fair_req) in_arrival; /* every queued request */
    uint64_t deadline_ms;             /* refused then, if still queued */
    fairness_serve_fn serve;
    void *arg;
    bool seated;
};

TAILQ_HEAD(fair_req_list, fair_req);

struct fair_flow {
    char *name;
    LIST_ENTRY(fair_flow) in_bucket;
    TAILQ_ENTRY(fair_flow) in_ring;
    struct fair_req_list queue; /* in_flow */
    unsigned queued;
};

struct fairness {
    struct fairness_config cfg;
    struct event *kick;  /* dispatches queued requests to free seats */
    struct event *timer; /* the oldest queued request's deadline */
    LIST_HEAD(, fair_flow) buckets[FAIRNESS_BUCKETS];
    TAILQ_HEAD(, fair_flow) ring; /* flows with a queued request */
    struct fair_req_list arrival; /* in_arrival */
    unsigned in_use;              /* seats taken */
    unsigned queued;
    struct metrics_fairness stats;
};

void fairness_config_defaults(struct fairness_config *cfg)
{
    cfg->seats = FAIRNESS_DEFAULT_SEATS;
    cfg->queue_length = FAIRNESS_QUEUE_LENGTH;
    cfg->wait_ms = FAIRNESS_QUEUE_WAIT_MS;
}

/* ---- flows ---- */

/* FNV-1a (32 bits) of name, as a bucket. */
static unsigned flow_hash(const char *name)
{
    uint32_t h = 2166136261u;

    for (; *name; name++)
        h = (h ^ (unsigned char)*name) * 16777619u;
    return h % FAIRNESS_BUCKETS;
}

/* The flow of name, made (and put at the back of the ring) if none. */
static struct fair_flow *flow_get(struct fairness *f, const char *name)
{
    unsigned b = flow_hash(name);
    struct fair_flow *fl;

    LIST_FOREACH(fl, &f->buckets[b], in_bucket)
        if (strcmp(fl->name, name) == 0)
            return fl;
    fl = xcalloc(1, sizeof(*fl));
    fl->name = xstrdup(name);
    TAILQ_INIT(&fl->queue);
    LIST_INSERT_HEAD(&f->buckets[b], fl, in_bucket);
    TAILQ_INSERT_TAIL(&f->ring, fl, in_ring);
    return fl;
}

static void flow_free(struct fairness *f, struct fair_flow *fl)
{
    LIST_REMOVE(fl, in_bucket);
    TAILQ_REMOVE(&f->ring, fl, in_ring);
    free(fl->name);
    free(fl);
}

/* ---- queued requests ---- */

/* Arms the timer for the oldest queued request, or disarms it. */
static void timer_arm(struct fairness *f)
{
    struct fair_req *r = TAILQ_FIRST(&f->arrival);
    struct timeval tv;

    if (r == NULL) {
        event_del(f->timer);
        return;
    }
    clock_until(r->deadline_ms, &tv);
    event_add(f->timer, &tv);
}

/* Takes r out of its queues (its flow freed when empty). */
static void unqueue(struct fairness *f, struct fair_req *r)
{
    struct fair_flow *fl = r->flow;

    TAILQ_REMOVE(&fl->queue, r, in_flow);
    TAILQ_REMOVE(&f->arrival, r, in_arrival);
    r->flow = NULL;
    identity_unref(r->id);
    r->id = NULL;
    fl->queued--;
    f->queued--;
    f->stats.queued[METRICS_FLOW_WORKLOAD]--;
    if (fl->queued == 0)
        flow_free(f, fl);
}

static void refuse(struct fairness *f, struct stream *s,
                   enum metrics_reject_reason why)
{
    f->stats.rejected[METRICS_FLOW_WORKLOAD][why]++;
    status_respond(s, 429, "TooManyRequests", FAIRNESS_MESSAGE);
}

/* The release hook: the seat, or the place in a queue, is given back. */
static void release_cb(struct stream *s, void *arg)
{
    struct fair_req *r = arg;
    struct fairness *f = r->f;

    (void)s;
    if (r->seated) {
        f->in_use--;
        if (f->queued > 0)
            event_active(f->kick, 0, 0);
    } else {
        unqueue(f, r);
        timer_arm(f);
    }
    free(r);
}

/* r takes a seat and is served as id. */
static void seat(struct fairness *f, struct fair_req *r, struct identity *id)
{
    r->seated = true;
    f->in_use++;
    f->stats.dispatched[METRICS_FLOW_WORKLOAD]++;
    stream_set_release(r->s, release_cb, r);
    r->serve(r->s, id, r->arg);
}

/* Gives each free seat to the next flow of the ring, round robin. */
static void kick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fairness *f = arg;
    struct identity *id;
    struct fair_flow *fl;
    struct fair_req *r;

    (void)fd;
    (void)what;
    while (f->in_use < f->cfg.seats && (fl = TAILQ_FIRST(&f->ring)) != NULL) {
        r = TAILQ_FIRST(&fl->queue);
        id = identity_ref(r->id);
        /* the flow served waits behind the others */
        TAILQ_REMOVE(&f->ring, fl, in_ring);
        TAILQ_INSERT_TAIL(&f->ring, fl, in_ring);
        unqueue(f, r);
        seat(f, r, id);
        identity_unref(id);
    }
    timer_arm(f);
}

/* Refuses the requests that waited too long. */
static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fairness *f = arg;
    uint64_t now = clock_mono_ms();
    struct fair_req *r;

    (void)fd;
    (void)what;
    while ((r = TAILQ_FIRST(&f->arrival)) != NULL && r->deadline_ms <= now) {
        struct stream *s = r->s;

        unqueue(f, r);
        stream_set_release(s, NULL, NULL);
        free(r);
        refuse(f, s, METRICS_REJECT_TIME_OUT);
    }
    timer_arm(f);
}

/* ---- the interface ---- */

struct fairness *fairness_new(struct event_base *base,
                              const struct fairness_config *cfg)
{
    struct fairness *f = xcalloc(1, sizeof(*f));

    rw_assert(cfg->seats > 0);
    f->cfg = *cfg;
    f->kick = event_new(base, -1, 0, kick_cb, f);
    f->timer = evtimer_new(base, timer_cb, f);
    rw_assert(f->kick != NULL && f->timer != NULL);
    TAILQ_INIT(&f->ring);
    TAILQ_INIT(&f->arrival);
    f->stats.seats_limit = cfg->seats;
    return f;
}

void fairness_free(struct fairness *f)
{
    struct fair_req *r;

    if (f == NULL)
        return;
    while ((r = TAILQ_FIRST(&f->arrival)) != NULL) {
        stream_set_release(r->s, NULL, NULL);
        unqueue(f, r);
        free(r);
    }
    event_free(f->kick);
    event_free(f->timer);
    free(f);
}

bool fairness_exempt(const char *path, const struct identity *id)
{
    return strcmp(path, "/healthz") == 0 || strcmp(path, "/livez") == 0 ||
           strcmp(path, "/readyz") == 0 ||
           (id != NULL && identity_in_group(id, IDENTITY_MASTERS));
}

void fairness_admit(struct fairness *f, struct stream *s, struct identity *id,
                    bool exempt, fairness_serve_fn serve, void *arg)
{
    struct fair_flow *fl;
    struct fair_req *r;

    if (exempt) {
        f->stats.dispatched[METRICS_FLOW_EXEMPT]++;
        serve(s, id, arg);
        return;
    }
    r = xcalloc(1, sizeof(*r));
    *r = (struct fair_req){.f = f, .s = s, .serve = serve, .arg = arg};
    if (f->in_use < f->cfg.seats && f->queued == 0) {
        seat(f, r, id);
        return;
    }
    fl = flow_get(f, id->name);
    if (fl->queued >= f->cfg.queue_length) {
        if (fl->queued == 0)
            flow_free(f, fl);
        free(r);
        refuse(f, s, METRICS_REJECT_QUEUE_FULL);
        return;
    }
    r->flow = fl;
    r->id = identity_ref(id);
    r->deadline_ms = clock_mono_ms() + f->cfg.wait_ms;
    TAILQ_INSERT_TAIL(&fl->queue, r, in_flow);
    TAILQ_INSERT_TAIL(&f->arrival, r, in_arrival);
    fl->queued++;
    f->queued++;
    f->stats.queued[METRICS_FLOW_WORKLOAD]++;
    stream_set_release(s, release_cb, r);
    if (TAILQ_FIRST(&f->arrival) == r)
        timer_arm(f);
    if (f->in_use < f->cfg.seats)
        event_active(f->kick, 0, 0);
}

void fairness_stats(const struct fairness *f, struct metrics_fairness *out)
{
    *out = f->stats;
    out->seats_in_use = f->in_use;
}
