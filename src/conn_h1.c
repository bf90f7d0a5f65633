/*
 * conn_h1.c: an HTTP/1.x server connection (RFC 9112) with Node's
 * http-parser; the only file of the front that includes it.
 *
 * Data structure: a transport (transport.h: its bufferevent carries the
 * bytes both ways, its write side is shut for a lingering close), one
 * http_parser, the request being parsed (h1_req.h: its target and the
 * few header values handlers see, freed at dispatch) and at most one
 * stream: the request being answered.  Each request head is checked strictly
 * first (h1_head.h: http-parser alone is lenient where a proxy in front may not
 * be, a request smuggling risk) and only then handed to http-parser, which
 * extracts its fields; the body is read by h1_head's reader, not by
 * http-parser, and kept for the stream (stream_body: at most
 * STREAM_MAX_BODY bytes, 413 beyond) unless the method is GET or HEAD.
 * A request refused there (400, 413, 414, 431, 501, 505; 417 for an
 * Expect other than 100-continue, as Go's server) gets a Kubernetes
 * Status with Connection: close.
 * Requests are answered one at a time in order (sequential
 * pipelining): once a request is complete the parser is paused, and bytes
 * of later requests wait in the input buffer until the current stream has
 * finished (on_close delivered) and the output buffer is below the
 * configured high-water mark.
 *
 * Response bodies are queued in the bufferevent's output by reference
 * (released with rbuf_unref when libevent has written them), except
 * pieces under OUTQ_COPY_BELOW, which cost less memory copied (outq.h).
 * Streamed bodies are chunked on HTTP/1.1 (a frame is a chunk as it is) and
 * close-delimited on HTTP/1.0.  stream_pending() is the output buffer's length;
 * the write low-water mark (STREAM_LOW_WATER) brings the write callback, which
 * drives on_drain.
 *
 * Timeouts, all on the bufferevent's own two timers (enum h1_wait): a
 * request being answered has none; a request being received must be
 * complete within header_timeout of its first byte (re-armed with the
 * time left after every read, so trickling does not extend it; then 408
 * and close); a connection between requests waits idle_timeout for the
 * next once its output is flushed, and while output is pending without a
 * request being answered the client must read some of it every
 * idle_timeout.
 *
 * Lifetimes: the connection is freed only from the registry's work event
 * (registry_reap), never from inside a call a handler made; stream API
 * calls that need the connection to act (stream_end) schedule it with
 * registry_schedule, so no connection carries an event or a deferred
 * callback of its own.  A connection that stops answering (Connection:
 * close, HTTP/1.0, an error response) flushes its output, shuts down its
 * write side and discards input for a short while (lingering close, so
 * the client reads the response rather than a reset), then closes.
 */
#include "src/conn_h1.h"

#include <http_parser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "proto/frame.h"
#include "proto/kjson.h"
#include "src/h1_head.h"
#include "src/h1_req.h"
#include "src/log.h"
#include "src/outq.h"
#include "src/registry.h"
#include "src/stream.h"
#include "src/stream_impl.h"
#include "src/transport.h"

#define H1_LINGER_SECONDS 2         /* lingering close: how long */
#define H1_LINGER_BYTES (64 * 1024) /* lingering close: how much */
#define H1_TIMEOUT_FLUSH_SECONDS 2  /* flushing a 408 before close */
#define H1_SERVICE_ROUNDS 64        /* requests answered per callback */

enum h1_body {
    H1_BODY_NONE,    /* HEAD: headers only */
    H1_BODY_LENGTH,  /* Content-Length */
    H1_BODY_CHUNKED, /* HTTP/1.1 streamed */
    H1_BODY_CLOSE,   /* HTTP/1.0 streamed: ends with the connection */
};

/* What the connection waits for; decides its timeouts (h1_timeouts). */
enum h1_wait {
    H1_WAIT_REQUEST, /* the next request, output flushed: idle_timeout */
    H1_WAIT_HEADER,  /* the rest of a request: until its deadline */
    H1_WAIT_READER,  /* the client to read pending output: idle_timeout */
    H1_WAIT_ANSWER,  /* the handler: no timeout */
};

struct h1_stream {
    struct stream base; /* first: struct stream * converts */
    struct conn_h1 *conn;
};

struct conn_h1 {
    struct front_conn base; /* first: struct front_conn * converts */
    struct transport *t;
    struct bufferevent *bev;  /* the transport's buffered stream */
    struct h1_stream *stream; /* being answered; NULL between requests */
    http_parser parser;
    struct h1_req *req;        /* while a request is being parsed */
    struct evbuffer *req_body; /* its body being kept; NULL: none yet */
    enum h1_body body;         /* of the response being sent */
    enum h1_wait wait;         /* as the timeouts are set */
    bool keep_alive;           /* the connection outlives this response */
    bool eof;                  /* the client shut down its side */
    bool closing;              /* answering no more: flushing, then lingering */
    bool lingering;            /* write side shut; discarding input */
    bool dead;                 /* done: the registry's reaper frees it */
    bool tail_ref;             /* output's last piece is a reference */
    size_t lingered;           /* bytes discarded */
};

static const struct stream_ops h1_ops;
static http_parser_settings h1_settings;

/* ---- scheduling and closing ---- */

/* Runs h1_service from the loop, soon. */
static void h1_schedule(struct conn_h1 *c)
{
    registry_schedule(&c->base);
}

/* Sets the timeouts for what the connection waits for now (enum h1_wait);
 * re-arms a request's deadline with the time left. */
static void h1_timeouts(struct conn_h1 *c)
{
    const struct front_config *cfg = registry_config(c->base.registry);
    struct timeval idle = {.tv_sec = cfg->idle_timeout, .tv_usec = 0};
    const struct timeval *idle_tv = cfg->idle_timeout > 0 ? &idle : NULL;
    struct timeval header;
    enum h1_wait want;

    if (c->closing || c->dead)
        return; /* h1_close and h1_closing_progress set their own */
    if (c->stream != NULL)
        want = H1_WAIT_ANSWER;
    else if (c->req != NULL)
        want = H1_WAIT_HEADER;
    else if (evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
        want = H1_WAIT_READER;
    else
        want = H1_WAIT_REQUEST;
    if (want == c->wait && want != H1_WAIT_HEADER)
        return;
    c->wait = want;
    if (want == H1_WAIT_ANSWER) {
        bufferevent_set_timeouts(c->bev, NULL, NULL);
    } else if (want == H1_WAIT_READER) {
        bufferevent_set_timeouts(c->bev, NULL, idle_tv);
    } else if (want == H1_WAIT_HEADER && cfg->header_timeout > 0) {
        clock_until(c->req->deadline_ms, &header);
        bufferevent_set_timeouts(c->bev, &header, idle_tv);
    } else {
        bufferevent_set_timeouts(c->bev, idle_tv, idle_tv);
    }
}

/* Stops answering: the output is flushed (within flush_seconds of no
 * progress), then the connection closed. */
static void h1_close(struct conn_h1 *c, unsigned flush_seconds)
{
    if (c->closing)
        return;
    c->closing = true;
    outq_close(c->bev, flush_seconds);
}

/* Once the output is flushed: shut the write side and linger. */
static void h1_closing_progress(struct conn_h1 *c)
{
    struct timeval tv = {.tv_sec = H1_LINGER_SECONDS, .tv_usec = 0};
    struct evbuffer *in = bufferevent_get_input(c->bev);

    if (c->lingering || c->dead ||
        evbuffer_get_length(bufferevent_get_output(c->bev)) > 0)
        return;
    if (c->eof || transport_shutdown_write(c->t) != RW_OK) {
        c->dead = true;
        return;
    }
    c->lingering = true;
    c->lingered += evbuffer_get_length(in);
    evbuffer_drain(in, evbuffer_get_length(in));
    bufferevent_set_timeouts(c->bev, &tv, NULL);
    bufferevent_enable(c->bev, EV_READ);
}

static void h1_stream_free(struct conn_h1 *c)
{
    struct h1_stream *st = c->stream;

    stream_finish(&st->base);
    registry_count_stream(c->base.registry, FRONT_H1, -1);
    free(st);
    c->stream = NULL;
}

static void h1_free(struct conn_h1 *c)
{
    if (c->stream != NULL) {
        stream_gone(&c->stream->base);
        h1_stream_free(c);
    }
    registry_detach(&c->base);
    transport_free(c->t);
    h1_req_free(c->req);
    if (c->req_body != NULL)
        evbuffer_free(c->req_body);
    free(c);
}

static void h1_close_now(struct front_conn *fc)
{
    h1_free((struct conn_h1 *)fc);
}

static bool h1_unfinished(const struct front_conn *fc, size_t *unsent)
{
    const struct conn_h1 *c = (const struct conn_h1 *)fc;

    *unsent = c->dead ? 0 : evbuffer_get_length(bufferevent_get_output(c->bev));
    return c->stream != NULL || *unsent > 0;
}

static void h1_service(struct conn_h1 *c);

static void h1_service_cb(struct front_conn *fc)
{
    h1_service((struct conn_h1 *)fc);
}

/* The connection is done: its stream is gone, its I/O stops, and the
 * registry's reaper frees it from the loop. */
static void h1_kill(struct conn_h1 *c)
{
    c->dead = true;
    if (c->stream != NULL)
        stream_gone(&c->stream->base);
    bufferevent_disable(c->bev, EV_READ | EV_WRITE);
    registry_reap(&c->base);
}

/* ---- responses the front sends itself ---- */

static void h1_queue_failed(struct conn_h1 *c, size_t len)
{
    log_warnx("conn_h1: cannot queue %zu bytes", len);
    c->dead = true;
    h1_schedule(c);
}

/* Queues len bytes of b at off: referenced, or copied when small (see
 * outq_add for what each costs). */
static void h1_add_ref(struct conn_h1 *c, struct rbuf *b, size_t off,
                       size_t len)
{
    if (outq_add(bufferevent_get_output(c->bev), &c->tail_ref, b, off, len) < 0)
        h1_queue_failed(c, len);
}

/* Queues a copy of len bytes at p (framing, the front's own answers). */
static void h1_copy(struct conn_h1 *c, const void *p, size_t len)
{
    if (outq_copy(bufferevent_get_output(c->bev), &c->tail_ref, p, len) < 0)
        h1_queue_failed(c, len);
}

/* Queues a formatted string (evbuffer_add_printf sizes its chain for the
 * text, whatever the tail). */
static void h1_printf(struct conn_h1 *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void h1_printf(struct conn_h1 *c, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = evbuffer_add_vprintf(bufferevent_get_output(c->bev), fmt, ap);
    va_end(ap);
    c->tail_ref = false;
    if (n < 0)
        h1_queue_failed(c, strlen(fmt));
}

/* Answers with the Status body (taken) and closes (no stream involved),
 * the answer flushed within flush_seconds of no progress; a 403 says
 * nosniff, as the apiserver's responsewriters.Forbidden. */
static void h1_reject_body(struct conn_h1 *c, int status, struct rbuf *body,
                           bool nosniff, unsigned flush_seconds)
{
    h1_printf(c,
              "HTTP/1.1 %d %s\r\nDate: %s\r\n"
              "Content-Type: application/json\r\n%s"
              "Content-Length: %zu\r\nConnection: close\r\n\r\n",
              status, stream_reason(status), stream_date(),
              nosniff ? "X-Content-Type-Options: nosniff\r\n" : "",
              body->len);
    h1_add_ref(c, body, 0, body->len);
    rbuf_unref(body);
    h1_close(c, flush_seconds);
}

/* Answers with a Kubernetes Status and closes (no stream involved), the
 * answer flushed within flush_seconds of no progress. */
static void h1_reject(struct conn_h1 *c, int status, const char *reason,
                      const char *message, unsigned flush_seconds)
{
    struct rbuf *body = kjson_status(status, reason, message);

    log_debug("conn_h1: %d %s: %s", status, reason, message);
    h1_reject_body(c, status, body, false, flush_seconds);
}

/* Refuses the request being read with status (400, 413, 414, 417, 431,
 * 501 or 505) and closes: the framing of what follows cannot be
 * trusted. */
static void h1_refuse(struct conn_h1 *c, int status, const char *message)
{
    static const struct {
        int status;
        const char *reason;
    } reasons[] = {
        {413, "RequestEntityTooLarge"}, {414, "RequestURITooLong"},
        {417, "ExpectationFailed"},     {431, "RequestHeaderFieldsTooLarge"},
        {501, "NotImplemented"},        {505, "HTTPVersionNotSupported"},
    };
    const char *reason = "BadRequest";

    for (size_t i = 0; i < RW_ARRAY_LEN(reasons); i++)
        if (reasons[i].status == status)
            reason = reasons[i].reason;
    h1_reject(c, status, reason, message,
              registry_flush_seconds(c->base.registry));
}

/* ---- parsing ---- */

static int h1_on_url(http_parser *p, const char *at, size_t len)
{
    h1_req_url(((struct conn_h1 *)p->data)->req, at, len);
    return 0;
}

static int h1_on_header_field(http_parser *p, const char *at, size_t len)
{
    h1_req_field(((struct conn_h1 *)p->data)->req, at, len);
    return 0;
}

static int h1_on_header_value(http_parser *p, const char *at, size_t len)
{
    h1_req_value(((struct conn_h1 *)p->data)->req, at, len);
    return 0;
}

/* The body is conn_h1's to read (h1_body_read): 1 tells http-parser
 * that none follows. */
static int h1_on_headers_complete(http_parser *p)
{
    return 1;
}

static int h1_on_message_complete(http_parser *p)
{
    struct conn_h1 *c = p->data;
    struct h1_req *r = c->req;

    r->complete = true;
    r->keep_alive = http_should_keep_alive(p) != 0;
    r->method = http_method_str((enum http_method)p->method);
    if (p->method == HTTP_CONNECT)
        r->keep_alive = false; /* no tunnels here */
    http_parser_pause(p, 1);
    return 0;
}

static void h1_parser_reset(struct conn_h1 *c)
{
    http_parser_init(&c->parser, HTTP_REQUEST);
    c->parser.data = c;
}

/* The parsed request becomes the stream being answered. */
static void h1_dispatch(struct conn_h1 *c)
{
    struct h1_req *r = c->req;
    struct h1_stream *st = xcalloc(1, sizeof(*st));

    stream_init(&st->base, &h1_ops, FRONT_H1);
    st->base.req.peer = c->base.peer;
    st->conn = c;
    h1_req_apply(r, &st->base);
    if (c->req_body != NULL && evbuffer_get_length(c->req_body) > 0) {
        size_t len = evbuffer_get_length(c->req_body);
        char *body = xmalloc(len + 1);

        evbuffer_remove(c->req_body, body, len);
        body[len] = '\0';
        stream_set_body(&st->base, body, len);
    }
    c->keep_alive = r->keep_alive;
    h1_req_free(r);
    c->req = NULL;
    h1_parser_reset(c);
    c->stream = st;
    registry_count_stream(c->base.registry, FRONT_H1, 1);
    h1_timeouts(c); /* none while it is answered */
    registry_dispatch(c->base.registry, &st->base);
}

/* A request's first byte is here: it is due complete within
 * header_timeout. */
static void h1_request_begin(struct conn_h1 *c)
{
    unsigned limit = registry_config(c->base.registry)->header_timeout;

    c->req = h1_req_new(clock_mono_ms() + limit * 1000ull);
}

/* Reads the request head once it is all in: checked (h1_head_parse),
 * then parsed by http-parser for its fields.  Returns H1_READER_DONE
 * once read, 0 while incomplete, RW_EINVAL after refusing the request. */
static int h1_head_read(struct conn_h1 *c)
{
    struct evbuffer *in = bufferevent_get_input(c->bev);
    struct h1_req *r = c->req;
    char why[256];
    int status = 0;
    long len = h1_head_reader_head(
        &r->reader, in, registry_config(c->base.registry)->max_header_bytes,
        &status, why, sizeof(why));
    const char *p = NULL;
    size_t n;

    if (len == 0)
        return 0;
    if (len > 0) {
        p = (const char *)evbuffer_pullup(in, len);
        status =
            h1_head_parse(p, (size_t)len, &r->reader.head, why, sizeof(why));
    }
    if (status != 0) {
        h1_refuse(c, status, why);
        return RW_EINVAL;
    }
    n = http_parser_execute(&c->parser, &h1_settings, p, (size_t)len);
    if (!r->complete || n != (size_t)len) {
        enum http_errno err = HTTP_PARSER_ERRNO(&c->parser);

        snprintf(why, sizeof(why), "Malformed HTTP/1.1 request: %s",
                 http_errno_description(err));
        /* a method token http-parser does not know (RFC 9110 9.1) */
        h1_refuse(c, err == HPE_INVALID_METHOD ? 501 : 400, why);
        return RW_EINVAL;
    }
    h1_head_reader_head_done(&r->reader, in, (size_t)len);
    return H1_READER_DONE;
}

/* Reads the request body, kept unless the method is GET or HEAD (whose
 * body is dropped); true once it is all in. */
static bool h1_body_read(struct conn_h1 *c)
{
    enum http_method m = (enum http_method)c->parser.method;
    struct evbuffer *keep = NULL;
    char why[160];
    int status = 0;
    int rc;

    if (m != HTTP_GET && m != HTTP_HEAD &&
        c->req->reader.head.framing != H1_FRAMING_NONE) {
        if (c->req_body == NULL)
            c->req_body = evbuffer_new();
        keep = c->req_body;
    }
    rc = h1_head_reader_body(
        &c->req->reader, bufferevent_get_input(c->bev), keep,
        registry_config(c->base.registry)->max_header_bytes, STREAM_MAX_BODY,
        &status, why, sizeof(why));

    if (rc < 0)
        h1_refuse(c, status, why);
    return rc == H1_READER_DONE;
}

/* A request with a body is decided before its body is read
 * (front_config precheck: authentication and authorization, as the
 * apiserver's filters before its handler reads the body): a refusal is
 * answered now, without 100 Continue, and the connection closes (the
 * body unread).  Returns whether it was refused. */
static bool h1_refused(struct conn_h1 *c)
{
    const struct front_config *cfg = registry_config(c->base.registry);
    enum http_method m = (enum http_method)c->parser.method;
    struct request_refusal ref;
    struct stream tmp;
    bool refused;

    if (cfg->precheck == NULL || m == HTTP_GET || m == HTTP_HEAD ||
        c->req->reader.head.framing == H1_FRAMING_NONE)
        return false;
    stream_init(&tmp, &h1_ops, FRONT_H1);
    tmp.req.peer = c->base.peer;
    h1_req_apply(c->req, &tmp);
    refused = cfg->precheck(stream_request(&tmp), cfg->precheck_arg, &ref);
    stream_finish(&tmp);
    if (refused)
        h1_reject_body(c, ref.code, ref.body, ref.nosniff,
                       registry_flush_seconds(c->base.registry));
    return refused;
}

/* RFC 9110 10.1.1: a client waiting for 100 (Continue) before it sends
 * the body gets it once the head is accepted. */
static void h1_continue(struct conn_h1 *c)
{
    struct h1_req *r = c->req;

    if (r->reader.head.framing != H1_FRAMING_NONE &&
        r->reader.head.version >= 11 && h1_req_expects_continue(r))
        h1_copy(c, "HTTP/1.1 100 Continue\r\n\r\n", 25);
}

/* Reads input while no stream is being answered and the output has
 * room; dispatches at most one request. */
static void h1_parse(struct conn_h1 *c)
{
    struct evbuffer *in = bufferevent_get_input(c->bev);
    size_t high = registry_config(c->base.registry)->output_high_water;

    if (c->stream != NULL || c->closing || c->dead ||
        evbuffer_get_length(bufferevent_get_output(c->bev)) > high ||
        evbuffer_get_length(in) == 0)
        return; /* (the write callback comes back when below high) */
    if (c->req == NULL)
        h1_request_begin(c);
    if (!c->req->reader.head_done) {
        if (h1_head_read(c) <= 0)
            return;
        if (h1_req_expectation_failed(c->req)) {
            h1_refuse(c, 417,
                      "Expectation Failed: only 100-continue can be "
                      "met");
            return;
        }
        if (h1_refused(c))
            return;
        h1_continue(c);
    }
    if (h1_body_read(c))
        h1_dispatch(c);
}

/* ---- the service loop, at the tail of every callback ---- */

/* Finishes the stream once it has ended or its transport is gone;
 * returns whether the next request may be parsed. */
static bool h1_stream_service(struct conn_h1 *c)
{
    struct stream *s = &c->stream->base;
    bool gone = s->gone;

    if (!s->ended && !s->gone)
        stream_drained(s);
    if (!s->ended && !s->gone)
        return false;
    h1_stream_free(c);
    if (gone)
        c->dead = true;
    else if (!c->keep_alive)
        h1_close(c, registry_flush_seconds(c->base.registry));
    return !c->dead && !c->closing;
}

static void h1_service(struct conn_h1 *c)
{
    if (c->base.dying)
        return; /* the reaper is on its way */
    for (int round = 0; round < H1_SERVICE_ROUNDS && !c->dead; round++) {
        if (c->stream != NULL && !h1_stream_service(c))
            break;
        if (c->closing)
            break;
        if (registry_draining(c->base.registry) && c->req == NULL) {
            /* shutting down: no request after this one */
            h1_close(c, registry_flush_seconds(c->base.registry));
            break;
        }
        h1_parse(c);
        if (c->stream == NULL) {
            /* nothing more to answer from a client that has gone quiet */
            if (c->eof)
                h1_close(c, registry_flush_seconds(c->base.registry));
            break;
        }
    }
    if (c->stream != NULL && (c->stream->base.ended || c->stream->base.gone))
        h1_schedule(c); /* more pipelined requests than rounds */
    if (c->closing)
        h1_closing_progress(c);
    if (c->dead)
        h1_kill(c);
    else
        h1_timeouts(c);
}

/* ---- libevent callbacks ---- */

static void conn_h1_read_cb(struct bufferevent *bev, void *arg)
{
    struct conn_h1 *c = arg;
    struct evbuffer *in = bufferevent_get_input(bev);

    if (c->closing) {
        c->lingered += evbuffer_get_length(in);
        evbuffer_drain(in, evbuffer_get_length(in));
        if (c->lingered > H1_LINGER_BYTES)
            c->dead = true;
    }
    /* otherwise bytes wait in the input until no stream is answered */
    h1_service(c);
}

static void conn_h1_write_cb(struct bufferevent *bev, void *arg)
{
    h1_service(arg);
}

/* A request not complete in time (slowloris): 408 and close, as soon as
 * the client reads it or briefly after. */
static void h1_header_timeout(struct conn_h1 *c)
{
    unsigned limit = registry_config(c->base.registry)->header_timeout;
    char msg[128];

    snprintf(msg, sizeof(msg),
             "Request not received in full within %u seconds of its start",
             limit);
    h1_reject(c, 408, "Timeout", msg, H1_TIMEOUT_FLUSH_SECONDS);
}

static void conn_h1_event_cb(struct bufferevent *bev, short what, void *arg)
{
    struct conn_h1 *c = arg;
    struct stream *s = c->stream != NULL ? &c->stream->base : NULL;

    if (c->base.dying)
        return;

    if (what & BEV_EVENT_EOF) {
        c->eof = true;
        /* a client going away in the middle of a response (a watch) */
        if (s != NULL && !s->ended)
            stream_gone(s);
        if (c->lingering || (s != NULL && s->gone))
            c->dead = true;
        log_debug("conn_h1: client closed its side");
    } else if ((what & BEV_EVENT_TIMEOUT) && (what & BEV_EVENT_READING) &&
               c->wait == H1_WAIT_HEADER && !c->closing &&
               registry_config(c->base.registry)->header_timeout > 0) {
        h1_header_timeout(c);
    } else {
        log_debug("conn_h1: %s %s",
                  (what & BEV_EVENT_TIMEOUT) ? "timeout" : "error",
                  (what & BEV_EVENT_WRITING) ? "writing" : "reading");
        if (s != NULL)
            stream_gone(s);
        c->dead = true;
    }
    h1_service(c);
}

/* ---- stream ops ---- */

static struct conn_h1 *h1_conn(const struct stream *s)
{
    return ((const struct h1_stream *)s)->conn;
}

static void h1_begin(struct stream *s, int status, const char *content_type,
                     int64_t content_length)
{
    struct conn_h1 *c = h1_conn(s);
    bool v11 = s->req.http_version >= 11;
    const struct stream_header *h;

    if (stream_bodiless(status))
        c->body = H1_BODY_NONE;
    else if (content_length >= 0)
        c->body = H1_BODY_LENGTH;
    else if (v11)
        c->body = H1_BODY_CHUNKED;
    else
        c->body = H1_BODY_CLOSE;
    if (c->body == H1_BODY_CLOSE)
        c->keep_alive = false;
    h1_printf(c, "HTTP/1.1 %d %s\r\nDate: %s\r\n", status,
              stream_reason(status), stream_date());
    if (content_type != NULL)
        h1_printf(c, "Content-Type: %s\r\n", content_type);
    if (c->body == H1_BODY_LENGTH)
        h1_printf(c, "Content-Length: %lld\r\n", (long long)content_length);
    else if (c->body == H1_BODY_CHUNKED)
        h1_copy(c, "Transfer-Encoding: chunked\r\n", 28);
    STAILQ_FOREACH(h, &s->headers, link)
        h1_printf(c, "%s: %s\r\n", h->name, h->value);
    if (!c->keep_alive)
        h1_copy(c, "Connection: close\r\n", 19);
    else if (!v11)
        h1_copy(c, "Connection: keep-alive\r\n", 24);
    h1_copy(c, "\r\n", 2);
    if (s->head)
        c->body = H1_BODY_NONE;
}

static void h1_write(struct stream *s, struct rbuf *buf, size_t off, size_t len)
{
    struct conn_h1 *c = h1_conn(s);
    char size[24];

    if (c->body == H1_BODY_NONE)
        return;
    if (c->body != H1_BODY_CHUNKED) {
        h1_add_ref(c, buf, off, len);
        return;
    }
    h1_copy(c, size, (size_t)snprintf(size, sizeof(size), "%zx\r\n", len));
    h1_add_ref(c, buf, off, len);
    h1_copy(c, "\r\n", 2);
}

static void h1_write_frame(struct stream *s, struct rbuf *frame)
{
    struct conn_h1 *c = h1_conn(s);

    if (c->body == H1_BODY_CHUNKED)
        h1_add_ref(c, frame, 0, frame->len); /* the frame is a chunk */
    else
        h1_write(s, frame, FRAME_HEAD_LEN, frame_payload_len(frame));
}

static size_t h1_pending(const struct stream *s)
{
    return evbuffer_get_length(bufferevent_get_output(h1_conn(s)->bev));
}

static void h1_end(struct stream *s)
{
    struct conn_h1 *c = h1_conn(s);

    if (c->body == H1_BODY_CHUNKED)
        h1_copy(c, "0\r\n\r\n", 5);
    h1_schedule(c);
}

static const struct stream_ops h1_ops = {
    .begin = h1_begin,
    .write = h1_write,
    .write_frame = h1_write_frame,
    .pending = h1_pending,
    .end = h1_end,
};

static http_parser_settings h1_settings = {
    .on_url = h1_on_url,
    .on_header_field = h1_on_header_field,
    .on_header_value = h1_on_header_value,
    .on_headers_complete = h1_on_headers_complete,
    .on_message_complete = h1_on_message_complete,
};

/* ---- construction ---- */

/* http-parser's own limit is process-wide; keep it above ours so that
 * ours decides (it counts the request line too). */
static void parser_limit(size_t max_header_bytes)
{
    static uint32_t current = 80 * 1024; /* HTTP_MAX_HEADER_SIZE */
    size_t want = max_header_bytes + 8 * 1024;

    if (want > UINT32_MAX)
        want = UINT32_MAX;
    if (want > current) {
        http_parser_set_max_header_size((uint32_t)want);
        current = (uint32_t)want;
    }
}

void conn_h1_new(struct registry *r, struct transport *t)
{
    const struct front_config *cfg = registry_config(r);
    struct conn_h1 *c = xcalloc(1, sizeof(*c));
    size_t read_high = RW_MAX(cfg->max_header_bytes * 2, (size_t)65536);
    struct bufferevent *bev = transport_bev(t);

    c->t = t;
    c->bev = bev;
    c->base.peer = transport_peer(t);
    c->base.service = h1_service_cb;
    c->base.close_now = h1_close_now;
    c->base.unfinished = h1_unfinished;
    parser_limit(cfg->max_header_bytes);
    h1_parser_reset(c);
    registry_attach(r, &c->base, FRONT_H1);
    bufferevent_setcb(bev, conn_h1_read_cb, conn_h1_write_cb, conn_h1_event_cb,
                      c);
    bufferevent_setwatermark(bev, EV_WRITE, STREAM_LOW_WATER, 0);
    bufferevent_setwatermark(bev, EV_READ, 0, read_high);
    c->wait = H1_WAIT_ANSWER; /* not what is set: h1_timeouts sets it */
    h1_timeouts(c);
    bufferevent_enable(bev, EV_READ | EV_WRITE);
    /* the sniffer's bytes: parse them from the loop */
    h1_schedule(c);
}
