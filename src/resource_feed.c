/*
 * resource_feed.c: a resource's sink functions (src/resource.h) as the
 * feed an upstream adapter calls (src/upstream.h), ctx the resource.  One
 * indirect call per change received from the store; nothing per watcher.
 */
#include "src/resource_feed.h"

#include "src/resource.h"
#include "src/upstream.h"

static int64_t feed_rv(void *ctx)
{
    return resource_rv(ctx);
}

static void feed_list_begin(void *ctx)
{
    resource_list_begin(ctx);
}

static void feed_list_end(void *ctx, int64_t rev)
{
    resource_list_end(ctx, rev);
}

static void feed_list_abort(void *ctx)
{
    resource_list_abort(ctx);
}

static void feed_progress(void *ctx, int64_t rev)
{
    resource_progress(ctx, rev);
}

static void feed_flush(void *ctx)
{
    resource_flush(ctx);
}

static void feed_history_reset(void *ctx, enum upstream_reset why,
                               int64_t old_rev, int64_t new_rev)
{
    resource_history_reset(ctx,
                           why == UPSTREAM_RESET_IDENTITY
                               ? RESOURCE_RESET_IDENTITY
                               : RESOURCE_RESET_REVISION,
                           old_rev, new_rev);
}

static void feed_catch_up(void *ctx, int64_t store_rev)
{
    resource_catch_up(ctx, store_rev);
}

static void feed_set_reader(void *ctx, const struct upstream_reader *rd)
{
    resource_set_reader(ctx, rd);
}

/* Nothing per resource: readiness is the cache's (resource_ready) and
 * the upstream's connection (upstream_ops.status). */
static void feed_state(void *ctx, bool watching)
{
}

static void feed_reconnect(void *ctx)
{
    resource_note_reconnect(ctx);
}

static void feed_list_item(void *ctx, const char *key, size_t key_len,
                           const void *value, size_t value_len, int64_t mod_rev)
{
    resource_list_item(ctx, key, key_len, value, value_len, mod_rev);
}

static void feed_put(void *ctx, const char *key, size_t key_len,
                     const void *value, size_t value_len, int64_t mod_rev)
{
    resource_put(ctx, key, key_len, value, value_len, mod_rev);
}

static void feed_del(void *ctx, const char *key, size_t key_len,
                     int64_t mod_rev)
{
    resource_delete(ctx, key, key_len, mod_rev);
}

const struct upstream_feed resource_feed = {
    .rv = feed_rv,
    .list_begin = feed_list_begin,
    .list_item = feed_list_item,
    .list_end = feed_list_end,
    .list_abort = feed_list_abort,
    .put = feed_put,
    .del = feed_del,
    .progress = feed_progress,
    .flush = feed_flush,
    .state = feed_state,
    .reconnect = feed_reconnect,
    .history_reset = feed_history_reset,
    .catch_up = feed_catch_up,
    .set_reader = feed_set_reader,
};
