/*
 * fresh.c: proving a read fresh (see fresh.h).
 *
 * A pending read moves through at most these steps, each asynchronous:
 *
 *   PROBE  it waits for a probe of its prefix (store revision R, counts);
 *   WAIT   it waits for the cache to reach the target revision (a resource
 *          waiter), bounded by the deadline armed at the start;
 *   READ   it pages the state at the target revision out of the store into
 *          a private store, whose snapshot is then served (bounded by
 *          FRESH_READ_LIMIT);
 *   FAIL   it could not start a step (no connection): the answer is
 *          deferred to the event loop, never given inside fresh_read;
 *   READY  the cache already holds the target: likewise deferred.
 *
 * Probes are shared: at most one probe per (resource, prefix) is in
 * flight.  Reads that arrive while it is in flight cannot use it (etcd may
 * have read its state before they arrived), so they wait for the next one,
 * which is sent as soon as the current one returns and serves all of them:
 * a burst of consistent LISTs costs etcd two probes, not one each.  The
 * cache snapshot for the proof is taken when a probe is sent, at the
 * cache's revision s, so the probe's verdict ("unchanged since s")
 * refers to exactly the state that would be served.
 *
 * A read that seeks a revision past the lost ones (resume while the
 * cache's revision is lost, fresh.h) joins a probe even when the cache
 * could answer at once; its target becomes the probe's R when R is past
 * them, and from there it is a consistent read.  Otherwise (R lost, the
 * probe failed or too slow) it is the read it would have been.
 */
#include "src/fresh.h"

#include <event2/event.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "cache/rw.h"
#include "cache/watchcache.h"
#include "proto/kjson.h"
#include "proto/kjson_decode.h"
#include "src/metrics_resource.h"
#include "src/resource.h"
#include "src/stream.h"
#include "src/upstream.h"

/* Keys per Range page when reading the state from the store. */
#define FRESH_PAGE 500

enum fresh_step { STEP_PROBE, STEP_WAIT, STEP_READY, STEP_READ, STEP_FAIL };

struct probe;

struct fresh {
    struct resource *r;
    char *prefix;
    size_t prefix_len;
    enum read_mode mode;
    int64_t rv;        /* requested revision (NOT_OLDER, EXACT, WATCH_FROM) */
    int64_t target;    /* revision to serve at or after; 0 before the probe */
    int64_t store_rev; /* R from the probe; 0 if none */
    bool future;       /* target > R: only the cache can still reach it */
    bool seek;         /* after a revision past the lost ones (resume) */
    fresh_cb cb;
    void *arg;
    uint64_t epoch; /* resource_epoch() at the start */
    enum fresh_step step;
    struct probe *probe;      /* PROBE: the probe it belongs to */
    LIST_ENTRY(fresh) probe_link; /* PROBE: in its members or later */
    int fail_err;             /* FAIL: the answer */
    const char *fail_why;
    struct rv_waiter waiter;
    struct event *deadline;     /* FRESH_WAIT, FRESH_READ_LIMIT; FAIL */
    struct upstream_read *read; /* READ: the page in flight */
    struct store *building;     /* READ: the state read so far */
    char *cursor;               /* READ: the next page's (the adapter's);
                                   NULL: the first page */
    size_t cursor_len;
};

/* One probe of a prefix, in flight, and the reads it will answer. */
struct probe {
    LIST_ENTRY(probe) link; /* in `probes` */
    struct resource *r;
    char *prefix;
    size_t prefix_len;
    struct upstream_read *read;
    struct store_snap *snap; /* the cache when the probe was sent */
    size_t snap_count;       /* keys under prefix then, decodable or not */
    /* Its reads: the members, answered by this probe, are
     * reads[round % 2]; the others arrived while it was in flight and are
     * the next probe's members. */
    LIST_HEAD(fresh_list, fresh) reads[2];
    unsigned round;          /* probes sent */
    bool answering;          /* probe_cb is answering the members */
};

/* Every probe in flight (few: one per prefix being read consistently). */
static LIST_HEAD(, probe) probes = LIST_HEAD_INITIALIZER(probes);

static struct fresh_list *probe_members(struct probe *pr)
{
    return &pr->reads[pr->round % 2];
}

static struct fresh_list *probe_later(struct probe *pr)
{
    return &pr->reads[(pr->round + 1) % 2];
}

static void fresh_probe_result(struct fresh *f, int err, const char *why,
                               const struct upstream_probe *p,
                               struct store_snap *snap);

/* ---- answers ---- */

static void fresh_leave_probe(struct fresh *f);

static void fresh_free(struct fresh *f)
{
    const struct upstream_reader *rd = resource_reader(f->r);

    fresh_leave_probe(f);
    if (f->read != NULL && rd != NULL)
        rd->cancel(rd->ctx, f->read);
    resource_unwait(f->r, &f->waiter);
    if (f->deadline != NULL)
        event_free(f->deadline);
    store_free(f->building);
    free(f->cursor);
    free(f->prefix);
    free(f);
}

void fresh_cancel(struct fresh *f)
{
    if (f != NULL)
        fresh_free(f);
}

static void fresh_answer(struct fresh *f, int err, struct store_snap *snap,
                         int64_t rv, bool upstream, const char *why)
{
    struct read_result res;

    if (f->epoch != resource_epoch(f->r)) {
        /* Whatever was found belongs to a history that is gone. */
        err = RW_ERESET;
        why = rw_strerror(RW_ERESET);
    }
    res = (struct read_result){
        .err = err,
        .snap = err == RW_OK ? snap : NULL,
        .rv = rv,
        .cache_rv = resource_rv(f->r),
        .upstream = upstream,
        .why = why ? why : "",
    };

    f->cb(&res, f->arg);
    store_snap_unref(snap);
    fresh_free(f);
}

/* Answers RW_ERESET and returns true when the store's history was reset
 * since f started: nothing of the old history or the new may serve it. */
static bool fresh_reset_seen(struct fresh *f)
{
    if (f->epoch == resource_epoch(f->r))
        return false;
    fresh_answer(f, RW_ERESET, NULL, f->rv, false, NULL);
    return true;
}

/* Answers err from the event loop, not from the caller's stack. */
static void fresh_fail_later(struct fresh *f, int err, const char *why)
{
    f->step = STEP_FAIL;
    f->fail_err = err;
    f->fail_why = why;
    event_active(f->deadline, EV_TIMEOUT, 1);
}

static void fresh_arm(struct fresh *f, double seconds)
{
    struct timeval tv = rw_timeval(seconds);

    evtimer_add(f->deadline, &tv);
}

/* ---- reading the state from the store ---- */

static void fresh_read_page(struct fresh *f);

static bool fresh_count_cb(struct object *obj, void *arg)
{
    (*(size_t *)arg)++;
    return true;
}

static void fresh_page_cb(int err, const char *why, int64_t rev,
                          const struct upstream_kv *kvs, size_t n,
                          const char *next, size_t next_len, void *arg)
{
    struct fresh *f = arg;
    const struct resource_type *rt = resource_type(f->r);

    f->read = NULL;
    if (fresh_reset_seen(f))
        return;
    if (err != RW_OK) {
        fresh_answer(f, err, NULL, rev, true, why);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        struct object *obj;
        const char *bad;

        /* Undecodable values are not served from the cache either. */
        if (kjson_decode_object(rt, kvs[i].key, kvs[i].key_len, kvs[i].value,
                                kvs[i].value_len, kvs[i].mod_rev, &obj,
                                &bad) == RW_OK)
            object_unref(store_put(f->building, obj));
    }
    if (next == NULL) {
        fresh_answer(f, RW_OK, store_snapshot(f->building), rev, true, NULL);
        return;
    }
    free(f->cursor);
    f->cursor = xmemdup(next, next_len);
    f->cursor_len = next_len;
    fresh_read_page(f);
}

static void fresh_read_page(struct fresh *f)
{
    const struct upstream_reader *rd = resource_reader(f->r);

    if (rd != NULL)
        f->read =
            rd->page(rd->ctx, f->prefix, f->prefix_len, f->cursor,
                     f->cursor_len, f->target, FRESH_PAGE, fresh_page_cb, f);
    if (f->read == NULL)
        fresh_fail_later(f, RW_EUNAVAIL, "no connection to the store");
}

/* Reads the state at f->target from the store, within FRESH_READ_LIMIT. */
static void fresh_read_store(struct fresh *f)
{
    f->step = STEP_READ;
    resource_unwait(f->r, &f->waiter);
    fresh_arm(f, FRESH_READ_LIMIT);
    f->building = store_new();
    fresh_read_page(f);
}

/* ---- serving from the cache ---- */

/* The cache has reached f->target: answer from memory. */
static void fresh_from_cache(struct fresh *f)
{
    struct watchcache *wc = resource_cache(f->r);
    struct store_snap *snap;

    if (fresh_reset_seen(f))
        return;
    if (f->mode != READ_EXACT) {
        fresh_answer(f, RW_OK, store_snapshot(watchcache_store(wc)),
                     watchcache_rv(wc), false, NULL);
    } else if (watchcache_snapshot_at(wc, f->target, &snap) == RW_OK) {
        fresh_answer(f, RW_OK, snap, f->target, false, NULL);
    } else {
        fresh_read_store(f); /* left the window while we waited */
    }
}

static void fresh_waiter_cb(struct rv_waiter *w, void *arg)
{
    fresh_from_cache(arg);
}

/* Waits for the cache to reach f->target (answers from the event loop
 * even when it already has). */
static void fresh_wait(struct fresh *f)
{
    f->step = STEP_WAIT;
    f->waiter.rv = f->target;
    if (resource_rv(f->r) >= f->target) {
        f->step = STEP_READY;
        event_active(f->deadline, EV_TIMEOUT, 1);
        return;
    }
    resource_wait(f->r, &f->waiter);
}

static void fresh_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    struct fresh *f = arg;
    char why[160];

    if (fresh_reset_seen(f))
        return;
    switch (f->step) {
    case STEP_READY:
        fresh_from_cache(f);
        break;
    case STEP_FAIL:
        fresh_answer(f, f->fail_err, NULL, f->rv, false, f->fail_why);
        break;
    case STEP_PROBE:
        if (f->seek && resource_rv(f->r) >= f->rv) {
            fresh_from_cache(f); /* as without resume (fresh.h) */
            break;
        }
        fresh_answer(f, RW_ETIMEDOUT, NULL, f->rv, false,
                     "the store did not answer in time");
        break;
    case STEP_READ:
        fresh_answer(f, RW_ETIMEDOUT, NULL, f->target, true,
                     "the store did not send the state in time");
        break;
    case STEP_WAIT:
        if (f->future || f->store_rev == 0) {
            snprintf(why, sizeof(why),
                     "Too large resource version: %" PRId64
                     ", current: %" PRId64,
                     f->target, resource_rv(f->r));
            fresh_answer(f, RW_EFUTURE, NULL, f->target, false, why);
        } else {
            fresh_read_store(f); /* the cache is stuck behind the store */
        }
        break;
    }
}

/* ---- probes ---- */

static void probe_send(struct probe *pr);

static void probe_free(struct probe *pr)
{
    const struct upstream_reader *rd = resource_reader(pr->r);

    LIST_REMOVE(pr, link);
    if (pr->read != NULL && rd != NULL)
        rd->cancel(rd->ctx, pr->read);
    store_snap_unref(pr->snap);
    free(pr->prefix);
    free(pr);
}

static void fresh_leave_probe(struct fresh *f)
{
    struct probe *pr = f->probe;

    if (pr == NULL)
        return;
    LIST_REMOVE(f, probe_link);
    f->probe = NULL;
    if (LIST_EMPTY(probe_members(pr)) && LIST_EMPTY(probe_later(pr)) &&
        !pr->answering)
        probe_free(pr);
}

static void probe_cb(int err, const char *why, const struct upstream_probe *p,
                     void *arg)
{
    struct probe *pr = arg;
    struct store_snap *snap = store_snap_ref(pr->snap);
    struct fresh *f;

    pr->read = NULL;
    /* Answer the members (detached first); reads that start meanwhile
     * join `later`, and no read leaving can free pr while answering. */
    pr->answering = true;
    while ((f = LIST_FIRST(probe_members(pr))) != NULL) {
        LIST_REMOVE(f, probe_link);
        f->probe = NULL;
        fresh_probe_result(f, err, why, p, snap);
    }
    pr->answering = false;
    store_snap_unref(snap);
    if (LIST_EMPTY(probe_later(pr))) {
        probe_free(pr);
        return;
    }
    pr->round++; /* the later reads are the members now */
    probe_send(pr);
}

/* Sends pr for its members, with the cache as it is now. */
static void probe_send(struct probe *pr)
{
    struct watchcache *wc = resource_cache(pr->r);
    const struct upstream_reader *rd = resource_reader(pr->r);
    struct fresh *f;

    store_snap_unref(pr->snap);
    pr->snap = store_snapshot(watchcache_store(wc));
    pr->snap_count =
        resource_undecodable_under(pr->r, pr->prefix, pr->prefix_len);
    store_snap_scan(pr->snap, pr->prefix, pr->prefix_len, fresh_count_cb,
                    &pr->snap_count);
    if (rd != NULL)
        pr->read = rd->probe(rd->ctx, pr->prefix, pr->prefix_len,
                             watchcache_rv(wc), pr->snap_count, probe_cb, pr);
    if (pr->read != NULL) {
        resource_metrics(pr->r)->probes++;
        return;
    }
    /* No store to ask: each read decides what that means for it (never an
     * answer from here: fresh_probe_result defers them). */
    pr->answering = true;
    while ((f = LIST_FIRST(probe_members(pr))) != NULL ||
           (f = LIST_FIRST(probe_later(pr))) != NULL) {
        LIST_REMOVE(f, probe_link);
        f->probe = NULL;
        fresh_probe_result(f, RW_EUNAVAIL, "no connection to the store", NULL,
                           NULL);
    }
    probe_free(pr);
}

/* Puts f on the next probe of its prefix. */
static void fresh_join_probe(struct fresh *f)
{
    struct probe *pr;

    f->step = STEP_PROBE;
    LIST_FOREACH(pr, &probes, link)
        if (pr->r == f->r && pr->prefix_len == f->prefix_len &&
            memcmp(pr->prefix, f->prefix, f->prefix_len) == 0)
            break;
    if (pr != NULL) {
        f->probe = pr;
        LIST_INSERT_HEAD(probe_later(pr), f, probe_link);
        return;
    }
    pr = xcalloc(1, sizeof(*pr));
    pr->r = f->r;
    pr->prefix = xstrdup(f->prefix);
    pr->prefix_len = f->prefix_len;
    LIST_INIT(&pr->reads[0]);
    LIST_INIT(&pr->reads[1]);
    LIST_INSERT_HEAD(&probes, pr, link);
    f->probe = pr;
    LIST_INSERT_HEAD(probe_members(pr), f, probe_link);
    probe_send(pr);
}

/* What the probe p (of the state snap at its send time) means
 * for f.  f may be answered (and freed) here, or wait. */
static void fresh_probe_result(struct fresh *f, int err, const char *why,
                               const struct upstream_probe *p,
                               struct store_snap *snap)
{
    if (fresh_reset_seen(f))
        return;
    if (err != RW_OK) {
        if (f->mode == READ_CONSISTENT) {
            fresh_fail_later(f, err, why);
            return;
        }
        f->target = f->rv; /* the cache may still get there */
        fresh_wait(f);
        return;
    }
    f->store_rev = p->rev;
    if (f->mode == READ_CONSISTENT)
        f->target = p->rev;
    else if (f->seek && !resource_rv_lost(f->r, p->rev))
        f->target = RW_MAX(f->rv, p->rev); /* a revision to watch from */
    else
        f->target = f->rv;
    if (f->target > p->rev) {
        f->future = true;
        fresh_wait(f);
    } else if (resource_rv(f->r) >= f->target) {
        fresh_from_cache(f);
    } else if (p->unchanged) {
        /* Nothing under the prefix changed in (snapshot, R]. */
        fresh_answer(f, RW_OK, store_snap_ref(snap),
                     f->mode == READ_EXACT ? f->target : p->rev, false, NULL);
    } else {
        fresh_wait(f);
    }
}

/* ---- start ---- */

static struct fresh *fresh_new(struct resource *r, const char *prefix,
                               enum read_mode mode, int64_t rv, bool seek,
                               fresh_cb cb, void *arg)
{
    struct fresh *f = xcalloc(1, sizeof(*f));

    f->r = r;
    f->prefix = xstrdup(prefix);
    f->prefix_len = strlen(prefix);
    f->mode = mode;
    f->rv = rv;
    f->seek = seek;
    f->cb = cb;
    f->arg = arg;
    f->epoch = resource_epoch(r);
    f->waiter.fn = fresh_waiter_cb;
    f->waiter.arg = f;
    f->deadline = evtimer_new(resource_base(r), fresh_deadline_cb, f);
    fresh_arm(f, FRESH_WAIT);
    return f;
}

/* Answers at once from the cache when it can; returns false if not. */
static bool fresh_now(struct resource *r, enum read_mode mode, int64_t rv,
                      fresh_cb cb, void *arg)
{
    struct watchcache *wc = resource_cache(r);
    int64_t cache_rv = watchcache_rv(wc);
    struct read_result res = {.cache_rv = cache_rv, .rv = cache_rv, .why = ""};

    switch (mode) {
    case READ_ANY:
        break;
    case READ_NOT_OLDER:
        if (rv > cache_rv)
            return false;
        break;
    case READ_EXACT:
        if (rv > cache_rv || watchcache_snapshot_at(wc, rv, &res.snap) != 0)
            return false;
        res.rv = rv;
        cb(&res, arg);
        store_snap_unref(res.snap);
        return true;
    case READ_CONSISTENT:
        return false;
    }
    res.snap = store_snapshot(watchcache_store(wc));
    cb(&res, arg);
    store_snap_unref(res.snap);
    return true;
}

struct fresh *fresh_read(struct resource *r, const char *prefix,
                         enum read_mode mode, int64_t rv, bool resume,
                         fresh_cb cb, void *arg)
{
    /* Only a probe can find a revision past the lost ones. */
    bool seek = resume && (mode == READ_ANY || mode == READ_NOT_OLDER) &&
                resource_rv_lost(r, resource_rv(r));
    struct fresh *f;

    if (!seek && fresh_now(r, mode, rv, cb, arg))
        return NULL;
    f = fresh_new(r, prefix, mode, rv, seek, cb, arg);
    if (mode == READ_EXACT && rv <= watchcache_rv(resource_cache(r))) {
        /* Inside the cache's past but outside its window. */
        f->target = rv;
        f->store_rev = rv;
        fresh_read_store(f);
    } else {
        fresh_join_probe(f);
    }
    return f;
}

/* The Status of a failed read, as a body or an ERROR event frame; *code
 * gets its HTTP status. */
static struct rbuf *fresh_error_status(const struct read_result *res,
                                       bool event, int *code)
{
    char message[512];

    rw_assert(res->err != RW_OK && res->err != RW_EEXPIRED);
    *code = 504;
    if (res->err == RW_ERESET) {
        /* As a read that arrives while the cache relists (readiness). */
        *code = 429;
        return kjson_status_detailed(429, "TooManyRequests",
                                     "storage is (re)initializing: the "
                                     "store's history was reset",
                                     NULL, NULL, 1, event);
    }
    if (res->err == RW_EFUTURE) {
        snprintf(message, sizeof(message), "Timeout: %s", res->why);
        return kjson_status_detailed(504, "Timeout", message,
                                     "ResourceVersionTooLarge",
                                     "Too large resource version", 1, event);
    }
    snprintf(message, sizeof(message),
             "Timeout: the cache could not be proven fresh and the store "
             "could not be read: %s",
             *res->why ? res->why : rw_strerror(res->err));
    return kjson_status_detailed(504, "Timeout", message, NULL, NULL, 1, event);
}

void fresh_respond_error(struct stream *s, const struct read_result *res)
{
    int code;
    struct rbuf *body = fresh_error_status(res, false, &code);

    stream_add_header(s, "retry-after", "1");
    stream_respond(s, code, "application/json", body);
    rbuf_unref(body);
}

struct rbuf *fresh_error_frame(const struct read_result *res)
{
    int code;

    return fresh_error_status(res, true, &code);
}
