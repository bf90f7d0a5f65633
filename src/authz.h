/*
 * authz.h: whether an identity may do what a request asks, as
 * kube-apiserver's authorizers: --authorization-mode AlwaysAllow or RBAC
 * (evaluated from the store's rbac.authorization.k8s.io/v1 objects,
 * cached and watched like any other resource).
 *
 * Configuration: --authorization-mode, a comma-separated list as the
 * apiserver's, of AlwaysAllow and RBAC (its other modes, Node, ABAC,
 * Webhook, AlwaysDeny, are refused at startup).  Unset, it is RBAC when
 * ringwatch is reachable from elsewhere (a TLS flag, or --listen not a
 * loopback address) and AlwaysAllow otherwise (config_check).  With RBAC,
 * group system:masters is allowed everything (the apiserver's privileged
 * group authorizer), and the rest is src/rbac.h's evaluation of the
 * store's roles, rolebindings, clusterroles and clusterrolebindings, which
 * ringwatch then caches and serves whatever --resources says: the index
 * is rebuilt after every batch that changes one of them (only the objects
 * that changed are parsed again), so a change takes effect as soon as its
 * event arrives.  A malformed object (src/rbac_object.h) is logged,
 * counted (ringwatch_rbac_objects_skipped_total) and grants nothing.
 * Until the four are listed and caught up with the store (a warm start
 * replays the history since an older revision: resource_catch_up),
 * nothing but system:masters is allowed; when the store's history is
 * reset, the last RBAC state holds until they are listed again.
 */
#ifndef AUTHZ_H
#define AUTHZ_H

#include <stdbool.h>
#include <stddef.h>

#include "src/authz_attributes.h"
#include "src/identity.h"
#include "src/rbac.h"

struct authz;
struct rbuf;
struct resource;

/* The modes of --authorization-mode, as bits. */
enum authz_mode {
    AUTHZ_ALWAYS_ALLOW = 1,
    AUTHZ_RBAC = 2,
};

/*
 * Parses an --authorization-mode value into *modes (enum authz_mode
 * bits): "AlwaysAllow", "RBAC" or both, comma-separated, each once.
 * RW_EINVAL with why ("expected a comma-separated list of AlwaysAllow and
 * RBAC; Node is not supported") otherwise.
 */
int authz_mode_parse(const char *text, unsigned *modes, char *why,
                     size_t why_len);

/*
 * An authorizer with modes (enum authz_mode bits).  With AUTHZ_RBAC,
 * rbac[0..3] are the roles, rolebindings, clusterroles and
 * clusterrolebindings resources (src/rbac_object.h's enum rbac_kind
 * order; borrowed, they outlive the authorizer), which it observes
 * (resource_observe); otherwise rbac is NULL.
 */
struct authz *authz_new(unsigned modes, struct resource *const *rbac);
/* Stops observing and frees.  NULL is a no-op. */
void authz_free(struct authz *z);

/* Whether z may deny anything (RBAC without AlwaysAllow): only then are
 * requests' attributes worth reading and watches re-checked.  False for
 * NULL. */
bool authz_may_deny(const struct authz *z);

/* changed(arg) runs after each change of the RBAC objects took effect
 * (src/watch_authz.h re-checks the running watches then); NULL: none. */
void authz_on_change(struct authz *z, void (*changed)(void *arg), void *arg);

/*
 * Room for the reason authz_authorize writes and the evaluation error
 * authz_rules writes: RBAC names at most 16 missing roles
 * (RBAC_MAX_MISSING), each in about 55 bytes plus its name; 16 names of
 * 253 bytes (a DNS subdomain, the longest name kubectl and the apiserver's
 * generators make) fit, a longer text is truncated.
 */
#define AUTHZ_REASON_MAX 8192

enum authz_decision {
    AUTHZ_DENY = 0,
    AUTHZ_ALLOW = 1,
};

/*
 * Decides whether id may do a.  AUTHZ_ALLOW, or AUTHZ_DENY with reason
 * (the apiserver's "RBAC: ..." reason text, possibly "") in reason.
 * z NULL allows everything.
 */
enum authz_decision authz_authorize(struct authz *z, const struct identity *id,
                                    const struct authz_attributes *a,
                                    char *reason, size_t reason_len);

/*
 * The rules that apply to id in namespace ns, as the apiserver's rule
 * resolver (the union of its authorizers' RulesFor) answers a
 * SelfSubjectRulesReview: with RBAC, src/rbac.h's rbac_rules (the
 * bootstrap policy included; nothing special for system:masters, whose
 * privileged group authorizer resolves no rules); with AlwaysAllow (or z
 * NULL), alwaysAllowAuthorizer's one rule of "*" verbs, apiGroups,
 * resources and nonResourceURLs (after RBAC's when both are on).  Each
 * rule goes to fn(rule, arg); error gets the missing roles' aggregate
 * error text ("" when none), the review's status.evaluationError.
 */
void authz_rules(struct authz *z, const struct identity *id, const char *ns,
                 rbac_rule_fn fn, void *arg, char *error, size_t error_len);

/*
 * Writes the 403 Forbidden Status message of a denial, in the apiserver's
 * form: `pods is forbidden: User "alice" cannot list resource "pods" in
 * API group "" in the namespace "default"`, `... at the cluster scope`,
 * or `forbidden: User "alice" cannot get path "/metrics"`; a named
 * object's `pods "x" is forbidden: ...`, a group's resource qualified
 * `deployments.apps is forbidden: ...` (responsewriters.forbiddenMessage
 * inside errors.NewForbidden).  The apiserver appends a non-empty reason
 * after ": "; authz_forbidden_status does.
 */
void authz_forbidden_message(const struct identity *id,
                             const struct authz_attributes *a, char *out,
                             size_t out_len);

/*
 * The 403 Forbidden Status of a denial, as the apiserver's
 * responsewriters.Forbidden writes it: message authz_forbidden_message,
 * then ": reason" when reason is not empty; details {"name","group",
 * "kind"} (kind: the resource) of errors.NewForbidden, {} for a path.
 * With event, as the ERROR watch event frame carrying it.  A new rbuf.
 */
struct rbuf *authz_forbidden_status(const struct identity *id,
                                    const struct authz_attributes *a,
                                    const char *reason, bool event);

#endif
