/*
 * watch_authz.c: the grants of running watches (see watch_authz.h).
 */
#include "src/watch_authz.h"

#include <stdlib.h>

#include "cache/rw.h"
#include "src/log.h"

struct watch_grant_authz {
    struct watch_grant base; /* first */
    struct authz *z;
    struct identity *id;
    struct authz_attributes a; /* its strings point into strings[] */
    char *strings[8];
};

static bool grant_allowed(const struct watch_grant *g, struct rbuf **frame)
{
    const struct watch_grant_authz *ga = (const struct watch_grant_authz *)g;
    char reason[1024];

    if (authz_authorize(ga->z, ga->id, &ga->a, reason, sizeof(reason)) ==
        AUTHZ_ALLOW)
        return true;
    log_debug("watch of %s by %s ended: access lost", ga->a.resource,
              ga->id->name);
    *frame = authz_forbidden_status(ga->id, &ga->a, reason, true);
    return false;
}

static void grant_free(struct watch_grant *g)
{
    struct watch_grant_authz *ga = (struct watch_grant_authz *)g;

    identity_unref(ga->id);
    for (size_t i = 0; i < RW_ARRAY_LEN(ga->strings); i++)
        free(ga->strings[i]);
    free(ga);
}

static const struct watch_grant_ops grant_ops = {
    .allowed = grant_allowed,
    .free = grant_free,
};

/* A copy of s ("" for NULL) kept in slot i. */
static const char *keep(struct watch_grant_authz *ga, size_t i, const char *s)
{
    return ga->strings[i] = xstrdup(s ? s : "");
}

struct watch_grant *watch_authz_grant(struct authz *z, struct identity *id,
                                      const struct authz_attributes *a)
{
    struct watch_grant_authz *ga = xcalloc(1, sizeof(*ga));

    ga->base.ops = &grant_ops;
    ga->z = z;
    ga->id = identity_ref(id);
    ga->a = (struct authz_attributes){
        .verb = keep(ga, 0, a->verb),
        .resource_request = a->resource_request,
        .api_group = keep(ga, 1, a->api_group),
        .api_version = keep(ga, 2, a->api_version),
        .resource = keep(ga, 3, a->resource),
        .subresource = keep(ga, 4, a->subresource),
        .ns = keep(ga, 5, a->ns),
        .name = keep(ga, 6, a->name),
        .path = keep(ga, 7, a->path),
    };
    return &ga->base;
}

size_t watch_authz_recheck(struct resource *const *res, size_t n)
{
    size_t ended = 0;

    for (size_t i = 0; i < n; i++) {
        struct watch_set *ws = watch_set_of(res[i]);

        if (ws != NULL)
            ended += watch_set_recheck(ws);
    }
    if (ended > 0)
        log_info("RBAC changed: %zu watches ended, their users lost access",
                 ended);
    return ended;
}
