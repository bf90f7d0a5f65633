/*
 * transport.c: the transport wrappers and the plain (cleartext)
 * transport (see transport.h); the only module of the HTTP code that
 * makes socket I/O calls.
 *
 * The plain transport is the bufferevent and its socket.  writev is one
 * sendmsg (MSG_NOSIGNAL | MSG_DONTWAIT) of up to TRANSPORT_IOV_MAX iovecs,
 * cut at write_max bytes by shortening the last iovec for the call;
 * readv is one readv(2).  Without a socket (a bufferevent pair) writev
 * copies into the bufferevent's output and readv drains its input.
 * Nothing is allocated per call.
 */
#include "src/transport.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/util.h>

#include "cache/rw.h"
#include "src/log.h"

/* ---- the wrappers ---- */

ssize_t transport_writev(struct transport *t, struct iovec *iov, int n)
{
    return t->ops->writev(t, iov, n);
}

ssize_t transport_readv(struct transport *t, const struct iovec *iov, int n)
{
    return t->ops->readv(t, iov, n);
}

int transport_shutdown_write(struct transport *t)
{
    return t->ops->shutdown_write(t);
}

unsigned transport_wants(const struct transport *t)
{
    return t->ops->wants(t);
}

void transport_free(struct transport *t)
{
    if (t != NULL)
        t->ops->free(t);
}

void transport_limit_writes(struct transport *t, int sndbuf)
{
    int v = 0;
    socklen_t len = sizeof(v);

    t->write_max = 0;
    if (t->fd < 0 || sndbuf <= 0)
        return;
    if (getsockopt(t->fd, SOL_SOCKET, SO_SNDBUF, &v, &len) < 0 || v <= 0)
        t->write_max = (size_t)sndbuf;
    else
        t->write_max = (size_t)v;
}

ssize_t transport_peek(int fd, void *buf, size_t len)
{
    ssize_t n = recv(fd, buf, len, MSG_PEEK | MSG_DONTWAIT);

    if (n > 0)
        return n;
    if (n == 0)
        return RW_ECLOSED;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    return RW_EIO;
}

/* ---- the plain transport ---- */

struct plain {
    struct transport base; /* first */
    unsigned wants;        /* after the last call that made no progress */
};

/* How many of the n iovecs one call writes: at most TRANSPORT_IOV_MAX,
 * and, with write_max, write_max bytes (the last iovec then cut short by
 * *cut bytes, restored by the caller). */
static int plain_span(const struct transport *t, struct iovec *iov, int n,
                      size_t *cut)
{
    size_t sum = 0;

    n = RW_MIN(n, TRANSPORT_IOV_MAX);
    *cut = 0;
    if (t->write_max == 0)
        return n;
    for (int i = 0; i < n; i++) {
        sum += iov[i].iov_len;
        if (sum >= t->write_max) {
            *cut = sum - t->write_max;
            iov[i].iov_len -= *cut;
            return i + 1;
        }
    }
    return n;
}

/* Without a socket: copies into the bufferevent's output, whose
 * watermark and timeouts then apply. */
static ssize_t plain_copy_out(struct transport *t, const struct iovec *iov,
                              int n)
{
    struct evbuffer *out = bufferevent_get_output(t->bev);
    size_t sum = 0;

    for (int i = 0; i < n; i++) {
        if (evbuffer_add(out, iov[i].iov_base, iov[i].iov_len) < 0)
            return sum > 0 ? (ssize_t)sum : RW_EIO;
        sum += iov[i].iov_len;
    }
    return (ssize_t)sum;
}

static ssize_t plain_writev(struct transport *t, struct iovec *iov, int n)
{
    struct plain *p = (struct plain *)t;
    struct msghdr m = {.msg_iov = iov};
    size_t cut;
    ssize_t w;

    if (t->fd < 0)
        return plain_copy_out(t, iov, n);
    m.msg_iovlen = (size_t)plain_span(t, iov, n, &cut);
    w = sendmsg(t->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (cut > 0)
        iov[m.msg_iovlen - 1].iov_len += cut;
    if (w >= 0) {
        p->wants = 0;
        return w;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        p->wants = TRANSPORT_WANT_WRITE;
        return 0;
    }
    log_debug("transport: write: %s", strerror(errno));
    return RW_EIO;
}

static ssize_t plain_readv(struct transport *t, const struct iovec *iov, int n)
{
    struct plain *p = (struct plain *)t;
    ssize_t r;

    if (t->fd < 0) {
        struct evbuffer *in = bufferevent_get_input(t->bev);
        size_t sum = 0;

        for (int i = 0; i < n; i++) {
            int got = evbuffer_remove(in, iov[i].iov_base, iov[i].iov_len);

            if (got <= 0)
                break;
            sum += (size_t)got;
        }
        return (ssize_t)sum;
    }
    r = readv(t->fd, iov, RW_MIN(n, TRANSPORT_IOV_MAX));
    if (r > 0) {
        p->wants = 0;
        return r;
    }
    if (r == 0)
        return RW_ECLOSED;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        p->wants = TRANSPORT_WANT_READ;
        return 0;
    }
    return RW_EIO;
}

static int plain_shutdown_write(struct transport *t)
{
    if (t->fd < 0 || shutdown(t->fd, SHUT_WR) < 0)
        return RW_EIO;
    return RW_OK;
}

static unsigned plain_wants(const struct transport *t)
{
    return ((const struct plain *)t)->wants;
}

static void plain_free(struct transport *t)
{
    struct evbuffer *out = bufferevent_get_output(t->bev);

    /* released now, not when the loop finalizes the bufferevent */
    evbuffer_drain(out, evbuffer_get_length(out));
    bufferevent_free(t->bev); /* closes the socket (BEV_OPT_CLOSE_ON_FREE) */
    free(t);
}

static const struct transport_ops plain_ops = {
    .readv = plain_readv,
    .writev = plain_writev,
    .shutdown_write = plain_shutdown_write,
    .wants = plain_wants,
    .free = plain_free,
};

struct transport *transport_plain_client(struct event_base *base, int fd,
                                         void *arg)
{
    struct bufferevent *bev =
        bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);

    if (bev == NULL) {
        evutil_closesocket(fd);
        return NULL;
    }
    return transport_plain_new(bev);
}

struct transport *transport_plain_new(struct bufferevent *bev)
{
    struct plain *p = xcalloc(1, sizeof(*p));

    p->base.ops = &plain_ops;
    p->base.bev = bev;
    p->base.fd = (int)bufferevent_getfd(bev);
    return &p->base;
}

void transport_base_free(struct event_base *base)
{
    if (base == NULL)
        return;
    event_base_loop(base, EVLOOP_NONBLOCK);
    event_base_free(base);
}
