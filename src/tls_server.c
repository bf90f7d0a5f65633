/*
 * tls_server.c: the server side TLS context (tls_server.h): the certificate and
 * key served, ALPN, the optional client CA, and their reload.
 *
 * The current SSL_CTX is replaced as a whole on reload; each SSL holds a
 * reference to the SSL_CTX it was made from, so open connections keep
 * theirs and the old context goes with its last connection.  The files'
 * identity (inode, size, modification time) at the last read tells
 * tls_server_files_changed whether to reload.
 */
#include "src/tls_server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "cache/rw.h"
#include "src/log.h"
#include "src/tls.h"
#include "src/tls_impl.h"

enum { TLS_FILE_CERT, TLS_FILE_KEY, TLS_FILE_CA, TLS_FILES };

static const char *const tls_file_option[TLS_FILES] = {
    "--tls-cert-file", "--tls-private-key-file", "--client-ca-file"};

/* The session id context of ringwatch's server contexts. */
#define SESSION_ID "ringwatch"

struct tls_file {
    char *path; /* NULL: not configured */
    struct stat seen;
};

struct tls_server {
    SSL_CTX *ctx; /* for new connections */
    struct tls_file files[TLS_FILES];
    enum tls_version min_version;
};

/* ALPN: "h2" when the client offers it, else "http/1.1"; a client that
 * offers neither gets no_application_protocol (as Go's crypto/tls). */
static int tls_server_alpn_cb(SSL *ssl, const unsigned char **out,
                              unsigned char *outlen, const unsigned char *in,
                              unsigned int inlen, void *arg)
{
    static const unsigned char ours[] = "\x02h2\x08http/1.1";

    if (SSL_select_next_proto((unsigned char **)out, outlen, ours,
                              sizeof(ours) - 1, in,
                              inlen) == OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_OK;
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}

/* Client certificates are verified but never fail the handshake: the
 * result goes to transport_peer, and authentication answers 401. */
static int tls_server_verify_cb(int ok, X509_STORE_CTX *store)
{
    return 1;
}

static void tls_file_stat(struct tls_file *f)
{
    if (f->path == NULL || stat(f->path, &f->seen) != 0)
        memset(&f->seen, 0, sizeof(f->seen));
}

/* A context from the files as they are now; NULL with why. */
static SSL_CTX *tls_server_ctx(struct tls_server *s, char *why, size_t why_len)
{
    const struct tls_file *ca = &s->files[TLS_FILE_CA];
    SSL_CTX *ctx = tls_ctx_new(true, why, why_len);

    if (ctx == NULL)
        return NULL;
    if (s->min_version == TLS_VERSION_13)
        SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
    SSL_CTX_set_alpn_select_cb(ctx, tls_server_alpn_cb, NULL);
    /* sessions resumed only by this server (a client certificate may
     * have been verified for them) */
    SSL_CTX_set_session_id_context(ctx, (const unsigned char *)SESSION_ID,
                                   sizeof(SESSION_ID) - 1);
    if (tls_ctx_load_pair(ctx, tls_file_option[TLS_FILE_CERT],
                          s->files[TLS_FILE_CERT].path,
                          tls_file_option[TLS_FILE_KEY],
                          s->files[TLS_FILE_KEY].path, why, why_len) != RW_OK)
        goto err;
    if (ca->path != NULL) {
        STACK_OF(X509_NAME) *names;

        if (tls_ctx_load_ca(ctx, tls_file_option[TLS_FILE_CA], ca->path, why,
                            why_len) != RW_OK)
            goto err;
        names = SSL_load_client_CA_file(ca->path);
        ERR_clear_error();
        if (names != NULL)
            SSL_CTX_set_client_CA_list(ctx, names);
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, tls_server_verify_cb);
    }
    return ctx;
err:
    SSL_CTX_free(ctx);
    return NULL;
}

struct tls_server *tls_server_new(const struct tls_server_config *cfg,
                                  char *why, size_t why_len)
{
    struct tls_server *s;
    const char *paths[TLS_FILES] = {cfg->cert_file, cfg->key_file,
                                    cfg->client_ca_file};

    if (cfg->cert_file == NULL || cfg->key_file == NULL) {
        snprintf(why, why_len, "%s given without %s",
                 tls_file_option[cfg->cert_file ? TLS_FILE_CERT : TLS_FILE_KEY],
                 tls_file_option[cfg->cert_file ? TLS_FILE_KEY : TLS_FILE_CERT]);
        return NULL;
    }
    s = xcalloc(1, sizeof(*s));
    s->min_version = cfg->min_version;
    for (int i = 0; i < TLS_FILES; i++) {
        s->files[i].path = paths[i] != NULL ? xstrdup(paths[i]) : NULL;
        tls_file_stat(&s->files[i]);
    }
    s->ctx = tls_server_ctx(s, why, why_len);
    if (s->ctx == NULL) {
        tls_server_free(s);
        return NULL;
    }
    return s;
}

void tls_server_free(struct tls_server *s)
{
    if (s == NULL)
        return;
    SSL_CTX_free(s->ctx);
    for (int i = 0; i < TLS_FILES; i++)
        free(s->files[i].path);
    free(s);
}

bool tls_server_files_changed(struct tls_server *s)
{
    for (int i = 0; i < TLS_FILES; i++) {
        const struct tls_file *f = &s->files[i];
        struct stat st;

        if (f->path == NULL)
            continue;
        if (stat(f->path, &st) != 0)
            return true;
        if (st.st_ino != f->seen.st_ino || st.st_size != f->seen.st_size ||
            st.st_mtim.tv_sec != f->seen.st_mtim.tv_sec ||
            st.st_mtim.tv_nsec != f->seen.st_mtim.tv_nsec)
            return true;
    }
    return false;
}

int tls_server_reload(struct tls_server *s, char *why, size_t why_len)
{
    SSL_CTX *ctx;

    /* what is read now is what a failure or success refers to: a file
     * that changes again later is read again later */
    for (int i = 0; i < TLS_FILES; i++)
        tls_file_stat(&s->files[i]);
    ctx = tls_server_ctx(s, why, why_len);
    if (ctx == NULL) {
        tls_counters.reloads_failed++;
        return RW_EINVAL;
    }
    SSL_CTX_free(s->ctx); /* open connections hold their references */
    s->ctx = ctx;
    tls_counters.reloads_ok++;
    return RW_OK;
}

struct transport *tls_server_transport(struct tls_server *s,
                                       struct event_base *base, int fd)
{
    SSL *ssl = SSL_new(s->ctx);

    if (ssl == NULL) {
        ERR_clear_error();
        evutil_closesocket(fd);
        return NULL;
    }
    return tls_transport_new(base, fd, ssl, true);
}
