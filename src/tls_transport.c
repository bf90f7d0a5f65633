/*
 * tls_transport.c: the TLS transport (tls.h, transport.h): libevent's
 * OpenSSL bufferevent over the socket for the buffered stream and the
 * handshake, and the same SSL for the direct paths.
 *
 * writev gathers the caller's iovecs into one staging buffer (static,
 * shared by every connection: the loop is single threaded and the bytes
 * are encrypted before SSL_write returns) and makes one SSL_write of the
 * batch.  When SSL_write cannot finish (WANT_WRITE, or WANT_READ), the
 * SSL holds part of the batch already encrypted and must be called again
 * with at least the same length; writev returns 0 then, the caller's
 * queue still holds the bytes, and the next call gathers the same
 * `retry` bytes again (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER: the staging
 * buffer may have served other connections in between).  The
 * bufferevent's own writes (its output buffer) are only used while no
 * batch is owed, as transport.h requires of callers.
 *
 * readv decrypts into the caller's iovecs; decrypted bytes that did not
 * fit (SSL_pending) go to the bufferevent's input, whose read callback
 * is triggered, so nothing waits inside the SSL for a readable socket
 * that never comes.
 */
#include "src/tls_impl.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "cache/rw.h"
#include "src/log.h"
#include "src/transport.h"

struct tls_transport {
    struct transport base; /* first */
    SSL *ssl;              /* owned by the bufferevent */
    unsigned wants;        /* after the last call that made no progress */
    size_t retry;          /* bytes an unfinished SSL_write owes; 0 */
    bool done;             /* handshake completed */
    bool ktls_send, ktls_recv; /* the kernel does the records */
    char *error;           /* why the handshake failed; NULL */
    struct transport_peer peer; /* server side, after the handshake */
};

static unsigned char tls_stage[TLS_BATCH_MAX];

/* Copies up to len bytes of the iovecs into tls_stage; returns how many. */
static size_t tls_gather(const struct iovec *iov, int n, size_t len)
{
    size_t sum = 0;

    for (int i = 0; i < n && sum < len; i++) {
        size_t k = RW_MIN(iov[i].iov_len, len - sum);

        memcpy(tls_stage + sum, iov[i].iov_base, k);
        sum += k;
    }
    return sum;
}

/* Maps SSL_get_error of a call that returned r <= 0 to 0 (wait, wants
 * set) or RW_ECLOSED / RW_EIO. */
static ssize_t tls_io_error(struct tls_transport *x, int r, const char *what)
{
    char why[256];

    switch (SSL_get_error(x->ssl, r)) {
    case SSL_ERROR_WANT_READ:
        x->wants = TRANSPORT_WANT_READ;
        return 0;
    case SSL_ERROR_WANT_WRITE:
        x->wants = TRANSPORT_WANT_WRITE;
        return 0;
    case SSL_ERROR_ZERO_RETURN:
        return RW_ECLOSED;
    case SSL_ERROR_SYSCALL:
        if (errno == EAGAIN || errno == EINTR) {
            x->wants = strcmp(what, "read") == 0 ? TRANSPORT_WANT_READ
                                                  : TRANSPORT_WANT_WRITE;
            return 0;
        }
        if (errno == 0) {
            ERR_clear_error();
            return RW_ECLOSED;
        }
        log_debug("tls: %s: %s", what, strerror(errno));
        ERR_clear_error();
        return RW_EIO;
    default:
        tls_reason(x->ssl, why, sizeof(why));
        log_debug("tls: %s: %s", what, why);
        errno = EPROTO;
        return RW_EIO;
    }
}

static ssize_t tls_writev(struct transport *t, struct iovec *iov, int n)
{
    struct tls_transport *x = (struct tls_transport *)t;
    size_t cap = TLS_BATCH_MAX, len;
    int r;

    if (t->write_max > 0 && t->write_max < cap)
        cap = t->write_max;
    len = tls_gather(iov, RW_MIN(n, TRANSPORT_IOV_MAX),
                     x->retry > 0 ? x->retry : cap);
    if (len == 0)
        return 0;
    ERR_clear_error();
    r = SSL_write(x->ssl, tls_stage, (int)len);
    tls_counters.ssl_writes++;
    if (r > 0) {
        x->retry = 0;
        x->wants = 0;
        return r;
    }
    x->retry = len;
    return tls_io_error(x, r, "write");
}

/* Decrypted bytes left in the SSL after readv filled its iovecs go to the
 * bufferevent's input, for its read callback. */
static void tls_spill(struct tls_transport *x)
{
    struct evbuffer *in = bufferevent_get_input(x->base.bev);
    unsigned char buf[4096];
    bool moved = false;
    size_t got;

    while (SSL_pending(x->ssl) > 0 &&
           SSL_read_ex(x->ssl, buf, sizeof(buf), &got) == 1) {
        evbuffer_add(in, buf, got);
        moved = true;
    }
    ERR_clear_error();
    if (moved)
        bufferevent_trigger(x->base.bev, EV_READ,
                            BEV_TRIG_IGNORE_WATERMARKS |
                                BEV_TRIG_DEFER_CALLBACKS);
}

static ssize_t tls_readv(struct transport *t, const struct iovec *iov, int n)
{
    struct tls_transport *x = (struct tls_transport *)t;
    size_t sum = 0;

    for (int i = 0; i < n; i++) {
        size_t off = 0, got;

        while (off < iov[i].iov_len) {
            int r;

            ERR_clear_error();
            r = SSL_read_ex(x->ssl, (char *)iov[i].iov_base + off,
                            iov[i].iov_len - off, &got);
            if (r == 1) {
                off += got;
                continue;
            }
            sum += off;
            if (sum > 0) {
                ERR_clear_error();
                x->wants = 0;
                return (ssize_t)sum;
            }
            return tls_io_error(x, 0, "read");
        }
        sum += off;
    }
    x->wants = 0;
    tls_spill(x);
    return (ssize_t)sum;
}

static int tls_shutdown_write(struct transport *t)
{
    struct tls_transport *x = (struct tls_transport *)t;

    if (t->fd < 0)
        return RW_EIO;
    ERR_clear_error();
    if (x->done && SSL_shutdown(x->ssl) < 0)
        ERR_clear_error(); /* close_notify not sent: FIN all the same */
    if (shutdown(t->fd, SHUT_WR) < 0)
        return RW_EIO;
    return RW_OK;
}

static unsigned tls_wants(const struct transport *t)
{
    return ((const struct tls_transport *)t)->wants;
}

static void tls_peer_clear(struct transport_peer *p)
{
    free((char *)p->error);
    free((char *)p->common_name);
    for (size_t i = 0; i < p->norganizations; i++)
        free((char *)p->organizations[i]);
    free((void *)p->organizations);
    memset(p, 0, sizeof(*p));
}

static void tls_free(struct transport *t)
{
    struct tls_transport *x = (struct tls_transport *)t;
    struct evbuffer *out = bufferevent_get_output(t->bev);

    evbuffer_drain(out, evbuffer_get_length(out));
    SSL_set_app_data(x->ssl, NULL);
    tls_counters.ktls_send -= x->ktls_send;
    tls_counters.ktls_recv -= x->ktls_recv;
    free(x->error);
    /* frees the SSL and closes the socket (BEV_OPT_CLOSE_ON_FREE) */
    bufferevent_free(t->bev);
    tls_peer_clear(&x->peer);
    free(x);
}

static const struct transport_ops tls_ops = {
    .readv = tls_readv,
    .writev = tls_writev,
    .shutdown_write = tls_shutdown_write,
    .wants = tls_wants,
    .free = tls_free,
};

/* ---- the end of the handshake (from tls.c's info callback) ---- */

/* The subject's entries of nid, as strings. */
static char *tls_name_entry(X509_NAME *name, int pos)
{
    X509_NAME_ENTRY *e = X509_NAME_get_entry(name, pos);
    unsigned char *utf8 = NULL;
    int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
    char *s;

    if (len < 0)
        return xstrdup("");
    s = xmalloc((size_t)len + 1);
    memcpy(s, utf8, (size_t)len);
    s[len] = '\0';
    OPENSSL_free(utf8);
    return s;
}

/* Fills the server side's transport_peer from the client's certificate
 * and the verification the handshake made (never failing it). */
static void tls_peer_fill(struct tls_transport *x)
{
    X509 *cert = SSL_get0_peer_certificate(x->ssl);
    struct transport_peer *p = &x->peer;
    X509_NAME *name;
    long v;
    int pos = -1, count = 0;

    x->base.peer = p;
    if (cert == NULL)
        return;
    p->presented = true;
    v = SSL_get_verify_result(x->ssl);
    p->verified = v == X509_V_OK;
    if (!p->verified)
        p->error = xstrdup(X509_verify_cert_error_string(v));
    name = X509_get_subject_name(cert);
    pos = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
    if (pos >= 0)
        p->common_name = tls_name_entry(name, pos);
    for (pos = -1;
         (pos = X509_NAME_get_index_by_NID(name, NID_organizationName,
                                           pos)) >= 0;)
        count++;
    if (count == 0)
        return;
    p->organizations = xcalloc((size_t)count, sizeof(char *));
    for (pos = -1;
         (pos = X509_NAME_get_index_by_NID(name, NID_organizationName,
                                           pos)) >= 0;)
        ((char **)p->organizations)[p->norganizations++] =
            tls_name_entry(name, pos);
}

void tls_transport_handshake_done(SSL *ssl)
{
    struct tls_transport *x = SSL_get_app_data(ssl);

    if (x == NULL || x->done)
        return;
    x->done = true;
    tls_counters.handshakes_ok++;
    x->ktls_send = BIO_get_ktls_send(SSL_get_wbio(ssl));
    x->ktls_recv = BIO_get_ktls_recv(SSL_get_rbio(ssl));
    tls_counters.ktls_send += x->ktls_send;
    tls_counters.ktls_recv += x->ktls_recv;
    if (SSL_is_server(ssl))
        tls_peer_fill(x);
}

void tls_transport_failed(SSL *ssl, const char *why)
{
    struct tls_transport *x = SSL_get_app_data(ssl);

    if (x != NULL && x->error == NULL)
        x->error = xstrdup(why);
}

const char *tls_transport_error(const struct transport *t)
{
    return t->ops == &tls_ops ? ((const struct tls_transport *)t)->error
                              : NULL;
}

bool tls_transport_is_done(const SSL *ssl)
{
    const struct tls_transport *x = SSL_get_app_data(ssl);

    return x == NULL || x->done;
}

struct transport *tls_transport_new(struct event_base *base, int fd, SSL *ssl,
                                    bool server)
{
    struct tls_transport *x;
    struct bufferevent *bev = bufferevent_openssl_socket_new(
        base, fd, ssl,
        server ? BUFFEREVENT_SSL_ACCEPTING : BUFFEREVENT_SSL_CONNECTING,
        BEV_OPT_CLOSE_ON_FREE);

    if (bev == NULL) {
        SSL_free(ssl);
        evutil_closesocket(fd);
        return NULL;
    }
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    x = xcalloc(1, sizeof(*x));
    x->base.ops = &tls_ops;
    x->base.bev = bev;
    x->base.fd = fd;
    x->ssl = ssl;
    SSL_set_app_data(ssl, x);
    return &x->base;
}

const char *tls_transport_alpn(const struct transport *t)
{
    const unsigned char *p;
    unsigned len;

    if (t->ops != &tls_ops)
        return NULL;
    SSL_get0_alpn_selected(((const struct tls_transport *)t)->ssl, &p, &len);
    if (len == 2 && memcmp(p, "h2", 2) == 0)
        return "h2";
    if (len == 8 && memcmp(p, "http/1.1", 8) == 0)
        return "http/1.1";
    return NULL;
}
