/*
 * upstream_contract.h: a recording feed (src/upstream.h) that checks, as
 * the callbacks come, the contract every upstream adapter keeps with its
 * targets, and keeps a model of the target's keys for the test to compare
 * with the store.  Any adapter's test uses it: one struct
 * upstream_contract per target, upstream_contract_target() handed to the
 * adapter, upstream_contract_turn() between event loop turns,
 * upstream_contract_freed() after the adapter's free; violations counts
 * the breaches (each printed), and a test asserts it is 0.
 *
 * What is checked (upstream.h's numbered contract): list_begin never
 * inside a list; items only inside one, under the prefix, in strictly
 * increasing key order, none above the list's revision; list_end and
 * list_abort only inside one; put and delete never during a list nor
 * before the first complete one, each revision above the cache's (equal
 * only to the previous one of the same batch: one transaction), deletes
 * of keys held; progress never during a list, before the first complete
 * one nor below the revision reached; a list open at history_reset ended
 * by list_abort, never list_end; every batch flushed before the loop
 * turns; after the adapter's free, its reader unset, no list open and no
 * callback at all.
 */
#ifndef UPSTREAM_CONTRACT_H
#define UPSTREAM_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/resource_type.h"
#include "src/upstream.h"

#define UPSTREAM_CONTRACT_MAX_KEYS 128
#define UPSTREAM_CONTRACT_MAX_LOG 512
/* Values are kept truncated to this; a key must be shorter (the test
 * fails otherwise: a truncated key would break the order and model
 * checks). */
#define UPSTREAM_CONTRACT_TEXT 256

struct upstream_contract_kv {
    char key[UPSTREAM_CONTRACT_TEXT];
    char value[UPSTREAM_CONTRACT_TEXT];
    int64_t mod_rev;
};

enum upstream_contract_kind { UPSTREAM_CONTRACT_PUT, UPSTREAM_CONTRACT_DELETE };

struct upstream_contract_event {
    enum upstream_contract_kind kind;
    char key[UPSTREAM_CONTRACT_TEXT];
    char value[UPSTREAM_CONTRACT_TEXT];
    int64_t rev;
};

struct upstream_contract {
    struct resource_type rt; /* its key_prefix is prefix */
    const char *prefix;
    int64_t rv;
    bool listing;
    bool dropped; /* the open list was dropped by history_reset */
    /* after the last list + events */
    struct upstream_contract_kv model[UPSTREAM_CONTRACT_MAX_KEYS];
    size_t n_model;
    /* the list being received */
    struct upstream_contract_kv pending[UPSTREAM_CONTRACT_MAX_KEYS];
    size_t n_pending;
    /* the last complete list */
    struct upstream_contract_kv last_list[UPSTREAM_CONTRACT_MAX_KEYS];
    size_t n_last_list;
    int64_t list_end_rev;
    /* events since the start */
    struct upstream_contract_event log[UPSTREAM_CONTRACT_MAX_LOG];
    size_t n_log;
    int list_begins, list_ends, list_aborts;
    int flushes, progresses, reconnects, up_changes, resets;
    int64_t last_progress;
    bool up;
    int violations;
    bool unflushed;    /* put/delete/progress since the last flush */
    int64_t batch_rev; /* the last event's revision in this batch */
    bool freed;        /* upstream_contract_freed was called */
    /* called after each list item (the test's writes between pages) */
    void (*item_hook)(struct upstream_contract *c);
    const struct upstream_reader *reader; /* set_reader */
    void *item_hook_arg;                  /* the test's own */
};

/* The feed, ctx a struct upstream_contract. */
extern const struct upstream_feed upstream_contract_feed;

/* Empties c for a target whose keys are under prefix (borrowed). */
void upstream_contract_init(struct upstream_contract *c, const char *prefix);
/* The target to hand to the adapter. */
struct upstream_target upstream_contract_target(struct upstream_contract *c);
/* Between event loop turns: every batch must have been flushed. */
void upstream_contract_turn(struct upstream_contract *c);
/* After the adapter's free: its reader unset, no list open; any callback
 * from now on is a violation. */
void upstream_contract_freed(struct upstream_contract *c);

/*
 * The write scenarios, the same for every adapter (src/upstream.h's get
 * and write), on the keys PREFIX"w1" and PREFIX"w2" (absent at the start)
 * of c's target, whose feed must be up: get of an absent and a present
 * key; CREATE, and CREATE of a key that exists (RW_EEXIST with its mod
 * revision); UPDATE at the key's revision, at a stale one (RW_ECONFLICT
 * with the current mod revision), at any (expected 0), of an absent key
 * (RW_ENOTFOUND); DELETE at a stale revision (RW_ECONFLICT), at the
 * current one and at any (the deleted value answered), of an absent key
 * (RW_ENOTFOUND); then every write shows up on the feed, once, in order,
 * at the revision its answer gave.  Values are JSON objects named after
 * their key (a Redis store checks that).  turn(arg) runs one turn of the
 * adapter's event loop (returning within ~10 ms when idle) and
 * upstream_contract_turn.  Fails the running cmocka test on a breach.
 */
void upstream_contract_writes(struct upstream_contract *c,
                              void (*turn)(void *arg), void *arg);

/* The model's entry for key, or NULL. */
struct upstream_contract_kv *
upstream_contract_find(struct upstream_contract_kv *m, size_t n,
                       const char *key);
/* Copies len bytes of src into dst (UPSTREAM_CONTRACT_TEXT bytes), truncated,
 * as the model keeps them. */
void upstream_contract_copy(char *dst, const void *src, size_t len);

#endif
