/*
 * resource.c: one served resource type at run time (see resource.h).
 *
 * Ingest path: upstream value -> kjson_decode_object (once) ->
 * watchcache_put/delete (store + ring) -> on flush, the subscriber's
 * dispatch (the watch set's).  A relist builds a fresh store beside the
 * live one; list_end swaps it in with watchcache_replace, telling the
 * subscriber which objects changed in the gap so that only the watchers
 * that could have seen a change are ended with 410.
 *
 * Undecodable values: counted, logged once per key (up to a bound), never
 * served.  If such a value replaces an object we hold, the object leaves
 * the cache as a DELETED event at that revision: serving the old state
 * would claim a version the store no longer has.
 *
 * A reset of the store's history (resource_history_reset) starts a new
 * epoch: watchers ended, cache emptied, not ready until the next list.
 * reset_high remembers the highest revision any abandoned history showed,
 * for the life of the process: every revision up to it is lost
 * (resource_rv_lost).  One number holds every reset's interval: an
 * interval runs from the revision the store was restored to, which
 * nothing reports, up to what the old history showed, so it is known only
 * to end there, and the union of such intervals is [1, highest end].
 *
 * Catching up (resource_catch_up): after a warm start the cache is at an
 * older revision than the store and the upstream watch replays the
 * history since.  catchup_rev is the store's revision then; the cache is
 * caught up once its revision reaches it.  A resource without changes
 * near the end of the replay would only get there with the store's next
 * progress notification (etcd: every 10 minutes by default), so the
 * resource proves it itself: a probe (upstream.h) that finds nothing
 * changed under its prefix since the cache's revision s up to the
 * store's R, while the cache is still at s when the answer comes, proves
 * the cache's state is the store's at R (as for a consistent read,
 * fresh.h): caught up (catchup_proven).  The probe does NOT move the
 * cache's revision to R: a key created and deleted after s leaves no
 * trace in it, and its two events, still to come from the replay, would
 * then be dropped as older than the cache.  One probe at a time, a new
 * one CATCHUP_PROBE_INTERVAL seconds after a probe that found changes
 * (the replay delivers them meanwhile).
 */
#include "src/resource.h"

#include <event2/event.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cache/clock.h"
#include "cache/ring.h"
#include "cache/rw.h"
#include "proto/kjson_decode.h"
#include "src/log.h"
#include "src/metrics_resource.h"
#include "src/upstream.h"

/* Seconds between two probes that look for the end of a replay. */
#define CATCHUP_PROBE_INTERVAL 0.25

/* Keys whose undecodable values have been logged, bounded. */
#define LOGGED_KEYS_MAX 4096

/* A sorted set of keys (few: undecodable values are rare). */
struct keyset {
    char **keys;
    size_t n;
};

/* Where key is, or would be inserted; *found says which. */
static size_t keyset_find(const struct keyset *ks, const char *key, size_t len,
                          bool *found)
{
    size_t lo = 0, hi = ks->n;

    *found = false;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        size_t klen = strlen(ks->keys[mid]);
        int c = memcmp(ks->keys[mid], key, RW_MIN(klen, len));

        if (c == 0 && klen == len) {
            *found = true;
            return mid;
        }
        if (c < 0 || (c == 0 && klen < len))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void keyset_add(struct keyset *ks, const char *key, size_t len)
{
    bool found;
    size_t at = keyset_find(ks, key, len, &found);

    if (found)
        return;
    ks->keys = xrealloc(ks->keys, (ks->n + 1) * sizeof(char *));
    memmove(ks->keys + at + 1, ks->keys + at, (ks->n - at) * sizeof(char *));
    ks->keys[at] = xstrndup(key, len);
    ks->n++;
}

static void keyset_remove(struct keyset *ks, const char *key, size_t len)
{
    bool found;
    size_t at = keyset_find(ks, key, len, &found);

    if (!found)
        return;
    free(ks->keys[at]);
    memmove(ks->keys + at, ks->keys + at + 1,
            (ks->n - at - 1) * sizeof(char *));
    ks->n--;
}

/* Keys starting with prefix. */
static size_t keyset_count_prefix(const struct keyset *ks, const char *prefix,
                                  size_t len)
{
    bool found;
    size_t at = keyset_find(ks, prefix, len, &found), n = 0;

    while (at + n < ks->n && strncmp(ks->keys[at + n], prefix, len) == 0)
        n++;
    return n;
}

static void keyset_clear(struct keyset *ks)
{
    for (size_t i = 0; i < ks->n; i++)
        free(ks->keys[i]);
    free(ks->keys);
    ks->keys = NULL;
    ks->n = 0;
}

struct resource {
    struct event_base *base;
    const struct resource_type *rt;
    struct resource_config cfg;
    struct watchcache *wc;
    struct store *listing; /* the (re)list being received, or NULL */
    const struct resource_subscriber_ops *sub; /* never NULL */
    void *sub_arg;
    void (*changed)(void *arg); /* resource_observe, or NULL */
    void *changed_arg;
    uint64_t changed_seq; /* ring head seq the observer last saw */
    struct event *bookmark_timer;
    struct metrics_resource metrics;
    const struct upstream_reader *reader;
    struct keyset bad;         /* keys whose stored value is undecodable */
    struct keyset listing_bad; /* the same, of the list being received */
    LIST_HEAD(, rv_waiter) waiters; /* resource_wait, unordered */
    bool listed;               /* a list was ever complete */
    uint64_t epoch;            /* store history resets seen */
    int64_t reset_high;        /* highest revision of a reset history */
    bool in_lost;              /* the cache's revision is a lost one */
    int64_t catchup_rev;       /* the store's at a warm start; 0: none */
    int64_t catchup_since;     /* the cache's revision the probe is from */
    double catchup_started;    /* monotonic seconds; 0: caught up */
    bool catchup_proven;       /* a probe proved the state the store's */
    struct event *catchup_timer; /* the next probe */
    /* the probe in flight */
    struct upstream_read *catchup_read;
    struct keyset logged;      /* keys logged, for the log-once rule */
};

/* The subscriber of a resource that has none: tells nobody. */
static void nobody(void *arg)
{
}

static void nobody_note(void *arg, const struct object *old,
                        const struct object *new_obj)
{
}

static void nobody_reset(void *arg, int64_t rev)
{
}

static const struct resource_subscriber_ops no_subscriber = {
    .dispatch = nobody,
    .bookmark = nobody,
    .relist_begin = nobody,
    .relist_note = nobody_note,
    .relist_done = nobody,
    .reset = nobody_reset,
};

static void resource_bookmark_cb(evutil_socket_t fd, short what, void *arg)
{
    struct resource *r = arg;

    r->sub->bookmark(r->sub_arg);
}

static void resource_catchup_cb(evutil_socket_t fd, short what, void *arg);
static void resource_catchup_stop(struct resource *r);
static void resource_catchup_check(struct resource *r);

struct resource *resource_new(struct event_base *base,
                              const struct resource_type *rt,
                              const struct resource_config *cfg)
{
    struct resource *r = xcalloc(1, sizeof(*r));
    struct timeval tv = rw_timeval(cfg->bookmark_interval);

    r->base = base;
    r->rt = rt;
    r->cfg = *cfg;
    r->wc = watchcache_new(cfg->ring_events, cfg->ring_bytes);
    r->sub = &no_subscriber;
    LIST_INIT(&r->waiters);
    r->bookmark_timer =
        event_new(base, -1, EV_PERSIST, resource_bookmark_cb, r);
    event_add(r->bookmark_timer, &tv);
    r->catchup_timer = evtimer_new(base, resource_catchup_cb, r);
    return r;
}

void resource_free(struct resource *r)
{
    if (r == NULL)
        return;
    rw_assert(LIST_EMPTY(&r->waiters)); /* their streams are gone */
    rw_assert(r->sub == &no_subscriber);
    keyset_clear(&r->bad);
    keyset_clear(&r->listing_bad);
    event_free(r->bookmark_timer);
    resource_catchup_stop(r);
    event_free(r->catchup_timer);
    store_free(r->listing);
    watchcache_free(r->wc);
    keyset_clear(&r->logged);
    free(r);
}

const struct resource_type *resource_type(const struct resource *r)
{
    return r->rt;
}

struct event_base *resource_base(const struct resource *r)
{
    return r->base;
}

struct watchcache *resource_cache(const struct resource *r)
{
    return r->wc;
}

struct metrics_resource *resource_metrics(struct resource *r)
{
    return &r->metrics;
}

bool resource_ready(const struct resource *r)
{
    return watchcache_initialized(r->wc) && r->listing == NULL;
}

int64_t resource_rv(const struct resource *r)
{
    return watchcache_initialized(r->wc) ? watchcache_rv(r->wc) : 0;
}

/* ---- the subscriber ---- */

void resource_subscribe(struct resource *r,
                        const struct resource_subscriber_ops *ops, void *arg)
{
    rw_assert(r->sub == &no_subscriber && ops != NULL);
    r->sub = ops;
    r->sub_arg = arg;
}

void resource_unsubscribe(struct resource *r)
{
    r->sub = &no_subscriber;
    r->sub_arg = NULL;
}

void *resource_subscriber(const struct resource *r,
                          const struct resource_subscriber_ops *ops)
{
    return r->sub == ops ? r->sub_arg : NULL;
}

void resource_observe(struct resource *r, void (*changed)(void *arg),
                      void *arg)
{
    r->changed = changed;
    r->changed_arg = arg;
    r->changed_seq = ring_head_seq(watchcache_ring(r->wc));
}

/* Tells the observer, if any, when forced or when the ring moved. */
static void resource_tell_observer(struct resource *r, bool force)
{
    uint64_t seq = ring_head_seq(watchcache_ring(r->wc));

    if (r->changed == NULL || (!force && seq == r->changed_seq))
        return;
    r->changed_seq = seq;
    r->changed(r->changed_arg);
}

/* ---- upstream reads and waiters ---- */

void resource_set_reader(struct resource *r, const struct upstream_reader *rd)
{
    resource_catchup_stop(r); /* its read belongs to the old reader */
    r->reader = rd;
    if (rd != NULL && r->catchup_rev > 0)
        event_active(r->catchup_timer, EV_TIMEOUT, 0);
}

const struct upstream_reader *resource_reader(const struct resource *r)
{
    return r->reader;
}

size_t resource_undecodable_under(const struct resource *r, const char *prefix,
                                  size_t len)
{
    return keyset_count_prefix(&r->bad, prefix, len);
}

void resource_wait(struct resource *r, struct rv_waiter *w)
{
    rw_assert(!w->waiting);
    w->waiting = true;
    LIST_INSERT_HEAD(&r->waiters, w, link);
}

void resource_unwait(struct resource *r, struct rv_waiter *w)
{
    if (!w->waiting)
        return;
    LIST_REMOVE(w, link);
    w->waiting = false;
}

/* Runs the waiters the cache's revision has reached (every waiter, with
 * all).  A waiter's fn may add or remove waiters: restart the walk after
 * each call. */
static void resource_wake(struct resource *r, bool all)
{
    int64_t rv = resource_rv(r);
    struct rv_waiter *w;
    size_t bound = 0;

    LIST_FOREACH(w, &r->waiters, link)
        bound++;
again:
    for (w = LIST_FIRST(&r->waiters); w != NULL && bound > 0;
         w = LIST_NEXT(w, link)) {
        if (all || (w->rv <= rv && resource_ready(r))) {
            resource_unwait(r, w);
            bound--;
            w->fn(w, w->arg);
            goto again;
        }
    }
}

/* ---- decoding ---- */

/* Logs an undecodable value once per key (up to LOGGED_KEYS_MAX keys). */
static void resource_note_undecodable(struct resource *r, const char *key,
                                      size_t key_len, const char *why)
{
    size_t len = strnlen(key, key_len); /* as logged: up to a NUL */
    bool found;

    r->metrics.undecodable++;
    keyset_find(&r->logged, key, len, &found);
    if (found || r->logged.n == LOGGED_KEYS_MAX)
        return;
    keyset_add(&r->logged, key, len);
    log_warnx("%s: skipping %.*s: %s (logged once per key)", r->rt->resource,
              (int)len, key, why);
}

static struct object *resource_decode(struct resource *r, const char *key,
                                      size_t key_len, const void *value,
                                      size_t value_len, int64_t rv)
{
    struct object *obj = NULL;
    const char *why = NULL;

    if (kjson_decode_object(r->rt, key, key_len, value, value_len, rv, &obj,
                            &why) != RW_OK) {
        resource_note_undecodable(r, key, key_len, why ? why : "undecodable");
        return NULL;
    }
    return obj;
}

/* ---- lists ---- */

void resource_list_begin(struct resource *r)
{
    store_free(r->listing);
    r->listing = store_new();
    keyset_clear(&r->listing_bad);
}

void resource_list_item(struct resource *r, const char *key, size_t key_len,
                        const void *value, size_t value_len, int64_t mod_rev)
{
    struct object *obj;

    rw_assert(r->listing != NULL);
    if ((obj = resource_decode(r, key, key_len, value, value_len, mod_rev)))
        object_unref(store_put(r->listing, obj));
    else
        keyset_add(&r->listing_bad, key, key_len);
}

static void resource_relist_diff_cb(struct object *old, struct object *new_obj,
                                    void *arg)
{
    struct resource *r = arg;

    r->sub->relist_note(r->sub_arg, old, new_obj);
}

/* Says when the cache's revision enters the lost revisions (a list after
 * a reset, the store not past them) and when it leaves them: in between,
 * every revision the cache can vouch for is lost, so clients that list and
 * watch relist (src/watch.h). */
static void resource_note_lost(struct resource *r)
{
    int64_t rv = watchcache_rv(r->wc);

    if (!r->in_lost && resource_ready(r) && resource_rv_lost(r, rv)) {
        r->in_lost = true;
        log_warnx("%s: listed at revision %" PRId64 ", below what the "
                  "abandoned history reached (%" PRId64 "): revisions up "
                  "to it are lost and a watch from one gets 410, so "
                  "informers that list before the store writes past it "
                  "relist about once a second",
                  r->rt->resource, rv, r->reset_high);
    } else if (r->in_lost && !resource_rv_lost(r, rv)) {
        r->in_lost = false;
        log_info("%s: at revision %" PRId64 ", past the abandoned history's "
                 "%" PRId64 ": every revision served from now on can be "
                 "watched from",
                 r->rt->resource, rv, r->reset_high);
    }
}

void resource_list_end(struct resource *r, int64_t rev)
{
    bool relist = watchcache_initialized(r->wc);
    struct store *fresh = r->listing;

    rw_assert(fresh != NULL);
    r->listing = NULL;
    keyset_clear(&r->bad);
    r->bad = r->listing_bad;
    r->listing_bad = (struct keyset){0};
    if (r->listed)
        r->metrics.relists++;
    log_info("%s: %s at revision %" PRId64 ": %zu objects", r->rt->resource,
             r->listed ? "relisted" : "listed", rev, store_count(fresh));
    r->listed = true;
    if (relist)
        r->sub->relist_begin(r->sub_arg);
    watchcache_replace(r->wc, fresh, rev,
                       relist ? resource_relist_diff_cb : NULL, r);
    if (r->catchup_started != 0 && rev < r->catchup_rev)
        log_info("%s: replaying the store's history from revision %" PRId64
                 " to %" PRId64 " (warm start)",
                 r->rt->resource, rev, r->catchup_rev);
    if (relist)
        r->sub->relist_done(r->sub_arg);
    resource_note_lost(r);
    resource_tell_observer(r, true);
    resource_wake(r, false);
}

void resource_list_abort(struct resource *r)
{
    store_free(r->listing);
    r->listing = NULL;
    keyset_clear(&r->listing_bad);
}

/* ---- the store's history ---- */

const char *resource_reset_name(enum resource_reset why)
{
    static const char *const names[RESOURCE_RESET_MAX] = {
        [RESOURCE_RESET_REVISION] = "revision",
        [RESOURCE_RESET_IDENTITY] = "identity",
    };

    rw_assert(why < RESOURCE_RESET_MAX);
    return names[why];
}

void resource_history_reset(struct resource *r, enum resource_reset why,
                            int64_t old_rev, int64_t new_rev)
{
    _Static_assert(
        RESOURCE_RESET_MAX ==
            RW_ARRAY_LEN(((struct metrics_resource *)0)->store_resets),
        "one counter per reason");
    rw_assert(why < RESOURCE_RESET_MAX);
    r->metrics.store_resets[why]++;
    r->reset_high =
        RW_MAX(r->reset_high, RW_MAX(old_rev, watchcache_rv(r->wc)));
    resource_catchup_stop(r);
    r->catchup_rev = 0; /* a revision of the abandoned history */
    r->catchup_proven = false;
    r->epoch++;
    r->in_lost = false;
    resource_list_abort(r);
    r->sub->reset(r->sub_arg, new_rev);
    keyset_clear(&r->bad);
    watchcache_reset(r->wc);
    log_debug("%s: cache emptied after the store's history was reset; "
              "not ready until it is listed again",
              r->rt->resource);
    resource_tell_observer(r, true);
    resource_wake(r, true);
}

uint64_t resource_epoch(const struct resource *r)
{
    return r->epoch;
}

bool resource_rv_lost(const struct resource *r, int64_t rv)
{
    return rv > 0 && rv <= r->reset_high;
}

int64_t resource_lost_rv(const struct resource *r)
{
    return r->reset_high;
}

/* ---- catching up after a warm start ---- */

bool resource_caught_up(const struct resource *r)
{
    return resource_ready(r) &&
           (watchcache_rv(r->wc) >= r->catchup_rev || r->catchup_proven);
}

int64_t resource_catchup_rev(const struct resource *r)
{
    return r->catchup_rev;
}

/* Cancels the probe in flight and the timer. */
static void resource_catchup_stop(struct resource *r)
{
    if (r->catchup_read != NULL && r->reader != NULL)
        r->reader->cancel(r->reader->ctx, r->catchup_read);
    r->catchup_read = NULL;
    event_del(r->catchup_timer);
}

/* Caught up at the store's revision rev: said once. */
static void resource_catchup_done(struct resource *r, int64_t rev)
{
    resource_catchup_stop(r);
    resource_tell_observer(r, true); /* the state it may rely on now */
    log_info("%s: caught up with the store at revision %" PRId64
             " (warm start: %" PRIu64 " events replayed in %.3f s%s)",
             r->rt->resource, rev, r->metrics.events_replayed,
             clock_mono_s() - r->catchup_started,
             r->catchup_proven ? "; the rest of the state proven unchanged"
                               : "");
    r->catchup_started = 0;
}

/* After a change of revision: done when caught up, else a probe is due
 * unless one is in flight or waiting. */
static void resource_catchup_check(struct resource *r)
{
    struct timeval tv = rw_timeval(CATCHUP_PROBE_INTERVAL);

    if (r->catchup_rev == 0 || r->catchup_started == 0 || !resource_ready(r))
        return;
    if (watchcache_rv(r->wc) >= r->catchup_rev) {
        resource_catchup_done(r, watchcache_rv(r->wc));
        return;
    }
    if (r->catchup_read == NULL && !evtimer_pending(r->catchup_timer, NULL))
        evtimer_add(r->catchup_timer, &tv);
}

static void resource_catchup_probe_cb(int err, const char *why,
                                      const struct upstream_probe *p, void *arg)
{
    struct resource *r = arg;

    r->catchup_read = NULL;
    if (err == RW_OK && p->unchanged && resource_ready(r) &&
        watchcache_rv(r->wc) == r->catchup_since &&
        p->rev >= r->catchup_rev) {
        r->catchup_proven = true;
        resource_catchup_done(r, p->rev);
        return;
    }
    resource_catchup_check(r);
}

static void resource_catchup_cb(evutil_socket_t fd, short what, void *arg)
{
    struct resource *r = arg;
    struct timeval tv = rw_timeval(CATCHUP_PROBE_INTERVAL);
    char *prefix;

    if (r->catchup_started == 0 || !resource_ready(r) ||
        r->catchup_read != NULL)
        return;
    if (watchcache_rv(r->wc) >= r->catchup_rev) {
        resource_catchup_check(r);
        return;
    }
    if (r->reader == NULL) {
        evtimer_add(r->catchup_timer, &tv);
        return;
    }
    prefix = resource_type_ns_prefix(r->rt, NULL);
    r->catchup_since = watchcache_rv(r->wc);
    r->catchup_read = r->reader->probe(
        r->reader->ctx, prefix, strlen(prefix), r->catchup_since,
        store_count(watchcache_store(r->wc)) + r->bad.n,
        resource_catchup_probe_cb, r);
    free(prefix);
    if (r->catchup_read != NULL)
        r->metrics.probes++;
    else
        evtimer_add(r->catchup_timer, &tv);
}

void resource_catch_up(struct resource *r, int64_t store_rev)
{
    if (r->listing == NULL)
        return;
    r->catchup_rev = store_rev;
    r->catchup_proven = false;
    r->catchup_started = clock_mono_s();
    resource_catchup_stop(r);
    event_active(r->catchup_timer, EV_TIMEOUT, 0); /* after list_end */
}

/* ---- changes ---- */

void resource_put(struct resource *r, const char *key, size_t key_len,
                  const void *value, size_t value_len, int64_t mod_rev)
{
    struct object *obj;

    /* A replay after a resume; equal revisions are one transaction's keys. */
    if (mod_rev < watchcache_rv(r->wc))
        return;
    r->metrics.events_received++;
    if (mod_rev <= r->catchup_rev)
        r->metrics.events_replayed++;
    obj = resource_decode(r, key, key_len, value, value_len, mod_rev);
    if (obj != NULL)
        keyset_remove(&r->bad, key, key_len);
    if (obj == NULL) {
        keyset_add(&r->bad, key, key_len);
        /* Never keep serving a state the store has replaced. */
        if (store_get(watchcache_store(r->wc), key, key_len) != NULL)
            watchcache_delete(r->wc, key, key_len, mod_rev);
        else
            watchcache_progress(r->wc, mod_rev);
        return;
    }
    watchcache_put(r->wc, obj);
}

void resource_delete(struct resource *r, const char *key, size_t key_len,
                     int64_t mod_rev)
{
    if (mod_rev < watchcache_rv(r->wc))
        return;
    r->metrics.events_received++;
    if (mod_rev <= r->catchup_rev)
        r->metrics.events_replayed++;
    keyset_remove(&r->bad, key, key_len);
    watchcache_delete(r->wc, key, key_len, mod_rev);
}

void resource_progress(struct resource *r, int64_t rev)
{
    watchcache_progress(r->wc, rev);
    if (r->in_lost)
        resource_note_lost(r);
    resource_catchup_check(r);
    resource_wake(r, false);
}

void resource_flush(struct resource *r)
{
    r->sub->dispatch(r->sub_arg);
    resource_tell_observer(r, false);
    if (r->in_lost)
        resource_note_lost(r);
    resource_catchup_check(r);
    resource_wake(r, false);
}

void resource_note_reconnect(struct resource *r)
{
    r->metrics.reconnects++;
}
