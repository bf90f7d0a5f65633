/*
 * verify.h: what each watcher of the fleet must receive, checked against
 * the oracle (oracle.h): a watcher's position in its filter's expected
 * events, and the fleet-wide FIFO of checks waiting for the oracle.
 *
 * A watcher's cursor is an index into its filter's expected list: every
 * expected event before it has been received or counted lost.  Each event
 * the watcher receives (and each LIST and BOOKMARK) is one check:
 *  - an event must be the next expected one of its revision (the events
 *    of one multi-key etcd transaction share a revision and are told
 *    apart by key), with that type (else unexpected / wrong_type);
 *    expected events it passes over are lost;
 *  - a BOOKMARK says everything up to its RV was sent: what the oracle
 *    knows of it and the watcher lacks is lost;
 *  - a LIST at rv (a resync) starts the verified range after rv.
 * Latency of a DELETED event is the oracle's stamp of the change or the
 * writer's send time of a delete (send_time).
 *
 * The oracle may learn of a change after a watcher received it: a check
 * then waits, in order, in the FIFO until the oracle's known revision
 * reaches it (verify_advance).  Invariants: a cursor's checks run in the
 * order its events arrived (while any of them waits, later ones queue
 * behind); an event's check runs only when its revision is <= the
 * oracle's known_rv, so the expected list is complete up to it (a LIST's
 * or a BOOKMARK's does not wait: its revision may be a store revision the
 * resource's changes never reach); the FIFO is run from its head only and
 * stops at the first check that must still wait.
 */
#ifndef FLEET_VERIFY_H
#define FLEET_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/object.h"
#include "src/fleet/filter.h"
#include "src/fleet/histogram.h"
#include "src/fleet/oracle.h"

/* Kinds of checks beyond enum event_type. */
enum {
    VERIFY_BOOKMARK = EVENT_TYPE_MAX, /* a BOOKMARK at rv */
    VERIFY_RESYNC,                    /* a LIST at rv */
};

struct verify;

struct verify_config {
    struct oracle *oracle;     /* NULL: nothing is checked */
    struct histogram *latency; /* nanoseconds; NULL: not recorded */
    /* The writer's send time of revision rv (unix ns), or -1; may be NULL. */
    int64_t (*send_time)(int64_t rv, void *arg);
    void *arg;
};

/* One watcher's position (embedded in the watcher; verify_cursor_init). */
struct verify_cursor {
    struct filter *filter; /* the watcher's (borrowed) */
    size_t next;           /* index into filter->expected */
    int64_t from_rv;       /* the verified range starts after this RV */
    uint32_t pending;      /* checks of this cursor in the FIFO */
};

/* What the checks counted (the fleet's totals, watcher.h). */
struct verify_counts {
    uint64_t matched;    /* expected events received */
    uint64_t lost;       /* expected events passed over or never received */
    uint64_t unexpected; /* events the oracle says nobody should get */
    uint64_t wrong_type; /* expected event received with another type */
    uint64_t unverified; /* checks left waiting at the end */
};

struct verify *verify_new(const struct verify_config *cfg);
void verify_free(struct verify *ex);

/* Whether there is an oracle to check against. */
bool verify_enabled(const struct verify *ex);

void verify_cursor_init(struct verify_cursor *c, struct filter *f);

/*
 * Check kind (enum event_type, VERIFY_BOOKMARK or VERIFY_RESYNC) of key
 * (KEYS_NONE for the last two) at revision rv, received at now_ns (unix
 * ns), for cursor c: now when it can run and nothing of c waits, else
 * queued.  c must stay where it is while checks of it wait.  Nothing
 * without an oracle.
 */
void verify_check(struct verify *ex, struct verify_cursor *c, uint8_t kind,
                  uint32_t key, int64_t rv, int64_t now_ns);

/* The oracle's known revision advanced: runs the waiting checks. */
void verify_advance(struct verify *ex);

/* Whether c has every event due up to target, as far as the oracle
 * knows them (it must know target), and nothing of c waits. */
bool verify_caught_up(const struct verify *ex, const struct verify_cursor *c,
                      int64_t target);

/* The end: runs what can still run and counts the rest as unverified.
 * Then verify_finish_cursor for every cursor. */
void verify_finish(struct verify *ex);
/* Counts as lost every expected event of c up to end_rv it lacks. */
void verify_finish_cursor(struct verify *ex, struct verify_cursor *c,
                          int64_t end_rv);

void verify_counts(const struct verify *ex, struct verify_counts *counts);

/* Bytes held (the FIFO). */
size_t verify_footprint(const struct verify *ex);

#endif
