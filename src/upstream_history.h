/*
 * upstream_history.h: whether the store's history is still the one the
 * caches were built from.  Store-neutral: an upstream adapter (etcd today,
 * Redis after a failover) reports what every reply says about the store
 * (its identity, the member that answered, its current revision), and
 * this module decides when the history was reset and tells every
 * target (its feed's history_reset, src/upstream.h), so that the rule is the same for
 * every store.
 *
 * A store's history is reset when its revision goes backwards (etcd
 * restored from an older copy of its data directory, a Redis replica
 * promoted behind its primary): revisions ringwatch has served then name
 * other changes, and resuming "after" the cache's revision would skip the
 * new ones forever.  It is also reset when the store's identity changes
 * (etcd's cluster ID: another cluster answers at the same address).  A
 * change of member alone is not a reset: revisions are the cluster's.
 *
 * The revision rule never mistakes concurrency for a reset.  Replies on
 * different streams arrive in any order, so a reply is only compared
 * with what the store had shown before its request was sent (a mark):
 * a linearizable reply (etcd Range, Txn) reflects every revision
 * committed before it was asked for, on any member; a member's own reply
 * (etcd Watch, Maintenance/Status) every revision that member had shown,
 * so it is compared only when the same member showed the mark.  A watch
 * stream's mark moves with its replies (they are in revision order).
 */
#ifndef UPSTREAM_HISTORY_H
#define UPSTREAM_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct upstream_history;
struct upstream_target;

/* What the store had shown when a request was sent; taken with
 * upstream_history_mark, moved by upstream_history_observe. */
struct upstream_mark {
    uint64_t epoch;  /* resets seen when taken */
    int64_t rev;     /* the highest revision the store had shown */
    uint64_t member; /* the member that showed it (0: none yet) */
};

/* A history for the store named store (for logs, e.g. its URL; copied)
 * feeding the n targets (the array is copied; their ctx must outlive the
 * history). */
struct upstream_history *
upstream_history_new(const char *store, const struct upstream_target *targets,
                     size_t n);
/* NULL is a no-op. */
void upstream_history_free(struct upstream_history *h);

/* The mark of a request about to be sent (or of a stream about to be
 * opened). */
struct upstream_mark upstream_history_mark(const struct upstream_history *h);

/*
 * One reply to the request marked *mark: the store identified by
 * store_id (etcd ResponseHeader field 1, cluster_id; 0: not reported),
 * answered by member (field 2; 0: not reported) at its current revision
 * rev (field 3; 0: not reported, as in etcd's reply that cancels a watch
 * whose start was compacted).  linearizable: the reply reflects every write committed
 * before the request (etcd Range and Txn without serializable), else it
 * is the member's own view (Watch, Maintenance/Status).  what names the
 * call for the log ("Range", "Watch", ...).
 *
 * Returns true when the reply shows the history was reset: the reset has
 * been logged (once, naming the old and new revisions or identities) and
 * every target has been reset (its feed's history_reset: for a resource,
 * its watches ended with ERROR 410, its cache emptied and not ready); the
 * caller must
 * then drop every list, watch and read of the old history and list every
 * resource again.  A reply to a request sent before the last reset is
 * checked for identity only.  *mark moves to the reply either way.
 */
bool upstream_history_observe(struct upstream_history *h,
                              struct upstream_mark *mark, uint64_t store_id,
                              uint64_t member, int64_t rev, bool linearizable,
                              const char *what);

#endif
