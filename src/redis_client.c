/*
 * redis_client.c: hiredis' async context on libevent, behind a neutral API.
 *
 * Lifetimes.  hiredis frees its context itself when a connection fails or
 * is lost (after onConnect(REDIS_ERR) or onDisconnect), and on
 * redisAsyncFree, which it defers while one of its reply callbacks runs.
 * So: c->ac is cleared the moment hiredis is about to free the context,
 * before any of our callbacks runs; a context we give up is detached first
 * (ac->data = NULL, every pending command's back pointer cleared), so that
 * the NULL replies and the onDisconnect hiredis delivers while freeing it
 * reach nobody.  Each command carries a small struct cmd that hiredis hands
 * back exactly once (with the reply or with NULL) and that frees itself
 * then.
 */
#include "src/redis_client.h"

#include <hiredis/async.h>
#include <hiredis/adapters/libevent.h>
#include <hiredis/hiredis.h>

#include <event2/event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "cache/rw.h"
#include "src/log.h"

struct cmd {
    TAILQ_ENTRY(cmd) link;
    struct redis_client *c; /* NULL: detached, the reply goes nowhere */
    redis_client_reply_fn cb;
    void *arg;
};

struct redis_client {
    struct event_base *base;
    redisAsyncContext *ac; /* NULL once hiredis frees it or we gave it up */
    struct redis_client_callbacks cbs;
    void *arg;
    char *password;
    char address[160];
    struct event *timer; /* the handshake deadline; an immediate failure */
    double handshake_timeout;
    char *early_error; /* redisAsyncConnect failed at once */
    bool reached, ready, down;
    TAILQ_HEAD(, cmd) cmds;
};

static void detach_commands(struct redis_client *c)
{
    struct cmd *k;
    while ((k = TAILQ_FIRST(&c->cmds)) != NULL) {
        TAILQ_REMOVE(&c->cmds, k, link);
        k->c = NULL;
    }
}

/* Gives the context up (if we still hold it) and reports why, once. */
static void client_lose(struct redis_client *c, const char *why)
{
    if (c->down)
        return;
    c->down = true;
    c->ready = false;
    evtimer_del(c->timer);
    detach_commands(c);
    if (c->ac != NULL) {
        redisAsyncContext *ac = c->ac;
        c->ac = NULL;
        ac->data = NULL;
        redisAsyncFree(ac);
    }
    log_debug("redis %s: down: %s", c->address, why);
    if (c->cbs.on_down != NULL)
        c->cbs.on_down(c, why, c->arg); /* may free c: last */
}

/* hiredis is freeing ac: let go of it, then report. */
static void client_lost(struct redis_client *c, const redisAsyncContext *ac,
                        const char *what)
{
    char why[640];
    c->ac = NULL;
    ((redisAsyncContext *)ac)->data = NULL; /* its last callbacks: nobody */
    /* hiredis copies the context's error into ac->err only after onConnect */
    const char *err = ac->err != 0     ? ac->errstr
                      : ac->c.err != 0 ? ac->c.errstr
                                       : "";
    if (err[0] != '\0')
        snprintf(why, sizeof(why), "redis %s: %s: %s", c->address, what, err);
    else
        snprintf(why, sizeof(why), "redis %s: %s", c->address, what);
    client_lose(c, why);
}

static size_t reply_count(const redisReply *r)
{
    size_t n = 1;
    if (r->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i < r->elements; i++)
            n += reply_count(r->element[i]);
    return n;
}

/* Fills out[0] from r, its elements from *next on. */
static void reply_fill(const redisReply *r, struct redis_client_reply *out,
                       struct redis_client_reply **next)
{
    memset(out, 0, sizeof(*out));
    switch (r->type) {
    case REDIS_REPLY_STRING:
        out->type = REDIS_CLIENT_STRING;
        break;
    case REDIS_REPLY_STATUS:
        out->type = REDIS_CLIENT_STATUS;
        break;
    case REDIS_REPLY_ERROR:
        out->type = REDIS_CLIENT_ERROR;
        break;
    case REDIS_REPLY_INTEGER:
        out->type = REDIS_CLIENT_INTEGER;
        out->integer = r->integer;
        return;
    case REDIS_REPLY_ARRAY: {
        struct redis_client_reply *elem = *next;
        out->type = REDIS_CLIENT_ARRAY;
        out->elem = elem;
        out->n = r->elements;
        *next += r->elements;
        for (size_t i = 0; i < r->elements; i++)
            reply_fill(r->element[i], &elem[i], next);
        return;
    }
    default:
        out->type = REDIS_CLIENT_NIL;
        return;
    }
    out->str = r->str;
    out->len = r->len;
}

static void client_reply_cb(redisAsyncContext *ac, void *r, void *privdata)
{
    struct cmd *k = privdata;
    struct redis_client *c = k->c;
    (void)ac;
    if (c == NULL) {
        free(k);
        return;
    }
    TAILQ_REMOVE(&c->cmds, k, link);
    redis_client_reply_fn cb = k->cb;
    void *arg = k->arg;
    free(k);
    if (r == NULL) {
        /* hiredis is freeing the context: the connection is gone. */
        client_lost(c, ac, "connection lost");
        return;
    }
    if (cb == NULL)
        return;
    size_t n = reply_count(r);
    struct redis_client_reply one,
        *all = n == 1 ? &one : xcalloc(n, sizeof(*all));
    struct redis_client_reply *next = all + 1;
    reply_fill(r, all, &next);
    cb(c, all, arg);
    if (all != &one)
        free(all);
}

static int send_argv(struct redis_client *c, int argc, const char **argv,
                     const size_t *argvlen, redis_client_reply_fn cb, void *arg)
{
    rw_assert(c->ac != NULL);
    size_t *lens = NULL;
    if (argvlen == NULL) {
        lens = xcalloc((size_t)argc, sizeof(*lens));
        for (int i = 0; i < argc; i++)
            lens[i] = strlen(argv[i]);
        argvlen = lens;
    }
    struct cmd *k = xcalloc(1, sizeof(*k));
    k->c = c;
    k->cb = cb;
    k->arg = arg;
    int rc =
        redisAsyncCommandArgv(c->ac, client_reply_cb, k, argc, argv, argvlen);
    free(lens);
    if (rc != REDIS_OK) {
        free(k);
        return RW_ECLOSED;
    }
    TAILQ_INSERT_TAIL(&c->cmds, k, link);
    return RW_OK;
}

static void client_handshake_cb(struct redis_client *c,
                                const struct redis_client_reply *reply,
                                void *arg)
{
    (void)arg;
    if (reply->type == REDIS_CLIENT_ERROR) {
        char text[256], why[640];
        snprintf(why, sizeof(why), "redis %s: %s refused: %s", c->address,
                 c->password != NULL ? "AUTH" : "PING",
                 redis_client_reply_text(reply, text, sizeof(text)));
        client_lose(c, why);
        return;
    }
    evtimer_del(c->timer);
    c->ready = true;
    if (c->cbs.on_ready != NULL)
        c->cbs.on_ready(c, c->arg);
}

static void client_connect_cb(const redisAsyncContext *ac, int status)
{
    struct redis_client *c = ac->data;
    if (c == NULL)
        return;
    if (status != REDIS_OK) {
        client_lost(c, ac, "cannot connect");
        return;
    }
    c->reached = true;
    const char *argv[2] = {"AUTH", c->password};
    if (send_argv(c, c->password != NULL ? 2 : 1,
                  c->password != NULL ? argv : (const char *[]){"PING"}, NULL,
                  client_handshake_cb, NULL) != RW_OK)
        client_lose(c, "redis: cannot send the handshake");
}

static void client_disconnect_cb(const redisAsyncContext *ac, int status)
{
    struct redis_client *c = ac->data;
    (void)status;
    if (c == NULL)
        return;
    client_lost(c, ac, "connection closed");
}

static void client_timer_cb(evutil_socket_t fd, short what, void *arg)
{
    struct redis_client *c = arg;
    char why[640];
    (void)fd;
    (void)what;
    if (c->early_error != NULL)
        snprintf(why, sizeof(why), "redis %s: cannot connect: %s", c->address,
                 c->early_error);
    else
        snprintf(why, sizeof(why),
                 "redis %s: no answer to %s within %g s (not a Redis "
                 "server?)",
                 c->address, c->password != NULL ? "AUTH" : "PING",
                 c->handshake_timeout);
    client_lose(c, why);
}

struct redis_client *redis_client_new(struct event_base *base, const char *host,
                                      uint16_t port, const char *password,
                                      double handshake_timeout,
                                      const struct redis_client_callbacks *cbs,
                                      void *arg)
{
    struct redis_client *c = xcalloc(1, sizeof(*c));
    c->base = base;
    c->cbs = *cbs;
    c->arg = arg;
    c->password = password != NULL ? xstrdup(password) : NULL;
    c->handshake_timeout = handshake_timeout > 0 ? handshake_timeout : 10;
    TAILQ_INIT(&c->cmds);
    snprintf(c->address, sizeof(c->address),
             strchr(host, ':') != NULL ? "[%s]:%u" : "%s:%u", host,
             (unsigned)port);
    c->timer = evtimer_new(base, client_timer_cb, c);
    if (c->timer == NULL)
        rw_assert(!"evtimer_new");
    struct timeval tv = rw_timeval(c->handshake_timeout);
    redisAsyncContext *ac = redisAsyncConnect(host, port);
    if (ac == NULL) {
        c->early_error = xstrdup("out of memory");
    } else if (ac->err != 0) {
        c->early_error = xstrdup(ac->errstr);
        redisAsyncFree(ac);
    } else {
        ac->data = c;
        c->ac = ac;
        redisLibeventAttach(ac, base);
        redisAsyncSetConnectCallback(ac, client_connect_cb);
        redisAsyncSetDisconnectCallback(ac, client_disconnect_cb);
    }
    if (c->early_error != NULL)
        tv = rw_timeval(0);
    evtimer_add(c->timer, &tv);
    return c;
}

void redis_client_free(struct redis_client *c)
{
    if (c == NULL)
        return;
    detach_commands(c);
    if (c->ac != NULL) {
        redisAsyncContext *ac = c->ac;
        c->ac = NULL;
        ac->data = NULL;
        redisAsyncFree(ac); /* deferred by hiredis inside its callbacks */
    }
    event_free(c->timer);
    free(c->password);
    free(c->early_error);
    free(c);
}

int redis_client_command(struct redis_client *c, int argc, const char **argv,
                         const size_t *argvlen, redis_client_reply_fn cb,
                         void *arg)
{
    if (!c->ready || c->ac == NULL)
        return RW_ECLOSED;
    return send_argv(c, argc, argv, argvlen, cb, arg);
}

bool redis_client_reached(const struct redis_client *c)
{
    return c->reached;
}

const char *redis_client_address(const struct redis_client *c)
{
    return c->address;
}

char *redis_client_reply_text(const struct redis_client_reply *reply, char *buf,
                              size_t size)
{
    size_t n = reply->str != NULL ? reply->len : 0;
    if (size == 0)
        return buf;
    if (n > size - 1)
        n = size - 1;
    if (n > 0)
        memcpy(buf, reply->str, n);
    buf[n] = '\0';
    return buf;
}
