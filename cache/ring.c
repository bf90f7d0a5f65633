/*
 * ring.c: the event window of one resource (see ring.h).
 *
 * Data structure: a circular array of struct ring_event held by value.  The
 * oldest event sits in slots[start] and has seq tail; event seq s sits in
 * slots[(start + s - tail) % cap]; head = tail + len.  The array is grown
 * geometrically on demand up to max_events slots, so a large configured
 * capacity costs memory only once the events exist.
 *
 * Invariants: len <= max_events; bytes == sum of ring_event_bytes() of the held
 * events and bytes <= max_bytes unless len == 1 (the newest event is always
 * kept); rvs never decrease from tail to head (several events share a
 * revision when one transaction wrote several keys); seqs never go back, not
 * even across ring_clear.  Each held event owns one reference to each of
 * obj, prev and gone; they are dropped when the event leaves.  gone is made
 * by ring_event_view, the first time a selection sees the event as DELETED.
 */
#include "cache/ring.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/selector.h"

#define RING_MIN_SLOTS 16

struct ring {
    struct ring_event *slots;
    size_t cap;   /* slots allocated, <= max_events */
    size_t start; /* slot of the oldest event */
    size_t len;   /* events held */
    size_t max_events;
    size_t max_bytes;
    size_t bytes;       /* sum of ring_event_bytes of the held events */
    uint64_t tail;      /* seq of the oldest event */
    uint64_t evictions; /* events dropped to respect a bound */
    int64_t evicted_rv; /* rv of the last event evicted since ring_clear */
};

size_t ring_event_bytes(const struct ring_event *ev)
{
    return ev->obj->json->len;
}

bool ring_event_selects(const struct object *o, const char *ns,
                        const struct selector *sel)
{
    if (ns != NULL && strcmp(o->ns, ns) != 0)
        return false;
    return selector_matches(sel, o);
}

struct object *ring_event_view(struct ring_event *ev, const char *ns,
                               const struct selector *sel,
                               enum event_type *type)
{
    bool now, before;

    *type = ev->type;
    if (ns == NULL && sel == NULL)
        return ev->obj;
    if (ev->type != EVENT_MODIFIED)
        return ring_event_selects(ev->obj, ns, sel) ? ev->obj : NULL;
    now = ring_event_selects(ev->obj, ns, sel);
    before = ring_event_selects(ev->prev, ns, sel);
    if (now) {
        *type = before ? EVENT_MODIFIED : EVENT_ADDED;
        return ev->obj;
    }
    if (!before)
        return NULL;
    /* Leaves the selection: DELETED with the old content at this RV. */
    if (ev->gone == NULL)
        ev->gone = object_with_rv(ev->prev, ev->rv);
    *type = EVENT_DELETED;
    return ev->gone;
}

static struct ring_event *slot(const struct ring *r, size_t i)
{
    return &r->slots[(r->start + i) % r->cap];
}

struct ring *ring_new(size_t max_events, size_t max_bytes)
{
    struct ring *r = xcalloc(1, sizeof(*r));

    rw_assert(max_events >= 1 && max_bytes >= 1);
    r->max_events = max_events;
    r->max_bytes = max_bytes;
    return r;
}

/* Removes the oldest event and drops its references. */
static void drop_oldest(struct ring *r)
{
    struct ring_event *ev = slot(r, 0);

    r->bytes -= ring_event_bytes(ev);
    object_unref(ev->obj);
    object_unref(ev->prev);
    object_unref(ev->gone);
    memset(ev, 0, sizeof(*ev));
    r->start = (r->start + 1) % r->cap;
    r->len--;
    r->tail++;
}

void ring_clear(struct ring *r)
{
    while (r->len > 0)
        drop_oldest(r);
    r->start = 0;
    r->evicted_rv = 0;
}

void ring_free(struct ring *r)
{
    if (r == NULL)
        return;
    ring_clear(r);
    free(r->slots);
    free(r);
}

/* Doubles the slot array (at most to max_events), oldest event first. */
static void grow(struct ring *r)
{
    size_t cap = r->cap ? r->cap * 2 : RING_MIN_SLOTS;
    struct ring_event *slots;

    if (cap > r->max_events || cap < r->cap)
        cap = r->max_events;
    slots = xmalloc(cap * sizeof(*slots));
    for (size_t i = 0; i < r->len; i++)
        slots[i] = *slot(r, i);
    free(r->slots);
    r->slots = slots;
    r->cap = cap;
    r->start = 0;
}

size_t ring_push(struct ring *r, const struct ring_event *ev)
{
    size_t evicted = 0;

    rw_assert(ev->obj != NULL);
    rw_assert(r->len == 0 || ev->rv >= slot(r, r->len - 1)->rv);
    if (r->len == r->cap) {
        if (r->cap < r->max_events) {
            grow(r);
        } else {
            r->evicted_rv = slot(r, 0)->rv;
            drop_oldest(r);
            evicted++;
        }
    }
    *slot(r, r->len) = *ev;
    r->len++;
    r->bytes += ring_event_bytes(ev);
    while (r->len > r->max_events || (r->bytes > r->max_bytes && r->len > 1)) {
        r->evicted_rv = slot(r, 0)->rv;
        drop_oldest(r);
        evicted++;
    }
    r->evictions += evicted;
    return evicted;
}

uint64_t ring_head_seq(const struct ring *r)
{
    return r->tail + r->len;
}

uint64_t ring_tail_seq(const struct ring *r)
{
    return r->tail;
}

struct ring_event *ring_get(const struct ring *r, uint64_t seq)
{
    if (seq < r->tail || seq - r->tail >= r->len)
        return NULL;
    return slot(r, (size_t)(seq - r->tail));
}

uint64_t ring_seq_after(const struct ring *r, int64_t after_rv)
{
    size_t lo = 0, hi = r->len;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (slot(r, mid)->rv > after_rv)
            hi = mid;
        else
            lo = mid + 1;
    }
    return r->tail + lo;
}

size_t ring_len(const struct ring *r)
{
    return r->len;
}

size_t ring_bytes(const struct ring *r)
{
    return r->bytes;
}

size_t ring_max_events(const struct ring *r)
{
    return r->max_events;
}

size_t ring_max_bytes(const struct ring *r)
{
    return r->max_bytes;
}

int64_t ring_oldest_rv(const struct ring *r)
{
    return r->len ? slot(r, 0)->rv : 0;
}

int64_t ring_newest_rv(const struct ring *r)
{
    return r->len ? slot(r, r->len - 1)->rv : 0;
}

int64_t ring_evicted_rv(const struct ring *r)
{
    return r->evicted_rv;
}

uint64_t ring_evictions(const struct ring *r)
{
    return r->evictions;
}
