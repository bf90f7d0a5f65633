/*
 * upstream_etcd_warm.c: choosing a warm start's list revision (see
 * upstream_etcd_warm.h).
 *
 * Invariant in WARM_PROBE: lo < rev < hi, every revision at or below lo
 * is compacted (once one was seen compacted; before that lo is
 * R_old - 1 and unasked), hi is readable.  The answer halves (lo, hi)
 * until hi = lo + 1: hi is then the oldest revision still readable.
 * Compaction only moves up while this runs, so a revision seen compacted
 * stays so; one seen readable may be compacted by the time the list
 * reads it, and the list then fails as any list at a compacted revision
 * does (the adapter lists again, at the current revision).
 */
#include "src/upstream_etcd_warm.h"

#include "cache/rbuf.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "proto/etcd.h"
#include "src/log.h"
#include "src/upstream.h"

int64_t upstream_etcd_warm_rev(int64_t current, int64_t window)
{
    if (window <= 0 || current <= 0)
        return current;
    return current - window >= 1 ? current - window : 1;
}

void upstream_etcd_warm_begin(struct upstream_etcd_warm *w, int64_t window,
                              int64_t floor)
{
    *w = (struct upstream_etcd_warm){.window = window, .floor = floor};
    w->phase = window > 0 ? WARM_CURRENT : WARM_OFF;
}

struct rbuf *upstream_etcd_warm_request(const struct upstream_etcd_warm *w,
                                        const char *key, size_t key_len,
                                        const char *end, size_t end_len)
{
    struct etcd_range_request req = {
        .key = key,
        .key_len = key_len,
        .range_end = end,
        .range_end_len = end_len,
        .limit = 1,
        .keys_only = true,
        .count_only = w->phase == WARM_CURRENT,
        .revision = w->phase == WARM_PROBE ? w->rev : 0,
    };

    rw_assert(w->phase == WARM_CURRENT || w->phase == WARM_PROBE);
    return etcd_range_request_encode(&req);
}

/* The next revision to ask in (lo, hi), or LIST at hi when none is left. */
static void warm_next(struct upstream_etcd_warm *w)
{
    if (w->hi - w->lo <= 1) {
        w->phase = WARM_LIST;
        w->rev = w->hi;
        return;
    }
    w->phase = WARM_PROBE;
    w->rev = w->lo + (w->hi - w->lo) / 2;
}

void upstream_etcd_warm_answer(struct upstream_etcd_warm *w, bool readable,
                               int64_t header_rev)
{
    w->probes++;
    if (w->phase == WARM_CURRENT) {
        if (!readable)
            return;
        w->current = w->hi = header_rev;
        w->rev = upstream_etcd_warm_rev(header_rev, w->window);
        if (w->rev < w->floor)
            w->rev = w->floor < header_rev ? w->floor : header_rev;
        w->lo = w->rev - 1;
        /* Nothing to go back into, or R_old asked first. */
        w->phase = w->rev >= w->hi ? WARM_LIST : WARM_PROBE;
        if (w->phase == WARM_LIST)
            w->rev = w->hi;
        return;
    }
    if (w->phase != WARM_PROBE)
        return;
    if (readable)
        w->hi = w->rev;
    else
        w->lo = w->rev;
    warm_next(w);
}

void upstream_etcd_warm_end(struct upstream_etcd_warm *w, const char *store,
                            const struct upstream_target *t, int64_t list_rev)
{
    if (w->phase == WARM_LIST && w->current > list_rev) {
        log_info("etcd %s: listed %s at revision %lld (%u requests to find "
                 "it), below the store's: replaying to %lld",
                 store, t->rt->resource, (long long)list_rev, w->probes,
                 (long long)w->current);
        if (t->feed->catch_up != NULL)
            t->feed->catch_up(t->ctx, w->current);
    }
    w->phase = WARM_OFF;
}
