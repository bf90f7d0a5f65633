/*
 * tls_transport.h: what a TLS transport (tls.h, tls_server.h) tells about
 * its connection once the handshake is over or has failed.
 */
#ifndef TLS_TRANSPORT_H
#define TLS_TRANSPORT_H

struct transport;

/* Why t's handshake failed, as OpenSSL says it ("wrong version number",
 * "no shared cipher"); NULL when it did not fail with a TLS reason. */
const char *tls_transport_error(const struct transport *t);

/* The protocol ALPN settled on a TLS transport after its handshake: "h2",
 * "http/1.1", or NULL (none). */
const char *tls_transport_alpn(const struct transport *t);

#endif
