/*
 * writer.c: paced, stamped updates to etcd or Redis (see writer.h).
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
#include "src/fleet/writer.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/etcd.h"
#include "proto/grpc.h"
#include "proto/kjson_decode.h"
#include "src/fleet/churn.h"
#include "src/fleet/dial.h"
#include "src/fleet/kube_write.h"
#include "src/fleet/profile.h"
#include "src/fleet/range.h"
#include "src/fleet/redis_store.h"
#include "src/fleet/scan.h"
#include "src/fleet/stamp.h"
#include "src/grpc_client.h"
#include "src/h2_client.h"
#include "src/log.h"

#define WRITER_TICK 0.01      /* seconds between pacing ticks */
#define WRITER_PUT_TIMEOUT 10 /* seconds per Put */
#define WRITER_LOG_FAILURES 5 /* failed Puts logged, then counted only */

struct writer_object {
    char *etcd_key;
    size_t etcd_key_len;
    char *head, *tail;
    size_t head_len, tail_len;
    uint64_t writes;
    int64_t rv; /* the newest revision known (an update's resourceVersion) */
    uint32_t key;
};

struct writer_record {
    int64_t rev;
    int64_t sent_ns;
};

struct writer_put {
    struct writer *w;
    struct writer_object *obj; /* an update's object; NULL with churn */
    int64_t sent_ns;
    bool churn;
    bool initial;
    struct churn_op op;
};

struct writer {
    struct event_base *base;
    const struct resource_type *rt;
    struct keys *keys;
    const struct fleet_dial *d;
    uint64_t rate;
    struct writer_callbacks cbs;
    void *arg;
    struct h2_client *conn;    /* etcd; NULL over Redis or the server */
    struct redis_store *store; /* Redis (the writes too unless kw) */
    struct kube_write *kw;     /* the writes through the server; NULL */
    uint64_t writers;          /* writers per update (--contention) */
    uint64_t ops;              /* operations issued (pacing) */
    struct histogram latency;  /* request to response, ns */
    struct range *load;
    struct writer_object *objects;
    size_t n, cap, next;
    struct event *tick;
    double started;         /* monotonic seconds */
    uint64_t sent_at_start; /* st.sent when writer_start ran */
    bool running;
    bool closing; /* writer_free: Put callbacks only free */
    struct writer_record *log;
    size_t nlog, caplog;
    char *value; /* scratch for one value */
    size_t value_cap;
    size_t value_len; /* writer_stamp's: bytes past the head */
    struct writer_stats st;
    struct churn *churn; /* NULL: updates of the loaded objects */
    bool populating;     /* creating the initial set */
    int node_field;      /* object_field id of spec.nodeName */
};

/* ==== templates ==== */

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
                                     struct sbuf *tail)
{
    struct scan_iter it;
    struct scan_str key;
    const char *v, *e;
    int rc;

    if (!scan_iter_begin(&it, p, end, 2))
        return true; /* null or not an object: replaced */
    while ((rc = scan_iter_next(&it, &key, &v, &e)) == 1) {
        if (KEY_IS(&key, SCAN_WRITTEN_AT) || KEY_IS(&key, STAMP_WRITE_COUNT))
            continue;
        sbuf_add(tail, ",");
        sbuf_addn(tail, key.p - 1, (size_t)(e - (key.p - 1)));
    }
    return rc == 0;
}

bool writer_template(const char *value, size_t len, char **head,
                     size_t *head_len, char **tail, size_t *tail_len)
{
    const char *end = value + len, *meta, *meta_end, *ann, *ann_end;
    struct sbuf h = {0}, t = {0};
    bool meta_empty;

    if (!writer_member(value, end, 0, "metadata", &meta, &meta_end, NULL) ||
        meta == NULL || *meta != '{')
        goto err;
    if (!writer_member(meta, meta_end, 1, "annotations", &ann, &ann_end,
                       &meta_empty))
        goto err;
    if (ann == NULL) {
        sbuf_addn(&h, value, (size_t)(meta + 1 - value));
        sbuf_add(&h, "\"annotations\":{");
        sbuf_add(&t, meta_empty ? "}" : "},");
        sbuf_addn(&t, meta + 1, (size_t)(end - (meta + 1)));
    } else {
        sbuf_addn(&h, value, (size_t)(ann - value));
        sbuf_add(&h, "{");
        sbuf_addn(&t, "", 0);
        if (!writer_other_annotations(ann, ann_end, &t))
            goto err;
        sbuf_add(&t, "}");
        sbuf_addn(&t, ann_end, (size_t)(end - ann_end));
    }
    *head = h.data;
    *head_len = h.len;
    *tail = t.data;
    *tail_len = t.len;
    return true;
err:
    sbuf_fini(&h);
    sbuf_fini(&t);
    return false;
}

/* ==== loading ==== */

static void writer_load_kv_cb(const struct etcd_kv *kv, void *arg)
{
    struct writer *w = arg;
    size_t plen = strlen(w->rt->key_prefix);
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
    o->rv = kv->mod_revision;
    o->key = keys_intern(w->keys, "", 0, kv->key + plen, kv->key_len - plen);
}

static void writer_load_done_cb(int err, const char *why, int64_t revision,
                                void *arg)
{
    struct writer *w = arg;

    range_free(w->load);
    w->load = NULL;
    if (w->closing)
        return; /* writer_free closed the Redis store under the read */
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

static void writer_adopt_kv_cb(const struct etcd_kv *kv, void *arg);
static void writer_adopt_done_cb(int err, const char *why, int64_t revision,
                                 void *arg);

void writer_load(struct writer *w, int64_t revision)
{
    rw_assert(w->load == NULL);
    if (w->churn != NULL) {
        char *prefix = xasprintf("%s" CHURN_NAMESPACE "/", w->rt->key_prefix);

        if (w->store)
            redis_store_snapshot(w->store, prefix, writer_adopt_kv_cb,
                                 writer_adopt_done_cb, w);
        else
            w->load = range_new(w->base, w->d, prefix, 0, 0, 0,
                                writer_adopt_kv_cb, writer_adopt_done_cb, w);
        free(prefix);
        return;
    }
    /* Redis keeps no old values: the templates come from the current
     * objects, which only matters for what the writes carry. */
    if (w->store)
        redis_store_snapshot(w->store, w->rt->key_prefix, writer_load_kv_cb,
                             writer_load_done_cb, w);
    else
        w->load = range_new(w->base, w->d, w->rt->key_prefix, revision, 0, 0,
                            writer_load_kv_cb, writer_load_done_cb, w);
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

/* An acknowledged write at revision rev. */
static void writer_acked(struct writer *w, const struct writer_put *put,
                         int64_t rev)
{
    int64_t now = clock_wall_ns();

    writer_record(w, rev, put->sent_ns);
    histogram_record(&w->latency,
                     now > put->sent_ns ? (uint64_t)(now - put->sent_ns) : 0);
    if (put->obj != NULL && rev > put->obj->rv)
        put->obj->rv = rev;
    if (w->st.first_rev == 0 || rev < w->st.first_rev)
        w->st.first_rev = rev;
    if (rev > w->st.last_rev)
        w->st.last_rev = rev;
    w->st.ok++;
    if (!put->churn)
        return;
    switch (put->op.kind) {
    case CHURN_CREATE:
        w->st.creates++;
        w->st.initial += put->initial;
        break;
    case CHURN_UPDATE:
        w->st.updates++;
        break;
    case CHURN_MOVE:
        w->st.moves++;
        break;
    case CHURN_DELETE:
        w->st.deletes++;
        break;
    }
}

static void writer_populate(struct writer *w);

/* A write's callback ran (whatever the outcome). */
static void writer_put_end(struct writer *w, struct writer_put *put)
{
    if (put->churn)
        churn_done(w->churn, &put->op);
    free(put);
    if (w->populating)
        writer_populate(w);
}

static void writer_failed(struct writer *w, const char *status,
                          const char *message)
{
    if (w->st.failed++ < WRITER_LOG_FAILURES)
        log_warnx("writer: write failed: %s: %s", status, message);
}

/* A write's callback ran: no longer in flight.  False when the writer is
 * closing (put is then freed, nothing else to do). */
static bool writer_returned(struct writer_put *put)
{
    put->w->st.inflight--;
    if (put->w->closing) {
        free(put);
        return false;
    }
    return true;
}

static void writer_put_cb(int status, const char *message, const uint8_t *resp,
                          size_t resp_len, void *arg)
{
    struct writer_put *put = arg;
    struct writer *w = put->w;
    struct etcd_put_response r;

    if (!writer_returned(put))
        return;
    if (status == GRPC_STATUS_OK &&
        etcd_put_response_decode(&r, resp, resp_len) == 0) {
        writer_acked(w, put, r.header.revision);
        etcd_put_response_fini(&r);
    } else {
        writer_failed(w, grpc_status_name(status), message);
    }
    writer_put_end(w, put);
}

static void writer_delete_cb(int status, const char *message,
                             const uint8_t *resp, size_t resp_len, void *arg)
{
    struct writer_put *put = arg;
    struct writer *w = put->w;
    struct etcd_delete_range_response r;

    if (!writer_returned(put))
        return;
    if (status == GRPC_STATUS_OK &&
        etcd_delete_range_response_decode(&r, resp, resp_len) == 0) {
        if (r.deleted > 0)
            writer_acked(w, put, r.header.revision);
        etcd_delete_range_response_fini(&r);
    } else {
        writer_failed(w, grpc_status_name(status), message);
    }
    writer_put_end(w, put);
}

/* A write through FCALL rw_put or rw_delete ended.  A delete of a key
 * already gone (NOTFOUND) is neither acknowledged nor failed, as an etcd
 * DeleteRange that deleted nothing. */
static void writer_redis_cb(int err, const char *why, int64_t rev, void *arg)
{
    struct writer_put *put = arg;
    struct writer *w = put->w;

    if (!writer_returned(put))
        return;
    if (err == RW_OK)
        writer_acked(w, put, rev);
    else if (strncmp(why, "NOTFOUND", 8) != 0)
        writer_failed(w, "redis", why);
    writer_put_end(w, put);
}

/* A write through the server ended (kube_write.h).  A delete answered 404
 * and an update given up on after conflicts (--contention) are neither
 * acknowledged nor failed: they are what contention and churn produce. */
static void writer_kube_cb(int err, const char *why, int64_t rev,
                           int64_t sent_ns, void *arg)
{
    struct writer_put *put = arg;
    struct writer *w = put->w;

    if (!writer_returned(put))
        return;
    put->sent_ns = sent_ns;
    if (err == RW_OK)
        writer_acked(w, put, rev);
    else if (err != RW_ENOTFOUND && err != RW_ECONFLICT)
        writer_failed(w, "server", why);
    writer_put_end(w, put);
}

static void writer_stamp(struct writer *w, struct writer_object *o,
                         int64_t sent_ns, const char *head, size_t head_len,
                         const char *tail, size_t tail_len);

/* RetryOnConflict's change: the stamp, on the object as re-read. */
static bool writer_modify_cb(const char *cur, size_t len, struct sbuf *out,
                             int64_t *sent_ns, void *arg)
{
    struct writer_put *put = arg;
    char *head, *tail;
    size_t head_len, tail_len;

    if (put->obj == NULL ||
        !writer_template(cur, len, &head, &head_len, &tail, &tail_len))
        return false;
    *sent_ns = clock_wall_ns();
    writer_stamp(put->w, put->obj, *sent_ns, head, head_len, tail, tail_len);
    sbuf_addn(out, put->w->value, head_len + put->w->value_len);
    free(head);
    free(tail);
    return true;
}

/* Sends a Put of value (or a DeleteRange when value is NULL) for key, as
 * writer `writer` of --contention's. */
static void writer_send(struct writer *w, struct writer_put *put, size_t writer,
                        const char *key, size_t key_len, const char *value,
                        size_t value_len)
{
    struct rbuf *b;
    struct grpc_call *call;

    if (w->kw != NULL) {
        enum kube_write_op op = value == NULL ? KUBE_WRITE_DELETE
                                : put->churn && put->op.kind == CHURN_CREATE
                                    ? KUBE_WRITE_CREATE
                                    : KUBE_WRITE_UPDATE;

        w->st.sent++;
        w->st.inflight++;
        kube_write_send(w->kw, writer, op, key, key_len, value, value_len,
                        put->obj ? put->obj->rv : 0, put->sent_ns,
                        put->obj ? writer_modify_cb : NULL, writer_kube_cb,
                        put);
        return;
    }
    if (w->store != NULL) {
        w->st.sent++;
        w->st.inflight++;
        redis_store_write(w->store, key, key_len, value, value_len,
                          writer_redis_cb, put);
        return;
    }
    if (value != NULL) {
        struct etcd_put_request req = {.key = key,
                                       .key_len = key_len,
                                       .value = value,
                                       .value_len = value_len};

        b = etcd_put_request_encode(&req);
    } else {
        struct etcd_delete_range_request req = {.key = key, .key_len = key_len};

        b = etcd_delete_range_request_encode(&req);
    }
    w->st.sent++;
    w->st.inflight++;
    call = grpc_client_unary(w->conn,
                             value ? ETCD_PATH_PUT : ETCD_PATH_DELETE_RANGE,
                             b->data, b->len, WRITER_PUT_TIMEOUT,
                             value ? writer_put_cb : writer_delete_cb, put);
    rbuf_unref(b);
    if (call == NULL) {
        w->st.inflight--;
        w->st.failed++;
        if (put->churn)
            churn_done(w->churn, &put->op);
        free(put);
    }
}

/* Renders head + o's next stamp (sent_ns) + tail into w->value; its
 * length past head in w->value_len. */
static void writer_stamp(struct writer *w, struct writer_object *o,
                         int64_t sent_ns, const char *head, size_t head_len,
                         const char *tail, size_t tail_len)
{
    char stamp[128];
    int n;

    n = snprintf(stamp, sizeof(stamp),
                 "\"%s\":\"%" PRId64 "\",\"%s\":\"%" PRIu64 "\"",
                 SCAN_WRITTEN_AT, sent_ns, STAMP_WRITE_COUNT, ++o->writes);
    if (head_len + (size_t)n + tail_len > w->value_cap) {
        w->value_cap = head_len + (size_t)n + tail_len;
        w->value = xrealloc(w->value, w->value_cap);
    }
    memcpy(w->value, head, head_len);
    memcpy(w->value + head_len, stamp, (size_t)n);
    memcpy(w->value + head_len + n, tail, tail_len);
    w->value_len = (size_t)n + tail_len;
}

/* The next object's update, by each of the --contention writers at once,
 * all from the resourceVersion last seen (as controllers reacting to the
 * same event). */
static void writer_update(struct writer *w)
{
    struct writer_object *o = &w->objects[w->next];

    w->next = (w->next + 1) % w->n;
    for (uint64_t k = 0; k < w->writers; k++) {
        struct writer_put *put = xcalloc(1, sizeof(*put));

        put->w = w;
        put->obj = o;
        put->sent_ns = clock_wall_ns();
        writer_stamp(w, o, put->sent_ns, o->head, o->head_len, o->tail,
                     o->tail_len);
        writer_send(w, put, k, o->etcd_key, o->etcd_key_len, w->value,
                    o->head_len + w->value_len);
    }
}

/* ==== churn ==== */

/* Issues the generator's next write; false when there is none now. */
static bool writer_churn_write(struct writer *w, bool initial)
{
    struct writer_put *put = xcalloc(1, sizeof(*put));
    char key[256], name[32];
    size_t need, key_len;

    if (!churn_next(w->churn, initial, &put->op)) {
        free(put);
        return false;
    }
    put->w = w;
    put->churn = true;
    put->initial = initial;
    put->sent_ns = clock_wall_ns();
    churn_name(put->op.pod, name, sizeof(name));
    key_len = (size_t)snprintf(key, sizeof(key), "%s" CHURN_NAMESPACE "/%s",
                               w->rt->key_prefix, name);
    w->st.live = churn_live(w->churn);
    if (put->op.kind == CHURN_DELETE) {
        writer_send(w, put, 0, key, key_len, NULL, 0);
        return true;
    }
    while ((need = churn_render(w->churn, put->op.pod, put->sent_ns,
                                put->sent_ns / 1000000000, w->value,
                                w->value_cap)) >= w->value_cap) {
        w->value_cap = need + 1;
        w->value = xrealloc(w->value, w->value_cap);
    }
    writer_send(w, put, 0, key, key_len, w->value, need);
    return true;
}

/* Creates pods until the initial set is complete, then reports ready. */
static void writer_populate(struct writer *w)
{
    while (w->populating && w->st.inflight < WRITER_MAX_INFLIGHT &&
           !w->closing) {
        if (!writer_churn_write(w, true))
            break;
    }
    if (w->populating && w->st.inflight == 0) {
        w->populating = false;
        w->st.objects = churn_live(w->churn);
        log_info("writer: %zu pods live in namespace " CHURN_NAMESPACE
                 " (%llu created)",
                 w->st.objects, (unsigned long long)w->st.initial);
        if (w->cbs.on_ready)
            w->cbs.on_ready(w->st.objects, w->arg);
    }
}

/* A pod an earlier run left: adopted. */
static void writer_adopt_kv_cb(const struct etcd_kv *kv, void *arg)
{
    struct writer *w = arg;
    size_t plen = strlen(w->rt->key_prefix) + strlen(CHURN_NAMESPACE) + 1;
    struct object *obj = NULL;
    const char *why, *node;
    uint32_t serial;
    uint32_t index;

    if (kv->key_len <= plen ||
        !churn_parse_name(kv->key + plen, kv->key_len - plen, &serial) ||
        kjson_decode_object(w->rt, kv->key, kv->key_len, kv->value,
                            kv->value_len, kv->mod_revision, &obj,
                            &why) != RW_OK)
        return;
    node = w->node_field >= 0 ? object_field(obj, w->node_field) : "";
    if (profile_node_index(node, strlen(node), &index) != RW_OK)
        index = UINT32_MAX;
    churn_adopt(w->churn, serial, index);
    object_unref(obj);
}

static void writer_adopt_done_cb(int err, const char *why, int64_t revision,
                                 void *arg)
{
    struct writer *w = arg;

    range_free(w->load);
    w->load = NULL;
    if (w->closing)
        return; /* writer_free closed the Redis store under the read */
    if (err != 0) {
        char msg[320];

        snprintf(msg, sizeof(msg), "reading the churn namespace: %s", why);
        if (w->cbs.on_error)
            w->cbs.on_error(msg, w->arg);
        return;
    }
    log_info("writer: %zu pods of an earlier run adopted",
             churn_live(w->churn));
    w->populating = true;
    writer_populate(w);
}

/* The next operation of a tick; false when none can be issued now. */
static bool writer_op(struct writer *w)
{
    w->ops++;
    if (w->churn != NULL)
        return writer_churn_write(w, false);
    writer_update(w);
    return true;
}

static void writer_tick_cb(evutil_socket_t fd, short what, void *arg)
{
    struct writer *w = arg;
    uint64_t due;

    if (!w->running || (w->churn == NULL && w->n == 0))
        return;
    due = (uint64_t)((clock_mono_s() - w->started) * (double)w->rate) + 1;
    if (w->ops < due && w->st.inflight >= WRITER_MAX_INFLIGHT)
        w->st.behind++;
    while (w->ops < due + w->sent_at_start &&
           w->st.inflight < WRITER_MAX_INFLIGHT) {
        if (!writer_op(w))
            break;
    }
}

void writer_start(struct writer *w)
{
    struct timeval tv = {0, (suseconds_t)(WRITER_TICK * 1e6)};

    if (w->running)
        return;
    w->running = true;
    w->started = clock_mono_s();
    w->sent_at_start = w->ops;
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
    struct kube_write_stats ks = {0};

    *st = w->st;
    if (w->kw != NULL)
        kube_write_stats(w->kw, &ks);
    st->requests = ks.requests;
    st->conflicts = ks.conflicts;
    st->rereads = ks.rereads;
    st->gave_up = ks.gave_up;
}

const struct histogram *writer_latency(const struct writer *w)
{
    return &w->latency;
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

static void writer_conn_close_cb(struct h2_client *c, int err, void *arg)
{
    struct writer *w = arg;

    log_warnx("writer: etcd %s: %s", h2_client_authority(c),
              h2_client_last_error(c)[0] ? h2_client_last_error(c)
                                         : rw_strerror(err));
    w->running = false;
}

struct writer *writer_new(struct event_base *base, const struct fleet_dial *d,
                          const struct redis_store_config *redis,
                          const struct writer_via *via,
                          const struct resource_type *rt, struct keys *keys,
                          uint64_t rate, const struct churn_config *churn,
                          const struct writer_callbacks *cbs, void *arg)
{
    static const struct h2_client_callbacks conn_cbs = {
        .on_close = writer_conn_close_cb,
    };
    struct writer *w = xcalloc(1, sizeof(*w));
    struct h2_client_config hc = {0};

    rw_assert(rate > 0);
    w->base = base;
    w->rt = rt;
    w->keys = keys;
    w->d = d;
    w->rate = rate;
    w->cbs = *cbs;
    w->arg = arg;
    w->writers = via != NULL && via->writers > 0 ? via->writers : 1;
    histogram_init(&w->latency);
    if (via != NULL && via->server != NULL)
        w->kw = kube_write_new(base, via->server, rt, w->writers);
    if (redis != NULL) {
        w->store = redis_store_new(base, redis, rt);
    } else if (w->kw == NULL) {
        fleet_dial_h2(d, &hc);
        w->conn = h2_client_new(base, d->host, d->port, &hc, &conn_cbs, w);
    }
    w->tick = event_new(base, -1, EV_PERSIST, writer_tick_cb, w);
    if (churn != NULL) {
        w->churn = churn_new(churn);
        w->node_field = resource_type_field_id(rt, "spec.nodeName");
    }
    return w;
}

void writer_free(struct writer *w)
{
    if (w == NULL)
        return;
    w->closing = true;
    range_free(w->load);
    event_free(w->tick);
    h2_client_free(w->conn); /* in-flight Puts' callbacks run: they free puts */
    kube_write_free(w->kw);  /* so do the writes through the server */
    redis_store_free(w->store); /* so do the Redis writes' */
    for (size_t i = 0; i < w->n; i++) {
        free(w->objects[i].etcd_key);
        free(w->objects[i].head);
        free(w->objects[i].tail);
    }
    free(w->objects);
    churn_free(w->churn);
    free(w->log);
    free(w->value);
    free(w);
}
