/*
 * writer.h: the fleet's load: updates to existing objects of the resource,
 * written straight to etcd at a paced rate, each stamped with the
 * wall-clock time it was sent so that watchers can measure latency.
 *
 * The writer first reads the resource's values at R0 (range.h), the same
 * snapshot as the initial LIST, and turns each into a template: the value
 * with metadata.annotations opened at the place where the stamp goes.
 * Each write puts the template with the annotations
 *   "ringwatch.io/written-at": wall-clock unix nanoseconds (decimal)
 *   "ringwatch.io/write-count": this object's write number (decimal)
 * so every write changes the value; other annotations and the rest of the
 * value are kept byte for byte.  Objects are taken round robin.
 *
 * Pacing: a 10 ms timer issues the writes due so far (rate x elapsed),
 * with at most WRITER_MAX_INFLIGHT Puts in flight; writes that cannot go
 * out are counted as behind and caught up when Puts complete.  Each
 * completed Put records its revision (PutResponse header.revision) and
 * send time.
 *
 * With churn (writer_new's churn config, --churn) the writer owns the
 * pods of namespace CHURN_NAMESPACE instead (churn.h): writer_load reads
 * the ones an earlier run left (adopting them), then creates pods until
 * `pods` are live, as fast as WRITER_MAX_INFLIGHT allows, and only then
 * reports on_ready; the main loop LISTs after that.  Once started, each
 * write is the generator's next operation: a create or update is a Put
 * of the whole Pod JSON (stamped as above), a delete a DeleteRange, whose
 * revision and send time are logged like a Put's (DELETED latency).
 *
 * Over Redis (--redis) the same writes go through the functions of
 * ringwatch-redis(7): FCALL rw_put (unconditional) and rw_delete, whose
 * reply is the revision; the objects are read from the hash (current
 * state: Redis keeps no older one).
 *
 * Through the server (writer_via's server, --write-via server) the same
 * writes go to ringwatch as Kubernetes requests instead (kube_write.h):
 * an update is a PUT with metadata.resourceVersion set to the newest
 * revision the writer knows of the object (its snapshot's, then its own
 * writes'), a churn create a POST, a delete a DELETE; the objects are
 * still read from the store.  With writers K > 1 (--contention K) each
 * update is made by K writers at once, on K connections, all from the
 * same resourceVersion: one wins, the others get 409 Conflict and retry as
 * client-go's RetryOnConflict (re-read, re-stamp, PUT again).
 *
 * Every acknowledged write's latency, request to response (after a
 * conflict: the last PUT's), goes to writer_latency's histogram, over
 * the store and through the server alike.
 */
#ifndef FLEET_WRITER_H
#define FLEET_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/resource_type.h"
#include "src/fleet/keys.h"

#define WRITER_MAX_INFLIGHT 512

struct churn_config;
struct event_base;
struct histogram;
struct fleet_dial;
struct redis_store_config;
struct writer;

struct writer_callbacks {
    /* The templates are built (objects may be 0: nothing to write). */
    void (*on_ready)(size_t objects, void *arg);
    /* Loading failed; why in English.  The writer stays idle. */
    void (*on_error)(const char *why, void *arg);
};

struct writer_stats {
    size_t objects;    /* templates */
    uint64_t sent;     /* Puts issued */
    uint64_t ok;       /* Puts acknowledged (revision known) */
    uint64_t failed;   /* Puts that failed */
    uint64_t behind;   /* ticks on which writes were due but held back */
    size_t inflight;   /* Puts outstanding */
    int64_t first_rev; /* revision of the first acknowledged Put; 0 */
    int64_t last_rev;  /* highest acknowledged revision; 0 */
    /* Churn: acknowledged writes by kind (creates include the initial
     * set's), and the pods live when the last write was issued. */
    uint64_t creates, updates, moves, deletes;
    uint64_t initial; /* creates of the initial set */
    size_t live;
    /* Through the server (kube_write.h's counters; 0 otherwise). */
    uint64_t requests, conflicts, rereads, gave_up;
};

/* Where the writes go besides the store: server NULL straight to the
 * store; else through that server (borrowed), by writers (>= 1) writers
 * per update. */
struct writer_via {
    const struct fleet_dial *server;
    uint64_t writers;
};

/*
 * A writer of resource type rt at etcd (d, borrowed), or at Redis when
 * redis is not NULL (borrowed; d is then unused), through via's server
 * when via is not NULL and names one (copied), rate operations per second
 * (> 0; an update by K writers is one operation), interning keys in keys;
 * churn NULL updates the existing objects, else the pods churn (copied; rt
 * must be pods).  Connects at once; writes nothing until writer_load
 * (churn: creates the initial set) then writer_start.
 */
struct writer *writer_new(struct event_base *base, const struct fleet_dial *d,
                          const struct redis_store_config *redis,
                          const struct writer_via *via,
                          const struct resource_type *rt, struct keys *keys,
                          uint64_t rate, const struct churn_config *churn,
                          const struct writer_callbacks *cbs, void *arg);
void writer_free(struct writer *w);

/* Reads the resource's values at revision (R0) and builds the templates;
 * with churn, reads the churn namespace at the current revision (the
 * revision argument is ignored) and creates the initial set.  on_ready or
 * on_error follows from the loop. */
void writer_load(struct writer *w, int64_t revision);

/* Starts writing at the configured rate (after on_ready). */
void writer_start(struct writer *w);
/* Issues no further writes; those in flight complete. */
void writer_stop(struct writer *w);
/* No Put in flight. */
bool writer_idle(const struct writer *w);

void writer_stats(const struct writer *w, struct writer_stats *st);

/* The acknowledged writes' latencies, request to response, ns (valid while
 * w is). */
const struct histogram *writer_latency(const struct writer *w);

/* When the acknowledged write of revision rev was sent (wall-clock unix
 * ns), or -1 when no write of this writer has that revision. */
int64_t writer_send_time(const struct writer *w, int64_t rev);

/*
 * Builds the template of one value (len bytes of a JSON object): *head
 * and *tail (new strings, caller frees; lengths in *head_len, *tail_len)
 * such that head + STAMP + tail is the value with STAMP as the first
 * members of metadata.annotations, where STAMP is one or more
 * "key":"value" members separated by commas; existing
 * SCAN_WRITTEN_AT and STAMP_WRITE_COUNT members are dropped.
 * Returns false (nothing allocated) when the value is not a JSON object
 * with an object "metadata".
 */
bool writer_template(const char *value, size_t len, char **head,
                     size_t *head_len, char **tail, size_t *tail_len);

#endif
