/*
 * impersonate.h: acting as another user, as kube-apiserver's
 * WithImpersonation filter (staging/src/k8s.io/apiserver/pkg/endpoints/
 * filters/impersonation.go), between authentication and fairness: the
 * Impersonate-User, Impersonate-Uid, Impersonate-Group (repeatable) and
 * Impersonate-Extra-KEY header fields (kubectl --as, --as-uid, --as-group,
 * --as-user-extra; client-go's rest.ImpersonationConfig) make the request
 * its impersonated user's, once the authorizer lets the requester
 * "impersonate" each of them.
 */
#ifndef IMPERSONATE_H
#define IMPERSONATE_H

#include <stddef.h>

#include "src/identity.h"

struct authz;
struct rbuf;

enum impersonate_result {
    IMPERSONATE_OK,        /* *out: who the request is from now on */
    IMPERSONATE_FORBIDDEN, /* *forbidden: the 403 Status */
    IMPERSONATE_INVALID,   /* message: the 500 Status's */
};

/*
 * Applies fields (struct request's impersonate: "name: value" entries,
 * names in lower case, separated by '\n') to id, authorized by z (NULL
 * allows everything):
 * - no entries: *out is a new reference to id;
 * - each thing requested is authorized for id with verb "impersonate", in
 *   the apiserver's order: the user (resource "serviceaccounts" named
 *   NAME in namespace NS for system:serviceaccount:NS:NAME with NS a
 *   DNS-1123 label and NAME a DNS-1123 subdomain, as
 *   serviceaccount.SplitUsername, else "users" named USER), each group
 *   ("groups"), each extra value ("userextras", subresource KEY, group
 *   authentication.k8s.io), the uid ("uids", group
 *   authentication.k8s.io); the first denial is
 *   IMPERSONATE_FORBIDDEN with *forbidden the apiserver's 403 Status
 *   (authz_forbidden_status: `users "alice" is forbidden: User "bob"
 *   cannot impersonate resource "users" in API group "" at the cluster
 *   scope`; a new rbuf, the caller's);
 * - groups, extras or a uid without a user are IMPERSONATE_INVALID (the
 *   apiserver's InternalError, "requested ... without impersonating a
 *   user"), message written to message;
 * - otherwise *out is a new identity (one reference, the caller's): the
 *   user's name and uid, the groups requested, else a service account's
 *   (as above) system:serviceaccounts and system:serviceaccounts:NS, then
 *   system:authenticated unless it or system:unauthenticated is among
 *   them (system:unauthenticated for system:anonymous), as the apiserver.
 * Extras are authorized but not kept (ringwatch's RBAC never reads them).
 */
enum impersonate_result impersonate(struct authz *z, struct identity *id,
                                    const char *fields, struct identity **out,
                                    struct rbuf **forbidden, char *message,
                                    size_t message_len);

#endif
