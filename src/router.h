/*
 * router.h: maps each request to its handler, as the apiserver's paths do.
 *
 *   /version /api /apis /apis/G /api/v1 /apis/G/V  discovery
 *   /metrics /healthz /livez /readyz                 metrics, health
 *   /api/v1/[namespaces/NS/]RESOURCE[/NAME]          LIST, WATCH, GET
 *   /apis/G/V/[namespaces/NS/]RESOURCE[/NAME]
 *   the same under .../watch/... (deprecated watch paths)
 *   POST on a collection (inside its namespace for a namespaced type),
 *   PUT, PATCH and DELETE on an object        the writes (write.h)
 *   POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews,
 *        /apis/authorization.k8s.io/v1/selfsubjectrulesreviews and
 *        /apis/authentication.k8s.io/v1/selfsubjectreviews (review.h)
 *
 * Every request but "OPTIONS *" goes through the apiserver's filter chain
 * before routing, in its order: it is authenticated (authn.h: bad or
 * refused credentials are 401 Unauthorized, whatever the path or method),
 * becomes the user it impersonates (impersonate.h), waits for its turn
 * (fairness.h), then is authorized (authz.h) on the attributes
 * src/request_info.h reads from it: a denial is 403 Forbidden, whatever
 * the path names.  A WATCH keeps its identity and attributes, and ends if
 * a change of RBAC takes its access away (src/watch_authz.h).
 * GET and HEAD are served, the writes on resources, and POST on the
 * reviews (405 MethodNotAllowed otherwise, with "Allow: GET, HEAD" (a
 * collection that takes a create adds POST; an object "DELETE, GET, HEAD,
 * PATCH, PUT"), or "Allow: POST" on the reviews, as RFC 9110 15.5.6
 * wants); a request with a body is decided before its body is read
 * (router_precheck); a path
 * that names nothing is 404 NotFound; a bad query or selector is 400
 * BadRequest; an Accept header that allows nothing ringwatch writes is 406
 * NotAcceptable (proto/accept.h, in the apiserver's order: go-restful's
 * route check before the query is read, the negotiation after the list
 * options are validated; /metrics refuses only a header the apiserver
 * would answer in Prometheus' protobuf format and that accepts no text).
 * Every error is a Kubernetes Status.
 */
#ifndef ROUTER_H
#define ROUTER_H

#include <stddef.h>

#include "src/metrics.h"
#include "src/stream.h"

struct authn;
struct authz;
struct discovery;
struct fairness;
struct resource;
struct router;

/* Fills what /metrics and /readyz report about connections and upstream. */
typedef void (*router_stats_fn)(struct metrics_global *out, void *arg);

/* What a router serves and with whom it checks requests.  Everything is
 * borrowed and outlives the router. */
struct router_config {
    struct resource *const *resources; /* the served resources, n of them */
    size_t n;
    struct discovery *discovery;
    router_stats_fn stats; /* may be NULL */
    void *stats_arg;
    /* Who a request is (authn.h), whether it may (authz.h), and its turn
     * (fairness.h); NULL: every request is anonymous, allowed, served at
     * once. */
    struct authn *authn;
    struct authz *authz;
    struct fairness *fairness;
};

/* cfg is copied. */
struct router *router_new(const struct router_config *cfg);
void router_free(struct router *rt);

/* A graceful shutdown began: from now on LIST, GET and WATCH requests
 * (on connections still open) get 429 TooManyRequests "The apiserver is
 * shutting down, please try again later." with Retry-After, as the
 * apiserver answers while it terminates; /healthz, /readyz and /metrics
 * still answer. */
void router_shutting_down(struct router *rt);

/*
 * The request_precheck_fn given to the listener (arg: the router): a
 * request with a body is authenticated, becomes whom it impersonates, and
 * is authorized, before its body is read, as the apiserver's filters run
 * before its handler reads the body: a 401, 403 (or 500 for a bad
 * impersonation) is answered without reading it (no 100 Continue); a
 * request that passes is decided again, whole, when dispatched.
 */
bool router_precheck(const struct request *req, void *arg,
                     struct request_refusal *out);

/* The request_handler_fn given to the listener; arg is the router. */
void router_handle(struct stream *s, void *arg);

#endif
