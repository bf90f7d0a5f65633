/*
 * identity.h: who made a request, as kube-apiserver's user.Info: a user
 * name, a uid and groups, with the extra fields ringwatch needs to
 * re-check a long-lived request (a service-account token bound to a pod).
 * The authenticator (authn.h) makes one per request; the authorizer
 * (authz.h) reads it; a WATCH keeps a reference for as long as it runs,
 * so that a change of RBAC can be re-checked against it.
 *
 * Reference counted (identity_ref/identity_unref); immutable once made,
 * except through identity_add_group before it is handed on.
 */
#ifndef IDENTITY_H
#define IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

/* The user system:anonymous and the groups the apiserver gives users. */
#define IDENTITY_ANONYMOUS "system:anonymous"
#define IDENTITY_UNAUTHENTICATED "system:unauthenticated"
#define IDENTITY_AUTHENTICATED "system:authenticated"
#define IDENTITY_MASTERS "system:masters"

/* Service accounts' user names, system:serviceaccount:NS:NAME, and the
 * group of them all (serviceaccount.ServiceAccountUsernamePrefix,
 * AllServiceAccountsGroup); NS, a namespace's name, is a DNS-1123 label
 * of at most IDENTITY_NS_MAX bytes. */
#define IDENTITY_SA_PREFIX "system:serviceaccount:"
#define IDENTITY_SA_GROUP "system:serviceaccounts"
#define IDENTITY_NS_MAX 63

/* How the request proved who it is (for /metrics and the log). */
enum identity_method {
    IDENTITY_NONE,            /* anonymous */
    IDENTITY_X509,            /* a client certificate */
    IDENTITY_TOKEN_FILE,      /* a static token, --token-auth-file */
    IDENTITY_SERVICE_ACCOUNT, /* a service-account JWT */
    IDENTITY_METHODS          /* how many there are */
};

struct identity {
    unsigned refs;
    enum identity_method method;
    char *name;    /* "alice", "system:serviceaccount:kube-system:foo" */
    char *uid;     /* "" when unknown */
    char **groups; /* ngroups group names, in the order added */
    size_t ngroups;
    /* A service-account token bound to a pod (claim
     * kubernetes.io.pod): the pod's namespace, name and uid; NULL
     * otherwise.  Such a token stops being valid once the pod is gone. */
    char *pod_namespace, *pod_name, *pod_uid;
};

/* A new identity with one reference: copies name and uid (uid NULL: "").
 * No groups yet. */
struct identity *identity_new(enum identity_method method, const char *name,
                              const char *uid);

/* Appends a copy of group unless it is there already. */
void identity_add_group(struct identity *id, const char *group);

/* Whether id is in group. */
bool identity_in_group(const struct identity *id, const char *group);

/* Adds a service account's groups in namespace ns, system:serviceaccounts
 * and system:serviceaccounts:NS (serviceaccount.MakeGroupNames). */
void identity_add_sa_groups(struct identity *id, const char *ns);

/* Whether user is a service account's name as serviceaccount.SplitUsername
 * reads it: system:serviceaccount:NS:NAME with NS a DNS-1123 label and
 * NAME a DNS-1123 subdomain.  Then ns gets NS and *name points to NAME
 * inside user. */
bool identity_sa_split(const char *user, char ns[IDENTITY_NS_MAX + 1],
                       const char **name);

/* The anonymous user: system:anonymous in group system:unauthenticated,
 * as the apiserver's anonymous authenticator. */
struct identity *identity_anonymous(void);

/* Takes a reference; returns id. */
struct identity *identity_ref(struct identity *id);

/* Drops a reference, freeing id with the last.  NULL is a no-op. */
void identity_unref(struct identity *id);

#endif
