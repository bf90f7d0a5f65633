/*
 * upstream_redis_impl.h: the Redis adapter's state, shared by its modules
 * (not a public interface: src/upstream_redis.h is):
 *   upstream_redis.c        construction, seeds, status
 *   upstream_redis_nodes.c  discovery (standalone or Redis Cluster), the
 *                           nodes' connections, routing every command
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
struct rnode;

struct rres {
    struct upstream_redis *u;
    struct rnode *node; /* where its commands go; NULL before discovery */
    struct upstream_target t;
    char *name; /* R */
    size_t tag; /* its revision counter: index into u->rev_keys */
    char *k_objects, *k_log, *k_compacted;
    char *prefix; /* its keys' prefix (resource_type_ns_prefix) */
    enum rres_state state;
    unsigned gen;   /* bumped by every list start */
    bool in_flight; /* a snapshot command is in flight on its node's cmd */
    bool relist;    /* list again when it returns */
    bool reverify;  /* the retry checks the log again, not lists */
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

/* A command sent through a node (the routing's record, freed with its
 * reply or with the node's connections). */
struct rsend;
/* An ASK redirection in flight: the command on a one-shot connection. */
struct rask;

/*
 * A node: the two connections (cmd: commands; tail: the log's rounds) to
 * the Redis master that serves a group of resources.  A standalone Redis
 * has one node, all resources.  A Redis Cluster has one node per hash tag
 * (per revision counter: one with --redis-revisions global, one per
 * resource with per-resource), connected to the master of the tag's slot:
 * a cluster refuses a command or a transaction whose keys span two slots
 * (CROSSSLOT), even on one master, so one XREAD cannot read the logs of
 * two tags there; resources of one tag share one XREAD.
 */
struct rnode {
    struct upstream_redis *u;
    size_t index;
    int slot; /* the tag's hash slot; -1 standalone */
    char *host;
    uint16_t port;
    struct redis_client *cmd, *tail;
    bool cmd_ready, tail_ready, loaded;
    bool cmd_in_multi; /* a MULTI sent on cmd awaits its EXEC */
    long long tail_id; /* CLIENT ID of tail */
    /* the tail's round */
    bool round_busy, round_blocked;
    bool unblocking;     /* a CLIENT UNBLOCK of tail is in flight on cmd */
    unsigned *round_gen; /* per target, at the round's send; 0: not in it */
    struct event *reconnect;
    unsigned attempt; /* connections in a row lost without useful work */
    bool ever_connected;
    TAILQ_HEAD(, rsend) sends;
    LIST_HEAD(, rask) asks;
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
    /* discovery: CLUSTER SLOTS on a seed (or a known node) */
    struct redis_client *disc;
    struct event *disc_timer;
    unsigned disc_attempt; /* discoveries in a row that failed */
    size_t disc_tried;     /* candidates tried in this discovery */
    bool discovered, cluster;
    struct rnode **nodes;
    size_t n_nodes;
    LIST_HEAD(, rread) reads;
    struct backoff backoff;
    bool ever_connected;
    uint64_t connects, reconnects, connect_failures, malformed;
    char version[32];
    char last_error[256];
};

/* ---- upstream_redis_nodes.c ---- */

/* Starts the first discovery (the adapter's start). */
void upstream_redis_nodes_start(struct upstream_redis *u);
/* Frees the nodes and the discovery, without callbacks (the adapter's
 * free). */
void upstream_redis_nodes_free(struct upstream_redis *u);
/* Whether every node is usable (status's connected). */
bool upstream_redis_nodes_usable(const struct upstream_redis *u);

/* node is not NULL, both its connections are up and the library is
 * loaded. */
bool upstream_redis_usable(const struct rnode *node);

/*
 * The routing: every command the adapter sends for a resource goes
 * through here (the snapshots, the direct reads, the writes), so that it
 * reaches the master that serves the resource's hash slot (its node's cmd
 * connection).  argv: argc arguments (argvlen: their lengths; NULL: C
 * strings), copied.  cb (NULL: the reply is discarded) gets the reply,
 * with these exceptions, which follow Redis Cluster's redirections:
 *   MOVED <slot> <host:port>  the slot lives elsewhere now: the node's
 *       connections are dropped (no reply reaches cb, as when a
 *       connection is lost: the resource's state is reset and it
 *       resumes, verified, on the new master) and the slot map refreshed;
 *   ASK <slot> <host:port>  the slot is migrating and the key is already
 *       there: the command is sent once more, after ASKING, on a one-shot
 *       connection to that node, and cb gets that reply (an ERROR reply
 *       "ASK ... failed: why" when that connection fails).  Inside a
 *       MULTI, Redis aborts the transaction (EXECABORT reaches cb).
 * Returns false when the node cannot take the command (not usable, or the
 * connection just failed: its loss is handled as any other); cb is then
 * never called.  A caller that must answer for every command (a probe, a
 * write) keeps its own record and answers it when the node is lost:
 * upstream_redis_lost calls upstream_redis_read_fail(node, why) for the
 * probes, and a writer hooks there the same way.  A command answered
 * MOVED did not run: sending it again after the reconnect is safe.
 */
bool upstream_redis_res_send(struct rres *res, int argc, const char **argv,
                             const size_t *argvlen, redis_client_reply_fn cb,
                             void *arg);
/* The same for the tail connection of node (the log's rounds). */
bool upstream_redis_tail_cmd(struct rnode *node, int argc, const char **argv,
                             redis_client_reply_fn cb, void *arg);
/* The same for node's cmd connection, for what is no resource's (CLIENT
 * UNBLOCK). */
bool upstream_redis_node_cmd(struct rnode *node, int argc, const char **argv,
                             redis_client_reply_fn cb, void *arg);
/* Drops node's connections (why: the reason, logged and kept for status),
 * resets its resources (watch state false, direct reads failed), asks for
 * a slot map refresh and schedules the next connection after a jittered
 * backoff.  From any callback. */
void upstream_redis_lost(struct rnode *node, const char *why);

/* ---- upstream_redis.c ---- */

/* Reports res's watch state to its feed when it changes. */
void upstream_redis_set_up(struct rres *res, bool up);

/* ---- upstream_redis_list.c ---- */

/* Lists res from scratch, a new generation: rounds in flight forget it;
 * a snapshot command in flight finishes first. */
void upstream_redis_list_start(struct rres *res);
/* The retry timer's callback (arg: the rres): lists again, or checks the
 * log again when that check failed (reverify). */
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

/* Starts a round of node when none runs and its connections are usable. */
void upstream_redis_tail_send(struct rnode *node);
/* The set of node's watching targets changed, or progress is wanted now:
 * ends the round's wait early (CLIENT UNBLOCK), or starts one. */
void upstream_redis_tail_kick(struct rnode *node);

/* ---- upstream_redis_read.c ---- */

/* Fills res->reader. */
void upstream_redis_read_init(struct rres *res);
/* A read of res (arg: its callback's) in u->reads once sent, and its
 * free (out of u->reads, its timer and state with it). */
struct rread *upstream_redis_read_new(struct rres *res, void *arg);
void upstream_redis_read_free(struct rread *rd);
/* node's cmd went down: every read and write in flight for its resources
 * fails with RW_EUNAVAIL and why. */
void upstream_redis_read_fail(struct rnode *node, const char *why);
/* Frees every read without its callback (the adapter's free). */
void upstream_redis_read_free_all(struct upstream_redis *u);

/* ---- upstream_redis_write.c ---- */

/* Sets res->reader's get and write. */
void upstream_redis_write_init(struct rres *res);
/* A get or write in flight (rd->get_cb or rd->write_cb set) fails with
 * RW_EUNAVAIL and why: its callback runs, rd is freed. */
void upstream_redis_write_fail(struct rread *rd, const char *why);

#endif
