/*
 * kube_write.c: writes through the server as Kubernetes requests (see
 * kube_write.h).
 *
 * Data structure: one struct kw_req per write, alive from kube_write_send
 * to its callback: the request's path, its body, the stream in flight (one
 * at a time: the write's PUT, POST or DELETE, or a GET after a conflict),
 * the response's status and body, and one timer (the request's timeout,
 * or the backoff before re-reading).  Writes in flight are on a list, so
 * kube_write_free can end them.
 *
 * Invariants: a request has at most one stream; its callback runs exactly
 * once, after which it is off the list and freed.
 */
#include "src/fleet/kube_write.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "src/fleet/dial.h"
#include "src/fleet/links.h"
#include "src/fleet/scan.h"
#include "src/h2_client.h"

#define KW_JITTER 0.1 /* DefaultRetry's Jitter */

struct kw_req {
    struct kube_write *kw;
    struct kw_req *prev, *next;
    size_t link;
    enum kube_write_op op;
    bool reading; /* the stream in flight is the GET after a conflict */
    unsigned puts;
    char *object_path, *post_path;
    struct sbuf body;     /* the request's body */
    struct sbuf response; /* the response's body */
    int status;
    int err;         /* a failure kw_fail_later reports */
    const char *why; /* its reason (static) */
    int64_t sent_ns;
    struct h2_client_stream *stream;
    struct event *timer;
    kube_write_modify_fn modify;
    kube_write_fn fn;
    void *arg;
};

struct kube_write {
    struct event_base *base;
    const struct fleet_dial *d;
    const struct resource_type *rt;
    struct links *links;
    size_t writers;
    struct kw_req *reqs; /* in flight */
    struct kube_write_stats st;
};

/* ==== bodies ==== */

bool kube_write_set_rv(const char *value, size_t len, int64_t rv,
                       struct sbuf *out)
{
    const char *end = value + len, *v, *e, *meta = NULL, *meta_end = NULL;
    struct scan_iter it;
    struct scan_str key;
    size_t start = out->len;
    bool first = true;
    int rc;

    if (!scan_iter_begin(&it, value, end, 0))
        return false;
    while ((rc = scan_iter_next(&it, &key, &v, &e)) == 1)
        if (scan_str_eq(&key, "metadata", 8)) {
            meta = v;
            meta_end = e;
        }
    if (rc != 0 || meta == NULL || *meta != '{' ||
        !scan_iter_begin(&it, meta, meta_end, 1))
        return false;
    sbuf_addn(out, value, (size_t)(meta - value));
    sbuf_add(out, "{");
    if (rv > 0) {
        sbuf_addf(out, "\"resourceVersion\":\"%" PRId64 "\"", rv);
        first = false;
    }
    while ((rc = scan_iter_next(&it, &key, &v, &e)) == 1) {
        if (scan_str_eq(&key, "resourceVersion", 15))
            continue;
        if (!first)
            sbuf_add(out, ",");
        first = false;
        sbuf_addn(out, key.p - 1, (size_t)(e - (key.p - 1)));
    }
    if (rc != 0) {
        out->len = start;
        return false;
    }
    sbuf_add(out, "}");
    sbuf_addn(out, meta_end, (size_t)(end - meta_end));
    return true;
}

/* The object's and the collection's paths of key (PREFIX[NS/]NAME), or
 * false when key is not one of rt's. */
static bool kw_paths(const struct kube_write *kw, const char *key,
                     size_t key_len, char **object, char **collection)
{
    const struct resource_type *rt = kw->rt;
    size_t plen = strlen(rt->key_prefix);
    const char *rest = key + plen, *slash;
    int rest_len = (int)(key_len - plen), ns_len;
    char *base;

    if (key_len <= plen || memcmp(key, rt->key_prefix, plen) != 0)
        return false;
    if (*rt->group)
        base = xasprintf("/apis/%s/%s", rt->group, rt->version);
    else
        base = xasprintf("/api/%s", rt->version);
    if (!rt->namespaced) {
        *collection = xasprintf("%s/%s", base, rt->resource);
        *object = xasprintf("%s/%.*s", *collection, rest_len, rest);
        free(base);
        return true;
    }
    slash = memchr(rest, '/', (size_t)rest_len);
    if (slash == NULL) {
        free(base);
        return false;
    }
    ns_len = (int)(slash - rest);
    *collection =
        xasprintf("%s/namespaces/%.*s/%s", base, ns_len, rest, rt->resource);
    *object =
        xasprintf("%s/%.*s", *collection, rest_len - ns_len - 1, slash + 1);
    free(base);
    return true;
}

/* ==== a write ==== */

static void kw_finish(struct kw_req *r, int err, const char *why, int64_t rev)
{
    struct kube_write *kw = r->kw;

    if (r->stream != NULL)
        h2_client_reset(r->stream);
    r->stream = NULL;
    if (r->prev)
        r->prev->next = r->next;
    else
        kw->reqs = r->next;
    if (r->next)
        r->next->prev = r->prev;
    event_free(r->timer);
    r->fn(err, why, rev, r->sent_ns, r->arg);
    free(r->object_path);
    free(r->post_path);
    sbuf_fini(&r->body);
    sbuf_fini(&r->response);
    free(r);
}

static void kw_header_cb(const char *name, size_t name_len, const char *value,
                         size_t value_len, bool trailer, void *arg)
{
    struct kw_req *r = arg;

    if (!trailer && name_len == 7 && memcmp(name, ":status", 7) == 0)
        r->status = atoi(value);
}

static void kw_data_cb(const uint8_t *data, size_t len, void *arg)
{
    struct kw_req *r = arg;

    sbuf_addn(&r->response, data, len);
}

static void kw_close_cb(uint32_t error_code, void *arg);

static const struct h2_client_stream_callbacks kw_stream_cbs = {
    .on_header = kw_header_cb,
    .on_data = kw_data_cb,
    .on_close = kw_close_cb,
};

static void kw_timer(struct kw_req *r, double seconds)
{
    struct timeval tv = rw_timeval(seconds);

    evtimer_add(r->timer, &tv);
}

/* Ends r with err and why (static) from the loop: callers of
 * kube_write_send never see their callback run inside it. */
static void kw_fail_later(struct kw_req *r, int err, const char *why)
{
    r->err = err;
    r->why = why;
    kw_timer(r, 0);
}

/* Starts method on path (with r->body unless GET or DELETE). */
static void kw_request(struct kw_req *r, const char *method, const char *path)
{
    struct kube_write *kw = r->kw;
    bool body = r->op != KUBE_WRITE_DELETE && !r->reading;
    const struct h2_client_header headers[] = {
        {"accept", "application/json"},
        {"content-type", "application/json"},
        {"authorization", kw->d->authorization},
    };
    size_t n = kw->d->authorization != NULL ? 3 : 2;

    r->status = 0;
    r->response.len = 0;
    if (!r->reading)
        kw->st.requests++;
    r->stream = h2_client_request(
        links_get(kw->links, r->link), method, path, NULL, headers, n,
        body ? H2_CLIENT_REQUEST_BODY : 0, &kw_stream_cbs, r);
    if (r->stream == NULL && links_drop(kw->links, r->link))
        r->stream = h2_client_request(
            links_get(kw->links, r->link), method, path, NULL, headers, n,
            body ? H2_CLIENT_REQUEST_BODY : 0, &kw_stream_cbs, r);
    if (r->stream == NULL) {
        kw_fail_later(r, RW_EIO, "the connection takes no request");
        return;
    }
    if (body)
        h2_client_send(r->stream, r->body.data, r->body.len, true);
    kw_timer(r, KUBE_WRITE_TIMEOUT);
}

static void kw_send(struct kw_req *r)
{
    r->reading = false;
    r->puts += r->op == KUBE_WRITE_UPDATE;
    switch (r->op) {
    case KUBE_WRITE_CREATE:
        kw_request(r, "POST", r->post_path);
        break;
    case KUBE_WRITE_UPDATE:
        kw_request(r, "PUT", r->object_path);
        break;
    case KUBE_WRITE_DELETE:
        kw_request(r, "DELETE", r->object_path);
        break;
    }
}

/* The timer: a failure to report, a request's timeout, or the backoff
 * before the GET. */
static void kw_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct kw_req *r = arg;

    if (r->err != 0) {
        kw_finish(r, r->err, r->why, 0);
        return;
    }
    if (r->stream != NULL) {
        kw_finish(r, RW_EIO, "no response in time", 0);
        return;
    }
    r->reading = true;
    r->kw->st.rereads++;
    kw_request(r, "GET", r->object_path);
}

/* The GET after a conflict answered: modify what it read and PUT it. */
static void kw_reread(struct kw_req *r)
{
    struct sbuf changed = {0};
    struct scan_object obj;

    if (r->status != 200 ||
        scan_object(r->response.data, r->response.len, &obj) != 0 ||
        obj.rv <= 0 ||
        !r->modify(r->response.data, r->response.len, &changed, &r->sent_ns,
                   r->arg)) {
        sbuf_fini(&changed);
        kw_finish(r, RW_EPROTO, "re-reading after a conflict failed", 0);
        return;
    }
    r->body.len = 0;
    if (!kube_write_set_rv(changed.data, changed.len, obj.rv, &r->body)) {
        sbuf_fini(&changed);
        kw_finish(r, RW_EPROTO, "the changed object has no metadata", 0);
        return;
    }
    sbuf_fini(&changed);
    kw_send(r);
}

static void kw_close_cb(uint32_t error_code, void *arg)
{
    struct kw_req *r = arg;
    struct kube_write *kw = r->kw;
    struct scan_object obj;
    char why[160];

    r->stream = NULL;
    evtimer_del(r->timer);
    if (error_code != 0 || r->status == 0) {
        kw_finish(r, RW_EIO, "the stream ended without a response", 0);
        return;
    }
    if (r->reading) {
        kw_reread(r);
        return;
    }
    if (r->status == 409 && r->op == KUBE_WRITE_UPDATE) {
        kw->st.conflicts++;
        if (r->modify == NULL || r->puts >= KUBE_WRITE_ATTEMPTS) {
            kw->st.gave_up += r->modify != NULL;
            kw_finish(r, RW_ECONFLICT, "409 Conflict", 0);
            return;
        }
        kw_timer(r, KUBE_WRITE_BACKOFF *
                        (1 + KW_JITTER * (double)rand() / RAND_MAX));
        return;
    }
    if (r->status == 404 && r->op == KUBE_WRITE_DELETE) {
        kw->st.not_found++;
        kw_finish(r, RW_ENOTFOUND, "404 Not Found", 0);
        return;
    }
    if (scan_object(r->response.data, r->response.len, &obj) != 0)
        memset(&obj, 0, sizeof(obj));
    if (r->status / 100 == 2 && obj.rv > 0) {
        kw_finish(r, RW_OK, NULL, obj.rv);
        return;
    }
    snprintf(why, sizeof(why), "HTTP %d: %.*s", r->status,
             obj.message.p ? (int)RW_MIN(obj.message.len, 120u) : 0,
             obj.message.p ? obj.message.p : "");
    kw_finish(r, RW_EPROTO, why, 0);
}

void kube_write_send(struct kube_write *kw, size_t writer,
                     enum kube_write_op op, const char *key, size_t key_len,
                     const char *value, size_t value_len, int64_t rv,
                     int64_t sent_ns, kube_write_modify_fn modify,
                     kube_write_fn fn, void *arg)
{
    struct kw_req *r = xcalloc(1, sizeof(*r));

    r->kw = kw;
    r->link = writer % kw->writers;
    r->op = op;
    r->sent_ns = sent_ns;
    r->modify = modify;
    r->fn = fn;
    r->arg = arg;
    r->timer = evtimer_new(kw->base, kw_timer_cb, r);
    r->next = kw->reqs;
    if (kw->reqs)
        kw->reqs->prev = r;
    kw->reqs = r;
    if (!kw_paths(kw, key, key_len, &r->object_path, &r->post_path)) {
        kw_fail_later(r, RW_EPROTO, "not a key of the resource");
        return;
    }
    if (op != KUBE_WRITE_DELETE &&
        !kube_write_set_rv(value, value_len, op == KUBE_WRITE_UPDATE ? rv : 0,
                           &r->body)) {
        kw_fail_later(r, RW_EPROTO, "the object has no metadata");
        return;
    }
    kw_send(r);
}

void kube_write_stats(const struct kube_write *kw, struct kube_write_stats *st)
{
    *st = kw->st;
}

/* ==== construction ==== */

struct kube_write *kube_write_new(struct event_base *base,
                                  const struct fleet_dial *d,
                                  const struct resource_type *rt,
                                  size_t writers)
{
    struct kube_write *kw = xcalloc(1, sizeof(*kw));

    rw_assert(writers > 0);
    kw->base = base;
    kw->d = d;
    kw->rt = rt;
    kw->writers = writers;
    kw->links = links_new(base, d, writers, "write");
    return kw;
}

void kube_write_free(struct kube_write *kw)
{
    if (kw == NULL)
        return;
    while (kw->reqs != NULL)
        kw_finish(kw->reqs, RW_EIO, "closing", 0);
    links_free(kw->links);
    free(kw);
}
