/*
 * watch_h2.c: the watchers' HTTP/2 transport (see watch_h2.h).
 *
 * Data structure: the connections (links.h) and one struct h2_slot per
 * watcher (its stream, its link and a retry timer allocated on first
 * use).  h2c's rules make this simple:
 * any call is allowed from inside its callbacks (h2_client_free included), a
 * stream's on_close comes exactly once, and a failing connection closes
 * its streams before it reports its own end.
 *
 * Invariants: slot->stream is non-NULL exactly while a request of that
 * watcher is in flight.
 */
#include "src/fleet/watch_h2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/fleet/dial.h"
#include "src/fleet/links.h"
#include "src/fleet/watcher.h"
#include "src/h2_client.h"
#include "src/log.h"

struct watch_h2;

struct h2_slot {
    struct watch_h2 *t;
    struct watcher *w;
    struct h2_client_stream *stream;
    struct event *retry;
    uint32_t link;
};

struct watch_h2 {
    struct event_base *base;
    const struct fleet_dial *d;
    struct watcher_set *ws;
    struct links *links;
    struct h2_slot *slots;
    size_t nslots;
};

static void h2_issue(struct h2_slot *s);

/* ==== streams ==== */

static void h2_header_cb(const char *name, size_t name_len, const char *value,
                         size_t value_len, bool trailer, void *arg)
{
    struct h2_slot *s = arg;

    if (!trailer && name_len == 7 && memcmp(name, ":status", 7) == 0)
        watcher_begin(s->w, atoi(value));
}

static void h2_data_cb(const uint8_t *data, size_t len, void *arg)
{
    struct h2_slot *s = arg;

    watcher_data(s->w, (const char *)data, len, clock_wall_ns());
}

static void h2_close_cb(uint32_t error_code, void *arg)
{
    struct h2_slot *s = arg;

    s->stream = NULL;
    watcher_end(s->w, error_code == 0);
    h2_issue(s);
}

static const struct h2_client_stream_callbacks h2_stream_cbs = {
    .on_header = h2_header_cb,
    .on_data = h2_data_cb,
    .on_close = h2_close_cb,
};

/* ==== requests ==== */

static void h2_retry_cb(evutil_socket_t fd, short what, void *arg)
{
    h2_issue(arg);
}

static void h2_backoff(struct h2_slot *s, double delay)
{
    struct timeval tv = rw_timeval(delay);

    if (s->retry == NULL)
        s->retry = evtimer_new(s->t->base, h2_retry_cb, s);
    evtimer_add(s->retry, &tv);
}

static void h2_issue(struct h2_slot *s)
{
    const struct h2_client_header headers[] = {
        {"accept", "application/json"},
        {"authorization", s->t->d->authorization},
    };
    size_t nheaders = s->t->d->authorization != NULL ? 2 : 1;
    struct links *ls = s->t->links;
    char path[4096];
    double delay;

    if (s->stream != NULL ||
        (s->retry != NULL && evtimer_pending(s->retry, NULL)))
        return;
    switch (watcher_next(s->w, path, sizeof(path), &delay)) {
    case WATCHER_IDLE:
        return;
    case WATCHER_BACKOFF:
        h2_backoff(s, delay);
        return;
    case WATCHER_GET:
        break;
    }
    s->stream = h2_client_request(links_get(ls, s->link), "GET", path, NULL,
                                  headers, nheaders, 0, &h2_stream_cbs, s);
    /* The connection refuses streams: replace it and try once more. */
    if (s->stream == NULL && links_drop(ls, s->link))
        s->stream = h2_client_request(links_get(ls, s->link), "GET", path, NULL,
                                      headers, nheaders, 0, &h2_stream_cbs, s);
    if (s->stream == NULL) {
        watcher_end(s->w, false);
        h2_backoff(s, 0.5);
    }
}

void watch_h2_kick(struct watch_h2 *t)
{
    for (size_t i = 0; i < t->nslots; i++)
        h2_issue(&t->slots[i]);
}

size_t watch_h2_connections_open(const struct watch_h2 *t)
{
    return links_open(t->links);
}

/* ==== construction ==== */

struct watch_h2 *watch_h2_new(struct event_base *base,
                              const struct fleet_dial *d,
                              struct watcher_set *ws, size_t connections)
{
    struct watch_h2 *t = xcalloc(1, sizeof(*t));

    rw_assert(connections > 0);
    t->base = base;
    t->d = d;
    t->ws = ws;
    t->links = links_new(base, d, connections, "h2");
    t->nslots = watcher_set_size(ws);
    t->slots = xcalloc(t->nslots ? t->nslots : 1, sizeof(*t->slots));
    for (size_t i = 0; i < t->nslots; i++) {
        t->slots[i].t = t;
        t->slots[i].w = watcher_set_at(ws, i);
        t->slots[i].link = (uint32_t)(i % connections);
    }
    return t;
}

void watch_h2_free(struct watch_h2 *t)
{
    if (t == NULL)
        return;
    links_free(t->links); /* streams close: watcher_end, then IDLE */
    for (size_t i = 0; i < t->nslots; i++)
        if (t->slots[i].retry != NULL)
            event_free(t->slots[i].retry);
    free(t->slots);
    free(t);
}
