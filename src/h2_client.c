/*
 * h2_client.c: HTTP/2 cleartext client connection (see h2_client.h).
 *
 * Data structure: one struct h2_client per TCP connection: a bufferevent, an
 * nghttp2 client session, one timer (connect timeout, then keepalive) and
 * a list of its streams (sys/queue.h).  A struct h2_client_stream is the
 * nghttp2 stream user data; it is freed when nghttp2 closes the stream, or
 * with the connection.  A stream with a request body queues it in its own
 * evbuffer, which the nghttp2 data provider drains (DEFERRED while empty).
 *
 * I/O: input is handed to nghttp2_session_mem_recv straight from the
 * bufferevent's chains (evbuffer_peek, no copy); nghttp2 hands DATA to
 * on_data with pointers into those chains.  Output is pulled with
 * nghttp2_session_mem_send into the bufferevent until max_send_buffer bytes
 * wait there; the write callback resumes below half of it.
 *
 * Reentrancy invariant: every entry from the event loop (read, write,
 * event, timer and flush callbacks) runs between depth++ and h2_client_leave().
 * User callbacks may call anything, h2_client_free included: h2_client_free
 * marks the connection freed and it is destroyed only when depth drops back to
 * 0; a freed or closed connection makes no user callback (except the on_close
 * of its streams, once).  Public calls only queue work: the outermost
 * h2_client_leave() flushes nghttp2's output, and calls made from outside any
 * callback activate the flush event instead, so no public call but
 * h2_client_free runs a callback, and a burst of calls becomes one write.
 */
#include "src/h2_client.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>
#include <nghttp2/nghttp2.h>

#include "cache/rw.h"
#include "src/log.h"
#include "src/transport.h"

#define H2_CLIENT_DEFAULT_CONNECT_TIMEOUT 10.0
#define H2_CLIENT_DEFAULT_WINDOW (16u * 1024 * 1024)
#define H2_CLIENT_DEFAULT_SEND_BUFFER (1024u * 1024)
#define H2_CLIENT_MAX_SINGLE_READ (256u * 1024)
/* h2_client_read_more: bytes per recv, and recvs per readable event. */
#define H2_CLIENT_READ_PIECE (256u * 1024)
#define H2_CLIENT_READ_ROUNDS 4

enum h2_client_state {
    H2_CLIENT_CONNECTING,
    H2_CLIENT_OPEN,
    H2_CLIENT_CLOSED,
};

struct h2_client_stream {
    struct h2_client *conn;
    int32_t id;
    struct h2_client_stream_callbacks cbs;
    void *arg;
    struct evbuffer *sendq; /* request body not yet framed; NULL: none */
    bool send_end;          /* the body's end has been queued */
    bool send_done;         /* END_STREAM handed to nghttp2 */
    bool detached;          /* reset or notified: no more callbacks */
    LIST_ENTRY(h2_client_stream) link; /* the connection's streams */
};

struct h2_client {
    struct event_base *base;
    struct transport *t;     /* the connection's byte stream */
    struct bufferevent *bev; /* the transport's buffered stream */
    nghttp2_session *session;
    struct h2_client_callbacks cbs;
    void *arg;
    struct h2_client_config cfg;
    char *host, *port, *authority;
    enum h2_client_state state;
    int depth;         /* nesting of entries from the loop */
    bool freed;        /* h2_client_free called: destroy at depth 0 */
    bool goaway;       /* peer sent GOAWAY: no new streams */
    bool ping_pending; /* keepalive PING sent, nothing received since */
    bool received;     /* bytes arrived since the last keepalive tick */
    int pending_err;   /* failure to report from the timer (resolution) */
    struct event *timer;
    struct event *flush_ev; /* flushes after API calls made from outside */
    LIST_HEAD(, h2_client_stream) streams;
    char last_error[160];
};

static void h2_client_fail(struct h2_client *c, int err, const char *why);

/* ==== lifetime and reentrancy ==== */

static void h2_client_stream_free(struct h2_client_stream *s)
{
    if (s->sendq)
        evbuffer_free(s->sendq);
    free(s);
}

static void h2_client_destroy(struct h2_client *c)
{
    struct h2_client_stream *s, *next;

    for (s = LIST_FIRST(&c->streams); s != NULL; s = next) {
        next = LIST_NEXT(s, link);
        h2_client_stream_free(s);
    }
    nghttp2_session_del(c->session);
    transport_free(c->t);
    if (c->timer)
        event_free(c->timer);
    if (c->flush_ev)
        event_free(c->flush_ev);
    free(c->host);
    free(c->port);
    free(c->authority);
    free(c);
}

/* Tells every stream still attached that it is over (connection gone). */
static void h2_client_notify_streams(struct h2_client *c)
{
    struct h2_client_stream *s, *next;

    for (s = LIST_FIRST(&c->streams); s != NULL; s = next) {
        next = LIST_NEXT(s, link);
        if (s->detached)
            continue;
        s->detached = true;
        if (s->cbs.on_close)
            s->cbs.on_close(H2_CLIENT_ERROR_CONNECTION, s->arg);
    }
}

static void h2_client_flush(struct h2_client *c);

/* Ends one entry from the loop; the outermost flushes or destroys. */
static void h2_client_leave(struct h2_client *c)
{
    if (c->depth == 1 && !c->freed && c->state == H2_CLIENT_OPEN)
        h2_client_flush(c);
    if (--c->depth == 0 && c->freed)
        h2_client_destroy(c);
}

/* Output is pending.  Inside a callback the outermost h2_client_leave flushes
 * it; otherwise the flush event does, from the loop, in this same loop
 * iteration: an API call never runs callbacks itself, and a burst of calls
 * becomes one write. */
static void h2_client_kick(struct h2_client *c)
{
    if (c->depth > 0 || c->state != H2_CLIENT_OPEN)
        return;
    event_active(c->flush_ev, EV_TIMEOUT, 0);
}

static void h2_client_flush_cb(evutil_socket_t fd, short what, void *arg)
{
    struct h2_client *c = arg;

    c->depth++;
    h2_client_leave(c);
}

void h2_client_free(struct h2_client *c)
{
    if (c == NULL || c->freed)
        return;
    c->freed = true;
    if (c->state != H2_CLIENT_CLOSED) {
        c->state = H2_CLIENT_CLOSED;
        if (c->bev)
            bufferevent_disable(c->bev, EV_READ | EV_WRITE);
        event_del(c->timer);
    }
    event_del(c->flush_ev);
    c->depth++;
    h2_client_notify_streams(c);
    h2_client_leave(c);
}

/* ==== output ==== */

static void h2_client_flush(struct h2_client *c)
{
    struct evbuffer *out = bufferevent_get_output(c->bev);

    while (c->state == H2_CLIENT_OPEN && !c->freed &&
           evbuffer_get_length(out) < c->cfg.max_send_buffer) {
        const uint8_t *data;
        ssize_t n = nghttp2_session_mem_send(c->session, &data);

        if (n < 0) {
            h2_client_fail(c, RW_EPROTO, nghttp2_strerror((int)n));
            return;
        }
        if (n == 0)
            break;
        evbuffer_add(out, data, (size_t)n);
    }
    if (c->state == H2_CLIENT_OPEN && !c->freed &&
        !nghttp2_session_want_read(c->session) &&
        !nghttp2_session_want_write(c->session) &&
        evbuffer_get_length(out) == 0)
        h2_client_fail(c, RW_ECLOSED, "connection finished (GOAWAY)");
}

/* ==== nghttp2 callbacks ==== */

static struct h2_client_stream *h2_client_stream_of(struct h2_client *c,
                                                    int32_t id)
{
    struct h2_client_stream *s =
        nghttp2_session_get_stream_user_data(c->session, id);

    if (s == NULL || s->detached || c->freed)
        return NULL;
    return s;
}

static int h2_client_header_cb(nghttp2_session *session,
                               const nghttp2_frame *frame, const uint8_t *name,
                               size_t namelen, const uint8_t *value,
                               size_t valuelen, uint8_t flags, void *user_data)
{
    struct h2_client *c = user_data;
    struct h2_client_stream *s;

    if (frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    s = h2_client_stream_of(c, frame->hd.stream_id);
    if (s != NULL && s->cbs.on_header)
        s->cbs.on_header(
            (const char *)name, namelen, (const char *)value, valuelen,
            (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0, s->arg);
    return 0;
}

static int h2_client_data_chunk_cb(nghttp2_session *session, uint8_t flags,
                                   int32_t stream_id, const uint8_t *data,
                                   size_t len, void *user_data)
{
    struct h2_client *c = user_data;
    struct h2_client_stream *s = h2_client_stream_of(c, stream_id);

    if (s != NULL && s->cbs.on_data)
        s->cbs.on_data(data, len, s->arg);
    return 0;
}

/* The peer ended its side: end ours too if the request body is still
 * open (RFC 9113 8.1: the response is complete, the rest of the request
 * is not needed), so that the stream closes and on_close fires. */
static void h2_client_remote_end(struct h2_client *c, int32_t stream_id)
{
    struct h2_client_stream *s =
        nghttp2_session_get_stream_user_data(c->session, stream_id);

    if (s == NULL || s->sendq == NULL || s->send_done)
        return;
    s->send_done = true;
    s->send_end = true;
    nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, stream_id,
                              NGHTTP2_NO_ERROR);
}

static int h2_client_frame_recv_cb(nghttp2_session *session,
                                   const nghttp2_frame *frame, void *user_data)
{
    struct h2_client *c = user_data;

    switch (frame->hd.type) {
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA:
        if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)
            h2_client_remote_end(c, frame->hd.stream_id);
        break;
    case NGHTTP2_GOAWAY:
        c->goaway = true;
        snprintf(c->last_error, sizeof(c->last_error), "GOAWAY %s",
                 nghttp2_http2_strerror(frame->goaway.error_code));
        break;
    default:
        break;
    }
    return 0;
}

static int h2_client_stream_close_cb(nghttp2_session *session,
                                     int32_t stream_id, uint32_t error_code,
                                     void *user_data)
{
    struct h2_client *c = user_data;
    struct h2_client_stream *s =
        nghttp2_session_get_stream_user_data(session, stream_id);

    if (s == NULL)
        return 0;
    nghttp2_session_set_stream_user_data(session, stream_id, NULL);
    LIST_REMOVE(s, link);
    if (!s->detached && !c->freed && s->cbs.on_close) {
        s->detached = true;
        s->cbs.on_close(error_code, s->arg);
    }
    h2_client_stream_free(s);
    return 0;
}

/* A request HEADERS that could not be sent (GOAWAY, canceled while
 * queued): the stream ends here for its owner. */
static int h2_client_frame_not_send_cb(nghttp2_session *session,
                                       const nghttp2_frame *frame,
                                       int lib_error, void *user_data)
{
    struct h2_client *c = user_data;
    struct h2_client_stream *s;

    if (frame->hd.type != NGHTTP2_HEADERS)
        return 0;
    s = nghttp2_session_get_stream_user_data(session, frame->hd.stream_id);
    if (s == NULL || s->detached || c->freed)
        return 0;
    s->detached = true;
    if (s->cbs.on_close)
        s->cbs.on_close(NGHTTP2_REFUSED_STREAM, s->arg);
    return 0;
}

static int h2_client_error_cb(nghttp2_session *session, int lib_error_code,
                              const char *msg, size_t len, void *user_data)
{
    struct h2_client *c = user_data;

    log_debug("h2c %s: nghttp2: %.*s", c->authority, (int)len, msg);
    return 0;
}

static ssize_t h2_client_body_read_cb(nghttp2_session *session,
                                      int32_t stream_id, uint8_t *buf,
                                      size_t length, uint32_t *data_flags,
                                      nghttp2_data_source *source,
                                      void *user_data)
{
    struct h2_client_stream *s = source->ptr;
    int n = evbuffer_remove(s->sendq, buf, length);

    if (n < 0)
        return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
    if (evbuffer_get_length(s->sendq) == 0 && s->send_end) {
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
        s->send_done = true;
        return n;
    }
    return n > 0 ? n : NGHTTP2_ERR_DEFERRED;
}

static nghttp2_session_callbacks *h2_client_callbacks(void)
{
    static nghttp2_session_callbacks *cbs;

    if (cbs != NULL)
        return cbs;
    if (nghttp2_session_callbacks_new(&cbs) != 0)
        log_fatalx("nghttp2_session_callbacks_new failed");
    nghttp2_session_callbacks_set_on_header_callback(cbs, h2_client_header_cb);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cbs, h2_client_data_chunk_cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        cbs, h2_client_frame_recv_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(
        cbs, h2_client_stream_close_cb);
    nghttp2_session_callbacks_set_on_frame_not_send_callback(
        cbs, h2_client_frame_not_send_cb);
    nghttp2_session_callbacks_set_error_callback2(cbs, h2_client_error_cb);
    return cbs;
}

/* ==== connection events ==== */

static void h2_client_fail(struct h2_client *c, int err, const char *why)
{
    if (c->state == H2_CLIENT_CLOSED)
        return;
    c->state = H2_CLIENT_CLOSED;
    if (why != NULL && (c->last_error[0] == '\0' || err != RW_ECLOSED))
        snprintf(c->last_error, sizeof(c->last_error), "%s", why);
    if (c->bev)
        bufferevent_disable(c->bev, EV_READ | EV_WRITE);
    event_del(c->timer);
    event_del(c->flush_ev);
    log_debug("h2c %s: closed: %s", c->authority, c->last_error);
    h2_client_notify_streams(c);
    if (!c->freed && c->cbs.on_close)
        c->cbs.on_close(c, err, c->arg);
}

static void h2_client_recv(struct h2_client *c)
{
    struct evbuffer *in = bufferevent_get_input(c->bev);
    struct evbuffer_iovec v[16];

    while (c->state == H2_CLIENT_OPEN && !c->freed &&
           evbuffer_get_length(in) > 0) {
        int n = evbuffer_peek(in, -1, NULL, v, RW_ARRAY_LEN(v));
        size_t used = 0;

        if (n > (int)RW_ARRAY_LEN(v))
            n = RW_ARRAY_LEN(v);
        for (int i = 0; i < n && c->state == H2_CLIENT_OPEN && !c->freed; i++) {
            ssize_t rv = nghttp2_session_mem_recv(c->session, v[i].iov_base,
                                                  v[i].iov_len);

            if (rv < 0) {
                h2_client_fail(c, RW_EPROTO, nghttp2_strerror((int)rv));
                return;
            }
            used += (size_t)rv;
        }
        evbuffer_drain(in, used);
    }
}

/*
 * Reads what else the socket holds straight into nghttp2, in large pieces:
 * libevent 2.1 reads at most 4096 bytes per readable event (its
 * EVBUFFER_MAX_READ), each after a FIONREAD ioctl, which at hundreds of
 * MB/s (a large catch-up from etcd, the fleet's watchers) costs more than
 * the parsing.  Called once the input buffer is drained, so bytes stay in
 * order; at most H2_CLIENT_READ_ROUNDS pieces per call, so one connection
 * cannot hold the loop.  EOF and errors are left to the bufferevent: the socket
 * stays readable and its next read reports them.
 */
static void h2_client_read_more(struct h2_client *c)
{
    static uint8_t buf[H2_CLIENT_READ_PIECE];
    const struct iovec v = {.iov_base = buf, .iov_len = sizeof(buf)};
    struct evbuffer *in = bufferevent_get_input(c->bev);

    /* A TLS transport moves decrypted bytes that did not fit into the
     * input buffer (transport.h): those come before the next readv's. */
    for (int k = 0; k < H2_CLIENT_READ_ROUNDS && c->state == H2_CLIENT_OPEN &&
                    !c->freed && evbuffer_get_length(in) == 0;
         k++) {
        ssize_t n = transport_readv(c->t, &v, 1), rv;

        if (n <= 0)
            break;
        rv = nghttp2_session_mem_recv(c->session, buf, (size_t)n);
        if (rv < 0) {
            h2_client_fail(c, RW_EPROTO, nghttp2_strerror((int)rv));
            return;
        }
        if ((size_t)n < sizeof(buf))
            break;
    }
}

static void h2_client_read_cb(struct bufferevent *bev, void *arg)
{
    struct h2_client *c = arg;

    c->depth++;
    c->received = true;
    h2_client_recv(c);
    if (evbuffer_get_length(bufferevent_get_input(bev)) == 0)
        h2_client_read_more(c);
    h2_client_leave(c);
}

static void h2_client_write_cb(struct bufferevent *bev, void *arg)
{
    struct h2_client *c = arg;

    c->depth++;
    h2_client_leave(c); /* flushes more of nghttp2's output */
}

static void h2_client_arm_timer(struct h2_client *c, double seconds)
{
    struct timeval tv = rw_timeval(seconds);

    event_add(c->timer, &tv);
}

static void h2_client_connected(struct h2_client *c)
{
    c->state = H2_CLIENT_OPEN;
    event_del(c->timer);
    bufferevent_enable(c->bev, EV_READ | EV_WRITE);
    if (c->cfg.ping_interval > 0)
        h2_client_arm_timer(c, c->cfg.ping_interval);
    log_debug("h2c %s: connected", c->authority);
    if (c->cbs.on_connect)
        c->cbs.on_connect(c, c->arg);
}

static void h2_client_event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct h2_client *c = arg;
    char why[160];

    c->depth++;
    if (what & BEV_EVENT_CONNECTED) {
        h2_client_connected(c);
    } else if (what & BEV_EVENT_EOF) {
        h2_client_fail(c, RW_ECLOSED, "peer closed the connection");
    } else if (what & BEV_EVENT_ERROR) {
        int e = EVUTIL_SOCKET_ERROR();

        snprintf(why, sizeof(why), "%s: %s",
                 c->state == H2_CLIENT_CONNECTING ? "connect" : "socket",
                 evutil_socket_error_to_string(e));
        h2_client_fail(c, RW_EIO, why);
    }
    h2_client_leave(c);
}

static void h2_client_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct h2_client *c = arg;

    c->depth++;
    if (c->pending_err) {
        h2_client_fail(c, c->pending_err, NULL);
    } else if (c->state == H2_CLIENT_CONNECTING) {
        h2_client_fail(c, RW_ETIMEDOUT, "connect timed out");
    } else if (c->state == H2_CLIENT_OPEN) {
        if (c->received || LIST_EMPTY(&c->streams)) {
            /* Alive (the peer spoke), or idle: like gRPC clients, no PING
             * without a stream (servers count those as abuse). */
            c->ping_pending = false;
        } else if (c->ping_pending) {
            h2_client_fail(c, RW_ETIMEDOUT, "keepalive PING unanswered");
        } else {
            nghttp2_submit_ping(c->session, NGHTTP2_FLAG_NONE, NULL);
            c->ping_pending = true;
        }
        c->received = false;
        if (c->state == H2_CLIENT_OPEN)
            h2_client_arm_timer(c, c->cfg.ping_interval);
    }
    h2_client_leave(c);
}

/* ==== construction ==== */

static int h2_client_session_init(struct h2_client *c)
{
    nghttp2_option *opt;
    nghttp2_settings_entry settings[] = {
        {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
        {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, c->cfg.window_size},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, 1024 * 1024},
    };
    int rv;

    if (nghttp2_option_new(&opt) != 0)
        return RW_EIO;
    nghttp2_option_set_no_closed_streams(opt, 1);
    rv =
        nghttp2_session_client_new2(&c->session, h2_client_callbacks(), c, opt);
    nghttp2_option_del(opt);
    if (rv != 0)
        return RW_EIO;
    nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings,
                            RW_ARRAY_LEN(settings));
    nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0,
                                          (int32_t)c->cfg.window_size);
    return 0;
}

/* Resolves and starts connecting; on failure records why in c. */
static int h2_client_connect(struct h2_client *c)
{
    struct addrinfo hints = {0}, *ai = NULL;
    const struct addrinfo *pick;
    transport_client_fn *make =
        c->cfg.transport != NULL ? c->cfg.transport : transport_plain_client;
    evutil_socket_t fd;
    int one = 1, rv;

    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    rv = getaddrinfo(c->host, c->port, &hints, &ai);
    if (rv != 0) {
        snprintf(c->last_error, sizeof(c->last_error), "resolve %s: %s",
                 c->host, gai_strerror(rv));
        return RW_ENOTFOUND;
    }
    /* One address is tried: IPv4 first ("localhost" may list ::1 first
     * while the server listens on 127.0.0.1 only). */
    pick = ai;
    for (const struct addrinfo *a = ai; a != NULL; a = a->ai_next) {
        if (a->ai_family == AF_INET) {
            pick = a;
            break;
        }
    }
    fd = socket(pick->ai_family, SOCK_STREAM, 0);
    if (fd < 0 || evutil_make_socket_nonblocking(fd) != 0 ||
        evutil_make_socket_closeonexec(fd) != 0) {
        snprintf(c->last_error, sizeof(c->last_error), "socket: %s",
                 strerror(errno));
        if (fd >= 0)
            evutil_closesocket(fd);
        freeaddrinfo(ai);
        return RW_EIO;
    }
    /* set before the transport takes the socket (its fd is then for
     * event registration only, transport.h); kept across connect */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->t = make(c->base, fd, c->cfg.transport_arg);
    if (c->t == NULL) {
        snprintf(c->last_error, sizeof(c->last_error),
                 "cannot set up the connection's transport");
        freeaddrinfo(ai);
        return RW_EIO;
    }
    c->bev = transport_bev(c->t);
    bufferevent_setcb(c->bev, h2_client_read_cb, h2_client_write_cb,
                      h2_client_event_cb, c);
    bufferevent_setwatermark(c->bev, EV_WRITE, c->cfg.max_send_buffer / 2, 0);
    bufferevent_set_max_single_read(c->bev, H2_CLIENT_MAX_SINGLE_READ);
    rv = bufferevent_socket_connect(c->bev, pick->ai_addr,
                                    (int)pick->ai_addrlen);
    freeaddrinfo(ai);
    if (rv != 0) {
        snprintf(c->last_error, sizeof(c->last_error), "connect: %s",
                 strerror(errno));
        return RW_EIO;
    }
    return 0;
}

static void h2_client_config_defaults(struct h2_client_config *cfg)
{
    if (cfg->connect_timeout <= 0)
        cfg->connect_timeout = H2_CLIENT_DEFAULT_CONNECT_TIMEOUT;
    if (cfg->window_size == 0 || cfg->window_size > NGHTTP2_MAX_WINDOW_SIZE)
        cfg->window_size = H2_CLIENT_DEFAULT_WINDOW;
    if (cfg->max_send_buffer == 0)
        cfg->max_send_buffer = H2_CLIENT_DEFAULT_SEND_BUFFER;
}

struct h2_client *h2_client_new(struct event_base *base, const char *host,
                                const char *port,
                                const struct h2_client_config *cfg,
                                const struct h2_client_callbacks *cbs,
                                void *arg)
{
    struct h2_client *c = xcalloc(1, sizeof(*c));
    int err;

    c->base = base;
    c->cbs = *cbs;
    c->arg = arg;
    LIST_INIT(&c->streams);
    if (cfg != NULL)
        c->cfg = *cfg;
    h2_client_config_defaults(&c->cfg);
    c->host = xstrdup(host);
    c->port = xstrdup(port);
    c->authority = strchr(host, ':') ? xasprintf("[%s]:%s", host, port)
                                     : xasprintf("%s:%s", host, port);
    c->state = H2_CLIENT_CONNECTING;
    c->timer = evtimer_new(base, h2_client_timer_cb, c);
    c->flush_ev = event_new(base, -1, 0, h2_client_flush_cb, c);
    err = h2_client_session_init(c);
    if (err == 0)
        err = h2_client_connect(c);
    if (err != 0) {
        /* Reported from the loop, never from inside h2_client_new. */
        c->pending_err = err;
        h2_client_arm_timer(c, 0);
        return c;
    }
    h2_client_arm_timer(c, c->cfg.connect_timeout);
    return c;
}

/* ==== streams ==== */

struct h2_client_stream *
h2_client_request(struct h2_client *c, const char *method, const char *path,
                  const char *authority, const struct h2_client_header *extra,
                  size_t n_extra, unsigned flags,
                  const struct h2_client_stream_callbacks *cbs, void *arg)
{
    size_t nnv = 4 + n_extra;
    nghttp2_nv *nv = xcalloc(nnv, sizeof(*nv));
    const char *pseudo[4][2] = {
        {":method", method},
        {":scheme", "http"},
        {":path", path},
        {":authority", authority ? authority : c->authority}};
    nghttp2_data_provider prd;
    struct h2_client_stream *s;
    int32_t id;

    if (c->state == H2_CLIENT_CLOSED || c->freed || c->goaway) {
        free(nv);
        return NULL;
    }
    for (size_t i = 0; i < nnv; i++) {
        const char *name = i < 4 ? pseudo[i][0] : extra[i - 4].name;
        const char *value = i < 4 ? pseudo[i][1] : extra[i - 4].value;

        nv[i].name = (uint8_t *)(uintptr_t)name;
        nv[i].namelen = strlen(name);
        nv[i].value = (uint8_t *)(uintptr_t)value;
        nv[i].valuelen = strlen(value);
        nv[i].flags = NGHTTP2_NV_FLAG_NONE;
    }
    s = xcalloc(1, sizeof(*s));
    s->conn = c;
    s->cbs = *cbs;
    s->arg = arg;
    if (flags & H2_CLIENT_REQUEST_BODY) {
        s->sendq = evbuffer_new();
        prd.source.ptr = s;
        prd.read_callback = h2_client_body_read_cb;
    }
    id = nghttp2_submit_request(c->session, NULL, nv, nnv,
                                (flags & H2_CLIENT_REQUEST_BODY) ? &prd : NULL,
                                s);
    free(nv);
    if (id < 0) {
        h2_client_stream_free(s);
        return NULL;
    }
    s->id = id;
    LIST_INSERT_HEAD(&c->streams, s, link);
    h2_client_kick(c);
    return s;
}

int h2_client_send(struct h2_client_stream *s, const void *data, size_t len,
                   bool end_stream)
{
    struct h2_client *c = s->conn;

    if (s->sendq == NULL)
        return RW_EINVAL;
    if (s->send_end || s->detached || c->state == H2_CLIENT_CLOSED)
        return RW_ECLOSED;
    if (len > 0)
        evbuffer_add(s->sendq, data, len);
    if (end_stream)
        s->send_end = true;
    /* Fails harmlessly while the stream is still queued or not deferred:
     * the provider is then asked anyway. */
    nghttp2_session_resume_data(c->session, s->id);
    h2_client_kick(c);
    return 0;
}

void h2_client_reset(struct h2_client_stream *s)
{
    struct h2_client *c = s->conn;

    if (s->detached)
        return;
    s->detached = true;
    if (c->state == H2_CLIENT_CLOSED)
        return; /* freed with the connection */
    nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, s->id,
                              NGHTTP2_CANCEL);
    h2_client_kick(c);
}

bool h2_client_is_open(const struct h2_client *c)
{
    return c->state == H2_CLIENT_OPEN && !c->freed && !c->goaway;
}

bool h2_client_is_closed(const struct h2_client *c)
{
    return c->state == H2_CLIENT_CLOSED;
}

struct event_base *h2_client_base(const struct h2_client *c)
{
    return c->base;
}

const char *h2_client_authority(const struct h2_client *c)
{
    return c->authority;
}

const char *h2_client_last_error(const struct h2_client *c)
{
    return c->last_error;
}
