/*
 * upstream_etcd_batch.c: a WatchResponse's events as one batch (see
 * upstream_etcd_batch.h).
 */
#include "src/upstream_etcd_batch.h"

#include <stdlib.h>

#include "cache/rbuf.h"
#include "cache/rw.h"
#include "proto/etcd.h"
#include "src/upstream.h"

int upstream_etcd_batch_hold(struct upstream_etcd_batch *b, const uint8_t *msg,
                             size_t len)
{
    if (b->bytes + len > UPSTREAM_ETCD_BATCH_MAX_BYTES)
        return RW_ELIMIT;
    b->fragments = xrealloc(b->fragments, (b->n + 1) * sizeof(struct rbuf *));
    b->fragments[b->n++] = rbuf_from(msg, len);
    b->bytes += len;
    return RW_OK;
}

/* Applies the events of one response (or fragment); no flush. */
static void batch_apply(const struct etcd_watch_response *w,
                        const struct upstream_target *t)
{
    for (size_t i = 0; i < w->n_events; i++) {
        const struct etcd_event *ev = &w->events[i];

        if (ev->type == ETCD_EVENT_PUT)
            t->feed->put(t->ctx, ev->kv.key, ev->kv.key_len, ev->kv.value,
                         ev->kv.value_len, ev->kv.mod_revision);
        else
            t->feed->del(t->ctx, ev->kv.key, ev->kv.key_len,
                         ev->kv.mod_revision);
    }
}

void upstream_etcd_batch_deliver(struct upstream_etcd_batch *b,
                                 const struct etcd_watch_response *w,
                                 const struct upstream_target *t)
{
    for (size_t i = 0; i < b->n; i++) {
        struct etcd_watch_response f;
        int rc = etcd_watch_response_decode(&f, b->fragments[i]->data,
                                            b->fragments[i]->len);

        rw_assert(rc == 0); /* it decoded when it arrived */
        batch_apply(&f, t);
        etcd_watch_response_fini(&f);
    }
    upstream_etcd_batch_drop(b);
    batch_apply(w, t);
    /* Not progress(w->header.revision): a catch-up batch carries the
     * store's current revision while later batches are still due. */
    t->feed->flush(t->ctx);
}

void upstream_etcd_batch_drop(struct upstream_etcd_batch *b)
{
    for (size_t i = 0; i < b->n; i++)
        rbuf_unref(b->fragments[i]);
    free(b->fragments);
    *b = (struct upstream_etcd_batch){0};
}
