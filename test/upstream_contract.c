/*
 * upstream_contract.c: the recording, checking feed (see
 * upstream_contract.h).
 */
#include "test/upstream_contract.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static void violation(struct upstream_contract *c, const char *what, int64_t a,
                      int64_t b)
{
    c->violations++;
    print_error("feed contract violated: %s (%lld, %lld)\n", what, (long long)a,
                (long long)b);
}

/* Every callback: none after the adapter's free. */
static struct upstream_contract *live(void *ctx, const char *what)
{
    struct upstream_contract *c = ctx;

    if (c->freed)
        violation(c, what, 0, 0);
    return c;
}

struct upstream_contract_kv *
upstream_contract_find(struct upstream_contract_kv *m, size_t n,
                       const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(m[i].key, key) == 0)
            return &m[i];
    return NULL;
}

void upstream_contract_copy(char *dst, const void *src, size_t len)
{
    snprintf(dst, UPSTREAM_CONTRACT_TEXT, "%.*s", (int)len, (const char *)src);
}

/* A key as the model keeps it: whole (the test fails on a longer one). */
static void copy_key(char *dst, const char *key, size_t key_len)
{
    assert_true(key_len < UPSTREAM_CONTRACT_TEXT);
    upstream_contract_copy(dst, key, key_len);
}

static int64_t feed_rv(void *ctx)
{
    return live(ctx, "rv after free")->rv;
}

static void feed_list_begin(void *ctx)
{
    struct upstream_contract *c = live(ctx, "list_begin after free");

    if (c->listing)
        violation(c, "list_begin inside a list", 0, 0);
    c->listing = true;
    c->dropped = false;
    c->n_pending = 0;
    c->list_begins++;
}

static void feed_list_item(void *ctx, const char *key, size_t key_len,
                           const void *value, size_t value_len, int64_t mod_rev)
{
    struct upstream_contract *c = live(ctx, "list_item after free");
    struct upstream_contract_kv *e;
    size_t plen = strlen(c->prefix);

    if (!c->listing)
        violation(c, "list_item outside a list", 0, 0);
    if (key_len < plen || memcmp(key, c->prefix, plen) != 0)
        violation(c, "list_item outside the prefix", mod_rev, 0);
    assert_true(c->n_pending < UPSTREAM_CONTRACT_MAX_KEYS);
    e = &c->pending[c->n_pending];
    copy_key(e->key, key, key_len);
    if (c->n_pending > 0 &&
        strcmp(c->pending[c->n_pending - 1].key, e->key) >= 0)
        violation(c, "list items not in key order", mod_rev, 0);
    c->n_pending++;
    upstream_contract_copy(e->value, value, value_len);
    e->mod_rev = mod_rev;
    if (c->item_hook)
        c->item_hook(c);
}

static void feed_list_end(void *ctx, int64_t rev)
{
    struct upstream_contract *c = live(ctx, "list_end after free");

    if (!c->listing)
        violation(c, "list_end outside a list", 0, 0);
    if (rev <= 0)
        violation(c, "list_end without a revision", rev, 0);
    if (c->dropped)
        violation(c, "list_end of a list dropped by a history reset", rev, 0);
    for (size_t i = 0; i < c->n_pending; i++)
        if (c->pending[i].mod_rev > rev)
            violation(c, "list item newer than the list", c->pending[i].mod_rev,
                      rev);
    c->listing = false;
    memcpy(c->model, c->pending, c->n_pending * sizeof(c->pending[0]));
    c->n_model = c->n_pending;
    memcpy(c->last_list, c->pending, c->n_pending * sizeof(c->pending[0]));
    c->n_last_list = c->n_pending;
    c->list_end_rev = rev;
    c->rv = rev;
    c->batch_rev = 0;
    c->list_ends++;
}

static void feed_list_abort(void *ctx)
{
    struct upstream_contract *c = live(ctx, "list_abort after free");

    if (!c->listing)
        violation(c, "list_abort outside a list", 0, 0);
    c->listing = false;
    c->dropped = false;
    c->n_pending = 0;
    c->list_aborts++;
}

/* An event at rev: after a complete list, in revision order. */
static void record(struct upstream_contract *c,
                   enum upstream_contract_kind kind, const char *key,
                   size_t key_len, const void *value, size_t value_len,
                   int64_t rev)
{
    struct upstream_contract_event *e;

    if (c->listing)
        violation(c, "event during a list", rev, 0);
    if (c->rv == 0)
        violation(c, "event before a complete list", rev, 0);
    if (rev < c->rv || (rev == c->rv && rev != c->batch_rev))
        violation(c, "event revision not above rv (duplicate or reordered)",
                  rev, c->rv);
    c->rv = rev;
    c->batch_rev = rev;
    c->unflushed = true;
    assert_true(c->n_log < UPSTREAM_CONTRACT_MAX_LOG);
    e = &c->log[c->n_log++];
    e->kind = kind;
    copy_key(e->key, key, key_len);
    upstream_contract_copy(e->value, value, value_len);
    e->rev = rev;
}

static void feed_put(void *ctx, const char *key, size_t key_len,
                     const void *value, size_t value_len, int64_t mod_rev)
{
    struct upstream_contract *c = live(ctx, "put after free");
    struct upstream_contract_kv *e;
    char k[UPSTREAM_CONTRACT_TEXT];

    record(c, UPSTREAM_CONTRACT_PUT, key, key_len, value, value_len, mod_rev);
    copy_key(k, key, key_len);
    e = upstream_contract_find(c->model, c->n_model, k);
    if (e == NULL) {
        assert_true(c->n_model < UPSTREAM_CONTRACT_MAX_KEYS);
        e = &c->model[c->n_model++];
        snprintf(e->key, sizeof(e->key), "%s", k);
    }
    upstream_contract_copy(e->value, value, value_len);
    e->mod_rev = mod_rev;
}

static void feed_del(void *ctx, const char *key, size_t key_len,
                     int64_t mod_rev)
{
    struct upstream_contract *c = live(ctx, "delete after free");
    struct upstream_contract_kv *e;
    char k[UPSTREAM_CONTRACT_TEXT];

    record(c, UPSTREAM_CONTRACT_DELETE, key, key_len, "", 0, mod_rev);
    copy_key(k, key, key_len);
    e = upstream_contract_find(c->model, c->n_model, k);
    if (e == NULL) {
        violation(c, "delete of an unknown key", mod_rev, 0);
        return;
    }
    *e = c->model[--c->n_model];
}

static void feed_progress(void *ctx, int64_t rev)
{
    struct upstream_contract *c = live(ctx, "progress after free");

    if (c->listing)
        violation(c, "progress during a list", rev, 0);
    if (c->rv == 0)
        violation(c, "progress before a complete list", rev, 0);
    if (rev < c->rv)
        violation(c, "progress below rv", rev, c->rv);
    if (rev < c->last_progress)
        violation(c, "progress went back", rev, c->last_progress);
    c->progresses++;
    c->last_progress = rev;
    c->unflushed = true;
    if (rev > c->rv)
        c->rv = rev;
}

static void feed_flush(void *ctx)
{
    struct upstream_contract *c = live(ctx, "flush after free");

    c->flushes++;
    c->unflushed = false;
    c->batch_rev = 0;
}

static void feed_state(void *ctx, bool watching)
{
    struct upstream_contract *c = live(ctx, "state after free");

    if (c->up != watching)
        c->up_changes++;
    c->up = watching;
}

static void feed_reconnect(void *ctx)
{
    live(ctx, "reconnect after free")->reconnects++;
}

/* src/upstream_history.c's verdict: the model starts over (an open list
 * is dropped: its list_abort is still to come; the adapter lists
 * again). */
static void feed_history_reset(void *ctx, enum upstream_reset why,
                               int64_t old_rev, int64_t new_rev)
{
    struct upstream_contract *c = live(ctx, "history_reset after free");

    c->resets++;
    c->dropped = c->listing;
    c->rv = 0;
    c->n_model = 0;
    c->n_pending = 0;
    c->last_progress = 0;
    c->batch_rev = 0;
}

static void feed_set_reader(void *ctx, const struct upstream_reader *rd)
{
    live(ctx, "set_reader after free")->reader = rd;
}

const struct upstream_feed upstream_contract_feed = {
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
    .set_reader = feed_set_reader,
};

void upstream_contract_init(struct upstream_contract *c, const char *prefix)
{
    memset(c, 0, sizeof(*c));
    c->prefix = prefix;
    c->rt.resource = "contracts";
    c->rt.key_prefix = prefix;
}

struct upstream_target upstream_contract_target(struct upstream_contract *c)
{
    return (struct upstream_target){&c->rt, &upstream_contract_feed, c};
}

void upstream_contract_turn(struct upstream_contract *c)
{
    if (c->unflushed)
        violation(c, "a batch not flushed before the loop turned", c->rv, 0);
}

void upstream_contract_freed(struct upstream_contract *c)
{
    if (c->reader != NULL)
        violation(c, "reader still set after free", 0, 0);
    if (c->listing)
        violation(c, "list left open after free", 0, 0);
    c->freed = true;
}
