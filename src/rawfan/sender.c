/*
 * sender.c: accept, then fan the same bytes out on a timer (see sender.h).
 *
 * Connections live in one array, indexed in accept order, until
 * sender_free; a closed one has fd -1.  Closing one from its own write
 * callback frees only its event and backlog (libevent allows freeing the
 * event whose callback is running), never the slot.  Phases: ACCEPT (until all
 * are in, or setup_s), SEND (the rate timer), DRAIN (backlogs, at most
 * drain_s), DONE.  The schedule is absolute: event k is due at t0 + k / rate,
 * so a slow fan-out delays the next event instead of lowering the rate, up to
 * one second behind.
 */
#include "src/rawfan/sender.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/log.h"

enum sender_phase { PHASE_ACCEPT, PHASE_SEND, PHASE_DRAIN, PHASE_DONE };

struct sender_conn {
    int fd;                   /* -1: closed */
    struct event *wev;        /* EV_WRITE while the backlog is not empty */
    struct evbuffer *backlog; /* bytes the kernel did not take yet */
    struct sender *s;
};

struct sender {
    struct event_base *base;
    const struct chunk *c;
    char *out;      /* batch copies of the record */
    size_t out_len; /* bytes: batch * c->len */
    enum sender_phase phase;
    uint64_t want, rate, batch;
    double duration_s, drain_s;
    struct sender_conn *conns; /* want of them */
    uint64_t open;             /* conns with fd >= 0 */
    uint64_t backlogged;       /* conns with a non-empty backlog */
    struct event *accept_ev, *tick, *phase_timer;
    uint64_t next;    /* index of the next scheduled event */
    double t0, t_end; /* monotonic seconds */
    struct rusage ru0;
    struct sender_stats st;
    void (*done_cb)(void *arg);
    void *arg;
};

/* ==== clocks and /proc ==== */

static double sender_tv(const struct timeval *tv)
{
    return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* VmRSS and VmHWM of this process, bytes (0 when unreadable). */
static void sender_rss(uint64_t *rss, uint64_t *peak)
{
    char line[256];
    unsigned long long kb;
    FILE *f = fopen("/proc/self/status", "r");

    if (f == NULL)
        return;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (rss && sscanf(line, "VmRSS: %llu kB", &kb) == 1)
            *rss = kb * 1024;
        else if (peak && sscanf(line, "VmHWM: %llu kB", &kb) == 1)
            *peak = kb * 1024;
    }
    fclose(f);
}

/* ==== connections ==== */

static void sender_close(struct sender_conn *cn)
{
    if (cn->fd < 0)
        return;
    if (cn->backlog && evbuffer_get_length(cn->backlog) > 0)
        cn->s->backlogged--;
    if (cn->wev)
        event_free(cn->wev);
    if (cn->backlog)
        evbuffer_free(cn->backlog);
    close(cn->fd);
    cn->fd = -1;
    cn->wev = NULL;
    cn->backlog = NULL;
    cn->s->open--;
}

static void sender_finish(struct sender *s);
static void sender_writable_cb(evutil_socket_t fd, short what, void *arg);

/* Queues len bytes at p behind a short write (a copy: the slow path). */
static void sender_queue(struct sender_conn *cn, const char *p, size_t len)
{
    struct sender *s = cn->s;
    size_t have;

    if (cn->backlog == NULL) {
        cn->backlog = evbuffer_new();
        cn->wev = event_new(s->base, cn->fd, EV_WRITE | EV_PERSIST,
                            sender_writable_cb, cn);
    }
    have = evbuffer_get_length(cn->backlog);
    if (have + len > RW_MAX(SENDER_BACKLOG_LIMIT, 2 * s->out_len)) {
        s->st.dropped++;
        sender_close(cn);
        return;
    }
    if (have == 0) {
        s->backlogged++;
        event_add(cn->wev, NULL);
    }
    evbuffer_add(cn->backlog, p, len);
    s->st.backlog_peak = RW_MAX(s->st.backlog_peak, (uint64_t)(have + len));
}

/* One write() of len bytes at p, or behind the backlog if it has bytes. */
static void sender_send(struct sender_conn *cn, const char *p, size_t len)
{
    ssize_t n;

    if (cn->fd < 0)
        return;
    if (cn->backlog && evbuffer_get_length(cn->backlog) > 0) {
        cn->s->st.queued_events++;
        sender_queue(cn, p, len);
        return;
    }
    cn->s->st.writes++;
    n = write(cn->fd, p, len);
    if (n == (ssize_t)len)
        return;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        log_debug("write: %s", strerror(errno));
        cn->s->st.dropped++;
        sender_close(cn);
        return;
    }
    if (n < 0)
        n = 0;
    cn->s->st.short_writes++;
    sender_queue(cn, p + n, len - (size_t)n);
}

static void sender_writable_cb(evutil_socket_t fd, short what, void *arg)
{
    struct sender_conn *cn = arg;
    struct sender *s = cn->s;

    if (evbuffer_write(cn->backlog, fd) < 0 && errno != EAGAIN &&
        errno != EWOULDBLOCK) {
        s->st.dropped++;
        sender_close(cn);
    } else if (evbuffer_get_length(cn->backlog) == 0) {
        s->backlogged--;
        event_del(cn->wev);
        if (s->phase == PHASE_DRAIN)
            sender_close(cn);
    }
    if (s->phase == PHASE_DRAIN && s->backlogged == 0)
        sender_finish(s);
}

/* ==== phases ==== */

static void sender_done(struct sender *s)
{
    struct rusage ru;

    if (s->phase == PHASE_DONE)
        return;
    for (uint64_t i = 0; i < s->want; i++) {
        struct sender_conn *cn = &s->conns[i];

        if (cn->fd >= 0 && cn->backlog && evbuffer_get_length(cn->backlog) > 0)
            s->st.undrained++;
        sender_close(cn);
    }
    if (s->t0 > 0) {
        getrusage(RUSAGE_SELF, &ru);
        s->st.elapsed_s = clock_mono_s() - s->t0;
        s->st.cpu_user_s =
            sender_tv(&ru.ru_utime) - sender_tv(&s->ru0.ru_utime);
        s->st.cpu_sys_s = sender_tv(&ru.ru_stime) - sender_tv(&s->ru0.ru_stime);
    }
    sender_rss(NULL, &s->st.rss_peak);
    s->phase = PHASE_DONE;
    event_del(s->tick);
    event_del(s->phase_timer);
    event_del(s->accept_ev);
    s->done_cb(s->arg);
}

static void sender_drain_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    struct sender *s = arg;

    log_warnx("%llu connections still had a backlog after the drain timeout",
              (unsigned long long)s->backlogged);
    sender_done(s);
}

/* The load is over: last chunk everywhere, close what has no backlog. */
static void sender_finish(struct sender *s)
{
    struct timeval tv;

    if (s->phase == PHASE_SEND) {
        s->phase = PHASE_DRAIN;
        sender_rss(&s->st.rss_loaded, NULL);
        event_del(s->tick);
        for (uint64_t i = 0; i < s->want; i++) {
            struct sender_conn *cn = &s->conns[i];

            sender_send(cn, CHUNK_END, strlen(CHUNK_END));
            if (cn->fd >= 0 &&
                (cn->backlog == NULL || evbuffer_get_length(cn->backlog) == 0))
                sender_close(cn);
        }
        tv = rw_timeval(s->drain_s);
        event_assign(s->phase_timer, s->base, -1, 0, sender_drain_timeout_cb,
                     s);
        event_add(s->phase_timer, &tv);
    }
    if (s->phase == PHASE_DRAIN && s->backlogged == 0)
        sender_done(s);
}

/* Stamps the next event and writes it to every connection. */
static void sender_fan_out(struct sender *s)
{
    uint64_t ns = (uint64_t)clock_wall_ns(), seq = s->st.events * s->batch;

    s->st.events++;
    for (uint64_t j = 0; j < s->batch; j++)
        chunk_stamp(s->c, s->out + j * s->c->len, seq + j + 1, ns);
    for (uint64_t i = 0; i < s->want; i++)
        sender_send(&s->conns[i], s->out, s->out_len);
}

static void sender_tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct sender *s = arg;
    double now = clock_mono_s();
    uint64_t due;
    struct timeval tv;

    if (s->phase != PHASE_SEND)
        return;
    if (s->next >= s->st.scheduled || now >= s->t_end) {
        sender_finish(s);
        return;
    }
    due = RW_MIN(s->st.scheduled,
                 (uint64_t)((now - s->t0) * (double)s->rate) + 1);
    if (due > s->next + s->rate)
        s->next = due - 1; /* over a second behind: skip */
    if (s->next < due) {
        sender_fan_out(s);
        s->next++;
    }
    /* Behind: come back after the loop has polled the sockets once. */
    tv = rw_timeval(s->next < due ? 0
                                  : s->t0 + (double)s->next / (double)s->rate -
                                        clock_mono_s());
    event_add(s->tick, &tv);
}

static void sender_start(struct sender *s)
{
    event_del(s->accept_ev);
    event_del(s->phase_timer);
    s->st.ready = true;
    for (uint64_t i = 0; i < s->want; i++)
        sender_send(&s->conns[i], s->c->head, s->c->head_len);
    log_info("%llu connections: %llu events/s (%llu records per write) "
             "for %g s",
             (unsigned long long)s->want, (unsigned long long)s->rate,
             (unsigned long long)s->batch, s->duration_s);
    s->phase = PHASE_SEND;
    getrusage(RUSAGE_SELF, &s->ru0);
    s->t0 = clock_mono_s();
    s->t_end = s->t0 + s->duration_s;
    event_active(s->tick, EV_TIMEOUT, 0);
}

static void sender_accept_cb(evutil_socket_t lfd, short what, void *arg)
{
    struct sender *s = arg;
    int fd, one = 1;

    while (s->phase == PHASE_ACCEPT && s->st.accepted < s->want) {
        fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                log_warn("accept");
            return;
        }
        /* As ringwatch's listener does for every client connection. */
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        s->conns[s->st.accepted].fd = fd;
        s->conns[s->st.accepted].s = s;
        s->st.accepted++;
        s->open++;
        if (s->st.accepted == s->want)
            sender_start(s);
    }
}

static void sender_setup_timeout_cb(evutil_socket_t fd, short what, void *arg)
{
    struct sender *s = arg;

    log_warnx("only %llu of %llu connections arrived in time",
              (unsigned long long)s->st.accepted, (unsigned long long)s->want);
    sender_done(s);
}

/* ==== public ==== */

struct sender *sender_new(struct event_base *base, int listen_fd,
                          const struct chunk *c, const struct sender_params *p,
                          void (*done_cb)(void *arg), void *arg)
{
    struct sender *s = xcalloc(1, sizeof(*s));
    struct timeval tv = rw_timeval(p->setup_s);

    rw_assert(p->batch >= 1 && p->rate >= 1);
    s->base = base;
    s->c = c;
    s->want = p->connections;
    s->rate = p->rate;
    s->batch = p->batch;
    s->duration_s = p->duration_s;
    s->drain_s = p->drain_s;
    s->done_cb = done_cb;
    s->arg = arg;
    s->out_len = c->len * p->batch;
    s->out = xmalloc(s->out_len);
    for (uint64_t j = 0; j < p->batch; j++)
        memcpy(s->out + j * c->len, c->bytes, c->len);
    s->st.scheduled = (uint64_t)llround(p->duration_s * (double)p->rate);
    s->conns = xcalloc(p->connections, sizeof(*s->conns));
    for (uint64_t i = 0; i < p->connections; i++)
        s->conns[i].fd = -1;
    sender_rss(&s->st.rss_before, NULL);
    s->accept_ev =
        event_new(base, listen_fd, EV_READ | EV_PERSIST, sender_accept_cb, s);
    s->tick = event_new(base, -1, 0, sender_tick_cb, s);
    s->phase_timer = event_new(base, -1, 0, sender_setup_timeout_cb, s);
    event_add(s->accept_ev, NULL);
    event_add(s->phase_timer, &tv);
    return s;
}

void sender_stats(const struct sender *s, struct sender_stats *out)
{
    *out = s->st;
}

void sender_free(struct sender *s)
{
    if (s == NULL)
        return;
    for (uint64_t i = 0; i < s->want; i++)
        sender_close(&s->conns[i]);
    free(s->conns);
    free(s->out);
    event_free(s->accept_ev);
    event_free(s->tick);
    event_free(s->phase_timer);
    free(s);
}
