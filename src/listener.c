/*
 * listener.c: accepts connections, sniffs their protocol, keeps them in a
 * list and counts them (see listener.h).
 *
 * Data structure: a doubly linked list of struct front_conn (sniffing,
 * HTTP/1.x and HTTP/2 connections alike) and counters per protocol.  A
 * sniffing connection is a bufferevent and a tiny struct; once its first
 * bytes decide the protocol it is handed, bytes already read included, to
 * conn_h1_new or conn_h2_new and the sniff struct is freed.
 *
 * The listener also runs its connections' deferred work: one event and a
 * FIFO of connections (front_conn.work_next) to serve (listener_schedule)
 * or to shut down (listener_reap).  Connections therefore hold no deferred
 * callback of their own, and no event but an HTTP/2 connection's write
 * event, which event_free releases at once, so that listener_free can free
 * every one of them without running the loop again.
 *
 * Invariants: every open connection is on the list exactly once, under the
 * protocol it is counted as; connections_sniffing + connections_h1 +
 * connections_h2 is the list's length.  A connection is on the work queue
 * at most once (queued); it is freed only off the queue (popped by the
 * work event) or by listener_close_connections, which drops the queue.
 * When accept fails for lack of file descriptors, accepting pauses for a
 * second instead of spinning.
 */
#include "src/listener.h"

#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "cache/rw.h"
#include "src/address.h"
#include "src/conn_h1.h"
#include "src/conn_h2.h"
#include "src/log.h"
#include "src/stream_impl.h"

#define H2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define H2_PREFACE_LEN 24
#define ACCEPT_PAUSE_SECONDS 1
#define TLS_HANDSHAKE 0x16

struct listener {
    struct event_base *base;
    struct evconnlistener *evl;
    bool stopped;         /* listener_stop_accepting */
    bool draining;        /* listener_drain */
    struct event *resume; /* re-enables accepting after EMFILE */
    struct event *work;   /* serves and shuts down queued connections */
    struct front_config cfg;
    request_handler_fn handler;
    void *arg;
    struct front_conn *conns;
    struct front_conn *queue, **queue_tail; /* via work_next */
    bool in_work;                           /* inside listener_work_cb */
    bool closing_all;                       /* listener_close_connections */
    uint64_t open[3];                       /* by enum front_protocol */
    uint64_t streams[3];                    /* open, by protocol */
    uint64_t streams_total[3];
    uint64_t accepted;
    uint64_t rejected;
    int port;
};

struct sniff {
    struct front_conn base;
    struct bufferevent *bev;
    uint64_t deadline_ms; /* a partial preface: header_timeout; 0 */
};

void listener_config_defaults(struct front_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->max_connections = 10000;
    cfg->h2_max_concurrent_streams = 1000;
    cfg->max_header_bytes = 64 * 1024;
    cfg->idle_timeout = 90;
    cfg->header_timeout = 32;
    cfg->sndbuf = 0;
    cfg->output_high_water = 128 * 1024;
}

/* ---- connection list (for the connection modules) ---- */

void listener_attach(struct listener *l, struct front_conn *c,
                     enum front_protocol protocol)
{
    c->listener = l;
    c->protocol = protocol;
    c->prev = NULL;
    c->next = l->conns;
    if (l->conns != NULL)
        l->conns->prev = c;
    l->conns = c;
    l->open[protocol]++;
}

void listener_detach(struct front_conn *c)
{
    struct listener *l = c->listener;

    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        l->conns = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    rw_assert(l->open[c->protocol] > 0);
    l->open[c->protocol]--;
}

static void queue_push(struct listener *l, struct front_conn *c)
{
    c->queued = true;
    c->work_next = NULL;
    *l->queue_tail = c;
    l->queue_tail = &c->work_next;
}

void listener_schedule(struct front_conn *c)
{
    struct listener *l = c->listener;
    static const struct timeval next_round = {0, 0};

    if (c->dying || c->queued || l->closing_all)
        return;
    queue_push(l, c);
    if (l->in_work)
        event_add(l->work, &next_round);
    else
        event_active(l->work, EV_TIMEOUT, 0);
}

void listener_reap(struct front_conn *c)
{
    struct listener *l = c->listener;

    if (c->dying)
        return;
    c->dying = true;
    if (l->closing_all)
        return;
    if (!c->queued)
        queue_push(l, c);
    event_active(l->work, EV_TIMEOUT, 0);
}

/* Serves or shuts down the connections queued so far; those queued while
 * it runs wait for the next run. */
static void listener_work_cb(evutil_socket_t fd, short what, void *arg)
{
    struct listener *l = arg;
    struct front_conn *c, *batch = l->queue;

    l->queue = NULL;
    l->queue_tail = &l->queue;
    l->in_work = true;
    while ((c = batch) != NULL) {
        batch = c->work_next;
        c->work_next = NULL;
        c->queued = false;
        if (c->dying)
            c->shutdown(c);
        else
            c->service(c);
    }
    l->in_work = false;
}

void listener_count_stream(struct listener *l, enum front_protocol protocol,
                           int delta)
{
    if (delta > 0) {
        l->streams[protocol]++;
        l->streams_total[protocol]++;
    } else {
        rw_assert(l->streams[protocol] > 0);
        l->streams[protocol]--;
    }
}

unsigned listener_flush_seconds(const struct listener *l)
{
    return l->cfg.idle_timeout > 0 ? l->cfg.idle_timeout
                                   : LISTENER_CLOSE_FLUSH_SECONDS;
}

void listener_close_output(struct bufferevent *bev, unsigned flush_seconds)
{
    struct timeval tv = {.tv_sec = flush_seconds, .tv_usec = 0};

    bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
    bufferevent_set_timeouts(bev, NULL, &tv);
}

const struct front_config *listener_config(const struct listener *l)
{
    return &l->cfg;
}

void listener_dispatch(struct listener *l, struct stream *s)
{
    l->handler(s, l->arg);
}

/* ---- sniffing ---- */

static void sniff_free(struct sniff *sn)
{
    listener_detach(&sn->base);
    if (sn->bev != NULL)
        bufferevent_free(sn->bev);
    free(sn);
}

/* Closes a connection that is still being sniffed, from the loop. */
static void sniff_kill(struct sniff *sn)
{
    bufferevent_disable(sn->bev, EV_READ | EV_WRITE);
    bufferevent_setcb(sn->bev, NULL, NULL, NULL, NULL);
    listener_reap(&sn->base);
}

static void sniff_shutdown(struct front_conn *c)
{
    sniff_free((struct sniff *)c);
}

static void sniff_service(struct front_conn *c)
{
    /* nothing: a sniffing connection is never scheduled, only reaped */
}

/* A prefix of the preface has come: the rest is due within
 * header_timeout of its first byte, however it trickles in. */
static void sniff_wait_preface(struct sniff *sn)
{
    unsigned limit = sn->base.listener->cfg.header_timeout;
    struct timeval tv;

    if (limit == 0)
        return; /* idle_timeout, per read */
    if (sn->deadline_ms == 0)
        sn->deadline_ms = listener_now_ms() + limit * 1000ull;
    listener_until(sn->deadline_ms, &tv);
    bufferevent_set_timeouts(sn->bev, &tv, NULL);
}

/* Hands the bufferevent over to the module serving protocol. */
static void sniff_decide(struct sniff *sn, enum front_protocol protocol)
{
    struct listener *l = sn->base.listener;
    struct bufferevent *bev = sn->bev;

    bufferevent_setcb(bev, NULL, NULL, NULL, NULL);
    sn->bev = NULL;
    sniff_free(sn);
    if (protocol == FRONT_H2)
        conn_h2_new(l, bev);
    else
        conn_h1_new(l, bev);
}

static void listener_sniff_read_cb(struct bufferevent *bev, void *arg)
{
    struct sniff *sn = arg;
    struct evbuffer *in = bufferevent_get_input(bev);
    size_t len = RW_MIN(evbuffer_get_length(in), (size_t)H2_PREFACE_LEN);
    const unsigned char *p;

    if (len == 0)
        return;
    p = evbuffer_pullup(in, (ssize_t)len);
    if (p[0] == TLS_HANDSHAKE) {
        log_debug("listener: TLS ClientHello: TLS is not supported; "
                  "closing");
        sniff_kill(sn);
        return;
    }
    if (memcmp(p, H2_PREFACE, len) != 0)
        sniff_decide(sn, FRONT_H1);
    else if (len == H2_PREFACE_LEN)
        sniff_decide(sn, FRONT_H2);
    else
        sniff_wait_preface(sn); /* a prefix of the preface so far */
}

static void listener_sniff_event_cb(struct bufferevent *bev, short what,
                                    void *arg)
{
    struct sniff *sn = arg;
    struct evbuffer *in = bufferevent_get_input(bev);

    /* A client that sent a prefix of the preface and then half-closed
     * is not speaking HTTP/2: let HTTP/1.x answer (400). */
    if ((what & BEV_EVENT_EOF) && evbuffer_get_length(in) > 0) {
        sniff_decide(sn, FRONT_H1);
        return;
    }
    log_debug("listener: connection closed while sniffing (%s)",
              (what & BEV_EVENT_TIMEOUT) ? "timeout" : "eof or error");
    sniff_kill(sn);
}

void listener_adopt(struct listener *l, struct bufferevent *bev)
{
    struct sniff *sn = xcalloc(1, sizeof(*sn));
    struct timeval tv = {.tv_sec = l->cfg.idle_timeout, .tv_usec = 0};

    sn->bev = bev;
    sn->base.service = sniff_service;
    sn->base.shutdown = sniff_shutdown;
    listener_attach(l, &sn->base, FRONT_SNIFFING);
    bufferevent_setcb(bev, listener_sniff_read_cb, NULL,
                      listener_sniff_event_cb, sn);
    if (l->cfg.idle_timeout > 0)
        bufferevent_set_timeouts(bev, &tv, NULL);
    bufferevent_enable(bev, EV_READ);
    /* Bytes may already be there (tests feeding a bufferevent pair). */
    if (evbuffer_get_length(bufferevent_get_input(bev)) > 0)
        listener_sniff_read_cb(bev, sn);
}

/* ---- accepting ---- */

static uint64_t open_connections(const struct listener *l)
{
    return l->open[FRONT_SNIFFING] + l->open[FRONT_H1] + l->open[FRONT_H2];
}

static void socket_setup(const struct listener *l, evutil_socket_t fd)
{
    int one = 1;

    /* Watch events are small and latency matters: no Nagle delay, as Go's
     * net package sets by default under kube-apiserver. */
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
        log_debug("listener: TCP_NODELAY: %s", strerror(errno));
    if (l->cfg.sndbuf > 0 &&
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &l->cfg.sndbuf,
                   sizeof(l->cfg.sndbuf)) < 0)
        log_debug("listener: SO_SNDBUF: %s", strerror(errno));
}

static void listener_accept_cb(struct evconnlistener *evl, evutil_socket_t fd,
                               struct sockaddr *sa, int salen, void *arg)
{
    struct listener *l = arg;
    struct bufferevent *bev;

    l->accepted++;
    if (l->cfg.max_connections > 0 &&
        open_connections(l) >= l->cfg.max_connections) {
        if (l->rejected++ == 0)
            log_warnx("listener: max_connections (%u) reached; closing new "
                      "connections (logged once)",
                      l->cfg.max_connections);
        evutil_closesocket(fd);
        return;
    }
    socket_setup(l, fd);
    bev = bufferevent_socket_new(l->base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (bev == NULL) {
        log_warnx("listener: cannot create a bufferevent");
        evutil_closesocket(fd);
        return;
    }
    listener_adopt(l, bev);
}

static void listener_resume_cb(evutil_socket_t fd, short what, void *arg)
{
    struct listener *l = arg;

    if (!l->stopped)
        evconnlistener_enable(l->evl);
}

void listener_stop_accepting(struct listener *l)
{
    event_del(l->resume);
    /* closed, not just disabled: the kernel would otherwise complete
     * new handshakes that nobody answers */
    if (l->evl != NULL)
        evconnlistener_free(l->evl);
    l->evl = NULL;
    l->stopped = true;
}

void listener_drain(struct listener *l)
{
    struct front_conn *c, *next;

    listener_stop_accepting(l);
    l->draining = true;
    for (c = l->conns; c != NULL; c = next) {
        next = c->next;
        if (c->protocol == FRONT_SNIFFING)
            sniff_kill((struct sniff *)c); /* no request yet */
        else
            listener_schedule(c); /* its service closes it when done */
    }
}

bool listener_draining(const struct listener *l)
{
    return l->draining;
}

static void listener_error_cb(struct evconnlistener *evl, void *arg)
{
    struct listener *l = arg;
    struct timeval tv = {.tv_sec = ACCEPT_PAUSE_SECONDS, .tv_usec = 0};

    log_warn("listener: accept");
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
        errno == ENOMEM) {
        evconnlistener_disable(l->evl);
        event_add(l->resume, &tv);
    }
}

static int bound_port(evutil_socket_t fd)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);

    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        return -1;
    if (ss.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

struct listener *listener_new(struct event_base *base, const char *address,
                              const struct front_config *cfg,
                              request_handler_fn handler, void *arg)
{
    struct listener *l = xcalloc(1, sizeof(*l));
    struct sockaddr_storage ss;
    socklen_t sslen = sizeof(ss);
    char why[160];
    unsigned flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE |
                     LEV_OPT_CLOSE_ON_EXEC | LEV_OPT_DEFERRED_ACCEPT;

    l->base = base;
    l->cfg = *cfg;
    l->handler = handler;
    l->arg = arg;
    if (address_parse_listen(address, &ss, &sslen, why, sizeof(why)) !=
        RW_OK) {
        log_warnx("listener: \"%s\": %s", address, why);
        goto err;
    }
    l->evl = evconnlistener_new_bind(base, listener_accept_cb, l, flags, 4096,
                                     (struct sockaddr *)&ss, (int)sslen);
    if (l->evl == NULL) {
        log_warn("listener: cannot listen on %s", address);
        goto err;
    }
    evconnlistener_set_error_cb(l->evl, listener_error_cb);
    l->resume = evtimer_new(base, listener_resume_cb, l);
    l->work = evtimer_new(base, listener_work_cb, l);
    l->queue_tail = &l->queue;
    l->port = bound_port(evconnlistener_get_fd(l->evl));
    log_debug("listener: listening on %s (port %d)", address, l->port);
    return l;
err:
    free(l);
    return NULL;
}

void listener_close_connections(struct listener *l)
{
    /* Connections on the work queue, reaped ones included, are still on
     * the list: shut down with the rest.  On_close handlers may touch
     * other streams meanwhile; nothing gets queued. */
    l->closing_all = true;
    l->queue = NULL;
    l->queue_tail = &l->queue;
    while (l->conns != NULL)
        l->conns->shutdown(l->conns);
    l->closing_all = false;
    if (l->work != NULL)
        event_del(l->work);
}

void listener_free(struct listener *l)
{
    if (l == NULL)
        return;
    if (l->evl != NULL)
        evconnlistener_free(l->evl);
    if (l->resume != NULL)
        event_free(l->resume);
    listener_close_connections(l);
    if (l->work != NULL)
        event_free(l->work);
    free(l);
}

int listener_port(const struct listener *l)
{
    return l->port;
}

void listener_stats(const struct listener *l, struct listener_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->connections_sniffing = l->open[FRONT_SNIFFING];
    out->connections_h1 = l->open[FRONT_H1];
    out->connections_h2 = l->open[FRONT_H2];
    out->streams_h1 = l->streams[FRONT_H1];
    out->streams_h2 = l->streams[FRONT_H2];
    out->connections_total = l->accepted;
    out->connections_rejected = l->rejected;
    out->streams_h1_total = l->streams_total[FRONT_H1];
    out->streams_h2_total = l->streams_total[FRONT_H2];
    for (const struct front_conn *c = l->conns; c != NULL; c = c->next) {
        size_t unsent = 0;

        if (c->unfinished != NULL && c->unfinished(c, &unsent)) {
            out->connections_unfinished++;
            out->bytes_unsent += unsent;
        }
    }
}

/* ---- deadlines and output queues (for the connection modules) ---- */

uint64_t listener_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void listener_until(uint64_t deadline_ms, struct timeval *tv)
{
    uint64_t now = listener_now_ms();
    uint64_t left = deadline_ms > now ? deadline_ms - now : 1;

    tv->tv_sec = (time_t)(left / 1000);
    tv->tv_usec = (suseconds_t)(left % 1000) * 1000;
}

int listener_out_copy(struct evbuffer *out, bool *tail_ref, const void *p,
                      size_t len)
{
    struct evbuffer_iovec v;

    if (len == 0)
        return 0;
    if (!*tail_ref)
        return evbuffer_add(out, p, len);
    /* evbuffer_reserve_space sizes a new chain for len (1 KiB at least),
     * not after the immutable tail's length */
    if (evbuffer_reserve_space(out, (ev_ssize_t)len, &v, 1) < 1)
        return -1;
    memcpy(v.iov_base, p, len);
    v.iov_len = len;
    if (evbuffer_commit_space(out, &v, 1) < 0)
        return -1;
    *tail_ref = false;
    return 0;
}

static void listener_unref_cb(const void *data, size_t len, void *extra)
{
    rbuf_unref(extra);
}

int listener_out_add(struct evbuffer *out, bool *tail_ref, struct rbuf *b,
                     size_t off, size_t len)
{
    if (len < LISTENER_COPY_BELOW)
        return listener_out_copy(out, tail_ref, b->data + off, len);
    rbuf_ref(b);
    if (evbuffer_add_reference(out, b->data + off, len, listener_unref_cb, b) <
        0) {
        rbuf_unref(b);
        return -1;
    }
    *tail_ref = true;
    return 0;
}
