/*
 * redis_store.c: the fleet's connection to a Redis store (see
 * redis_store.h).
 *
 * Data structure: one redis_client, the resource's four key names, and a
 * list of the commands not answered yet: queued (sent once the client is
 * ready) or sent.  Invariant: every op is on the list until its callback
 * has run, so that on_down and redis_store_free can answer each one.
 * Replies arrive in the order the commands were sent (one connection), so
 * the op answered is nearly always the list's head.
 */
#include "src/fleet/redis_store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/rw.h"
#include "src/address.h"
#include "src/config.h"
#include "src/redis_client.h"
#include "src/redis_functions.h"
#include "src/upstream_redis_entry.h"

#define REDIS_STORE_FORM "expected redis://HOST:PORT"

struct redis_store_op {
    struct redis_store *s;
    struct redis_store_op *next;
    int argc;
    char **argv;
    size_t *argvlen;
    bool sent;
    redis_store_reply_fn fn;
    void *arg;
    void *owned; /* freed with the op (a snapshot's or a write's state) */
};

struct redis_store {
    struct event_base *base;
    const struct redis_store_config *cfg;
    struct redis_client *client;
    char *keys[4];
    char history[24];
    struct redis_store_op *ops, **tail;
    bool ready;
    char *down; /* why the connection is gone; NULL while alive */
    struct event *fail_later; /* answers ops queued after on_down */
};

/* ==== configuration ==== */

int redis_store_config_init(struct redis_store_config *cfg, const char *url,
                            const char *password_file, const char *revisions,
                            uint64_t history, char *why, size_t why_len)
{
    char what[128], *http, line[4096];
    bool tls;
    FILE *f;
    int rc;

    memset(cfg, 0, sizeof(*cfg));
    if (strncmp(url, "redis://", 8) != 0)
        return config_fail(why, why_len, "redis", url, REDIS_STORE_FORM);
    http = xasprintf("http://%s", url + 8);
    rc = address_parse_server_url(http, &cfg->host, &cfg->port, &tls, what,
                                  sizeof(what));
    free(http);
    if (rc != RW_OK)
        return config_fail(why, why_len, "redis", url, REDIS_STORE_FORM);
    if (strcmp(revisions, "global") != 0 &&
        strcmp(revisions, "per-resource") != 0) {
        redis_store_config_fini(cfg);
        return config_fail(why, why_len, "redis-revisions", revisions,
                           "expected global or per-resource");
    }
    cfg->per_resource = strcmp(revisions, "per-resource") == 0;
    cfg->history = history;
    if (password_file == NULL)
        return RW_OK;
    if ((f = fopen(password_file, "r")) == NULL) {
        snprintf(what, sizeof(what), "%s", strerror(errno));
        redis_store_config_fini(cfg);
        return config_fail(why, why_len, "redis-password-file", password_file,
                           "%s", what);
    }
    line[0] = '\0';
    if (fgets(line, sizeof(line), f) == NULL)
        line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    cfg->password = xstrdup(line);
    return RW_OK;
}

void redis_store_config_fini(struct redis_store_config *cfg)
{
    free(cfg->host);
    free(cfg->port);
    if (cfg->password)
        explicit_bzero(cfg->password, strlen(cfg->password));
    free(cfg->password);
    memset(cfg, 0, sizeof(*cfg));
}

/* ==== ops ==== */

static void redis_store_op_free(struct redis_store_op *op)
{
    for (int i = 0; i < op->argc; i++)
        free(op->argv[i]);
    free(op->argv);
    free(op->argvlen);
    free(op->owned);
    free(op);
}

static void redis_store_unlink(struct redis_store *s, struct redis_store_op *op)
{
    struct redis_store_op **pp = &s->ops;

    while (*pp != op)
        pp = &(*pp)->next;
    *pp = op->next;
    if (s->tail == &op->next)
        s->tail = pp;
}

static void redis_store_reply_cb(struct redis_client *c,
                                 const struct redis_client_reply *reply,
                                 void *arg)
{
    struct redis_store_op *op = arg;

    redis_store_unlink(op->s, op);
    op->fn(reply, NULL, op->arg);
    redis_store_op_free(op);
}

static void redis_store_send(struct redis_store *s, struct redis_store_op *op)
{
    op->sent = true;
    if (redis_client_command(s->client, op->argc, (const char **)op->argv,
                             op->argvlen, redis_store_reply_cb, op) != RW_OK)
        op->sent = false; /* answered when the client goes down */
}

/* Answers every op queued so far with why (the connection is gone); ops
 * their callbacks queue are answered on the next round (fail_later), so
 * that a caller that retries from its callback cannot spin here. */
static void redis_store_fail_all(struct redis_store *s)
{
    struct redis_store_op *op, *next = s->ops;

    s->ops = NULL;
    s->tail = &s->ops;
    while ((op = next) != NULL) {
        next = op->next;
        op->fn(NULL, s->down, op->arg);
        redis_store_op_free(op);
    }
}

static void redis_store_fail_later_cb(evutil_socket_t fd, short what,
                                      void *arg)
{
    redis_store_fail_all(arg);
}

static void redis_store_ready_cb(struct redis_client *c, void *arg)
{
    struct redis_store *s = arg;

    s->ready = true;
    for (struct redis_store_op *op = s->ops; op != NULL; op = op->next)
        if (!op->sent)
            redis_store_send(s, op);
}

static void redis_store_down_cb(struct redis_client *c, const char *why,
                                void *arg)
{
    struct redis_store *s = arg;

    s->ready = false;
    s->down = xstrdup(why);
    redis_store_fail_all(s);
}

/* redis_store_command, with owned freed with the op. */
static void redis_store_queue(struct redis_store *s, int argc,
                              const char **argv, const size_t *argvlen,
                              redis_store_reply_fn fn, void *arg, void *owned)
{
    struct redis_store_op *op = xcalloc(1, sizeof(*op));

    op->s = s;
    op->fn = fn;
    op->arg = arg;
    op->owned = owned;
    op->argc = argc;
    op->argv = xcalloc((size_t)argc, sizeof(*op->argv));
    op->argvlen = xcalloc((size_t)argc, sizeof(*op->argvlen));
    for (int i = 0; i < argc; i++) {
        op->argvlen[i] = argvlen ? argvlen[i] : strlen(argv[i]);
        op->argv[i] = xmemdup(argv[i], op->argvlen[i] + 1);
        op->argv[i][op->argvlen[i]] = '\0';
    }
    *s->tail = op;
    s->tail = &op->next;
    if (s->down != NULL)
        event_active(s->fail_later, 0, 0);
    else if (s->ready)
        redis_store_send(s, op);
}

void redis_store_command(struct redis_store *s, int argc, const char **argv,
                         const size_t *argvlen, redis_store_reply_fn fn,
                         void *arg)
{
    redis_store_queue(s, argc, argv, argvlen, fn, arg, NULL);
}

/* ==== writes ==== */

struct redis_store_write {
    redis_store_write_fn fn;
    void *arg;
};

static void redis_store_write_cb(const struct redis_client_reply *reply,
                                 const char *why, void *arg)
{
    struct redis_store_write *w = arg;
    char text[256];

    if (reply == NULL)
        w->fn(RW_EIO, why, 0, w->arg);
    else if (reply->type == REDIS_CLIENT_INTEGER)
        w->fn(RW_OK, NULL, reply->integer, w->arg);
    else
        w->fn(RW_EINVAL, redis_client_reply_text(reply, text, sizeof(text)),
              0, w->arg);
}

void redis_store_write(struct redis_store *s, const char *key, size_t key_len,
                       const char *value, size_t value_len,
                       redis_store_write_fn fn, void *arg)
{
    struct redis_store_write *w = xcalloc(1, sizeof(*w));
    const char *argv[11] = {"FCALL",
                            value ? REDIS_FUNCTIONS_PUT
                                  : REDIS_FUNCTIONS_DELETE,
                            "4",
                            s->keys[0],
                            s->keys[1],
                            s->keys[2],
                            s->keys[3],
                            key};
    size_t lens[11];
    int argc = 8;

    if (value != NULL) {
        argv[argc] = value;
        lens[argc++] = value_len;
    }
    argv[argc] = ""; /* expected: unconditional */
    lens[argc++] = 0;
    argv[argc] = s->history;
    lens[argc++] = strlen(s->history);
    for (int i = 0; i < 8; i++)
        lens[i] = i == 7 ? key_len : strlen(argv[i]);
    w->fn = fn;
    w->arg = arg;
    redis_store_queue(s, argc, argv, lens, redis_store_write_cb, w, w);
}

/* ==== snapshots ==== */

struct redis_store_snap {
    char *prefix;
    void (*on_kv)(const struct etcd_kv *kv, void *arg);
    void (*on_done)(int err, const char *why, int64_t revision, void *arg);
    void *arg;
};

/* One "<modrev> <json>" field of the hash; false when malformed. */
static bool redis_store_field(const struct redis_client_reply *k,
                              const struct redis_client_reply *v,
                              struct etcd_kv *kv)
{
    if (k->type != REDIS_CLIENT_STRING || v->type != REDIS_CLIENT_STRING)
        return false;
    memset(kv, 0, sizeof(*kv));
    kv->key = k->str;
    kv->key_len = k->len;
    kv->version = 1;
    kv->mod_revision = upstream_redis_entry_hash_value(v->str, v->len,
                                                       &kv->value,
                                                       &kv->value_len);
    return kv->mod_revision > 0;
}

static void redis_store_snapshot_cb(const struct redis_client_reply *reply,
                                    const char *why, void *arg)
{
    struct redis_store_snap *sn = arg;
    const struct redis_client_reply *hash, *last;
    size_t plen = strlen(sn->prefix);
    int64_t revision = 0;
    struct etcd_kv kv;
    char text[256], msg[320];

    if (reply == NULL) {
        sn->on_done(RW_EIO, why, 0, sn->arg);
        return;
    }
    if (reply->type != REDIS_CLIENT_ARRAY || reply->n != 2 ||
        reply->elem[0].type != REDIS_CLIENT_ARRAY ||
        reply->elem[1].type != REDIS_CLIENT_ARRAY) {
        snprintf(msg, sizeof(msg), "HGETALL %s and the log's last entry: %s",
                 sn->prefix,
                 reply->type == REDIS_CLIENT_ERROR
                     ? redis_client_reply_text(reply, text, sizeof(text))
                     : "unexpected reply");
        sn->on_done(RW_EPROTO, msg, 0, sn->arg);
        return;
    }
    hash = &reply->elem[0];
    last = &reply->elem[1];
    if (last->n > 0) {
        const struct redis_client_reply *entry = &last->elem[0];

        if (entry->type != REDIS_CLIENT_ARRAY || entry->n < 1 ||
            (revision = upstream_redis_entry_rev(&entry->elem[0])) < 0) {
            sn->on_done(RW_EPROTO, "the log's last entry has a malformed ID",
                        0, sn->arg);
            return;
        }
    }
    for (size_t i = 0; i + 1 < hash->n; i += 2) {
        if (redis_store_field(&hash->elem[i], &hash->elem[i + 1], &kv) &&
            kv.key_len >= plen && memcmp(kv.key, sn->prefix, plen) == 0)
            sn->on_kv(&kv, sn->arg);
    }
    sn->on_done(0, NULL, revision, sn->arg);
}

static void redis_store_ignore_cb(const struct redis_client_reply *reply,
                                  const char *why, void *arg)
{
}

void redis_store_snapshot(struct redis_store *s, const char *prefix,
                          void (*on_kv)(const struct etcd_kv *kv, void *arg),
                          void (*on_done)(int err, const char *why,
                                          int64_t revision, void *arg),
                          void *arg)
{
    struct redis_store_snap *sn = xcalloc(1, sizeof(*sn) + strlen(prefix) + 1);
    const char *multi[] = {"MULTI"};
    const char *hgetall[] = {"HGETALL", s->keys[REDIS_STORE_OBJECTS]};
    const char *last[] = {"XREVRANGE", s->keys[REDIS_STORE_LOG], "+", "-",
                          "COUNT", "1"};
    const char *exec[] = {"EXEC"};

    sn->prefix = (char *)(sn + 1);
    strcpy(sn->prefix, prefix);
    sn->on_kv = on_kv;
    sn->on_done = on_done;
    sn->arg = arg;
    redis_store_command(s, 1, multi, NULL, redis_store_ignore_cb, NULL);
    redis_store_command(s, 2, hgetall, NULL, redis_store_ignore_cb, NULL);
    redis_store_command(s, 6, last, NULL, redis_store_ignore_cb, NULL);
    redis_store_queue(s, 1, exec, NULL, redis_store_snapshot_cb, sn, sn);
}

/* ==== construction ==== */

struct redis_store *redis_store_new(struct event_base *base,
                                    const struct redis_store_config *cfg,
                                    const struct resource_type *rt)
{
    static const struct redis_client_callbacks cbs = {
        .on_ready = redis_store_ready_cb,
        .on_down = redis_store_down_cb,
    };
    static const char *const suffix[] = {"rev", "objects", "log", "compacted"};
    struct redis_store *s = xcalloc(1, sizeof(*s));
    char *name = *rt->group ? xasprintf("%s.%s", rt->resource, rt->group)
                            : xstrdup(rt->resource);
    char *tag = cfg->per_resource ? xasprintf("{rw:%s}", name)
                                  : xstrdup("{rw}");

    s->base = base;
    s->cfg = cfg;
    s->tail = &s->ops;
    s->keys[REDIS_STORE_REV] = xasprintf("%s:rev", tag);
    for (int i = REDIS_STORE_OBJECTS; i <= REDIS_STORE_COMPACTED; i++)
        s->keys[i] = xasprintf("%s:%s:%s", tag, name, suffix[i]);
    snprintf(s->history, sizeof(s->history), "%llu",
             (unsigned long long)cfg->history);
    free(tag);
    free(name);
    s->fail_later = event_new(base, -1, 0, redis_store_fail_later_cb, s);
    s->client = redis_client_new(base, cfg->host, (uint16_t)atoi(cfg->port),
                                 cfg->password, 0, &cbs, s);
    return s;
}

void redis_store_free(struct redis_store *s)
{
    if (s == NULL)
        return;
    redis_client_free(s->client);
    if (s->down == NULL)
        s->down = xstrdup("the connection was closed");
    while (s->ops != NULL) /* owners being freed do not retry */
        redis_store_fail_all(s);
    event_free(s->fail_later);
    for (size_t i = 0; i < RW_ARRAY_LEN(s->keys); i++)
        free(s->keys[i]);
    free(s->down);
    free(s);
}

bool redis_store_entry(const struct redis_client_reply *entry,
                       struct redis_store_entry *e)
{
    const struct redis_client_reply *type, *key, *value;

    if (entry->type != REDIS_CLIENT_ARRAY || entry->n != 2 ||
        (e->rev = upstream_redis_entry_rev(&entry->elem[0])) < 0)
        return false;
    upstream_redis_entry_fields(&entry->elem[1], &type, &key, &value);
    if (type == NULL || key == NULL || value == NULL ||
        type->type != REDIS_CLIENT_STRING || key->type != REDIS_CLIENT_STRING ||
        value->type != REDIS_CLIENT_STRING)
        return false;
    e->deleted = type->len == 6 && memcmp(type->str, "DELETE", 6) == 0;
    if (!e->deleted && !(type->len == 3 && memcmp(type->str, "PUT", 3) == 0))
        return false;
    e->key = key->str;
    e->key_len = key->len;
    e->value = value->str;
    e->value_len = value->len;
    return true;
}

bool redis_store_xread_entries(const struct redis_client_reply *reply,
                               const struct redis_client_reply **entries)
{
    *entries = NULL;
    if (reply->type == REDIS_CLIENT_NIL)
        return true;
    if (reply->type != REDIS_CLIENT_ARRAY || reply->n != 1 ||
        reply->elem[0].type != REDIS_CLIENT_ARRAY || reply->elem[0].n != 2 ||
        reply->elem[0].elem[1].type != REDIS_CLIENT_ARRAY)
        return false;
    *entries = &reply->elem[0].elem[1];
    return true;
}

const char *redis_store_key(const struct redis_store *s,
                            enum redis_store_key which)
{
    return s->keys[which];
}
