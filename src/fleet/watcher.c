/*
 * watcher.c: per-watcher verification and the fleet-wide counters (see
 * watcher.h).
 *
 * Data structure: the set owns one array of struct watcher (fixed
 * capacity, so watcher pointers stay valid: each embeds its cursor into
 * the oracle checks, verify.h), the checks' FIFO (verify.c) and the line
 * cache (line_cache.c: each distinct event line scanned once for all).
 * A watcher's work per event is then a compare of the line with a cached
 * one, its checks and one view update.
 *
 * Invariants: last_rv never decreases except at a LIST (it becomes the
 * LIST's RV); a watcher's checks run in the order its events arrived
 * (verify.h).
 */
#include "src/fleet/watcher.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/fleet/line_cache.h"
#include "src/fleet/scan.h"
#include "src/fleet/verify.h"
#include "src/log.h"

#define WATCHER_DEFAULT_RETRY 0.5
#define WATCHER_MAX_LINE (64u << 20) /* one event line, bytes */
#define WATCHER_MAX_LIST (1u << 30)  /* one LIST body, bytes */
#define WATCHER_MAX_ERROR_BODY 4096  /* kept of a non-200 body */
#define WATCHER_KEEP_BUFFER 16384    /* buffer capacity kept when idle */
#define WATCHER_LOG_MISMATCHES 5
#define WATCHER_LOG_FAILURES 5

enum watcher_state {
    WATCHER_NEW,      /* the leader LISTs; others wait for the filter's S0 */
    WATCHER_LISTING,  /* a LIST is in flight */
    WATCHER_READY,    /* view at last_rv: next, WATCH from it */
    WATCHER_WATCHING, /* a WATCH is in flight */
    WATCHER_RELIST,   /* must LIST again */
    WATCHER_DEAD,     /* terminated: nothing more */
};

struct watcher {
    struct watcher_set *set;
    struct verify_cursor checks; /* its filter and oracle checks */
    uint32_t id;
    uint8_t state;
    bool backoff;        /* the next request waits retry_delay */
    bool relist;         /* the open WATCH carried ERROR: LIST next */
    bool line_error;     /* a line was over WATCHER_MAX_LINE: dropped */
    uint16_t status;     /* HTTP status of the response in progress */
    int64_t last_rv;     /* RV of the last event, bookmark or LIST */
    int64_t bookmark_rv; /* RV of the last bookmark; 0 */
    uint32_t last_key;   /* key of the last event; KEYS_NONE */
    uint32_t last_line;  /* the line cache's state of this watcher */
    struct view view;
    char *buf; /* partial line, LIST body or error body */
    uint32_t buf_len, buf_cap;
};

struct watcher_set {
    struct watcher_set_config cfg;
    struct watcher *watchers;
    size_t n, capacity;
    bool released, stopping;
    int64_t list_rv;   /* resourceVersion of the initial LISTs */
    int64_t newest_rv; /* the highest event RV any watcher received */
    struct verify *verify;
    struct line_cache *lines;
    struct watcher_totals t; /* but verify's and the line cache's */
    unsigned mismatches_logged;
};

/* ==== set ==== */

struct watcher_set *watcher_set_new(const struct watcher_set_config *cfg,
                                    size_t capacity)
{
    struct watcher_set *ws = xcalloc(1, sizeof(*ws));
    struct verify_config vc = {cfg->oracle, cfg->latency, cfg->send_time,
                               cfg->arg};

    ws->cfg = *cfg;
    if (ws->cfg.retry_delay <= 0)
        ws->cfg.retry_delay = WATCHER_DEFAULT_RETRY;
    ws->verify = verify_new(&vc);
    ws->lines = line_cache_new(cfg->keys);
    ws->capacity = capacity;
    ws->watchers = xcalloc(capacity ? capacity : 1, sizeof(*ws->watchers));
    return ws;
}

void watcher_set_free(struct watcher_set *ws)
{
    if (ws == NULL)
        return;
    for (size_t i = 0; i < ws->n; i++) {
        view_fini(&ws->watchers[i].view);
        free(ws->watchers[i].buf);
    }
    line_cache_free(ws->lines);
    verify_free(ws->verify);
    free(ws->watchers);
    free(ws);
}

struct watcher *watcher_set_add(struct watcher_set *ws, struct filter *f)
{
    struct watcher *w;

    rw_assert(ws->n < ws->capacity);
    w = &ws->watchers[ws->n];
    w->set = ws;
    verify_cursor_init(&w->checks, f);
    w->id = (uint32_t)ws->n++;
    w->state = WATCHER_NEW;
    w->last_key = KEYS_NONE;
    view_init(&w->view);
    if (f->leader == NULL)
        f->leader = w;
    f->watchers++;
    return w;
}

size_t watcher_set_size(const struct watcher_set *ws)
{
    return ws->n;
}

struct watcher *watcher_set_at(struct watcher_set *ws, size_t i)
{
    rw_assert(i < ws->n);
    return &ws->watchers[i];
}

uint32_t watcher_id(const struct watcher *w)
{
    return w->id;
}

void watcher_set_release(struct watcher_set *ws)
{
    ws->released = true;
}

void watcher_set_list_from(struct watcher_set *ws, int64_t rv)
{
    ws->list_rv = rv;
}

void watcher_set_stop(struct watcher_set *ws)
{
    ws->stopping = true;
}

void watcher_set_totals(const struct watcher_set *ws, struct watcher_totals *t)
{
    struct verify_counts c;

    verify_counts(ws->verify, &c);
    *t = ws->t;
    t->matched = c.matched;
    t->lost = c.lost;
    t->unexpected = c.unexpected;
    t->wrong_type = c.wrong_type;
    t->unverified = c.unverified;
    t->lines_scanned = line_cache_scanned(ws->lines);
}

size_t watcher_set_footprint(const struct watcher_set *ws)
{
    size_t bytes = sizeof(*ws) + ws->capacity * sizeof(*ws->watchers) +
                   verify_footprint(ws->verify) +
                   line_cache_footprint(ws->lines);

    for (size_t i = 0; i < ws->n; i++)
        bytes +=
            view_footprint(&ws->watchers[i].view) + ws->watchers[i].buf_cap;
    return bytes;
}

/* ==== buffer ==== */

static void watcher_buf_add(struct watcher *w, const char *data, size_t len)
{
    if ((size_t)w->buf_len + len > w->buf_cap) {
        size_t cap = RW_MAX((size_t)w->buf_cap * 2, (size_t)w->buf_len + len);

        rw_assert(cap <= UINT32_MAX);
        w->buf = xrealloc(w->buf, cap);
        w->buf_cap = (uint32_t)cap;
    }
    memcpy(w->buf + w->buf_len, data, len);
    w->buf_len += (uint32_t)len;
}

/* Empties the buffer; gives back large ones. */
static void watcher_buf_reset(struct watcher *w)
{
    w->buf_len = 0;
    if (w->buf_cap > WATCHER_KEEP_BUFFER) {
        free(w->buf);
        w->buf = NULL;
        w->buf_cap = 0;
    }
}

/* ==== the oracle checks ==== */

void watcher_set_advance(struct watcher_set *ws)
{
    verify_advance(ws->verify);
}

/* ==== event lines ==== */

/* Applies an event to the view (hint: view_put_hint's, or NULL); counts
 * what cannot happen. */
static void watcher_apply(struct watcher *w, enum event_type type, uint32_t key,
                          int64_t rv, uint32_t *hint)
{
    uint32_t none = UINT32_MAX;
    int64_t old;

    if (hint == NULL)
        hint = &none;
    if (type == EVENT_DELETED) {
        old = view_remove_hint(&w->view, key, hint);
        if (old == 0)
            w->set->t.view_anomalies++;
        return;
    }
    old = view_put_hint(&w->view, key, rv, hint);
    if ((type == EVENT_ADDED) != (old == 0))
        w->set->t.view_anomalies++;
}

/* watcher_deliver with the view's position hint (or NULL). */
static void watcher_take(struct watcher *w, enum event_type type, uint32_t key,
                         int64_t rv, int64_t written_at, int64_t now_ns,
                         uint32_t *hint)
{
    struct watcher_set *ws = w->set;

    if (rv < w->last_rv) {
        ws->t.out_of_order++;
        return;
    }
    if (rv == w->last_rv && key == w->last_key) {
        ws->t.duplicated++;
        return;
    }
    w->last_rv = rv;
    w->last_key = key;
    watcher_apply(w, type, key, rv, hint);
    if (type != EVENT_DELETED && written_at > 0 && ws->cfg.latency)
        histogram_record(ws->cfg.latency, now_ns > written_at
                                              ? (uint64_t)(now_ns - written_at)
                                              : 0);
    if (rv > ws->newest_rv) {
        ws->newest_rv = rv;
        if (type != EVENT_DELETED && written_at > 0 && ws->cfg.first_latency)
            histogram_record(
                ws->cfg.first_latency,
                now_ns > written_at ? (uint64_t)(now_ns - written_at) : 0);
    }
    verify_check(w->set->verify, &w->checks, (uint8_t)type, key, rv, now_ns);
}

void watcher_deliver(struct watcher *w, enum event_type type, uint32_t key,
                     int64_t rv, int64_t written_at, int64_t now_ns)
{
    watcher_take(w, type, key, rv, written_at, now_ns, NULL);
}

void watcher_wire_events(struct watcher *w, uint64_t n)
{
    w->set->t.delivered += n;
}

void watcher_relevant_event(struct watcher *w, enum event_type type,
                            uint32_t key, int64_t rv, int64_t written_at,
                            int64_t now_ns)
{
    w->set->t.events[type]++;
    w->set->t.relevant++;
    watcher_deliver(w, type, key, rv, written_at, now_ns);
}

static void watcher_event(struct watcher *w, enum event_type type,
                          struct line_cache_info *li, int64_t now_ns)
{
    struct watcher_set *ws = w->set;

    ws->t.delivered++;
    ws->t.events[type]++;
    ws->t.relevant++;
    if (li->key == KEYS_NONE || li->rv <= 0) {
        ws->t.parse_errors++;
        return;
    }
    watcher_take(w, type, li->key, li->rv, li->written_at, now_ns,
                 &li->view_hint);
}

static void watcher_bookmark(struct watcher *w, int64_t rv, int64_t now_ns)
{
    struct watcher_set *ws = w->set;

    ws->t.bookmarks++;
    if (rv <= 0) {
        ws->t.parse_errors++;
        return;
    }
    if (rv < w->last_rv) {
        ws->t.bookmark_regressions++;
        return;
    }
    w->last_rv = rv;
    w->last_key = KEYS_NONE;
    w->bookmark_rv = rv;
    verify_check(w->set->verify, &w->checks, VERIFY_BOOKMARK, KEYS_NONE, rv,
                 now_ns);
}

void watcher_error(struct watcher *w, int code)
{
    if (code == 410)
        w->set->t.expired_410++;
    else
        w->set->t.error_events++;
    w->relist = true;
}

void watcher_terminate(struct watcher *w)
{
    if (w->state == WATCHER_DEAD)
        return;
    w->state = WATCHER_DEAD;
    w->set->t.terminated++;
}

int64_t watcher_last_rv(const struct watcher *w)
{
    return w->last_rv;
}

struct filter *watcher_filter(const struct watcher *w)
{
    return w->checks.filter;
}

bool watcher_is_listing(const struct watcher *w)
{
    return w->state == WATCHER_LISTING;
}

/* An ERROR event of the line (code 410: expired); the Status message is
 * scanned again for the log (rare). */
static void watcher_error_event(struct watcher *w, int64_t code,
                                const char *line, size_t len)
{
    struct scan_event ev;
    char msg[256] = "";

    if (code == 410) {
        w->set->t.expired_410++;
    } else {
        w->set->t.error_events++;
        if (scan_event(line, len, SCAN_FAST, &ev) == 0)
            scan_str_decode(&ev.object.message, msg, sizeof(msg));
        log_debug("watcher %u: ERROR event %" PRId64 ": %s", w->id, code, msg);
    }
    w->relist = true; /* as an informer: LIST again once the stream ends */
}

static void watcher_line(struct watcher *w, const char *line, size_t len,
                         int64_t now_ns)
{
    struct line_cache_info tmp, *li;

    if (w->relist)
        return; /* nothing may follow an ERROR */
    li = line_cache_get(w->set->lines, &w->last_line, line, len, &tmp);
    switch (li->type) {
    case SCAN_ADDED:
        watcher_event(w, EVENT_ADDED, li, now_ns);
        break;
    case SCAN_MODIFIED:
        watcher_event(w, EVENT_MODIFIED, li, now_ns);
        break;
    case SCAN_DELETED:
        watcher_event(w, EVENT_DELETED, li, now_ns);
        break;
    case SCAN_BOOKMARK:
        watcher_bookmark(w, li->rv, now_ns);
        break;
    case SCAN_ERROR:
        watcher_error_event(w, li->code, line, len);
        break;
    default: /* did not scan, no object, or an unknown type */
        w->set->t.parse_errors++;
        break;
    }
}

/* Splits watch body bytes into lines; a line cut by the read boundary
 * waits in w->buf. */
static void watcher_watch_data(struct watcher *w, const char *data, size_t len,
                               int64_t now_ns)
{
    while (len > 0) {
        const char *nl = memchr(data, '\n', len);
        size_t n;

        if (nl == NULL) {
            if ((size_t)w->buf_len + len > WATCHER_MAX_LINE) {
                w->line_error = true;
                watcher_buf_reset(w);
            } else if (!w->line_error) {
                watcher_buf_add(w, data, len);
            }
            return;
        }
        n = (size_t)(nl - data);
        if (w->line_error) {
            w->set->t.parse_errors++;
            w->line_error = false;
        } else if (w->buf_len > 0) {
            watcher_buf_add(w, data, n);
            watcher_line(w, w->buf, w->buf_len, now_ns);
            watcher_buf_reset(w);
        } else if (n > 0) {
            watcher_line(w, data, n, now_ns);
        }
        data = nl + 1;
        len -= n + 1;
    }
}

void watcher_data(struct watcher *w, const char *data, size_t len,
                  int64_t now_ns)
{
    if (w->state == WATCHER_WATCHING && w->status == 200) {
        watcher_watch_data(w, data, len, now_ns);
        return;
    }
    if (w->state == WATCHER_LISTING && w->status == 200) {
        if ((size_t)w->buf_len + len <= WATCHER_MAX_LIST)
            watcher_buf_add(w, data, len);
        else
            w->line_error = true;
        return;
    }
    if (w->buf_len + len <= WATCHER_MAX_ERROR_BODY)
        watcher_buf_add(w, data, len);
}

/* ==== requests ==== */

static void watcher_start_range(struct watcher *w, int64_t rv)
{
    w->last_rv = rv;
    w->last_key = KEYS_NONE;
    w->bookmark_rv = 0;
    verify_check(w->set->verify, &w->checks, VERIFY_RESYNC, KEYS_NONE, rv, 0);
}

enum watcher_next watcher_next(struct watcher *w, char *path, size_t cap,
                               double *delay)
{
    struct watcher_set *ws = w->set;
    struct filter *f = w->checks.filter;

    if (ws->stopping)
        return WATCHER_IDLE;
    if (w->backoff) {
        w->backoff = false;
        *delay = ws->cfg.retry_delay;
        return WATCHER_BACKOFF;
    }
    if (w->state == WATCHER_DEAD)
        return WATCHER_IDLE;
    if (w->state == WATCHER_NEW && (w != f->leader || f->ready)) {
        if (!f->ready)
            return WATCHER_IDLE;
        view_copy(&w->view, &f->s0);
        watcher_start_range(w, f->r0);
        w->state = WATCHER_READY;
    }
    switch (w->state) {
    case WATCHER_NEW:
        /* As client-go's reflector: the first LIST is served from the
         * watch cache (resourceVersion=0), not a consistent read; when the
         * fleet wrote the initial objects itself, not older than its last
         * write (watcher_set_list_from), so that they are in the list and
         * not delivered as ADDED events stamped before the watch. */
        snprintf(path, cap, "%s?resourceVersion=%" PRId64 "%s",
                 ws->cfg.collection, ws->list_rv, f->query);
        w->state = WATCHER_LISTING;
        break;
    case WATCHER_RELIST:
        snprintf(path, cap, "%s?%s", ws->cfg.collection,
                 f->query[0] ? f->query + 1 : "");
        w->state = WATCHER_LISTING;
        break;
    case WATCHER_READY:
        if (!ws->released)
            return WATCHER_IDLE;
        snprintf(path, cap,
                 "%s?watch=true&allowWatchBookmarks=true&resourceVersion="
                 "%" PRId64 "%s",
                 ws->cfg.collection, w->last_rv, f->query);
        w->state = WATCHER_WATCHING;
        break;
    default:
        return WATCHER_IDLE; /* a request is in flight */
    }
    w->status = 0;
    w->relist = false;
    w->line_error = false;
    watcher_buf_reset(w);
    return WATCHER_GET;
}

void watcher_begin(struct watcher *w, int status)
{
    w->status = (uint16_t)status;
    if (w->state == WATCHER_WATCHING && status == 200)
        w->set->t.watching++;
}

static void watcher_list_item_cb(const struct scan_object *item, void *arg)
{
    struct watcher *w = arg;

    if (item->name.p == NULL || item->rv <= 0) {
        w->line_error = true;
        return;
    }
    view_put(&w->view, line_cache_key(w->set->cfg.keys, item), item->rv);
}

/* A request failed: no response (transport) or a status other than 200
 * and 410 (logged, with the Status message, a few times). */
static void watcher_count_failure(struct watcher *w)
{
    struct watcher_set *ws = w->set;
    struct scan_object st;
    char msg[256] = "";

    if (ws->stopping)
        return;
    if (w->status == 0) {
        ws->t.transport_errors++;
        return;
    }
    if (ws->t.http_errors++ >= WATCHER_LOG_FAILURES)
        return;
    if (scan_object(w->buf, w->buf_len, &st) == 0)
        scan_str_decode(&st.message, msg, sizeof(msg));
    log_warnx("watcher %u: %s answered %u%s%s", w->id,
              w->state == WATCHER_LISTING ? "LIST" : "WATCH", w->status,
              msg[0] ? ": " : "", msg);
}

/* A LIST response ended; returns false when it must be retried. */
static bool watcher_list_done(struct watcher *w, bool clean)
{
    struct watcher_set *ws = w->set;
    struct filter *f = w->checks.filter;
    int64_t rv;

    if (!clean || w->status != 200) {
        watcher_count_failure(w);
        return false;
    }
    view_clear(&w->view);
    if (w->line_error ||
        scan_list(w->buf, w->buf_len, &rv, watcher_list_item_cb, w) != 0 ||
        w->line_error || rv <= 0) {
        ws->t.parse_errors++;
        return false;
    }
    ws->t.lists++;
    watcher_start_range(w, rv);
    if (!f->ready) {
        view_copy(&f->s0, &w->view);
        f->r0 = rv;
        f->ready = true;
        if (ws->cfg.on_list_ready)
            ws->cfg.on_list_ready(f, ws->cfg.arg);
    } else {
        ws->t.relists++;
    }
    return true;
}

static void watcher_watch_done(struct watcher *w, bool clean)
{
    struct watcher_set *ws = w->set;

    if (w->status == 200) {
        ws->t.watching--;
        if ((w->relist || !clean) && !ws->stopping)
            ws->t.watch_failures++;
        if (w->relist) {
            w->state = WATCHER_RELIST;
            return;
        }
        if (w->buf_len > 0 && clean && !ws->stopping)
            ws->t.parse_errors++; /* the stream ended inside a line */
        w->state = WATCHER_READY;
        if (clean)
            ws->t.rewatches++;
        else if (!ws->stopping)
            ws->t.transport_errors++;
        w->backoff = !clean;
        return;
    }
    if (w->status == 410) {
        ws->t.expired_410++;
        w->state = WATCHER_RELIST;
        return;
    }
    watcher_count_failure(w);
    w->state = WATCHER_READY;
    w->backoff = true;
}

void watcher_end(struct watcher *w, bool clean)
{
    if (w->state == WATCHER_LISTING) {
        if (watcher_list_done(w, clean)) {
            w->state = WATCHER_READY;
        } else {
            w->state = w->checks.filter->ready ? WATCHER_RELIST : WATCHER_NEW;
            w->backoff = true;
        }
    } else if (w->state == WATCHER_WATCHING) {
        watcher_watch_done(w, clean);
    } else if (w->state == WATCHER_DEAD) {
        return;
    }
    watcher_buf_reset(w);
    w->status = 0;
}

/* ==== the end ==== */

static bool watcher_caught_up(const struct watcher *w, int64_t target)
{
    const struct verify *vf = w->set->verify;

    if (!verify_enabled(vf) || target <= 0 || w->state == WATCHER_DEAD)
        return true;
    if (w->checks.pending > 0)
        return false;
    if (w->bookmark_rv >= target)
        return true;
    if (w->state != WATCHER_WATCHING || w->status != 200)
        return false;
    return verify_caught_up(vf, &w->checks, target);
}

bool watcher_set_caught_up(const struct watcher_set *ws, int64_t target)
{
    for (size_t i = 0; i < ws->n; i++)
        if (!watcher_caught_up(&ws->watchers[i], target))
            return false;
    return true;
}

size_t watcher_set_lagging(const struct watcher_set *ws, int64_t target)
{
    size_t n = 0;

    for (size_t i = 0; i < ws->n; i++)
        n += !watcher_caught_up(&ws->watchers[i], target);
    return n;
}

void watcher_set_finish(struct watcher_set *ws, int64_t end_rv)
{
    verify_finish(ws->verify);
    for (size_t i = 0; i < ws->n; i++)
        verify_finish_cursor(ws->verify, &ws->watchers[i].checks, end_rv);
}

static void watcher_log_mismatch(struct watcher *w)
{
    const struct view *got = &w->view, *want = &w->checks.filter->final;
    const struct keys *keys = w->set->cfg.keys;
    uint32_t shown = 0;

    log_info("watcher %u: view differs from etcd's final state: %u objects, "
             "want %u",
             w->id, view_count(got), view_count(want));
    for (uint32_t i = 0; i < want->n && shown < 3; i++) {
        int64_t rv = want->rvs[i], have;

        if (rv == 0 || (have = view_get(got, want->keys[i])) == rv)
            continue;
        log_info("  %s: resourceVersion %" PRId64 ", want %" PRId64,
                 keys_name(keys, want->keys[i]), have, rv);
        shown++;
    }
    for (uint32_t i = 0; i < got->n && shown < 3; i++) {
        if (got->rvs[i] == 0 || view_get(want, got->keys[i]) != 0)
            continue;
        log_info("  %s: present at %" PRId64 ", absent in etcd",
                 keys_name(keys, got->keys[i]), got->rvs[i]);
        shown++;
    }
}

uint64_t watcher_set_check_views(struct watcher_set *ws)
{
    for (size_t i = 0; i < ws->n; i++) {
        struct watcher *w = &ws->watchers[i];

        if (view_equal(&w->view, &w->checks.filter->final))
            continue;
        ws->t.mismatched_views++;
        if (ws->mismatches_logged++ < WATCHER_LOG_MISMATCHES)
            watcher_log_mismatch(w);
    }
    return ws->t.mismatched_views;
}
