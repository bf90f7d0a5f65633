/*
 * tls_server.h: the server side TLS context of the listener (tls.h's
 * family): the certificate and key served, ALPN, the optional client CA
 * (kube-apiserver's --tls-cert-file, --tls-private-key-file,
 * --client-ca-file, --tls-min-version), their reload, and the transport of
 * each accepted connection.
 */
#ifndef TLS_SERVER_H
#define TLS_SERVER_H

#include <stdbool.h>
#include <stddef.h>

struct event_base;
struct tls_server;
struct transport;

/* The lowest TLS version a server accepts (--tls-min-version). */
enum tls_version {
    TLS_VERSION_12, /* VersionTLS12, the default */
    TLS_VERSION_13, /* VersionTLS13 */
};

/* What a server side context is made of (kube-apiserver's flags). */
struct tls_server_config {
    const char *cert_file;      /* --tls-cert-file: PEM chain, leaf first */
    const char *key_file;       /* --tls-private-key-file */
    const char *client_ca_file; /* --client-ca-file: clients may present a
                                   certificate (asked for, never
                                   required); NULL: none asked for */
    enum tls_version min_version;
};

/*
 * Makes a server side context: cert_file and key_file served (they must
 * match), ALPN "h2" then "http/1.1" (the client's h2 is picked when it
 * offers it; a client offering only other protocols fails the handshake
 * with no_application_protocol, as Go's crypto/tls), a client certificate
 * asked for when client_ca_file is set and verified against it without
 * ever failing the handshake: the result is the transport's
 * transport_peer, for the authenticator (kube-apiserver's x509
 * authenticator answers 401 on a bad certificate, not an alert).  The
 * configuration's strings are copied.  NULL with why (naming the option
 * and file) on failure.
 */
struct tls_server *tls_server_new(const struct tls_server_config *cfg,
                                  char *why, size_t why_len);

/* Frees s; open connections keep their context (reference counted).
 * NULL is a no-op. */
void tls_server_free(struct tls_server *s);

/*
 * Re-reads the files into a new context that new connections use (open
 * ones keep theirs).  On failure the old context stays and why says why
 * (RW_EINVAL).  Counted in tls_stats (reloads_ok, reloads_failed).
 */
int tls_server_reload(struct tls_server *s, char *why, size_t why_len);

/* Whether a file of s changed (modification time, size or inode) since
 * it was last read; a file that cannot be read counts as changed. */
bool tls_server_files_changed(struct tls_server *s);

/* The transport of an accepted connection on fd: the handshake runs when
 * the bufferevent is enabled for reading; its end is BEV_EVENT_CONNECTED
 * (BEV_EVENT_ERROR on failure).  Takes ownership of fd on every path;
 * NULL on failure. */
struct transport *tls_server_transport(struct tls_server *s,
                                       struct event_base *base, int fd);

#endif
