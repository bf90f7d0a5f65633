/*
 * tls_sig.c: service-account key sets and JWS verification with OpenSSL 3
 * (see tls_sig.h).  A key set is an array of EVP_PKEY references; a
 * verification hashes with the alg's digest and checks with each key of
 * the alg's type in turn.
 */
#include "src/tls_sig.h"

#include <errno.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/log.h"

struct tls_sig_keys {
    EVP_PKEY **keys;
    size_t n;
};

struct tls_sig_keys *tls_sig_keys_new(void)
{
    return xcalloc(1, sizeof(struct tls_sig_keys));
}

void tls_sig_keys_free(struct tls_sig_keys *ks)
{
    if (ks == NULL)
        return;
    for (size_t i = 0; i < ks->n; i++)
        EVP_PKEY_free(ks->keys[i]);
    free(ks->keys);
    free(ks);
}

/* The key a PEM block holds; NULL for a block of another kind (*known
 * false) or one that does not decode (*known true). */
static EVP_PKEY *pem_block_key(const char *name, const unsigned char *data,
                               long len, bool *known)
{
    const unsigned char *p = data;
    EVP_PKEY *key = NULL;
    X509 *cert;

    *known = true;
    if (strcmp(name, "PUBLIC KEY") == 0)
        key = d2i_PUBKEY(NULL, &p, len);
    else if (strcmp(name, "RSA PUBLIC KEY") == 0)
        key = d2i_PublicKey(EVP_PKEY_RSA, NULL, &p, len);
    else if (strcmp(name, "PRIVATE KEY") == 0)
        key = d2i_AutoPrivateKey(NULL, &p, len);
    else if (strcmp(name, "RSA PRIVATE KEY") == 0)
        key = d2i_PrivateKey(EVP_PKEY_RSA, NULL, &p, len);
    else if (strcmp(name, "EC PRIVATE KEY") == 0)
        key = d2i_PrivateKey(EVP_PKEY_EC, NULL, &p, len);
    else if (strcmp(name, "CERTIFICATE") == 0) {
        if ((cert = d2i_X509(NULL, &p, len)) != NULL) {
            key = X509_get_pubkey(cert);
            X509_free(cert);
        }
    } else
        *known = false;
    if (key != NULL && EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA &&
        EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) {
        EVP_PKEY_free(key); /* Ed25519, DSA...: not a service-account key */
        key = NULL;
        *known = false;
    }
    return key;
}

/* Reads every key block of bio into *found (nfound); RW_EINVAL on a key
 * block that does not decode. */
static int pem_keys(BIO *bio, const char *path, EVP_PKEY ***found,
                    size_t *nfound, char *why, size_t why_len)
{
    char *name = NULL, *header = NULL;
    unsigned char *data = NULL;
    long len;
    int block = 0, rc = RW_OK;

    while (rc == RW_OK && PEM_read_bio(bio, &name, &header, &data, &len)) {
        bool known;
        EVP_PKEY *key = pem_block_key(name, data, len, &known);

        block++;
        if (key != NULL) {
            *found = xrealloc(*found, (*nfound + 1) * sizeof(EVP_PKEY *));
            (*found)[(*nfound)++] = key;
        } else if (known) {
            snprintf(why, why_len, "%s: PEM block %d (%s): cannot be decoded",
                     path, block, name);
            rc = RW_EINVAL;
        }
        OPENSSL_free(name);
        OPENSSL_free(header);
        OPENSSL_free(data);
    }
    return rc;
}

int tls_sig_keys_load(struct tls_sig_keys *ks, const char *path, char *why,
                      size_t why_len)
{
    BIO *bio = BIO_new_file(path, "r");
    EVP_PKEY **found = NULL;
    size_t nfound = 0;
    int rc;

    if (bio == NULL) {
        snprintf(why, why_len, "cannot read %s: %s", path,
                 strerror(errno ? errno : ENOENT));
        return RW_EINVAL;
    }
    rc = pem_keys(bio, path, &found, &nfound, why, why_len);
    BIO_free(bio);
    ERR_clear_error(); /* the end of the file is an error to PEM_read_bio */
    if (rc == RW_OK && nfound == 0) {
        snprintf(why, why_len,
                 "%s: data does not contain any valid RSA or ECDSA public "
                 "keys",
                 path);
        rc = RW_EINVAL;
    }
    if (rc != RW_OK) {
        for (size_t i = 0; i < nfound; i++)
            EVP_PKEY_free(found[i]);
        free(found);
        return rc;
    }
    ks->keys = xrealloc(ks->keys, (ks->n + nfound) * sizeof(EVP_PKEY *));
    memcpy(ks->keys + ks->n, found, nfound * sizeof(EVP_PKEY *));
    ks->n += nfound;
    free(found);
    return RW_OK;
}

/* What a JWS alg needs: the digest, the key type and, for ECDSA, the
 * curve's size in bytes (R and S each). */
struct sig_alg {
    const char *name;
    const char *digest;
    int key_type;
    size_t ec_bytes;
};

static const struct sig_alg sig_algs[] = {
    {"RS256", "SHA256", EVP_PKEY_RSA, 0}, {"RS384", "SHA384", EVP_PKEY_RSA, 0},
    {"RS512", "SHA512", EVP_PKEY_RSA, 0}, {"ES256", "SHA256", EVP_PKEY_EC, 32},
    {"ES384", "SHA384", EVP_PKEY_EC, 48}, {"ES512", "SHA512", EVP_PKEY_EC, 66},
};

/* JWS's R || S as a DER ECDSA-Sig-Value into a new buffer (*der_len);
 * NULL when sig is not 2 * bytes long. */
static unsigned char *ec_der(const unsigned char *sig, size_t sig_len,
                             size_t bytes, int *der_len)
{
    ECDSA_SIG *es;
    BIGNUM *r, *s;
    unsigned char *der = NULL;

    if (sig_len != 2 * bytes)
        return NULL;
    es = ECDSA_SIG_new();
    r = BN_bin2bn(sig, (int)bytes, NULL);
    s = BN_bin2bn(sig + bytes, (int)bytes, NULL);
    if (es == NULL || r == NULL || s == NULL || !ECDSA_SIG_set0(es, r, s)) {
        BN_free(r);
        BN_free(s);
        ECDSA_SIG_free(es);
        return NULL;
    }
    *der_len = i2d_ECDSA_SIG(es, &der);
    ECDSA_SIG_free(es);
    return *der_len > 0 ? der : NULL;
}

/* Whether key's type and size fit alg. */
static bool key_fits(EVP_PKEY *key, const struct sig_alg *alg)
{
    if (EVP_PKEY_get_base_id(key) != alg->key_type)
        return false;
    return alg->key_type != EVP_PKEY_EC ||
           (size_t)(EVP_PKEY_get_bits(key) + 7) / 8 == alg->ec_bytes;
}

static bool verify_one(EVP_PKEY *key, const struct sig_alg *alg,
                       const void *msg, size_t n, const unsigned char *sig,
                       size_t sig_len)
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    bool ok = ctx != NULL &&
              EVP_DigestVerifyInit_ex(ctx, NULL, alg->digest, NULL, NULL, key,
                                      NULL) == 1 &&
              EVP_DigestVerify(ctx, sig, sig_len, msg, n) == 1;

    EVP_MD_CTX_free(ctx);
    return ok;
}

bool tls_sig_verify(const struct tls_sig_keys *ks, const char *alg,
                    const void *msg, size_t n, const unsigned char *sig,
                    size_t sig_len)
{
    const struct sig_alg *a = NULL;
    unsigned char *der = NULL;
    int der_len = 0;
    bool ok = false;

    for (size_t i = 0; i < RW_ARRAY_LEN(sig_algs); i++)
        if (strcmp(alg, sig_algs[i].name) == 0)
            a = &sig_algs[i];
    if (a == NULL)
        return false;
    if (a->key_type == EVP_PKEY_EC) {
        if ((der = ec_der(sig, sig_len, a->ec_bytes, &der_len)) == NULL)
            return false;
        sig = der;
        sig_len = (size_t)der_len;
    }
    for (size_t i = 0; i < ks->n && !ok; i++)
        ok = key_fits(ks->keys[i], a) &&
             verify_one(ks->keys[i], a, msg, n, sig, sig_len);
    OPENSSL_free(der);
    /* a key that does not verify leaves its reason on the queue, which
     * the TLS transports read as their own */
    ERR_clear_error();
    return ok;
}

void tls_sig_sha256(const void *p, size_t n,
                    unsigned char out[TLS_SIG_SHA256_BYTES])
{
    unsigned int len = TLS_SIG_SHA256_BYTES;

    /* fails only without memory or a SHA-256 provider: a token compared
     * against an unset digest must never happen */
    if (EVP_Digest(p, n, out, &len, EVP_sha256(), NULL) != 1 ||
        len != TLS_SIG_SHA256_BYTES)
        log_fatalx("SHA-256 is not available from OpenSSL");
}
