/*
 * watch.c: a resource's watch set and its dispatcher (see watch.h).  Its
 * parts: watch_start.c starts a WATCH, watch_initial.c sends its initial
 * events, watch_relist.c carries watchers across relists and history
 * resets; they share the structs of watch_impl.h.
 *
 * Data: a watch_set per resource (its subscriber: resource.h) holds every
 * watcher in a list, and its live watchers in a dispatch index
 * (cache/dindex.h).  A watcher is in one of two modes:
 *
 *   lagging  it pulls: first its initial events (initial != NULL:
 *            watch_initial.h), then the ring from `cursor` (the seq of the
 *            next event to look at) up to what has been dispatched, while
 *            its stream is below the high-water mark.  Caught up, it turns
 *            live.
 *   live     it is pushed to: it sits in the index under one key, the
 *            most selective its filter pins (watch_key.h).  For each new
 *            event the dispatcher visits the keys that may concern it:
 *            "*", "?" and those of the event's new AND old object (a pod
 *            leaving a node reaches that node's watchers as DELETED; the
 *            two states share their name and namespace keys), so
 *            the work per event is proportional to the watchers it may
 *            concern.  A live watcher whose stream is above the high-water
 *            mark when an event concerns it turns lagging with its cursor
 *            at that event.
 *
 * Events are encoded once per object, event type and representation
 * (watch_impl.h: watch_object_frame for the object's own JSON; its views
 * for Tables and PartialObjectMetadata, made when a first watcher wants
 * them, Tables again each second for their AGE cells) and every watcher
 * writes a reference to the same frame.  Only a Table watch's first event
 * is its own: a copy with the column definitions.
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
#include "src/metrics_resource.h"
#include "src/resource.h"
#include "src/watch_impl.h"
#include "src/watch_initial.h"
#include "src/watch_key.h"
#include "src/watch_relist.h"

static void watch_set_deadline_cb(evutil_socket_t fd, short what, void *arg);
static const struct resource_subscriber_ops watch_set_ops;

struct watch_set *watch_set_new(struct resource *r,
                                const struct watch_limits *limits)
{
    struct watch_set *ws = xcalloc(1, sizeof(*ws));

    ws->res = r;
    ws->metrics = resource_metrics(r);
    ws->high_water = limits->high_water;
    ws->min_request_timeout = limits->min_request_timeout;
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

/* ---- lifetime ---- */

static void watcher_free(struct watcher *w)
{
    struct watch_set *ws = w->set;

    LIST_REMOVE(w, link);
    ws->count[w->proto]--;
    dindex_remove(ws->index, &w->live);
    deadline_remove(&ws->deadlines, &w->deadline);
    watch_initial_free(w->initial);
    if (w->grant != NULL)
        w->grant->ops->free(w->grant);
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
struct rbuf *watch_expired_frame(int64_t rv, int64_t oldest)
{
    char msg[128];

    snprintf(msg, sizeof(msg),
             "too old resource version: %" PRId64 " (%" PRId64 ")", rv, oldest);
    return kjson_error_frame(410, "Expired", msg);
}

/* Sends ERROR 410 Expired and ends the stream (w may be gone after). */
void watch_expire(struct watcher *w, int64_t rv, int64_t oldest)
{
    struct rbuf *frame = watch_expired_frame(rv, oldest);

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
        watch_expire(w, w->min_rv, watch_oldest(w->set->res));
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

/* ---- rights ---- */

bool watch_check_grant(struct watcher *w)
{
    struct rbuf *frame = NULL;

    if (w->grant == NULL || w->ending ||
        w->grant->ops->allowed(w->grant, &frame))
        return true;
    w->set->metrics->ended_unauthorized++;
    stream_write_frame(w->stream, frame);
    rbuf_unref(frame);
    watcher_end(w);
    return false;
}

size_t watch_set_recheck(struct watch_set *ws)
{
    struct watcher *w, *next;
    size_t ended = 0;

    for (w = LIST_FIRST(&ws->watchers); w != NULL; w = next) {
        next = LIST_NEXT(w, link);
        if (!watch_check_grant(w))
            ended++;
    }
    return ended;
}

/* ---- live and lagging ---- */

/* w has been given every dispatched event: from now on it is pushed to. */
static void watcher_go_live(struct watcher *w)
{
    char key[WATCH_KEY_MAX];

    dindex_add(w->set->index, key,
               watch_key_of(w->sel, w->ns, w->set->indexed_field, key),
               &w->live);
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
void watch_pump(struct watcher *w)
{
    struct watch_set *ws = w->set;
    struct ring *ring = watchcache_ring(resource_cache(ws->res));
    struct metrics_resource *m = ws->metrics;
    size_t high_water = ws->high_water;

    if (w->ending || w->doomed || watch_is_live(w))
        return;
    if (w->initial != NULL) {
        bool done = watch_initial_pump(w, high_water);

        /* its seat (fairness.h) was for writing these: given back once
         * they are all written, or once its output waits for the client
         * (no work meanwhile; a client that never reads keeps none) */
        stream_release(w->stream);
        if (!done)
            return;
    }
    while (stream_pending(w->stream) < high_water) {
        struct ring_event *ev;
        struct object *obj;
        enum event_type type;

        if (w->cursor < ring_tail_seq(ring)) {
            m->terminated_expired++;
            watch_expire(w, w->seen_rv, ring_oldest_rv(ring) - 1);
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
        if ((obj = ring_event_view(ev, w->ns, w->sel, &type)) == NULL)
            continue;
        watch_write(w, watch_frame(w, obj, type));
        m->events_dispatched++;
    }
}

static void watcher_drain_cb(struct stream *s, void *arg)
{
    watch_pump(arg);
}

/* ---- the push (live watchers) ---- */

/* Event ev at seq for live watcher w, which has room or turns lagging. */
static void watcher_push(struct watcher *w, struct ring_event *ev, uint64_t seq)
{
    struct object *obj;
    enum event_type type;

    w->stamp = seq + 1;
    w->set->metrics->dispatch_visits++;
    if (ev->rv <= w->min_rv)
        return;
    if ((obj = ring_event_view(ev, w->ns, w->sel, &type)) == NULL)
        return;
    if (stream_pending(w->stream) >= w->set->high_water) {
        watcher_go_lagging(w, seq);
        return;
    }
    w->seen_rv = ev->rv;
    watch_write(w, watch_frame(w, obj, type));
    w->set->metrics->events_dispatched++;
}

/* Pushes ev to the live watchers filed under key kind + value. */
static void watch_push_key(struct watch_set *ws, char kind, const char *value,
                           struct ring_event *ev, uint64_t seq)
{
    char key[WATCH_KEY_MAX];
    size_t len = watch_key_make(kind, value, key);
    struct dindex_entry *e, *next;

    if (len == 0)
        return; /* no watcher is filed under so long a key */
    for (e = dindex_first(ws->index, key, len); e != NULL; e = next) {
        struct watcher *w = (struct watcher *)e;

        next = dindex_next(e);
        if (w->stamp != seq + 1)
            watcher_push(w, ev, seq);
    }
}

/* Whether o has a value for the indexed field; its key is 'F' + that. */
static bool watch_indexed(const struct watch_set *ws, const struct object *o)
{
    return ws->indexed_field >= 0 && ws->indexed_field < o->nfields;
}

static void watch_dispatch_event(struct watch_set *ws, struct ring_event *ev,
                                 uint64_t seq)
{
    const struct object *o = ev->obj, *prev = ev->prev;
    int f = ws->indexed_field;

    watch_push_key(ws, '*', NULL, ev, seq);
    watch_push_key(ws, '?', NULL, ev, seq);
    watch_push_key(ws, 'N', o->name, ev, seq);
    if (watch_indexed(ws, o))
        watch_push_key(ws, 'F', o->fields[f], ev, seq);
    /* The old state has the same key, so the same name and namespace
     * (kjson_decode_object takes both from the key): only its indexed
     * field can file other watchers (a pod leaving a node reaches that
     * node's watchers, as DELETED). */
    if (prev != NULL && watch_indexed(ws, prev) &&
        !(watch_indexed(ws, o) && strcmp(prev->fields[f], o->fields[f]) == 0))
        watch_push_key(ws, 'F', prev->fields[f], ev, seq);
    watch_push_key(ws, 'S', o->ns, ev, seq);
}

/* A batch outran the ring before it could be dispatched: every live
 * watcher missed events and is lapped (rare: a batch larger than the
 * ring).  They turn lagging at the first lost event and expire. */
static void watch_set_lap_live(struct watch_set *ws)
{
    struct watcher *w, *next;

    for (w = LIST_FIRST(&ws->watchers); w != NULL; w = next) {
        next = LIST_NEXT(w, link);
        if (watch_is_live(w)) {
            watcher_go_lagging(w, ws->dispatched);
            watch_pump(w);
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
bool watch_caught_up(const struct watcher *w, uint64_t head)
{
    if (watch_is_live(w))
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
        if (!w->bookmarks || w->ending || !watch_caught_up(w, head) ||
            rv < w->min_rv || stream_pending(w->stream) >= ws->high_water)
            continue;
        if (frames[w->format] == NULL)
            frames[w->format] = repr_bookmark_frame(
                repr_of(w->format), resource_type(ws->res), rv, false, now);
        watch_write(w, frames[w->format]);
        w->seen_rv = rv;
        ws->metrics->bookmarks_sent++;
    }
    for (unsigned f = 0; f < REPR_FORMATS; f++)
        rbuf_unref(frames[f]);
}

/* Arms the set's timer for its first deadline. */
static void watch_set_arm(struct watch_set *ws)
{
    struct deadline_item *first = deadline_first(&ws->deadlines);
    struct timeval tv;

    if (first == NULL) {
        event_del(ws->deadline_timer);
        return;
    }
    clock_until(first->at, &tv);
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
void watch_arm_deadline(struct watcher *w, int64_t timeout_seconds, double most)
{
    struct watch_set *ws = w->set;
    double seconds, t = ws->min_request_timeout;
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

static const struct resource_subscriber_ops watch_set_ops = {
    .dispatch = watch_set_dispatch,
    .bookmark = watch_set_bookmark,
    .relist_begin = watch_relist_begin,
    .relist_note = watch_relist_note,
    .relist_done = watch_relist_done,
    .reset = watch_relist_reset,
};

/* ---- a new watcher (watch_start.c) ---- */

struct watcher *watch_add(struct watch_set *ws, struct stream *s,
                          const char *ns, struct selector *sel, bool bookmarks,
                          uint8_t format, struct watch_grant *grant)
{
    struct watcher *w = xcalloc(1, sizeof(*w));

    rw_assert(ws != NULL);
    w->set = ws;
    w->stream = s;
    w->sel = sel;
    w->bookmarks = bookmarks;
    w->format = format;
    w->grant = grant;
    w->columns_due = repr_of(format)->kind == ACCEPT_TABLE;
    w->proto = stream_protocol(s) == 2 ? 1 : 0;
    w->deadline.index = SIZE_MAX;
    if (ns != NULL)
        w->ns = xstrdup(ns);

    LIST_INSERT_HEAD(&ws->watchers, w, link);
    ws->count[w->proto]++;
    stream_set_callbacks(s, watcher_drain_cb, watcher_close_cb, w);
    return w;
}
