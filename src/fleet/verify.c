/*
 * verify.c: the oracle checks of the fleet's watchers (see verify.h).
 *
 * Data structure: the FIFO of checks waiting for the oracle, a ring
 * buffer of struct verify_wait (32 bytes each) that grows by doubling;
 * each names its cursor, which stays put (the watchers live in one array
 * of fixed capacity).
 */
#include "src/fleet/verify.h"

#include <stdlib.h>

#include "cache/rw.h"

struct verify_wait {
    struct verify_cursor *cursor;
    int64_t rv;
    int64_t now_ns;
    uint32_t key;
    uint8_t kind; /* enum event_type, VERIFY_BOOKMARK, VERIFY_RESYNC */
};

struct verify {
    struct verify_config cfg;
    struct verify_wait *queue; /* ring buffer */
    size_t q_head, q_len, q_cap;
    struct verify_counts counts;
};

struct verify *verify_new(const struct verify_config *cfg)
{
    struct verify *vf = xcalloc(1, sizeof(*vf));

    vf->cfg = *cfg;
    return vf;
}

void verify_free(struct verify *vf)
{
    if (vf == NULL)
        return;
    free(vf->queue);
    free(vf);
}

bool verify_enabled(const struct verify *vf)
{
    return vf->cfg.oracle != NULL;
}

void verify_cursor_init(struct verify_cursor *c, struct filter *f)
{
    c->filter = f;
    c->next = 0;
    c->from_rv = 0;
    c->pending = 0;
}

static const struct oracle_entry *
verify_entry(const struct verify *vf, const struct verify_cursor *c, size_t i)
{
    return oracle_entry(vf->cfg.oracle, filter_expected_entry(c->filter, i));
}

/* Counts as lost the expected events before revision rv (or up to it when
 * inclusive); those at or below from_rv (before the last LIST: the oracle
 * may report them after the LIST was checked) are passed silently. */
static void verify_skip_to(struct verify *vf, struct verify_cursor *c,
                           int64_t rv, bool inclusive)
{
    const struct filter *f = c->filter;

    while (c->next < f->n_expected) {
        int64_t e = verify_entry(vf, c, c->next)->rv;

        if (e > rv || (e == rv && !inclusive))
            break;
        if (e > c->from_rv)
            vf->counts.lost++;
        c->next++;
    }
}

/* DELETED latency: the oracle's stamp of the change, or the writer's send
 * time of a delete. */
static void verify_delete_latency(const struct verify *vf,
                                  const struct oracle_entry *e, int64_t now_ns)
{
    const struct verify_config *cfg = &vf->cfg;
    int64_t at = e->written_at;

    if (e->deleted)
        at = cfg->send_time ? cfg->send_time(e->rv, cfg->arg) : -1;
    if (at > 0 && cfg->latency)
        histogram_record(cfg->latency,
                         now_ns > at ? (uint64_t)(now_ns - at) : 0);
}

static void verify_check_event(struct verify *vf, struct verify_cursor *c,
                               const struct verify_wait *p)
{
    const struct filter *f = c->filter;
    const struct oracle_entry *e;
    size_t j;

    verify_skip_to(vf, c, p->rv, false);
    for (j = c->next; j < f->n_expected; j++) {
        e = verify_entry(vf, c, j);
        if (e->rv != p->rv) {
            j = f->n_expected;
            break;
        }
        if (e->key == p->key)
            break;
    }
    if (j >= f->n_expected) {
        vf->counts.unexpected++;
        return;
    }
    /* Earlier changes of the same transaction that were passed over. */
    vf->counts.lost += j - c->next;
    c->next = j + 1;
    vf->counts.matched++;
    if (filter_expected_type(f, j) != (enum event_type)p->kind)
        vf->counts.wrong_type++;
    if (p->kind == EVENT_DELETED)
        verify_delete_latency(vf, verify_entry(vf, c, j), p->now_ns);
}

/* A LIST at rv: the verified range starts after it, at the first
 * expected event after rv known so far (later ones the oracle reports at
 * or below rv are passed by verify_skip_to). */
static void verify_resync(struct verify *vf, struct verify_cursor *c,
                          int64_t rv)
{
    size_t lo = 0, hi = c->filter->n_expected;

    c->from_rv = rv;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (verify_entry(vf, c, mid)->rv <= rv)
            lo = mid + 1;
        else
            hi = mid;
    }
    c->next = lo;
}

static void verify_run(struct verify *vf, const struct verify_wait *p)
{
    struct verify_cursor *c = p->cursor;

    switch (p->kind) {
    case VERIFY_RESYNC:
        verify_resync(vf, c, p->rv);
        break;
    case VERIFY_BOOKMARK:
        /* Everything up to the bookmark was sent: what the oracle knows
         * of it and c lacks is lost (the rest shows at the end). */
        verify_skip_to(vf, c, RW_MIN(p->rv, oracle_known_rv(vf->cfg.oracle)),
                       true);
        break;
    default:
        verify_check_event(vf, c, p);
        break;
    }
}

static void verify_push(struct verify *vf, const struct verify_wait *p)
{
    if (vf->q_len == vf->q_cap) {
        size_t cap = vf->q_cap ? vf->q_cap * 2 : 1024;
        struct verify_wait *q = xmalloc(cap * sizeof(*q));

        for (size_t i = 0; i < vf->q_len; i++)
            q[i] = vf->queue[(vf->q_head + i) % vf->q_cap];
        free(vf->queue);
        vf->queue = q;
        vf->q_head = 0;
        vf->q_cap = cap;
    }
    vf->queue[(vf->q_head + vf->q_len) % vf->q_cap] = *p;
    vf->q_len++;
}

/* Whether check p can run: an event once the oracle knows its revision;
 * a LIST or BOOKMARK at once. */
static bool verify_ready(const struct verify_wait *p, int64_t known)
{
    return p->kind == VERIFY_RESYNC || p->kind == VERIFY_BOOKMARK ||
           p->rv <= known;
}

void verify_check(struct verify *vf, struct verify_cursor *c, uint8_t kind,
                  uint32_t key, int64_t rv, int64_t now_ns)
{
    struct verify_wait p = {c, rv, now_ns, key, kind};

    if (vf->cfg.oracle == NULL)
        return;
    if (c->pending == 0 && verify_ready(&p, oracle_known_rv(vf->cfg.oracle))) {
        verify_run(vf, &p);
        return;
    }
    c->pending++;
    verify_push(vf, &p);
}

void verify_advance(struct verify *vf)
{
    int64_t known;

    if (vf->cfg.oracle == NULL)
        return;
    known = oracle_known_rv(vf->cfg.oracle);
    while (vf->q_len > 0) {
        struct verify_wait *p = &vf->queue[vf->q_head];

        if (!verify_ready(p, known))
            break;
        p->cursor->pending--;
        verify_run(vf, p);
        vf->q_head = (vf->q_head + 1) % vf->q_cap;
        vf->q_len--;
    }
}

bool verify_caught_up(const struct verify *vf, const struct verify_cursor *c,
                      int64_t target)
{
    if (c->pending > 0 || oracle_known_rv(vf->cfg.oracle) < target)
        return false;
    return c->next >= c->filter->n_expected ||
           verify_entry(vf, c, c->next)->rv > target;
}

void verify_finish(struct verify *vf)
{
    if (vf->cfg.oracle == NULL)
        return;
    verify_advance(vf);
    vf->counts.unverified += vf->q_len;
    for (size_t i = 0; i < vf->q_len; i++)
        vf->queue[(vf->q_head + i) % vf->q_cap].cursor->pending--;
    vf->q_len = 0;
}

void verify_finish_cursor(struct verify *vf, struct verify_cursor *c,
                          int64_t end_rv)
{
    if (vf->cfg.oracle != NULL)
        verify_skip_to(vf, c, end_rv, true);
}

void verify_counts(const struct verify *vf, struct verify_counts *counts)
{
    *counts = vf->counts;
}

size_t verify_footprint(const struct verify *vf)
{
    return sizeof(*vf) + vf->q_cap * sizeof(*vf->queue);
}
