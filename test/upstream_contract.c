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

#include "cache/rw.h"

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

/* ==== the write scenarios ==== */

/* What one get or write answered. */
struct contract_answer {
    bool done;
    int err;
    int64_t rev, mod_rev;
    bool present;
    char value[UPSTREAM_CONTRACT_TEXT];
};

static void contract_write_cb(int err, const char *why,
                              const struct upstream_write_result *r, void *arg)
{
    struct contract_answer *a = arg;

    (void)why;
    a->done = true;
    a->err = err;
    if (r != NULL) {
        a->rev = r->rev;
        a->mod_rev = r->mod_rev;
        a->present = r->value != NULL;
        if (r->value != NULL)
            upstream_contract_copy(a->value, r->value, r->value_len);
    }
}

static void contract_get_cb(int err, const char *why, int64_t rev,
                            const struct upstream_kv *kv, void *arg)
{
    struct contract_answer *a = arg;

    (void)why;
    a->done = true;
    a->err = err;
    a->rev = rev;
    a->present = kv != NULL;
    if (kv != NULL) {
        a->mod_rev = kv->mod_rev;
        upstream_contract_copy(a->value, kv->value, kv->value_len);
    }
}

struct contract_run {
    struct upstream_contract *c;
    void (*turn)(void *arg);
    void *arg;
    char key[2][UPSTREAM_CONTRACT_TEXT];
    char value[4][UPSTREAM_CONTRACT_TEXT];
};

/* Runs the loop until a is answered (never from inside the call). */
static void contract_await(struct contract_run *run, struct contract_answer *a)
{
    for (int i = 0; i < 1000 && !a->done; i++)
        run->turn(run->arg);
    assert_true(a->done);
}

static struct contract_answer contract_get(struct contract_run *run, int key)
{
    const struct upstream_reader *rd = run->c->reader;
    struct contract_answer a = {0};

    assert_non_null(rd->get(rd->ctx, run->key[key], strlen(run->key[key]),
                            contract_get_cb, &a));
    assert_false(a.done);
    contract_await(run, &a);
    return a;
}

static struct contract_answer contract_write(struct contract_run *run,
                                             enum upstream_write_op op,
                                             int key, int value,
                                             int64_t expected)
{
    const struct upstream_reader *rd = run->c->reader;
    struct contract_answer a = {0};
    struct upstream_write w = {
        .op = op,
        .key = run->key[key],
        .key_len = strlen(run->key[key]),
        .value = op == UPSTREAM_DELETE ? NULL : run->value[value],
        .value_len = op == UPSTREAM_DELETE ? 0 : strlen(run->value[value]),
        .expected = expected,
    };

    assert_non_null(rd->write(rd->ctx, &w, contract_write_cb, &a));
    assert_false(a.done);
    contract_await(run, &a);
    return a;
}

/* The feed's log holds exactly the writes at want[0..n), in order, from
 * the first one on. */
static void contract_feed_shows(struct contract_run *run,
                                const struct upstream_contract_event *want,
                                size_t n)
{
    struct upstream_contract *c = run->c;
    size_t first;

    for (int i = 0; i < 1000 && c->rv < want[n - 1].rev; i++)
        run->turn(run->arg);
    assert_true(c->rv >= want[n - 1].rev);
    for (first = 0; first < c->n_log && c->log[first].rev < want[0].rev;
         first++)
        ;
    assert_true(c->n_log - first >= n);
    for (size_t i = 0; i < n; i++) {
        const struct upstream_contract_event *e = &c->log[first + i];

        assert_int_equal(e->kind, want[i].kind);
        assert_int_equal(e->rev, want[i].rev);
        assert_string_equal(e->key, want[i].key);
        if (e->kind == UPSTREAM_CONTRACT_PUT)
            assert_string_equal(e->value, want[i].value);
    }
}

static void contract_event(struct upstream_contract_event *e,
                           enum upstream_contract_kind kind, const char *key,
                           const char *value, int64_t rev)
{
    e->kind = kind;
    e->rev = rev;
    upstream_contract_copy(e->key, key, strlen(key));
    upstream_contract_copy(e->value, value, strlen(value));
}

void upstream_contract_writes(struct upstream_contract *c,
                              void (*turn)(void *arg), void *arg)
{
    struct contract_run run = {.c = c, .turn = turn, .arg = arg};
    struct upstream_contract_event want[6];
    struct contract_answer a;
    int64_t r1, r2, r3, r4, r5, r6;

    assert_non_null(c->reader);
    assert_non_null(c->reader->get);
    assert_non_null(c->reader->write);
    snprintf(run.key[0], sizeof(run.key[0]), "%sw1", c->prefix);
    snprintf(run.key[1], sizeof(run.key[1]), "%sw2", c->prefix);
    for (int i = 0; i < 4; i++)
        snprintf(run.value[i], sizeof(run.value[i]),
                 "{\"metadata\":{\"name\":\"w1\"},\"v\":%d}", i);

    a = contract_get(&run, 0);
    assert_int_equal(a.err, 0);
    assert_false(a.present);
    assert_true(a.rev > 0);

    a = contract_write(&run, UPSTREAM_CREATE, 0, 0, 0);
    assert_int_equal(a.err, 0);
    r1 = a.rev;
    a = contract_write(&run, UPSTREAM_CREATE, 0, 1, 0);
    assert_int_equal(a.err, RW_EEXIST);
    assert_int_equal(a.mod_rev, r1);
    a = contract_get(&run, 0);
    assert_int_equal(a.err, 0);
    assert_true(a.present);
    assert_int_equal(a.mod_rev, r1);
    assert_true(a.rev >= r1);
    assert_string_equal(a.value, run.value[0]);

    a = contract_write(&run, UPSTREAM_UPDATE, 0, 1, r1);
    assert_int_equal(a.err, 0);
    r2 = a.rev;
    assert_true(r2 > r1);
    a = contract_write(&run, UPSTREAM_UPDATE, 0, 3, r1); /* stale */
    assert_int_equal(a.err, RW_ECONFLICT);
    assert_int_equal(a.mod_rev, r2);
    a = contract_write(&run, UPSTREAM_UPDATE, 0, 2, 0); /* any */
    assert_int_equal(a.err, 0);
    r3 = a.rev;
    assert_true(r3 > r2);
    a = contract_write(&run, UPSTREAM_UPDATE, 1, 2, 0);
    assert_int_equal(a.err, RW_ENOTFOUND);
    a = contract_write(&run, UPSTREAM_UPDATE, 1, 2, r3);
    assert_int_equal(a.err, RW_ENOTFOUND);

    a = contract_write(&run, UPSTREAM_DELETE, 0, 0, r2); /* stale */
    assert_int_equal(a.err, RW_ECONFLICT);
    assert_int_equal(a.mod_rev, r3);
    a = contract_write(&run, UPSTREAM_DELETE, 0, 0, r3);
    assert_int_equal(a.err, 0);
    r4 = a.rev;
    assert_true(a.present);
    assert_string_equal(a.value, run.value[2]);
    a = contract_write(&run, UPSTREAM_DELETE, 0, 0, 0);
    assert_int_equal(a.err, RW_ENOTFOUND);
    a = contract_write(&run, UPSTREAM_DELETE, 0, 0, r4);
    assert_int_equal(a.err, RW_ENOTFOUND);
    a = contract_get(&run, 0);
    assert_int_equal(a.err, 0);
    assert_false(a.present);
    assert_true(a.rev >= r4);

    a = contract_write(&run, UPSTREAM_CREATE, 0, 3, 0);
    assert_int_equal(a.err, 0);
    r5 = a.rev;
    a = contract_write(&run, UPSTREAM_DELETE, 0, 0, 0); /* any */
    assert_int_equal(a.err, 0);
    r6 = a.rev;
    assert_string_equal(a.value, run.value[3]);

    contract_event(&want[0], UPSTREAM_CONTRACT_PUT, run.key[0], run.value[0],
                   r1);
    contract_event(&want[1], UPSTREAM_CONTRACT_PUT, run.key[0], run.value[1],
                   r2);
    contract_event(&want[2], UPSTREAM_CONTRACT_PUT, run.key[0], run.value[2],
                   r3);
    contract_event(&want[3], UPSTREAM_CONTRACT_DELETE, run.key[0], "", r4);
    contract_event(&want[4], UPSTREAM_CONTRACT_PUT, run.key[0], run.value[3],
                   r5);
    contract_event(&want[5], UPSTREAM_CONTRACT_DELETE, run.key[0], "", r6);
    contract_feed_shows(&run, want, 6);
    assert_int_equal(c->violations, 0);
}
