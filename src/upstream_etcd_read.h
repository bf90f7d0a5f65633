/*
 * upstream_etcd_read.h: the etcd adapter's direct reads (src/upstream.h's
 * struct upstream_reader): the probe as one read-only Txn, pages as Range
 * calls at a revision, each a unary call on the adapter's connection;
 * and etcd's version (Maintenance/Status, once per connection).
 * Every reply's header goes to the adapter's history
 * (src/upstream_history.h), marked when the read was sent.
 */
#ifndef UPSTREAM_ETCD_READ_H
#define UPSTREAM_ETCD_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/upstream.h"

struct etcd_header;
struct h2_client;
struct rbuf;
struct upstream_etcd_read;
struct upstream_history;
struct upstream_reader;

/* The reads of an adapter named name in logs ("etcd URL", copied) whose
 * replies go to history (borrowed), each call bounded by request_timeout
 * seconds.  on_reset(arg) runs when a reply shows the store's history was
 * reset (upstream_history_observe returned true: the adapter then lists
 * everything again). */
struct upstream_etcd_read *
upstream_etcd_read_new(const char *name, struct upstream_history *history,
                       double request_timeout, void (*on_reset)(void *arg),
                       void *arg);
/* Cancels every read in flight (no callback runs) and frees.  NULL is a
 * no-op. */
void upstream_etcd_read_free(struct upstream_etcd_read *rd);

/* The connection reads are sent on (borrowed), NULL while there is none:
 * reads started then return NULL.  Reads in flight on a connection that
 * ends get their callback with RW_EUNAVAIL from the call's end.  A new
 * connection is asked etcd's version (Maintenance/Status; a Status in
 * flight on the old one is canceled). */
void upstream_etcd_read_set_conn(struct upstream_etcd_read *rd,
                                 struct h2_client *conn);

/* etcd's version from the last Status answered ("" unknown; valid until
 * the next event loop turn). */
const char *upstream_etcd_read_version(const struct upstream_etcd_read *rd);

/* The reader to hand to every target (valid until _free). */
const struct upstream_reader *
upstream_etcd_read_reader(const struct upstream_etcd_read *rd);

/* ---- calls of the adapter's other modules (upstream_etcd_write.c) ---- */

/* A reply to upstream_etcd_read_call: err RW_OK with the response message
 * (resp_len bytes, valid during the call), or the call's failure as an
 * rw_err (RW_EUNAVAIL, RW_ETIMEDOUT, ...) with why; state is the call's,
 * freed after the function returns. */
typedef void (*upstream_etcd_reply_fn)(struct upstream_read *rd, int err,
                                       const char *why, const uint8_t *resp,
                                       size_t resp_len, void *state);

/* Sends the request b (taken) to path as a read of rd's list (canceled by
 * the reader's cancel, whose free frees state: malloc'd, taken on every
 * path).  Returns the read, NULL (b and state freed) without a
 * connection. */
struct upstream_read *upstream_etcd_read_call(struct upstream_etcd_read *rd,
                                              const char *path, struct rbuf *b,
                                              upstream_etcd_reply_fn reply,
                                              void *state);

/* A reply's header to the adapter's history (as every read's). */
void upstream_etcd_read_observe(struct upstream_read *rd,
                                const struct etcd_header *hdr,
                                const char *what);

/* Sets the reader's get and write (upstream_etcd_write.h), whose ctx is
 * rd. */
void upstream_etcd_read_set_writes(
    struct upstream_etcd_read *rd,
    struct upstream_read *(*get)(void *ctx, const char *key, size_t key_len,
                                 upstream_get_cb cb, void *arg),
    struct upstream_read *(*write)(void *ctx, const struct upstream_write *w,
                                   upstream_write_cb cb, void *arg));

#endif
