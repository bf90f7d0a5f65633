/*
 * jwt.h: the parts of a JSON Web Token (RFC 7519, compact JWS of RFC
 * 7515) that a Kubernetes service-account token carries, decoded but NOT
 * verified: the caller checks the signature over signing_input
 * (src/tls_sig.h) and the claims (src/authn.c), as kube-apiserver's
 * serviceaccount JWT authenticator (pkg/serviceaccount/jwt.go, claims.go
 * and legacy.go) reads them with go-jose.
 *
 * A token is three base64url parts (unpadded, Go's RawURLEncoding)
 * separated by dots: a header object (alg, kid, typ), a claims object and
 * the signature.  Claims read: iss, sub, aud (a string or an array of
 * strings), exp, nbf and iat (NumericDate: a JSON number of seconds,
 * fractions truncated), and the private claims of both token formats:
 *
 *  - bound tokens (TokenRequest, projected volumes): "kubernetes.io":
 *    {"namespace", "serviceaccount": {"name", "uid"}, "pod": {"name",
 *    "uid"}, "secret": {...}};
 *  - legacy secret-based tokens (iss "kubernetes/serviceaccount"):
 *    "kubernetes.io/serviceaccount/namespace", ".../service-account.name",
 *    ".../service-account.uid", ".../secret.name".
 *
 * A member of the wrong JSON type (iss a number, exp a string, aud an
 * array holding a number) makes the token malformed, as go-jose's
 * json.Unmarshal into typed claims fails.  Pure: no clock, no keys.
 */
#ifndef JWT_H
#define JWT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Tokens longer than this are refused unread (the apiserver bounds a
 * request's headers at 1 MiB; a service-account token is ~1 KiB). */
#define JWT_MAX_BYTES 65536

struct jwt {
    /* header */
    char *alg, *kid, *typ; /* "" when absent */
    /* registered claims; "" or 0 when absent */
    char *iss, *sub;
    char **aud; /* naud audiences */
    size_t naud;
    bool has_exp, has_nbf, has_iat;
    int64_t exp, nbf, iat; /* seconds since the epoch */
    /* private claims, from either format; "" when absent */
    bool legacy; /* the legacy claims were present */
    char *ns;    /* the service account's namespace */
    char *sa_name, *sa_uid;
    bool has_pod; /* kubernetes.io.pod present */
    char *pod_name, *pod_uid;
    /* What the signature covers: the token up to its second dot
     * (borrowed from the token jwt_parse read), and the signature. */
    const char *signing_input;
    size_t signing_len;
    unsigned char *sig;
    size_t sig_len;
};

/* Whether token has the shape of a compact JWS (three dot-separated
 * parts), as the apiserver's JWT authenticator checks before it reads the
 * issuer: anything else is not a JWT it handles. */
bool jwt_shaped(const char *token, size_t len);

/*
 * Decodes the len bytes of token into *out (free with jwt_fini); the
 * token must outlive *out (signing_input points into it).  Returns RW_OK;
 * RW_EINVAL with why ("malformed token: the claims are not a JSON
 * object", "malformed token: exp, nbf or iat is not a number", "malformed
 * token: longer than 65536 bytes", ...) when it is longer than
 * JWT_MAX_BYTES, not a compact JWS of JSON objects, or a claim has the
 * wrong type; *out is then empty.
 */
int jwt_parse(const char *token, size_t len, struct jwt *out, char *why,
              size_t why_len);
void jwt_fini(struct jwt *j);

#endif
