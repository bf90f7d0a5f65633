/*
 * setup.c: ringwatch-fleet's option checks and derived settings.  The
 * checks run in the order setup.h lists (the first problem wins); the
 * derived settings (connections, collection) are computed only once every
 * check passed.  On failure everything filled so far is freed.
 */
#include "src/fleet/setup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

#define SETUP_PROBLEM(...) (snprintf(why, why_len, __VA_ARGS__), RW_EINVAL)

/* --redis and --etcd: the stores the oracle, the writer and the final
 * check use. */
static int setup_stores(struct setup *s, struct fleet_config *c, char *why,
                        size_t why_len)
{
    struct fleet_dial_options eo = {
        .cacert = c->etcd_cacert, .cert = c->etcd_cert, .key = c->etcd_key};
    const char *prefix = "etcd-";

    if (c->redis && (c->etcd || s->target_etcd))
        return SETUP_PROBLEM("--redis replaces --etcd: give one of them "
                             "(and --target ringwatch)");
    if (c->redis &&
        redis_store_config_init(&s->redis, c->redis, c->redis_password_file,
                                c->redis_revisions, c->redis_history, why,
                                why_len) != RW_OK)
        return RW_EINVAL;
    if (s->target_etcd && c->etcd == NULL) {
        /* the oracle and the writer use the server, as the server */
        c->etcd = c->server;
        eo = (struct fleet_dial_options){c->cacert, c->cert, c->key, NULL};
        prefix = "";
    }
    if (c->etcd && fleet_dial_init(&s->etcd, "etcd", c->etcd, prefix, &eo, why,
                                   why_len) != RW_OK)
        return RW_EINVAL;
    return RW_OK;
}

/* The checks after --resource, --server, --profile and --target. */
static int setup_check_more(struct setup *s, struct fleet_config *c, char *why,
                            size_t why_len)
{
    char *end = NULL;

    s->target_etcd = strcmp(c->target, "etcd") == 0;
    s->target_redis = strcmp(c->target, "redis") == 0;
    if (s->target_redis && c->redis == NULL)
        return SETUP_PROBLEM("--target redis needs --redis URL");
    if (setup_stores(s, c, why, why_len) != RW_OK)
        return RW_EINVAL;
    s->move_fraction = strtod(c->move_fraction, &end);
    if (end == c->move_fraction || *end != '\0' || isnan(s->move_fraction))
        return config_fail(why, why_len, "move-fraction", c->move_fraction,
                           "expected a number from 0 to 1");
    if (s->move_fraction < 0 || s->move_fraction > 1)
        return config_fail(why, why_len, "move-fraction", c->move_fraction,
                           "out of range: expected 0 to 1");
    if (c->write_rate > 0 && c->etcd == NULL && c->redis == NULL)
        return SETUP_PROBLEM("--write-rate needs --etcd URL or --redis URL");
    if (strcmp(c->write_via, "store") != 0 &&
        strcmp(c->write_via, "server") != 0)
        return config_fail(why, why_len, "write-via", c->write_via,
                           "expected store or server");
    s->write_via_server = strcmp(c->write_via, "server") == 0;
    if (s->write_via_server && (s->target_etcd || s->target_redis))
        return SETUP_PROBLEM("--write-via server needs --target ringwatch");
    if (c->contention > 1 && !s->write_via_server)
        return SETUP_PROBLEM("--contention needs --write-via server");
    if (s->target_etcd && c->http1)
        return SETUP_PROBLEM("--http1 and --target etcd: etcd speaks gRPC "
                             "over HTTP/2 only");
    if (s->target_redis && c->http1)
        return SETUP_PROBLEM("--http1 and --target redis: the watchers "
                             "speak RESP");
    if (s->profile.kind != PROFILE_CONTROLLER &&
        resource_type_field_id(s->rt, "spec.nodeName") < 0)
        return SETUP_PROBLEM("--profile %s needs a --resource with "
                             "spec.nodeName (pods)",
                             c->profile);
    if (c->churn &&
        (strcmp(s->rt->resource, "pods") != 0 ||
         (c->etcd == NULL && c->redis == NULL) || c->write_rate == 0))
        return SETUP_PROBLEM("--churn needs --resource pods, --etcd URL (or "
                             "--redis URL) and --write-rate N");
    if (profile_init(&s->profile, s->profile.kind, c->watchers,
                     c->mix_controllers, c->nodes) != RW_OK)
        return SETUP_PROBLEM("--nodes: out of range: expected at most %u "
                             "nodes",
                             UINT32_MAX);
    return RW_OK;
}

static int setup_check(struct setup *s, struct fleet_config *c, char *why,
                       size_t why_len)
{
    struct fleet_dial_options so = {c->cacert, c->cert, c->key, c->token};

    if ((s->rt = resource_type_find(c->resource)) == NULL)
        return config_unknown_type(why, why_len, "resource", c->resource, NULL);
    if (fleet_dial_init(&s->server, "server", c->server, "", &so, why,
                        why_len) != RW_OK)
        return RW_EINVAL;
    if (profile_parse(c->profile, &s->profile.kind) != RW_OK)
        return config_fail(why, why_len, "profile", c->profile,
                           "expected controller, kubelet or mix");
    if (strcmp(c->target, "ringwatch") != 0 && strcmp(c->target, "etcd") != 0 &&
        strcmp(c->target, "redis") != 0)
        return config_fail(why, why_len, "target", c->target,
                           "expected ringwatch, etcd or redis");
    return setup_check_more(s, c, why, why_len);
}

int setup_init(struct setup *s, struct fleet_config *c, char *why,
               size_t why_len)
{
    const struct resource_type *rt;

    memset(s, 0, sizeof(*s));
    if (setup_check(s, c, why, why_len) != RW_OK) {
        setup_fini(s);
        return RW_EINVAL;
    }
    rt = s->rt;
    if (c->http1 || s->target_redis)
        s->connections = c->watchers;
    else if (c->connections > 0)
        s->connections = RW_MIN(c->connections, c->watchers);
    else
        s->connections = (c->watchers + SETUP_WATCHERS_PER_CONN - 1) /
                         SETUP_WATCHERS_PER_CONN;
    if (*rt->group)
        s->collection =
            xasprintf("/apis/%s/%s/%s", rt->group, rt->version, rt->resource);
    else
        s->collection = xasprintf("/api/%s/%s", rt->version, rt->resource);
    return RW_OK;
}

void setup_fini(struct setup *s)
{
    free(s->collection);
    fleet_dial_fini(&s->server);
    fleet_dial_fini(&s->etcd);
    redis_store_config_fini(&s->redis);
    memset(s, 0, sizeof(*s));
}
