/*
 * churn.h: cluster-like pod churn for the fleet's writer (--churn): which
 * write comes next (create, status update, move to another node, delete)
 * and the Pod JSON each write stores.  Pure: no I/O, no clock of its own
 * (times are passed in), deterministic for a given seed and sequence of
 * calls.
 *
 * Data structure: one record per pod ever known (struct churn_pod, 24
 * bytes, indexed by its serial: the pod is named churn-SERIAL in
 * namespace CHURN_NAMESPACE) and the array of live pods' serials, each
 * pod knowing its place in it, so that a random live pod is picked and
 * removed in O(1).  Randomness is splitmix64 from the seed.
 *
 * Invariants: a pod is in the live array exactly while it exists (as far
 * as the writes issued so far go: state changes when a write is issued,
 * not when it completes); a pod with a write in flight (busy) is never
 * picked for another, so etcd sees each pod's writes in the order they
 * were issued.
 *
 * Mix, once the initial set exists: 20% of writes are creates or deletes
 * (a create while fewer than `pods` live, else a delete: the count stays
 * within a few of `pods`), 80% status updates, of which `move_fraction`
 * change spec.nodeName to another node (a kubelet watcher of the old node
 * sees DELETED, one of the new node ADDED).
 */
#ifndef FLEET_CHURN_H
#define FLEET_CHURN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHURN_NAMESPACE "fleet-churn"
/* Name of pod serial s: CHURN_NAME_PREFIX + 8 hex digits. */
#define CHURN_NAME_PREFIX "churn-"

struct churn;

struct churn_config {
    uint64_t pods;        /* live pods to keep (> 0) */
    uint32_t nodes;       /* nodes to place them on (> 0) */
    double move_fraction; /* of updates, in [0, 1] */
    uint64_t seed;
};

enum churn_kind {
    CHURN_CREATE,
    CHURN_UPDATE, /* status change */
    CHURN_MOVE,   /* spec.nodeName change (and status) */
    CHURN_DELETE,
};

/* One write chosen by churn_next. */
struct churn_op {
    enum churn_kind kind;
    uint32_t pod;       /* serial */
    uint32_t node_from; /* MOVE: the old node; else the pod's node */
    uint32_t node;      /* the pod's node after the write */
};

struct churn *churn_new(const struct churn_config *cfg);
void churn_free(struct churn *c);

/* Takes over a pod left by an earlier run (its serial, from its name,
 * and its node index); a serial already known is ignored.  Before the
 * first churn_next. */
void churn_adopt(struct churn *c, uint32_t serial, uint32_t node);

/* Parses a pod name CHURN_NAME_PREFIX + hex; false when it is not one. */
bool churn_parse_name(const char *name, size_t len, uint32_t *serial);

/*
 * The next write.  initial: only creates, until `pods` are live (then
 * false).  Otherwise the mix above.  The pod becomes busy until
 * churn_done.  Returns false when nothing can be written now (every
 * candidate busy).
 */
bool churn_next(struct churn *c, bool initial, struct churn_op *op);

/* The write of op completed (ok or not): the pod is no longer busy. */
void churn_done(struct churn *c, const struct churn_op *op);

/* Pods live now. */
size_t churn_live(const struct churn *c);

/* Writes pod's name (NUL-terminated) into buf of cap bytes (>= 16). */
void churn_name(uint32_t serial, char *buf, size_t cap);

/*
 * The Pod JSON of pod serial as it stands (about 1.5 KiB), with the
 * annotations ringwatch.io/written-at = written_at_ns and
 * ringwatch.io/write-count, into buf of cap bytes.  now_s: wall-clock
 * unix seconds for timestamps set by this write (creationTimestamp is the
 * pod's creation time).  Returns the length the JSON needs (without NUL);
 * when >= cap, nothing useful was written: call again with more room.
 */
size_t churn_render(struct churn *c, uint32_t serial, int64_t written_at_ns,
                    int64_t now_s, char *buf, size_t cap);

#endif
