/*
 * registry.c: the serving front's connections and their deferred work
 * (see registry.h).
 */
#include "src/registry.h"

#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/event.h>

#include "cache/rw.h"
#include "src/log.h"

TAILQ_HEAD(front_conns, front_conn);
STAILQ_HEAD(front_work, front_conn);

struct registry {
    struct event *work; /* serves and shuts down queued connections */
    const struct front_config *cfg;
    request_handler_fn handler;
    void *arg;
    struct front_conns conns;
    struct front_work queue;
    bool in_work;     /* inside registry_work_cb */
    bool closing_all; /* registry_close_all */
    bool draining;    /* registry_drain */
    uint64_t open[3];
    uint64_t streams[3];
    uint64_t streams_total[3];
};

void registry_attach(struct registry *r, struct front_conn *c,
                     enum front_protocol protocol)
{
    c->registry = r;
    c->protocol = protocol;
    TAILQ_INSERT_HEAD(&r->conns, c, link);
    r->open[protocol]++;
}

void registry_detach(struct front_conn *c)
{
    struct registry *r = c->registry;

    TAILQ_REMOVE(&r->conns, c, link);
    rw_assert(r->open[c->protocol] > 0);
    r->open[c->protocol]--;
}

static void queue_push(struct registry *r, struct front_conn *c)
{
    c->queued = true;
    STAILQ_INSERT_TAIL(&r->queue, c, work);
}

void registry_schedule(struct front_conn *c)
{
    struct registry *r = c->registry;
    static const struct timeval next_round = {0, 0};

    if (c->dying || c->queued || r->closing_all)
        return;
    queue_push(r, c);
    if (r->in_work)
        event_add(r->work, &next_round);
    else
        event_active(r->work, EV_TIMEOUT, 0);
}

void registry_reap(struct front_conn *c)
{
    struct registry *r = c->registry;

    if (c->dying)
        return;
    c->dying = true;
    if (r->closing_all)
        return;
    if (!c->queued)
        queue_push(r, c);
    event_active(r->work, EV_TIMEOUT, 0);
}

/* Serves or shuts down the connections queued so far; those queued while
 * it runs wait for the next run. */
static void registry_work_cb(evutil_socket_t fd, short what, void *arg)
{
    struct registry *r = arg;
    struct front_work batch = STAILQ_HEAD_INITIALIZER(batch);
    struct front_conn *c;

    STAILQ_CONCAT(&batch, &r->queue);
    r->in_work = true;
    while ((c = STAILQ_FIRST(&batch)) != NULL) {
        STAILQ_REMOVE_HEAD(&batch, work);
        c->queued = false;
        if (c->dying)
            c->close_now(c);
        else
            c->service(c);
    }
    r->in_work = false;
}

void registry_count_stream(struct registry *r, enum front_protocol protocol,
                           int delta)
{
    if (delta > 0) {
        r->streams[protocol]++;
        r->streams_total[protocol]++;
    } else {
        rw_assert(r->streams[protocol] > 0);
        r->streams[protocol]--;
    }
}

void registry_dispatch(struct registry *r, struct stream *s)
{
    r->handler(s, r->arg);
}

const struct front_config *registry_config(const struct registry *r)
{
    return r->cfg;
}

unsigned registry_flush_seconds(const struct registry *r)
{
    return r->cfg->idle_timeout > 0 ? r->cfg->idle_timeout
                                    : REGISTRY_CLOSE_FLUSH_SECONDS;
}

void registry_drain(struct registry *r)
{
    struct front_conn *c;

    r->draining = true;
    TAILQ_FOREACH(c, &r->conns, link)
        if (c->protocol != FRONT_SNIFFING)
            registry_schedule(c);
}

bool registry_draining(const struct registry *r)
{
    return r->draining;
}

void registry_close_all(struct registry *r)
{
    /* Connections on the work FIFO, reaped ones included, are still on
     * the list: closed with the rest.  On_close handlers may touch other
     * streams meanwhile; nothing gets queued. */
    r->closing_all = true;
    STAILQ_INIT(&r->queue);
    while (!TAILQ_EMPTY(&r->conns))
        TAILQ_FIRST(&r->conns)->close_now(TAILQ_FIRST(&r->conns));
    r->closing_all = false;
    event_del(r->work);
}

uint64_t registry_open(const struct registry *r)
{
    return r->open[FRONT_SNIFFING] + r->open[FRONT_H1] + r->open[FRONT_H2];
}

void registry_stats(const struct registry *r, struct registry_stats *out)
{
    const struct front_conn *c;

    memset(out, 0, sizeof(*out));
    memcpy(out->open, r->open, sizeof(out->open));
    memcpy(out->streams, r->streams, sizeof(out->streams));
    memcpy(out->streams_total, r->streams_total, sizeof(out->streams_total));
    TAILQ_FOREACH(c, &r->conns, link) {
        size_t unsent = 0;

        if (c->unfinished != NULL && c->unfinished(c, &unsent)) {
            out->unfinished++;
            out->unsent += unsent;
        }
    }
}

struct registry *registry_new(struct event_base *base,
                              const struct front_config *cfg,
                              request_handler_fn handler, void *arg)
{
    struct registry *r = xcalloc(1, sizeof(*r));

    r->cfg = cfg;
    r->handler = handler;
    r->arg = arg;
    TAILQ_INIT(&r->conns);
    STAILQ_INIT(&r->queue);
    r->work = evtimer_new(base, registry_work_cb, r);
    if (r->work == NULL)
        log_fatalx("registry: cannot create its work event");
    return r;
}

void registry_free(struct registry *r)
{
    if (r == NULL)
        return;
    registry_close_all(r);
    event_free(r->work);
    free(r);
}
