/*
 * upstream_redis_impl.h: the Redis adapter's state, shared by its modules
 * (not a public interface: src/upstream_redis.h is):
 *   upstream_redis.c        connections, construction, status
 *   upstream_redis_list.c   snapshots, the checks of the store's history,
 *                           applying log entries
 *   upstream_redis_tail.c   the log's rounds on the tail connection
 *   upstream_redis_read.c   the direct reads (upstream_reader)
 *   upstream_redis_write.c  its get and conditional writes
 * See upstream_redis.c for the design.
 */
#ifndef UPSTREAM_REDIS_IMPL_H
#define UPSTREAM_REDIS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <event2/event.h>

#include "src/backoff.h"
#include "src/redis_client.h"
#include "src/upstream.h"

enum rres_state { RES_IDLE, RES_LISTING, RES_VERIFYING, RES_WATCHING };

struct upstream_redis;

struct rres {
    struct upstream_redis *u;
    struct upstream_target t;
    char *name; /* R */
    size_t tag; /* its revision counter: index into u->rev_keys */
    char *k_objects, *k_log, *k_compacted;
    char *prefix; /* its keys' prefix (resource_type_ns_prefix) */
    enum rres_state state;
    unsigned gen;   /* bumped by every list start */
    bool in_flight; /* a snapshot command is in flight on cmd */
    bool relist;    /* list again when it returns */
    bool resuming;  /* the next round re-establishes a lost watch */
    bool watching;  /* a round delivered since the last (re)start */
    unsigned tries; /* snapshots in a row lost to trimming */
    /* the last log entry ID read, malformed ones included, so that the
     * next read starts past them: "<seen_ms>-<seen_seq>" */
    int64_t seen_ms, seen_seq;
    /* the last log entry applied (listed or delivered): its revision (0:
     * none) and key, what a reconnect checks the log still holds */
    int64_t last_rev;
    char *last_key;
    size_t last_key_len;
    struct upstream_redis_snap *snap;
    int64_t l0_seq; /* the sequence of the snapshot's L0 ID */
    struct event *retry;
    bool warned; /* malformed data logged at warning level once */
    struct upstream_reader reader;
};

/* A direct read (probe, or a page answered RW_EEXPIRED from a timer). */
struct rread {
    LIST_ENTRY(rread) link;
    struct rres *res;
    bool canceled;
    bool is_page;
    upstream_probe_cb probe_cb;
    upstream_page_cb page_cb;
    void *arg;
    int64_t since, rev;
    struct event *timer;
    /* a get or a write (upstream_redis_write.c): its callbacks and state,
     * freed with the read */
    upstream_get_cb get_cb;
    upstream_write_cb write_cb;
    void *state;
    void (*state_free)(void *state); /* NULL: free() */
};

struct seed {
    char *host;
    uint16_t port;
};

struct upstream_redis {
    struct event_base *base;
    char *url;
    struct seed *seeds;
    size_t n_seeds, seed;
    char *password;
    struct upstream_config cfg;
    bool per_resource;
    int64_t history;
    char **rev_keys; /* one per tag */
    size_t n_tags;
    struct rres *res;
    size_t n;
    bool started;
    struct redis_client *cmd, *tail;
    bool cmd_ready, tail_ready, loaded;
    long long tail_id; /* CLIENT ID of tail */
    /* the tail's round */
    bool round_busy, round_blocked;
    bool unblocking;     /* a CLIENT UNBLOCK of tail is in flight on cmd */
    unsigned *round_gen; /* per target, at the round's send; 0: not in it */
    LIST_HEAD(, rread) reads;
    struct event *reconnect;
    struct backoff backoff;
    unsigned attempt;
    bool ever_connected;
    uint64_t connects, reconnects, connect_failures, malformed;
    char version[32];
    char last_error[256];
};

/* ---- upstream_redis.c ---- */

/* Both connections are up and the library is loaded. */
bool upstream_redis_usable(const struct upstream_redis *u);
/* Sends argv (C strings) on c; false when c is NULL or not ready (its loss
 * is reported by its on_down). */
bool upstream_redis_send(struct redis_client *c, int argc, const char **argv,
                         redis_client_reply_fn cb, void *arg);
/* Reports res's watch state to its feed when it changes. */
void upstream_redis_set_up(struct rres *res, bool up);
/* Drops both connections (why: the reason, logged and kept for status) and
 * schedules the next attempt, on the next seed.  From any callback. */
void upstream_redis_lost(struct upstream_redis *u, const char *why);

/* ---- upstream_redis_list.c ---- */

/* Lists res from scratch, a new generation: rounds in flight forget it;
 * a snapshot command in flight finishes first. */
void upstream_redis_list_start(struct rres *res);
/* The retry timer's callback (arg: the rres): lists again. */
void upstream_redis_list_retry_cb(evutil_socket_t fd, short what, void *arg);
/* Checks, before res's watch resumes on a new connection, that the log
 * still holds the history served; then it joins the rounds (or the tag is
 * reset). */
void upstream_redis_list_verify(struct rres *res);
/* T:rev of tag read as rev: below what a target of the tag reached, the
 * store went back: every target of the tag is reset and listed again, and
 * true is returned. */
bool upstream_redis_list_check_rev(struct upstream_redis *u, size_t tag,
                                   int64_t rev);
/* Applies the entries of one stream (an array of [ID, [field, value, ...]])
 * above after: to snap when not NULL, else as the feed's put and del.
 * Malformed entries are counted and skipped.  Returns the last revision
 * applied (after when none). */
int64_t upstream_redis_list_apply(struct rres *res,
                                  const struct redis_client_reply *es,
                                  int64_t after,
                                  struct upstream_redis_snap *snap);

/* ---- upstream_redis_tail.c ---- */

/* Starts a round when none runs and the connections are usable. */
void upstream_redis_tail_send(struct upstream_redis *u);
/* The set of watching targets changed, or progress is wanted now: ends
 * the round's wait early (CLIENT UNBLOCK), or starts one. */
void upstream_redis_tail_kick(struct upstream_redis *u);

/* ---- upstream_redis_read.c ---- */

/* Fills res->reader. */
void upstream_redis_read_init(struct rres *res);
/* A read of res (arg: its callback's) in u->reads once sent, and its
 * free (out of u->reads, its timer and state with it). */
struct rread *upstream_redis_read_new(struct rres *res, void *arg);
void upstream_redis_read_free(struct rread *rd);
/* cmd went down: every probe in flight fails with RW_EUNAVAIL and why. */
void upstream_redis_read_fail(struct upstream_redis *u, const char *why);
/* Frees every read without its callback (the adapter's free). */
void upstream_redis_read_free_all(struct upstream_redis *u);

/* ---- upstream_redis_write.c ---- */

/* Sets res->reader's get and write. */
void upstream_redis_write_init(struct rres *res);
/* A get or write in flight (rd->get_cb or rd->write_cb set) fails with
 * RW_EUNAVAIL and why: its callback runs, rd is freed. */
void upstream_redis_write_fail(struct rread *rd, const char *why);

#endif
