/*
 * watch_impl.h: the inside of a watch set, shared by watch.c (the set and
 * its dispatcher) and its parts watch_start.c (a WATCH's start),
 * watch_initial.c (initial events) and watch_relist.c (relists and history
 * resets) only.  Everything else programs against watch.h and
 * watch_start.h and never includes this file.
 *
 * The data, modes and ordering rules are described at the top of watch.c.
 * The helpers a watcher's event goes through on the dispatch path (filter,
 * frame, write) are static inline here so that the push stays direct
 * calls in one translation unit.
 */
#ifndef WATCH_IMPL_H
#define WATCH_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <time.h>

#include "cache/deadline.h"
#include "cache/dindex.h"
#include "cache/rbuf.h"
#include "cache/ring.h"
#include "cache/selector.h"
#include "proto/kjson.h"
#include "proto/repr.h"
#include "src/resource.h"
#include "src/stream.h"

struct watch_initial;

struct watcher {
    struct dindex_entry live; /* first: filed in set->index while live */
    LIST_ENTRY(watcher) link; /* in set->watchers */
    struct watch_set *set;
    struct stream *stream;
    struct selector *sel;
    char *ns;                      /* NULL: every namespace */
    struct watch_initial *initial; /* initial events still to send, or NULL */
    struct watch_grant *grant;     /* its right to run, or NULL (watch.h) */
    uint64_t cursor;               /* ring seq of the next event to look at */
    int64_t min_rv;                /* events at or below it are not sent */
    int64_t seen_rv; /* revision the watcher has been brought to */
    uint64_t stamp;  /* 1 + seq of the last event dispatched */
    struct deadline_item deadline; /* in set->deadlines */
    uint8_t proto;                 /* 0: HTTP/1.x, 1: HTTP/2 */
    uint8_t format;                /* representation (repr_of) */
    bool columns_due;              /* a Table watch before its first event */
    bool bookmarks;
    bool initial_end; /* BOOKMARK initial-events-end after the initial events */
    bool doomed;      /* from a lost revision: ERROR 410 at its deadline */
    bool ending;      /* stream_end called; waiting for on_close */
    bool relist_marked;
};

struct watch_set {
    struct resource *res;
    struct metrics_resource *metrics; /* resource_metrics(res), once */
    size_t high_water;          /* watch_limits */
    double min_request_timeout; /* watch_limits, seconds */
    LIST_HEAD(, watcher) watchers;
    size_t count[2];
    struct dindex *index; /* live watchers by key (watch.c) */
    uint64_t dispatched;  /* ring seq of the next event to dispatch */
    int indexed_field;    /* object->fields[] index of the indexed field,
                             or -1 (watch_limits) */
    struct deadline_heap deadlines; /* when each watch ends (ms) */
    struct event *deadline_timer;   /* armed for the first of them */
};

/* ---- the per-event helpers (inline: the dispatch path) ---- */

/* Whether w selects object o (namespace and selectors). */
static inline bool watch_selects(const struct watcher *w,
                                 const struct object *o)
{
    return ring_event_selects(o, w->ns, w->sel);
}

/* Whether w is live (filed in the dispatch index, pushed to). */
static inline bool watch_is_live(const struct watcher *w)
{
    return w->live.bucket != NULL;
}

/* The frame for obj as an event of type t, encoded once per object. */
static inline struct rbuf *watch_object_frame(struct object *obj,
                                              enum event_type t)
{
    if (obj->frames[t] == NULL)
        obj->frames[t] = kjson_watch_frame(t, obj);
    return obj->frames[t];
}

/* The frame for obj as an event of type t in w's representation, shared
 * by every watcher of that representation (borrowed). */
static inline struct rbuf *watch_frame(const struct watcher *w,
                                       struct object *obj, enum event_type t)
{
    const struct repr *r;
    unsigned view;
    int64_t stamp;
    struct rbuf *f;

    if (w->format == 0)
        return watch_object_frame(obj, t);
    r = repr_of(w->format);
    view = w->format * EVENT_TYPE_MAX + (unsigned)t;
    stamp = repr_ages(r) ? (int64_t)time(NULL) : 0;
    if ((f = object_view_get(obj, view, stamp)) == NULL) {
        f = repr_event_frame(r, resource_type(w->set->res), t, obj,
                             (time_t)stamp);
        object_view_put(obj, view, stamp, f);
        rbuf_unref(f);
    }
    return f;
}

/* Writes an event or BOOKMARK frame f to w: a Table watch's first one with
 * the column definitions. */
static inline void watch_write(struct watcher *w, struct rbuf *f)
{
    struct rbuf *first;

    if (!w->columns_due) {
        stream_write_frame(w->stream, f);
        return;
    }
    w->columns_due = false;
    first = repr_with_columns(f, resource_type(w->set->res));
    stream_write_frame(w->stream, first);
    rbuf_unref(first);
}

/* ---- watch.c's functions for its parts ---- */

/* A new lagging watcher of ws on stream s (its drain and close callbacks
 * taken over): namespace ns (copied, NULL: all), selector sel (taken),
 * representation format.  The caller sets its cursor and revisions, then
 * arms its deadline.  grant (taken, may be NULL): its right to run. */
struct watcher *watch_add(struct watch_set *ws, struct stream *s,
                          const char *ns, struct selector *sel, bool bookmarks,
                          uint8_t format, struct watch_grant *grant);

/* The ERROR 410 Expired event of a watch from rv, oldest the revision a
 * watch can start from now, as the cacher's "too old resource version:
 * rv (oldest)".  The caller owns the reference. */
struct rbuf *watch_expired_frame(int64_t rv, int64_t oldest);

/* Whether w may go on (its grant allows it, or it has none); if not,
 * sends the grant's ERROR event, ends the stream and counts it: w may be
 * gone after. */
bool watch_check_grant(struct watcher *w);

/* Sends ERROR 410 Expired (watch_expired_frame) and ends the stream: w may
 * be gone after. */
void watch_expire(struct watcher *w, int64_t rv, int64_t oldest);

/* w ends after timeout_seconds (> 0), else after a random time in
 * [min_request_timeout, 2 x min_request_timeout) as the apiserver's, and
 * after at most `most` seconds (> 0). */
void watch_arm_deadline(struct watcher *w, int64_t timeout_seconds,
                        double most);

/* Moves lagging w along its initial events, then the ring, while its
 * stream has room, up to the dispatched seq, where it turns live.  May end
 * w (lapped): the caller must not touch w afterwards. */
void watch_pump(struct watcher *w);

/* Whether w has been given (or shown) every event in the ring, whose head
 * seq is head. */
bool watch_caught_up(const struct watcher *w, uint64_t head);

#endif
