/*
 * watch_relist.c: relists and history resets for a watch set (see
 * watch_relist.h).
 *
 * Around watchcache_replace: watch_relist_begin, with the old ring still
 * in place, marks every watcher that has not yet looked at every event in
 * it (a slow client): the relist drops those events.  watch_relist_note is
 * then called for every object the relist changed and marks the watchers
 * whose selection it touches.  watch_relist_done ends the marked watchers
 * with ERROR 410 (they would miss changes) and carries every other one to
 * the new ring head.  A doomed watcher (from a lost revision) is left to
 * end on its own, at its deadline.
 */
#include "src/watch_relist.h"

#include "cache/watchcache.h"
#include "src/metrics_resource.h"
#include "src/watch_impl.h"

void watch_relist_begin(void *arg)
{
    struct watch_set *ws = arg;
    uint64_t head = ring_head_seq(watchcache_ring(resource_cache(ws->res)));
    struct watcher *w;

    LIST_FOREACH(w, &ws->watchers, link)
        w->relist_marked = !w->ending && !watch_caught_up(w, head);
}

void watch_relist_note(void *arg, const struct object *old,
                       const struct object *new_obj)
{
    struct watch_set *ws = arg;
    struct watcher *w;

    LIST_FOREACH(w, &ws->watchers, link) {
        if (w->relist_marked || w->ending)
            continue;
        if ((old != NULL && watch_selects(w, old)) ||
            (new_obj != NULL && watch_selects(w, new_obj)))
            w->relist_marked = true;
    }
}

void watch_relist_done(void *arg)
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
            ws->metrics->terminated_relist++;
            watch_expire(w, w->seen_rv, watchcache_list_rv(wc));
            continue;
        }
        /* Nothing it could see changed in the gap: carry it across. */
        if (!watch_is_live(w))
            w->cursor = head;
        if (w->seen_rv < watchcache_list_rv(wc) && w->initial == NULL)
            w->seen_rv = watchcache_list_rv(wc);
    }
}

void watch_relist_reset(void *arg, int64_t rev)
{
    struct watch_set *ws = arg;
    struct watcher *w, *next;

    for (w = LIST_FIRST(&ws->watchers); w != NULL; w = next) {
        next = LIST_NEXT(w, link);
        if (w->ending)
            continue;
        ws->metrics->terminated_reset++;
        watch_expire(w, w->seen_rv, rev);
    }
}
