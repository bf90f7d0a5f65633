/*
 * tls_impl.h: what the tls module family (tls.c, tls_transport.c,
 * tls_server.c) shares; included by those files only, since it includes
 * OpenSSL's headers.
 */
#ifndef TLS_IMPL_H
#define TLS_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

struct event_base;
struct tls_stats;
struct transport;

/* The counters behind tls_stats(). */
extern struct tls_stats tls_counters;

/*
 * A new SSL_CTX with what every ringwatch context has: TLS 1.2 at least,
 * partial writes, moving write buffers, released idle buffers, kTLS asked
 * for, no renegotiation, the info callback that counts
 * handshakes and records why one failed.  NULL with why on failure.
 */
SSL_CTX *tls_ctx_new(bool server, char *why, size_t why_len);

/* Loads a PEM certificate chain and its key into ctx and checks that they
 * match; on failure why names the file by option ("--tls-cert-file /x:
 * ..."). */
int tls_ctx_load_pair(SSL_CTX *ctx, const char *cert_option,
                      const char *cert_file, const char *key_option,
                      const char *key_file, char *why, size_t why_len);

/* Loads a PEM CA bundle into ctx's trust store. */
int tls_ctx_load_ca(SSL_CTX *ctx, const char *option, const char *file,
                    char *why, size_t why_len);

/* Writes OpenSSL's reason for the error at the top of this thread's
 * queue (and, for a failed certificate verification, the verify result
 * of ssl, which may be NULL) into buf; clears the queue. */
void tls_reason(const SSL *ssl, char *buf, size_t len);

/*
 * The transport of one TLS connection over fd (accepted, or connecting):
 * an OpenSSL bufferevent in accept or connect state.  Takes ownership of
 * fd and ssl on every path.  NULL on failure.
 */
struct transport *tls_transport_new(struct event_base *base, int fd, SSL *ssl,
                                    bool server);

/* From the info callback: the handshake of ssl's transport completed
 * (counts it, notes kTLS, fills a server side's transport_peer); once. */
void tls_transport_handshake_done(SSL *ssl);

/* From the info callback: the handshake of ssl's transport failed, why
 * (kept for tls_transport_error; the first reason only). */
void tls_transport_failed(SSL *ssl, const char *why);

/* Whether ssl's transport completed its handshake (true without one). */
bool tls_transport_is_done(const SSL *ssl);

#endif
