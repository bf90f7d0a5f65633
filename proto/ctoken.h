/*
 * ctoken.h: LIST continue tokens, in the kube-apiserver's format (its etcd3
 * storage's encodeContinue / decodeContinue): the base64url encoding,
 * without padding, of {"v":"meta.k8s.io/v1","rv":RV,"start":"KEY\u0000"},
 * where RV is the revision of the snapshot the list pages through and KEY
 * the last key returned, relative to the list's key prefix (the NUL makes
 * it the first key after that one).  Clients treat tokens as opaque.
 * After a reset of the store's history ringwatch adds "rwEpoch":E (the
 * apiserver ignores members it does not know), so that a token of an
 * abandoned history is never read in another one whose revisions have the
 * same numbers.
 *
 * Part of the Kubernetes JSON codec: it reads the token's JSON through
 * jval.h (cJSON's one wrapper).
 */
#ifndef CTOKEN_H
#define CTOKEN_H

#include <stddef.h>
#include <stdint.h>

/* The token for the page after key (len bytes, relative to the list
 * prefix; not empty) of the snapshot at revision rv of the store history
 * epoch (resource_epoch; 0: no "rwEpoch" member).  rv -1 marks the token
 * handed out with a 410 for an expired one: it continues on the current
 * state (the apiserver's "inconsistent continue").  A new NUL-terminated
 * string; free() it. */
char *ctoken_encode(int64_t rv, uint64_t epoch, const char *key, size_t len);

/*
 * Decodes token into *rv, *epoch (0 when the token has no "rwEpoch") and
 * *key (a new string without the trailing NUL, relative to the list
 * prefix; free() it).  Returns RW_OK, or RW_EINVAL
 * with the reason in why (why_len bytes), as the apiserver words it:
 * "continue key is not valid: <detail>" -- not base64url, not the JSON
 * above, version not "meta.k8s.io/v1", revision 0 ("incorrect encoded
 * start resourceVersion"; any negative one reads as -1), an empty start key, a
 * key that is not UTF-8 (kube keys are), or a key that a path clean would
 * change (".", ".." or empty segments, which could reach outside the list's
 * prefix), an "rwEpoch" that is not a whole number from 0 to 2^53 ("bad
 * epoch").
 */
int ctoken_decode(const char *token, int64_t *rv, uint64_t *epoch, char **key,
                  char *why, size_t why_len);

#endif
