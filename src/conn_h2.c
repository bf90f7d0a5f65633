/*
 * conn_h2.c: an HTTP/2 server connection (RFC 9113, prior knowledge) over
 * nghttp2, which only the h2 modules include (conn_h2, h2_stream, h2_in,
 * h2_guard; h2_client on the client side).
 *
 * Data structure: a transport (transport.h), one nghttp2 server session,
 * the connection's streams (h2_stream.h: each stream, its request fields
 * until dispatch and its body not yet framed; the work FIFO that runs
 * what nghttp2's callbacks recorded), the input path (h2_in.h) and the
 * output queue (h2_out.h).
 *
 * No-copy output: the data source read callback offers nghttp2 up to the
 * frame length it asks for, possibly spanning several segments, with
 * NGHTTP2_DATA_FLAG_NO_COPY (or NGHTTP2_ERR_DEFERRED when the body is
 * empty; the next write resumes it).  Frames go into the connection's own
 * output queue (h2_out.h), not into libevent's evbuffer, which would give
 * each reference its own chain (a malloc) and the header copied after it
 * another: two mallocs and frees per DATA frame at fan-out.  Every
 * payload reaches the transport by reference, a batch of iovecs straight
 * from the ring per transport_writev (h2_out_write), from h2_service
 * after nghttp2_session_send, until the transport takes no more; only
 * then an event of the connection's own waits for the readiness the
 * transport wants (one event, freed with event_free at once: the
 * registry still closes connections without a loop run).  The
 * bufferevent only reads (and keeps the read deadline); without a socket
 * (a bufferevent pair, in tests) the transport copies the ring into the
 * bufferevent's output, where its watermark and timeouts work as before.
 * stream_pending() is the stream's body bytes not yet handed to the
 * output queue.
 *
 * Back-pressure: nghttp2_session_send runs only while the output not yet
 * taken by the kernel is below the configured high-water mark (the send
 * callbacks stop it there, with NGHTTP2_ERR_WOULDBLOCK or _PAUSE, and mark
 * the connection dirty); h2_service then writes and, if the kernel took
 * enough, sends again (H2_SERVICE_ROUNDS at most, then rescheduled); if
 * not, the write event resumes it.  Flow-control windows hold data in the
 * stream bodies, where handlers see it as pending.  The write timeout of
 * the bufferevent is mirrored on the write event (h2_write_timeout): no
 * progress for idle_timeout without a live stream, or flush_seconds once
 * closing, closes the connection; it counts from the last progress.
 *
 * Timeouts, on the bufferevent's two timers only (h2_timeouts).  A
 * connection with a live stream (dispatched, not yet closed: a WATCH) has
 * none: a client that holds a complete request holds its slot fairly.
 * One without: a header block begun (HEADERS without END_HEADERS,
 * trickled CONTINUATION, a HEADERS frame still arriving) must end within
 * header_timeout of its start, and a request body (h2_stream.h: a request
 * that is not a GET or HEAD waits for END_STREAM) within header_timeout
 * of the end of the first header block still waiting for its body, and the
 * connection is closed idle_timeout after its last stream ended and its output
 * was flushed (PING and SETTINGS do not extend it, as Go's http2 server); it
 * must also keep reading its output meanwhile.  Read deadlines are absolute:
 * re-armed with the time left after every read (an answered stream whose
 * request has not ended is reset, h2_stream.h, so it does not stay live). Where
 * header blocks begin and end on the wire is h2_in's to follow.
 *
 * Input reaches nghttp2 through h2_in: a frame at a time, each frame
 * shown first to h2_guard_inspect, header blocks of many frames
 * coalesced (h2_in.h); SETTINGS_MAX_CONCURRENT_STREAMS is enforced by
 * h2_stream rather than by nghttp2: a client's stream error resets that
 * stream only, never the connection and its other watches (h2_guard.h).
 * Closing: what nghttp2 queued (GOAWAY) is flushed, then the write side
 * is shut and input discarded until the client closes (H2_LINGER_SECONDS
 * at most), so that the client reads the last frames rather than a
 * reset.  Under registry_drain (graceful shutdown) a connection sends
 * GOAWAY NO_ERROR and closes once its streams are done.
 *
 * Ordering and lifetimes: handlers run from h2_stream_run_work, after
 * nghttp2 returns, so they may call the stream API freely; stream API
 * calls only mark the connection dirty and schedule it with the registry
 * (registry_schedule), which runs h2_service, and nghttp2_session_send
 * once for many writes.  A connection is freed only from the registry's
 * work event (registry_reap) or by registry_close_all.
 */
#include "src/conn_h2.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <nghttp2/nghttp2.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/h2_guard.h"
#include "src/h2_in.h"
#include "src/h2_out.h"
#include "src/h2_stream.h"
#include "src/log.h"
#include "src/outq.h"
#include "src/registry.h"
#include "src/transport.h"

#define H2_SERVICE_ROUNDS 16       /* send / work rounds per callback */
#define H2_TIMEOUT_FLUSH_SECONDS 2 /* flushing GOAWAY after a timeout */
#define H2_LINGER_SECONDS 2        /* closing: reading until the client does */

struct conn_h2 {
    struct front_conn base; /* first: struct front_conn * converts */
    struct transport *t;
    struct bufferevent *bev; /* the transport's buffered stream */
    struct event *wev;       /* on the transport's fd while it takes no more */
    struct h2_out out;
    unsigned flush_seconds; /* closing: write timeout */
    struct h2_streams ss;   /* nghttp2's user_data */
    struct h2_in in;        /* client bytes into nghttp2 (h2_in.h) */
    /* timeouts (h2_timeouts); times in clock_mono_ms */
    uint64_t idle_since_ms; /* no live stream, output flushed; 0: busy */
    uint64_t armed_ms;      /* the read deadline as armed; 0: none */
    bool write_armed;       /* the write timeout is set */
    bool rearm;             /* bytes read: re-arm the read deadline */
    /* output and service (dirty, in_service and dead: in ss) */
    bool closing;             /* answering no more: flushing, then closing */
    bool lingering;           /* flushed, write side shut: reading until EOF */
    uint64_t linger_until_ms; /* lingering: closed then at the latest */
    bool goaway;              /* registry_drain: GOAWAY submitted */
};

static void conn_h2_writable_cb(evutil_socket_t fd, short what, void *arg);

/* The connection around its stream set (nghttp2's user_data). */
static struct conn_h2 *conn_of(void *user_data)
{
    return (struct conn_h2 *)((char *)user_data - offsetof(struct conn_h2, ss));
}

static size_t h2_high_water(const struct conn_h2 *c)
{
    return registry_config(c->base.registry)->output_high_water;
}

static struct evbuffer *h2_output(const struct conn_h2 *c)
{
    return bufferevent_get_output(c->bev);
}

/* Output bytes not yet taken by the kernel (or, for a bufferevent pair,
 * by its other end: without a write event, the transport copies the
 * queue into the bufferevent's output). */
static size_t h2_output_len(const struct conn_h2 *c)
{
    return c->out.bytes +
           (c->wev == NULL ? evbuffer_get_length(h2_output(c)) : 0);
}

static ssize_t conn_h2_send_cb(nghttp2_session *session, const uint8_t *data,
                               size_t length, int flags, void *user_data)
{
    struct conn_h2 *c = conn_of(user_data);
    uint8_t settings[H2_GUARD_SETTINGS_MAX];

    if (h2_output_len(c) >= h2_high_water(c)) {
        c->ss.dirty = true; /* h2_service writes, then sends again */
        return NGHTTP2_ERR_WOULDBLOCK;
    }
    /* the limit nghttp2 is not told (see h2_guard.h) */
    if (h2_guard_settings(
            data, length,
            registry_config(c->base.registry)->h2_max_concurrent_streams,
            settings))
        h2_out_copy(&c->out, settings, length);
    else
        h2_out_copy(&c->out, data, length);
    return (ssize_t)length;
}

static int conn_h2_send_data_cb(nghttp2_session *session, nghttp2_frame *frame,
                                const uint8_t *framehd, size_t length,
                                nghttp2_data_source *source, void *user_data)
{
    struct conn_h2 *c = conn_of(user_data);

    h2_stream_send_data(&c->ss, frame, framehd, length, source);
    if (h2_output_len(c) >= h2_high_water(c)) {
        c->ss.dirty = true; /* h2_service writes, then sends again */
        return NGHTTP2_ERR_PAUSE;
    }
    return 0;
}

static int conn_h2_error_cb(nghttp2_session *session, int lib_error_code,
                            const char *msg, size_t len, void *user_data)
{
    log_debug("conn_h2: nghttp2: %.*s", (int)len, msg);
    return 0;
}

/* ---- connection ---- */

/* Seconds the kernel may take no output before the connection closes:
 * closing, flush_seconds; without a live stream, idle_timeout (the client
 * must keep reading); else 0, none (back-pressure holds the streams). */
static unsigned h2_write_timeout(const struct conn_h2 *c)
{
    if (c->closing)
        return c->flush_seconds;
    return c->write_armed ? registry_config(c->base.registry)->idle_timeout : 0;
}

/* Waits for the transport to take more: (re)adds the write event, for
 * the readiness the transport wants (transport_wants: writable for a
 * plain socket), with the write timeout when there was progress or it is
 * not pending, so that the timeout counts from the last progress; deletes
 * it when the queue is empty. */
static void h2_write_arm(struct conn_h2 *c, bool progress)
{
    unsigned secs = h2_write_timeout(c);
    struct timeval tv = {.tv_sec = secs, .tv_usec = 0};
    unsigned wants;
    short what;

    if (c->wev == NULL)
        return;
    if (c->out.count == 0) {
        event_del(c->wev);
        return;
    }
    wants = transport_wants(c->t);
    what = (wants & TRANSPORT_WANT_READ ? EV_READ : 0) |
           (wants & TRANSPORT_WANT_WRITE || wants == 0 ? EV_WRITE : 0);
    if (what != event_get_events(c->wev)) {
        event_del(c->wev);
        event_assign(c->wev, bufferevent_get_base(c->bev), transport_fd(c->t),
                     what, conn_h2_writable_cb, c);
        progress = true;
    }
    if (progress || !event_pending(c->wev, EV_READ | EV_WRITE, NULL))
        event_add(c->wev, secs > 0 ? &tv : NULL);
}

/* The write timeout changed: a pending write event takes it. */
static void h2_write_rearm(struct conn_h2 *c)
{
    if (c->wev != NULL && event_pending(c->wev, EV_READ | EV_WRITE, NULL))
        h2_write_arm(c, true);
}

/* Writes the output queue through the transport until it is empty or
 * the transport takes no more (then the write event waits).  Returns
 * RW_OK, or RW_EIO on a socket error (the connection must die). */
static int h2_flush(struct conn_h2 *c)
{
    ssize_t w = h2_out_write(&c->out, c->t);

    if (w < 0)
        return RW_EIO;
    h2_write_arm(c, w > 0);
    h2_out_trim(&c->out, c->ss.live > 0);
    return RW_OK;
}

/* Writes what was queued since the last attempt. */
static int h2_flush_fresh(struct conn_h2 *c)
{
    return c->out.fresh ? h2_flush(c) : 0;
}

static void h2_free(struct conn_h2 *c)
{
    h2_stream_set_fini(&c->ss);
    nghttp2_session_del(c->ss.session);
    h2_in_fini(&c->in);
    registry_detach(&c->base);
    /* released now, not when the loop finalizes the bufferevent */
    h2_out_clear(&c->out);
    if (c->wev != NULL)
        event_free(c->wev);
    transport_free(c->t);
    free(c);
}

static void h2_close_now(struct front_conn *fc)
{
    h2_free((struct conn_h2 *)fc);
}

static bool h2_unfinished(const struct front_conn *fc, size_t *unsent)
{
    const struct conn_h2 *c = (const struct conn_h2 *)fc;

    if (c->ss.dead) {
        *unsent = 0;
        return false;
    }
    *unsent = h2_output_len(c);
    return !LIST_EMPTY(&c->ss.all) || *unsent > 0 ||
           nghttp2_session_want_write(c->ss.session);
}

static void h2_kill(struct conn_h2 *c)
{
    c->ss.dead = true;
    h2_stream_set_gone(&c->ss);
    bufferevent_disable(c->bev, EV_READ | EV_WRITE);
    if (c->wev != NULL)
        event_del(c->wev);
    registry_reap(&c->base);
}

/* Stops answering: what nghttp2 has queued (GOAWAY) is flushed, within
 * flush_seconds of no progress, then the connection closes. */
static void h2_close(struct conn_h2 *c, unsigned flush_seconds)
{
    if (c->closing)
        return;
    c->closing = true;
    c->flush_seconds = flush_seconds;
    outq_close(c->bev, flush_seconds); /* bufferevent pairs */
    h2_write_rearm(c);
}

/* The read deadline (clock_mono_ms) of a connection without a live
 * stream: the end of a header block begun, a request at all; 0: none. */
static uint64_t h2_deadline(struct conn_h2 *c)
{
    const struct front_config *cfg = registry_config(c->base.registry);
    uint64_t deadline = 0, idle;

    if (c->ss.live > 0) {
        c->idle_since_ms = 0;
        return 0;
    }
    if (c->ss.awaiting > 0) /* a request is still arriving: not idle */
        c->idle_since_ms = 0;
    else if (c->idle_since_ms == 0 && h2_output_len(c) == 0)
        c->idle_since_ms = clock_mono_ms();
    if (c->in.in_block && cfg->header_timeout > 0)
        deadline = c->in.block_since_ms + cfg->header_timeout * 1000ull;
    if (c->ss.awaiting > 0 && cfg->header_timeout > 0) {
        uint64_t body = c->ss.awaiting_since_ms + cfg->header_timeout * 1000ull;

        if (deadline == 0 || body < deadline)
            deadline = body;
    }
    if (c->idle_since_ms > 0 && cfg->idle_timeout > 0) {
        idle = c->idle_since_ms + cfg->idle_timeout * 1000ull;
        if (deadline == 0 || idle < deadline)
            deadline = idle;
    }
    return deadline;
}

/* Arms the bufferevent's timers for the connection's state: the read
 * deadline (re-armed with the time left after reads) and, without a live
 * stream, idle_timeout for the client to read pending output. */
static void h2_timeouts(struct conn_h2 *c)
{
    unsigned idle = registry_config(c->base.registry)->idle_timeout;
    struct timeval rtv, wtv = {.tv_sec = idle, .tv_usec = 0};
    uint64_t deadline;
    bool write = idle > 0 && c->ss.live == 0;

    if (c->closing || c->ss.dead)
        return; /* h2_close set its own */
    deadline = h2_deadline(c);
    if (deadline == c->armed_ms && write == c->write_armed &&
        !(c->rearm && deadline != 0))
        return;
    c->armed_ms = deadline;
    c->write_armed = write;
    c->rearm = false;
    if (deadline != 0)
        clock_until(deadline, &rtv);
    bufferevent_set_timeouts(c->bev, deadline != 0 ? &rtv : NULL,
                             write ? &wtv : NULL);
    h2_write_rearm(c);
}

/* The output is flushed: shuts the write side and reads, discarding,
 * until the client closes (H2_LINGER_SECONDS at most), so that it reads
 * the last frames and not a reset (closing a socket with unread input
 * resets it). */
static void h2_linger(struct conn_h2 *c)
{
    struct timeval tv = {.tv_sec = H2_LINGER_SECONDS, .tv_usec = 0};

    if (c->lingering)
        return;
    if (transport_shutdown_write(c->t) != RW_OK) {
        c->ss.dead = true;
        return;
    }
    c->lingering = true;
    c->linger_until_ms = clock_mono_ms() + H2_LINGER_SECONDS * 1000;
    bufferevent_set_timeouts(c->bev, &tv, NULL);
    bufferevent_enable(c->bev, EV_READ);
}

/* Shutting down (registry_drain): GOAWAY with the last stream taken, so
 * that the client opens no more; nghttp2 then ends the session once the
 * streams are done (h2_service closes it). */
static void h2_drain(struct conn_h2 *c)
{
    if (c->goaway || !registry_draining(c->base.registry))
        return;
    c->goaway = true;
    nghttp2_submit_goaway(
        c->ss.session, NGHTTP2_FLAG_NONE,
        nghttp2_session_get_last_proc_stream_id(c->ss.session),
        NGHTTP2_NO_ERROR, NULL, 0);
}

static void h2_service(struct conn_h2 *c)
{
    size_t high = h2_high_water(c);
    nghttp2_session *s = c->ss.session;

    if (c->base.dying)
        return;
    if (c->ss.dead) {
        h2_kill(c);
        return;
    }
    c->ss.in_service = true;
    h2_drain(c);
    h2_stream_run_work(&c->ss);
    for (int round = 0; round < H2_SERVICE_ROUNDS && !c->ss.dead; round++) {
        c->ss.dirty = false;
        /* at the mark: write; still there, the write event resumes */
        if (h2_output_len(c) >= high) {
            if (h2_flush_fresh(c) < 0)
                c->ss.dead = true;
            if (c->ss.dead || h2_output_len(c) >= high)
                break;
        }
        if (nghttp2_session_send(s) != 0) {
            c->ss.dead = true;
            break;
        }
        h2_stream_run_work(&c->ss);
        if (!c->ss.dirty)
            break;
    }
    c->ss.in_service = false;
    if (!c->ss.dead && h2_flush_fresh(c) < 0)
        c->ss.dead = true;
    if (!c->ss.dead && !nghttp2_session_want_read(s) &&
        !nghttp2_session_want_write(s))
        h2_close(c, registry_flush_seconds(c->base.registry));
    if (c->closing && h2_output_len(c) == 0)
        h2_linger(c);
    if (c->ss.dead) {
        h2_kill(c);
        return;
    }
    if (c->ss.dirty && h2_output_len(c) < high)
        h2_stream_schedule(&c->ss);
    h2_timeouts(c);
}

/* ---- libevent callbacks ---- */

/* Hands the input to nghttp2 (h2_in: a frame at a time, through the
 * guard); discards it once closing. */
static void h2_recv(struct conn_h2 *c)
{
    struct evbuffer *in = bufferevent_get_input(c->bev);
    long rv;

    if (!c->closing) {
        rv = h2_in_feed(&c->in, c->ss.session, in, clock_mono_ms());
        if (rv < 0)
            h2_close(c, registry_flush_seconds(c->base.registry));
        else if (rv > 0)
            c->rearm = true;
    }
    if (c->closing)
        evbuffer_drain(in, evbuffer_get_length(in));
    if (c->lingering) { /* a deadline, however the client trickles */
        struct timeval tv;

        clock_until(c->linger_until_ms, &tv);
        bufferevent_set_timeouts(c->bev, &tv, NULL);
    }
}

static void conn_h2_read_cb(struct bufferevent *bev, void *arg)
{
    struct conn_h2 *c = arg;

    if (c->base.dying)
        return;
    h2_recv(c);
    h2_service(c);
}

static void conn_h2_write_cb(struct bufferevent *bev, void *arg)
{
    h2_service(arg);
}

/* The socket takes output again (or took none for the write timeout). */
static void conn_h2_writable_cb(evutil_socket_t fd, short what, void *arg)
{
    struct conn_h2 *c = arg;

    if (c->base.dying)
        return;
    if (what & EV_TIMEOUT) {
        log_debug("conn_h2: write timeout");
        c->ss.dead = true;
    } else if (h2_flush(c) < 0) {
        c->ss.dead = true;
    }
    h2_service(c);
}

/* From the registry's work event: input the sniffer passed on, then the
 * writes and work of the streams. */
static void h2_service_cb(struct front_conn *fc)
{
    struct conn_h2 *c = (struct conn_h2 *)fc;

    if (!c->ss.dead)
        h2_recv(c);
    h2_service(c);
}

static void conn_h2_event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct conn_h2 *c = arg;

    if (c->base.dying)
        return;
    if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_READING) &&
        !c->closing) {
        log_debug("conn_h2: %s: GOAWAY",
                  c->in.in_block ? "header block not finished in time"
                                 : "idle");
        nghttp2_session_terminate_session(c->ss.session, NGHTTP2_NO_ERROR);
        h2_close(c, H2_TIMEOUT_FLUSH_SECONDS);
        bufferevent_enable(bev, EV_READ);
    } else {
        log_debug("conn_h2: %s", (what & BEV_EVENT_EOF)       ? "client closed"
                                 : (what & BEV_EVENT_TIMEOUT) ? "write timeout"
                                                              : "socket error");
        c->ss.dead = true;
    }
    h2_service(c);
}

/* ---- construction ---- */

static nghttp2_session_callbacks *h2_callbacks(void)
{
    nghttp2_session_callbacks *cbs;

    if (nghttp2_session_callbacks_new(&cbs) != 0)
        log_fatalx("conn_h2: out of memory");
    nghttp2_session_callbacks_set_send_callback(cbs, conn_h2_send_cb);
    nghttp2_session_callbacks_set_send_data_callback(cbs, conn_h2_send_data_cb);
    h2_stream_callbacks(cbs);
    nghttp2_session_callbacks_set_error_callback2(cbs, conn_h2_error_cb);
    h2_guard_callbacks(cbs);
    return cbs;
}

static int h2_session_new(struct conn_h2 *c, const struct front_config *cfg)
{
    nghttp2_session_callbacks *cbs = h2_callbacks();
    nghttp2_option *opt;
    nghttp2_settings_entry iv[] = {
        /* on the wire: cfg->h2_max_concurrent_streams (h2_guard.h) */
        {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, H2_GUARD_NO_LIMIT},
        {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
         (uint32_t)RW_MIN(cfg->max_header_bytes, (size_t)UINT32_MAX)},
    };
    int rv;

    if (nghttp2_option_new(&opt) != 0)
        log_fatalx("conn_h2: out of memory");
    /* no history of closed streams for priority: memory per connection */
    nghttp2_option_set_no_closed_streams(opt, 1);
    rv = nghttp2_session_server_new2(&c->ss.session, cbs, &c->ss, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0)
        return rv;
    return nghttp2_submit_settings(c->ss.session, NGHTTP2_FLAG_NONE, iv,
                                   RW_ARRAY_LEN(iv));
}

void conn_h2_new(struct registry *r, struct transport *t)
{
    const struct front_config *cfg = registry_config(r);
    struct conn_h2 *c = xcalloc(1, sizeof(*c));
    struct bufferevent *bev = transport_bev(t);
    int rv;

    c->t = t;
    c->bev = bev;
    /* without a socket (a bufferevent pair), transport_writev copies into
     * the bufferevent's output and there is nothing to wait for */
    if (transport_fd(t) >= 0)
        c->wev = event_new(bufferevent_get_base(bev), transport_fd(t), EV_WRITE,
                           conn_h2_writable_cb, c);
    transport_limit_writes(t, cfg->sndbuf);
    c->base.peer = transport_peer(t);
    c->base.service = h2_service_cb;
    c->base.close_now = h2_close_now;
    c->base.unfinished = h2_unfinished;
    h2_in_init(&c->in);
    h2_stream_set_init(&c->ss, &c->base, &c->in.guard, &c->out);
    registry_attach(r, &c->base, FRONT_H2);
    bufferevent_setcb(bev, conn_h2_read_cb, conn_h2_write_cb, conn_h2_event_cb,
                      c);
    rv = h2_session_new(c, cfg);
    if (rv != 0) {
        log_warnx("conn_h2: cannot start a session: %s", nghttp2_strerror(rv));
        h2_kill(c);
        return;
    }
    bufferevent_setwatermark(bev, EV_WRITE, cfg->output_high_water / 2, 0);
    bufferevent_set_timeouts(bev, NULL, NULL);
    /* with a socket, the bufferevent only reads (and keeps the read
     * deadline); output goes through h2_flush */
    bufferevent_enable(bev, c->wev != NULL ? EV_READ : EV_READ | EV_WRITE);
    h2_timeouts(c);
    /* the preface and whatever followed it: from the loop */
    registry_schedule(&c->base);
}
