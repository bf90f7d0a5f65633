/*
 * stream.c: the protocol-independent half of a request/response (see
 * stream.h for the handler's view, stream_impl.h for the modules').
 *
 * This file owns the contract checks (begin once, no writes after end,
 * exactly Content-Length body bytes), the response headers added before
 * begin, the on_drain edge (fires once per crossing of STREAM_LOW_WATER
 * from above) and the exactly-once delivery of on_close.  Bytes move in
 * the connection modules behind struct stream_ops.
 */
#include "src/stream.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cache/rw.h"
#include "proto/frame.h"
#include "src/stream_impl.h"

/* ---- request ---- */

static enum stream_method method_parse(const char *m, size_t len)
{
    static const struct {
        const char *name;
        enum stream_method method;
    } methods[] = {
        {"GET", STREAM_GET},         {"HEAD", STREAM_HEAD},
        {"POST", STREAM_POST},       {"PUT", STREAM_PUT},
        {"PATCH", STREAM_PATCH},     {"DELETE", STREAM_DELETE},
        {"OPTIONS", STREAM_OPTIONS},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(methods); i++)
        if (strlen(methods[i].name) == len &&
            memcmp(methods[i].name, m, len) == 0)
            return methods[i].method;
    return STREAM_OTHER;
}

static const char *block_put(char **p, const char *src, size_t len)
{
    char *start = *p;

    if (len)
        memcpy(start, src, len);
    start[len] = '\0';
    *p = start + len + 1;
    return start;
}

void stream_init(struct stream *s, const struct stream_ops *ops, int protocol)
{
    memset(s, 0, sizeof(*s));
    s->ops = ops;
    s->protocol = (uint8_t)protocol;
    s->content_length = -1;
    STAILQ_INIT(&s->headers);
    s->req.method_name = s->req.path = s->req.query = "";
    s->req.accept = s->req.user_agent = s->req.if_none_match = "";
    s->req.authorization = s->req.content_type = s->req.impersonate = "";
}

int stream_field_index(const char *name, size_t len)
{
    static const char *const names[STREAM_FIELD_COUNT] = {
        [STREAM_FIELD_ACCEPT] = "accept",
        [STREAM_FIELD_USER_AGENT] = "user-agent",
        [STREAM_FIELD_IF_NONE_MATCH] = "if-none-match",
        [STREAM_FIELD_AUTHORIZATION] = "authorization",
        [STREAM_FIELD_CONTENT_TYPE] = "content-type",
    };

    for (int i = 0; i < STREAM_FIELD_COUNT; i++)
        if (names[i] != NULL && strlen(names[i]) == len &&
            strncasecmp(names[i], name, len) == 0)
            return i;
    return -1;
}

#define GATHERED_PREFIX "impersonate-"

bool stream_field_gathered(const char *name, size_t len)
{
    return len >= strlen(GATHERED_PREFIX) &&
           strncasecmp(name, GATHERED_PREFIX, strlen(GATHERED_PREFIX)) == 0;
}

static void gather_append(struct stream_gather *g, const char *v, size_t len)
{
    if (g->len + len + 1 > g->cap) {
        g->cap = RW_MAX(RW_MAX(g->cap * 2, g->len + len + 1), (size_t)64);
        g->p = xrealloc(g->p, g->cap);
    }
    memcpy(g->p + g->len, v, len);
    g->len += len;
    g->p[g->len] = '\0';
}

void stream_gather_begin(struct stream_gather *g, const char *name, size_t len)
{
    size_t at;

    if (g->len > 0)
        gather_append(g, "\n", 1);
    at = g->len;
    gather_append(g, name, len);
    for (size_t i = at; i < g->len; i++)
        g->p[i] = (char)tolower((unsigned char)g->p[i]);
    gather_append(g, ": ", 2);
}

void stream_gather_add(struct stream_gather *g, const char *v, size_t len)
{
    gather_append(g, v, len);
}

struct stream_value stream_gathered(const struct stream_gather *g)
{
    return (struct stream_value){g->p, g->len};
}

void stream_gather_free(struct stream_gather *g)
{
    free(g->p);
    memset(g, 0, sizeof(*g));
}

void stream_set_request(struct stream *s, int http_version, const char *method,
                        size_t method_len, const char *path, size_t path_len,
                        const char *query, size_t query_len,
                        const struct stream_value fields[STREAM_FIELD_COUNT])
{
    const char *f[STREAM_FIELD_COUNT];
    size_t size, len[STREAM_FIELD_COUNT];
    char *p;

    if (query == NULL)
        query_len = 0;
    size = method_len + path_len + query_len + 3;
    for (int i = 0; i < STREAM_FIELD_COUNT; i++) {
        len[i] = fields[i].p != NULL ? fields[i].len : 0;
        size += len[i] + 1;
    }
    free(s->req_block);
    s->req_block = p = xmalloc(size);
    s->req.method = method_parse(method, method_len);
    s->req.method_name = block_put(&p, method, method_len);
    s->req.path = block_put(&p, path, path_len);
    s->req.query = block_put(&p, query, query_len);
    for (int i = 0; i < STREAM_FIELD_COUNT; i++)
        f[i] = block_put(&p, fields[i].p, len[i]);
    s->req.accept = f[STREAM_FIELD_ACCEPT];
    s->req.user_agent = f[STREAM_FIELD_USER_AGENT];
    s->req.if_none_match = f[STREAM_FIELD_IF_NONE_MATCH];
    s->req.authorization = f[STREAM_FIELD_AUTHORIZATION];
    s->req.content_type = f[STREAM_FIELD_CONTENT_TYPE];
    s->req.impersonate = f[STREAM_FIELD_IMPERSONATE];
    s->req.http_version = http_version;
    s->head = s->req.method == STREAM_HEAD;
}

void stream_set_body(struct stream *s, char *body, size_t len)
{
    free(s->body);
    s->body = body;
    s->body_len = body != NULL ? len : 0;
}

const char *stream_body(const struct stream *s, size_t *len)
{
    *len = s->body_len;
    return s->body;
}

void stream_forget_request(struct stream *s)
{
    free(s->req_block);
    s->req_block = NULL;
    stream_set_body(s, NULL, 0);
    s->req.method_name = s->req.path = s->req.query = "";
    s->req.accept = s->req.user_agent = s->req.if_none_match = "";
    s->req.authorization = s->req.content_type = s->req.impersonate = "";
}

const struct request *stream_request(const struct stream *s)
{
    return &s->req;
}

int stream_protocol(const struct stream *s)
{
    return s->protocol;
}

void stream_set_callbacks(struct stream *s, stream_cb on_drain,
                          stream_cb on_close, void *arg)
{
    s->on_drain = on_drain;
    s->on_close = on_close;
    s->cb_arg = arg;
}

void stream_set_release(struct stream *s, stream_cb fn, void *arg)
{
    s->on_release = fn;
    s->release_arg = arg;
}

void stream_release(struct stream *s)
{
    stream_cb fn = s->on_release;

    s->on_release = NULL;
    if (fn != NULL)
        fn(s, s->release_arg);
}

/* ---- response ---- */

void stream_add_header(struct stream *s, const char *name, const char *value)
{
    size_t nlen = strlen(name), vlen = strlen(value);
    struct stream_header *h;

    rw_assert(!s->begun);
    /* a CR or LF would split the HTTP/1.1 response: a handler bug */
    rw_assert(strpbrk(name, "\r\n: ") == NULL &&
              strpbrk(value, "\r\n") == NULL);
    h = xmalloc(sizeof(*h) + nlen + vlen + 2);
    memcpy(h->name, name, nlen + 1);
    h->value = h->name + nlen + 1;
    memcpy(h->name + nlen + 1, value, vlen + 1);
    STAILQ_INSERT_TAIL(&s->headers, h, link);
}

static void headers_free(struct stream *s)
{
    struct stream_header *h;

    while ((h = STAILQ_FIRST(&s->headers)) != NULL) {
        STAILQ_REMOVE_HEAD(&s->headers, link);
        free(h);
    }
}

void stream_begin(struct stream *s, int status, const char *content_type,
                  int64_t content_length)
{
    rw_assert(!s->begun && status >= 100 && status <= 999);
    rw_assert(content_length >= -1);
    s->begun = true;
    s->content_length = content_length;
    if (!s->gone)
        s->ops->begin(s, status, content_type, content_length);
    headers_free(s);
}

static void note_pending(struct stream *s)
{
    if (!s->above_low && s->ops->pending(s) > STREAM_LOW_WATER)
        s->above_low = true;
}

/* Counts len body bytes against the declared length; false when nothing
 * is to be sent. */
static bool body_accept(struct stream *s, size_t len)
{
    rw_assert(s->begun && !s->ended);
    if (s->content_length >= 0 && !s->head)
        rw_assert((uint64_t)s->written + len <= (uint64_t)s->content_length);
    s->written += (int64_t)len;
    return len > 0 && !s->gone && !s->head;
}

void stream_write(struct stream *s, struct rbuf *buf, size_t off, size_t len)
{
    rw_assert(buf != NULL && off <= buf->len && len <= buf->len - off);
    if (!body_accept(s, len))
        return;
    s->ops->write(s, buf, off, len);
    note_pending(s);
}

void stream_write_frame(struct stream *s, struct rbuf *frame)
{
    if (!body_accept(s, frame_payload_len(frame)))
        return;
    s->ops->write_frame(s, frame);
    note_pending(s);
}

size_t stream_pending(const struct stream *s)
{
    if (s->gone)
        return SIZE_MAX;
    return s->ops->pending(s);
}

void stream_end(struct stream *s)
{
    rw_assert(s->begun && !s->ended);
    if (s->content_length >= 0 && !s->head && !s->gone)
        rw_assert(s->written == s->content_length);
    s->ended = true;
    if (!s->gone)
        s->ops->end(s);
}

void stream_respond(struct stream *s, int status, const char *content_type,
                    struct rbuf *body)
{
    size_t len = body != NULL ? body->len : 0;

    stream_begin(s, status, content_type, (int64_t)len);
    if (len > 0)
        stream_write(s, body, 0, len);
    stream_end(s);
}

/* ---- for the connection modules ---- */

bool stream_bodiless(int status)
{
    return (status >= 100 && status < 200) || status == 204 || status == 304;
}

void stream_gone(struct stream *s)
{
    s->gone = true;
}

void stream_drained(struct stream *s)
{
    if (!s->above_low || s->gone || s->in_drain)
        return;
    if (s->ops->pending(s) > STREAM_LOW_WATER)
        return;
    s->above_low = false;
    if (s->ended || s->on_drain == NULL)
        return;
    s->in_drain = true;
    s->on_drain(s, s->cb_arg);
    s->in_drain = false;
}

void stream_finish(struct stream *s)
{
    if (!s->finished) {
        s->finished = true;
        s->gone = true;
        if (s->on_close != NULL)
            s->on_close(s, s->cb_arg);
        stream_release(s);
    }
    headers_free(s);
    free(s->req_block);
    s->req_block = NULL;
    stream_set_body(s, NULL, 0);
}

const char *stream_reason(int status)
{
    switch (status) {
    case 100:
        return "Continue";
    case 200:
        return "OK";
    case 201:
        return "Created";
    case 202:
        return "Accepted";
    case 204:
        return "No Content";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 304:
        return "Not Modified";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 406:
        return "Not Acceptable";
    case 408:
        return "Request Timeout";
    case 409:
        return "Conflict";
    case 410:
        return "Gone";
    case 413:
        return "Content Too Large";
    case 414:
        return "URI Too Long";
    case 415:
        return "Unsupported Media Type";
    case 417:
        return "Expectation Failed";
    case 422:
        return "Unprocessable Entity";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    case 504:
        return "Gateway Timeout";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Unknown";
    }
}

const char *stream_date(void)
{
    static char date[40];
    static time_t cached = -1;
    time_t now = time(NULL);
    struct tm tm;

    if (now != cached) {
        gmtime_r(&now, &tm);
        strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
        cached = now;
    }
    return date;
}
