/*
 * watch_start.c: starting a WATCH (see watch_start.h).
 *
 * A WATCH without initial events begins at once: its start revision is
 * checked against the window (ERROR 410 when it left it) and its watcher
 * joins the watch set at the ring position after that revision.  One with
 * initial events waits, as a struct watch_req owning the request's
 * selector and namespace, for its state (fresh_read); the stream's close
 * callback cancels the wait.  Then it begins with a watch_initial of that
 * state at the ring head of the same instant, so that every change after
 * the state follows it exactly once.  A refused representation is
 * answered only once the start is proven, as the apiserver converts after
 * its storage call.
 */
#include "src/watch_start.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/watchcache.h"
#include "proto/repr.h"
#include "src/fresh.h"
#include "src/metrics_resource.h"
#include "src/resource.h"
#include "src/status.h"
#include "src/watch.h"
#include "src/watch_impl.h"
#include "src/watch_initial.h"

/* Seconds before a watch from a lost revision gets its ERROR 410 (see
 * watch.h), so that a client that relists at once, and is handed a lost
 * revision again while the store has not passed them, comes back at most
 * once per this. */
#define WATCH_LOST_DELAY 1.0

/* A WATCH waiting for its starting state (src/fresh.h). */
struct watch_req {
    struct stream *s;
    struct resource *r;
    char *ns;
    struct selector *sel;
    bool bookmarks;
    int64_t timeout_seconds;
    bool initial;     /* synthetic ADDED for the state first */
    bool initial_end; /* then the initial-events-end BOOKMARK */
    bool counted;     /* an explicit resourceVersion: a hit or a miss */
    int64_t rv;       /* the requested revision (0: unset or "0") */
    bool lost;        /* rv is the client's and lost (resource_rv_lost) */
    uint8_t format;   /* the representation (repr_of) */
    int refuse_code;  /* 400 or 406 once the start is proven, or 0 */
    char *refuse_why;
    struct fresh *pending;
    struct watch_grant *grant; /* the watcher's, once it is added */
};

static void watch_req_free(struct watch_req *wr)
{
    selector_free(wr->sel);
    if (wr->grant != NULL)
        wr->grant->ops->free(wr->grant);
    free(wr->ns);
    free(wr->refuse_why);
    free(wr);
}

/* The representation is refused: answered once the watch could start,
 * as the apiserver converts after its storage call (repr_resolve). */
static bool watch_refused(struct watch_req *wr)
{
    if (wr->refuse_code == 0)
        return false;
    status_refuse(wr->s, wr->refuse_code, wr->refuse_why);
    return true;
}

static void watch_req_close_cb(struct stream *s, void *arg)
{
    struct watch_req *wr = arg;

    fresh_cancel(wr->pending);
    watch_req_free(wr);
}

/*
 * Starts the watcher of wr at revision rv: it is sent the state snap
 * (when not NULL) as ADDED events, then every change above rv.  A start
 * revision that left the window gets ERROR 410; a refused representation
 * its 406 or 400 instead.
 */
static void watch_begin(struct watch_req *wr, struct store_snap *snap,
                        int64_t rv)
{
    const struct resource_type *rt = resource_type(wr->r);
    struct watchcache *wc = resource_cache(wr->r);
    struct metrics_resource *m = resource_metrics(wr->r);
    uint64_t seq = ring_head_seq(watchcache_ring(wc));
    int64_t oldest = 0;
    struct watcher *w;
    int err = RW_OK;

    if (watch_refused(wr))
        return;
    /* Ahead of the cache: every change above rv comes later (those up to
     * rv are skipped by min_rv). */
    if (wr->lost)
        err = RW_EEXPIRED;
    else if (rv > 0 && rv <= watchcache_rv(wc))
        err = watchcache_watch_from(wc, rv, &seq, &oldest);
    if (wr->counted) {
        if (err == RW_OK)
            m->watch_hits++;
        else
            m->watch_misses++;
    }
    stream_begin(wr->s, 200, "application/json", -1);
    stream_forget_request(wr->s);
    /* A seat (fairness.h) is held only while initial events are sent. */
    if (snap == NULL || wr->lost || err != RW_OK)
        stream_release(wr->s);
    w = watch_add(watch_set_of(wr->r), wr->s, wr->ns, wr->sel, wr->bookmarks,
                  wr->format, wr->grant);
    wr->sel = NULL;
    wr->grant = NULL;
    /* access lost while its state was being proven */
    if (!watch_check_grant(w))
        return;
    w->cursor = seq;
    w->min_rv = rv;
    w->seen_rv = rv;
    if (wr->lost) {
        /* Its 410 waits (watch.h): it is taken nothing and sent nothing. */
        w->doomed = true;
        w->bookmarks = false;
        watch_arm_deadline(w, wr->timeout_seconds, WATCH_LOST_DELAY);
        return;
    }
    if (err != RW_OK) {
        watch_expire(w, rv, oldest);
        return;
    }
    if (snap != NULL)
        w->initial = watch_initial_new(snap, rt, wr->ns);
    w->initial_end = wr->initial_end;
    watch_arm_deadline(w, wr->timeout_seconds, INFINITY);
    watch_pump(w);
}

/* The starting state could not be had.  A sendInitialEvents watch is
 * answered 200 with the Status as its one ERROR event, as the apiserver's
 * cacher answers once the resourceVersion is parsed (newErrWatcher); the
 * others get the Status as the HTTP answer.  When the store's history was
 * reset meanwhile, it ends as every watch did: ERROR 410. */
static void watch_fail(struct watch_req *wr, const struct read_result *res)
{
    struct rbuf *frame;

    if (!wr->initial_end && res->err != RW_ERESET) {
        fresh_respond_error(wr->s, res);
        return;
    }
    stream_begin(wr->s, 200, "application/json", -1);
    if (res->err == RW_ERESET)
        frame = watch_expired_frame(wr->rv, res->cache_rv);
    else
        frame = fresh_error_frame(res);
    stream_write_frame(wr->s, frame);
    rbuf_unref(frame);
    stream_end(wr->s);
}

static void watch_ready_cb(const struct read_result *res, void *arg)
{
    struct watch_req *wr = arg;

    if (wr->pending != NULL) {
        wr->pending = NULL;
        stream_set_callbacks(wr->s, NULL, NULL, NULL);
    }
    if (res->err != RW_OK)
        watch_fail(wr, res);
    else
        watch_begin(wr, res->snap, res->rv);
    watch_req_free(wr);
}

void watch_start(struct stream *s, struct resource *r, const char *ns,
                 struct selector *sel, const struct query *q,
                 const struct accept_choice *accept,
                 struct watch_grant *grant)
{
    struct watch_req *wr;
    enum read_mode mode;
    struct fresh *f;
    struct repr rep;
    char *prefix, why[512];

    if (!resource_ready(r)) {
        selector_free(sel);
        if (grant != NULL)
            grant->ops->free(grant);
        status_respond(s, 429, "TooManyRequests",
                       "storage is (re)initializing: %s",
                       resource_type(r)->resource);
        return;
    }
    resource_metrics(r)->watch_starts++;
    wr = xcalloc(1, sizeof(*wr));
    wr->s = s;
    wr->r = r;
    wr->ns = ns ? xstrdup(ns) : NULL;
    wr->sel = sel;
    wr->grant = grant;
    wr->bookmarks = q->allow_bookmarks;
    wr->timeout_seconds = q->timeout_seconds;
    wr->rv = q->has_rv ? q->rv : 0;
    wr->counted = wr->rv > 0;
    wr->refuse_code = repr_resolve(accept, ACCEPT_WATCH, resource_type(r),
                                   q->include_object, &rep, why, sizeof(why));
    if (wr->refuse_code != 0)
        wr->refuse_why = xstrdup(why);
    wr->format = (uint8_t)repr_format(&rep);
    /* sendInitialEvents (validated by the router): the state as of the
     * resourceVersion's LIST semantics, then the end marker. */
    wr->initial_end = q->send_initial_events == 1;
    wr->initial =
        wr->initial_end || (q->send_initial_events < 0 && wr->rv == 0);
    if (wr->initial) {
        mode = !q->has_rv    ? READ_CONSISTENT
               : wr->rv == 0 ? READ_ANY
                             : READ_NOT_OLDER;
        wr->counted = false;
    } else {
        /* Only the changes after N (sendInitialEvents=false without N:
         * after now).  No state and nothing to prove: it starts at once,
         * even from an N the cache or the store has not reached yet (the
         * cacher's plain watch does not wait: events above N come when
         * they come, and timeoutSeconds ends it as usual). */
        if (wr->rv == 0)
            wr->rv = watchcache_rv(resource_cache(r));
        else
            wr->lost = resource_rv_lost(r, wr->rv);
        watch_begin(wr, NULL, wr->rv);
        watch_req_free(wr);
        return;
    }
    prefix = resource_type_ns_prefix(resource_type(r), ns);
    f = fresh_read(r, prefix, mode, wr->rv, wr->initial_end, watch_ready_cb,
                   wr);
    free(prefix);
    if (f == NULL)
        return; /* answered, wr freed */
    wr->pending = f;
    stream_set_callbacks(s, NULL, watch_req_close_cb, wr);
}
