/*
 * dial.h: how ringwatch-fleet reaches a server (ringwatch with --server,
 * etcd with --etcd): its host and port, and for an https:// URL the TLS
 * clients (src/tls.h: the CA that verifies the server, the server's name
 * from the URL's host, a client certificate) its connections speak, ALPN
 * h2 for the HTTP/2 and gRPC clients, http/1.1 for the HTTP/1.1 watchers;
 * and the bearer token sent with every request to ringwatch.  The fleet
 * never includes OpenSSL: TLS is src/tls.h's.
 */
#ifndef FLEET_DIAL_H
#define FLEET_DIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct h2_client_config;
struct tls_client;
struct transport;

/* The TLS files of a server (PEM; NULL: none) and its bearer token. */
struct fleet_dial_options {
    const char *cacert; /* CA that signs the server's certificate; NULL:
                           the system's CA store */
    const char *cert;   /* client certificate, with key */
    const char *key;
    const char *token; /* "Authorization: Bearer TOKEN"; NULL: none */
};

struct fleet_dial {
    char *host, *port;
    struct tls_client *tls_h2; /* https: ALPN h2; NULL: cleartext */
    struct tls_client *tls_h1; /* https: ALPN http/1.1 */
    char *authorization;       /* "Bearer TOKEN"; NULL: none */
};

/*
 * Reads url (http:// or https://, as address_parse_server_url) of the
 * option named option ("server", "etcd") with o's files and token; the
 * TLS options' names are prefix + "cacert", "cert", "key", "token"
 * ("" or "etcd-").  Returns RW_OK, or RW_EINVAL with one line in
 * config_fail's form (a bad URL; TLS options with an http:// URL; --cert
 * without --key; a file OpenSSL cannot use); *d is then empty.
 */
int fleet_dial_init(struct fleet_dial *d, const char *option, const char *url,
                    const char *prefix, const struct fleet_dial_options *o,
                    char *why, size_t why_len);
void fleet_dial_fini(struct fleet_dial *d);

/* Makes hc's connections speak TLS when d is https (hc->transport). */
void fleet_dial_h2(const struct fleet_dial *d, struct h2_client_config *hc);

/* The TLS failures of d's HTTP/2 connections so far (0 for cleartext):
 * noted when a connection is made, for fleet_dial_h2_error when it
 * ends. */
uint64_t fleet_dial_h2_failures(const struct fleet_dial *d);

/* Why TLS ended d's HTTP/2 connection made when failures was noted
 * ("certificate verify failed: ..."), as tls_client_last_error says it;
 * NULL when TLS did not (no TLS failure since). */
const char *fleet_dial_h2_error(const struct fleet_dial *d, uint64_t failures);

/* The transport of an HTTP/1.1 connection over fd (a non-blocking socket
 * not connected yet; taken on every path): TLS when d is https, else
 * plain.  Connect its bufferevent (transport_bev).  NULL on failure. */
struct transport *fleet_dial_h1(const struct fleet_dial *d,
                                struct event_base *base, int fd);

#endif
