/*
 * authn.c: authentication, as kube-apiserver's authenticator chain (see
 * authn.h).  State: the static tokens as SHA-256 digests (the token text
 * is not kept), the service-account key set, issuers and audiences, and
 * the per-method counters.  Every check reads only this state and the
 * request, so it is the same on every request.
 */
#include "src/authn.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/object.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/store.h"
#include "cache/watchcache.h"
#include "proto/jval.h"
#include "proto/jwt.h"
#include "proto/metatime.h"
#include "proto/tokenfile.h"
#include "src/log.h"
#include "src/resource.h"
#include "src/tls_sig.h"
#include "src/transport.h"

/* go-jose's jwt.DefaultLeeway, which the apiserver's validator uses for
 * exp, nbf, iat and a bound pod's deletion. */
#define AUTHN_LEEWAY 60

/* The issuer of legacy secret-based tokens (serviceaccount.LegacyIssuer). */
#define AUTHN_LEGACY_ISSUER "kubernetes/serviceaccount"

/* Token files bigger than this are refused (a token is ~100 bytes). */
#define AUTHN_TOKEN_FILE_MAX_MIB 64
#define AUTHN_TOKEN_FILE_MAX ((size_t)AUTHN_TOKEN_FILE_MAX_MIB << 20)

struct static_token {
    unsigned char digest[TLS_SIG_SHA256_BYTES]; /* SHA-256 of the token */
    struct identity *id; /* groups include system:authenticated */
};

struct authn {
    bool anonymous;
    struct static_token *tokens;
    size_t ntokens;
    struct tls_sig_keys *keys; /* NULL: no service-account tokens */
    char **issuers, **audiences;
    size_t nissuers, naudiences;
    authn_pod_fn pod_exists;
    void *pod_arg;
    time_t (*now)(void);
    uint64_t counts[AUTHN_RESULTS][IDENTITY_METHODS];
    /* The latest client certificate's identity, shared by the requests
     * that present the same subject (an HTTP/2 connection's streams: one
     * identity per watcher would be idle memory). */
    struct identity *x509_last;
    /* system:anonymous, shared by every request without credentials
     * (identities are immutable once made: no allocation per request) */
    struct identity *anonymous_id;
};

/* ---- configuration ---- */

static char **strings_copy(const char *const *v, size_t n)
{
    char **out = xcalloc(n + 1, sizeof(char *));

    for (size_t i = 0; i < n; i++)
        out[i] = xstrdup(v[i]);
    return out;
}

/* The comma-separated entries of the n lists at v, empty ones dropped,
 * into a new array of *count strings. */
static char **strings_split(const char *const *v, size_t n, size_t *count)
{
    char **out = xcalloc(1, sizeof(char *));

    *count = 0;
    for (size_t i = 0; i < n; i++) {
        char *copy = xstrdup(v[i]), *save = NULL;

        for (char *a = strtok_r(copy, ",", &save); a != NULL;
             a = strtok_r(NULL, ",", &save)) {
            out = xrealloc(out, (*count + 2) * sizeof(char *));
            out[(*count)++] = xstrdup(a);
        }
        free(copy);
    }
    return out;
}

static void strings_free(char **v, size_t n)
{
    for (size_t i = 0; v != NULL && i < n; i++)
        free(v[i]);
    free(v);
}

static bool strings_has(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

/* The whole file at path into b; RW_EINVAL with why. */
static int read_file(const char *path, struct sbuf *b, char *why,
                     size_t why_len)
{
    FILE *f = fopen(path, "r");
    char chunk[8192];
    size_t n;

    if (f == NULL) {
        snprintf(why, why_len, "--token-auth-file: cannot read %s: %s", path,
                 strerror(errno));
        return RW_EINVAL;
    }
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0 &&
           b->len <= AUTHN_TOKEN_FILE_MAX)
        sbuf_addn(b, chunk, n);
    sbuf_addn(b, "", 0);
    if (ferror(f) || b->len > AUTHN_TOKEN_FILE_MAX) {
        if (ferror(f))
            snprintf(why, why_len, "--token-auth-file: cannot read %s: %s",
                     path, strerror(errno));
        else
            snprintf(why, why_len,
                     "--token-auth-file: cannot read %s: larger than %d MiB",
                     path, AUTHN_TOKEN_FILE_MAX_MIB);
        fclose(f);
        return RW_EINVAL;
    }
    fclose(f);
    return RW_OK;
}

static struct identity *token_identity(const struct tokenfile_row *row)
{
    struct identity *id =
        identity_new(IDENTITY_TOKEN_FILE, row->user, row->uid);

    for (size_t g = 0; g < row->ngroups; g++)
        identity_add_group(id, row->groups[g]);
    identity_add_group(id, IDENTITY_AUTHENTICATED);
    return id;
}

/* Adds the file's tokens: an empty one skipped, a repeated one replacing
 * the earlier (the apiserver's map assignment), each with a warning. */
static void tokens_add(struct authn *a, const char *path,
                       const struct tokenfile *tf)
{
    for (size_t i = 0; i < tf->n; i++) {
        const struct tokenfile_row *row = &tf->rows[i];
        struct static_token t;
        size_t k = 0;

        if (*row->token == '\0') {
            log_warnx("empty token has been found in token file '%s', "
                      "line %u: skipped",
                      path, row->line);
            continue;
        }
        tls_sig_sha256(row->token, strlen(row->token), t.digest);
        t.id = token_identity(row);
        while (k < a->ntokens &&
               memcmp(a->tokens[k].digest, t.digest, sizeof(t.digest)) != 0)
            k++;
        if (k < a->ntokens) {
            log_warnx("duplicate token has been found in token file '%s', "
                      "line %u: it replaces the earlier one",
                      path, row->line);
            identity_unref(a->tokens[k].id);
            a->tokens[k] = t;
            continue;
        }
        a->tokens = xrealloc(a->tokens, (a->ntokens + 1) * sizeof(t));
        a->tokens[a->ntokens++] = t;
    }
}

static int load_token_file(struct authn *a, const char *path, char *why,
                           size_t why_len)
{
    struct sbuf text = {0};
    struct tokenfile tf;
    char what[256];
    int rc = read_file(path, &text, why, why_len);

    if (rc == RW_OK && tokenfile_parse(text.data, text.len, &tf, what,
                                       sizeof(what)) != RW_OK) {
        snprintf(why, why_len, "--token-auth-file: %s: %s", path, what);
        rc = RW_EINVAL;
    } else if (rc == RW_OK) {
        tokens_add(a, path, &tf);
        tokenfile_fini(&tf);
    }
    sbuf_fini(&text);
    return rc;
}

static int load_service_accounts(struct authn *a,
                                 const struct authn_config *cfg, char *why,
                                 size_t why_len)
{
    char what[512];

    if (cfg->nkey_files == 0 && cfg->nissuers == 0)
        return RW_OK;
    if (cfg->nissuers == 0 || cfg->nkey_files == 0) {
        snprintf(why, why_len,
                 cfg->nissuers == 0
                     ? "--service-account-issuer is required with "
                       "--service-account-key-file"
                     : "--service-account-key-file is required with "
                       "--service-account-issuer");
        return RW_EINVAL;
    }
    a->keys = tls_sig_keys_new();
    for (size_t i = 0; i < cfg->nkey_files; i++) {
        if (tls_sig_keys_load(a->keys, cfg->key_files[i], what, sizeof(what)) !=
            RW_OK) {
            snprintf(why, why_len, "--service-account-key-file: %s", what);
            return RW_EINVAL;
        }
    }
    for (size_t i = 0; i < cfg->nissuers; i++) {
        if (*cfg->issuers[i] == '\0') {
            snprintf(why, why_len,
                     "--service-account-issuer: an issuer is empty");
            return RW_EINVAL;
        }
    }
    a->issuers = strings_copy(cfg->issuers, cfg->nissuers);
    a->nissuers = cfg->nissuers;
    a->audiences =
        strings_split(cfg->audiences, cfg->naudiences, &a->naudiences);
    if (a->naudiences == 0) {
        free(a->audiences);
        a->audiences = strings_copy(cfg->issuers, 1);
        a->naudiences = 1;
    }
    return RW_OK;
}

static time_t authn_time(void)
{
    return time(NULL);
}

struct authn *authn_new(const struct authn_config *cfg, char *why,
                        size_t why_len)
{
    struct authn *a = xcalloc(1, sizeof(*a));

    a->anonymous = cfg->anonymous;
    a->anonymous_id = identity_anonymous();
    a->pod_exists = cfg->pod_exists;
    a->pod_arg = cfg->pod_arg;
    a->now = cfg->now != NULL ? cfg->now : authn_time;
    if ((cfg->token_file != NULL &&
         load_token_file(a, cfg->token_file, why, why_len) != RW_OK) ||
        load_service_accounts(a, cfg, why, why_len) != RW_OK) {
        authn_free(a);
        return NULL;
    }
    return a;
}

void authn_free(struct authn *a)
{
    if (a == NULL)
        return;
    for (size_t i = 0; i < a->ntokens; i++)
        identity_unref(a->tokens[i].id);
    free(a->tokens);
    tls_sig_keys_free(a->keys);
    strings_free(a->issuers, a->nissuers);
    strings_free(a->audiences, a->naudiences);
    identity_unref(a->x509_last);
    identity_unref(a->anonymous_id);
    free(a);
}

void authn_counts(const struct authn *a,
                  uint64_t out[AUTHN_RESULTS][IDENTITY_METHODS])
{
    memcpy(out, a->counts, sizeof(a->counts));
}

/* ---- static tokens ---- */

/* The identity of token, comparing its digest with every entry's in
 * constant time (no early exit, no memcmp). */
static struct identity *token_lookup(const struct authn *a, const char *token,
                                     size_t len)
{
    unsigned char digest[TLS_SIG_SHA256_BYTES];
    struct identity *found = NULL;

    tls_sig_sha256(token, len, digest);
    for (size_t i = 0; i < a->ntokens; i++) {
        unsigned char diff = 0;

        for (size_t k = 0; k < sizeof(digest); k++)
            diff |= (unsigned char)(digest[k] ^ a->tokens[i].digest[k]);
        if (diff == 0)
            found = a->tokens[i].id;
    }
    return found != NULL ? identity_ref(found) : NULL;
}

/* ---- service-account tokens ---- */

/* Writes why; returns RW_EACCES (401). */
static int authn_fail(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int authn_fail(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return RW_EACCES;
}

/* The claims' times, with the leeway (go-jose's Claims.Validate). */
static int sa_check_time(const struct jwt *j, time_t now, char *why,
                         size_t why_len)
{
    if (j->has_exp && now - AUTHN_LEEWAY > j->exp)
        return authn_fail(why, why_len, "service account token has expired");
    if (j->has_nbf && now + AUTHN_LEEWAY < j->nbf)
        return authn_fail(why, why_len,
                          "service account token is not valid yet");
    if (j->has_iat && now + AUTHN_LEEWAY < j->iat)
        return authn_fail(why, why_len,
                          "service account token is issued in the future");
    return RW_OK;
}

/* aud against the accepted audiences (none in the token: legacy, the
 * accepted ones). */
static bool sa_audience_ok(const struct authn *a, const struct jwt *j)
{
    if (j->naud == 0)
        return true;
    for (size_t i = 0; i < j->naud; i++)
        if (strings_has(a->audiences, a->naudiences, j->aud[i]))
            return true;
    return false;
}

/* The claims after the signature: issuer, audience, times, the service
 * account and its pod (claims.go's and legacy.go's validators). */
static int sa_check_claims(const struct authn *a, const struct jwt *j,
                           char *why, size_t why_len)
{
    time_t now = a->now();
    int rc;

    if (!sa_audience_ok(a, j))
        return authn_fail(why, why_len,
                          "token audiences %s is invalid for the target "
                          "audiences",
                          j->aud[0]);
    if ((rc = sa_check_time(j, now, why, why_len)) != RW_OK)
        return rc;
    if (*j->ns == '\0' || *j->sa_name == '\0' || *j->sa_uid == '\0')
        return authn_fail(why, why_len,
                          "service account token lacks its namespace, name "
                          "or uid claim");
    if (!j->has_pod)
        return RW_OK;
    if (a->pod_exists == NULL)
        return authn_fail(why, why_len,
                          "service account token bound to pod %s cannot be "
                          "checked: pods are not served (--resources)",
                          j->pod_name);
    if (*j->pod_name == '\0' || *j->pod_uid == '\0' ||
        !a->pod_exists(a->pod_arg, j->ns, j->pod_name, j->pod_uid, now))
        return authn_fail(why, why_len,
                          "service account token has been invalidated: pod %s "
                          "is gone",
                          j->pod_name);
    return RW_OK;
}

static struct identity *sa_identity(const struct jwt *j)
{
    char *name = xasprintf(IDENTITY_SA_PREFIX "%s:%s", j->ns, j->sa_name);
    struct identity *id =
        identity_new(IDENTITY_SERVICE_ACCOUNT, name, j->sa_uid);

    identity_add_sa_groups(id, j->ns);
    identity_add_group(id, IDENTITY_AUTHENTICATED);
    if (j->has_pod) {
        id->pod_namespace = xstrdup(j->ns);
        id->pod_name = xstrdup(j->pod_name);
        id->pod_uid = xstrdup(j->pod_uid);
    }
    free(name);
    return id;
}

/*
 * A bearer token as a service-account JWT: RW_ENOTFOUND when it is not
 * one of ours (not JWT-shaped, unparsable, or an issuer not listed: the
 * apiserver's authenticator answers "not mine" and the token is then
 * unknown), RW_EACCES with why when it is ours but invalid, RW_OK with
 * *out.
 */
static int sa_authenticate(struct authn *a, const char *token, size_t len,
                           struct identity **out, char *why, size_t why_len)
{
    struct jwt j;
    int rc;

    if (a->keys == NULL || !jwt_shaped(token, len) ||
        jwt_parse(token, len, &j, why, why_len) != RW_OK)
        return RW_ENOTFOUND;
    if (!strings_has(a->issuers, a->nissuers, j.iss) ||
        (j.legacy != (strcmp(j.iss, AUTHN_LEGACY_ISSUER) == 0))) {
        jwt_fini(&j);
        return RW_ENOTFOUND;
    }
    if (!tls_sig_verify(a->keys, j.alg, j.signing_input, j.signing_len, j.sig,
                        j.sig_len))
        rc = authn_fail(why, why_len,
                        "service account token signature (alg %s) does not "
                        "verify with any --service-account-key-file key",
                        j.alg);
    else
        rc = sa_check_claims(a, &j, why, why_len);
    if (rc == RW_OK)
        *out = sa_identity(&j);
    jwt_fini(&j);
    return rc;
}

/* ---- pods ---- */

bool authn_pod_in_cache(void *arg, const char *ns, const char *name,
                        const char *uid, time_t now)
{
    struct resource *pods = arg;
    char *key;
    struct object *o;
    struct jval *doc;
    const char *deleted;
    int64_t when;
    bool there = false;

    /* A relist keeps serving the last complete list: so does this. */
    if (!watchcache_initialized(resource_cache(pods)))
        return false;
    key = resource_type_key(resource_type(pods), ns, name);
    o = store_get(watchcache_store(resource_cache(pods)), key, strlen(key));
    free(key);
    if (o == NULL)
        return false;
    doc = jval_parse(o->json->data, o->json->len);
    there = strcmp(jval_str(jval_path(doc, "metadata.uid")), uid) == 0;
    deleted = jval_str(jval_path(doc, "metadata.deletionTimestamp"));
    if (there && metatime_parse(deleted, &when) && when < now - AUTHN_LEEWAY)
        there = false;
    jval_free(doc);
    return there;
}

/* ---- the chain ---- */

/* The token of an Authorization header, as the apiserver's bearertoken
 * authenticator: trimmed, "Bearer" in any case, then the text up to the
 * next space.  false (no token: not a credential) otherwise. */
static bool bearer_token(const char *header, const char **token, size_t *len)
{
    const char *p = header, *end;

    while (*p == ' ' || *p == '\t')
        p++;
    if (strncasecmp(p, "bearer ", 7) != 0)
        return false;
    p += 7;
    end = p + strcspn(p, " ");
    while (end > p && (end[-1] == '\t' || end[-1] == '\r' || end[-1] == '\n'))
        end--;
    *token = p;
    *len = (size_t)(end - p);
    return *len > 0;
}

/* Whether id is what x509_identity makes of peer's subject. */
static bool x509_same(const struct identity *id,
                      const struct transport_peer *peer)
{
    if (id == NULL || strcmp(id->name, peer->common_name) != 0 ||
        id->ngroups != peer->norganizations + 1)
        return false;
    for (size_t i = 0; i < peer->norganizations; i++)
        if (strcmp(id->groups[i], peer->organizations[i]) != 0)
            return false;
    return true;
}

static struct identity *x509_identity(struct authn *a,
                                      const struct transport_peer *peer)
{
    struct identity *id;

    if (x509_same(a->x509_last, peer))
        return identity_ref(a->x509_last);
    id = identity_new(IDENTITY_X509, peer->common_name, NULL);
    for (size_t i = 0; i < peer->norganizations; i++)
        identity_add_group(id, peer->organizations[i]);
    identity_add_group(id, IDENTITY_AUTHENTICATED);
    identity_unref(a->x509_last);
    a->x509_last = identity_ref(id);
    return id;
}

static int authn_token(struct authn *a, const char *token, size_t len,
                       struct identity **out, char *why, size_t why_len)
{
    char *copy = xstrndup(token, len);
    int rc;

    if ((*out = token_lookup(a, copy, len)) != NULL)
        rc = RW_OK;
    else if ((rc = sa_authenticate(a, copy, len, out, why, why_len)) ==
             RW_ENOTFOUND)
        rc = authn_fail(why, why_len, "invalid bearer token");
    free(copy);
    return rc;
}

static int authn_chain(struct authn *a, const struct request *req,
                       struct identity **out, enum identity_method *method,
                       char *why, size_t why_len)
{
    const struct transport_peer *peer = req->peer;
    const char *token;
    size_t len;
    int rc;

    *method = IDENTITY_X509;
    if (peer != NULL && peer->presented && !peer->verified)
        return authn_fail(why, why_len, "verifying certificate failed: %s",
                          peer->error != NULL ? peer->error : "not verified");
    if (peer != NULL && peer->presented && peer->common_name != NULL &&
        *peer->common_name != '\0') {
        *out = x509_identity(a, peer);
        return RW_OK;
    }
    if (req->authorization != NULL &&
        bearer_token(req->authorization, &token, &len)) {
        rc = authn_token(a, token, len, out, why, why_len);
        *method = rc == RW_OK              ? (*out)->method
                  : jwt_shaped(token, len) ? IDENTITY_SERVICE_ACCOUNT
                                           : IDENTITY_TOKEN_FILE;
        return rc;
    }
    *method = IDENTITY_NONE;
    if (!a->anonymous)
        return authn_fail(why, why_len,
                          "no credentials, and anonymous requests are "
                          "refused (--anonymous-auth=false)");
    *out = identity_ref(a->anonymous_id);
    return RW_OK;
}

int authn_authenticate(struct authn *a, const struct request *req,
                       struct identity **out, char *why, size_t why_len)
{
    enum identity_method method;
    int rc;

    *out = NULL;
    rc = authn_chain(a, req, out, &method, why, why_len);
    a->counts[rc == RW_OK ? AUTHN_SUCCESS : AUTHN_FAILURE][method]++;
    return rc;
}
