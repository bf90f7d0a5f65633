/*
 * listener.c: accepts connections, sniffs their protocol, keeps them in a
 * list and counts them (see listener.h).
 *
 * Data structure: the listening socket, the registry of connections
 * (registry.h: the list, the counters, the work FIFO) and, per connection
 * still being sniffed, a tiny struct with its transport.  Once the first
 * bytes decide the protocol, the transport is handed, bytes already read
 * included, to conn_h1_new or conn_h2_new and the sniff struct is freed.
 * With TLS configured a sniff starts without a transport: its socket is
 * peeked at (MSG_PEEK, so that OpenSSL reads the ClientHello itself)
 * until the first byte chooses a TLS or a plain transport; a TLS one
 * handshakes, then its plaintext is sniffed like a plain one's.
 *
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
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/address.h"
#include "src/conn_h1.h"
#include "src/conn_h2.h"
#include "src/log.h"
#include "src/registry.h"
#include "src/tls_server.h"
#include "src/tls_transport.h"
#include "src/transport.h"

#define H2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define H2_PREFACE_LEN 24
#define ACCEPT_PAUSE_SECONDS 1
#define TLS_HANDSHAKE 0x16

struct listener {
    struct event_base *base;
    struct evconnlistener *evl;
    bool stopped;         /* listener_stop_accepting */
    struct event *resume; /* re-enables accepting after EMFILE */
    struct front_config cfg;
    struct registry *registry;
    LIST_HEAD(, sniff) sniffing; /* connections being sniffed */
    uint64_t accepted;
    uint64_t rejected;
    int port;
};

struct sniff {
    struct front_conn base;
    LIST_ENTRY(sniff) link; /* the listener's sniffing connections */
    struct listener *l;
    struct transport *t; /* NULL while peeking */
    int fd;              /* while peeking (no transport yet); else -1 */
    struct event *peek;  /* while peeking: the socket readable */
    struct event *timer; /* TLS handshake or refusal: its end due; NULL */
    uint64_t deadline_ms; /* a partial preface: header_timeout; 0 */
    bool answered;        /* plaintext on a TLS-only port: 400 sent */
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

/* ---- sniffing ---- */

static void sniff_free(struct sniff *sn)
{
    registry_detach(&sn->base);
    LIST_REMOVE(sn, link);
    if (sn->peek != NULL)
        event_free(sn->peek);
    if (sn->timer != NULL)
        event_free(sn->timer);
    if (sn->fd >= 0)
        evutil_closesocket(sn->fd);
    transport_free(sn->t);
    free(sn);
}

/* Closes a connection that is still being sniffed, from the loop. */
static void sniff_kill(struct sniff *sn)
{
    if (sn->peek != NULL)
        event_del(sn->peek);
    if (sn->timer != NULL)
        event_del(sn->timer);
    if (sn->t != NULL) {
        struct bufferevent *bev = transport_bev(sn->t);

        bufferevent_disable(bev, EV_READ | EV_WRITE);
        bufferevent_setcb(bev, NULL, NULL, NULL, NULL);
    }
    registry_reap(&sn->base);
}

static void sniff_close_now(struct front_conn *c)
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
    unsigned limit = registry_config(sn->base.registry)->header_timeout;
    struct timeval tv;

    if (limit == 0)
        return; /* idle_timeout, per read */
    if (sn->deadline_ms == 0)
        sn->deadline_ms = clock_mono_ms() + limit * 1000ull;
    clock_until(sn->deadline_ms, &tv);
    bufferevent_set_timeouts(transport_bev(sn->t), &tv, NULL);
}

/* Hands the transport over to the module serving protocol. */
static void sniff_decide(struct sniff *sn, enum front_protocol protocol)
{
    struct registry *r = sn->base.registry;
    struct transport *t = sn->t;

    bufferevent_setcb(transport_bev(t), NULL, NULL, NULL, NULL);
    sn->t = NULL;
    sniff_free(sn);
    if (protocol == FRONT_H2)
        conn_h2_new(r, t);
    else
        conn_h1_new(r, t);
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
        log_debug("listener: a TLS ClientHello where plaintext is expected "
                  "(TLS not configured, or inside TLS); closing");
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

/* A connection being sniffed, not started yet. */
static struct sniff *sniff_new(struct listener *l)
{
    struct sniff *sn = xcalloc(1, sizeof(*sn));

    sn->l = l;
    sn->fd = -1;
    sn->base.service = sniff_service;
    sn->base.close_now = sniff_close_now;
    registry_attach(l->registry, &sn->base, FRONT_SNIFFING);
    LIST_INSERT_HEAD(&l->sniffing, sn, link);
    return sn;
}

/* Sniffs the plaintext sn->t reads (the socket's, or TLS's after the
 * handshake). */
static void sniff_plaintext(struct sniff *sn)
{
    struct timeval tv = {.tv_sec = sn->l->cfg.idle_timeout, .tv_usec = 0};
    struct bufferevent *bev = transport_bev(sn->t);

    bufferevent_setcb(bev, listener_sniff_read_cb, NULL,
                      listener_sniff_event_cb, sn);
    bufferevent_set_timeouts(bev, sn->l->cfg.idle_timeout > 0 ? &tv : NULL,
                             NULL);
    bufferevent_enable(bev, EV_READ);
    /* Bytes may already be there (tests feeding a bufferevent pair; what
     * came with the TLS handshake). */
    if (evbuffer_get_length(bufferevent_get_input(bev)) > 0)
        listener_sniff_read_cb(bev, sn);
}

void listener_adopt(struct listener *l, struct transport *t)
{
    struct sniff *sn = sniff_new(l);

    sn->t = t;
    sniff_plaintext(sn);
}

/* ---- TLS next to plaintext on one port ---- */

/* TLS is up: ALPN's "h2" goes to conn_h2 at once; "http/1.1" or none is
 * sniffed as plaintext (an HTTP/2 client with prior knowledge over TLS
 * without ALPN still sends the preface). */
static void listener_handshake_cb(struct bufferevent *bev, short what,
                                  void *arg)
{
    struct sniff *sn = arg;
    const char *alpn, *why;

    if (!(what & BEV_EVENT_CONNECTED)) {
        why = tls_transport_error(sn->t);
        log_debug("listener: TLS handshake failed: %s",
                  why != NULL ? why : "connection closed");
        sniff_kill(sn);
        return;
    }
    event_del(sn->timer);
    alpn = tls_transport_alpn(sn->t);
    if (alpn != NULL && strcmp(alpn, "h2") == 0)
        sniff_decide(sn, FRONT_H2);
    else
        sniff_plaintext(sn);
}

static void listener_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    log_debug("listener: TLS handshake or plaintext refusal not done in "
              "time: closing");
    sniff_kill(arg);
}

/* Closes sn seconds from now, however its bytes trickle in (a timer, not
 * a bufferevent timeout, which each read would restart); 0: never. */
static void sniff_due(struct sniff *sn, unsigned seconds)
{
    struct timeval tv = {.tv_sec = seconds, .tv_usec = 0};

    sn->timer = evtimer_new(sn->l->base, listener_timer_cb, sn);
    if (seconds > 0)
        evtimer_add(sn->timer, &tv);
}

/* Starts TLS on the connection sn peeked at: the handshake is due within
 * header_timeout (idle_timeout when that is 0) of its start. */
static void sniff_tls(struct sniff *sn)
{
    const struct front_config *cfg = &sn->l->cfg;
    struct bufferevent *bev;

    sn->t = tls_server_transport(cfg->tls, sn->l->base, sn->fd);
    sn->fd = -1; /* the transport's, on every path */
    if (sn->t == NULL) {
        log_warnx("listener: cannot set up a TLS connection");
        sniff_kill(sn);
        return;
    }
    sniff_due(sn, cfg->header_timeout ? cfg->header_timeout
                                      : cfg->idle_timeout);
    bev = transport_bev(sn->t);
    bufferevent_setcb(bev, NULL, NULL, listener_handshake_cb, sn);
    bufferevent_enable(bev, EV_READ);
}

/* Plaintext on a TLS-only port, as Go's net/http answers it (its
 * tlsRecordHeaderLooksLikeHTTP): when the first 5 bytes look like an
 * HTTP request, a 400, then close (the write side first, so that the
 * client reads it and not a reset); anything else is closed at once. */
#define HTTPS_ONLY                                                           \
    "HTTP/1.0 400 Bad Request\r\n\r\n"                                       \
    "Client sent an HTTP request to an HTTPS server.\n"

/* The bytes Go looks at: a TLS record header's length (recordHeaderLen). */
#define HTTP_SNIFF_BYTES 5

static bool looks_like_http(const unsigned char *p)
{
    static const char starts[][HTTP_SNIFF_BYTES + 1] = {
        "GET /", "HEAD ", "POST ", "PUT /", "OPTIO"};

    for (size_t i = 0; i < RW_ARRAY_LEN(starts); i++)
        if (memcmp(p, starts[i], HTTP_SNIFF_BYTES) == 0)
            return true;
    return false;
}

static void listener_refused_write_cb(struct bufferevent *bev, void *arg)
{
    struct sniff *sn = arg;

    if (sn->answered && transport_shutdown_write(sn->t) != RW_OK)
        sniff_kill(sn);
}

static void listener_refused_read_cb(struct bufferevent *bev, void *arg)
{
    struct sniff *sn = arg;
    struct evbuffer *in = bufferevent_get_input(bev);

    if (!sn->answered) {
        if (evbuffer_get_length(in) < HTTP_SNIFF_BYTES)
            return;
        if (!looks_like_http(evbuffer_pullup(in, HTTP_SNIFF_BYTES))) {
            log_debug("listener: plaintext, not HTTP, on a TLS port: closing");
            sniff_kill(sn);
            return;
        }
        log_debug("listener: plaintext HTTP on a TLS port: 400");
        sn->answered = true;
        evbuffer_add(bufferevent_get_output(bev), HTTPS_ONLY,
                     sizeof(HTTPS_ONLY) - 1);
    }
    evbuffer_drain(in, evbuffer_get_length(in));
}

static void listener_refused_event_cb(struct bufferevent *bev, short what,
                                      void *arg)
{
    sniff_kill(arg);
}

/* The refusal is over (answered and flushed, or not HTTP) this long after
 * the first byte: a client trickling bytes does not hold it open. */
#define REFUSE_SECONDS 2

static void sniff_refuse_plaintext(struct sniff *sn)
{
    struct bufferevent *bev =
        bufferevent_socket_new(sn->l->base, sn->fd, BEV_OPT_CLOSE_ON_FREE);

    if (bev == NULL) {
        sniff_kill(sn);
        return;
    }
    sn->fd = -1;
    sn->t = transport_plain_new(bev);
    sniff_due(sn, REFUSE_SECONDS);
    bufferevent_setcb(bev, listener_refused_read_cb, listener_refused_write_cb,
                      listener_refused_event_cb, sn);
    bufferevent_enable(bev, EV_READ | EV_WRITE);
}

/* Decides on the first byte waiting on the socket: TLS, plaintext served,
 * or plaintext refused.  Returns false when none is there yet. */
static bool sniff_first_byte(struct sniff *sn)
{
    unsigned char first;
    ssize_t n = transport_peek(sn->fd, &first, 1);
    struct bufferevent *bev;

    if (n == 0)
        return false;
    if (sn->peek != NULL)
        event_del(sn->peek);
    if (n < 0) {
        sniff_kill(sn);
    } else if (first == TLS_HANDSHAKE) {
        sniff_tls(sn);
    } else if (!sn->l->cfg.tls_plaintext) {
        sniff_refuse_plaintext(sn);
    } else if ((bev = bufferevent_socket_new(sn->l->base, sn->fd,
                                             BEV_OPT_CLOSE_ON_FREE)) == NULL) {
        sniff_kill(sn);
    } else {
        sn->fd = -1;
        sn->t = transport_plain_new(bev);
        sniff_plaintext(sn);
    }
    return true;
}

static void listener_peek_cb(evutil_socket_t fd, short what, void *arg)
{
    struct sniff *sn = arg;

    if (what & EV_TIMEOUT) {
        log_debug("listener: connection idle before its first byte");
        sniff_kill(sn);
        return;
    }
    sniff_first_byte(sn);
}

/* With TLS configured: waits for the connection's first byte (usually
 * there already: the listener defers accept until data comes), within
 * idle_timeout. */
static void listener_peek(struct listener *l, evutil_socket_t fd)
{
    struct sniff *sn = sniff_new(l);
    struct timeval tv = {.tv_sec = l->cfg.idle_timeout, .tv_usec = 0};

    sn->fd = (int)fd;
    if (sniff_first_byte(sn))
        return;
    sn->peek = event_new(l->base, fd, EV_READ | EV_PERSIST, listener_peek_cb,
                         sn);
    event_add(sn->peek, l->cfg.idle_timeout > 0 ? &tv : NULL);
}

/* ---- accepting ---- */

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

    l->accepted++;
    if (l->cfg.max_connections > 0 &&
        registry_open(l->registry) >= l->cfg.max_connections) {
        if (l->rejected++ == 0)
            log_warnx("listener: max_connections (%u) reached; closing new "
                      "connections (logged once)",
                      l->cfg.max_connections);
        evutil_closesocket(fd);
        return;
    }
    listener_adopt_socket(l, fd);
}

void listener_adopt_socket(struct listener *l, int fd)
{
    struct bufferevent *bev;

    socket_setup(l, fd);
    if (l->cfg.tls != NULL) {
        listener_peek(l, fd);
        return;
    }
    bev = bufferevent_socket_new(l->base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (bev == NULL) {
        log_warnx("listener: cannot create a bufferevent");
        evutil_closesocket(fd);
        return;
    }
    listener_adopt(l, transport_plain_new(bev));
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
    struct sniff *sn;

    listener_stop_accepting(l);
    LIST_FOREACH(sn, &l->sniffing, link)
        if (!sn->base.dying)
            sniff_kill(sn); /* no request yet */
    registry_drain(l->registry); /* each service closes it when done */
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
    LIST_INIT(&l->sniffing);
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
    l->registry = registry_new(base, &l->cfg, handler, arg);
    l->port = bound_port(evconnlistener_get_fd(l->evl));
    log_debug("listener: listening on %s (port %d)", address, l->port);
    return l;
err:
    free(l);
    return NULL;
}

void listener_close_connections(struct listener *l)
{
    registry_close_all(l->registry);
}

void listener_free(struct listener *l)
{
    if (l == NULL)
        return;
    if (l->evl != NULL)
        evconnlistener_free(l->evl);
    if (l->resume != NULL)
        event_free(l->resume);
    registry_free(l->registry);
    free(l);
}

int listener_port(const struct listener *l)
{
    return l->port;
}

void listener_stats(const struct listener *l, struct listener_stats *out)
{
    struct registry_stats rs;

    registry_stats(l->registry, &rs);
    memset(out, 0, sizeof(*out));
    out->connections_sniffing = rs.open[FRONT_SNIFFING];
    out->connections_h1 = rs.open[FRONT_H1];
    out->connections_h2 = rs.open[FRONT_H2];
    out->streams_h1 = rs.streams[FRONT_H1];
    out->streams_h2 = rs.streams[FRONT_H2];
    out->connections_total = l->accepted;
    out->connections_rejected = l->rejected;
    out->streams_h1_total = rs.streams_total[FRONT_H1];
    out->streams_h2_total = rs.streams_total[FRONT_H2];
    out->connections_unfinished = rs.unfinished;
    out->bytes_unsent = rs.unsent;
}
