/*
 * tls_sig.h: the public keys that sign service-account tokens, and JWS
 * signature verification (RFC 7518 section 3), for the authenticator
 * (authn.h).  Part of the tls module family: the one place, with tls.c,
 * that includes OpenSSL's headers.
 *
 * Keys are read as kube-apiserver's --service-account-key-file reads them
 * (client-go's keyutil.PublicKeysFromFile): every PEM block of a file that
 * holds an RSA or ECDSA key, public ("PUBLIC KEY", "RSA PUBLIC KEY"), in
 * a certificate ("CERTIFICATE"), or private ("PRIVATE KEY", "RSA PRIVATE
 * KEY", "EC PRIVATE KEY": its public half is used); other blocks are
 * skipped; a file with no such key is an error.
 */
#ifndef TLS_SIG_H
#define TLS_SIG_H

#include <stdbool.h>
#include <stddef.h>

/* A set of verification keys; opaque. */
struct tls_sig_keys;

struct tls_sig_keys *tls_sig_keys_new(void);
/* NULL is a no-op. */
void tls_sig_keys_free(struct tls_sig_keys *ks);

/*
 * Adds every RSA and ECDSA key of the PEM file at path to ks.  Returns
 * RW_OK; RW_EINVAL with why ("cannot read FILE: No such file or
 * directory", "FILE: data does not contain any valid RSA or ECDSA public
 * keys", "FILE: PEM block 2 (PUBLIC KEY): cannot be decoded") otherwise,
 * ks then unchanged.
 */
int tls_sig_keys_load(struct tls_sig_keys *ks, const char *path, char *why,
                      size_t why_len);

/*
 * Whether sig is a valid JWS signature of the n bytes at msg by one of
 * the keys of ks, for alg: RS256, RS384, RS512 (RSASSA-PKCS1-v1_5, an RSA
 * key), ES256, ES384, ES512 (ECDSA on P-256, P-384, P-521 with a key on
 * that curve; sig is JWS's raw R || S, each the curve's size).  Every key
 * of the right type is tried, as the apiserver tries each of its keys
 * (the token's kid is not consulted).  Any other alg ("none", "HS256")
 * verifies nothing: false.
 */
bool tls_sig_verify(const struct tls_sig_keys *ks, const char *alg,
                    const void *msg, size_t n, const unsigned char *sig,
                    size_t sig_len);

/* Bytes of a SHA-256 digest. */
#define TLS_SIG_SHA256_BYTES 32

/* SHA-256 of the n bytes at p into out. */
void tls_sig_sha256(const void *p, size_t n,
                    unsigned char out[TLS_SIG_SHA256_BYTES]);

#endif
