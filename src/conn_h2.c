/*
 * conn_h2.c: an HTTP/2 server connection (RFC 9113, prior knowledge) over
 * nghttp2; with the fleet's client, the only files that include it.
 *
 * Data structure: a transport (transport.h), one nghttp2 server session,
 * the list of live streams and a FIFO of streams with work for the loop
 * (dispatch a request whose header block is complete, deliver on_drain,
 * deliver on_close and free).  A request is dispatched at the end of its
 * header block (END_HEADERS), not at END_STREAM: ringwatch serves GETs,
 * and a request body, if any, is drained and discarded by nghttp2.  Each
 * stream keeps its request's fields until dispatch (h2_req.h) and its
 * response body not yet framed (h2_body.h): an idle watch costs its
 * struct, its request strings and nghttp2's own stream state.
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
 * header_timeout of its start, and the connection is closed idle_timeout
 * after its last stream ended and its output was flushed (PING and
 * SETTINGS do not extend it, as Go's http2 server); it must also keep
 * reading its output meanwhile.  Read deadlines are absolute: re-armed
 * with the time left after every read.  An answered stream whose request
 * has not ended is reset (NO_ERROR, as Go's server does), so it does not
 * stay live.  Where header blocks begin and end on the wire is h2_in's
 * to follow.
 *
 * Input reaches nghttp2 through h2_in: a frame at a time, each frame
 * shown first to h2_guard_inspect, header blocks of many frames
 * coalesced (h2_in.h); SETTINGS_MAX_CONCURRENT_STREAMS is enforced here
 * rather than by nghttp2: a client's stream error resets that stream
 * only, never the connection and its other watches (h2_guard.h).
 * Closing: what nghttp2 queued (GOAWAY) is flushed, then the write side
 * is shut and input discarded until the client closes (H2_LINGER_SECONDS
 * at most), so that the client reads the last frames rather than a
 * reset.  Under registry_drain (graceful shutdown) a connection sends
 * GOAWAY NO_ERROR and closes once its streams are done.
 *
 * Ordering and lifetimes: nghttp2's callbacks only record what happened
 * (header block complete, stream closed, queue drained) by putting the
 * stream on the work FIFO; handlers run from the loop after nghttp2
 * returns, so they may call the stream API freely, and stream API calls
 * only mark the connection dirty and schedule the connection with the
 * registry (registry_schedule), which runs nghttp2_session_send once for
 * many writes.  A stream is freed (after on_close) only from the work
 * FIFO, after nghttp2 has closed it, or when the connection is torn down;
 * a connection only from the registry's work event (registry_reap) or by
 * registry_close_all.
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
#include "proto/frame.h"
#include "proto/kjson.h"
#include "src/h2_body.h"
#include "src/h2_guard.h"
#include "src/h2_in.h"
#include "src/h2_out.h"
#include "src/h2_req.h"
#include "src/log.h"
#include "src/outq.h"
#include "src/registry.h"
#include "src/stream.h"
#include "src/stream_impl.h"
#include "src/transport.h"

#define H2_SERVICE_ROUNDS 16       /* send / work rounds per callback */
#define H2_TIMEOUT_FLUSH_SECONDS 2 /* flushing GOAWAY after a timeout */
#define H2_LINGER_SECONDS 2        /* closing: reading until the client does */
#define H2_FRAME_HEAD_LEN 9
#define H2_STACK_NV 16

struct h2_stream {
    struct stream base; /* first: struct stream * converts */
    struct conn_h2 *conn;
    LIST_ENTRY(h2_stream) link;     /* live streams */
    STAILQ_ENTRY(h2_stream) work;   /* on the work FIFO (in_work) */
    struct h2_req *req;     /* until dispatch */
    struct h2_body body;    /* the response body not yet framed */
    int32_t id;
    bool in_work : 1;
    bool headers_done : 1; /* header block complete: dispatch */
    bool request_done : 1; /* END_STREAM received */
    bool dispatched : 1;
    bool closed : 1;   /* nghttp2 closed it (or the connection died) */
    bool deferred : 1; /* the data source returned DEFERRED */
};

struct conn_h2 {
    struct front_conn base; /* first: struct front_conn * converts */
    struct transport *t;
    struct bufferevent *bev; /* the transport's buffered stream */
    struct event *wev; /* on the transport's fd while it takes no more */
    struct h2_out out;
    unsigned flush_seconds; /* closing: write timeout */
    nghttp2_session *session;
    LIST_HEAD(, h2_stream) streams;
    STAILQ_HEAD(, h2_stream) work;
    uint32_t live;     /* dispatched streams not yet freed */
    uint32_t open;     /* request streams nghttp2 has open, refused aside */
    uint32_t refusing; /* refused streams whose RST_STREAM is not sent */
    struct h2_in in;   /* client bytes into nghttp2 (h2_in.h) */
    /* timeouts (h2_timeouts); times in clock_mono_ms */
    uint64_t idle_since_ms; /* no live stream, output flushed; 0: busy */
    uint64_t armed_ms;      /* the read deadline as armed; 0: none */
    bool write_armed;       /* the write timeout is set */
    bool rearm;             /* bytes read: re-arm the read deadline */
    /* output and service */
    bool in_service;          /* inside h2_service: no scheduling needed */
    bool dirty;               /* something for nghttp2_session_send */
    bool closing;             /* answering no more: flushing, then closing */
    bool lingering;           /* flushed, write side shut: reading until EOF */
    uint64_t linger_until_ms; /* lingering: closed then at the latest */
    bool goaway;              /* listener_drain: GOAWAY submitted */
    bool dead;                /* the reaper frees it */
};

static const struct stream_ops h2_ops;
static void conn_h2_writable_cb(evutil_socket_t fd, short what, void *arg);

static size_t h2_high_water(const struct conn_h2 *c)
{
    return registry_config(c->base.registry)->output_high_water;
}

static struct evbuffer *h2_output(const struct conn_h2 *c)
{
    return bufferevent_get_output(c->bev);
}

/* Output bytes not yet taken by the kernel (or, for a bufferevent pair,
 * by its other end). */
static size_t h2_output_len(const struct conn_h2 *c)
{
    return c->out.bytes + evbuffer_get_length(h2_output(c));
}

/* ---- scheduling, work FIFO ---- */

/* Runs h2_service from the loop, soon (or in the current round). */
static void h2_schedule(struct conn_h2 *c)
{
    c->dirty = true;
    if (c->in_service || c->dead)
        return;
    registry_schedule(&c->base);
}

static void work_push(struct conn_h2 *c, struct h2_stream *st)
{
    if (st->in_work)
        return;
    st->in_work = true;
    STAILQ_INSERT_TAIL(&c->work, st, work);
}

static struct h2_stream *work_pop(struct conn_h2 *c)
{
    struct h2_stream *st = STAILQ_FIRST(&c->work);

    if (st == NULL)
        return NULL;
    STAILQ_REMOVE_HEAD(&c->work, work);
    st->in_work = false;
    return st;
}

/* ---- streams ---- */

static struct h2_stream *h2_stream_new(struct conn_h2 *c, int32_t id)
{
    struct h2_stream *st = xcalloc(1, sizeof(*st));

    stream_init(&st->base, &h2_ops, FRONT_H2);
    st->conn = c;
    st->id = id;
    st->req = h2_req_new();
    c->open++;
    LIST_INSERT_HEAD(&c->streams, st, link);
    registry_count_stream(c->base.registry, FRONT_H2, 1);
    return st;
}

/* on_close (once), then frees st.  nghttp2 no longer refers to st: it
 * closed the stream, or the session is being deleted. */
static void h2_stream_free(struct conn_h2 *c, struct h2_stream *st)
{
    LIST_REMOVE(st, link);
    if (st->dispatched)
        c->live--;
    stream_finish(&st->base);
    h2_body_clear(&st->body);
    h2_req_free(st->req);
    registry_count_stream(c->base.registry, FRONT_H2, -1);
    free(st);
}

/* Answers a request the front rejects itself with a Kubernetes Status. */
static void h2_reject(struct h2_stream *st, int status, const char *reason,
                      const char *message)
{
    static const struct stream_value none[STREAM_FIELD_COUNT];
    struct rbuf *body = kjson_status(status, reason, message);

    log_debug("conn_h2: stream %d: %d %s: %s", st->id, status, reason, message);
    stream_set_request(&st->base, 20, "GET", 3, "/", 1, NULL, 0, none);
    stream_respond(&st->base, status, "application/json", body);
    rbuf_unref(body);
}

/* Hands a complete request to the handler, or answers it: 431 beyond
 * max_header_bytes, 400 without :method or :path, a stream reset for an
 * invalid URL escape in :path (h2_req_apply). */
static void h2_dispatch(struct conn_h2 *c, struct h2_stream *st)
{
    struct h2_req *r = st->req;
    char msg[128];
    int rv;

    st->dispatched = true;
    c->live++;
    st->req = NULL;
    rv = h2_req_apply(r, &st->base);
    h2_req_free(r);
    if (rv == RW_ELIMIT) {
        snprintf(msg, sizeof(msg),
                 "Request header fields too large: limit is %zu bytes",
                 registry_config(c->base.registry)->max_header_bytes);
        h2_reject(st, 431, "RequestHeaderFieldsTooLarge", msg);
    } else if (rv == RW_EINVAL) {
        h2_reject(st, 400, "BadRequest", "Request without :method or :path");
    } else if (rv == RW_EPROTO) {
        log_debug("conn_h2: stream %d: invalid URL escape in :path", st->id);
        nghttp2_submit_rst_stream(c->session, NGHTTP2_FLAG_NONE, st->id,
                                  NGHTTP2_PROTOCOL_ERROR);
        h2_schedule(c);
    } else {
        registry_dispatch(c->base.registry, &st->base);
    }
}

/* Does what nghttp2's callbacks recorded, now that nghttp2 has returned. */
static void h2_run_work(struct conn_h2 *c)
{
    struct h2_stream *st;

    while ((st = work_pop(c)) != NULL) {
        if (st->closed)
            h2_stream_free(c, st);
        else if (st->headers_done && !st->dispatched)
            h2_dispatch(c, st);
        else
            stream_drained(&st->base);
    }
}

/* ---- nghttp2 callbacks: record, never free ---- */

/* The stream of id, NULL if nghttp2 has none for us (refused ones). */
static struct h2_stream *h2_stream_get(nghttp2_session *session, int32_t id)
{
    void *data = nghttp2_session_get_stream_user_data(session, id);

    return h2_guard_is_refused(data) ? NULL : data;
}

/* nghttp2 closed st (or never knew it): on_close and free from the
 * work FIFO. */
static void h2_stream_closed(struct conn_h2 *c, struct h2_stream *st)
{
    st->closed = true;
    c->open--;
    stream_gone(&st->base);
    h2_body_clear(&st->body);
    work_push(c, st);
}

static ssize_t conn_h2_send_cb(nghttp2_session *session, const uint8_t *data,
                               size_t length, int flags, void *user_data)
{
    struct conn_h2 *c = user_data;
    uint8_t settings[H2_GUARD_SETTINGS_MAX];

    if (h2_output_len(c) >= h2_high_water(c)) {
        c->dirty = true; /* h2_service writes, then sends again */
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
    static const uint8_t zeros[256];
    struct conn_h2 *c = user_data;
    struct h2_stream *st = source->ptr;
    size_t padlen = frame->data.padlen;
    uint8_t padbyte = (uint8_t)(padlen > 0 ? padlen - 1 : 0);

    h2_out_copy(&c->out, framehd, H2_FRAME_HEAD_LEN);
    if (padlen > 0)
        h2_out_copy(&c->out, &padbyte, 1);
    h2_body_emit(&st->body, &c->out, length);
    if (padlen > 1)
        h2_out_static(&c->out, zeros, padlen - 1);
    if (st->base.above_low && st->body.queued <= STREAM_LOW_WATER)
        work_push(c, st);
    if (h2_output_len(c) >= h2_high_water(c)) {
        c->dirty = true; /* h2_service writes, then sends again */
        return NGHTTP2_ERR_PAUSE;
    }
    return 0;
}

static ssize_t conn_h2_data_read_cb(nghttp2_session *session, int32_t stream_id,
                                    uint8_t *buf, size_t length,
                                    uint32_t *data_flags,
                                    nghttp2_data_source *source,
                                    void *user_data)
{
    struct h2_stream *st = source->ptr;
    size_t n;

    if (st->body.queued == 0) {
        if (st->base.ended) {
            *data_flags |= NGHTTP2_DATA_FLAG_EOF;
            return 0;
        }
        st->deferred = true;
        return NGHTTP2_ERR_DEFERRED;
    }
    n = RW_MIN(length, st->body.queued);
    *data_flags |= NGHTTP2_DATA_FLAG_NO_COPY;
    if (n == st->body.queued && st->base.ended)
        *data_flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int conn_h2_begin_headers_cb(nghttp2_session *session,
                                    const nghttp2_frame *frame, void *user_data)
{
    struct conn_h2 *c = user_data;
    int32_t id = frame->hd.stream_id;
    struct h2_stream *st;
    uint32_t refuse = 0;

    if (frame->hd.type != NGHTTP2_HEADERS ||
        frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    /* stream errors (see h2_guard.h): a stream that depends on itself
     * (RFC 9113 5.3.1), one beyond our limit (5.1.2) */
    if (id == c->in.guard.refuse_id)
        refuse = NGHTTP2_PROTOCOL_ERROR;
    else if (c->open >=
             registry_config(c->base.registry)->h2_max_concurrent_streams)
        refuse = NGHTTP2_REFUSED_STREAM;
    if (refuse != 0)
        return h2_guard_refuse(session, id, refuse, &c->refusing) == 0
                   ? 0
                   : NGHTTP2_ERR_CALLBACK_FAILURE;
    st = h2_stream_new(c, frame->hd.stream_id);
    if (nghttp2_session_set_stream_user_data(session, st->id, st) != 0)
        h2_stream_closed(c, st); /* nghttp2 does not know it: drop it */
    return 0;
}

static int conn_h2_header_cb(nghttp2_session *session,
                             const nghttp2_frame *frame, const uint8_t *name,
                             size_t namelen, const uint8_t *value,
                             size_t valuelen, uint8_t flags, void *user_data)
{
    struct conn_h2 *c = user_data;
    struct h2_stream *st;

    if (frame->hd.type != NGHTTP2_HEADERS ||
        frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0; /* trailers: ignored */
    st = h2_stream_get(session, frame->hd.stream_id);
    if (st != NULL && st->req != NULL)
        h2_req_add(st->req, name, namelen, value, valuelen,
                   registry_config(c->base.registry)->max_header_bytes);
    return 0;
}

static int conn_h2_frame_recv_cb(nghttp2_session *session,
                                 const nghttp2_frame *frame, void *user_data)
{
    struct conn_h2 *c = user_data;
    struct h2_stream *st;

    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    st = h2_stream_get(session, frame->hd.stream_id);
    if (st == NULL)
        return 0;
    if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)
        st->request_done = true;
    /* the request's header block is complete (END_HEADERS): dispatch */
    if (frame->hd.type == NGHTTP2_HEADERS &&
        frame->headers.cat == NGHTTP2_HCAT_REQUEST && !st->headers_done) {
        st->headers_done = true;
        work_push(c, st);
    }
    return 0;
}

/* A RST_STREAM sent is remembered by the guard (late trailers on that
 * stream are ignored, h2_guard.h).  The response is complete (END_STREAM
 * sent) but the request is not: as RFC 9113 8.1 allows, RST_STREAM with
 * NO_ERROR asks the client to stop sending, and closes the stream, so
 * that a client cannot keep an answered stream (and its connection)
 * open by never ending its request. */
static int conn_h2_frame_send_cb(nghttp2_session *session,
                                 const nghttp2_frame *frame, void *user_data)
{
    struct conn_h2 *c = user_data;
    struct h2_stream *st;

    if (frame->hd.type == NGHTTP2_RST_STREAM)
        h2_guard_reset_sent(&c->in.guard, frame->hd.stream_id);
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    st = h2_stream_get(session, frame->hd.stream_id);
    if (st != NULL && !st->request_done)
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE,
                                  frame->hd.stream_id, NGHTTP2_NO_ERROR);
    return 0;
}

static int conn_h2_stream_close_cb(nghttp2_session *session, int32_t stream_id,
                                   uint32_t error_code, void *user_data)
{
    struct conn_h2 *c = user_data;
    void *data = nghttp2_session_get_stream_user_data(session, stream_id);
    struct h2_stream *st = data;

    if (h2_guard_is_refused(data)) {
        c->refusing--;
        return 0;
    }
    if (st == NULL || st->closed)
        return 0;
    if (error_code != NGHTTP2_NO_ERROR)
        log_debug("conn_h2: stream %d reset: %s", stream_id,
                  nghttp2_http2_strerror(error_code));
    h2_stream_closed(c, st);
    return 0;
}

static int conn_h2_error_cb(nghttp2_session *session, int lib_error_code,
                            const char *msg, size_t len, void *user_data)
{
    log_debug("conn_h2: nghttp2: %.*s", (int)len, msg);
    return 0;
}

/* ---- stream ops ---- */

static struct h2_stream *h2_of(const struct stream *s)
{
    return (struct h2_stream *)s;
}

static nghttp2_nv make_nv(const char *name, const char *value)
{
    nghttp2_nv nv = {
        .name = (uint8_t *)name,
        .value = (uint8_t *)value,
        .namelen = strlen(name),
        .valuelen = strlen(value),
        .flags = NGHTTP2_NV_FLAG_NONE,
    };

    return nv;
}

static void h2_begin(struct stream *s, int status, const char *content_type,
                     int64_t content_length)
{
    struct h2_stream *st = h2_of(s);
    struct conn_h2 *c = st->conn;
    nghttp2_data_provider prd = {.source.ptr = st,
                                 .read_callback = conn_h2_data_read_cb};
    nghttp2_nv stack_nva[H2_STACK_NV], *nva = stack_nva;
    size_t n = 0, max = 4;
    char status_str[8], length_str[24];
    int rv;

    for (const struct stream_header *h = s->headers; h != NULL; h = h->next)
        max++;
    if (max > H2_STACK_NV)
        nva = xmalloc(max * sizeof(*nva));
    snprintf(status_str, sizeof(status_str), "%d", status);
    nva[n++] = make_nv(":status", status_str);
    nva[n++] = make_nv("date", stream_date());
    if (content_type != NULL)
        nva[n++] = make_nv("content-type", content_type);
    if (content_length >= 0 && !stream_bodiless(status)) {
        snprintf(length_str, sizeof(length_str), "%lld",
                 (long long)content_length);
        nva[n++] = make_nv("content-length", length_str);
    }
    for (const struct stream_header *h = s->headers; h != NULL; h = h->next)
        nva[n++] = make_nv(h->name, h->value);
    /* Always with a data source: the stream closes only after stream_end,
     * even for HEAD and empty bodies. */
    rv = nghttp2_submit_response(c->session, st->id, nva, n, &prd);
    if (rv != 0)
        log_debug("conn_h2: stream %d: submit_response: %s", st->id,
                  nghttp2_strerror(rv));
    if (nva != stack_nva)
        free(nva);
    h2_schedule(c);
}

/* The data source has more to offer (or its end). */
static void h2_resume(struct h2_stream *st)
{
    struct conn_h2 *c = st->conn;

    if (st->deferred) {
        st->deferred = false;
        nghttp2_session_resume_data(c->session, st->id);
    }
    h2_schedule(c);
}

static void h2_write(struct stream *s, struct rbuf *buf, size_t off, size_t len)
{
    struct h2_stream *st = h2_of(s);

    h2_body_push(&st->body, buf, off, len);
    h2_resume(st);
}

static void h2_write_frame(struct stream *s, struct rbuf *frame)
{
    h2_write(s, frame, FRAME_HEAD_LEN, frame_payload_len(frame));
}

static size_t h2_pending(const struct stream *s)
{
    return h2_of(s)->body.queued;
}

static void h2_end(struct stream *s)
{
    h2_resume(h2_of(s));
}

static const struct stream_ops h2_ops = {
    .begin = h2_begin,
    .write = h2_write,
    .write_frame = h2_write_frame,
    .pending = h2_pending,
    .end = h2_end,
};

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
    unsigned wants = transport_wants(c->t);
    short what = (wants & TRANSPORT_WANT_READ ? EV_READ : 0) |
                 (wants & TRANSPORT_WANT_WRITE || wants == 0 ? EV_WRITE : 0);

    if (c->wev == NULL)
        return;
    if (c->out.count == 0) {
        event_del(c->wev);
        return;
    }
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
    h2_out_trim(&c->out, c->live > 0);
    return RW_OK;
}

/* Writes what was queued since the last attempt. */
static int h2_flush_fresh(struct conn_h2 *c)
{
    return c->out.fresh ? h2_flush(c) : 0;
}

static void h2_free(struct conn_h2 *c)
{
    struct h2_stream *st;

    /* gone first, all of them: an on_close must not reach a live sibling */
    LIST_FOREACH(st, &c->streams, link) {
        st->closed = true;
        stream_gone(&st->base);
    }
    while (!LIST_EMPTY(&c->streams))
        h2_stream_free(c, LIST_FIRST(&c->streams));
    nghttp2_session_del(c->session);
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

    if (c->dead) {
        *unsent = 0;
        return false;
    }
    *unsent = h2_output_len(c);
    return !LIST_EMPTY(&c->streams) || *unsent > 0 ||
           nghttp2_session_want_write(c->session);
}

static void h2_kill(struct conn_h2 *c)
{
    struct h2_stream *st;

    c->dead = true;
    LIST_FOREACH(st, &c->streams, link)
        stream_gone(&st->base);
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

    if (c->live > 0) {
        c->idle_since_ms = 0;
        return 0;
    }
    if (c->idle_since_ms == 0 && h2_output_len(c) == 0)
        c->idle_since_ms = clock_mono_ms();
    if (c->in.in_block && cfg->header_timeout > 0)
        deadline = c->in.block_since_ms + cfg->header_timeout * 1000ull;
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
    bool write = idle > 0 && c->live == 0;

    if (c->closing || c->dead)
        return; /* h2_close set its own */
    deadline = h2_deadline(c);
    if (deadline == c->armed_ms && write == c->write_armed &&
        !(c->rearm && deadline != 0))
        return;
    c->armed_ms = deadline;
    c->write_armed = write;
    c->rearm = false;
    if (deadline != 0)
        transport_until(deadline, &rtv);
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
        c->dead = true;
        return;
    }
    c->lingering = true;
    c->linger_until_ms = clock_mono_ms() + H2_LINGER_SECONDS * 1000;
    bufferevent_set_timeouts(c->bev, &tv, NULL);
    bufferevent_enable(c->bev, EV_READ);
}

/* Shutting down (listener_drain): GOAWAY with the last stream taken, so
 * that the client opens no more; nghttp2 then ends the session once the
 * streams are done (h2_service closes it). */
static void h2_drain(struct conn_h2 *c)
{
    if (c->goaway || !registry_draining(c->base.registry))
        return;
    c->goaway = true;
    nghttp2_submit_goaway(c->session, NGHTTP2_FLAG_NONE,
                          nghttp2_session_get_last_proc_stream_id(c->session),
                          NGHTTP2_NO_ERROR, NULL, 0);
}

static void h2_service(struct conn_h2 *c)
{
    size_t high = h2_high_water(c);
    nghttp2_session *s = c->session;

    if (c->base.dying)
        return;
    if (c->dead) {
        h2_kill(c);
        return;
    }
    c->in_service = true;
    h2_drain(c);
    h2_run_work(c);
    for (int round = 0; round < H2_SERVICE_ROUNDS && !c->dead; round++) {
        c->dirty = false;
        /* at the mark: write; still there, the write event resumes */
        if (h2_output_len(c) >= high) {
            if (h2_flush_fresh(c) < 0)
                c->dead = true;
            if (c->dead || h2_output_len(c) >= high)
                break;
        }
        if (nghttp2_session_send(s) != 0) {
            c->dead = true;
            break;
        }
        h2_run_work(c);
        if (!c->dirty)
            break;
    }
    c->in_service = false;
    if (!c->dead && h2_flush_fresh(c) < 0)
        c->dead = true;
    if (!c->dead && !nghttp2_session_want_read(s) &&
        !nghttp2_session_want_write(s))
        h2_close(c, registry_flush_seconds(c->base.registry));
    if (c->closing && h2_output_len(c) == 0)
        h2_linger(c);
    if (c->dead) {
        h2_kill(c);
        return;
    }
    if (c->dirty && h2_output_len(c) < high)
        h2_schedule(c);
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
        rv = h2_in_feed(&c->in, c->session, in, clock_mono_ms());
        if (rv < 0)
            h2_close(c, registry_flush_seconds(c->base.registry));
        else if (rv > 0)
            c->rearm = true;
    }
    if (c->closing)
        evbuffer_drain(in, evbuffer_get_length(in));
    if (c->lingering) { /* a deadline, however the client trickles */
        struct timeval tv;

        transport_until(c->linger_until_ms, &tv);
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
        c->dead = true;
    } else if (h2_flush(c) < 0) {
        c->dead = true;
    }
    h2_service(c);
}

/* From the listener's work event: input the sniffer passed on, then the
 * writes and work of the streams. */
static void h2_service_cb(struct front_conn *fc)
{
    struct conn_h2 *c = (struct conn_h2 *)fc;

    if (!c->dead)
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
        nghttp2_session_terminate_session(c->session, NGHTTP2_NO_ERROR);
        h2_close(c, H2_TIMEOUT_FLUSH_SECONDS);
        bufferevent_enable(bev, EV_READ);
    } else {
        log_debug("conn_h2: %s", (what & BEV_EVENT_EOF)       ? "client closed"
                                 : (what & BEV_EVENT_TIMEOUT) ? "write timeout"
                                                              : "socket error");
        c->dead = true;
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
    nghttp2_session_callbacks_set_on_begin_headers_callback(
        cbs, conn_h2_begin_headers_cb);
    nghttp2_session_callbacks_set_on_header_callback(cbs, conn_h2_header_cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cbs,
                                                         conn_h2_frame_recv_cb);
    nghttp2_session_callbacks_set_on_frame_send_callback(cbs,
                                                         conn_h2_frame_send_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(
        cbs, conn_h2_stream_close_cb);
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
    rv = nghttp2_session_server_new2(&c->session, cbs, c, opt);
    nghttp2_option_del(opt);
    nghttp2_session_callbacks_del(cbs);
    if (rv != 0)
        return rv;
    return nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, iv,
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
        c->wev = event_new(bufferevent_get_base(bev), transport_fd(t),
                           EV_WRITE, conn_h2_writable_cb, c);
    transport_limit_writes(t, cfg->sndbuf);
    c->base.service = h2_service_cb;
    c->base.close_now = h2_close_now;
    c->base.unfinished = h2_unfinished;
    LIST_INIT(&c->streams);
    STAILQ_INIT(&c->work);
    h2_in_init(&c->in);
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
