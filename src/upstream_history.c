/*
 * upstream_history.c: deciding that the store's history was reset (see
 * upstream_history.h).
 *
 * State: the store's identity (0 until a reply reports one), the member
 * that last answered, the highest revision any reply showed (high, and
 * the member that showed it), and the epoch: the number of resets seen.
 * Marks carry the epoch they were taken in, so that replies to requests
 * of an abandoned history (still in flight when it was reset) cannot
 * declare a second reset.
 */
#include "src/upstream_history.h"

#include <inttypes.h>
#include <stdlib.h>

#include "cache/rw.h"
#include "src/log.h"
#include "src/upstream.h"

struct upstream_history {
    char *store;
    struct upstream_target *targets;
    size_t n;
    uint64_t epoch;
    uint64_t store_id; /* 0: not known yet */
    uint64_t member;   /* that answered last; 0: none yet */
    int64_t high;      /* the highest revision shown */
    uint64_t high_member;
    bool member_change_logged;
};

struct upstream_history *
upstream_history_new(const char *store, const struct upstream_target *targets,
                     size_t n)
{
    struct upstream_history *h = xcalloc(1, sizeof(*h));

    h->store = xstrdup(store);
    h->targets = n > 0 ? xmemdup(targets, n * sizeof(*targets)) : NULL;
    h->n = n;
    return h;
}

void upstream_history_free(struct upstream_history *h)
{
    if (h == NULL)
        return;
    free(h->store);
    free(h->targets);
    free(h);
}

struct upstream_mark upstream_history_mark(const struct upstream_history *h)
{
    return (struct upstream_mark){h->epoch, h->high, h->high_member};
}

/* Another member of the same cluster answers: not a reset.  Logged at
 * info the first time only (behind a load balancer it may alternate). */
static void log_member_change(struct upstream_history *h, uint64_t member)
{
    if (h->member_change_logged) {
        log_debug("%s: member %" PRIx64 " answers, was %" PRIx64, h->store,
                  member, h->member);
        return;
    }
    h->member_change_logged = true;
    log_info("%s: member %" PRIx64 " answers now, was %" PRIx64
             " (same cluster: revisions are the cluster's, the history "
             "goes on)",
             h->store, member, h->member);
}

/* Starts a new epoch at revision rev and resets every target. */
static void history_reset(struct upstream_history *h, enum upstream_reset why,
                          int64_t rev)
{
    int64_t old_high = h->high;

    h->epoch++;
    h->high = rev;
    for (size_t i = 0; i < h->n; i++)
        h->targets[i].feed->history_reset(h->targets[i].ctx, why, old_high,
                                          rev);
}

bool upstream_history_observe(struct upstream_history *h,
                              struct upstream_mark *mark, uint64_t store_id,
                              uint64_t member, int64_t rev, bool linearizable,
                              const char *what)
{
    bool reset = false;

    if (store_id != 0 && h->store_id != 0 && store_id != h->store_id) {
        log_warnx("%s: the store changed: cluster ID %" PRIx64 " (at revision "
                  "%" PRId64 ") is now %" PRIx64 " (at revision %" PRId64
                  ", %s reply): its history is not the one cached; "
                  "relisting every resource and ending every watch with 410",
                  h->store, h->store_id, h->high, store_id, rev, what);
        history_reset(h, UPSTREAM_RESET_IDENTITY, rev);
        reset = true;
    } else if (rev > 0 && mark->epoch == h->epoch && rev < mark->rev &&
               (linearizable || member == mark->member)) {
        log_warnx("%s: the store's revision went back from %" PRId64
                  " to %" PRId64 " (%s reply, member %" PRIx64
                  "): restored from an older copy? Revisions up to %" PRId64
                  " may now name other changes; relisting every resource and "
                  "ending every watch with 410",
                  h->store, mark->rev, rev, what, member, mark->rev);
        history_reset(h, UPSTREAM_RESET_REVISION, rev);
        reset = true;
    }
    if (store_id != 0)
        h->store_id = store_id;
    if (member != 0 && h->member != 0 && member != h->member && !reset)
        log_member_change(h, member);
    if (member != 0)
        h->member = member;
    if (rev <= 0) /* not reported: etcd's reply to a compacted watch */
        return reset;
    if (rev >= h->high) {
        h->high = rev;
        h->high_member = member;
    }
    /* A reply to a request of an abandoned history is of the new one. */
    if (mark->epoch != h->epoch)
        *mark = (struct upstream_mark){h->epoch, rev, member};
    else
        *mark =
            (struct upstream_mark){h->epoch, RW_MAX(mark->rev, rev), member};
    return reset;
}
