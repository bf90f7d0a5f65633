/*
 * authn_test.c: the authenticator (src/authn.c) and its decoders
 * (proto/tokenfile.c, proto/jwt.c, src/tls_sig.c) against real keys and
 * real signatures: RSA and ECDSA keys made with the openssl command line
 * in a temporary directory, tokens signed with `openssl dgst -sign`, a
 * fake clock and a fake pod lookup; x509 through a fake transport_peer
 * (what the TLS transport fills).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/jwt.h"
#include "proto/tokenfile.h"
#include "src/authn.h"
#include "src/tls_sig.h"
#include "src/transport.h"

#define ISSUER "https://kubernetes.default.svc.cluster.local"
#define NOW 1800000000

static char dir[] = "/tmp/authn_test.XXXXXX";
static time_t fake_now = NOW;

static time_t test_clock(void)
{
    return fake_now;
}

static char *path(const char *name)
{
    return xasprintf("%s/%s", dir, name);
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
    struct sbuf cmd = {0};
    va_list ap;

    sbuf_add(&cmd, "(");
    va_start(ap, fmt);
    sbuf_vaddf(&cmd, fmt, ap);
    va_end(ap);
    sbuf_add(&cmd, ") >/dev/null 2>&1");
    if (system(cmd.data) != 0)
        fail_msg("failed: %s", cmd.data);
    sbuf_fini(&cmd);
}

static void write_file(const char *name, const char *text, size_t len)
{
    char *p = path(name);
    FILE *f = fopen(p, "w");

    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    free(p);
}

static struct sbuf read_all(const char *name)
{
    char *p = path(name), chunk[4096];
    FILE *f = fopen(p, "r");
    struct sbuf b = {0};
    size_t n;

    assert_non_null(f);
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        sbuf_addn(&b, chunk, n);
    fclose(f);
    free(p);
    return b;
}

static int setup_keys(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    run("cd %s && openssl genpkey -algorithm RSA -pkeyopt "
        "rsa_keygen_bits:2048 -out rsa.key && openssl pkey -in rsa.key "
        "-pubout -out rsa.pub",
        dir);
    run("cd %s && openssl genpkey -algorithm EC -pkeyopt "
        "ec_paramgen_curve:P-256 -out ec.key && openssl pkey -in ec.key "
        "-pubout -out ec.pub",
        dir);
    run("cd %s && openssl genpkey -algorithm RSA -pkeyopt "
        "rsa_keygen_bits:2048 -out other.key",
        dir);
    run("cd %s && openssl req -x509 -key rsa.key -subj /CN=sa -days 1 "
        "-out rsa.crt",
        dir);
    run("cd %s && openssl genpkey -algorithm ED25519 -out ed.key && "
        "openssl pkey -in ed.key -pubout -out ed.pub",
        dir);
    return 0;
}

static int teardown_keys(void **state)
{
    (void)state;
    run("rm -rf %s", dir);
    return 0;
}

/* ---- minting tokens ---- */

/* DER ECDSA-Sig-Value (SEQUENCE of two INTEGERs) into JWS's R || S. */
static void der_to_raw(const unsigned char *der, size_t len, struct sbuf *out)
{
    size_t at = 2;

    assert_true(len > 8 && der[0] == 0x30 && der[1] < 0x80);
    for (int k = 0; k < 2; k++) {
        size_t n;
        unsigned char pad[32] = {0};

        assert_int_equal(der[at], 0x02);
        n = der[at + 1];
        at += 2;
        while (n > 32) { /* a leading 0 keeps the INTEGER positive */
            at++;
            n--;
        }
        sbuf_addn(out, pad, 32 - n);
        sbuf_addn(out, der + at, n);
        at += n;
    }
}

/* header.claims.signature, signed with key (a file in dir) for alg. */
static char *mint(const char *alg, const char *key, const char *header_json,
                  const char *claims)
{
    struct sbuf t = {0}, sig, raw = {0};
    char *header = header_json
                       ? xstrdup(header_json)
                       : xasprintf("{\"alg\":\"%s\",\"kid\":\"k1\"}", alg);

    sbuf_add_base64(&t, header, strlen(header), true);
    sbuf_add(&t, ".");
    sbuf_add_base64(&t, claims, strlen(claims), true);
    write_file("input", t.data, t.len);
    if (key == NULL) {
        sig = (struct sbuf){0};
        sbuf_add(&sig, "not a signature");
    } else {
        run("cd %s && openssl dgst -sha256 -sign %s -out sig input", dir, key);
        sig = read_all("sig");
    }
    sbuf_add(&t, ".");
    if (strcmp(alg, "ES256") == 0 && key != NULL) {
        der_to_raw((unsigned char *)sig.data, sig.len, &raw);
        sbuf_add_base64(&t, raw.data, raw.len, true);
    } else {
        sbuf_add_base64(&t, sig.data, sig.len, true);
    }
    sbuf_fini(&sig);
    sbuf_fini(&raw);
    free(header);
    return t.data;
}

/* Claims of a bound token for default/builder, with extra members. */
static char *claims(const char *aud, long exp, const char *extra)
{
    return xasprintf(
        "{\"iss\":\"%s\",\"aud\":%s,\"exp\":%ld,\"iat\":%d,\"nbf\":%d,"
        "\"sub\":\"system:serviceaccount:default:builder\","
        "\"kubernetes.io\":{\"namespace\":\"default\",\"serviceaccount\":"
        "{\"name\":\"builder\",\"uid\":\"sa-uid-1\"}%s}}",
        ISSUER, aud, exp, NOW - 100, NOW - 100, extra ? extra : "");
}

/* ---- the authenticator under test ---- */

static bool pods_there = true;
static char last_pod[256];

static bool fake_pod(void *arg, const char *ns, const char *name,
                     const char *uid, time_t now)
{
    (void)arg;
    assert_int_equal(now, fake_now);
    snprintf(last_pod, sizeof(last_pod), "%s/%s/%s", ns, name, uid);
    return pods_there;
}

static struct authn *make(bool anonymous, const char *token_file,
                          const char *key, const char *const *issuers,
                          size_t nissuers, bool pods)
{
    char *key_path = key ? path(key) : NULL, *tf = NULL, why[512];
    const char *keys[] = {key_path};
    const char *default_issuers[] = {ISSUER};
    struct authn_config c = {
        .anonymous = anonymous,
        .key_files = keys,
        .nkey_files = key ? 1 : 0,
        .issuers = issuers ? issuers : default_issuers,
        .nissuers = key ? (issuers ? nissuers : 1) : 0,
        .pod_exists = pods ? fake_pod : NULL,
        .now = test_clock,
    };
    struct authn *a;

    if (token_file != NULL) {
        write_file("tokens.csv", token_file, strlen(token_file));
        c.token_file = tf = path("tokens.csv");
    }
    a = authn_new(&c, why, sizeof(why));
    if (a == NULL)
        fail_msg("authn_new: %s", why);
    free(key_path);
    free(tf);
    return a;
}

/* Authenticates a request with this Authorization header and peer:
 * the identity, or NULL for 401 (why in *why). */
static struct identity *ask(struct authn *a, const char *authorization,
                            const struct transport_peer *peer, char *why)
{
    struct request req = {.method = STREAM_GET,
                          .path = "/api/v1/pods",
                          .query = "",
                          .authorization = authorization ? authorization : "",
                          .peer = peer};
    struct identity *id = NULL;
    int rc = authn_authenticate(a, &req, &id, why, 512);

    if (rc == RW_OK) {
        assert_non_null(id);
        return id;
    }
    assert_int_equal(rc, RW_EACCES);
    assert_null(id);
    return NULL;
}

static char *bearer(const char *token)
{
    return xasprintf("Bearer %s", token);
}

/* The identity of a bearer token (it must authenticate). */
static struct identity *ask_token(struct authn *a, const char *token)
{
    char *h = bearer(token), why[512];
    struct identity *id = ask(a, h, NULL, why);

    if (id == NULL)
        fail_msg("refused: %s", why);
    free(h);
    return id;
}

/* A bearer token that must be refused, with why containing says. */
static void refused(struct authn *a, const char *token, const char *says)
{
    char *h = bearer(token), why[512] = "";

    assert_null(ask(a, h, NULL, why));
    if (strstr(why, says) == NULL)
        fail_msg("refused as \"%s\", not \"%s\"", why, says);
    free(h);
}

/* ---- token file ---- */

static void test_tokenfile_format(void **state)
{
    static const char text[] =
        "t1,alice,1001,\"dev,ops\"\n"
        "\n"
        "t2,bob,,\"\",extra,columns\r\n"
        "\"t,3\",\"carol \"\"c\"\"\",1003,\"multi\nline\"\n"
        " t4,dave,1004,a,,b\n"
        ",nobody,1005\n"
        "t6,erin,1006";
    struct tokenfile tf;
    char why[256];

    (void)state;
    assert_int_equal(
        tokenfile_parse(text, sizeof(text) - 1, &tf, why, sizeof(why)), RW_OK);
    assert_int_equal(tf.n, 6);
    assert_string_equal(tf.rows[0].token, "t1");
    assert_string_equal(tf.rows[0].user, "alice");
    assert_string_equal(tf.rows[0].uid, "1001");
    assert_int_equal(tf.rows[0].ngroups, 2);
    assert_string_equal(tf.rows[0].groups[1], "ops");
    assert_int_equal(tf.rows[1].line, 3);
    assert_string_equal(tf.rows[1].uid, "");
    assert_int_equal(tf.rows[1].ngroups, 0);
    assert_string_equal(tf.rows[2].token, "t,3");
    assert_string_equal(tf.rows[2].user, "carol \"c\"");
    assert_int_equal(tf.rows[2].ngroups, 1);
    assert_string_equal(tf.rows[2].groups[0], "multi\nline");
    assert_int_equal(tf.rows[3].line, 6);
    assert_string_equal(tf.rows[3].token, " t4"); /* no trimming, as Go */
    assert_int_equal(tf.rows[3].ngroups, 1);      /* "a" of "a,,b"... */
    assert_string_equal(tf.rows[3].groups[0], "a");
    assert_string_equal(tf.rows[4].token, "");
    assert_string_equal(tf.rows[5].uid, "1006");
    tokenfile_fini(&tf);
}

static void test_tokenfile_bad_rows(void **state)
{
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"t1,alice,1\nt2,bob\n", "line 2: must have at least 3 columns "
                                 "(token, user name, user uid), found 2"},
        {"t1\n", "line 1: must have at least 3 columns"},
        {"t1,al\"ice,1\n", "line 1: bare \" in non-quoted-field"},
        {"t1,alice,1,\"dev\n\nx,y,z\n", "line 1: extraneous or missing \""},
        {"t1,\"alice\"x,1\n", "line 1: extraneous or missing \""},
        {"t1,,1\n", "line 1: empty user name"},
        {"\n\nt1,alice,1\n   \n", "line 4: must have at least 3 columns"},
        {"t1,alice,1\nt2,b\0b,1\n", "line 2: NUL byte"},
    };
    struct tokenfile tf;
    char why[256];

    (void)state;
    for (size_t i = 0; i < RW_ARRAY_LEN(bad); i++) {
        size_t len = strlen(bad[i].text);

        if (strstr(bad[i].says, "NUL"))
            len = 20;
        assert_int_equal(
            tokenfile_parse(bad[i].text, len, &tf, why, sizeof(why)),
            RW_EINVAL);
        if (strstr(why, bad[i].says) == NULL)
            fail_msg("case %zu: \"%s\", not \"%s\"", i, why, bad[i].says);
        assert_int_equal(tf.n, 0);
    }
}

static void test_token_file_startup_error(void **state)
{
    const char *issuers[] = {ISSUER};
    struct authn_config c = {.anonymous = true};
    char *tf = path("bad.csv"), why[512];

    (void)state;
    write_file("bad.csv", "t1,alice,1\nshort,row\n", 21);
    c.token_file = tf;
    assert_null(authn_new(&c, why, sizeof(why)));
    assert_non_null(strstr(why, "--token-auth-file: "));
    assert_non_null(strstr(why, "bad.csv: line 2: must have at least 3"));
    c.token_file = "/nonexistent/tokens.csv";
    assert_null(authn_new(&c, why, sizeof(why)));
    assert_non_null(strstr(why, "cannot read /nonexistent/tokens.csv"));
    /* keys without an issuer and issuers without keys */
    c.token_file = NULL;
    c.issuers = issuers;
    c.nissuers = 1;
    assert_null(authn_new(&c, why, sizeof(why)));
    assert_non_null(strstr(why, "--service-account-key-file is required"));
    free(tf);
}

static void test_static_tokens(void **state)
{
    struct authn *a = make(true,
                           "t1,alice,1001,\"dev,ops\"\n"
                           "dup,first,1\n"
                           "dup,second,2\n"
                           ",empty,3\n",
                           NULL, NULL, 0, false);
    struct identity *id = ask_token(a, "t1");
    char why[512];

    (void)state;
    assert_string_equal(id->name, "alice");
    assert_string_equal(id->uid, "1001");
    assert_int_equal(id->method, IDENTITY_TOKEN_FILE);
    assert_int_equal(id->ngroups, 3);
    assert_string_equal(id->groups[0], "dev");
    assert_string_equal(id->groups[1], "ops");
    assert_string_equal(id->groups[2], IDENTITY_AUTHENTICATED);
    identity_unref(id);
    /* a repeated token is the last line's, as the apiserver's map */
    id = ask_token(a, "dup");
    assert_string_equal(id->name, "second");
    identity_unref(id);
    /* unknown, a prefix, an extension: 401, never anonymous */
    refused(a, "t", "invalid bearer token");
    refused(a, "t12", "invalid bearer token");
    /* the scheme in any case, the token up to the next space */
    id = ask(a, "bearer t1", NULL, why);
    assert_non_null(id);
    identity_unref(id);
    id = ask(a, "  BEARER t1 trailing", NULL, why);
    assert_non_null(id);
    identity_unref(id);
    /* not a bearer token: no credential, so anonymous */
    id = ask(a, "Basic YWxpY2U6cGFzcw==", NULL, why);
    assert_string_equal(id->name, IDENTITY_ANONYMOUS);
    assert_int_equal(id->ngroups, 1);
    assert_string_equal(id->groups[0], IDENTITY_UNAUTHENTICATED);
    identity_unref(id);
    id = ask(a, "Bearer ", NULL, why);
    assert_string_equal(id->name, IDENTITY_ANONYMOUS);
    identity_unref(id);
    id = ask(a, NULL, NULL, why);
    assert_string_equal(id->name, IDENTITY_ANONYMOUS);
    identity_unref(id);
    authn_free(a);
}

static void test_anonymous_off(void **state)
{
    struct authn *a = make(false, "t1,alice,1\n", NULL, NULL, 0, false);
    uint64_t counts[AUTHN_RESULTS][IDENTITY_METHODS];
    struct identity *id;
    char why[512];

    (void)state;
    assert_null(ask(a, NULL, NULL, why));
    assert_non_null(strstr(why, "anonymous-auth=false"));
    assert_null(ask(a, "Basic Zm9vOmJhcg==", NULL, why));
    id = ask_token(a, "t1");
    identity_unref(id);
    authn_counts(a, counts);
    assert_int_equal(counts[AUTHN_FAILURE][IDENTITY_NONE], 2);
    assert_int_equal(counts[AUTHN_SUCCESS][IDENTITY_TOKEN_FILE], 1);
    authn_free(a);
}

/* ---- x509 ---- */

static void test_x509(void **state)
{
    const char *orgs[] = {"system:masters", "dev"};
    struct transport_peer good = {.presented = true,
                                  .verified = true,
                                  .common_name = "alice",
                                  .organizations = orgs,
                                  .norganizations = 2};
    struct transport_peer expired = {.presented = true,
                                     .error = "certificate has expired",
                                     .common_name = "alice"};
    struct transport_peer no_cn = {
        .presented = true, .verified = true, .common_name = ""};
    struct transport_peer none = {0};
    struct authn *a = make(true, "t1,bob,1\n", NULL, NULL, 0, false);
    struct identity *id;
    char why[512];

    (void)state;
    id = ask(a, "Bearer t1", &good, why); /* the certificate comes first */
    assert_string_equal(id->name, "alice");
    assert_int_equal(id->method, IDENTITY_X509);
    assert_int_equal(id->ngroups, 3);
    assert_true(identity_in_group(id, "system:masters"));
    assert_true(identity_in_group(id, IDENTITY_AUTHENTICATED));
    identity_unref(id);
    /* a certificate that does not verify: 401, even with a good token */
    assert_null(ask(a, "Bearer t1", &expired, why));
    assert_non_null(strstr(why, "certificate has expired"));
    /* an empty CN names nobody: the next method, as the apiserver */
    id = ask(a, "Bearer t1", &no_cn, why);
    assert_string_equal(id->name, "bob");
    identity_unref(id);
    id = ask(a, NULL, &no_cn, why);
    assert_string_equal(id->name, IDENTITY_ANONYMOUS);
    identity_unref(id);
    id = ask(a, NULL, &none, why);
    assert_string_equal(id->name, IDENTITY_ANONYMOUS);
    identity_unref(id);
    authn_free(a);
}

/* The streams of one connection (the same certificate) share one
 * identity; another subject, even one group apart, gets its own. */
static void test_x509_identity_shared(void **state)
{
    const char *orgs[] = {"dev", "ops"}, *fewer[] = {"dev"};
    struct transport_peer p1 = {.presented = true, .verified = true,
                                .common_name = "alice",
                                .organizations = orgs, .norganizations = 2};
    struct transport_peer p2 = p1, p3 = p1, p4 = p1;
    struct authn *a = make(true, NULL, NULL, NULL, 0, false);
    struct identity *id1, *id2, *id3, *id4;
    char why[512];

    (void)state;
    p3.organizations = fewer;
    p3.norganizations = 1;
    p4.common_name = "bob";
    id1 = ask(a, NULL, &p1, why);
    id2 = ask(a, NULL, &p2, why);
    assert_ptr_equal(id1, id2);
    id3 = ask(a, NULL, &p3, why);
    assert_ptr_not_equal(id3, id1);
    assert_int_equal(id3->ngroups, 2);
    assert_false(identity_in_group(id3, "ops"));
    id4 = ask(a, NULL, &p4, why);
    assert_string_equal(id4->name, "bob");
    assert_int_equal(id4->ngroups, 3);
    assert_string_equal(id1->name, "alice");
    assert_true(identity_in_group(id1, "ops"));
    identity_unref(id1);
    identity_unref(id2);
    identity_unref(id3);
    identity_unref(id4);
    authn_free(a);
}

/* ---- service-account tokens ---- */

static void check_sa(struct identity *id)
{
    assert_string_equal(id->name, "system:serviceaccount:default:builder");
    assert_string_equal(id->uid, "sa-uid-1");
    assert_int_equal(id->method, IDENTITY_SERVICE_ACCOUNT);
    assert_int_equal(id->ngroups, 3);
    assert_string_equal(id->groups[0], "system:serviceaccounts");
    assert_string_equal(id->groups[1], "system:serviceaccounts:default");
    assert_string_equal(id->groups[2], IDENTITY_AUTHENTICATED);
}

static void test_sa_rs256_es256(void **state)
{
    struct authn *rsa = make(true, NULL, "rsa.pub", NULL, 0, true);
    struct authn *ec = make(true, NULL, "ec.pub", NULL, 0, true);
    char *c = claims("[\"" ISSUER "\"]", NOW + 3600, NULL);
    char *rs = mint("RS256", "rsa.key", NULL, c);
    char *es = mint("ES256", "ec.key", NULL, c);
    struct identity *id;

    (void)state;
    id = ask_token(rsa, rs);
    check_sa(id);
    assert_null(id->pod_name);
    identity_unref(id);
    id = ask_token(ec, es);
    check_sa(id);
    identity_unref(id);
    /* each key verifies only its own algorithm */
    refused(ec, rs, "does not verify");
    refused(rsa, es, "does not verify");
    free(rs);
    free(es);
    free(c);
    authn_free(rsa);
    authn_free(ec);
}

static void test_sa_key_forms(void **state)
{
    const char *forms[] = {"rsa.key", "rsa.crt"};
    char *c = claims("\"" ISSUER "\"", NOW + 3600, NULL);
    char *t = mint("RS256", "rsa.key", NULL, c), why[512];
    const char *issuers[] = {ISSUER};
    char *ed = path("ed.pub");
    struct authn_config bad = {.key_files = (const char *const *)&ed,
                               .nkey_files = 1,
                               .issuers = issuers,
                               .nissuers = 1};

    (void)state;
    for (size_t i = 0; i < RW_ARRAY_LEN(forms); i++) {
        struct authn *a = make(true, NULL, forms[i], NULL, 0, true);
        struct identity *id = ask_token(a, t);

        check_sa(id);
        identity_unref(id);
        authn_free(a);
    }
    /* an Ed25519 key is not a service-account key */
    assert_null(authn_new(&bad, why, sizeof(why)));
    assert_non_null(strstr(why, "does not contain any valid RSA or ECDSA"));
    free(ed);
    free(t);
    free(c);
}

static void test_sa_refusals(void **state)
{
    struct authn *a = make(true, NULL, "rsa.pub", NULL, 0, true);
    char *good = claims("\"" ISSUER "\"", NOW + 3600, NULL);
    char *tok, *c, *tampered;
    struct identity *id;

    (void)state;
    /* expired, inside and past the 60 s leeway */
    c = claims("\"" ISSUER "\"", NOW - 30, NULL);
    tok = mint("RS256", "rsa.key", NULL, c);
    identity_unref(ask_token(a, tok));
    free(tok);
    free(c);
    c = claims("\"" ISSUER "\"", NOW - 61, NULL);
    tok = mint("RS256", "rsa.key", NULL, c);
    refused(a, tok, "service account token has expired");
    free(tok);
    free(c);
    /* not valid yet, issued in the future */
    fake_now = NOW - 200;
    tok = mint("RS256", "rsa.key", NULL, good);
    refused(a, tok, "not valid yet");
    fake_now = NOW;
    free(tok);
    /* audience: another one refused, one of several accepted */
    c = claims("\"https://elsewhere\"", NOW + 60, NULL);
    tok = mint("RS256", "rsa.key", NULL, c);
    refused(a, tok, "audiences");
    free(tok);
    free(c);
    c = claims("[\"x\",\"" ISSUER "\"]", NOW + 60, NULL);
    tok = mint("RS256", "rsa.key", NULL, c);
    identity_unref(ask_token(a, tok));
    free(tok);
    free(c);
    /* an issuer not listed: not a service-account token at all */
    c = xasprintf("{\"iss\":\"https://other\",\"aud\":\"" ISSUER "\","
                  "\"kubernetes.io\":{\"namespace\":\"default\","
                  "\"serviceaccount\":{\"name\":\"b\",\"uid\":\"u\"}}}");
    tok = mint("RS256", "rsa.key", NULL, c);
    refused(a, tok, "invalid bearer token");
    free(tok);
    free(c);
    /* signed by another key; alg none; HS256 with the public key as the
     * secret (the classic confusion); alg RS256 claimed for an ES sig */
    tok = mint("RS256", "other.key", NULL, good);
    refused(a, tok, "does not verify");
    free(tok);
    tok = mint("none", NULL, "{\"alg\":\"none\"}", good);
    refused(a, tok, "alg none");
    free(tok);
    tok = mint("HS256", NULL, "{\"alg\":\"HS256\"}", good);
    refused(a, tok, "alg HS256");
    free(tok);
    /* the kid does not matter (every key is tried, as the apiserver) */
    tok =
        mint("RS256", "rsa.key", "{\"alg\":\"RS256\",\"kid\":\"bogus\"}", good);
    id = ask_token(a, tok);
    identity_unref(id);
    /* a claim changed after signing */
    tampered = xstrdup(tok);
    {
        char *dot = strchr(tampered, '.') + 1;

        dot[5] = dot[5] == 'A' ? 'B' : 'A';
    }
    refused(a, tampered, "");
    free(tampered);
    free(tok);
    /* malformed: JWT-shaped garbage, wrong claim types */
    refused(a, "a.b.c", "invalid bearer token");
    refused(a, "eyJhbGciOiJSUzI1NiJ9..", "invalid bearer token");
    c = xasprintf("{\"iss\":\"" ISSUER "\",\"exp\":\"tomorrow\"}");
    tok = mint("RS256", "rsa.key", NULL, c);
    refused(a, tok, "invalid bearer token");
    free(tok);
    free(c);
    /* the service account's claims missing */
    c = xasprintf("{\"iss\":\"" ISSUER "\",\"aud\":\"" ISSUER "\","
                  "\"kubernetes.io\":{\"namespace\":\"default\"}}");
    tok = mint("RS256", "rsa.key", NULL, c);
    refused(a, tok, "lacks");
    free(tok);
    free(c);
    free(good);
    authn_free(a);
}

/* --api-audiences: each value a comma-separated list; given, it replaces
 * the default (the first issuer). */
static void test_sa_audiences(void **state)
{
    const char *issuers[] = {ISSUER, "https://second"};
    const char *audiences[] = {"x,ringwatch", ",y"};
    char *key = path("rsa.pub"), why[512];
    const char *keys[] = {key};
    struct authn_config cfg = {.key_files = keys,
                               .nkey_files = 1,
                               .issuers = issuers,
                               .nissuers = 2,
                               .audiences = audiences,
                               .naudiences = 2,
                               .pod_exists = fake_pod,
                               .now = test_clock};
    struct authn *a = authn_new(&cfg, why, sizeof(why));
    const char *accepted[] = {"\"ringwatch\"", "\"y\"", "[\"z\",\"x\"]"};
    const char *other[] = {"\"" ISSUER "\"", "\"x,ringwatch\"", "\"\""};

    (void)state;
    assert_non_null(a);
    for (size_t i = 0; i < RW_ARRAY_LEN(accepted); i++) {
        char *c = claims(accepted[i], NOW + 60, NULL);
        char *tok = mint("RS256", "rsa.key", NULL, c);

        identity_unref(ask_token(a, tok));
        free(tok);
        free(c);
    }
    for (size_t i = 0; i < RW_ARRAY_LEN(other); i++) {
        char *c = claims(other[i], NOW + 60, NULL);
        char *tok = mint("RS256", "rsa.key", NULL, c);

        refused(a, tok, "audiences");
        free(tok);
        free(c);
    }
    authn_free(a);
    free(key);
}

static void test_sa_pod_bound(void **state)
{
    struct authn *a = make(true, NULL, "ec.pub", NULL, 0, true);
    struct authn *blind = make(true, NULL, "ec.pub", NULL, 0, false);
    char *c = claims("\"" ISSUER "\"", NOW + 3600,
                     ",\"pod\":{\"name\":\"web-1\",\"uid\":\"pod-uid-7\"}");
    char *tok = mint("ES256", "ec.key", NULL, c);
    struct identity *id;

    (void)state;
    pods_there = true;
    id = ask_token(a, tok);
    check_sa(id);
    assert_string_equal(last_pod, "default/web-1/pod-uid-7");
    assert_string_equal(id->pod_namespace, "default");
    assert_string_equal(id->pod_name, "web-1");
    assert_string_equal(id->pod_uid, "pod-uid-7");
    identity_unref(id);
    pods_there = false;
    refused(a, tok, "has been invalidated");
    pods_there = true;
    /* pods not served: a bound token cannot be checked, so refused */
    refused(blind, tok, "pods are not served");
    free(tok);
    free(c);
    authn_free(a);
    authn_free(blind);
}

static void test_sa_legacy(void **state)
{
    const char *both[] = {ISSUER, "kubernetes/serviceaccount"};
    struct authn *modern = make(true, NULL, "rsa.pub", NULL, 0, true);
    struct authn *legacy = make(true, NULL, "rsa.pub", both, 2, true);
    const char *c =
        "{\"iss\":\"kubernetes/serviceaccount\","
        "\"kubernetes.io/serviceaccount/namespace\":\"default\","
        "\"kubernetes.io/serviceaccount/secret.name\":\"builder-token\","
        "\"kubernetes.io/serviceaccount/service-account.name\":\"builder\","
        "\"kubernetes.io/serviceaccount/service-account.uid\":\"sa-uid-1\","
        "\"sub\":\"system:serviceaccount:default:builder\"}";
    char *tok = mint("RS256", "rsa.key", NULL, c);
    struct identity *id;

    (void)state;
    refused(modern, tok, "invalid bearer token");
    id = ask_token(legacy, tok);
    check_sa(id);
    identity_unref(id);
    free(tok);
    authn_free(modern);
    authn_free(legacy);
}

static void test_jwt_parse(void **state)
{
    static const char *const bad[] = {
        "",        "a",       "a.b",       "a.b.c.d",
        "!!.e30.", "e30.!!.", "e30.e30.!", "W10.e30.", /* header [] */
    };
    struct jwt j;
    char why[256];
    char *tok = mint("RS256", NULL, "{\"alg\":\"RS256\",\"typ\":\"JWT\"}",
                     "{\"iss\":\"i\",\"aud\":[\"a\",\"b\"],\"exp\":1.9e9,"
                     "\"nbf\":5,\"iat\":6.7}");

    (void)state;
    for (size_t i = 0; i < RW_ARRAY_LEN(bad); i++) {
        assert_int_equal(
            jwt_parse(bad[i], strlen(bad[i]), &j, why, sizeof(why)), RW_EINVAL);
        assert_non_null(strstr(why, "malformed token"));
    }
    assert_int_equal(jwt_parse(tok, strlen(tok), &j, why, sizeof(why)), RW_OK);
    assert_string_equal(j.alg, "RS256");
    assert_string_equal(j.typ, "JWT");
    assert_int_equal(j.naud, 2);
    assert_string_equal(j.aud[1], "b");
    assert_true(j.has_exp && j.has_nbf && j.has_iat);
    assert_int_equal(j.exp, 1900000000);
    assert_int_equal(j.iat, 6);
    assert_false(j.has_pod);
    assert_int_equal(j.signing_len, (size_t)(strrchr(tok, '.') - tok));
    assert_memory_equal(j.sig, "not a signature", 15);
    jwt_fini(&j);
    free(tok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokenfile_format),
        cmocka_unit_test(test_tokenfile_bad_rows),
        cmocka_unit_test(test_token_file_startup_error),
        cmocka_unit_test(test_static_tokens),
        cmocka_unit_test(test_anonymous_off),
        cmocka_unit_test(test_x509),
        cmocka_unit_test(test_x509_identity_shared),
        cmocka_unit_test(test_sa_rs256_es256),
        cmocka_unit_test(test_sa_key_forms),
        cmocka_unit_test(test_sa_refusals),
        cmocka_unit_test(test_sa_audiences),
        cmocka_unit_test(test_sa_pod_bound),
        cmocka_unit_test(test_sa_legacy),
        cmocka_unit_test(test_jwt_parse),
    };
    return cmocka_run_group_tests(tests, setup_keys, teardown_keys);
}
