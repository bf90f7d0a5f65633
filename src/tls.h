/*
 * tls.h: TLS (OpenSSL 3) as a transport (transport.h), client side (the
 * etcd client, ringwatch-fleet) and server side (the listener:
 * tls_server.h; tls_transport.h says what a connection negotiated).  The tls
 * module family (src/tls*.c) is the only code that includes OpenSSL's
 * headers; everything else sees contexts and transports.
 *
 * A TLS transport is libevent's OpenSSL bufferevent over the socket (the
 * SSL's BIO is the socket itself), so that conn_h1, conn_h2 and h2_client
 * read and write plaintext through transport_bev exactly as over a plain
 * transport, and the handshake happens before the connection's
 * BEV_EVENT_CONNECTED (client side) or before the listener hands the
 * connection on (server side).  The fast paths go to the same SSL:
 * transport_writev writes its iovec batch a record at a time (one
 * SSL_write of TLS_RECORD_MAX bytes per record, straight from an iovec
 * that holds them, else gathered into one staging buffer shared by every
 * connection) while the socket has room, all of the batch in one call
 * (up to write_max); transport_readv decrypts straight into the
 * caller's iovecs.  The buffered stream's output, which libevent writes
 * with one SSL_write per chain, is packed into one chain per pass of the
 * loop first, so that it too goes out as one SSL_write per flushed
 * batch, not per event.  The SSL keeps no buffer while idle
 * (SSL_MODE_RELEASE_BUFFERS), and the kernel's TLS (kTLS) is asked for
 * (SSL_OP_ENABLE_KTLS): where the kernel offers it, records are encrypted
 * in the kernel.
 *
 * OpenSSL writes to the socket with write(2) (its socket BIO, which kTLS
 * needs), so a process using TLS transports must ignore SIGPIPE, as
 * ringwatch and ringwatch-fleet do.
 */
#ifndef TLS_H
#define TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct transport;
struct tls_client;

/* Bytes of a TLS failure's reason at most, NUL included: OpenSSL's reason
 * and verify error strings take under 100, a file name or an alert's
 * description fits with them; a longer one is truncated. */
#define TLS_REASON_MAX 256

/* Plaintext bytes per SSL_write of transport_writev at most: one full
 * record (TLS's maximum fragment). */
#define TLS_RECORD_MAX 16384

/* What a client side context is made of.  Paths are read at once by
 * tls_client_new (never again). */
struct tls_client_config {
    const char *ca_file;     /* PEM CA bundle the server's certificate
                                must chain to; NULL: the system's */
    const char *cert_file;   /* PEM client certificate (chain); NULL:
                                none (then key_file must be NULL too) */
    const char *key_file;    /* PEM private key of cert_file */
    const char *server_name; /* SNI (a DNS name only) and the name or IP
                                address the server's certificate must be
                                valid for; NULL: no name check */
    const char *alpn;        /* one ALPN protocol offered ("h2"); NULL:
                                none.  A server answering another one
                                fails the handshake; one answering none
                                does not (see tls_transport_alpn) */
    /* Names of the options the files came from, for error messages
     * ("--etcd-certfile /x: no such file"); NULL: "CA file",
     * "certificate file", "key file". */
    const char *ca_option, *cert_option, *key_option;
};

/*
 * Makes a client side context: TLS 1.2 or 1.3, the server's certificate
 * verified against ca_file and server_name.  Loads and checks the files
 * now.  Returns NULL with a message in why (why_len bytes) naming the file
 * (by its option name) and OpenSSL's reason: "--etcd-certfile /x: No such
 * file or directory", "--etcd-keyfile /k: key does not match
 * certificate", "--etcd-certfile given without --etcd-keyfile".
 */
struct tls_client *tls_client_new(const struct tls_client_config *cfg,
                                   char *why, size_t why_len);

/* Frees c; transports made from it keep what they need (the SSL_CTX is
 * reference counted).  NULL is a no-op. */
void tls_client_free(struct tls_client *c);

/*
 * transport.h's transport_client_fn for TLS: arg is a struct tls_client.
 * The caller connects transport_bev (bufferevent_socket_connect); the
 * handshake follows, and only its success is reported as
 * BEV_EVENT_CONNECTED; a failed one is BEV_EVENT_ERROR, with
 * tls_client_last_error saying why.  Takes ownership of fd on every path.
 */
struct transport *tls_client_transport(struct event_base *base, int fd,
                                       void *arg);

/*
 * Why the latest failed handshake of a transport made from c failed, as
 * OpenSSL says it ("certificate verify failed: self-signed certificate in
 * certificate chain", "tlsv13 alert certificate required", "no
 * application protocol"); "" when none failed with a TLS reason (a
 * socket error: errno).
 */
const char *tls_client_last_error(const struct tls_client *c);

/* How many handshakes of transports made from c failed so far, a fatal
 * alert from the server right after the handshake included (TLS 1.3: a
 * refused client certificate), so that a caller can tell whether its
 * connection's end was one (the count moved) and then read
 * tls_client_last_error. */
uint64_t tls_client_failures(const struct tls_client *c);

/* Whether the kernel offers TLS offload (kTLS: Linux's tls module loaded)
 * and this OpenSSL can use it; why says which is missing otherwise. */
bool tls_ktls_available(char *why, size_t why_len);

/* Process-wide counters of the TLS transports (for /metrics and tests). */
struct tls_stats {
    uint64_t ssl_writes;        /* SSL_write calls by transport_writev */
    uint64_t bytes_staged;      /* bytes it copied into its staging buffer
                                   (the rest went from the iovecs) */
    uint64_t buffer_releases;   /* SSL buffers it freed after a batch
                                   (SSL_MODE_RELEASE_BUFFERS: kept from
                                   record to record, freed when idle) */
    uint64_t records_sent;      /* TLS records written, every path */
    /* server side (the listener's clients): completed handshakes, and
     * failed ones, those cut short (a timeout, the peer gone) included */
    uint64_t handshakes_ok, handshakes_failed;
    /* client side (ringwatch's connections to a server, etcd) */
    uint64_t client_handshakes_ok, client_handshakes_failed;
    uint64_t ktls_send;         /* open connections whose records the
                                   kernel encrypts (kTLS send) */
    uint64_t ktls_recv;         /* ... and decrypts (kTLS receive) */
    uint64_t reloads_ok;        /* server certificate reloads */
    uint64_t reloads_failed;
};

/* The counters; live, updated by the transports. */
const struct tls_stats *tls_stats(void);

#endif
