/*
 * rbac.h: kube-apiserver's RBAC authorizer over a set of parsed RBAC
 * objects (src/rbac_object.h), as plugin/pkg/auth/authorizer/rbac and
 * pkg/registry/rbac/validation/rule.go evaluate them:
 *
 * - the ClusterRoleBindings whose subjects include the user, then, for a
 *   request in a namespace, that namespace's RoleBindings (a RoleBinding
 *   to a ClusterRole grants its rules in the binding's namespace only);
 * - subjects: User (the user name), Group (one of its groups),
 *   ServiceAccount (user system:serviceaccount:NS:NAME, NS the subject's
 *   namespace or, when empty, the RoleBinding's);
 * - a rule allows a resource request when its verbs, apiGroups, resources
 *   and resourceNames all match (VerbMatches, APIGroupMatches,
 *   ResourceMatches, ResourceNameMatches): "*" matches any verb, group or
 *   resource; a subresource is "RES/SUB" and is never granted by a bare
 *   "RES" (only by "RES/SUB", by a star then "/SUB", or by "*"); empty
 *   resourceNames match any name, else the request's name must be listed
 *   (a collection has none); a non-resource request when its verbs and
 * nonResourceURLs match (an exact path, "*", or a prefix ending in "*");
 * - a ClusterRole with an aggregationRule has the rules of every other
 *   ClusterRole its clusterRoleSelectors select (the union, as the
 *   clusterrole-aggregation controller would write it; aggregated roles
 *   selected in turn contribute theirs), computed here, never written;
 * - a binding whose role does not exist grants nothing, and its error is
 *   the denial's reason ("RBAC: clusterrole.rbac.authorization.k8s.io
 *   \"x\" not found"), as the apiserver reports it.
 * Group system:masters is allowed everything (the apiserver's privileged
 * group authorizer, ahead of RBAC).
 *
 * An index is built once (rbac_new, rbac_add..., rbac_build) and then
 * only read: a change of RBAC objects builds a new one.
 */
#ifndef RBAC_H
#define RBAC_H

#include <stdbool.h>
#include <stddef.h>

#include "src/authz_attributes.h"
#include "src/identity.h"
#include "src/rbac_object.h"

struct rbac;

struct rbac *rbac_new(void);
/* Frees the index, not the objects added.  NULL is a no-op. */
void rbac_free(struct rbac *x);

/* Adds o (borrowed: it must outlive the index).  Only before rbac_build. */
void rbac_add(struct rbac *x, const struct rbac_object *o);

/* Makes the index ready to read: sorts, resolves aggregation. */
void rbac_build(struct rbac *x);

/* How many distinct missing roles a denial's reason (or rbac_rules'
 * error) names at most; the apiserver names them all, but a reason is
 * for a person to read. */
#define RBAC_MAX_MISSING 16

/*
 * Whether id may do a.  False with the apiserver's reason in reason
 * ("RBAC: ..." naming the missing roles of bindings that apply to id, the
 * first RBAC_MAX_MISSING of them, or "" when there are none).
 */
bool rbac_allows(const struct rbac *x, const struct identity *id,
                 const struct authz_attributes *a, char *reason,
                 size_t reason_len);

/* Called with each rule rbac_rules finds (borrowed from the index). */
typedef void (*rbac_rule_fn)(const struct rbac_rule *rule, void *arg);

/*
 * The rules that apply to id in namespace ns ("" for the cluster's only),
 * as the apiserver's DefaultRuleResolver.RulesFor (pkg/registry/rbac/
 * validation/rule.go) visits them: the rules of the role of every
 * ClusterRoleBinding that applies to id, in binding order, then those of
 * ns's RoleBindings; an aggregated ClusterRole's are its sources'.  Each
 * is passed to fn(rule, arg), duplicates included (as the apiserver; kubectl
 * compacts them).  Group system:masters gets nothing special (the
 * privileged group authorizer has no rule resolver).  The missing roles
 * are written to error as utilerrors.NewAggregate words them
 * ("clusterrole.rbac.authorization.k8s.io \"x\" not found", several in
 * "[..., ...]"), "" when none.
 */
void rbac_rules(const struct rbac *x, const struct identity *id, const char *ns,
                rbac_rule_fn fn, void *arg, char *error, size_t error_len);

#endif
