/*
 * watch_authz.c: the grants of running watches (see watch_authz.h).
 */
#include "src/watch_authz.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/log.h"

struct watch_grant_authz {
    struct watch_grant base; /* first */
    struct authz *z;
    struct identity *id;
    struct authz_attributes a; /* its strings point into text[] */
    char text[]; /* copies of them, one after the other (one allocation
                    per watch: this is idle memory, per watcher) */
};

static bool grant_allowed(const struct watch_grant *g, struct rbuf **frame)
{
    const struct watch_grant_authz *ga = (const struct watch_grant_authz *)g;
    char reason[AUTHZ_REASON_MAX];

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
    free(ga);
}

static const struct watch_grant_ops grant_ops = {
    .allowed = grant_allowed,
    .free = grant_free,
};

struct watch_grant *watch_authz_grant(struct authz *z, struct identity *id,
                                      const struct authz_attributes *a)
{
    const char *from[] = {a->verb, a->api_group,   a->api_version,
                          a->resource, a->subresource, a->ns,
                          a->name, a->path};
    const char *to[RW_ARRAY_LEN(from)];
    struct watch_grant_authz *ga;
    size_t len = 0;
    char *p;

    for (size_t i = 0; i < RW_ARRAY_LEN(from); i++)
        len += strlen(from[i] != NULL ? from[i] : "") + 1;
    ga = xcalloc(1, sizeof(*ga) + len);
    p = ga->text;
    for (size_t i = 0; i < RW_ARRAY_LEN(from); i++) {
        size_t k = strlen(from[i] != NULL ? from[i] : "") + 1;

        memcpy(p, from[i] != NULL ? from[i] : "", k);
        to[i] = p;
        p += k;
    }
    ga->base.ops = &grant_ops;
    ga->z = z;
    ga->id = identity_ref(id);
    ga->a = (struct authz_attributes){
        .verb = to[0],
        .resource_request = a->resource_request,
        .api_group = to[1],
        .api_version = to[2],
        .resource = to[3],
        .subresource = to[4],
        .ns = to[5],
        .name = to[6],
        .path = to[7],
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
