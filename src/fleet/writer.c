/*
 * writer.c: paced, stamped updates to etcd (see writer.h).
 *
 * Data structure: the templates (one per object of the snapshot, head and
 * tail strings around the stamp), a round-robin index, one h2c connection
 * for the Puts, a pacing timer, and the log of acknowledged writes
 * (revision, send time), kept sorted by revision (Puts complete nearly in
 * order, so an insertion is nearly always an append).
 *
 * Invariants: inflight counts Puts whose callback has not run; once
 * stopped no Put is issued; the write log's revisions are strictly
 * increasing.
 */
#include "writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "cache/rw.h"
#include "proto/etcd.h"
#include "proto/grpc.h"
#include "range.h"
#include "scan.h"
#include "src/grpc_client.h"
#include "src/h2_client.h"
#include "src/log.h"

#define WRITER_TICK 0.01      /* seconds between pacing ticks */
#define WRITER_PUT_TIMEOUT 10 /* seconds per Put */
#define WRITER_LOG_FAILURES 5 /* failed Puts logged, then counted only */

enum writer_op {
    WRITER_UPDATE, /* creates and deletes (churn) go here */
};

struct writer_object {
    char *etcd_key;
    size_t etcd_key_len;
    char *head, *tail;
    size_t head_len, tail_len;
    uint64_t writes;
    uint32_t key;
};

struct writer_record {
    int64_t rev;
    int64_t sent_ns;
};

struct writer_put {
    struct writer *w;
    int64_t sent_ns;
};

struct writer {
    struct event_base *base;
    const struct resource_type *rt;
    struct keys *keys;
    char *host, *port;
    uint64_t rate;
    struct writer_callbacks cbs;
    void *arg;
    struct h2c *conn;
    struct range *load;
    struct writer_object *objects;
    size_t n, cap, next;
    struct event *tick;
    double started; /* monotonic seconds */
    bool running;
    bool closing; /* writer_free: Put callbacks only free */
    struct writer_record *log;
    size_t nlog, caplog;
    char *value; /* scratch for one value */
    size_t value_cap;
    struct writer_stats st;
};

static double writer_monotonic(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int64_t writer_wallclock_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ==== templates ==== */

struct strbuf {
    char *p;
    size_t len, cap;
};

static void strbuf_add(struct strbuf *b, const char *s, size_t len)
{
    if (b->len + len + 1 > b->cap) {
        b->cap = RW_MAX(b->cap * 2, b->len + len + 64);
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, len);
    b->len += len;
    b->p[b->len] = '\0';
}

#define KEY_IS(k, lit) scan_str_eq((k), (lit), sizeof(lit) - 1)

/* The last value of member `name` of the object at [p, end), or false. */
static bool writer_member(const char *p, const char *end, int depth,
                          const char *name, const char **val,
                          const char **val_end, bool *empty)
{
    struct scan_iter it;
    struct scan_str key;
    const char *v, *e;
    int rc;

    *val = NULL;
    if (empty)
        *empty = true;
    if (!scan_iter_begin(&it, p, end, depth))
        return false;
    while ((rc = scan_iter_next(&it, &key, &v, &e)) == 1) {
        if (empty)
            *empty = false;
        if (scan_str_eq(&key, name, strlen(name))) {
            *val = v;
            *val_end = e;
        }
    }
    return rc == 0;
}

/* Appends ",member" for each annotation but ours. */
static bool writer_other_annotations(const char *p, const char *end,
                                     struct strbuf *tail)
{
    struct scan_iter it;
    struct scan_str key;
    const char *v, *e;
    int rc;

    if (!scan_iter_begin(&it, p, end, 2))
        return true; /* null or not an object: replaced */
    while ((rc = scan_iter_next(&it, &key, &v, &e)) == 1) {
        if (KEY_IS(&key, SCAN_WRITTEN_AT) ||
            KEY_IS(&key, WRITER_COUNT_ANNOTATION))
            continue;
        strbuf_add(tail, ",", 1);
        strbuf_add(tail, key.p - 1, (size_t)(e - (key.p - 1)));
    }
    return rc == 0;
}

bool writer_template(const char *value, size_t len, char **head,
                     size_t *head_len, char **tail, size_t *tail_len)
{
    const char *end = value + len, *meta, *meta_end, *ann, *ann_end;
    struct strbuf h = {0}, t = {0};
    bool meta_empty;

    if (!writer_member(value, end, 0, "metadata", &meta, &meta_end, NULL) ||
        meta == NULL || *meta != '{')
        goto err;
    if (!writer_member(meta, meta_end, 1, "annotations", &ann, &ann_end,
                       &meta_empty))
        goto err;
    if (ann == NULL) {
        strbuf_add(&h, value, (size_t)(meta + 1 - value));
        strbuf_add(&h, "\"annotations\":{", 15);
        strbuf_add(&t, meta_empty ? "}" : "},", meta_empty ? 1 : 2);
        strbuf_add(&t, meta + 1, (size_t)(end - (meta + 1)));
    } else {
        strbuf_add(&h, value, (size_t)(ann - value));
        strbuf_add(&h, "{", 1);
        strbuf_add(&t, "", 0);
        if (!writer_other_annotations(ann, ann_end, &t))
            goto err;
        strbuf_add(&t, "}", 1);
        strbuf_add(&t, ann_end, (size_t)(end - ann_end));
    }
    *head = h.p;
    *head_len = h.len;
    *tail = t.p;
    *tail_len = t.len;
    return true;
err:
    free(h.p);
    free(t.p);
    return false;
}

/* ==== loading ==== */

static void writer_load_kv_cb(const struct etcd_kv *kv, void *arg)
{
    struct writer *w = arg;
    size_t plen = strlen(w->rt->etcd_prefix);
    struct writer_object *o;
    char *head, *tail;
    size_t head_len, tail_len;

    if (kv->key_len <= plen || !writer_template(kv->value, kv->value_len, &head,
                                                &head_len, &tail, &tail_len))
        return; /* not an object we can stamp (e.g. protobuf) */
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 256;
        w->objects = xrealloc(w->objects, w->cap * sizeof(*w->objects));
    }
    o = &w->objects[w->n++];
    memset(o, 0, sizeof(*o));
    o->etcd_key = xmemdup(kv->key, kv->key_len + 1);
    o->etcd_key[kv->key_len] = '\0';
    o->etcd_key_len = kv->key_len;
    o->head = head;
    o->head_len = head_len;
    o->tail = tail;
    o->tail_len = tail_len;
    o->key = keys_intern(w->keys, "", 0, kv->key + plen, kv->key_len - plen);
}

static void writer_load_done_cb(int err, const char *why, int64_t revision,
                                void *arg)
{
    struct writer *w = arg;

    range_free(w->load);
    w->load = NULL;
    if (err != 0) {
        char msg[320];

        snprintf(msg, sizeof(msg), "reading the objects to write: %s", why);
        if (w->cbs.on_error)
            w->cbs.on_error(msg, w->arg);
        return;
    }
    w->st.objects = w->n;
    log_info("writer: %zu objects to update, read at revision %" PRId64, w->n,
             revision);
    if (w->cbs.on_ready)
        w->cbs.on_ready(w->n, w->arg);
}

void writer_load(struct writer *w, int64_t revision)
{
    rw_assert(w->load == NULL);
    w->load = range_new(w->base, w->host, w->port, w->rt->etcd_prefix, revision,
                        0, 0, writer_load_kv_cb, writer_load_done_cb, w);
}

/* ==== writes ==== */

static void writer_record(struct writer *w, int64_t rev, int64_t sent_ns)
{
    size_t i = w->nlog;

    if (w->nlog == w->caplog) {
        w->caplog = w->caplog ? w->caplog * 2 : 1024;
        w->log = xrealloc(w->log, w->caplog * sizeof(*w->log));
    }
    while (i > 0 && w->log[i - 1].rev > rev)
        i--;
    memmove(w->log + i + 1, w->log + i, (w->nlog - i) * sizeof(*w->log));
    w->log[i].rev = rev;
    w->log[i].sent_ns = sent_ns;
    w->nlog++;
}

static void writer_put_cb(int status, const char *message, const uint8_t *resp,
                          size_t resp_len, void *arg)
{
    struct writer_put *put = arg;
    struct writer *w = put->w;
    struct etcd_put_response r;

    w->st.inflight--;
    if (w->closing) {
        free(put);
        return;
    }
    if (status == GRPC_STATUS_OK &&
        etcd_put_response_decode(&r, resp, resp_len) == 0) {
        writer_record(w, r.header.revision, put->sent_ns);
        if (w->st.first_rev == 0 || r.header.revision < w->st.first_rev)
            w->st.first_rev = r.header.revision;
        if (r.header.revision > w->st.last_rev)
            w->st.last_rev = r.header.revision;
        w->st.ok++;
        etcd_put_response_fini(&r);
    } else {
        if (w->st.failed++ < WRITER_LOG_FAILURES)
            log_warnx("writer: Put failed: %s: %s", grpc_status_name(status),
                      message);
    }
    free(put);
}

/* The next operation; updates only for now. */
static enum writer_op writer_op(struct writer *w)
{
    return WRITER_UPDATE;
}

static void writer_update(struct writer *w)
{
    struct writer_object *o = &w->objects[w->next];
    struct writer_put *put = xmalloc(sizeof(*put));
    struct etcd_put_request req;
    struct rbuf *b;
    char stamp[128];
    int n;

    w->next = (w->next + 1) % w->n;
    put->w = w;
    put->sent_ns = writer_wallclock_ns();
    n = snprintf(
        stamp, sizeof(stamp), "\"%s\":\"%" PRId64 "\",\"%s\":\"%" PRIu64 "\"",
        SCAN_WRITTEN_AT, put->sent_ns, WRITER_COUNT_ANNOTATION, ++o->writes);
    if (o->head_len + (size_t)n + o->tail_len > w->value_cap) {
        w->value_cap = o->head_len + (size_t)n + o->tail_len;
        w->value = xrealloc(w->value, w->value_cap);
    }
    memcpy(w->value, o->head, o->head_len);
    memcpy(w->value + o->head_len, stamp, (size_t)n);
    memcpy(w->value + o->head_len + n, o->tail, o->tail_len);
    req = (struct etcd_put_request){
        .key = o->etcd_key,
        .key_len = o->etcd_key_len,
        .value = w->value,
        .value_len = o->head_len + (size_t)n + o->tail_len,
    };
    b = etcd_put_request_encode(&req);
    w->st.sent++;
    w->st.inflight++;
    if (grpc_unary(w->conn, ETCD_PATH_PUT, b->data, b->len, WRITER_PUT_TIMEOUT,
                   writer_put_cb, put) == NULL) {
        w->st.inflight--;
        w->st.failed++;
        free(put);
    }
    rbuf_unref(b);
}

static void writer_tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct writer *w = arg;
    uint64_t due;

    if (!w->running || w->n == 0)
        return;
    due = (uint64_t)((writer_monotonic() - w->started) * (double)w->rate) + 1;
    if (w->st.sent < due && w->st.inflight >= WRITER_MAX_INFLIGHT)
        w->st.behind++;
    while (w->st.sent < due && w->st.inflight < WRITER_MAX_INFLIGHT) {
        switch (writer_op(w)) {
        case WRITER_UPDATE:
            writer_update(w);
            break;
        }
    }
}

void writer_start(struct writer *w)
{
    struct timeval tv = {0, (suseconds_t)(WRITER_TICK * 1e6)};

    if (w->running)
        return;
    w->running = true;
    w->started = writer_monotonic();
    event_add(w->tick, &tv);
    writer_tick_cb(-1, 0, w);
}

void writer_stop(struct writer *w)
{
    w->running = false;
    event_del(w->tick);
}

bool writer_idle(const struct writer *w)
{
    return w->st.inflight == 0;
}

void writer_stats(const struct writer *w, struct writer_stats *st)
{
    *st = w->st;
}

int64_t writer_send_time(const struct writer *w, int64_t rev)
{
    size_t lo = 0, hi = w->nlog;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (w->log[mid].rev < rev)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->nlog && w->log[lo].rev == rev ? w->log[lo].sent_ns : -1;
}

/* ==== construction ==== */

static void writer_conn_close_cb(struct h2c *c, int err, void *arg)
{
    struct writer *w = arg;

    log_warnx("writer: etcd %s: %s", h2c_authority(c),
              h2c_last_error(c)[0] ? h2c_last_error(c) : rw_strerror(err));
    w->running = false;
}

struct writer *writer_new(struct event_base *base, const char *host,
                          const char *port, const struct resource_type *rt,
                          struct keys *keys, uint64_t rate,
                          const struct writer_callbacks *cbs, void *arg)
{
    static const struct h2c_callbacks conn_cbs = {
        .on_close = writer_conn_close_cb,
    };
    struct writer *w = xcalloc(1, sizeof(*w));

    rw_assert(rate > 0);
    w->base = base;
    w->rt = rt;
    w->keys = keys;
    w->host = xstrdup(host);
    w->port = xstrdup(port);
    w->rate = rate;
    w->cbs = *cbs;
    w->arg = arg;
    w->conn = h2c_new(base, host, port, NULL, &conn_cbs, w);
    w->tick = event_new(base, -1, EV_PERSIST, writer_tick_cb, w);
    return w;
}

void writer_free(struct writer *w)
{
    if (w == NULL)
        return;
    w->closing = true;
    range_free(w->load);
    event_free(w->tick);
    h2c_free(w->conn); /* in-flight Puts' callbacks run: they free puts */
    for (size_t i = 0; i < w->n; i++) {
        free(w->objects[i].etcd_key);
        free(w->objects[i].head);
        free(w->objects[i].tail);
    }
    free(w->objects);
    free(w->log);
    free(w->value);
    free(w->host);
    free(w->port);
    free(w);
}
