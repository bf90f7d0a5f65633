/*
 * authn.h: who a request is, as kube-apiserver's authenticators, in its
 * order: an x509 client certificate verified against --client-ca-file
 * (CN = user, O = groups), a bearer token from --token-auth-file, a
 * service-account JWT (--service-account-key-file, -issuer,
 * --api-audiences), else anonymous (--anonymous-auth).
 *
 * Bad credentials are never anonymous: a presented certificate that does
 * not verify, or a bearer token nobody recognises, is 401 Unauthorized.
 *
 * Each method as the apiserver's (staging/src/k8s.io/apiserver/pkg/
 * authentication, pkg/serviceaccount), tried in this order:
 *
 *  - x509 (request/x509): the TLS transport verified the certificate
 *    (struct transport_peer); a certificate presented that did not verify
 *    is 401 (why: the transport's error); a verified one with an empty CN
 *    names nobody, and the request goes on to the next method, as the
 *    apiserver's CommonNameUserConversion answers "not mine".
 *  - the Authorization header (request/bearertoken): "Bearer TOKEN", the
 *    scheme in any case, the token up to the next space; another scheme
 *    ("Basic ...") or an empty token is no credential at all (anonymous,
 *    as the apiserver ignores it); a token that no method below accepts
 *    is 401.
 *  - static tokens (token/tokenfile, proto/tokenfile.h): compared in
 *    constant time (SHA-256 digests, every entry compared).
 *  - service-account JWTs (serviceaccount/jwt.go, claims.go, legacy.go):
 *    a token shaped as a JWS whose (unverified) iss is one of
 *    --service-account-issuer; its signature verified by one of the keys
 *    (src/tls_sig.h: RS256/384/512, ES256/384/512; "none" and HMAC
 *    never); its iss accepted; its aud intersecting --api-audiences (a
 *    token without aud takes the audiences, as the apiserver does for
 *    legacy tokens); exp, nbf and iat checked with go-jose's 60 s leeway
 *    ("service account token has expired", "... is not valid yet", "...
 *    is issued in the future"); namespace, name and uid present.  A token
 *    bound to a pod (claim kubernetes.io.pod) is valid only while
 *    pod_exists says that pod is there with that uid (the apiserver's
 *    GetPod check; deleted more than 60 s ago counts as gone).
 *    The ServiceAccount object itself is not looked up (ringwatch need
 *    not cache service accounts).  Legacy
 *    secret-based tokens (iss "kubernetes/serviceaccount", the
 *    kubernetes.io/serviceaccount/... claims) are accepted only when that
 *    issuer is listed in --service-account-issuer; their secret and
 *    service account are not looked up (ringwatch may not cache them).
 *    User system:serviceaccount:NS:NAME, uid the claim's, groups
 *    system:serviceaccounts and system:serviceaccounts:NS.
 *  - anonymous (request/anonymous): with no credentials, system:anonymous
 *    in system:unauthenticated when anonymous is allowed, else 401.
 *
 * Every authenticated user also gets system:authenticated (the
 * apiserver's AuthenticatedGroupAdder).  Attempts are counted per method
 * and result for /metrics.
 */
#ifndef AUTHN_H
#define AUTHN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "src/identity.h"
#include "src/stream_types.h"

struct authn;

/* Whether pod ns/name is in the store with metadata.uid uid and not
 * deleted longer ago than the leeway (now: seconds since the epoch). */
typedef bool (*authn_pod_fn)(void *arg, const char *ns, const char *name,
                             const char *uid, time_t now);

/* What authn_new reads; everything borrowed for the call only. */
struct authn_config {
    bool anonymous;               /* --anonymous-auth */
    const char *token_file;       /* --token-auth-file; NULL: none */
    const char *const *key_files; /* --service-account-key-file, each */
    size_t nkey_files;
    const char *const *issuers; /* --service-account-issuer, each */
    size_t nissuers;
    const char *const *audiences; /* --api-audiences, each a comma-
                                     separated list (pflag's StringSlice);
                                     none: the first issuer, as the
                                     apiserver defaults */
    size_t naudiences;
    /* How to tell a bound token's pod is still there (authn_pod_in_cache
     * over the pods resource); NULL: pods are not served, and every
     * pod-bound token is refused, since it cannot be checked. */
    authn_pod_fn pod_exists;
    void *pod_arg;
    time_t (*now)(void); /* the clock (tests); NULL: time() */
};

/*
 * Reads the token file and the keys.  Returns NULL with why on a bad
 * configuration, each a startup error: the token file unreadable or with
 * a bad row ("--token-auth-file: FILE: line 3: must have at least 3
 * columns ..."), a key file unreadable or without a key, key files
 * without an issuer or issuers without key files (the apiserver requires
 * both).  Logs a warning per skipped (empty) or repeated token, as the
 * apiserver does.
 */
struct authn *authn_new(const struct authn_config *cfg, char *why,
                        size_t why_len);
/* NULL is a no-op. */
void authn_free(struct authn *a);

/* Results and methods of authentication attempts, for /metrics. */
enum authn_result { AUTHN_SUCCESS, AUTHN_FAILURE, AUTHN_RESULTS };
void authn_counts(const struct authn *a,
                  uint64_t out[AUTHN_RESULTS][IDENTITY_METHODS]);

/* The authn_pod_fn over a pods resource (arg: its struct resource *): the
 * pod's object in its cache (during a relist, the last complete list's).
 * False before the first list has completed. */
bool authn_pod_in_cache(void *arg, const char *ns, const char *name,
                        const char *uid, time_t now);

/*
 * Authenticates req (its peer certificate and Authorization header).
 * RW_OK with *out, a new reference the caller drops (identity_unref);
 * RW_EACCES when the request must be answered 401 Unauthorized, with why
 * (for the log; the client gets the apiserver's "Unauthorized" Status).
 */
int authn_authenticate(struct authn *a, const struct request *req,
                       struct identity **out, char *why, size_t why_len);

#endif
