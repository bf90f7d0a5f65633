/*
 * transport.h: the byte stream under an HTTP connection, server side
 * (conn_h1, conn_h2, handed over by the listener) and client side
 * (h2_client): the one seam between the HTTP code and the socket.  The
 * HTTP modules never call send/recv/sendmsg/writev/shutdown/close on a
 * socket; they call these functions, and a transport decides what goes
 * on the wire (plaintext today; TLS records in a TLS transport).
 *
 * A transport is a struct of function pointers (struct transport_ops)
 * and its own state, as redis's ConnectionType or h2o's socket layer.
 * Every transport offers two ways to move bytes, and a connection may use
 * both, in order:
 *
 *  - a buffered stream, a libevent bufferevent (transport_bev): the
 *    connection reads its input from the bufferevent's input buffer and
 *    queues small or rare output (HTTP/1.x responses, a client's
 *    requests) in its output buffer, with libevent's watermarks and
 *    timeouts.  A plain transport gives a socket bufferevent; a TLS one
 *    (tls.h) gives libevent's OpenSSL bufferevent over the socket
 *    (bufferevent_openssl_socket_new), so that the connection reads and
 *    writes plaintext.
 *  - direct vectored I/O (transport_writev, transport_readv) for the fast
 *    paths: conn_h2 writes its output ring (h2_out.h) by reference, a
 *    batch of iovecs per call, without copying it into the bufferevent;
 *    h2_client reads a large backlog in big pieces past libevent's 4 KiB
 *    reads.  A TLS transport writes a writev batch a record at a time
 *    (gathering a record's bytes into a staging buffer unless one iovec
 *    holds them), and decrypts into the readv buffers.  Its writev
 *    returns only what went out in records; when it took less than the
 *    batch the SSL may owe part of the rest (encrypted, not yet sent), so
 *    the caller must call again with the bytes not taken first in its
 *    iovecs (a queue consumed by what was taken, and no more, does that)
 *    before writing anything else.  Direct writes are only
 *    made while the bufferevent's output buffer is empty, and the
 *    bufferevent's output is only used while nothing is pending in a
 *    direct write, so the two never interleave on the wire.
 *
 * Waiting: after writev or readv returned 0 (no progress),
 * transport_wants says which readiness of transport_fd lets the call
 * progress: a plain socket wants writable to write and readable to read,
 * but TLS may need the socket readable to make write progress (a
 * KeyUpdate) or writable to read.  The connection registers its event for
 * what it is told, on transport_fd, and calls again.  The fd is for event
 * registration only.
 *
 * Without a socket (one end of a bufferevent pair, in tests) the plain
 * transport's writev copies into the bufferevent's output and readv reads
 * its input; shutdown fails (RW_EIO: there is no write side to shut).
 *
 * Server side, the listener makes the transport of each accepted
 * connection (transport_plain_new, or tls_server_transport when the first
 * byte is a TLS handshake record: see listener.h) and hands it to
 * listener_adopt, which sniffs the protocol from the plaintext the
 * bufferevent reads (after TLS, from ALPN first) and hands it on to
 * conn_h1 or conn_h2; client side, h2_client gets one from the
 * transport_client_fn its configuration names.  Neither conn_h1, conn_h2
 * nor h2_client names a transport implementation.
 *
 * Lifetime: transport_free drops queued output (releasing the references
 * it holds) and closes the socket at once, needing no further loop run.
 */
#ifndef TRANSPORT_H
#define TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct bufferevent;
struct event_base;
struct timeval;

/* What a transport waits for before its last call that returned 0 can
 * progress (transport_wants); a bit set. */
enum transport_want {
    TRANSPORT_WANT_READ = 1,  /* the socket readable */
    TRANSPORT_WANT_WRITE = 2, /* the socket writable */
};

struct transport;

/*
 * The client certificate a TLS transport saw in its handshake, for the
 * authenticator (authn.h), as kube-apiserver's x509 request authenticator
 * reads it: the server asks for a certificate (when it has a client CA)
 * but never fails the handshake over it, so that a bad certificate is a
 * 401 Unauthorized Status and not a TLS alert.  Owned by the transport;
 * valid until transport_free.
 */
struct transport_peer {
    bool presented;     /* the client sent a certificate */
    bool verified;      /* it chains to the client CA and is valid now */
    const char *error;  /* why not verified ("certificate has expired"),
                         * as OpenSSL's X509_verify_cert_error_string;
                         * NULL when verified or not presented */
    /* subject CN, the last one as Go's pkix.Name keeps it: the user
     * name; NULL */
    const char *common_name;
    const char *const *organizations; /* subject O values: the groups */
    size_t norganizations;
};

/* A transport's implementation; each function as its transport_* wrapper
 * below documents. */
struct transport_ops {
    ssize_t (*readv)(struct transport *t, const struct iovec *iov, int n);
    ssize_t (*writev)(struct transport *t, struct iovec *iov, int n);
    int (*shutdown_write)(struct transport *t);
    unsigned (*wants)(const struct transport *t);
    void (*free)(struct transport *t);
};

/* The part of every transport the wrappers read; an implementation
 * embeds it first. */
struct transport {
    const struct transport_ops *ops;
    struct bufferevent *bev; /* the buffered stream (owned) */
    int fd;                  /* for event registration; -1: none */
    size_t write_max;        /* bytes per writev at most; 0: no limit */
    /* The client certificate (TLS, server side, after the handshake);
     * NULL for a plain transport or a client-side one. */
    const struct transport_peer *peer;
};

/* A plain (cleartext) transport over bev, a socket bufferevent created
 * with BEV_OPT_CLOSE_ON_FREE or, in tests, one end of a bufferevent pair.
 * Takes ownership of bev. */
struct transport *transport_plain_new(struct bufferevent *bev);

/*
 * Makes the transport of an outgoing connection over fd, a non-blocking
 * socket not connected yet, on base: the caller connects its bufferevent
 * (bufferevent_socket_connect, which works on filtering bufferevents too)
 * and learns of it from BEV_EVENT_CONNECTED; a TLS transport handshakes
 * then, before reporting it.  arg is the factory's own (a TLS context and
 * the server's name).  Takes ownership of fd on every path (closed at
 * once on failure, else by transport_free).  NULL on failure.  h2_client
 * takes one in its h2_client_config, so that its connections change transport
 * without a change to it.
 */
typedef struct transport *transport_client_fn(struct event_base *base, int fd,
                                              void *arg);

/* The plain transport_client_fn: a socket bufferevent over fd (arg
 * unused). */
struct transport *transport_plain_client(struct event_base *base, int fd,
                                         void *arg);

/* The buffered stream (see the top of this file); owned by t. */
static inline struct bufferevent *transport_bev(const struct transport *t)
{
    return t->bev;
}

/* The client certificate of t's handshake (see struct transport_peer);
 * NULL when t is not a server-side TLS transport. */
static inline const struct transport_peer *transport_peer(
    const struct transport *t)
{
    return t->peer;
}

/* The socket, for registering readiness events only; -1 without one. */
static inline int transport_fd(const struct transport *t)
{
    return t->fd;
}

/*
 * Bounds each transport_writev to what the kernel's send buffer holds,
 * when sndbuf (the configured SO_SNDBUF, bytes) is positive: its
 * SO_SNDBUF as the kernel reports it (twice sndbuf on Linux), else
 * sndbuf.  One oversized write per round trip stalls on loopback, where a
 * 64 KiB segment waits for the receiver's delayed ACK.  0: no bound.
 */
void transport_limit_writes(struct transport *t, int sndbuf);

/*
 * Writes from the n iovecs at iov (n >= 1), in order, at most
 * TRANSPORT_IOV_MAX of them and write_max bytes per call.  The entries
 * are the caller's (the output ring's, by reference): iov may be changed
 * during the call and is restored before it returns.  Returns the bytes
 * taken (> 0; for a TLS transport, put into records it flushes itself),
 * 0 when nothing could be taken now (then see transport_wants), or RW_EIO
 * on a socket error (the connection is done; errno says why).  Never
 * raises SIGPIPE (a TLS transport: as long as the process ignores it,
 * tls.h).
 */
ssize_t transport_writev(struct transport *t, struct iovec *iov, int n);

/* At most this many iovecs per transport_writev (Linux UIO_MAXIOV). */
#define TRANSPORT_IOV_MAX 1024

/*
 * Reads into the n iovecs at iov, bypassing the buffered stream: the
 * caller must have consumed the bufferevent's input first, so bytes stay
 * in order.  Returns the bytes read (> 0), 0 when none is available now
 * (see transport_wants), RW_ECLOSED at the peer's end of stream, or RW_EIO
 * (errno says why).  A caller may leave EOF and errors to the
 * bufferevent: the socket stays readable and its next read reports them.
 */
ssize_t transport_readv(struct transport *t, const struct iovec *iov, int n);

/* Shuts the write side (a plain socket: shutdown(SHUT_WR), TCP FIN; TLS:
 * close_notify, then FIN), so that the peer reads every byte sent, then
 * its end of stream, and not a reset.  Returns RW_OK or RW_EIO (no socket,
 * or the call failed). */
int transport_shutdown_write(struct transport *t);

/* Copies up to len of the bytes waiting on socket fd (accepted, not
 * adopted by a transport yet) into buf without taking them (MSG_PEEK),
 * for the listener's sniffing.  Returns how many (> 0), 0 when none is
 * there yet, RW_ECLOSED at end of stream, RW_EIO on an error. */
ssize_t transport_peek(int fd, void *buf, size_t len);

/* After transport_writev or transport_readv made no progress: which
 * readiness of transport_fd to wait for (enum transport_want bits). */
unsigned transport_wants(const struct transport *t);

/* Drops what the bufferevent still holds (its output's references are
 * released now, not when the loop finalizes it), frees the bufferevent
 * and closes the socket.  NULL is a no-op. */
void transport_free(struct transport *t);

/* Frees base, at the end of a program or a test, after transport_free of
 * every transport and event_free of every event on it, when the loop may
 * have been broken (event_base_loopbreak) in the middle of a pass.
 * libevent keeps a bufferevent alive while a deferred callback of it is
 * queued (libevent's OpenSSL bufferevent defers its write callback after
 * each write), and only the loop runs that callback: event_base_free
 * drops it without releasing the bufferevent, whose SSL, buffers and
 * socket would then never be freed.  So one pass of the loop runs first
 * (without waiting), then event_base_free runs the finalizers.  NULL is a
 * no-op. */
void transport_base_free(struct event_base *base);

#endif
