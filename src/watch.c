/*
 * watch.c: WATCH streams and the dispatcher (see watch.h).
 *
 * Data: a watch_set per resource (its subscriber: resource.h) holds every
 * watcher in a list, and its live watchers in a dispatch index (cache/dindex.h).  A
 * watcher is in one of two modes:
 *
 *   lagging  it pulls: first its initial events (snap != NULL: a store
 *            snapshot walked in key order, resuming after `last`), then the
 *            ring from `cursor` (the seq of the next event to look at) up
 *            to what has been dispatched, while its stream is below the
 *            high-water mark.  Caught up, it turns live.
 *   live     it is pushed to: it sits in the index under one key -- "N" +
 *            the metadata.name its field selector pins, else "F" + the
 *            value it pins the resource's indexed field to (pods:
 *            spec.nodeName), else "S" + its namespace, else "*" (no filter
 *            at all) or "?" (filtered by something no index covers).  For
 *            each new event the dispatcher visits "*", "?" and the keys of
 *            the event's new AND old object (a pod leaving a node reaches
 *            that node's watchers as DELETED), so the work per event is
 *            proportional to the watchers it may concern.  A live watcher
 *            whose stream is above the high-water mark when an event
 *            concerns it turns lagging with its cursor at that event.
 *
 * Events are encoded once per object, event type and representation
 * (object_frame for the object's own JSON; its views for Tables and
 * PartialObjectMetadata, made when a first watcher wants them, Tables
 * again each second for their AGE cells) and every watcher writes a
 * reference to the same frame.  Only a Table watch's first event is its
 * own: a copy with the column definitions.
 *
 * Ordering: a watcher's events leave in ring order, which is revision
 * order: the dispatcher walks new events in order, and a lagging watcher
 * turns live only when its cursor reaches the dispatched seq, so every
 * event reaches it exactly once, by pull or by push.  Initial events all
 * precede ring events, and the snapshot is taken at the same instant as
 * the cursor.  A bookmark is sent only to a watcher that has been given
 * every event in the ring, so its revision (the cache's) is at least that
 * of every event already sent.
 *
 * Lifetime: a watcher ends by stream_end (never by freeing); it is freed
 * in its stream's on_close, which may run before stream_end returns, so no
 * code touches a watcher after ending it.
 */
#include "src/watch.h"

#include <event2/event.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <time.h>

#include "cache/clock.h"
#include "cache/deadline.h"
#include "cache/dindex.h"
#include "cache/rw.h"
#include "cache/watchcache.h"
#include "proto/frame.h"
#include "proto/kjson.h"
#include "proto/repr.h"
#include "src/fresh.h"
#include "src/metrics_resource.h"
#include "src/resource.h"
#include "src/status.h"

/* Seconds before a watch from a lost revision gets its ERROR 410 (see
 * watch.h), so that a client that relists at once, and is handed a lost
 * revision again while the store has not passed them, comes back at most
 * once per this. */
#define WATCH_LOST_DELAY 1.0

/* A watcher's initial events still to send: a snapshot walked in key
 * order under the watcher's namespace prefix. */
struct initial {
    struct store_snap *snap;
    const struct object *last; /* last object looked at, or NULL */
    char *prefix;              /* store key prefix of the namespace */
    size_t prefix_len;
};

static struct initial *initial_new(struct store_snap *snap,
                                   const struct resource_type *rt,
                                   const char *ns)
{
    struct initial *in = xcalloc(1, sizeof(*in));

    in->snap = store_snap_ref(snap);
    in->prefix = resource_type_ns_prefix(rt, ns);
    in->prefix_len = strlen(in->prefix);
    return in;
}

static void initial_free(struct initial *in)
{
    if (in != NULL) {
        store_snap_unref(in->snap);
        free(in->prefix);
    }
    free(in);
}

struct watcher {
    struct dindex_entry live; /* first: filed in set->index while live */
    LIST_ENTRY(watcher) link; /* in set->watchers */
    struct watch_set *set;
    struct stream *stream;
    struct selector *sel;
    char *ns;                /* NULL: every namespace */
    struct initial *initial; /* initial events still to send, or NULL */
    uint64_t cursor;         /* ring seq of the next event to look at */
    int64_t min_rv;          /* events at or below it are not sent */
    int64_t seen_rv;         /* revision the watcher has been brought to */
    uint64_t stamp;          /* 1 + seq of the last event dispatched */
    struct deadline_item deadline; /* in set->deadlines */
    uint8_t proto;                 /* 0: HTTP/1.x, 1: HTTP/2 */
    uint8_t format;                /* representation (repr_of) */
    bool columns_due; /* a Table watch before its first event */
    bool bookmarks;
    bool initial_end; /* BOOKMARK initial-events-end after snap */
    bool doomed;      /* from a lost revision: ERROR 410 at its deadline */
    bool ending;      /* stream_end called; waiting for on_close */
    bool relist_marked;
};

struct watch_set {
    struct resource *res;
    struct watch_limits limits;
    LIST_HEAD(, watcher) watchers;
    size_t count[2];
    struct dindex *index; /* live watchers by key (see above) */
    uint64_t dispatched;  /* ring seq of the next event to dispatch */
    int indexed_field;    /* object->fields[] index of the indexed field,
                             or -1 (watch_limits) */
    struct deadline_heap deadlines; /* when each watch ends (ms) */
    struct event *deadline_timer;   /* armed for the first of them */
};

static void watch_set_deadline_cb(evutil_socket_t fd, short what, void *arg);
static const struct resource_subscriber_ops watch_set_ops;

struct watch_set *watch_set_new(struct resource *r,
                                const struct watch_limits *limits)
{
    struct watch_set *ws = xcalloc(1, sizeof(*ws));

    ws->res = r;
    ws->limits = *limits;
    LIST_INIT(&ws->watchers);
    ws->index = dindex_new();
    ws->dispatched = ring_head_seq(watchcache_ring(resource_cache(r)));
    ws->indexed_field = limits->indexed_field;
    ws->deadline_timer =
        evtimer_new(resource_base(r), watch_set_deadline_cb, ws);
    resource_subscribe(r, &watch_set_ops, ws);
    return ws;
}

struct watch_set *watch_set_of(const struct resource *r)
{
    return resource_subscriber(r, &watch_set_ops);
}

size_t watch_set_count(const struct watch_set *ws, int protocol_index)
{
    return ws->count[protocol_index];
}

/* ---- frames ---- */

/* The frame for obj as an event of type t, encoded once per object. */
static struct rbuf *object_frame(struct object *obj, enum event_type t)
{
    if (obj->frames[t] == NULL)
        obj->frames[t] = kjson_watch_frame(t, obj);
    return obj->frames[t];
}

/* The frame for obj as an event of type t in w's representation, shared
 * by every watcher of that representation (borrowed). */
static struct rbuf *watcher_frame(const struct watcher *w, struct object *obj,
                                  enum event_type t)
{
    const struct repr *r;
    unsigned view;
    int64_t stamp;
    struct rbuf *f;

    if (w->format == 0)
        return object_frame(obj, t);
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
static void watcher_write(struct watcher *w, struct rbuf *f)
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

/* ---- lifetime ---- */

static void watcher_free(struct watcher *w)
{
    struct watch_set *ws = w->set;

    LIST_REMOVE(w, link);
    ws->count[w->proto]--;
    dindex_remove(ws->index, &w->live);
    deadline_remove(&ws->deadlines, &w->deadline);
    initial_free(w->initial);
    selector_free(w->sel);
    free(w->ns);
    free(w);
}

static void watcher_close_cb(struct stream *s, void *arg)
{
    watcher_free(arg);
}

/* Ends the stream.  w may be freed before this returns: do not touch it.
 * It leaves the dispatch index first: its stream may drain for a while,
 * and an ended stream takes no more events. */
static void watcher_end(struct watcher *w)
{
    if (w->ending)
        return;
    w->ending = true;
    dindex_remove(w->set->index, &w->live);
    stream_end(w->stream);
}

/* The ERROR 410 Expired event of a watch from rv, oldest the revision a
 * watch can start from now, as the cacher's "too old resource version". */
static struct rbuf *expired_frame(int64_t rv, int64_t oldest)
{
    char msg[128];

    snprintf(msg, sizeof(msg),
             "too old resource version: %" PRId64 " (%" PRId64 ")", rv, oldest);
    return kjson_error_frame(410, "Expired", msg);
}

/* Sends ERROR 410 Expired and ends the stream (w may be gone after). */
static void watcher_expire(struct watcher *w, int64_t rv, int64_t oldest)
{
    struct rbuf *frame = expired_frame(rv, oldest);

    stream_write_frame(w->stream, frame);
    rbuf_unref(frame);
    watcher_end(w);
}

/* The revision a watch can start from now, at the earliest, for the 410
 * message's second number: past the lost revisions and inside the
 * window (as the cacher's "too old resource version: N (oldest - 1)"). */
static int64_t watch_oldest(struct resource *r)
{
    struct watchcache *wc = resource_cache(r);
    int64_t oldest = resource_lost_rv(r) + 1, limit;
    uint64_t seq;

    if (watchcache_initialized(wc) &&
        watchcache_watch_from(wc, 1, &seq, &limit) == RW_EEXPIRED)
        oldest = RW_MAX(oldest, limit);
    return oldest;
}

/* Ends w when its time is up or at shutdown: cleanly, or, doomed, with its
 * ERROR 410 (a client told nothing would only come back with the same
 * lost revision).  w may be gone after. */
static void watcher_finish(struct watcher *w)
{
    if (w->doomed && !w->ending)
        watcher_expire(w, w->min_rv, watch_oldest(w->set->res));
    else
        watcher_end(w);
}

void watch_set_free(struct watch_set *ws)
{
    if (ws == NULL)
        return;
    resource_unsubscribe(ws->res);
    while (!LIST_EMPTY(&ws->watchers)) {
        struct watcher *w = LIST_FIRST(&ws->watchers);

        /* Detach first: the stream may outlive us during shutdown. */
        stream_set_callbacks(w->stream, NULL, NULL, NULL);
        if (!w->ending)
            stream_end(w->stream);
        watcher_free(w);
    }
    dindex_free(ws->index);
    deadline_fini(&ws->deadlines);
    event_free(ws->deadline_timer);
    free(ws);
}

void watch_set_end_all(struct watch_set *ws)
{
    struct watcher *w, *next;

    for (w = LIST_FIRST(&ws->watchers); w != NULL; w = next) {
        next = LIST_NEXT(w, link);
        watcher_finish(w);
    }
}

/* ---- filtering ---- */

static bool watcher_selects(const struct watcher *w, const struct object *o)
{
    return event_selects(o, w->ns, w->sel);
}

/* ---- the pull ---- */

/* The watch-list end marker: a BOOKMARK at the initial state's revision
 * annotated k8s.io/initial-events-end (KEP-3157), sent once. */
static void watcher_initial_end(struct watcher *w)
{
    struct rbuf *frame =
        repr_bookmark_frame(repr_of(w->format), resource_type(w->set->res),
                            w->min_rv, true, time(NULL));

    w->initial_end = false;
    watcher_write(w, frame);
    rbuf_unref(frame);
    resource_metrics(w->set->res)->bookmarks_sent++;
}

/* Sends initial ADDED events; returns false when the stream is full. */
static bool watcher_pump_initial(struct watcher *w, size_t high_water)
{
    struct metrics_resource *m = resource_metrics(w->set->res);
    struct initial *in = w->initial;

    while (stream_pending(w->stream) < high_water) {
        struct object *o;

        if (in->last == NULL)
            o = store_snap_seek(in->snap, in->prefix, in->prefix_len, true);
        else
            o = store_snap_seek(in->snap, in->last->key, in->last->key_len,
                                false);
        if (o == NULL || o->key_len < in->prefix_len ||
            memcmp(o->key, in->prefix, in->prefix_len) != 0) {
            initial_free(in);
            w->initial = NULL;
            if (w->initial_end)
                watcher_initial_end(w);
            return true;
        }
        in->last = o;
        if (!watcher_selects(w, o))
            continue;
        watcher_write(w, watcher_frame(w, o, EVENT_ADDED));
        m->events_dispatched++;
    }
    return false;
}

/* ---- live and lagging ---- */

#define WATCH_KEY_MAX 512

static bool watcher_is_live(const struct watcher *w)
{
    return w->live.bucket != NULL;
}

/* w's index key into buf (WATCH_KEY_MAX bytes); returns its length. */
static size_t watcher_key(const struct watcher *w, char *buf)
{
    const struct watch_set *ws = w->set;
    const char *v = NULL;
    char kind = '?';

    if ((v = selector_field_value(w->sel, FIELD_NAME)) != NULL)
        kind = 'N';
    else if (ws->indexed_field >= 0 &&
             (v = selector_field_value(w->sel,
                                       FIELD_EXTRA + ws->indexed_field)))
        kind = 'F';
    else if ((v = w->ns) != NULL ||
             (v = selector_field_value(w->sel, FIELD_NAMESPACE)) != NULL)
        kind = 'S';
    else if (w->sel == NULL)
        kind = '*';
    if (v == NULL || strlen(v) >= WATCH_KEY_MAX - 1) {
        buf[0] = kind == '*' ? '*' : '?';
        return 1;
    }
    buf[0] = kind;
    memcpy(buf + 1, v, strlen(v));
    return 1 + strlen(v);
}

/* w has been given every dispatched event: from now on it is pushed to. */
static void watcher_go_live(struct watcher *w)
{
    char key[WATCH_KEY_MAX];

    dindex_add(w->set->index, key, watcher_key(w, key), &w->live);
}

/* w cannot take the event at seq now: it will pull from there. */
static void watcher_go_lagging(struct watcher *w, uint64_t seq)
{
    dindex_remove(w->set->index, &w->live);
    w->cursor = seq;
}

/* ---- the pull (lagging watchers) ---- */

/*
 * Moves w along the ring while its stream has room, up to the dispatched
 * seq, where it turns live.  May end w (lapped): the caller must not touch
 * w afterwards.
 */
static void watcher_pump(struct watcher *w)
{
    struct watch_set *ws = w->set;
    struct ring *ring = watchcache_ring(resource_cache(ws->res));
    struct metrics_resource *m = resource_metrics(ws->res);
    size_t high_water = ws->limits.high_water;

    if (w->ending || w->doomed || watcher_is_live(w))
        return;
    if (w->initial != NULL && !watcher_pump_initial(w, high_water))
        return;
    while (stream_pending(w->stream) < high_water) {
        struct event *ev;
        struct object *obj;
        enum event_type type;

        if (w->cursor < ring_tail_seq(ring)) {
            m->terminated_expired++;
            watcher_expire(w, w->seen_rv, ring_oldest_rv(ring) - 1);
            return;
        }
        if (w->cursor >= ws->dispatched) {
            watcher_go_live(w);
            return;
        }
        ev = ring_get(ring, w->cursor++);
        m->dispatch_visits++;
        if (ev->rv <= w->min_rv)
            continue;
        w->seen_rv = ev->rv;
        if ((obj = event_view(ev, w->ns, w->sel, &type)) == NULL)
            continue;
        watcher_write(w, watcher_frame(w, obj, type));
        m->events_dispatched++;
    }
}

static void watcher_drain_cb(struct stream *s, void *arg)
{
    watcher_pump(arg);
}

/* ---- the push (live watchers) ---- */

/* Event ev at seq for live watcher w, which has room or turns lagging. */
static void watcher_push(struct watcher *w, struct event *ev, uint64_t seq)
{
    struct object *obj;
    enum event_type type;

    w->stamp = seq + 1;
    resource_metrics(w->set->res)->dispatch_visits++;
    if (ev->rv <= w->min_rv)
        return;
    if ((obj = event_view(ev, w->ns, w->sel, &type)) == NULL)
        return;
    if (stream_pending(w->stream) >= w->set->limits.high_water) {
        watcher_go_lagging(w, seq);
        return;
    }
    w->seen_rv = ev->rv;
    watcher_write(w, watcher_frame(w, obj, type));
    resource_metrics(w->set->res)->events_dispatched++;
}

/* Pushes ev to the live watchers filed under key kind + value. */
static void watch_push_key(struct watch_set *ws, char kind, const char *value,
                           struct event *ev, uint64_t seq)
{
    char key[WATCH_KEY_MAX];
    size_t len = 1;
    struct dindex_entry *e, *next;

    key[0] = kind;
    if (value != NULL) {
        len = strlen(value);
        if (len >= WATCH_KEY_MAX - 1)
            return; /* no watcher is filed under so long a key */
        memcpy(key + 1, value, len++);
    }
    for (e = dindex_first(ws->index, key, len); e != NULL; e = next) {
        struct watcher *w = (struct watcher *)e;

        next = dindex_next(e);
        if (w->stamp != seq + 1)
            watcher_push(w, ev, seq);
    }
}

/* The keys of one state of the event's object. */
static void watch_push_object(struct watch_set *ws, const struct object *o,
                              struct event *ev, uint64_t seq)
{
    watch_push_key(ws, 'N', o->name, ev, seq);
    if (ws->indexed_field >= 0 && ws->indexed_field < o->nfields)
        watch_push_key(ws, 'F', o->fields[ws->indexed_field], ev, seq);
    watch_push_key(ws, 'S', o->ns, ev, seq);
}

static void watch_dispatch_event(struct watch_set *ws, struct event *ev,
                                 uint64_t seq)
{
    watch_push_key(ws, '*', NULL, ev, seq);
    watch_push_key(ws, '?', NULL, ev, seq);
    watch_push_object(ws, ev->obj, ev, seq);
    if (ev->prev != NULL)
        watch_push_object(ws, ev->prev, ev, seq);
}

/* A batch outran the ring before it could be dispatched: every live
 * watcher missed events and is lapped (rare: a batch larger than the
 * ring).  They turn lagging at the first lost event and expire. */
static void watch_set_lap_live(struct watch_set *ws)
{
    struct watcher *w, *next;

    for (w = LIST_FIRST(&ws->watchers); w != NULL; w = next) {
        next = LIST_NEXT(w, link);
        if (watcher_is_live(w)) {
            watcher_go_lagging(w, ws->dispatched);
            watcher_pump(w);
        }
    }
}

/* New events are in the ring (resource_flush): every watcher pulls what
 * concerns it. */
static void watch_set_dispatch(void *arg)
{
    struct watch_set *ws = arg;
    struct ring *ring = watchcache_ring(resource_cache(ws->res));
    uint64_t head = ring_head_seq(ring);

    if (ws->dispatched < ring_tail_seq(ring)) {
        watch_set_lap_live(ws);
        ws->dispatched = ring_tail_seq(ring);
    }
    for (; ws->dispatched < head; ws->dispatched++)
        watch_dispatch_event(ws, ring_get(ring, ws->dispatched),
                             ws->dispatched);
}

/* Whether w has been given (or shown) every event in the ring. */
static bool watcher_caught_up(const struct watcher *w, uint64_t head)
{
    if (watcher_is_live(w))
        return w->set->dispatched == head;
    return w->initial == NULL && w->cursor == head;
}

/* ---- bookmarks and deadlines ---- */

/* One bookmark round: a BOOKMARK at the cache's revision to each watcher
 * that allowed bookmarks and is caught up. */
static void watch_set_bookmark(void *arg)
{
    struct watch_set *ws = arg;
    struct watcher *w;
    struct watchcache *wc = resource_cache(ws->res);
    uint64_t head = ring_head_seq(watchcache_ring(wc));
    int64_t rv = watchcache_rv(wc);
    struct rbuf *frames[REPR_FORMATS] = {NULL}; /* this round's, lazily */
    time_t now = time(NULL);

    /* Optional: none at a revision that a watch could not resume from. */
    if (resource_rv_lost(ws->res, rv))
        return;
    LIST_FOREACH(w, &ws->watchers, link) {
        if (!w->bookmarks || w->ending || !watcher_caught_up(w, head) ||
            rv < w->min_rv ||
            stream_pending(w->stream) >= ws->limits.high_water)
            continue;
        if (frames[w->format] == NULL)
            frames[w->format] =
                repr_bookmark_frame(repr_of(w->format),
                                    resource_type(ws->res), rv, false, now);
        watcher_write(w, frames[w->format]);
        w->seen_rv = rv;
        resource_metrics(ws->res)->bookmarks_sent++;
    }
    for (unsigned f = 0; f < REPR_FORMATS; f++)
        rbuf_unref(frames[f]);
}

/* Arms the set's timer for its first deadline. */
static void watch_set_arm(struct watch_set *ws)
{
    struct deadline_item *first = deadline_first(&ws->deadlines);
    uint64_t now = clock_mono_ms(), left;
    struct timeval tv;

    if (first == NULL) {
        event_del(ws->deadline_timer);
        return;
    }
    left = first->at > now ? first->at - now : 0;
    tv.tv_sec = (time_t)(left / 1000);
    tv.tv_usec = (suseconds_t)(left % 1000) * 1000;
    evtimer_add(ws->deadline_timer, &tv);
}

/* Ends every watch whose time is up (timeoutSeconds, or the random end
 * without one). */
static void watch_set_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    struct watch_set *ws = arg;
    uint64_t now = clock_mono_ms();
    struct deadline_item *d;

    while ((d = deadline_first(&ws->deadlines)) != NULL && d->at <= now) {
        struct watcher *w =
            (struct watcher *)((char *)d - offsetof(struct watcher, deadline));

        deadline_remove(&ws->deadlines, d);
        watcher_finish(w); /* may free w */
    }
    watch_set_arm(ws);
}

/* w ends after timeoutSeconds (> 0), else after a random time, and after
 * at most `most` seconds (> 0). */
static void watcher_arm_deadline(struct watcher *w, int64_t timeout_seconds,
                                 double most)
{
    struct watch_set *ws = w->set;
    double seconds, t = ws->limits.min_request_timeout;
    struct deadline_item *first = deadline_first(&ws->deadlines);
    uint64_t at;

    if (timeout_seconds > 0)
        seconds = (double)timeout_seconds;
    else /* as the apiserver: random in [T, 2T) spreads re-watches */
        seconds = t + t * ((double)random() / ((double)RAND_MAX + 1));
    seconds = RW_MIN(seconds, most);
    at = clock_mono_ms() + (uint64_t)(seconds * 1000.0);
    deadline_add(&ws->deadlines, &w->deadline, at);
    if (first == NULL || at < first->at)
        watch_set_arm(ws);
}

/* ---- relists ---- */

/*
 * Relist support, around watchcache_replace.  watch_set_relist_begin, with
 * the old ring still in place, marks every watcher that has not yet looked
 * at every event in it (a slow client): the relist drops those events.
 * watch_set_relist_note is then called for every object the relist changed
 * (old and/or new state) and marks the watchers whose selection it
 * touches.  watch_set_relist_done ends the marked watchers with ERROR 410
 * (they would miss changes) and moves every other cursor to the new ring
 * head (they missed nothing they could see).
 */
static void watch_set_relist_begin(void *arg)
{
    struct watch_set *ws = arg;
    uint64_t head = ring_head_seq(watchcache_ring(resource_cache(ws->res)));
    struct watcher *w;

    LIST_FOREACH(w, &ws->watchers, link)
        w->relist_marked = !w->ending && !watcher_caught_up(w, head);
}

static void watch_set_relist_note(void *arg, const struct object *old,
                                  const struct object *new_obj)
{
    struct watch_set *ws = arg;
    struct watcher *w;

    LIST_FOREACH(w, &ws->watchers, link) {
        if (w->relist_marked || w->ending)
            continue;
        if ((old != NULL && watcher_selects(w, old)) ||
            (new_obj != NULL && watcher_selects(w, new_obj)))
            w->relist_marked = true;
    }
}

static void watch_set_relist_done(void *arg)
{
    struct watch_set *ws = arg;
    struct watchcache *wc = resource_cache(ws->res);
    uint64_t head = ring_head_seq(watchcache_ring(wc));
    struct watcher *w, *next;

    for (w = LIST_FIRST(&ws->watchers); w != NULL; w = next) {
        next = LIST_NEXT(w, link);
        if (w->ending || w->doomed) /* a doomed one ends on its own */
            continue;
        if (w->relist_marked) {
            resource_metrics(ws->res)->terminated_relist++;
            watcher_expire(w, w->seen_rv, watchcache_list_rv(wc));
            continue;
        }
        /* Nothing it could see changed in the gap: carry it across. */
        if (!watcher_is_live(w))
            w->cursor = head;
        if (w->seen_rv < watchcache_list_rv(wc) && w->initial == NULL)
            w->seen_rv = watchcache_list_rv(wc);
    }
}

/* The store's history was reset (resource_history_reset): every watcher
 * is ended with ERROR 410 Expired "too old resource version: SEEN (rev)",
 * rev being the store's revision now, so that its informer relists. */
static void watch_set_reset(void *arg, int64_t rev)
{
    struct watch_set *ws = arg;
    struct watcher *w, *next;

    for (w = LIST_FIRST(&ws->watchers); w != NULL; w = next) {
        next = LIST_NEXT(w, link);
        if (w->ending)
            continue;
        resource_metrics(ws->res)->terminated_reset++;
        watcher_expire(w, w->seen_rv, rev);
    }
}

static const struct resource_subscriber_ops watch_set_ops = {
    .dispatch = watch_set_dispatch,
    .bookmark = watch_set_bookmark,
    .relist_begin = watch_set_relist_begin,
    .relist_note = watch_set_relist_note,
    .relist_done = watch_set_relist_done,
    .reset = watch_set_reset,
};

/* ---- start ---- */

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
};

static void watch_req_free(struct watch_req *wr)
{
    selector_free(wr->sel);
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

static struct watcher *watcher_new(struct watch_req *wr)
{
    struct watch_set *ws = watch_set_of(wr->r);
    struct watcher *w = xcalloc(1, sizeof(*w));

    rw_assert(ws != NULL);
    w->set = ws;
    w->stream = wr->s;
    w->sel = wr->sel;
    wr->sel = NULL;
    w->bookmarks = wr->bookmarks;
    w->format = wr->format;
    w->columns_due = repr_of(wr->format)->kind == ACCEPT_TABLE;
    w->proto = stream_protocol(wr->s) == 2 ? 1 : 0;
    w->deadline.index = SIZE_MAX;
    if (wr->ns != NULL)
        w->ns = xstrdup(wr->ns);

    LIST_INSERT_HEAD(&ws->watchers, w, link);
    ws->count[w->proto]++;
    stream_set_callbacks(wr->s, watcher_drain_cb, watcher_close_cb, w);
    return w;
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
    w = watcher_new(wr);
    w->cursor = seq;
    w->min_rv = rv;
    w->seen_rv = rv;
    if (wr->lost) {
        /* Its 410 waits (watch.h): it is taken nothing and sent nothing. */
        w->doomed = true;
        w->bookmarks = false;
        watcher_arm_deadline(w, wr->timeout_seconds, WATCH_LOST_DELAY);
        return;
    }
    if (err != RW_OK) {
        watcher_expire(w, rv, oldest);
        return;
    }
    if (snap != NULL)
        w->initial = initial_new(snap, rt, wr->ns);
    w->initial_end = wr->initial_end;
    watcher_arm_deadline(w, wr->timeout_seconds, INFINITY);
    watcher_pump(w);
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
        frame = expired_frame(wr->rv, res->cache_rv);
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
                 const struct accept_choice *accept)
{
    struct watch_req *wr;
    enum read_mode mode;
    struct fresh *f;
    struct repr rep;
    char *prefix, why[512];

    if (!resource_ready(r)) {
        selector_free(sel);
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
