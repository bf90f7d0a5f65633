/*
 * etcd_fuzz.c: fuzz target for the etcd response decoders
 * (proto/etcd.c).  The first byte picks the decoder, the rest is the
 * message.  Every view of a decoded message is read in full (so a sanitizer
 * sees a bad pointer or length), then the message is released.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "proto/etcd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static void touch(const void *p, size_t len)
{
    const unsigned char *c = p;

    for (size_t i = 0; i < len; i++)
        sink += c[i];
}

static void touch_kv(const struct etcd_kv *kv)
{
    touch(kv->key, kv->key_len);
    touch(kv->value, kv->value_len);
    sink += (unsigned)kv->mod_revision;
}

static void fuzz_watch(const uint8_t *data, size_t size)
{
    struct etcd_watch_response w;

    if (etcd_watch_response_decode(&w, data, size) != 0)
        return;
    touch(w.cancel_reason, strlen(w.cancel_reason));
    for (size_t i = 0; i < w.n_events; i++) {
        touch_kv(&w.events[i].kv);
        if (w.events[i].has_prev_kv)
            touch_kv(&w.events[i].prev_kv);
    }
    etcd_watch_response_fini(&w);
}

static void fuzz_range(const uint8_t *data, size_t size)
{
    struct etcd_range_response r;

    if (etcd_range_response_decode(&r, data, size) != 0)
        return;
    for (size_t i = 0; i < r.n_kvs; i++)
        touch_kv(&r.kvs[i]);
    etcd_range_response_fini(&r);
}

static void fuzz_txn(const uint8_t *data, size_t size)
{
    struct etcd_txn_response t;

    if (etcd_txn_response_decode(&t, data, size) != 0)
        return;
    for (size_t i = 0; i < t.n_responses; i++)
        for (size_t j = 0; j < t.responses[i].n_kvs; j++)
            touch_kv(&t.responses[i].kvs[j]);
    etcd_txn_response_fini(&t);
}

static void fuzz_others(const uint8_t *data, size_t size)
{
    struct etcd_put_response p;
    struct etcd_delete_range_response d;
    struct etcd_status_response s;
    struct etcd_compaction_response c;

    if (etcd_put_response_decode(&p, data, size) == 0) {
        if (p.has_prev_kv)
            touch_kv(&p.prev_kv);
        etcd_put_response_fini(&p);
    }
    if (etcd_delete_range_response_decode(&d, data, size) == 0) {
        for (size_t i = 0; i < d.n_prev_kvs; i++)
            touch_kv(&d.prev_kvs[i]);
        etcd_delete_range_response_fini(&d);
    }
    if (etcd_status_response_decode(&s, data, size) == 0) {
        touch(s.version, strlen(s.version));
        etcd_status_response_fini(&s);
    }
    if (etcd_compaction_response_decode(&c, data, size) == 0)
        etcd_compaction_response_fini(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    switch (data[0] % 4) {
    case 0:
        fuzz_watch(data + 1, size - 1);
        break;
    case 1:
        fuzz_range(data + 1, size - 1);
        break;
    case 2:
        fuzz_txn(data + 1, size - 1);
        break;
    default:
        fuzz_others(data + 1, size - 1);
        break;
    }
    return 0;
}
