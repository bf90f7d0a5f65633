/*
 * watcher.c: per-watcher verification and the fleet-wide counters (see
 * watcher.h).
 *
 * Data structure: the set owns one array of struct watcher (fixed
 * capacity, so watcher pointers stay valid) and a FIFO of oracle checks
 * waiting for the oracle (struct pending, 32 bytes each).  A watcher's
 * oracle position is `cursor`, an index into its filter's expected list:
 * every expected event before it has been received or counted lost.
 *
 * The line cache: every watcher of a selection receives the same bytes
 * for one change (the server encodes each event once), so each distinct
 * watch event line is scanned once for the whole set, not once per
 * watcher.  A set-associative table (LINES_SETS sets of LINES_WAYS
 * entries, the least recently used replaced) holds copies of recent
 * lines with what each says (struct line_info: type, key index, RV,
 * written-at, Status code) and a hint of where the key sits in the
 * receivers' views.  Entries are chained by succession (the line a
 * watcher received after this one), so a watcher usually finds its next
 * line by comparing it with the successor of its previous one; else with
 * the entry found last, else by a hash of all its bytes.  A hit is
 * always confirmed by comparing all the bytes.  A watcher's work per
 * event is then that compare, its checks and one view update.  Every check
 * still runs per watcher on what that watcher received: equal bytes scan to
 * equal results.
 *
 * Invariants:
 *  - last_rv never decreases except at a LIST (it becomes the LIST's RV);
 *  - a watcher's checks run in the order its events arrived: while any of
 *    them waits in the FIFO (w->pending > 0), later ones queue behind;
 *  - an event's check runs only when its revision is <= the oracle's
 *    known_rv, so the expected list is complete up to it (a LIST's or a
 *    BOOKMARK's does not wait: see pending_ready);
 *  - the FIFO is run from its head only, and stops at the first check
 *    that must still wait;
 *  - a line cache entry's info is line_scan of exactly its bytes (a key
 *    index, once interned, never changes); its view_hint, its next and a
 *    watcher's last_line are only guesses, checked before use (entries
 *    are replaced under them).
 */
#include "src/fleet/watcher.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/fleet/scan.h"
#include "src/log.h"

#define WATCHER_DEFAULT_RETRY 0.5
#define WATCHER_MAX_LINE (64u << 20) /* one event line, bytes */
#define WATCHER_MAX_LIST (1u << 30)  /* one LIST body, bytes */
#define WATCHER_MAX_ERROR_BODY 4096  /* kept of a non-200 body */
#define WATCHER_KEEP_BUFFER 16384    /* buffer capacity kept when idle */
#define WATCHER_LOG_MISMATCHES 5
#define WATCHER_LOG_FAILURES 5
#define LINES_SETS 1024     /* line cache sets (a power of two) */
#define LINES_WAYS 4        /* entries per set */
#define LINES_MAX_LEN 65536 /* longer lines are scanned, not cached */

enum watcher_state {
    WATCHER_NEW,      /* the leader LISTs; others wait for the filter's S0 */
    WATCHER_LISTING,  /* a LIST is in flight */
    WATCHER_READY,    /* view at last_rv: next, WATCH from it */
    WATCHER_WATCHING, /* a WATCH is in flight */
    WATCHER_RELIST,   /* must LIST again */
    WATCHER_DEAD,     /* terminated: nothing more */
};

/* Kinds of pending checks beyond enum event_type. */
enum {
    PENDING_BOOKMARK = EVENT_TYPE_MAX,
    PENDING_RESYNC,
};

struct watcher {
    struct watcher_set *set;
    struct filter *filter;
    uint32_t id;
    uint8_t state;
    bool backoff;        /* the next request waits retry_delay */
    bool relist;         /* the open WATCH carried ERROR: LIST next */
    bool line_error;     /* a line was over WATCHER_MAX_LINE: dropped */
    uint16_t status;     /* HTTP status of the response in progress */
    int64_t last_rv;     /* RV of the last event, bookmark or LIST */
    int64_t bookmark_rv; /* RV of the last bookmark; 0 */
    uint32_t last_key;   /* key of the last event; KEYS_NONE */
    uint32_t pending;    /* checks of this watcher in the FIFO */
    size_t cursor;       /* index into filter->expected */
    int64_t from_rv;     /* the verified range starts after this RV */
    uint32_t last_line;  /* index + 1 of the line cache entry of the last
                            line received; 0: none */
    struct view view;
    char *buf; /* partial line, LIST body or error body */
    uint32_t buf_len, buf_cap;
};

struct pending {
    uint32_t watcher;
    uint32_t key;
    int64_t rv;
    int64_t now_ns;
    uint8_t kind; /* enum event_type, PENDING_BOOKMARK, PENDING_RESYNC */
};

/* What one watch event line says, as watcher_line acts on it. */
struct line_info {
    enum scan_event_type type; /* SCAN_UNKNOWN also when the line did not
                                  scan or had no object */
    uint32_t key;       /* an event's object key index, when it has a name
                           and an RV > 0; else KEYS_NONE */
    uint32_t view_hint; /* where the last watcher found key in its view
                           (view_put_hint); UINT32_MAX: none */
    int64_t rv;         /* metadata.resourceVersion; -1 absent, invalid */
    int64_t written_at; /* unix ns; -1 absent, invalid */
    int64_t code;       /* ERROR: the Status's code */
};

/* One line cache entry: a line's bytes and what they say. */
struct line_slot {
    uint64_t hash; /* line_hash of the bytes */
    uint64_t used; /* lines_clock at the last lookup that found it; 0:
                      empty */
    char *bytes;
    uint32_t len, cap;
    uint32_t next; /* index + 1 of the entry a watcher received after
                      this one, last time; 0: none */
    struct line_info info;
};

struct watcher_set {
    struct watcher_set_config cfg;
    struct watcher *watchers;
    size_t n, capacity;
    bool released, stopping;
    int64_t list_rv;       /* resourceVersion of the initial LISTs */
    struct pending *queue; /* ring buffer */
    size_t q_head, q_len, q_cap;
    struct watcher_totals t;
    unsigned mismatches_logged;
    struct line_slot *lines;     /* LINES_SETS * LINES_WAYS; NULL until used */
    uint64_t lines_clock;        /* line lookups so far */
    struct line_slot *line_last; /* the entry found or filled last */
};

/* ==== set ==== */

struct watcher_set *watcher_set_new(const struct watcher_set_config *cfg,
                                    size_t capacity)
{
    struct watcher_set *ws = xcalloc(1, sizeof(*ws));

    ws->cfg = *cfg;
    if (ws->cfg.retry_delay <= 0)
        ws->cfg.retry_delay = WATCHER_DEFAULT_RETRY;
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
    if (ws->lines != NULL)
        for (size_t i = 0; i < LINES_SETS * LINES_WAYS; i++)
            free(ws->lines[i].bytes);
    free(ws->lines);
    free(ws->watchers);
    free(ws->queue);
    free(ws);
}

struct watcher *watcher_set_add(struct watcher_set *ws, struct filter *f)
{
    struct watcher *w;

    rw_assert(ws->n < ws->capacity);
    w = &ws->watchers[ws->n];
    w->set = ws;
    w->filter = f;
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
    *t = ws->t;
}

size_t watcher_set_footprint(const struct watcher_set *ws)
{
    size_t bytes = sizeof(*ws) + ws->capacity * sizeof(*ws->watchers) +
                   ws->q_cap * sizeof(*ws->queue);

    for (size_t i = 0; i < ws->n; i++)
        bytes +=
            view_footprint(&ws->watchers[i].view) + ws->watchers[i].buf_cap;
    if (ws->lines != NULL) {
        bytes += LINES_SETS * LINES_WAYS * sizeof(*ws->lines);
        for (size_t i = 0; i < LINES_SETS * LINES_WAYS; i++)
            bytes += ws->lines[i].cap;
    }
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

static const struct oracle_entry *expected_entry(const struct watcher *w,
                                                 size_t i)
{
    return oracle_entry(w->set->cfg.oracle,
                        filter_expected_entry(w->filter, i));
}

/* Counts as lost the expected events before revision rv (or up to it when
 * inclusive); those at or below from_rv (before the last LIST: the oracle
 * may report them after the LIST was checked) are passed silently. */
static void watcher_skip_to(struct watcher *w, int64_t rv, bool inclusive)
{
    const struct filter *f = w->filter;

    while (w->cursor < f->n_expected) {
        int64_t e = expected_entry(w, w->cursor)->rv;

        if (e > rv || (e == rv && !inclusive))
            break;
        if (e > w->from_rv)
            w->set->t.lost++;
        w->cursor++;
    }
}

/* DELETED latency: the oracle's stamp of the change, or the writer's send
 * time of a delete. */
static void watcher_delete_latency(struct watcher *w,
                                   const struct oracle_entry *e, int64_t now_ns)
{
    const struct watcher_set_config *cfg = &w->set->cfg;
    int64_t at = e->written_at;

    if (e->deleted)
        at = cfg->send_time ? cfg->send_time(e->rv, cfg->arg) : -1;
    if (at > 0 && cfg->latency)
        histogram_record(cfg->latency,
                         now_ns > at ? (uint64_t)(now_ns - at) : 0);
}

static void watcher_check_event(struct watcher *w, const struct pending *p)
{
    const struct filter *f = w->filter;
    const struct oracle_entry *e;
    size_t j;

    watcher_skip_to(w, p->rv, false);
    for (j = w->cursor; j < f->n_expected; j++) {
        e = expected_entry(w, j);
        if (e->rv != p->rv) {
            j = f->n_expected;
            break;
        }
        if (e->key == p->key)
            break;
    }
    if (j >= f->n_expected) {
        w->set->t.unexpected++;
        return;
    }
    /* Earlier changes of the same transaction that were passed over. */
    w->set->t.lost += j - w->cursor;
    w->cursor = j + 1;
    w->set->t.matched++;
    if (filter_expected_type(f, j) != (enum event_type)p->kind)
        w->set->t.wrong_type++;
    if (p->kind == EVENT_DELETED)
        watcher_delete_latency(w, expected_entry(w, j), p->now_ns);
}

/* A LIST at rv: the verified range starts after it, at the first
 * expected event after rv known so far (later ones the oracle reports at
 * or below rv are passed by watcher_skip_to). */
static void watcher_resync(struct watcher *w, int64_t rv)
{
    const struct filter *f = w->filter;
    size_t lo = 0, hi = f->n_expected;

    w->from_rv = rv;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (expected_entry(w, mid)->rv <= rv)
            lo = mid + 1;
        else
            hi = mid;
    }
    w->cursor = lo;
}

static void watcher_check(struct watcher *w, const struct pending *p)
{
    switch (p->kind) {
    case PENDING_RESYNC:
        watcher_resync(w, p->rv);
        break;
    case PENDING_BOOKMARK:
        /* Everything up to the bookmark was sent: what the oracle knows
         * of it and w lacks is lost (the rest shows at the end). */
        watcher_skip_to(w, RW_MIN(p->rv, oracle_known_rv(w->set->cfg.oracle)),
                        true);
        break;
    default:
        watcher_check_event(w, p);
        break;
    }
}

static void queue_push(struct watcher_set *ws, const struct pending *p)
{
    if (ws->q_len == ws->q_cap) {
        size_t cap = ws->q_cap ? ws->q_cap * 2 : 1024;
        struct pending *q = xmalloc(cap * sizeof(*q));

        for (size_t i = 0; i < ws->q_len; i++)
            q[i] = ws->queue[(ws->q_head + i) % ws->q_cap];
        free(ws->queue);
        ws->queue = q;
        ws->q_head = 0;
        ws->q_cap = cap;
    }
    ws->queue[(ws->q_head + ws->q_len) % ws->q_cap] = *p;
    ws->q_len++;
}

/* Whether check p can run: an event once the oracle knows its revision;
 * a LIST or BOOKMARK at once (their revision may be a store revision the
 * resource's changes never reach). */
static bool pending_ready(const struct pending *p, int64_t known)
{
    return p->kind == PENDING_RESYNC || p->kind == PENDING_BOOKMARK ||
           p->rv <= known;
}

/* Checks now when it can run and nothing of w waits; else queues.
 * Without an oracle there is nothing to check. */
static void watcher_verify(struct watcher *w, uint8_t kind, uint32_t key,
                           int64_t rv, int64_t now_ns)
{
    struct watcher_set *ws = w->set;
    struct pending p = {w->id, key, rv, now_ns, kind};

    if (ws->cfg.oracle == NULL)
        return;
    if (w->pending == 0 && pending_ready(&p, oracle_known_rv(ws->cfg.oracle))) {
        watcher_check(w, &p);
        return;
    }
    w->pending++;
    queue_push(ws, &p);
}

void watcher_set_advance(struct watcher_set *ws)
{
    int64_t known;

    if (ws->cfg.oracle == NULL)
        return;
    known = oracle_known_rv(ws->cfg.oracle);
    while (ws->q_len > 0) {
        struct pending *p = &ws->queue[ws->q_head];
        struct watcher *w = &ws->watchers[p->watcher];

        if (!pending_ready(p, known))
            break;
        w->pending--;
        watcher_check(w, p);
        ws->q_head = (ws->q_head + 1) % ws->q_cap;
        ws->q_len--;
    }
}

/* ==== event lines ==== */

/* The key index of an object's namespace/name, interned. */
static uint32_t watcher_key(struct watcher_set *ws, const struct scan_object *o)
{
    char ns[320], name[320];
    size_t ns_len, name_len;

    if (!o->ns.escaped && !o->name.escaped)
        return keys_intern(ws->cfg.keys, o->ns.p ? o->ns.p : "", o->ns.len,
                           o->name.p, o->name.len);
    ns_len = scan_str_decode(&o->ns, ns, sizeof(ns));
    name_len = scan_str_decode(&o->name, name, sizeof(name));
    return keys_intern(ws->cfg.keys, ns, RW_MIN(ns_len, sizeof(ns) - 1), name,
                       RW_MIN(name_len, sizeof(name) - 1));
}

/* Scans one event line into *li, interning an event's object key. */
static void line_scan(struct watcher_set *ws, const char *line, size_t len,
                      struct line_info *li)
{
    struct scan_event ev;
    const struct scan_object *o = &ev.object;

    memset(li, 0, sizeof(*li));
    li->type = SCAN_UNKNOWN;
    li->key = KEYS_NONE;
    li->rv = li->written_at = -1;
    li->view_hint = UINT32_MAX;
    ws->t.lines_scanned++;
    if (scan_event(line, len, SCAN_FAST, &ev) != 0 || !ev.has_object)
        return;
    li->type = ev.type;
    li->rv = o->rv;
    li->written_at = o->written_at;
    li->code = o->code;
    if ((ev.type == SCAN_ADDED || ev.type == SCAN_MODIFIED ||
         ev.type == SCAN_DELETED) &&
        o->name.p != NULL && o->rv > 0)
        li->key = watcher_key(ws, o);
}

static inline uint64_t line_rotl(uint64_t x, unsigned r)
{
    return x << r | x >> (64 - r);
}

static uint64_t line_word(const char *p)
{
    uint64_t w;

    memcpy(&w, p, sizeof(w));
    return w;
}

#define LINE_MIX(lane, word)                                                   \
    ((lane) = line_rotl(((lane) ^ (word)) * 0x9e3779b97f4a7c15ull, 29))

/*
 * A 64-bit hash of all len bytes: four independent multiply-rotate lanes
 * over 8-byte words (about a word per cycle), then the tail, the length
 * and a final avalanche.  Only picks the cache set and filters
 * candidates: a hit is always confirmed by comparing the bytes.
 */
static uint64_t line_hash(const char *p, size_t len)
{
    uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull;
    uint64_t c = 0xa4093822299f31d0ull, d = 0x082efa98ec4e6c89ull;
    uint64_t h = len, tail = 0;
    size_t i = 0;

    for (; i + 32 <= len; i += 32) {
        LINE_MIX(a, line_word(p + i));
        LINE_MIX(b, line_word(p + i + 8));
        LINE_MIX(c, line_word(p + i + 16));
        LINE_MIX(d, line_word(p + i + 24));
    }
    for (; i + 8 <= len; i += 8)
        LINE_MIX(a, line_word(p + i));
    memcpy(&tail, p + i, len - i);
    LINE_MIX(b, tail);
    LINE_MIX(h, a);
    LINE_MIX(h, b);
    LINE_MIX(h, c);
    LINE_MIX(h, d);
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    return h ^ (h >> 32);
}

static bool line_is(const struct line_slot *s, const char *line, size_t len)
{
    return s->used != 0 && s->len == len && memcmp(s->bytes, line, len) == 0;
}

/* The entry holding line (len <= LINES_MAX_LEN bytes), found by its hash
 * or, on a miss, made by scanning it into the least recently used entry
 * of its set. */
static struct line_slot *line_lookup(struct watcher_set *ws, const char *line,
                                     size_t len)
{
    uint64_t h = line_hash(line, len);
    struct line_slot *set = &ws->lines[(h & (LINES_SETS - 1)) * LINES_WAYS];
    struct line_slot *victim = set;

    for (size_t i = 0; i < LINES_WAYS; i++) {
        if (set[i].hash == h && line_is(&set[i], line, len))
            return &set[i];
        if (set[i].used < victim->used)
            victim = &set[i];
    }
    line_scan(ws, line, len, &victim->info);
    if (victim->cap < len) {
        free(victim->bytes);
        victim->cap = (uint32_t)RW_MAX(len, 256);
        victim->bytes = xmalloc(victim->cap);
    }
    memcpy(victim->bytes, line, len);
    victim->len = (uint32_t)len;
    victim->hash = h;
    victim->next = 0;
    return victim;
}

/*
 * What the line w received says, valid until the next call: from the
 * cache (lines over LINES_MAX_LEN bytes are scanned into tmp instead).
 * Watchers of one selection receive the same lines in the same order, so
 * the line that followed w's previous line for an earlier watcher is
 * tried first, then the entry found last (the watchers sharing a
 * connection often get one change back to back), then the hash: a
 * compare is cheaper than hashing.
 */
static struct line_info *line_get(struct watcher *w, const char *line,
                                  size_t len, struct line_info *tmp)
{
    struct watcher_set *ws = w->set;
    struct line_slot *prev = NULL, *s = NULL;

    if (len > LINES_MAX_LEN) {
        line_scan(ws, line, len, tmp);
        return tmp;
    }
    if (ws->lines == NULL)
        ws->lines = xcalloc(LINES_SETS * LINES_WAYS, sizeof(*ws->lines));
    if (w->last_line != 0) {
        prev = &ws->lines[w->last_line - 1];
        if (prev->next != 0 && line_is(&ws->lines[prev->next - 1], line, len))
            s = &ws->lines[prev->next - 1];
    }
    if (s == NULL && ws->line_last != NULL && line_is(ws->line_last, line, len))
        s = ws->line_last;
    if (s == NULL)
        s = line_lookup(ws, line, len);
    s->used = ++ws->lines_clock;
    ws->line_last = s;
    w->last_line = (uint32_t)(s - ws->lines) + 1;
    if (prev != NULL)
        prev->next = w->last_line;
    return &s->info;
}

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
    watcher_verify(w, (uint8_t)type, key, rv, now_ns);
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
                          struct line_info *li, int64_t now_ns)
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
    watcher_verify(w, PENDING_BOOKMARK, KEYS_NONE, rv, now_ns);
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
    return w->filter;
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
    struct line_info tmp, *li;

    if (w->relist)
        return; /* nothing may follow an ERROR */
    li = line_get(w, line, len, &tmp);
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
    watcher_verify(w, PENDING_RESYNC, KEYS_NONE, rv, 0);
}

enum watcher_next watcher_next(struct watcher *w, char *path, size_t cap,
                               double *delay)
{
    struct watcher_set *ws = w->set;
    struct filter *f = w->filter;

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
    view_put(&w->view, watcher_key(w->set, item), item->rv);
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
    struct filter *f = w->filter;
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
            w->state = w->filter->ready ? WATCHER_RELIST : WATCHER_NEW;
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
    const struct watcher_set *ws = w->set;
    const struct filter *f = w->filter;

    if (ws->cfg.oracle == NULL || target <= 0 || w->state == WATCHER_DEAD)
        return true;
    if (w->pending > 0)
        return false;
    if (w->bookmark_rv >= target)
        return true;
    if (w->state != WATCHER_WATCHING || w->status != 200 ||
        oracle_known_rv(ws->cfg.oracle) < target)
        return false;
    return w->cursor >= f->n_expected ||
           expected_entry(w, w->cursor)->rv > target;
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
    if (ws->cfg.oracle == NULL)
        return;
    watcher_set_advance(ws);
    ws->t.unverified += ws->q_len;
    for (size_t i = 0; i < ws->q_len; i++)
        ws->watchers[ws->queue[(ws->q_head + i) % ws->q_cap].watcher].pending--;
    ws->q_len = 0;
    for (size_t i = 0; i < ws->n; i++)
        watcher_skip_to(&ws->watchers[i], end_rv, true);
}

static void watcher_log_mismatch(struct watcher *w)
{
    const struct view *got = &w->view, *want = &w->filter->final;
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

        if (view_equal(&w->view, &w->filter->final))
            continue;
        ws->t.mismatched_views++;
        if (ws->mismatches_logged++ < WATCHER_LOG_MISMATCHES)
            watcher_log_mismatch(w);
    }
    return ws->t.mismatched_views;
}
