/*
 * watch_h1.c: the watchers' HTTP/1.1 transport (see watch_h1.h).
 *
 * Data structure: one struct h1_slot per watcher: its bufferevent (NULL
 * when unconnected), an http_parser for the response in flight, and one
 * timer that runs everything that must not happen inside a bufferevent
 * callback (freeing the connection, starting the next request) and the
 * retry backoff.  The http_parser settings are shared.
 *
 * Flow: issue -> (connect) -> write "GET path" -> read callback feeds the
 * parser -> on_headers_complete: watcher_begin; on_body: watcher_data;
 * on_message_complete: pause -> finish: watcher_end, then the timer
 * issues the next request, on the same connection when it may be kept
 * alive.  EOF before the message completes ends the response unclean.
 *
 * Invariants: `busy` exactly while a request is in flight; a slot's
 * bufferevent is freed only from its timer or watch_h1_free.
 */
#include "src/fleet/watch_h1.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>
#include <http_parser.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/fdlimit.h"
#include "src/fleet/dial.h"
#include "src/fleet/watcher.h"
#include "src/log.h"
#include "src/transport.h"

#define WATCH_H1_FD_SPARE 64 /* descriptors kept for everything else */
#define WATCH_H1_LOG_FAILURES 5

struct watch_h1;

struct h1_slot {
    struct watch_h1 *t;
    struct watcher *w;
    struct transport *tr;    /* the connection (NULL when unconnected) */
    struct bufferevent *bev; /* tr's buffered stream */
    struct event *timer;
    http_parser parser;
    bool busy;      /* a request is in flight */
    bool connected; /* TCP is up on bev */
    bool complete;  /* the parser saw the end of the message */
    bool reusable;  /* bev may carry the next request */
};

struct watch_h1 {
    struct event_base *base;
    const struct fleet_dial *d;
    char *authority;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    struct watcher_set *ws;
    struct h1_slot *slots;
    size_t nslots;
    size_t open;
    int64_t now_ns; /* receipt time of the bytes being parsed */
    unsigned failures_logged;
};

static void h1_issue(struct h1_slot *s);

/* ==== parser callbacks ==== */

static int h1_on_headers_complete(http_parser *p)
{
    struct h1_slot *s = p->data;

    watcher_begin(s->w, (int)p->status_code);
    return 0;
}

static int h1_on_body(http_parser *p, const char *at, size_t len)
{
    struct h1_slot *s = p->data;

    watcher_data(s->w, at, len, s->t->now_ns);
    return 0;
}

static int h1_on_message_complete(http_parser *p)
{
    struct h1_slot *s = p->data;

    s->complete = true;
    http_parser_pause(p, 1); /* one response per request */
    return 0;
}

static const http_parser_settings h1_settings = {
    .on_headers_complete = h1_on_headers_complete,
    .on_body = h1_on_body,
    .on_message_complete = h1_on_message_complete,
};

/* ==== connection ==== */

/* Runs the slot's timer from the loop now (or after delay seconds). */
static void h1_schedule(struct h1_slot *s, double delay)
{
    struct timeval tv = rw_timeval(delay);

    evtimer_add(s->timer, &tv);
}

static void h1_close(struct h1_slot *s)
{
    if (s->tr == NULL)
        return;
    transport_free(s->tr);
    s->tr = NULL;
    s->bev = NULL;
    if (s->connected)
        s->t->open--;
    s->connected = false;
    s->reusable = false;
}

/* The response ended; the rest happens from the loop. */
static void h1_finish(struct h1_slot *s, bool clean)
{
    if (!s->busy)
        return;
    s->busy = false;
    s->reusable = clean && http_should_keep_alive(&s->parser);
    if (!s->reusable && s->bev != NULL)
        bufferevent_disable(s->bev, EV_READ | EV_WRITE);
    watcher_end(s->w, clean);
    h1_schedule(s, 0);
}

static void h1_read_cb(struct bufferevent *bev, void *arg)
{
    struct h1_slot *s = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    struct evbuffer_iovec v[8];
    int n;

    s->t->now_ns = clock_wall_ns();
    while (s->busy && !s->complete && evbuffer_get_length(in) > 0) {
        size_t used = 0;

        n = evbuffer_peek(in, -1, NULL, v, RW_ARRAY_LEN(v));
        n = RW_MIN(n, (int)RW_ARRAY_LEN(v));
        for (int i = 0; i < n && !s->complete; i++) {
            size_t k = http_parser_execute(&s->parser, &h1_settings,
                                           v[i].iov_base, v[i].iov_len);

            used += k;
            if (HTTP_PARSER_ERRNO(&s->parser) != HPE_OK &&
                HTTP_PARSER_ERRNO(&s->parser) != HPE_PAUSED) {
                evbuffer_drain(in, evbuffer_get_length(in));
                h1_finish(s, false);
                return;
            }
            if (k < v[i].iov_len)
                break;
        }
        if (used == 0)
            break;
        evbuffer_drain(in, used);
    }
    if (s->busy && s->complete)
        h1_finish(s, true);
    /* Bytes after the response (none expected) are dropped. */
    evbuffer_drain(in, evbuffer_get_length(in));
}

static void h1_event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct h1_slot *s = arg;
    struct watch_h1 *t = s->t;

    if (what & BEV_EVENT_CONNECTED) {
        s->connected = true;
        t->open++;
        return;
    }
    if ((what & BEV_EVENT_ERROR) && s->busy &&
        t->failures_logged++ < WATCH_H1_LOG_FAILURES)
        log_warnx("h1 watcher %u: %s: %s", watcher_id(s->w), t->authority,
                  evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
    if ((what & BEV_EVENT_EOF) && s->busy && !s->complete) {
        /* A body delimited by the connection's end completes here. */
        http_parser_execute(&s->parser, &h1_settings, NULL, 0);
    }
    if (s->busy)
        h1_finish(s, s->complete);
    s->reusable = false;
    bufferevent_disable(bev, EV_READ | EV_WRITE);
}

static bool h1_connect(struct h1_slot *s)
{
    struct watch_h1 *t = s->t;
    evutil_socket_t fd = socket(t->addr.ss_family, SOCK_STREAM, 0);

    if (fd < 0 || evutil_make_socket_nonblocking(fd) != 0 ||
        evutil_make_socket_closeonexec(fd) != 0) {
        if (t->failures_logged++ < WATCH_H1_LOG_FAILURES)
            log_warn("h1 watcher %u: socket", watcher_id(s->w));
        if (fd >= 0)
            evutil_closesocket(fd);
        return false;
    }
    /* TLS (https://) or plain: the transport's bufferevent either way */
    if ((s->tr = fleet_dial_h1(t->d, t->base, fd)) == NULL)
        return false;
    s->bev = transport_bev(s->tr);
    bufferevent_setcb(s->bev, h1_read_cb, NULL, h1_event_cb, s);
    bufferevent_enable(s->bev, EV_READ | EV_WRITE);
    if (bufferevent_socket_connect(s->bev, (struct sockaddr *)&t->addr,
                                   (int)t->addr_len) != 0) {
        if (t->failures_logged++ < WATCH_H1_LOG_FAILURES)
            log_warn("h1 watcher %u: connect %s", watcher_id(s->w),
                     t->authority);
        h1_close(s);
        return false;
    }
    s->reusable = true;
    return true;
}

/* ==== requests ==== */

static void h1_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct h1_slot *s = arg;

    if (!s->busy && !s->reusable)
        h1_close(s);
    h1_issue(s);
}

static void h1_issue(struct h1_slot *s)
{
    struct watch_h1 *t = s->t;
    char path[4096];
    double delay;

    if (s->busy || evtimer_pending(s->timer, NULL))
        return;
    switch (watcher_next(s->w, path, sizeof(path), &delay)) {
    case WATCHER_IDLE:
        return;
    case WATCHER_BACKOFF:
        h1_schedule(s, delay);
        return;
    case WATCHER_GET:
        break;
    }
    if ((s->bev == NULL || !s->reusable) && (h1_close(s), !h1_connect(s))) {
        watcher_end(s->w, false);
        h1_schedule(s, 0);
        return;
    }
    evbuffer_add_printf(bufferevent_get_output(s->bev),
                        "GET %s HTTP/1.1\r\nHost: %s\r\n"
                        "Accept: application/json\r\n%s%s%s"
                        "User-Agent: ringwatch-fleet\r\n\r\n",
                        path, t->authority,
                        t->d->authorization ? "Authorization: " : "",
                        t->d->authorization ? t->d->authorization : "",
                        t->d->authorization ? "\r\n" : "");
    http_parser_init(&s->parser, HTTP_RESPONSE);
    s->parser.data = s;
    s->busy = true;
    s->complete = false;
}

void watch_h1_kick(struct watch_h1 *t)
{
    for (size_t i = 0; i < t->nslots; i++)
        h1_issue(&t->slots[i]);
}

size_t watch_h1_connections_open(const struct watch_h1 *t)
{
    return t->open;
}

/* ==== construction ==== */

/* Raises the descriptor limit and warns when need does not fit. */
static void h1_raise_nofile(size_t need)
{
    uint64_t limit = fdlimit_raise();

    if (limit < need)
        log_warnx("%zu watchers need %zu descriptors; the limit is %llu",
                  need - WATCH_H1_FD_SPARE, need, (unsigned long long)limit);
}

static bool h1_resolve(struct watch_h1 *t, const char *host, const char *port)
{
    struct addrinfo hints = {0}, *ai = NULL;
    int rv;

    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    if ((rv = getaddrinfo(host, port, &hints, &ai)) != 0) {
        log_warnx("resolve %s: %s", host, gai_strerror(rv));
        return false;
    }
    memcpy(&t->addr, ai->ai_addr, ai->ai_addrlen);
    t->addr_len = ai->ai_addrlen;
    freeaddrinfo(ai);
    return true;
}

struct watch_h1 *watch_h1_new(struct event_base *base,
                              const struct fleet_dial *d,
                              struct watcher_set *ws)
{
    struct watch_h1 *t = xcalloc(1, sizeof(*t));

    if (!h1_resolve(t, d->host, d->port)) {
        free(t);
        return NULL;
    }
    t->base = base;
    t->d = d;
    t->authority = strchr(d->host, ':') ? xasprintf("[%s]:%s", d->host, d->port)
                                        : xasprintf("%s:%s", d->host, d->port);
    t->ws = ws;
    t->nslots = watcher_set_size(ws);
    h1_raise_nofile(t->nslots + WATCH_H1_FD_SPARE);
    t->slots = xcalloc(t->nslots ? t->nslots : 1, sizeof(*t->slots));
    for (size_t i = 0; i < t->nslots; i++) {
        t->slots[i].t = t;
        t->slots[i].w = watcher_set_at(ws, i);
        t->slots[i].timer = evtimer_new(base, h1_timer_cb, &t->slots[i]);
    }
    return t;
}

void watch_h1_free(struct watch_h1 *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nslots; i++) {
        h1_close(&t->slots[i]);
        event_free(t->slots[i].timer);
    }
    free(t->slots);
    free(t->authority);
    free(t);
}
