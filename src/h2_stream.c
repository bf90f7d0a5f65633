/*
 * h2_stream.c: the streams of an HTTP/2 server connection (see
 * h2_stream.h): struct h2_stream, the stream ops handlers reach through
 * stream.h, and nghttp2's stream callbacks, which only record what
 * happened (header block complete, stream closed, body drained) by
 * putting the stream on the set's work FIFO; h2_stream_run_work then
 * acts on it from the loop, after nghttp2 has returned.
 */
#include "src/h2_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <nghttp2/nghttp2.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "proto/frame.h"
#include "proto/kjson.h"
#include "src/h2_body.h"
#include "src/h2_frame.h"
#include "src/h2_guard.h"
#include "src/h2_out.h"
#include "src/h2_req.h"
#include "src/log.h"
#include "src/registry.h"
#include "src/stream.h"
#include "src/stream_impl.h"

#define H2_STACK_NV 16
/* Request body bytes a connection holds at once, all its streams still
 * receiving theirs together: one body at the limit, and as much again. */
#define H2_BODY_BUDGET (2 * (size_t)STREAM_MAX_BODY)

struct h2_stream {
    struct stream base; /* first: struct stream * converts */
    struct h2_streams *set;
    LIST_ENTRY(h2_stream) link;   /* live streams */
    STAILQ_ENTRY(h2_stream) work; /* on the work FIFO (in_work) */
    struct h2_req *req;           /* until dispatch */
    struct h2_body body;          /* the response body not yet framed */
    size_t kept; /* request body bytes kept, in the set's body_bytes */
    int32_t id;
    bool in_work : 1;
    bool headers_done : 1;   /* header block complete */
    bool request_done : 1;   /* END_STREAM received */
    bool body_too_large : 1; /* its DATA passed STREAM_MAX_BODY: 413 */
    bool awaiting : 1;       /* counted in the set's awaiting */
    bool refused : 1;        /* reset REFUSED_STREAM: over H2_BODY_BUDGET */
    bool dispatched : 1;
    bool prechecked : 1; /* its head went through the precheck */
    bool closed : 1;   /* nghttp2 closed it (or the connection died) */
    bool deferred : 1; /* the data source returned DEFERRED */
};

static const struct stream_ops h2_ops;

/* ---- scheduling, work FIFO ---- */

void h2_stream_schedule(struct h2_streams *ss)
{
    ss->dirty = true;
    if (ss->in_service || ss->dead)
        return;
    registry_schedule(ss->conn);
}

static void work_push(struct h2_streams *ss, struct h2_stream *st)
{
    if (st->in_work)
        return;
    st->in_work = true;
    STAILQ_INSERT_TAIL(&ss->work, st, work);
}

static struct h2_stream *work_pop(struct h2_streams *ss)
{
    struct h2_stream *st = STAILQ_FIRST(&ss->work);

    if (st == NULL)
        return NULL;
    STAILQ_REMOVE_HEAD(&ss->work, work);
    st->in_work = false;
    return st;
}

/* ---- streams ---- */

static struct h2_stream *stream_new(struct h2_streams *ss, int32_t id)
{
    struct h2_stream *st = xcalloc(1, sizeof(*st));

    stream_init(&st->base, &h2_ops, FRONT_H2);
    st->base.req.peer = ss->conn->peer;
    st->set = ss;
    st->id = id;
    st->req = h2_req_new();
    ss->open++;
    LIST_INSERT_HEAD(&ss->all, st, link);
    registry_count_stream(ss->conn->registry, FRONT_H2, 1);
    return st;
}

/* st's body is coming (true) or it is dispatched or gone (false). */
static void h2_stream_awaiting(struct h2_streams *ss, struct h2_stream *st,
                               bool awaiting)
{
    if (st->awaiting == awaiting)
        return;
    st->awaiting = awaiting;
    if (awaiting && ss->awaiting++ == 0)
        ss->awaiting_since_ms = clock_mono_ms();
    else if (!awaiting)
        ss->awaiting--;
}

/* st's kept body bytes no longer count against the connection's
 * budget (dispatched, refused or gone). */
static void h2_stream_unkeep(struct h2_streams *ss, struct h2_stream *st)
{
    ss->body_bytes -= st->kept;
    st->kept = 0;
}

/* on_close (once), then frees st.  nghttp2 no longer refers to st: it
 * closed the stream, or the session is being deleted. */
static void h2_stream_free(struct h2_streams *ss, struct h2_stream *st)
{
    LIST_REMOVE(st, link);
    if (st->dispatched)
        ss->live--;
    h2_stream_awaiting(ss, st, false);
    h2_stream_unkeep(ss, st);
    stream_finish(&st->base);
    h2_body_clear(&st->body);
    h2_req_free(st->req);
    registry_count_stream(ss->conn->registry, FRONT_H2, -1);
    free(st);
}

/* Answers a request the front rejects itself with a Kubernetes Status. */
static void h2_reject(struct h2_stream *st, int status, const char *reason,
                      const char *message)
{
    static const struct stream_value none[STREAM_FIELD_COUNT];
    struct rbuf *body = kjson_status(status, reason, message);

    log_debug("h2_stream: stream %d: %d %s: %s", st->id, status, reason,
              message);
    stream_set_request(&st->base, 20, "GET", 3, "/", 1, NULL, 0, none);
    stream_respond(&st->base, status, "application/json", body);
    rbuf_unref(body);
}

/* st's request becomes its stream's, and st is dispatched (live, its body
 * no longer kept); returns h2_req_apply's result. */
static int h2_take_request(struct h2_streams *ss, struct h2_stream *st)
{
    struct h2_req *r = st->req;
    int rv;

    st->dispatched = true;
    ss->live++;
    h2_stream_awaiting(ss, st, false);
    h2_stream_unkeep(ss, st);
    st->req = NULL;
    rv = h2_req_apply(r, &st->base);
    h2_req_free(r);
    return rv;
}

/* Answers a request refused by the precheck (ref's body taken). */
static void h2_refuse(struct h2_stream *st, struct request_refusal *ref)
{
    if (ref->nosniff)
        stream_add_header(&st->base, "x-content-type-options", "nosniff");
    stream_respond(&st->base, ref->code, "application/json", ref->body);
    rbuf_unref(ref->body);
}

/* The head of a request with a body is decided before its body is read
 * (front_config precheck, as conn_h1's): a refusal is answered (st
 * dispatched; what DATA follows is dropped, and the stream reset with
 * NO_ERROR once answered).  Returns whether it was refused. */
static bool h2_refused(struct h2_streams *ss, struct h2_stream *st)
{
    const struct front_config *cfg = registry_config(ss->conn->registry);
    struct request_refusal ref;
    struct stream tmp;
    bool refused;

    if (cfg->precheck == NULL || st->prechecked || st->req == NULL ||
        !h2_req_has_body(st->req))
        return false;
    st->prechecked = true;
    stream_init(&tmp, st->base.ops, FRONT_H2);
    tmp.req.peer = st->base.req.peer;
    if (h2_req_apply_head(st->req, &tmp) != RW_OK) {
        stream_finish(&tmp);
        return false; /* answered at dispatch */
    }
    refused = cfg->precheck(stream_request(&tmp), cfg->precheck_arg, &ref);
    stream_finish(&tmp);
    if (refused) {
        (void)h2_take_request(ss, st);
        h2_refuse(st, &ref);
    }
    return refused;
}

/* Hands a complete request to the handler, or answers it: 431 beyond
 * max_header_bytes, 413 for a body beyond STREAM_MAX_BODY, 400 without
 * :method or :path, a stream reset for an invalid URL escape in :path
 * (h2_req_apply). */
static void h2_dispatch(struct h2_streams *ss, struct h2_stream *st)
{
    char msg[128];
    int rv;

    if (st->body_too_large && h2_refused(ss, st))
        return;
    rv = h2_take_request(ss, st);
    if (st->body_too_large) {
        snprintf(msg, sizeof(msg),
                 "Request entity too large: limit is %d",
                 STREAM_MAX_BODY);
        h2_reject(st, 413, "RequestEntityTooLarge", msg);
    } else if (rv == RW_ELIMIT) {
        snprintf(msg, sizeof(msg),
                 "Request header fields too large: limit is %zu bytes",
                 registry_config(ss->conn->registry)->max_header_bytes);
        h2_reject(st, 431, "RequestHeaderFieldsTooLarge", msg);
    } else if (rv == RW_EINVAL) {
        h2_reject(st, 400, "BadRequest", "Request without :method or :path");
    } else if (rv == RW_EPROTO) {
        log_debug("h2_stream: stream %d: invalid URL escape in :path", st->id);
        nghttp2_submit_rst_stream(ss->session, NGHTTP2_FLAG_NONE, st->id,
                                  NGHTTP2_PROTOCOL_ERROR);
        h2_stream_schedule(ss);
    } else {
        registry_dispatch(ss->conn->registry, &st->base);
    }
}

/* Whether st's request is complete: its header block, and its body
 * (END_STREAM) when its method has one (stream_body); or refused. */
static bool h2_stream_ready(const struct h2_stream *st)
{
    if (st->dispatched || !st->headers_done || st->refused)
        return false;
    return st->request_done || st->body_too_large || !h2_req_has_body(st->req);
}

/* Does what nghttp2's callbacks recorded, now that nghttp2 has returned. */
void h2_stream_run_work(struct h2_streams *ss)
{
    struct h2_stream *st;

    while ((st = work_pop(ss)) != NULL) {
        if (st->closed)
            h2_stream_free(ss, st);
        else if (h2_stream_ready(st))
            h2_dispatch(ss, st);
        else if (st->headers_done && !st->dispatched && !st->refused &&
                 !h2_refused(ss, st))
            h2_stream_awaiting(ss, st, true);
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
static void h2_stream_closed(struct h2_streams *ss, struct h2_stream *st)
{
    st->closed = true;
    ss->open--;
    stream_gone(&st->base);
    h2_body_clear(&st->body);
    work_push(ss, st);
}

static ssize_t h2_stream_data_read_cb(nghttp2_session *session,
                                      int32_t stream_id, uint8_t *buf,
                                      size_t length, uint32_t *data_flags,
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

static int h2_stream_begin_headers_cb(nghttp2_session *session,
                                      const nghttp2_frame *frame,
                                      void *user_data)
{
    struct h2_streams *ss = user_data;
    int32_t id = frame->hd.stream_id;
    struct h2_stream *st;
    uint32_t refuse = 0;

    if (frame->hd.type != NGHTTP2_HEADERS ||
        frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0;
    /* stream errors (see h2_guard.h): a stream that depends on itself
     * (RFC 9113 5.3.1), one beyond our limit (5.1.2) */
    if (id == ss->guard->refuse_id)
        refuse = NGHTTP2_PROTOCOL_ERROR;
    else if (ss->open >=
             registry_config(ss->conn->registry)->h2_max_concurrent_streams)
        refuse = NGHTTP2_REFUSED_STREAM;
    if (refuse != 0)
        return h2_guard_refuse(session, id, refuse, &ss->refusing) == 0
                   ? 0
                   : NGHTTP2_ERR_CALLBACK_FAILURE;
    st = stream_new(ss, frame->hd.stream_id);
    if (nghttp2_session_set_stream_user_data(session, st->id, st) != 0)
        h2_stream_closed(ss, st); /* nghttp2 does not know it: drop it */
    return 0;
}

static int h2_stream_header_cb(nghttp2_session *session,
                               const nghttp2_frame *frame, const uint8_t *name,
                               size_t namelen, const uint8_t *value,
                               size_t valuelen, uint8_t flags, void *user_data)
{
    struct h2_streams *ss = user_data;
    struct h2_stream *st;

    if (frame->hd.type != NGHTTP2_HEADERS ||
        frame->headers.cat != NGHTTP2_HCAT_REQUEST)
        return 0; /* trailers: ignored */
    st = h2_stream_get(session, frame->hd.stream_id);
    if (st != NULL && st->req != NULL)
        h2_req_add(st->req, name, namelen, value, valuelen,
                   registry_config(ss->conn->registry)->max_header_bytes);
    return 0;
}

static int h2_stream_frame_recv_cb(nghttp2_session *session,
                                   const nghttp2_frame *frame, void *user_data)
{
    struct h2_streams *ss = user_data;
    struct h2_stream *st;

    if (frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA)
        return 0;
    st = h2_stream_get(session, frame->hd.stream_id);
    if (st == NULL)
        return 0;
    if (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) {
        st->request_done = true;
        work_push(ss, st); /* its body is complete: dispatch */
    }
    /* the request's header block is complete (END_HEADERS): dispatch
     * when it has no body */
    if (frame->hd.type == NGHTTP2_HEADERS &&
        frame->headers.cat == NGHTTP2_HCAT_REQUEST && !st->headers_done) {
        st->headers_done = true;
        work_push(ss, st);
    }
    return 0;
}

/* DATA of a request: kept (h2_req_body_add) until it is dispatched, when
 * its method has a body; dropped otherwise (flow control is nghttp2's,
 * automatic).  A connection keeps at most H2_BODY_BUDGET bytes of bodies
 * at once: the stream whose DATA would pass it is reset REFUSED_STREAM
 * (RFC 9113 8.7: not processed, the client may retry it), so that many
 * streams cannot each hold a body at the limit. */
static int h2_stream_data_cb(nghttp2_session *session, uint8_t flags,
                             int32_t stream_id, const uint8_t *data, size_t len,
                             void *user_data)
{
    struct h2_streams *ss = user_data;
    struct h2_stream *st = h2_stream_get(session, stream_id);

    (void)flags;
    if (st == NULL || st->req == NULL || st->body_too_large || st->refused ||
        !h2_req_has_body(st->req))
        return 0;
    if (len > H2_BODY_BUDGET - ss->body_bytes) {
        st->refused = true;
        h2_stream_unkeep(ss, st);
        log_debug("h2_stream: stream %d refused: request bodies over %zu "
                  "bytes on the connection",
                  stream_id, H2_BODY_BUDGET);
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, stream_id,
                                  NGHTTP2_REFUSED_STREAM);
        h2_stream_schedule(ss);
        return 0;
    }
    if (h2_req_body_add(st->req, data, len, STREAM_MAX_BODY) != RW_OK) {
        st->body_too_large = true;
        h2_stream_unkeep(ss, st);
        work_push(ss, st);
        return 0;
    }
    st->kept += len;
    ss->body_bytes += len;
    return 0;
}

/* A RST_STREAM sent is remembered by the guard (late trailers on that
 * stream are ignored, h2_guard.h).  The response is complete (END_STREAM
 * sent) but the request is not: as RFC 9113 8.1 allows, RST_STREAM with
 * NO_ERROR asks the client to stop sending, and closes the stream, so
 * that a client cannot keep an answered stream (and its connection)
 * open by never ending its request. */
static int h2_stream_frame_send_cb(nghttp2_session *session,
                                   const nghttp2_frame *frame, void *user_data)
{
    struct h2_streams *ss = user_data;
    struct h2_stream *st;

    if (frame->hd.type == NGHTTP2_RST_STREAM)
        h2_guard_reset_sent(ss->guard, frame->hd.stream_id);
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
        return 0;
    st = h2_stream_get(session, frame->hd.stream_id);
    if (st != NULL && !st->request_done)
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE,
                                  frame->hd.stream_id, NGHTTP2_NO_ERROR);
    return 0;
}

static int h2_stream_close_cb(nghttp2_session *session, int32_t stream_id,
                              uint32_t error_code, void *user_data)
{
    struct h2_streams *ss = user_data;
    void *data = nghttp2_session_get_stream_user_data(session, stream_id);
    struct h2_stream *st = data;

    if (h2_guard_is_refused(data)) {
        ss->refusing--;
        return 0;
    }
    if (st == NULL || st->closed)
        return 0;
    if (error_code != NGHTTP2_NO_ERROR)
        log_debug("h2_stream: stream %d reset: %s", stream_id,
                  nghttp2_http2_strerror(error_code));
    h2_stream_closed(ss, st);
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
    struct h2_streams *ss = st->set;
    nghttp2_data_provider prd = {.source.ptr = st,
                                 .read_callback = h2_stream_data_read_cb};
    nghttp2_nv stack_nva[H2_STACK_NV], *nva = stack_nva;
    size_t n = 0, max = 4;
    char status_str[8], length_str[24];
    const struct stream_header *h;
    int rv;

    STAILQ_FOREACH(h, &s->headers, link)
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
    STAILQ_FOREACH(h, &s->headers, link)
        nva[n++] = make_nv(h->name, h->value);
    /* Always with a data source: the stream closes only after stream_end,
     * even for HEAD and empty bodies. */
    rv = nghttp2_submit_response(ss->session, st->id, nva, n, &prd);
    if (rv != 0)
        log_debug("h2_stream: stream %d: submit_response: %s", st->id,
                  nghttp2_strerror(rv));
    if (nva != stack_nva)
        free(nva);
    h2_stream_schedule(ss);
}

/* The data source has more to offer (or its end). */
static void h2_resume(struct h2_stream *st)
{
    struct h2_streams *ss = st->set;

    if (st->deferred) {
        st->deferred = false;
        nghttp2_session_resume_data(ss->session, st->id);
    }
    h2_stream_schedule(ss);
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

/* ---- the set ---- */

void h2_stream_set_init(struct h2_streams *ss, struct front_conn *conn,
                        struct h2_guard *guard, struct h2_out *out)
{
    memset(ss, 0, sizeof(*ss));
    ss->conn = conn;
    ss->guard = guard;
    ss->out = out;
    LIST_INIT(&ss->all);
    STAILQ_INIT(&ss->work);
}

void h2_stream_set_gone(struct h2_streams *ss)
{
    struct h2_stream *st;

    LIST_FOREACH(st, &ss->all, link)
        stream_gone(&st->base);
}

void h2_stream_set_fini(struct h2_streams *ss)
{
    struct h2_stream *st;

    /* gone first, all of them: an on_close must not reach a live sibling */
    LIST_FOREACH(st, &ss->all, link) {
        st->closed = true;
        stream_gone(&st->base);
    }
    while (!LIST_EMPTY(&ss->all))
        h2_stream_free(ss, LIST_FIRST(&ss->all));
}

void h2_stream_send_data(struct h2_streams *ss, const nghttp2_frame *frame,
                         const uint8_t *framehd, size_t length,
                         nghttp2_data_source *source)
{
    static const uint8_t zeros[256];
    struct h2_stream *st = source->ptr;
    size_t padlen = frame->data.padlen;
    uint8_t padbyte = (uint8_t)(padlen > 0 ? padlen - 1 : 0);

    h2_out_copy(ss->out, framehd, H2_FRAME_HEAD_LEN);
    if (padlen > 0)
        h2_out_copy(ss->out, &padbyte, 1);
    h2_body_emit(&st->body, ss->out, length);
    if (padlen > 1)
        h2_out_static(ss->out, zeros, padlen - 1);
    if (st->base.above_low && st->body.queued <= STREAM_LOW_WATER)
        work_push(ss, st);
}

void h2_stream_callbacks(nghttp2_session_callbacks *cbs)
{
    nghttp2_session_callbacks_set_on_begin_headers_callback(
        cbs, h2_stream_begin_headers_cb);
    nghttp2_session_callbacks_set_on_header_callback(cbs, h2_stream_header_cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        cbs, h2_stream_frame_recv_cb);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cbs, h2_stream_data_cb);
    nghttp2_session_callbacks_set_on_frame_send_callback(
        cbs, h2_stream_frame_send_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(cbs,
                                                           h2_stream_close_cb);
}
