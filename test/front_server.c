/*
 * front_server.c: the serving front (listener, conn_h1, conn_h2, stream)
 * with a few test handlers, for test/integration/front_test.py and for
 * trying the front by hand.
 *
 *   front_server PORT [MAX_HEADER_BYTES [MAX_CONNECTIONS [IDLE_TIMEOUT
 *                [HEADER_TIMEOUT]]]]
 *
 * Listens on 127.0.0.1:PORT (0: the kernel picks; either way the first
 * line on stdout is "port N").  SIGTERM or SIGINT: breaks out of the loop
 * at once and frees everything as ringwatch's main does
 * (event_base_loopbreak, listener_free, event_base_free), so that
 * valgrind or LeakSanitizer can tell leaks.  FRONT_DEBUG=1 in the
 * environment logs at debug level.
 *
 * Handlers:
 *   /small             a fixed JSON body with Content-Length
 *   /echo              the request as the handler sees it, as JSON (its
 *                      body: length and byte sum)
 *   /big?size=S        S bytes ('x'...) in one buffer, with Content-Length
 *   /stream?n=N&size=S N frames of S bytes each (frame i, byte k:
 *                      'a' + (i + k) % 26, the last byte '\n'), written
 *                      while stream_pending() < 64 KiB, resumed in
 *                      on_drain, then stream_end
 *   /forever           a frame {"seq":N}\n every 100 ms until the client
 *                      goes away; counts on_close calls
 *   /idle              a streamed body that never gets a byte (an idle
 *                      watch), until the client goes away
 *   /shared?n=N&size=S one shared S-byte frame written N times with
 *                      back-pressure (fan-out of one encoded event)
 *   /fanout?n=N&burst=B&every=K&large=L
 *                      joins a broadcast: every millisecond (or as fast
 *                      as the loop goes) up to B (default 1) copies of one
 *                      shared frame (a 139-byte watch event) are written to
 *                      every member below 64 KiB pending, until it got N;
 *                      with K > 0, every K-th is instead a shared frame of
 *                      L bytes (default 2000): small and large events mixed.
 *                      A fan-out benchmark for h2load, and what a slow
 *                      watcher's output costs (heap_bytes)
 *   /stats             counters as JSON (on_close counts, listener_stats,
 *                      heap_bytes: bytes malloc has handed out, glibc)
 *   /status            429 Status with Retry-After: 1 (kjson_status)
 *   anything else      404 Status
 */
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/event.h>

#include "cache/rw.h"
#include "proto/frame.h"
#include "proto/kjson.h"
#include "src/listener.h"
#include "src/log.h"
#include "src/stream.h"

#define FILL_HIGH_WATER (64 * 1024)
#define MAX_STREAM_FRAMES 10000000L
#define MAX_FRAME_SIZE (1024 * 1024)
#define MAX_BIG (64 * 1024 * 1024)

static struct event_base *base;
static struct listener *listener;

static struct {
    uint64_t idle_open;
    uint64_t forever_open;
    uint64_t forever_closes;
    uint64_t stream_open;
    uint64_t stream_closes;
    uint64_t stream_completed;
} counters;

/* The value of key in a raw query, as a long; def when absent. */
static long query_long(const char *query, const char *key, long def)
{
    size_t klen = strlen(key);

    for (const char *p = query; p != NULL && *p; p = strchr(p, '&')) {
        if (*p == '&')
            p++;
        if (strncmp(p, key, klen) == 0 && p[klen] == '=')
            return strtol(p + klen + 1, NULL, 10);
    }
    return def;
}

static void respond_status(struct stream *s, int code, const char *reason,
                           const char *message)
{
    struct rbuf *body = kjson_status(code, reason, message);

    stream_respond(s, code, "application/json", body);
    rbuf_unref(body);
}

static void respond_json(struct stream *s, char *json)
{
    struct rbuf *body = rbuf_from_str(json);

    free(json);
    stream_respond(s, 200, "application/json", body);
    rbuf_unref(body);
}

/* ---- /stream ---- */

struct fill {
    struct stream *s;
    long n, i;
    size_t size;
    struct rbuf *shared; /* written every time, if set */
    bool ended;
};

static struct rbuf *pattern_frame(long i, size_t size)
{
    struct rbuf *f = frame_alloc(size);
    char *p = frame_payload(f);

    for (size_t k = 0; k + 1 < size; k++)
        p[k] = (char)('a' + (i + (long)k) % 26);
    p[size - 1] = '\n';
    return f;
}

static void fill_run(struct fill *fl)
{
    while (fl->i < fl->n && stream_pending(fl->s) < FILL_HIGH_WATER) {
        struct rbuf *f = fl->shared != NULL ? rbuf_ref(fl->shared)
                                            : pattern_frame(fl->i, fl->size);

        stream_write_frame(fl->s, f);
        rbuf_unref(f);
        fl->i++;
    }
    if (fl->i == fl->n && !fl->ended) {
        fl->ended = true;
        counters.stream_completed++;
        stream_end(fl->s);
    }
}

static void fill_drain_cb(struct stream *s, void *arg)
{
    fill_run(arg);
}

static void fill_close_cb(struct stream *s, void *arg)
{
    struct fill *fl = arg;

    counters.stream_open--;
    counters.stream_closes++;
    rbuf_unref(fl->shared);
    free(fl);
}

static void handle_stream(struct stream *s, const struct request *r,
                          bool shared)
{
    struct fill *fl = xcalloc(1, sizeof(*fl));

    fl->s = s;
    fl->n = query_long(r->query, "n", 10);
    fl->size = (size_t)query_long(r->query, "size", 100);
    if (fl->n < 0 || fl->n > MAX_STREAM_FRAMES || fl->size < 1 ||
        fl->size > MAX_FRAME_SIZE) {
        free(fl);
        respond_status(s, 400, "BadRequest", "n or size out of range");
        return;
    }
    if (shared)
        fl->shared = pattern_frame(0, fl->size);
    counters.stream_open++;
    stream_set_callbacks(s, fill_drain_cb, fill_close_cb, fl);
    stream_begin(s, 200, "application/json", -1);
    fill_run(fl);
}

/* ---- /forever ---- */

struct forever {
    struct stream *s;
    struct event *timer;
    long seq;
};

static void forever_tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct forever *fv = arg;
    struct timeval tv = {.tv_sec = 0, .tv_usec = 100 * 1000};
    char line[64];
    int len = snprintf(line, sizeof(line), "{\"seq\":%ld}\n", fv->seq++);
    struct rbuf *f = frame_from(line, (size_t)len);

    if (stream_pending(fv->s) < FILL_HIGH_WATER)
        stream_write_frame(fv->s, f);
    rbuf_unref(f);
    evtimer_add(fv->timer, &tv);
}

static void forever_close_cb(struct stream *s, void *arg)
{
    struct forever *fv = arg;

    counters.forever_open--;
    counters.forever_closes++;
    event_free(fv->timer);
    free(fv);
}

static void handle_forever(struct stream *s)
{
    struct forever *fv = xcalloc(1, sizeof(*fv));

    fv->s = s;
    fv->timer = evtimer_new(base, forever_tick_cb, fv);
    counters.forever_open++;
    stream_set_callbacks(s, NULL, forever_close_cb, fv);
    stream_begin(s, 200, "application/json", -1);
    forever_tick_cb(-1, 0, fv);
}

/* ---- /fanout ---- */

struct member {
    struct stream *s;
    long left, burst;
    long every, sent;        /* every-th frame is the large one */
    struct rbuf *large;      /* shared with members asking the same size */
    LIST_ENTRY(member) link; /* members */
};

#define FAN_EVENT                                                              \
    "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":"      \
    "\"v1\","                                                                  \
    "\"metadata\":{\"name\":\"web-0\",\"namespace\":\"default\","              \
    "\"resourceVersion\":\"123456\"}}}\n"

static LIST_HEAD(, member) members = LIST_HEAD_INITIALIZER(members);
static struct event *fan_tick;
static struct rbuf *fan_frame;
static struct rbuf *fan_large; /* the last size asked for */

static struct rbuf *fanout_next(struct member *m)
{
    m->sent++;
    if (m->every > 0 && m->sent % m->every == 0)
        return m->large;
    return fan_frame;
}

/* The shared large frame of size bytes (2..MAX_FRAME_SIZE, else 2000). */
static struct rbuf *fanout_large(long size)
{
    if (size < 2 || size > MAX_FRAME_SIZE)
        size = 2000;
    if (fan_large == NULL || frame_payload_len(fan_large) != (size_t)size) {
        rbuf_unref(fan_large);
        fan_large = pattern_frame(0, (size_t)size);
    }
    return rbuf_ref(fan_large);
}

static void fanout_tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct timeval tv = {.tv_sec = 0, .tv_usec = 1000};
    struct member *m;

    LIST_FOREACH(m, &members, link) {
        for (long b = 0; b < m->burst && m->left > 0 &&
                         stream_pending(m->s) < FILL_HIGH_WATER;
             b++) {
            stream_write_frame(m->s, fanout_next(m));
            if (--m->left == 0)
                stream_end(m->s);
        }
    }
    if (!LIST_EMPTY(&members))
        evtimer_add(fan_tick, &tv);
}

static void fanout_close_cb(struct stream *s, void *arg)
{
    struct member *m = arg;

    LIST_REMOVE(m, link);
    rbuf_unref(m->large);
    free(m);
}

static void handle_fanout(struct stream *s, const struct request *r)
{
    struct member *m = xcalloc(1, sizeof(*m));
    struct timeval tv = {.tv_sec = 0, .tv_usec = 1000};

    m->s = s;
    m->left = query_long(r->query, "n", 100);
    m->burst = RW_MAX(query_long(r->query, "burst", 1), 1L);
    m->every = query_long(r->query, "every", 0);
    if (fan_frame == NULL)
        fan_frame = frame_from(FAN_EVENT, sizeof(FAN_EVENT) - 1);
    if (m->every > 0)
        m->large = fanout_large(query_long(r->query, "large", 2000));
    if (fan_tick == NULL)
        fan_tick = evtimer_new(base, fanout_tick_cb, NULL);
    LIST_INSERT_HEAD(&members, m, link);
    stream_set_callbacks(s, NULL, fanout_close_cb, m);
    stream_begin(s, 200, "application/json", -1);
    if (m->left <= 0) {
        m->left = 0;
        stream_end(s);
    }
    if (!evtimer_pending(fan_tick, NULL))
        evtimer_add(fan_tick, &tv);
}

/* ---- /idle ---- */

static void idle_close_cb(struct stream *s, void *arg)
{
    counters.idle_open--;
}

static void handle_idle(struct stream *s)
{
    counters.idle_open++;
    stream_set_callbacks(s, NULL, idle_close_cb, NULL);
    stream_begin(s, 200, "application/json", -1);
}

/* ---- the others ---- */

static void handle_echo(struct stream *s, const struct request *r)
{
    char *m = kjson_escape(r->method_name), *p = kjson_escape(r->path);
    char *q = kjson_escape(r->query), *a = kjson_escape(r->accept);
    char *u = kjson_escape(r->user_agent);

    size_t body_len;
    const char *body = stream_body(s, &body_len);
    /* the body's bytes summed, so that a test sees they are the ones sent */
    unsigned long sum = 0;

    for (size_t i = 0; i < body_len; i++)
        sum += (unsigned char)body[i];
    respond_json(s, xasprintf("{\"method\":\"%s\",\"method_enum\":%d,"
                              "\"path\":\"%s\",\"query\":\"%s\","
                              "\"accept\":\"%s\",\"user_agent\":\"%s\","
                              "\"http_version\":%d,\"protocol\":%d,"
                              "\"body_bytes\":%zu,\"body_sum\":%lu}\n",
                              m, (int)r->method, p, q, a, u, r->http_version,
                              stream_protocol(s), body_len, sum));
    free(m);
    free(p);
    free(q);
    free(a);
    free(u);
}

static void handle_big(struct stream *s, const struct request *r)
{
    long size = query_long(r->query, "size", 1 << 20);
    struct rbuf *body;

    if (size < 0 || size > MAX_BIG) {
        respond_status(s, 400, "BadRequest", "size out of range");
        return;
    }
    body = rbuf_new((size_t)size);
    memset(body->data, 'x', (size_t)size);
    stream_respond(s, 200, "application/octet-stream", body);
    rbuf_unref(body);
}

/* Bytes malloc has handed out and not taken back (glibc's arenas). */
static unsigned long long heap_bytes(void)
{
#if defined(__GLIBC__)
#if __GLIBC_PREREQ(2, 33)
    return (unsigned long long)mallinfo2().uordblks;
#endif
#endif
    return 0;
}

static void handle_stats(struct stream *s)
{
    struct listener_stats st;

    listener_stats(listener, &st);
    respond_json(
        s, xasprintf("{\"idle_open\":%llu,"
                     "\"forever_open\":%llu,\"forever_closes\":%llu,"
                     "\"stream_open\":%llu,\"stream_closes\":%llu,"
                     "\"stream_completed\":%llu,"
                     "\"connections_sniffing\":%llu,\"connections_h1\":%llu,"
                     "\"connections_h2\":%llu,\"streams_h1\":%llu,"
                     "\"streams_h2\":%llu,\"connections_total\":%llu,"
                     "\"connections_rejected\":%llu,"
                     "\"streams_h1_total\":%llu,\"streams_h2_total\":%llu,"
                     "\"heap_bytes\":%llu}\n",
                     (unsigned long long)counters.idle_open,
                     (unsigned long long)counters.forever_open,
                     (unsigned long long)counters.forever_closes,
                     (unsigned long long)counters.stream_open,
                     (unsigned long long)counters.stream_closes,
                     (unsigned long long)counters.stream_completed,
                     (unsigned long long)st.connections_sniffing,
                     (unsigned long long)st.connections_h1,
                     (unsigned long long)st.connections_h2,
                     (unsigned long long)st.streams_h1,
                     (unsigned long long)st.streams_h2,
                     (unsigned long long)st.connections_total,
                     (unsigned long long)st.connections_rejected,
                     (unsigned long long)st.streams_h1_total,
                     (unsigned long long)st.streams_h2_total, heap_bytes()));
}

static void handle(struct stream *s, void *arg)
{
    const struct request *r = stream_request(s);
    static const char small[] =
        "{\"kind\":\"Small\",\"apiVersion\":\"v1\",\"items\":[1,2,3]}\n";

    if (strcmp(r->path, "/small") == 0) {
        struct rbuf *body = rbuf_from(small, sizeof(small) - 1);

        stream_respond(s, 200, "application/json", body);
        rbuf_unref(body);
    } else if (strcmp(r->path, "/echo") == 0) {
        handle_echo(s, r);
    } else if (strcmp(r->path, "/big") == 0) {
        handle_big(s, r);
    } else if (strcmp(r->path, "/stream") == 0) {
        handle_stream(s, r, false);
    } else if (strcmp(r->path, "/shared") == 0) {
        handle_stream(s, r, true);
    } else if (strcmp(r->path, "/fanout") == 0) {
        handle_fanout(s, r);
    } else if (strcmp(r->path, "/idle") == 0) {
        handle_idle(s);
    } else if (strcmp(r->path, "/forever") == 0) {
        handle_forever(s);
    } else if (strcmp(r->path, "/stats") == 0) {
        handle_stats(s);
    } else if (strcmp(r->path, "/status") == 0) {
        stream_add_header(s, "retry-after", "1");
        respond_status(s, 429, "TooManyRequests",
                       "Too many requests, please try again later.");
    } else {
        respond_status(s, 404, "NotFound",
                       "the server could not find the requested resource");
    }
}

/* As ringwatch's main: break out of the loop at once, then free. */
static void signal_cb(evutil_socket_t sig, short what, void *arg)
{
    event_base_loopbreak(base);
}

int main(int argc, char **argv)
{
    struct front_config cfg;
    struct event *sigterm, *sigint;
    char address[64];

    if (argc < 2) {
        fprintf(stderr, "usage: front_server PORT [MAX_HEADER_BYTES "
                        "[MAX_CONNECTIONS [IDLE_TIMEOUT [HEADER_TIMEOUT]]]]\n");
        return 2;
    }
    log_init(getenv("FRONT_DEBUG") ? LOG_DEBUG : LOG_WARN, "front_server");
    signal(SIGPIPE, SIG_IGN);
    base = event_base_new();
    listener_config_defaults(&cfg);
    if (argc > 2)
        cfg.max_header_bytes = (size_t)strtoul(argv[2], NULL, 10);
    if (argc > 3)
        cfg.max_connections = (unsigned)strtoul(argv[3], NULL, 10);
    if (argc > 4)
        cfg.idle_timeout = (unsigned)strtoul(argv[4], NULL, 10);
    if (argc > 5)
        cfg.header_timeout = (unsigned)strtoul(argv[5], NULL, 10);
    snprintf(address, sizeof(address), "127.0.0.1:%s", argv[1]);
    listener = listener_new(base, address, &cfg, handle, NULL);
    if (listener == NULL)
        return 1;
    printf("port %d\n", listener_port(listener));
    fflush(stdout);
    sigterm = evsignal_new(base, SIGTERM, signal_cb, NULL);
    sigint = evsignal_new(base, SIGINT, signal_cb, NULL);
    event_add(sigterm, NULL);
    event_add(sigint, NULL);
    event_base_dispatch(base);
    listener_free(listener);
    if (fan_tick != NULL)
        event_free(fan_tick);
    rbuf_unref(fan_frame);
    rbuf_unref(fan_large);
    event_free(sigterm);
    event_free(sigint);
    event_base_free(base);
    libevent_global_shutdown();
    fprintf(stderr,
            "front_server: exit: forever_closes=%llu "
            "stream_closes=%llu\n",
            (unsigned long long)counters.forever_closes,
            (unsigned long long)counters.stream_closes);
    return 0;
}
