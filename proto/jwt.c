/*
 * jwt.c: decoding a compact JWS service-account token (see jwt.h).  The
 * header and claims are base64url-decoded into sbufs and read through
 * proto/jval.h; every string is copied out, so the documents are freed
 * before jwt_parse returns.
 */
#include "proto/jwt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/jval.h"

#define LEGACY_PREFIX "kubernetes.io/serviceaccount/"

bool jwt_shaped(const char *token, size_t len)
{
    const char *dot1 = memchr(token, '.', len), *dot2;

    if (dot1 == NULL)
        return false;
    dot2 = memchr(dot1 + 1, '.', len - (size_t)(dot1 + 1 - token));
    return dot2 != NULL &&
           memchr(dot2 + 1, '.', len - (size_t)(dot2 + 1 - token)) == NULL;
}

static int jwt_fail(char *why, size_t why_len, const char *what)
{
    snprintf(why, why_len, "malformed token: %s", what);
    return RW_EINVAL;
}

/* The JSON object a base64url part encodes, or NULL. */
static struct jval *jwt_part(const char *s, size_t n)
{
    struct sbuf b = {0};
    struct jval *v = NULL;
    size_t bad;

    if (sbuf_add_unbase64url(&b, s, n, &bad) && b.len > 0 &&
        memchr(b.data, '\0', b.len) == NULL)
        v = jval_try_parse(b.data, b.len);
    sbuf_fini(&b);
    if (v != NULL && !jval_is_object(v)) {
        jval_free(v);
        v = NULL;
    }
    return v;
}

/* Copies string member name of o into *dst ("" when absent or null);
 * false when it has another type. */
static bool jwt_string(const struct jval *o, const char *name, char **dst)
{
    const struct jval *v = jval_get(o, name);

    if (v != NULL && jval_type(v) != JVAL_STRING)
        return false;
    *dst = xstrdup(jval_str(v));
    return true;
}

/* A NumericDate member: *has when present; false on another type. */
static bool jwt_date(const struct jval *o, const char *name, bool *has,
                     int64_t *dst)
{
    const struct jval *v = jval_get(o, name);

    if (v == NULL)
        return true;
    if (!jval_is_number(v))
        return false;
    *has = true;
    *dst = jval_int(v);
    return true;
}

/* aud: a string or an array of strings (go-jose's Audience). */
static bool jwt_audience(const struct jval *claims, struct jwt *j)
{
    const struct jval *aud = jval_get(claims, "aud"), *e;

    if (aud == NULL)
        return true;
    if (jval_type(aud) == JVAL_STRING) {
        j->aud = xcalloc(1, sizeof(char *));
        j->aud[j->naud++] = xstrdup(jval_str(aud));
        return true;
    }
    if (jval_type(aud) != JVAL_ARRAY)
        return false;
    j->aud = xcalloc(jval_len(aud) + 1, sizeof(char *));
    JVAL_EACH(e, aud)
    {
        if (jval_type(e) != JVAL_STRING)
            return false;
        j->aud[j->naud++] = xstrdup(jval_str(e));
    }
    return true;
}

/* The private claims of both formats; false on a wrong type. */
static bool jwt_private(const struct jval *claims, struct jwt *j)
{
    const struct jval *k = jval_get(claims, "kubernetes.io");
    const struct jval *sa = jval_get(k, "serviceaccount");
    const struct jval *pod = jval_get(k, "pod");
    char *legacy_ns = NULL, *legacy_name = NULL, *legacy_uid = NULL;
    bool ok;

    if ((k != NULL && !jval_is_object(k)) ||
        (sa != NULL && !jval_is_object(sa)) ||
        (pod != NULL && !jval_is_object(pod)))
        return false;
    j->has_pod = pod != NULL;
    ok = jwt_string(k, "namespace", &j->ns) &&
         jwt_string(sa, "name", &j->sa_name) &&
         jwt_string(sa, "uid", &j->sa_uid) &&
         jwt_string(pod, "name", &j->pod_name) &&
         jwt_string(pod, "uid", &j->pod_uid) &&
         jwt_string(claims, LEGACY_PREFIX "namespace", &legacy_ns) &&
         jwt_string(claims, LEGACY_PREFIX "service-account.name",
                    &legacy_name) &&
         jwt_string(claims, LEGACY_PREFIX "service-account.uid", &legacy_uid);
    if (ok && k == NULL && (*legacy_ns || *legacy_name || *legacy_uid)) {
        j->legacy = true;
        free(j->ns);
        free(j->sa_name);
        free(j->sa_uid);
        j->ns = legacy_ns;
        j->sa_name = legacy_name;
        j->sa_uid = legacy_uid;
    } else {
        free(legacy_ns);
        free(legacy_name);
        free(legacy_uid);
    }
    return ok;
}

static int jwt_read(const struct jval *header, const struct jval *claims,
                    struct jwt *j, char *why, size_t why_len)
{
    if (!jwt_string(header, "alg", &j->alg) ||
        !jwt_string(header, "kid", &j->kid) ||
        !jwt_string(header, "typ", &j->typ))
        return jwt_fail(why, why_len, "a header member is not a string");
    if (!jwt_string(claims, "iss", &j->iss) ||
        !jwt_string(claims, "sub", &j->sub))
        return jwt_fail(why, why_len, "iss or sub is not a string");
    if (!jwt_audience(claims, j))
        return jwt_fail(why, why_len,
                        "aud is neither a string nor an array of strings");
    if (!jwt_date(claims, "exp", &j->has_exp, &j->exp) ||
        !jwt_date(claims, "nbf", &j->has_nbf, &j->nbf) ||
        !jwt_date(claims, "iat", &j->has_iat, &j->iat))
        return jwt_fail(why, why_len, "exp, nbf or iat is not a number");
    if (!jwt_private(claims, j))
        return jwt_fail(why, why_len,
                        "a kubernetes.io claim has the wrong type");
    return RW_OK;
}

int jwt_parse(const char *token, size_t len, struct jwt *out, char *why,
              size_t why_len)
{
    const char *dot1, *dot2, *end = token + len;
    struct jval *header = NULL, *claims = NULL;
    struct sbuf sig = {0};
    size_t bad;
    int rc;

    memset(out, 0, sizeof(*out));
    if (len > JWT_MAX_BYTES) {
        snprintf(why, why_len, "malformed token: longer than %d bytes",
                 JWT_MAX_BYTES);
        return RW_EINVAL;
    }
    if (!jwt_shaped(token, len))
        return jwt_fail(why, why_len, "not three dot-separated parts");
    dot1 = memchr(token, '.', len);
    dot2 = memchr(dot1 + 1, '.', (size_t)(end - dot1 - 1));
    if ((header = jwt_part(token, (size_t)(dot1 - token))) == NULL)
        rc = jwt_fail(why, why_len, "the header is not a JSON object");
    else if ((claims = jwt_part(dot1 + 1, (size_t)(dot2 - dot1 - 1))) == NULL)
        rc = jwt_fail(why, why_len, "the claims are not a JSON object");
    else if (!sbuf_add_unbase64url(&sig, dot2 + 1, (size_t)(end - dot2 - 1),
                                   &bad))
        rc = jwt_fail(why, why_len, "the signature is not base64url");
    else
        rc = jwt_read(header, claims, out, why, why_len);
    jval_free(header);
    jval_free(claims);
    if (rc != RW_OK) {
        sbuf_fini(&sig);
        jwt_fini(out);
        return rc;
    }
    out->signing_input = token;
    out->signing_len = (size_t)(dot2 - token);
    out->sig = (unsigned char *)sig.data;
    out->sig_len = sig.len;
    return RW_OK;
}

void jwt_fini(struct jwt *j)
{
    char **strings[] = {&j->alg,      &j->kid,    &j->typ,     &j->iss,
                        &j->sub,      &j->ns,     &j->sa_name, &j->sa_uid,
                        &j->pod_name, &j->pod_uid};

    for (size_t i = 0; i < RW_ARRAY_LEN(strings); i++)
        free(*strings[i]);
    for (size_t i = 0; i < j->naud; i++)
        free(j->aud[i]);
    free(j->aud);
    free(j->sig);
    memset(j, 0, sizeof(*j));
}
