/*
 * range.h: reads every key under a prefix from etcd at one revision, in
 * pages, over a connection of its own: the writer's objects at R0 and the
 * final state the views are checked against.
 *
 * As etcd's clients page (and ringwatch's upstream lists): every page is a
 * RangeRequest at the same revision (the first page's header revision
 * when none is given), the next page starting at the last key + "\0", so
 * the result is one consistent snapshot.
 */
#ifndef FLEET_RANGE_H
#define FLEET_RANGE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/etcd.h"

struct event_base;
struct fleet_dial;
struct range;

/* One key-value pair; kv and its bytes are valid during the call only. */
typedef void (*range_kv_cb)(const struct etcd_kv *kv, void *arg);

/* The read ended: err 0 and revision the snapshot's revision, or err
 * RW_EIO (connection failed), RW_EEXPIRED (revision compacted: etcd's
 * OUT_OF_RANGE), RW_EPROTO (malformed response or other gRPC failure)
 * with why in English.  The caller may range_free r inside. */
typedef void (*range_done_cb)(int err, const char *why, int64_t revision,
                              void *arg);

/*
 * Starts reading [prefix, prefix_end(prefix)) at revision (0: current)
 * from etcd (d, borrowed until done), page keys per Range (0: 500), each call
 * bounded by timeout seconds (0: 30).  Callbacks come from the event loop; done
 * exactly once unless r is freed first.
 */
struct range *range_new(struct event_base *base, const struct fleet_dial *d,
                        const char *prefix, int64_t revision, size_t page,
                        double timeout, range_kv_cb on_kv,
                        range_done_cb on_done, void *arg);

/* Cancels a read in progress (no callback afterwards) and releases r.
 * NULL is a no-op. */
void range_free(struct range *r);

#endif
