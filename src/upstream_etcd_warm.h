/*
 * upstream_etcd_warm.h: the revision a resource's first list is read at,
 * so that a restarted ringwatch replays the store's recent history into
 * its ring (a warm start).
 *
 * kube-apiserver (KEP-1904) lists at the current revision on start: its
 * new watch cache begins there, and every client resuming a watch from a
 * resourceVersion below it gets 410 Gone and relists.  etcd keeps every
 * revision back to its compaction, so ringwatch lists at an older
 * revision R_old instead and watches from R_old + 1: etcd replays the
 * changes since into the ring, which then covers the window the ring of
 * the process before had, and resuming watchers get their missed events.
 *
 * R_old = max(current - window, 1, the oldest revision not compacted).
 * The same serves a relist after the watch's start revision was
 * compacted: listed at the compaction (not below the revision the cache
 * already reflects), the relist ends only the watchers whose selection
 * changed up to it, and the changes after it reach the others as events.
 * The current revision is read first (one Range, count only); etcd does
 * not say what it compacted (a Range below it fails with OUT_OF_RANGE,
 * "required revision has been compacted"), so the oldest revision still
 * readable in [R_old, current] is found by bisection with Range requests
 * of one key, no value (at most log2(window) + 1 of them; one when
 * nothing in the window was compacted).  The window is in revisions,
 * which are etcd's global ones: a resource's events in it are at most as
 * many, and usually fewer (other resources' writes share the count).
 *
 * No I/O: the adapter (upstream_etcd.c) sends the requests this module
 * encodes and hands their outcomes back.
 */
#ifndef UPSTREAM_ETCD_WARM_H
#define UPSTREAM_ETCD_WARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rbuf;
struct upstream_target;

enum upstream_etcd_warm_phase {
    WARM_OFF,     /* list at the current revision (warm start not wanted,
                     or over) */
    WARM_CURRENT, /* reading the current revision */
    WARM_PROBE,   /* bisecting towards the oldest readable revision */
    WARM_LIST,    /* decided: list at rev */
};

/* Embedded in the adapter's resource; zeroed is WARM_OFF. */
struct upstream_etcd_warm {
    enum upstream_etcd_warm_phase phase;
    int64_t window;  /* revisions back from the current one */
    int64_t floor;   /* the lowest revision to list at */
    int64_t current; /* the store's revision when asked (C) */
    int64_t lo;      /* the highest revision known compacted (or below
                        R_old: not asked) */
    int64_t hi;      /* the lowest revision known readable */
    int64_t rev;     /* PROBE: the revision asked; LIST: the list's */
    unsigned probes; /* requests sent, for the log */
};

/* The first revision to try: max(current - window, 1); current when window
 * <= 0 or current <= 0 (nothing to go back into).  Revisions, not
 * events. */
int64_t upstream_etcd_warm_rev(int64_t current, int64_t window);

/* Starts a warm start of window revisions (<= 0: none: phase WARM_OFF),
 * never below floor: the revision the cache already reflects (0: none),
 * so that a relist does not take it back. */
void upstream_etcd_warm_begin(struct upstream_etcd_warm *w, int64_t window,
                              int64_t floor);

/*
 * The request to send in phase WARM_CURRENT or WARM_PROBE, for the key
 * range [key, end): a Range of one key, no value (CURRENT: count only, at
 * the current revision; PROBE: at w->rev).  Returns a new reference.
 */
struct rbuf *upstream_etcd_warm_request(const struct upstream_etcd_warm *w,
                                        const char *key, size_t key_len,
                                        const char *end, size_t end_len);

/*
 * The outcome of that request: readable (the Range succeeded; header_rev
 * its header revision) or not (compacted: etcd's OUT_OF_RANGE).  Moves to
 * the next phase: PROBE with the next revision to ask, or LIST with the
 * revision to list at.  Any other failure is the caller's (it retries the
 * same request).  A compacted answer to the CURRENT request (it reads the
 * current revision, which cannot be) or in another phase is ignored.
 */
void upstream_etcd_warm_answer(struct upstream_etcd_warm *w, bool readable,
                               int64_t header_rev);

/*
 * The list at list_rev is complete, its list_end about to be called: when
 * it was read below the store's revision (phase WARM_LIST, current >
 * list_rev), logs it (store names the store) and tells the target (its
 * feed's catch_up, src/upstream.h).  Phase WARM_OFF after it.
 */
void upstream_etcd_warm_end(struct upstream_etcd_warm *w, const char *store,
                            const struct upstream_target *t, int64_t list_rev);

#endif
