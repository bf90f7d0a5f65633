/*
 * authn.h: who a request is, as kube-apiserver's authenticators, in its
 * order: an x509 client certificate verified against --client-ca-file
 * (CN = user, O = groups), a bearer token from --token-auth-file, a
 * service-account JWT (--service-account-key-file, -issuer,
 * --api-audiences), else anonymous (--anonymous-auth).  Every
 * authenticated user also gets group system:authenticated.
 *
 * Bad credentials are never anonymous: a presented certificate that does
 * not verify, or a bearer token nobody recognises, is 401 Unauthorized.
 *
 * (This header is the interface the router and the review endpoints use;
 * the module that implements it documents its configuration here.)
 */
#ifndef AUTHN_H
#define AUTHN_H

#include <stddef.h>

#include "src/identity.h"
#include "src/stream_types.h"

struct authn;

/*
 * Authenticates req (its peer certificate and Authorization header).
 * RW_OK with *out, a new reference the caller drops (identity_unref);
 * RW_EACCES when the request must be answered 401 Unauthorized, with why
 * (for the log; the client gets the apiserver's "Unauthorized" Status).
 */
int authn_authenticate(struct authn *a, const struct request *req,
                       struct identity **out, char *why, size_t why_len);

#endif
