/*
 * tls.c: OpenSSL contexts for ringwatch (tls.h): what every context has
 * (tls_ctx_new: versions, modes, kTLS, the info callback), loading
 * certificates, keys and CA bundles with errors that name the file, and
 * the client side context (tls_client).  The transports are in
 * tls_transport.c, the server side context in tls_server.c.
 *
 * Handshake outcomes are seen in the info callback: SSL_CB_HANDSHAKE_DONE
 * (the transport counts it, notes kTLS, reads the client certificate) and
 * a failing SSL_CB_*_EXIT, where OpenSSL's error queue holds the reason
 * (left in place: libevent reads it next to tell an error from EOF).
 */
#include "src/tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "cache/rw.h"
#include "src/log.h"
#include "src/tls_impl.h"
#include "src/transport.h"

struct tls_stats tls_counters;

const struct tls_stats *tls_stats(void)
{
    return &tls_counters;
}

bool tls_ktls_available(char *why, size_t why_len)
{
#ifdef OPENSSL_NO_KTLS
    snprintf(why, why_len, "OpenSSL was built without kTLS");
    return false;
#else
    if (access("/sys/module/tls", F_OK) != 0) {
        snprintf(why, why_len, "the kernel has no tls module");
        return false;
    }
    snprintf(why, why_len, "available");
    return true;
#endif
}

/* ---- contexts ---- */

/* What each SSL_CTX of ringwatch carries (its ex_data; freed with it). */
struct tls_ctx_info {
    bool server;
    /* the latest failed handshake's reason */
    char last_error[TLS_REASON_MAX];
    /* handshakes failed, client side (a fatal alert right after the
     * handshake included) */
    uint64_t failures;
};

static int tls_info_index = -1;

static void tls_info_free_cb(void *parent, void *ptr, CRYPTO_EX_DATA *ad,
                             int idx, long argl, void *argp)
{
    free(ptr);
}

/* The ctx's tls_ctx_info (never NULL for a tls_ctx_new context). */
static struct tls_ctx_info *tls_ctx_info(const SSL_CTX *ctx)
{
    return SSL_CTX_get_ex_data(ctx, tls_info_index);
}

void tls_reason(const SSL *ssl, char *buf, size_t len)
{
    unsigned long e = ERR_peek_error();
    const char *r = e != 0 ? ERR_reason_error_string(e) : NULL;

    if (e == 0) {
        snprintf(buf, len, "unknown TLS error");
    } else if (ERR_SYSTEM_ERROR(e)) {
        snprintf(buf, len, "%s", strerror(ERR_GET_REASON(e)));
    } else if (r == NULL) {
        ERR_error_string_n(e, buf, len);
    } else if (ssl != NULL && ERR_GET_LIB(e) == ERR_LIB_SSL &&
               ERR_GET_REASON(e) == SSL_R_CERTIFICATE_VERIFY_FAILED) {
        snprintf(buf, len, "%s: %s", r,
                 X509_verify_cert_error_string(SSL_get_verify_result(ssl)));
    } else {
        snprintf(buf, len, "%s", r);
    }
}

static void tls_info_cb(const SSL *ssl, int where, int ret)
{
    struct tls_ctx_info *info;

    if (where & SSL_CB_HANDSHAKE_DONE) {
        tls_transport_handshake_done((SSL *)ssl);
        return;
    }
    /* A client's TLS 1.3 handshake is done before the server has looked
     * at its certificate: a refusal comes as a fatal alert on the first
     * read (etcd's "bad certificate", "certificate required").  It is
     * the handshake's failure all the same. */
    if ((where & SSL_CB_READ_ALERT) && (ret >> 8) == SSL3_AL_FATAL &&
        !SSL_is_server(ssl)) {
        info = tls_ctx_info(SSL_get_SSL_CTX(ssl));
        snprintf(info->last_error, sizeof(info->last_error),
                 "the server sent alert %s", SSL_alert_desc_string_long(ret));
        info->failures++;
        tls_transport_failed((SSL *)ssl, info->last_error);
        log_debug("tls: %s", info->last_error);
        return;
    }
    if (!(where & SSL_CB_EXIT) || ret > 0 || ERR_peek_error() == 0 ||
        tls_transport_is_done(ssl))
        return;
    info = tls_ctx_info(SSL_get_SSL_CTX(ssl));
    tls_reason(ssl, info->last_error, sizeof(info->last_error));
    tls_transport_failed((SSL *)ssl, info->last_error);
    info->failures++;
    log_debug("tls: handshake failed: %s", info->last_error);
}

/* Counts the records sent (each record's header passes here). */
static void tls_msg_cb(int write_p, int version, int content_type,
                       const void *buf, size_t len, SSL *ssl, void *arg)
{
    if (write_p && content_type == SSL3_RT_HEADER)
        tls_counters.records_sent++;
}

/* Never asks for a passphrase on the terminal: an encrypted key fails. */
static int tls_passphrase_cb(char *buf, int size, int rwflag, void *u)
{
    return -1;
}

SSL_CTX *tls_ctx_new(bool server, char *why, size_t why_len)
{
    SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method()
                                      : TLS_client_method());
    struct tls_ctx_info *info;

    if (ctx == NULL) {
        tls_reason(NULL, why, why_len);
        ERR_clear_error();
        return NULL;
    }
    if (tls_info_index < 0)
        tls_info_index =
            SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, tls_info_free_cb);
    info = xcalloc(1, sizeof(*info));
    info->server = server;
    SSL_CTX_set_ex_data(ctx, tls_info_index, info);
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
                              SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                              SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_options(ctx, SSL_OP_ENABLE_KTLS | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_info_callback(ctx, tls_info_cb);
    SSL_CTX_set_msg_callback(ctx, tls_msg_cb);
    SSL_CTX_set_default_passwd_cb(ctx, tls_passphrase_cb);
    return ctx;
}

/* "OPTION FILE: reason" from the error queue, cleared. */
static int tls_file_error(const char *option, const char *file, char *why,
                          size_t why_len)
{
    char reason[TLS_REASON_MAX];

    tls_reason(NULL, reason, sizeof(reason));
    ERR_clear_error();
    snprintf(why, why_len, "%s %s: %s", option, file, reason);
    return RW_EINVAL;
}

int tls_ctx_load_pair(SSL_CTX *ctx, const char *cert_option,
                      const char *cert_file, const char *key_option,
                      const char *key_file, char *why, size_t why_len)
{
    unsigned long e;

    ERR_clear_error();
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1)
        return tls_file_error(cert_option, cert_file, why, why_len);
    if (SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) == 1 &&
        SSL_CTX_check_private_key(ctx) == 1)
        return RW_OK;
    e = ERR_peek_error();
    if (e == 0 || (ERR_GET_LIB(e) == ERR_LIB_X509 &&
                   ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH) ||
        (ERR_GET_LIB(e) == ERR_LIB_SSL &&
         ERR_GET_REASON(e) == SSL_R_PRIVATE_KEY_MISMATCH)) {
        ERR_clear_error();
        snprintf(why, why_len, "%s %s: key does not match certificate %s",
                 key_option, key_file, cert_file);
        return RW_EINVAL;
    }
    return tls_file_error(key_option, key_file, why, why_len);
}

int tls_ctx_load_ca(SSL_CTX *ctx, const char *option, const char *file,
                    char *why, size_t why_len)
{
    STACK_OF(X509_INFO) *infos;
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    BIO *bio;
    int certs = 0;

    ERR_clear_error();
    bio = BIO_new_file(file, "r");
    if (bio == NULL)
        return tls_file_error(option, file, why, why_len);
    infos = PEM_X509_INFO_read_bio(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (infos == NULL)
        return tls_file_error(option, file, why, why_len);
    for (int i = 0; i < sk_X509_INFO_num(infos); i++) {
        X509_INFO *xi = sk_X509_INFO_value(infos, i);

        if (xi->x509 != NULL && X509_STORE_add_cert(store, xi->x509) == 1)
            certs++;
    }
    sk_X509_INFO_pop_free(infos, X509_INFO_free);
    ERR_clear_error();
    if (certs == 0) {
        snprintf(why, why_len, "%s %s: no certificate in the file", option,
                 file);
        return RW_EINVAL;
    }
    return RW_OK;
}

/* ---- the client side ---- */

struct tls_client {
    SSL_CTX *ctx;
    char *sni; /* the server name when it is a DNS name; NULL */
};

/* Sets ctx's checks of the server's name (an IP address or a DNS name);
 * returns whether name is a DNS name (then also sent as SNI). */
static int tls_client_name(SSL_CTX *ctx, const char *name, bool *dns,
                           char *why, size_t why_len)
{
    X509_VERIFY_PARAM *param = SSL_CTX_get0_param(ctx);
    ASN1_OCTET_STRING *ip = a2i_IPADDRESS(name);

    *dns = ip == NULL;
    ASN1_OCTET_STRING_free(ip);
    ERR_clear_error();
    if (*dns ? X509_VERIFY_PARAM_set1_host(param, name, 0) == 1
             : X509_VERIFY_PARAM_set1_ip_asc(param, name) == 1)
        return RW_OK;
    snprintf(why, why_len, "TLS server name %s: not a host name or address",
             name);
    return RW_EINVAL;
}

/* ALPN's wire form of one protocol into ctx. */
static int tls_client_alpn(SSL_CTX *ctx, const char *alpn, char *why,
                           size_t why_len)
{
    unsigned char wire[256];
    size_t len = strlen(alpn);

    if (len == 0 || len > 255) {
        snprintf(why, why_len, "ALPN protocol \"%s\": 1 to 255 bytes", alpn);
        return RW_EINVAL;
    }
    wire[0] = (unsigned char)len;
    memcpy(wire + 1, alpn, len);
    if (SSL_CTX_set_alpn_protos(ctx, wire, (unsigned)len + 1) != 0) {
        snprintf(why, why_len, "ALPN protocol \"%s\": refused", alpn);
        return RW_EINVAL;
    }
    return RW_OK;
}

struct tls_client *tls_client_new(const struct tls_client_config *cfg,
                                   char *why, size_t why_len)
{
    const char *ca_opt = cfg->ca_option ? cfg->ca_option : "CA file";
    const char *cert_opt =
        cfg->cert_option ? cfg->cert_option : "certificate file";
    const char *key_opt = cfg->key_option ? cfg->key_option : "key file";
    struct tls_client *c;
    SSL_CTX *ctx;
    bool dns = false;

    if ((cfg->cert_file == NULL) != (cfg->key_file == NULL)) {
        snprintf(why, why_len, "%s given without %s",
                 cfg->cert_file != NULL ? cert_opt : key_opt,
                 cfg->cert_file != NULL ? key_opt : cert_opt);
        return NULL;
    }
    ctx = tls_ctx_new(false, why, why_len);
    if (ctx == NULL)
        return NULL;
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (cfg->ca_file != NULL) {
        if (tls_ctx_load_ca(ctx, ca_opt, cfg->ca_file, why, why_len) != RW_OK)
            goto err;
    } else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        tls_file_error(ca_opt, "(the system's)", why, why_len);
        goto err;
    }
    if (cfg->cert_file != NULL &&
        tls_ctx_load_pair(ctx, cert_opt, cfg->cert_file, key_opt,
                          cfg->key_file, why, why_len) != RW_OK)
        goto err;
    if (cfg->server_name != NULL &&
        tls_client_name(ctx, cfg->server_name, &dns, why, why_len) != RW_OK)
        goto err;
    if (cfg->alpn != NULL &&
        tls_client_alpn(ctx, cfg->alpn, why, why_len) != RW_OK)
        goto err;
    c = xcalloc(1, sizeof(*c));
    c->ctx = ctx;
    c->sni = dns ? xstrdup(cfg->server_name) : NULL;
    return c;
err:
    SSL_CTX_free(ctx);
    return NULL;
}

void tls_client_free(struct tls_client *c)
{
    if (c == NULL)
        return;
    SSL_CTX_free(c->ctx);
    free(c->sni);
    free(c);
}

struct transport *tls_client_transport(struct event_base *base, int fd,
                                       void *arg)
{
    struct tls_client *c = arg;
    SSL *ssl = SSL_new(c->ctx);

    if (ssl == NULL || (c->sni != NULL &&
                        SSL_set_tlsext_host_name(ssl, c->sni) != 1)) {
        char why[TLS_REASON_MAX];

        tls_reason(NULL, why, sizeof(why));
        ERR_clear_error();
        log_warnx("tls: cannot make a connection: %s", why);
        SSL_free(ssl);
        evutil_closesocket(fd);
        return NULL;
    }
    return tls_transport_new(base, fd, ssl, false);
}

const char *tls_client_last_error(const struct tls_client *c)
{
    return tls_ctx_info(c->ctx)->last_error;
}

uint64_t tls_client_failures(const struct tls_client *c)
{
    return tls_ctx_info(c->ctx)->failures;
}
