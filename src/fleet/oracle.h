/*
 * oracle.h: the reference list of every change to the resource, from an
 * etcd Watch of its key prefix that is independent of the server under
 * test, and what each filter's watchers must receive because of it.
 *
 * The oracle watches [prefix, prefix_end) from a start revision (R0 + 1)
 * with prev_kv and progress notifications.  Each event becomes one entry
 * in an append-only log, in etcd's order (revision order; the events of
 * one multi-key transaction share a revision, in etcd's order).  New and
 * previous values are decoded with kjson_decode_object, as the daemon
 * decodes them (a value that does not decode is "no object"), and each
 * filter the change may concern (filter_index_candidates) is told the
 * event its watchers must see (filter_transition).
 *
 * known_rv: every change with revision <= known_rv is in the log.  It
 * starts at start - 1 and advances with each response's last event and
 * with progress notifications (an empty response: nothing is left up to
 * its header revision, etcd WatchResponse semantics).  The created
 * response's header revision proves nothing and is not used.
 */
#ifndef FLEET_ORACLE_H
#define FLEET_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "cache/resource_type.h"
#include "proto/etcd.h"
#include "src/fleet/filter.h"
#include "src/fleet/keys.h"

struct event_base;
struct fleet_dial;
struct oracle;

/* One change to the resource. */
struct oracle_entry {
    int64_t rv;         /* its ModRevision (the delete's revision) */
    int64_t written_at; /* the new value's SCAN_WRITTEN_AT, ns; -1: none */
    uint32_t key;       /* key index (keys.h) */
    uint8_t deleted;    /* etcd DELETE (else PUT) */
};

struct oracle_callbacks {
    /* known_rv advanced (entries may have been appended). */
    void (*on_advance)(void *arg);
    /* The watch failed for good (connection lost, canceled, compacted):
     * why in English.  known_rv stops there. */
    void (*on_error)(const char *why, void *arg);
};

/*
 * An oracle for resource type rt at etcd (d, borrowed), interning keys in
 * keys and feeding the filters of ix (borrowed; it and its filters must
 * outlive the oracle).  It connects at once and watches when
 * oracle_start is called.  d NULL: no etcd; the changes come from
 * oracle_feed (a Redis log follower, redis_follow.h).
 */
struct oracle *oracle_new(struct event_base *base, const struct fleet_dial *d,
                          const struct resource_type *rt, struct keys *keys,
                          const struct filter_index *ix,
                          const struct oracle_callbacks *cbs, void *arg);
void oracle_free(struct oracle *o);

/* Watches from start_rev (> 0): known_rv becomes start_rev - 1. */
void oracle_start(struct oracle *o, int64_t start_rev);

/* For an oracle without etcd (d NULL): one change, as etcd would send it
 * (kv.mod_revision its revision, prev_kv the value it replaced or
 * deleted), in revision order; known_rv rises to it.  on_advance is not
 * called: oracle_progress follows a batch. */
void oracle_feed(struct oracle *o, const struct etcd_event *ev);
/* known_rv rises to rev (every change up to rev was fed); on_advance. */
void oracle_progress(struct oracle *o, int64_t rev);
/* The source failed for good: on_error(why) once. */
void oracle_abort(struct oracle *o, const char *why);

/* Every change with revision <= this is in the log; 0 before start. */
int64_t oracle_known_rv(const struct oracle *o);
/* The last entry's revision (0 when none). */
int64_t oracle_last_rv(const struct oracle *o);
/* Whether the watch failed (on_error was called). */
bool oracle_failed(const struct oracle *o);

const struct oracle_entry *oracle_entry(const struct oracle *o, size_t i);

/* Values (new or previous) that did not decode as objects. */
uint64_t oracle_undecodable(const struct oracle *o);

#endif
