/*
 * router.c: request routing (see router.h).  The path is split into at
 * most ROUTER_MAX_SEGMENTS percent-decoded segments; the API prefix
 * (/api/v1 or /apis/G/V) picks the group version, the rest the resource,
 * namespace and name.
 */
#include "src/router.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/selector.h"
#include "proto/accept.h"
#include "proto/kjson.h"
#include "proto/query.h"
#include "src/authn.h"
#include "src/authz.h"
#include "src/discovery.h"
#include "src/fairness.h"
#include "src/health.h"
#include "src/identity.h"
#include "src/impersonate.h"
#include "src/list.h"
#include "src/log.h"
#include "src/request_info.h"
#include "src/resource.h"
#include "src/review.h"
#include "src/status.h"
#include "src/watch_authz.h"
#include "src/watch_start.h"
#include "src/write.h"

#define ROUTER_MAX_SEGMENTS 10
#define ROUTER_ALLOW "GET, HEAD"

struct router {
    struct router_config cfg;
    /* who every request is without an authenticator: one identity, shared
     * (immutable), not one per request */
    struct identity *anonymous;
    bool shutting_down;
};

struct router *router_new(const struct router_config *cfg)
{
    struct router *rt = xcalloc(1, sizeof(*rt));

    rt->cfg = *cfg;
    rt->anonymous = identity_anonymous();
    return rt;
}

void router_free(struct router *rt)
{
    if (rt != NULL)
        identity_unref(rt->anonymous);
    free(rt);
}

void router_shutting_down(struct router *rt)
{
    rt->shutting_down = true;
}

/* What an API path names. */
struct target {
    struct resource *res;
    const char *ns;   /* NULL: all namespaces / cluster-scoped */
    const char *name; /* NULL: the collection */
    bool watch_path;  /* under /watch/ */
};

struct segments {
    char *seg[ROUTER_MAX_SEGMENTS];
    size_t n;
};

static void segments_fini(struct segments *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->seg[i]);
}

/* Splits path into decoded segments; RW_EINVAL on a bad escape or too
 * many segments (the caller answers 404). */
static int segments_split(const char *path, struct segments *p)
{
    const char *at = path;

    p->n = 0;
    while (*at == '/')
        at++;
    while (*at != '\0') {
        const char *end = strchr(at, '/');
        size_t len = end ? (size_t)(end - at) : strlen(at);
        char *seg;

        if (p->n == ROUTER_MAX_SEGMENTS)
            return RW_EINVAL;
        if ((seg = query_unescape(at, len, false)) == NULL || *seg == '\0') {
            free(seg);
            return RW_EINVAL;
        }
        p->seg[p->n++] = seg;
        at += len;
        while (*at == '/')
            at++;
    }
    return RW_OK;
}

static struct resource *router_find(const struct router *rt, const char *group,
                                    const char *version, const char *name)
{
    for (size_t i = 0; i < rt->cfg.n; i++) {
        const struct resource_type *t = resource_type(rt->cfg.resources[i]);

        if (strcmp(t->group, group) == 0 && strcmp(t->version, version) == 0 &&
            strcmp(t->resource, name) == 0)
            return rt->cfg.resources[i];
    }
    return NULL;
}

/*
 * Resolves the segments after the group version ("namespaces", NS,
 * RESOURCE, NAME ...).  Returns false when they name nothing served.
 */
static bool router_resolve(const struct router *rt, const char *group,
                           const char *version, char **rest, size_t n,
                           struct target *t)
{
    memset(t, 0, sizeof(*t));
    if (n > 0 && strcmp(rest[0], "watch") == 0) {
        t->watch_path = true;
        rest++;
        n--;
    }
    if (n >= 3 && strcmp(rest[0], "namespaces") == 0) {
        if (n > 4)
            return false; /* subresources are not served */
        t->ns = rest[1];
        t->res = router_find(rt, group, version, rest[2]);
        t->name = n == 4 ? rest[3] : NULL;
        return t->res != NULL && resource_type(t->res)->namespaced;
    }
    if (n < 1 || n > 2)
        return false;
    t->res = router_find(rt, group, version, rest[0]);
    t->name = n == 2 ? rest[1] : NULL;
    if (t->res == NULL)
        return false;
    /* A namespaced object is only addressable inside its namespace. */
    return t->name == NULL || !resource_type(t->res)->namespaced;
}

/* ---- serving a resource ---- */

/* go-restful's route check (proto/accept.h): a GET of one object is a
 * route producing JSON; a collection's LIST and WATCH one producing JSON
 * and JSON watch streams.  Answers 406 and returns false on a miss. */
static bool router_route_accepts(struct stream *s, const struct target *t,
                                 const struct request *req)
{
    static const char *const object[] = {"application/json", NULL};
    static const char *const collection[] = {
        "application/json", "application/json;stream=watch", NULL};
    char why[512];

    if (accept_route(req->accept,
                     t->name != NULL && !t->watch_path ? object : collection,
                     why, sizeof(why)))
        return true;
    status_respond(s, 406, "NotAcceptable", "%s", why);
    return false;
}

/* The Accept header's choice for this verb: a sendInitialEvents watch
 * (with allowWatchBookmarks, as query_validate requires) is the
 * apiserver's watch-list, which takes no Table.  Answers 406 and returns
 * false when nothing the header allows can be produced. */
static bool router_negotiate(struct stream *s, const struct request *req,
                             const struct query *q, bool watch,
                             struct accept_choice *out)
{
    enum accept_endpoint ep =
        watch && q->send_initial_events == 1 && q->allow_bookmarks
            ? ACCEPT_WATCH_LIST
            : ACCEPT_RESOURCE;

    if (accept_negotiate(req->accept, ep, out))
        return true;
    status_respond(s, 406, "NotAcceptable", "%s", ACCEPT_NOT_ACCEPTABLE);
    return false;
}

/* A WATCH's right to run, re-checked when RBAC changes (watch_authz.h);
 * NULL when no decision can change. */
static struct watch_grant *router_grant(const struct router *rt,
                                        struct identity *id,
                                        const struct authz_attributes *a)
{
    if (!authz_may_deny(rt->cfg.authz))
        return NULL;
    return watch_authz_grant(rt->cfg.authz, id, a);
}

static void router_serve(const struct router *rt, struct stream *s,
                         const struct target *t, const struct request *req,
                         struct identity *id, const struct authz_attributes *a)
{
    const struct resource_type *rtype = resource_type(t->res);
    struct selector *sel = NULL;
    char why[512], *fields = NULL;
    struct accept_choice accept;
    const char *field;
    struct rbuf *body;
    struct query q;
    bool watch;

    if (!router_route_accepts(s, t, req))
        return;
    if (query_parse(req->query, strlen(req->query), &q, why, sizeof(why))) {
        status_respond(s, 400, "BadRequest", "%s", why);
        goto out;
    }
    /* As the apiserver's GetResource: ?watch on one object's path is
     * ignored (it is authorized as a get, src/request_info.h); its watch
     * is under /watch/. */
    watch = t->watch_path || (q.watch && t->name == NULL);
    /* As the apiserver: a GET of one object ignores list options. */
    if ((watch || t->name == NULL) &&
        query_validate(&q, watch, &field, why, sizeof(why)) != RW_OK) {
        body = kjson_status_invalid(field, why);
        stream_respond(s, 422, "application/json", body);
        rbuf_unref(body);
        goto out;
    }
    if (!router_negotiate(s, req, &q, watch, &accept))
        goto out;
    if (t->name != NULL && !watch) {
        list_object(s, t->res, t->ns, t->name, &q, &accept);
        goto out;
    }
    /* A watch on one object is a collection watch on its name. */
    if (t->name != NULL)
        fields = *q.field_selector ? xasprintf("metadata.name=%s,%s", t->name,
                                               q.field_selector)
                                   : xasprintf("metadata.name=%s", t->name);
    if (selector_parse(q.label_selector, fields ? fields : q.field_selector,
                       rtype, &sel, why, sizeof(why)) != RW_OK) {
        status_respond(s, 400, "BadRequest", "%s", why);
        goto out;
    }
    /* Both take sel. */
    if (watch)
        watch_start(s, t->res, t->ns, sel, &q, &accept,
                    router_grant(rt, id, a));
    else
        list_collection(s, t->res, t->ns, sel, &q, &accept);
out:
    free(fields);
    query_fini(&q);
}

/* ---- the handler ---- */

static bool router_special(struct router *rt, struct stream *s,
                           const struct request *req)
{
    struct metrics_global g = {.upstream_version = ""};
    bool verbose = query_has(req->query, "verbose");
    bool metrics = strcmp(req->path, "/metrics") == 0;

    /* Only the two that report them: the listener's part walks every
     * connection, not a cost for every LIST and WATCH. */
    if ((metrics || strcmp(req->path, "/readyz") == 0) && rt->cfg.stats != NULL)
        rt->cfg.stats(&g, rt->cfg.stats_arg);
    if (metrics && rt->cfg.fairness != NULL)
        fairness_stats(rt->cfg.fairness, &g.fairness);
    if (metrics && rt->cfg.authn != NULL) {
        g.authn = true;
        authn_counts(rt->cfg.authn, g.authn_attempts);
    }
    if (metrics) {
        struct rbuf *body;

        if (!accept_metrics_text(req->accept)) {
            status_respond(s, 406, "NotAcceptable",
                           "only the following media types are accepted: "
                           "text/plain; version=0.0.4");
            return true;
        }
        body = metrics_render(rt->cfg.resources, rt->cfg.n, &g);

        stream_respond(s, 200, "text/plain; version=0.0.4; charset=utf-8",
                       body);
        rbuf_unref(body);
        return true;
    }
    if (health_handle(s, req->path, verbose, rt->cfg.resources, rt->cfg.n,
                      g.upstream_connected, g.upstream_tls_error))
        return true;
    return discovery_handle(rt->cfg.discovery, s, req->path);
}

static bool router_is_write(enum stream_method m)
{
    return m == STREAM_POST || m == STREAM_PUT || m == STREAM_PATCH ||
           m == STREAM_DELETE;
}

static void router_not_found(struct stream *s)
{
    status_respond(s, 404, "NotFound",
                   "the server could not find the requested resource");
}

/* 405 MethodNotAllowed with what the target supports (RFC 9110 15.5.6). */
static void router_not_allowed(struct stream *s, const char *allow)
{
    stream_add_header(s, "allow", allow);
    status_respond(s, 405, "MethodNotAllowed",
                   "the server does not allow this method on the requested "
                   "resource");
}

/* A write on a resource path (write.h): POST on a collection (a
 * namespaced type's inside its namespace), PUT, PATCH and DELETE on an
 * object, as the apiserver's routes; 405 on the others. */
static void router_write(struct stream *s, const struct target *t,
                         const struct request *req)
{
    bool collection = t->name == NULL;
    bool creatable = collection && (t->ns != NULL ||
                                    !resource_type(t->res)->namespaced);

    if (t->watch_path || (req->method == STREAM_POST) != collection ||
        (collection && !creatable))
        router_not_allowed(s, collection ? (creatable ? "GET, HEAD, POST"
                                                      : ROUTER_ALLOW)
                                         : "DELETE, GET, HEAD, PATCH, PUT");
    else
        write_handle(s, t->res, t->ns, t->name);
}

/*
 * Who the request is (authn.h), first, as the apiserver's
 * WithAuthentication filter runs before routing: every path, health and
 * discovery included (anonymous reaches them when --anonymous-auth
 * allows it).  Bad credentials are 401 with the apiserver's Status
 * (message and reason "Unauthorized"; why only in the debug log).  No
 * authenticator: everyone is anonymous.
 */
static struct identity *router_authenticate(struct router *rt, struct stream *s,
                                            const struct request *req)
{
    struct identity *id;
    char why[512];

    if (rt->cfg.authn == NULL)
        return identity_ref(rt->anonymous);
    if (authn_authenticate(rt->cfg.authn, req, &id, why, sizeof(why)) == RW_OK)
        return id;
    log_debug("401 %s %s: %s", req->method_name, req->path, why);
    status_respond(s, 401, "Unauthorized", "Unauthorized");
    return NULL;
}

/* Answers a 403 Forbidden Status (authz_forbidden_status), as the
 * apiserver's responsewriters.Forbidden; body is released. */
static void router_forbidden(struct stream *s, struct rbuf *body)
{
    stream_add_header(s, "x-content-type-options", "nosniff");
    stream_respond(s, 403, "application/json", body);
    rbuf_unref(body);
}

/* Who the authenticated id acts as (impersonate.h), as the apiserver's
 * WithImpersonation after WithAuthentication; NULL once a 403 or 500 is
 * answered.  Takes over id's reference. */
static struct identity *router_impersonate(struct router *rt, struct stream *s,
                                           const struct request *req,
                                           struct identity *id)
{
    struct identity *as;
    struct rbuf *body;
    char message[256];

    if (req->impersonate[0] == '\0')
        return id;
    switch (impersonate(rt->cfg.authz, id, req->impersonate, &as, &body,
                        message, sizeof(message))) {
    case IMPERSONATE_OK:
        break;
    case IMPERSONATE_FORBIDDEN:
        router_forbidden(s, body);
        break;
    case IMPERSONATE_INVALID:
        status_respond(s, 500, "InternalError", message);
        break;
    }
    identity_unref(id);
    return as;
}

/* Whether id may do what req asks (request_info.h); if not, answers 403
 * Forbidden as the apiserver's WithAuthorization filter, before any
 * routing. */
static bool router_authorize(struct router *rt, struct stream *s,
                             const struct identity *id,
                             const struct authz_attributes *a)
{
    char reason[AUTHZ_REASON_MAX];

    if (authz_authorize(rt->cfg.authz, id, a, reason, sizeof(reason)) ==
        AUTHZ_ALLOW)
        return true;
    router_forbidden(s, authz_forbidden_status(id, a, reason, false));
    return false;
}

/* Routes a request authenticated and admitted (fairness.h), as id,
 * once authorized (the apiserver authorizes every method: a POST is a
 * "create" it may forbid before ringwatch's 405). */
static void router_route(struct router *rt, struct stream *s,
                         const struct request *req, struct identity *id)
{
    struct request_info ri;
    struct segments p;
    struct target t;
    bool found = false;

    memset(&ri, 0, sizeof(ri));
    /* nothing to read when nothing can be denied (AlwaysAllow) */
    if (authz_may_deny(rt->cfg.authz)) {
        request_info_init(&ri, req);
        if (!router_authorize(rt, s, id, &ri.a))
            goto out;
    }
    if (review_path(req->path)) {
        if (req->method == STREAM_POST)
            review_handle(s, rt->cfg.authz, id);
        else
            router_not_allowed(s, "POST");
        goto out;
    }
    if (req->method != STREAM_GET && req->method != STREAM_HEAD &&
        !router_is_write(req->method)) {
        router_not_allowed(s, ROUTER_ALLOW);
        goto out;
    }
    if (!router_is_write(req->method) && router_special(rt, s, req))
        goto out;
    if (segments_split(req->path, &p) != RW_OK) {
        segments_fini(&p);
        router_not_found(s);
        goto out;
    }
    if (p.n >= 2 && strcmp(p.seg[0], "api") == 0)
        found = router_resolve(rt, "", p.seg[1], p.seg + 2, p.n - 2, &t);
    else if (p.n >= 3 && strcmp(p.seg[0], "apis") == 0)
        found = router_resolve(rt, p.seg[1], p.seg[2], p.seg + 3, p.n - 3, &t);
    if (found && rt->shutting_down)
        status_respond(s, 429, "TooManyRequests",
                       "The apiserver is shutting down, please try again "
                       "later.");
    else if (found && router_is_write(req->method))
        router_write(s, &t, req);
    else if (found)
        router_serve(rt, s, &t, req, id, &ri.a);
    else if (router_is_write(req->method))
        router_not_allowed(s, ROUTER_ALLOW); /* discovery, health */
    else
        router_not_found(s);
    segments_fini(&p);
out:
    request_info_fini(&ri);
}

bool router_precheck(const struct request *req, void *arg,
                     struct request_refusal *out)
{
    struct router *rt = arg;
    struct identity *id, *as = NULL;
    struct request_info ri;
    char why[512], reason[AUTHZ_REASON_MAX];

    memset(out, 0, sizeof(*out));
    if (rt->cfg.authn == NULL)
        id = identity_ref(rt->anonymous);
    else if (authn_authenticate(rt->cfg.authn, req, &id, why, sizeof(why)) !=
             RW_OK) {
        *out = (struct request_refusal){
            401, kjson_status(401, "Unauthorized", "Unauthorized"), false};
        return true;
    }
    if (req->impersonate[0] != '\0') {
        switch (impersonate(rt->cfg.authz, id, req->impersonate, &as,
                            &out->body, why, sizeof(why))) {
        case IMPERSONATE_OK:
            break;
        case IMPERSONATE_FORBIDDEN:
            out->code = 403;
            out->nosniff = true;
            break;
        case IMPERSONATE_INVALID:
            out->code = 500;
            out->body = kjson_status(500, "InternalError", why);
            break;
        }
        identity_unref(id);
        if ((id = as) == NULL)
            return true;
    }
    if (authz_may_deny(rt->cfg.authz)) {
        memset(&ri, 0, sizeof(ri));
        request_info_init(&ri, req);
        if (authz_authorize(rt->cfg.authz, id, &ri.a, reason, sizeof(reason)) !=
            AUTHZ_ALLOW)
            *out = (struct request_refusal){
                403, authz_forbidden_status(id, &ri.a, reason, false), true};
        request_info_fini(&ri);
    }
    identity_unref(id);
    return out->code != 0;
}

/* fairness_serve_fn: a seat is free (or none is needed). */
static void router_admitted(struct stream *s, struct identity *id, void *arg)
{
    router_route(arg, s, stream_request(s), id);
}

void router_handle(struct stream *s, void *arg)
{
    struct router *rt = arg;
    const struct request *req = stream_request(s);
    struct identity *id;

    if (req->method == STREAM_OPTIONS && strcmp(req->path, "*") == 0) {
        /* the server as a whole: 200 and nothing, as Go's server answers
         * every "OPTIONS *" (its globalOptionsHandler) */
        stream_respond(s, 200, NULL, NULL);
        return;
    }
    /* id: who asks, for the authorizer (authz.h), the review endpoints
     * and its flow; dropped when the handler returns (a watch that keeps
     * it, or a request queued for its turn, takes its own reference). */
    if ((id = router_authenticate(rt, s, req)) == NULL ||
        (id = router_impersonate(rt, s, req, id)) == NULL)
        return;
    if (rt->cfg.fairness != NULL)
        fairness_admit(rt->cfg.fairness, s, id, fairness_exempt(req->path, id),
                       router_admitted, rt);
    else
        router_route(rt, s, req, id);
    identity_unref(id);
}
