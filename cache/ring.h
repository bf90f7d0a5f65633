/*
 * ring.h: the event window of one resource: the most recent changes, in
 * revision order, bounded in events and in bytes.
 *
 * Slots hold events by value; an event holds references to objects.  Every
 * event pushed gets a sequence number (seq) one greater than the last, for
 * the life of the ring (ring_clear does not reset it), so a watcher's
 * cursor is a seq: the next event it has to look at.  A cursor below
 * ring_tail_seq() has been lapped: the events it needed are gone.
 *
 * Capacity: at most max_events events, and the events' bytes (the JSON of
 * the objects they carry, see ring_event_bytes) at most max_bytes, except
 * that the newest event is always kept.  Pushing evicts the oldest events until
 * both bounds hold.
 */
#ifndef RING_H
#define RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/object.h"

struct ring_event {
    int64_t rv;           /* the change's revision (ModRevision) */
    enum event_type type; /* ADDED (create), MODIFIED (update), DELETED */
    struct object *obj;   /* state after the change; for DELETED the last
                             state with rv = the delete's revision */
    struct object *prev;  /* state before; NULL for ADDED */
    struct object *gone;  /* lazily: prev with rv = this rv, the DELETED
                             state for watchers whose selector the change
                             leaves; owned, NULL until needed */
};

/* Bytes an event is charged against max_bytes: its obj's JSON length. */
size_t ring_event_bytes(const struct ring_event *ev);

struct selector;

/* Whether o is in the selection of namespace ns (NULL: every namespace)
 * and selector sel (NULL: everything). */
bool ring_event_selects(const struct object *o, const char *ns,
                        const struct selector *sel);

/*
 * What a watcher of that selection is sent for ev, as kube-apiserver's
 * cacheWatcher convertToWatchEvent: ADDED and DELETED as they are when
 * their object is selected; for MODIFIED, old and new state selected: the
 * event as it is, only the new: ADDED, only the old: DELETED with the old
 * state at the event's revision (ev->gone, made once), neither: nothing.
 * Returns the object (borrowed from ev) and sets *type, or NULL.
 */
struct object *ring_event_view(struct ring_event *ev, const char *ns,
                               const struct selector *sel,
                               enum event_type *type);

struct ring;

/* max_events >= 1; max_bytes >= 1 (bytes). */
struct ring *ring_new(size_t max_events, size_t max_bytes);
/* Frees the ring and drops every event's references.  NULL is a no-op. */
void ring_free(struct ring *r);

/*
 * Appends *ev (taking its object references) with seq ring_head_seq(), and
 * evicts the oldest events while a bound is exceeded.  ev->rv must be at
 * least the newest event's rv (asserted): keys written by one etcd
 * transaction share its revision.  Eviction may split such a revision;
 * ring_evicted_rv() tells where complete history starts.  Returns the
 * number of events evicted.
 */
size_t ring_push(struct ring *r, const struct ring_event *ev);

/* Seq the next push gets; one past the newest event. */
uint64_t ring_head_seq(const struct ring *r);
/* Seq of the oldest retained event (== head when empty). */
uint64_t ring_tail_seq(const struct ring *r);
/* The event with that seq, or NULL outside [tail, head).  The pointer is
 * valid until the next ring_push or ring_clear. */
struct ring_event *ring_get(const struct ring *r, uint64_t seq);
/* The seq of the first retained event with rv > after_rv (binary search);
 * head when there is none. */
uint64_t ring_seq_after(const struct ring *r, int64_t after_rv);

size_t ring_len(const struct ring *r);          /* events held */
size_t ring_bytes(const struct ring *r);        /* ring_event_bytes held */
size_t ring_max_events(const struct ring *r);
size_t ring_max_bytes(const struct ring *r);
int64_t ring_oldest_rv(const struct ring *r);   /* 0 when empty */
int64_t ring_newest_rv(const struct ring *r);   /* 0 when empty */
/* Events pushes dropped to respect a bound, since ring_new (ring_clear's
 * drops are not evictions). */
uint64_t ring_evictions(const struct ring *r);
/* rv of the most recently evicted event since ring_clear (0: none): every
 * event with a greater rv is still held. */
int64_t ring_evicted_rv(const struct ring *r);

/* Drops every event (a relist); seqs keep counting from head. */
void ring_clear(struct ring *r);

#endif
