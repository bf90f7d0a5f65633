/*
 * upstream_redis_nodes.c: where the Redis adapter's commands go (see
 * upstream_redis_impl.h's struct rnode and upstream_redis_res_send).
 *
 * Discovery.  One connection at a time to a seed (then to the nodes known
 * from the last map, in turn) asks CLUSTER SLOTS:
 *   - "ERR This instance has cluster support disabled" (or no CLUSTER
 *     command): a standalone Redis; one node, at that address, serves
 *     every resource;
 *   - a slot map: a Redis Cluster; one node per hash tag, at the master
 *     of the tag's slot (redis_cluster_key_slot of "{rw}" or "{rw:R}").
 * A map in which a tag's slot has no master (a cluster still forming, or
 * failing over) is no answer: the next candidate is asked.  When every
 * candidate failed, discovery pauses (jittered backoff) and starts over.
 * The first answer fixes the mode; a later one that disagrees (a cluster
 * node become standalone) is a failure.
 *
 * Refresh.  A node's connection lost, or a MOVED, marks the map stale and
 * runs a discovery; when it answers, every node whose master changed
 * connects to the new one (its resources resume, verified: a promoted
 * replica that lost writes is found there, see upstream_redis_list.c), and
 * the others keep their connections.  A node that lost its connection
 * reconnects after a jittered backoff (per node: one failing master does
 * not stop the others), to the address the last map gave.
 *
 * Node connections: when either of its two goes down, both are dropped,
 * its resources go IDLE (state false), its direct reads fail.  The first
 * connection's handshake refused (wrong password, not a Redis server,
 * Redis older than 7) is fatal (upstream_config's fatal); later ones are
 * retried.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/event.h>

#include "cache/rw.h"
#include "src/backoff.h"
#include "src/log.h"
#include "src/redis_client.h"
#include "src/redis_cluster.h"
#include "src/redis_functions.h"
#include "src/upstream.h"
#include "src/upstream_redis_impl.h"
#include "src/upstream_redis_snap.h"

struct rsend {
    TAILQ_ENTRY(rsend) link;
    struct rnode *node;
    redis_client_reply_fn cb;
    void *arg;
    /* a copy of the command, for an ASK (NULL inside a transaction) */
    int argc;
    char **argv;
    size_t *lens;
};

struct rask {
    LIST_ENTRY(rask) link;
    struct rsend *s;
    struct redis_client *c;
};

static void node_connect(struct rnode *node);
static void node_lost(struct rnode *node, const char *why, bool at_once);
static void disc_start(struct upstream_redis *u);
static void disc_try(struct upstream_redis *u);

/* ==== routing ==== */

static void rsend_free(struct rsend *s)
{
    for (int i = 0; s->argv != NULL && i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s->lens);
    free(s);
}

static void ask_release(struct rask *a)
{
    redis_client_free(a->c);
    rsend_free(a->s);
    free(a);
}

/* Drops an ASK in flight without its callback (its node's connections
 * dropped). */
static void ask_free(struct rask *a)
{
    LIST_REMOVE(a, link);
    ask_release(a);
}

/* The redirected command's reply: to its callback, then the one-shot
 * connection goes (the callback may drop the node: a is off its list). */
static void ask_reply_cb(struct redis_client *c,
                         const struct redis_client_reply *r, void *arg)
{
    struct rask *a = arg;
    redis_client_reply_fn cb = a->s->cb;
    void *cb_arg = a->s->arg;

    LIST_REMOVE(a, link);
    if (cb != NULL)
        cb(c, r, cb_arg);
    ask_release(a); /* its client's free is deferred inside its callback */
}

/* The redirection failed: its callback gets an ERROR reply saying why. */
static void ask_fail(struct redis_client *c, struct rask *a, const char *why)
{
    char text[600];
    int n = snprintf(text, sizeof(text), "ASK redirection failed: %s", why);

    ask_reply_cb(c,
                 &(struct redis_client_reply){
                     .type = REDIS_CLIENT_ERROR,
                     .str = text,
                     .len = (size_t)RW_MIN(n, (int)sizeof(text) - 1)},
                 a);
}

static void ask_ready_cb(struct redis_client *c, void *arg)
{
    struct rask *a = arg;

    if (redis_client_command(c, 1, (const char *[]){"ASKING"}, NULL, NULL,
                             NULL) != RW_OK ||
        redis_client_command(c, a->s->argc, (const char **)a->s->argv,
                             a->s->lens, ask_reply_cb, a) != RW_OK)
        ask_fail(c, a, "cannot send");
}

static void ask_down_cb(struct redis_client *c, const char *why, void *arg)
{
    ask_fail(c, arg, why);
}

/* Follows a redirection of node's command s (popped): true when handled
 * (the reply goes nowhere else). */
static bool node_redirect(struct rnode *node, struct rsend *s,
                          const struct redis_client_reply *r)
{
    struct redis_cluster_redirect rd;
    char why[400];

    if (r->type != REDIS_CLIENT_ERROR ||
        !redis_cluster_redirect_parse(r->str, r->len, &rd))
        return false;
    const char *host = rd.host[0] != '\0' ? rd.host : node->host;
    if (rd.kind == REDIS_CLUSTER_ASK && s->argv != NULL) {
        static const struct redis_client_callbacks cbs = {ask_ready_cb,
                                                          ask_down_cb};
        struct rask *a = xcalloc(1, sizeof(*a));

        a->s = s;
        LIST_INSERT_HEAD(&node->asks, a, link);
        a->c = redis_client_new(node->u->base, host, rd.port,
                                node->u->password, node->u->cfg.dial_timeout,
                                &cbs, a);
        return true;
    }
    if (rd.kind == REDIS_CLUSTER_ASK)
        return false; /* inside a transaction: EXECABORT follows */
    snprintf(why, sizeof(why), "slot %u moved to %s:%u", rd.slot, host,
             (unsigned)rd.port);
    log_info("redis %s: %s:%u: %s", node->u->url, node->host,
             (unsigned)node->port, why);
    if (strcmp(host, node->host) != 0) {
        char *h = xstrdup(host);

        free(node->host);
        node->host = h;
    }
    node->port = rd.port;
    rsend_free(s);
    node_lost(node, why, true);
    return true;
}

static void node_reply_cb(struct redis_client *c,
                          const struct redis_client_reply *r, void *arg)
{
    struct rsend *s = arg;
    struct rnode *node = s->node;

    TAILQ_REMOVE(&node->sends, s, link);
    if (node_redirect(node, s, r))
        return;
    redis_client_reply_fn cb = s->cb;
    void *cb_arg = s->arg;

    rsend_free(s);
    if (cb != NULL)
        cb(c, r, cb_arg);
}

static bool node_send(struct rnode *node, struct redis_client *c, int argc,
                      const char **argv, const size_t *argvlen,
                      redis_client_reply_fn cb, void *arg, bool copy)
{
    struct rsend *s;

    if (c == NULL)
        return false;
    s = xcalloc(1, sizeof(*s));
    s->node = node;
    s->cb = cb;
    s->arg = arg;
    if (copy) {
        s->argc = argc;
        s->argv = xcalloc((size_t)argc, sizeof(*s->argv));
        s->lens = xcalloc((size_t)argc, sizeof(*s->lens));
        for (int i = 0; i < argc; i++) {
            s->lens[i] = argvlen != NULL ? argvlen[i] : strlen(argv[i]);
            s->argv[i] = xcalloc(1, s->lens[i] + 1);
            memcpy(s->argv[i], argv[i], s->lens[i]);
        }
    }
    TAILQ_INSERT_TAIL(&node->sends, s, link);
    if (redis_client_command(c, argc, argv, argvlen, node_reply_cb, s) ==
        RW_OK)
        return true;
    TAILQ_REMOVE(&node->sends, s, link);
    rsend_free(s);
    return false;
}

bool upstream_redis_res_send(struct rres *res, int argc, const char **argv,
                             const size_t *argvlen, redis_client_reply_fn cb,
                             void *arg)
{
    struct rnode *node = res->node;
    bool multi = strcmp(argv[0], "MULTI") == 0,
         exec = strcmp(argv[0], "EXEC") == 0;
    /* A command queued in a transaction cannot be redirected alone. */
    bool copy = !multi && !exec && node != NULL && !node->cmd_in_multi;

    if (node == NULL)
        return false;
    if (multi || exec)
        node->cmd_in_multi = multi;
    return node_send(node, node->cmd, argc, argv, argvlen, cb, arg, copy);
}

bool upstream_redis_tail_cmd(struct rnode *node, int argc, const char **argv,
                             redis_client_reply_fn cb, void *arg)
{
    return node_send(node, node->tail, argc, argv, NULL, cb, arg, false);
}

bool upstream_redis_node_cmd(struct rnode *node, int argc, const char **argv,
                             redis_client_reply_fn cb, void *arg)
{
    return node_send(node, node->cmd, argc, argv, NULL, cb, arg, false);
}

/* ==== node connections ==== */

bool upstream_redis_usable(const struct rnode *node)
{
    return node != NULL && node->cmd_ready && node->tail_ready &&
           node->loaded;
}

bool upstream_redis_nodes_usable(const struct upstream_redis *u)
{
    for (size_t i = 0; i < u->n_nodes; i++)
        if (!upstream_redis_usable(u->nodes[i]))
            return false;
    return u->n_nodes > 0;
}

/* Frees node's connections and what was in flight on them, without
 * callbacks. */
static void node_close(struct rnode *node)
{
    struct rsend *s;

    redis_client_free(node->cmd); /* deferred when inside its callbacks */
    redis_client_free(node->tail);
    node->cmd = node->tail = NULL;
    while ((s = TAILQ_FIRST(&node->sends)) != NULL) {
        TAILQ_REMOVE(&node->sends, s, link);
        rsend_free(s);
    }
    while (!LIST_EMPTY(&node->asks))
        ask_free(LIST_FIRST(&node->asks));
}

/* Drops node's connections; its resources go IDLE. */
static void node_drop(struct rnode *node)
{
    struct upstream_redis *u = node->u;

    node_close(node);
    node->cmd_ready = node->tail_ready = node->loaded = false;
    node->cmd_in_multi = false;
    node->round_busy = node->round_blocked = node->unblocking = false;
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        if (res->node != node)
            continue;
        event_del(res->retry);
        res->state = RES_IDLE;
        res->in_flight = res->relist = false;
        res->tries = 0;
        upstream_redis_snap_free(res->snap);
        res->snap = NULL;
        upstream_redis_set_up(res, false);
    }
}

/* upstream_redis_lost; at once: reconnect without a pause (a MOVED). */
static void node_lost(struct rnode *node, const char *why, bool at_once)
{
    struct upstream_redis *u = node->u;
    bool was = upstream_redis_usable(node);
    double delay;

    snprintf(u->last_error, sizeof(u->last_error), "%s", why);
    node_drop(node);
    upstream_redis_read_fail(node, why);
    if (!was)
        u->connect_failures++;
    delay = at_once ? 0 : backoff_delay(&u->backoff, node->attempt++);
    if (was || node->attempt <= 1)
        log_warnx("redis %s: %s: %s; retrying in %.2f s", u->url,
                  was ? "connection lost" : "cannot connect", why, delay);
    else
        log_debug("redis %s: cannot connect (attempt %u): %s; retrying in "
                  "%.2f s",
                  u->url, node->attempt, why, delay);
    struct timeval tv = rw_timeval(delay);
    event_add(node->reconnect, &tv);
    /* The map may have changed (a failover, a resharding); a standalone
     * Redis: the next seed. */
    if (!u->cluster)
        u->seed = (u->seed + 1) % u->n_seeds;
    disc_start(u);
}

void upstream_redis_lost(struct rnode *node, const char *why)
{
    node_lost(node, why, false);
}

/* Both connections are up and the library loaded: list or resume. */
static void node_start(struct rnode *node)
{
    struct upstream_redis *u = node->u;

    u->connects++;
    if (node->ever_connected) {
        u->reconnects++;
        log_info("redis %s: reconnected to %s:%u", u->url, node->host,
                 (unsigned)node->port);
    } else {
        log_info("redis %s: connected to %s:%u (Redis %s%s)", u->url,
                 node->host, (unsigned)node->port, u->version,
                 u->cluster ? ", cluster" : "");
    }
    for (size_t i = 0; i < u->n; i++) {
        struct rres *res = &u->res[i];

        if (res->node != node)
            continue;
        if (res->t.feed->rv(res->t.ctx) > 0) {
            res->resuming = node->ever_connected;
            upstream_redis_list_verify(res); /* then the rounds check
                                                trimming */
        } else {
            upstream_redis_list_start(res);
        }
    }
    node->ever_connected = u->ever_connected = true;
    upstream_redis_tail_send(node);
}

/* A first connection that reached a server which answered wrongly (a
 * wrong password, not Redis, Redis < 7): fatal; true then.  A server that
 * is loading its data, or a cluster node that is a replica or has lost its
 * shard for now, answers so only for a while. */
static bool fatal_first(struct upstream_redis *u, bool reached,
                        const char *why)
{
    static const char *const transient[] = {"LOADING", "READONLY",
                                            "MASTERDOWN", "CLUSTERDOWN",
                                            "TRYAGAIN"};

    if (u->ever_connected || !reached || u->cfg.fatal == NULL)
        return false;
    for (size_t i = 0; i < sizeof(transient) / sizeof(transient[0]); i++)
        if (strstr(why, transient[i]) != NULL)
            return false;
    u->connect_failures++;
    u->cfg.fatal(why, u->cfg.fatal_arg);
    return true;
}

static void node_load_cb(struct redis_client *c,
                         const struct redis_client_reply *r, void *arg)
{
    struct rnode *node = arg;
    char text[200], why[320];

    (void)c;
    if (r->type == REDIS_CLIENT_ERROR) {
        snprintf(why, sizeof(why),
                 "FUNCTION LOAD of the ringwatch library refused (Redis >= "
                 "7.0 is needed): %s",
                 redis_client_reply_text(r, text, sizeof(text)));
        if (!fatal_first(node->u, true, why))
            upstream_redis_lost(node, why);
        return;
    }
    node->loaded = true;
    if (upstream_redis_usable(node))
        node_start(node);
}

static void node_info_cb(struct redis_client *c,
                         const struct redis_client_reply *r, void *arg)
{
    struct rnode *node = arg;
    const char *v;

    (void)c;
    if (r->type == REDIS_CLIENT_STRING &&
        (v = strstr(r->str, "redis_version:")) != NULL)
        snprintf(node->u->version, sizeof(node->u->version), "%.*s",
                 (int)strcspn(v + 14, "\r\n"), v + 14);
}

static void node_cmd_ready_cb(struct redis_client *c, void *arg)
{
    struct rnode *node = arg;

    (void)c;
    node->cmd_ready = true;
    upstream_redis_node_cmd(node, 2, (const char *[]){"INFO", "server"},
                            node_info_cb, node);
    upstream_redis_node_cmd(node, 4,
                            (const char *[]){"FUNCTION", "LOAD", "REPLACE",
                                             redis_functions_source()},
                            node_load_cb, node);
}

static void node_id_cb(struct redis_client *c,
                       const struct redis_client_reply *r, void *arg)
{
    struct rnode *node = arg;

    (void)c;
    node->tail_id = r->type == REDIS_CLIENT_INTEGER ? r->integer : 0;
    node->tail_ready = true;
    if (upstream_redis_usable(node))
        node_start(node);
}

static void node_tail_ready_cb(struct redis_client *c, void *arg)
{
    struct rnode *node = arg;

    (void)c;
    upstream_redis_tail_cmd(node, 2, (const char *[]){"CLIENT", "ID"},
                            node_id_cb, node);
}

static void node_down_cb(struct redis_client *c, const char *why, void *arg)
{
    struct rnode *node = arg;

    if (!fatal_first(node->u, redis_client_reached(c), why))
        upstream_redis_lost(node, why);
}

static void node_connect(struct rnode *node)
{
    static const struct redis_client_callbacks cmd_cbs = {node_cmd_ready_cb,
                                                          node_down_cb};
    static const struct redis_client_callbacks tail_cbs = {
        node_tail_ready_cb, node_down_cb};
    struct upstream_redis *u = node->u;

    rw_assert(node->cmd == NULL && node->tail == NULL);
    node->cmd = redis_client_new(u->base, node->host, node->port, u->password,
                                 u->cfg.dial_timeout, &cmd_cbs, node);
    node->tail = redis_client_new(u->base, node->host, node->port,
                                  u->password, u->cfg.dial_timeout, &tail_cbs,
                                  node);
}

static void node_reconnect_cb(evutil_socket_t fd, short what, void *arg)
{
    struct rnode *node = arg;

    (void)fd;
    (void)what;
    if (node->u->disc != NULL || node->cmd != NULL)
        return; /* the refresh in flight connects it when it answers */
    node_connect(node);
}

/* ==== discovery ==== */

static struct rnode *node_new(struct upstream_redis *u, size_t index,
                              int slot)
{
    struct rnode *node = xcalloc(1, sizeof(*node));

    node->u = u;
    node->index = index;
    node->slot = slot;
    node->host = xstrdup("");
    node->round_gen = xcalloc(u->n ? u->n : 1, sizeof(*node->round_gen));
    node->reconnect = evtimer_new(u->base, node_reconnect_cb, node);
    TAILQ_INIT(&node->sends);
    LIST_INIT(&node->asks);
    return node;
}

/* The mode and the nodes, at the first answer. */
static void nodes_create(struct upstream_redis *u, bool cluster)
{
    u->discovered = true;
    u->cluster = cluster;
    u->n_nodes = cluster ? u->n_tags : 1;
    u->nodes = xcalloc(u->n_nodes, sizeof(*u->nodes));
    for (size_t i = 0; i < u->n_nodes; i++) {
        const char *tag = u->rev_keys[i]; /* "{rw...}:rev" */
        int slot = cluster ? (int)redis_cluster_key_slot(tag, strlen(tag))
                           : -1;

        u->nodes[i] = node_new(u, i, slot);
    }
    for (size_t i = 0; i < u->n; i++)
        u->res[i].node = u->nodes[cluster ? u->res[i].tag : 0];
}

/* node belongs at host:port: moves it there (dropping connections to
 * another address: a new master is tried at once, the backoff was the old
 * one's), connects it when idle and not waiting. */
static void node_place(struct rnode *node, const char *host, uint16_t port)
{
    if (strcmp(node->host, host) != 0 || node->port != port) {
        event_del(node->reconnect);
        node->attempt = 0;
        if (node->host[0] != '\0')
            log_info("redis %s: slot %d: master %s:%u (was %s:%u)",
                     node->u->url, node->slot, host, (unsigned)port,
                     node->host, (unsigned)node->port);
        if (node->cmd != NULL) {
            node_drop(node);
            upstream_redis_read_fail(node, "the slot's master changed");
        }
        free(node->host);
        node->host = xstrdup(host);
        node->port = port;
    }
    if (node->cmd == NULL && !evtimer_pending(node->reconnect, NULL))
        node_connect(node);
}

/* The candidate asked (seeds first, then the nodes known). */
static void disc_candidate(const struct upstream_redis *u, const char **host,
                           uint16_t *port)
{
    size_t k = u->seed % (u->n_seeds + u->n_nodes);

    if (k < u->n_seeds) {
        *host = u->seeds[k].host;
        *port = u->seeds[k].port;
    } else {
        *host = u->nodes[k - u->n_seeds]->host;
        *port = u->nodes[k - u->n_seeds]->port;
    }
}

static void disc_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    disc_start(arg);
}

/* This candidate gave no map: the next one, or a pause after them all. */
static void disc_failed(struct upstream_redis *u, const char *why)
{
    redis_client_free(u->disc);
    u->disc = NULL;
    snprintf(u->last_error, sizeof(u->last_error), "%s", why);
    log_debug("redis %s: discovery: %s", u->url, why);
    u->seed = (u->seed + 1) % (u->n_seeds + u->n_nodes);
    if (++u->disc_tried < u->n_seeds + u->n_nodes) {
        disc_try(u);
        return;
    }
    if (!u->discovered)
        u->connect_failures++;
    double delay = backoff_delay(&u->backoff, u->disc_attempt++);
    if (u->disc_attempt == 1)
        log_warnx("redis %s: no seed answered with a usable map (%s); "
                  "retrying in %.2f s",
                  u->url, why, delay);
    struct timeval tv = rw_timeval(delay);
    event_add(u->disc_timer, &tv);
}

static void disc_answered(struct upstream_redis *u)
{
    redis_client_free(u->disc);
    u->disc = NULL;
    u->disc_attempt = 0;
}

static void disc_slots_cb(struct redis_client *c,
                          const struct redis_client_reply *r, void *arg)
{
    struct upstream_redis *u = arg;
    const char *asked;
    uint16_t asked_port;
    char why[300], text[200];

    (void)c;
    disc_candidate(u, &asked, &asked_port);
    if (r->type == REDIS_CLIENT_ERROR &&
        (redis_cluster_disabled(r->str, r->len) ||
         strstr(redis_client_reply_text(r, text, sizeof(text)),
                "unknown command") != NULL)) {
        if (u->discovered && u->cluster) {
            disc_failed(u, "a cluster node answered as a standalone Redis");
            return;
        }
        char *host = xstrdup(asked);

        disc_answered(u);
        if (!u->discovered)
            nodes_create(u, false);
        node_place(u->nodes[0], host, asked_port);
        free(host);
        return;
    }
    struct redis_cluster_map *map =
        r->type == REDIS_CLIENT_ERROR
            ? NULL
            : redis_cluster_map_parse(r, asked, why, sizeof(why));
    if (r->type == REDIS_CLIENT_ERROR)
        snprintf(why, sizeof(why), "CLUSTER SLOTS refused: %s",
                 redis_client_reply_text(r, text, sizeof(text)));
    for (size_t t = 0; map != NULL && t < u->n_tags; t++) {
        const char *tag = u->rev_keys[t], *host;
        uint16_t port;
        unsigned slot = redis_cluster_key_slot(tag, strlen(tag));

        if (!redis_cluster_map_master(map, slot, &host, &port)) {
            snprintf(why, sizeof(why), "slot %u (of %.*s) has no master",
                     slot, (int)strcspn(tag, ":"), tag);
            redis_cluster_map_free(map);
            map = NULL;
        }
    }
    if (map == NULL || (u->discovered && !u->cluster)) {
        if (map != NULL)
            snprintf(why, sizeof(why),
                     "a standalone Redis answered as a cluster node");
        redis_cluster_map_free(map);
        disc_failed(u, why);
        return;
    }
    disc_answered(u);
    if (!u->discovered)
        nodes_create(u, true);
    for (size_t i = 0; i < u->n_nodes; i++) {
        const char *host;
        uint16_t port;

        redis_cluster_map_master(map, (unsigned)u->nodes[i]->slot, &host,
                                 &port);
        node_place(u->nodes[i], host, port);
    }
    redis_cluster_map_free(map);
}

static void disc_ready_cb(struct redis_client *c, void *arg)
{
    struct upstream_redis *u = arg;

    if (redis_client_command(c, 2, (const char *[]){"CLUSTER", "SLOTS"}, NULL,
                             disc_slots_cb, u) != RW_OK)
        disc_failed(u, "cannot send CLUSTER SLOTS");
}

static void disc_down_cb(struct redis_client *c, const char *why, void *arg)
{
    struct upstream_redis *u = arg;

    if (fatal_first(u, redis_client_reached(c), why))
        return;
    disc_failed(u, why);
}

/* Asks the current candidate for the map. */
static void disc_try(struct upstream_redis *u)
{
    static const struct redis_client_callbacks cbs = {disc_ready_cb,
                                                      disc_down_cb};
    const char *host;
    uint16_t port;

    disc_candidate(u, &host, &port);
    u->disc = redis_client_new(u->base, host, port, u->password,
                               u->cfg.dial_timeout, &cbs, u);
}

/* A discovery, unless one runs or pauses after its candidates failed. */
static void disc_start(struct upstream_redis *u)
{
    if (u->disc != NULL || evtimer_pending(u->disc_timer, NULL))
        return;
    u->disc_tried = 0;
    disc_try(u);
}

void upstream_redis_nodes_start(struct upstream_redis *u)
{
    u->disc_timer = evtimer_new(u->base, disc_timer_cb, u);
    disc_start(u);
}

void upstream_redis_nodes_free(struct upstream_redis *u)
{
    redis_client_free(u->disc);
    if (u->disc_timer != NULL)
        event_free(u->disc_timer);
    for (size_t i = 0; i < u->n_nodes; i++) {
        struct rnode *node = u->nodes[i];

        node_close(node);
        event_free(node->reconnect);
        free(node->round_gen);
        free(node->host);
        free(node);
    }
    free(u->nodes);
}
