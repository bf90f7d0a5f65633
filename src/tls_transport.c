/*
 * tls_transport.c: the TLS transport (tls.h, tls_transport.h, transport.h):
 * libevent's OpenSSL bufferevent over the socket for the buffered stream and
 * the handshake, and the same SSL for the direct paths.
 *
 * writev writes the caller's iovecs a record at a time (TLS_RECORD_MAX
 * plaintext bytes per SSL_write; with SSL_MODE_ENABLE_PARTIAL_WRITE an
 * SSL_write of more takes one record all the same), until the batch is
 * written or the socket is full: a flushed batch is written in one call,
 * as over a plain transport, never a record per pass of the loop.  A
 * record's bytes go to SSL_write straight from the iovec when it holds
 * them all, else they are gathered into one staging buffer (static,
 * shared by every connection: the loop is single threaded and the bytes
 * are encrypted before SSL_write returns), a record-sized one that stays
 * in the cache.  When SSL_write cannot finish (WANT_WRITE, or
 * WANT_READ), the SSL holds part of that record already encrypted and
 * must be called again with at least the same length; writev returns
 * what the records before took (or 0, then see wants), the caller's
 * queue still holds the rest, and the next call takes the same `retry`
 * bytes first again (SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER: the staging
 * buffer may have served other connections in between).  The
 * bufferevent's own writes (its output buffer) are only used while no
 * batch is owed, as transport.h requires of callers.
 *
 * The bufferevent's own output (conn_h1's responses, h2_client's
 * requests) is written by libevent, one SSL_write per chain of the
 * buffer; what a pass of the loop queued is first packed into one chain
 * (tls_out_cb), so that there too a flushed batch is one SSL_write.
 *
 * readv decrypts into the caller's iovecs; decrypted bytes that did not
 * fit (SSL_pending) go to the bufferevent's input, whose read callback
 * is triggered, so nothing waits inside the SSL for a readable socket
 * that never comes.
 */
#include "src/tls_transport.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
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
#include "src/tls.h"
#include "src/tls_impl.h"
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
    struct evbuffer_cb_entry *out_cb; /* on the bufferevent's output */
    struct event *pack;    /* packs the output (made when first needed) */
    bool pack_due;         /* pack is active: output queued in this pass */
    bool packing;          /* in tls_pack_cb: its own moves are not news */
    size_t pack_from;      /* output bytes queued before this pass */
};

/* Where tls_pack_cb keeps the output queued before the pass (always
 * empty between calls; the loop is single threaded). */
static struct evbuffer *tls_pack_head;

static unsigned char tls_stage[TLS_RECORD_MAX];

/* Where writev is in its caller's iovecs. */
struct tls_cursor {
    const struct iovec *iov;
    int n, i;   /* iovecs; the current one */
    size_t off; /* bytes of iov[i] already taken */
};

/* Takes the next len bytes at most from the cursor and points *p at
 * them: into the caller's iovec itself when it holds them all (no copy),
 * else gathered into tls_stage.  Returns how many (0: none left). */
static size_t tls_next(struct tls_cursor *c, size_t len, const void **p)
{
    size_t sum = 0;

    while (c->i < c->n && c->off == c->iov[c->i].iov_len) {
        c->i++;
        c->off = 0;
    }
    if (c->i == c->n)
        return 0;
    if (c->iov[c->i].iov_len - c->off >= len) {
        *p = (const char *)c->iov[c->i].iov_base + c->off;
        c->off += len;
        return len;
    }
    while (c->i < c->n && sum < len) {
        size_t k = RW_MIN(c->iov[c->i].iov_len - c->off, len - sum);

        memcpy(tls_stage + sum, (const char *)c->iov[c->i].iov_base + c->off,
               k);
        sum += k;
        c->off += k;
        if (c->off == c->iov[c->i].iov_len) {
            c->i++;
            c->off = 0;
        }
    }
    tls_counters.bytes_staged += sum;
    *p = tls_stage;
    return sum;
}

/* Maps SSL_get_error of a call that returned r <= 0 to 0 (wait: wants
 * set), RW_ECLOSED (reading: the peer's close_notify or end of stream) or
 * RW_EIO (errno says why; writing, a closed peer is EPIPE). */
static ssize_t tls_io_error(struct tls_transport *x, int r, bool reading)
{
    int err = SSL_get_error(x->ssl, r);
    char why[TLS_REASON_MAX];

    if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE ||
        (err == SSL_ERROR_SYSCALL && (errno == EAGAIN || errno == EINTR))) {
        x->wants = err == SSL_ERROR_WANT_READ    ? TRANSPORT_WANT_READ
                   : err == SSL_ERROR_WANT_WRITE ? TRANSPORT_WANT_WRITE
                   : reading                     ? TRANSPORT_WANT_READ
                                                 : TRANSPORT_WANT_WRITE;
        return 0;
    }
    if (err == SSL_ERROR_ZERO_RETURN ||
        (err == SSL_ERROR_SYSCALL && errno == 0)) {
        ERR_clear_error();
        errno = EPIPE;
        return reading ? RW_ECLOSED : RW_EIO;
    }
    if (err == SSL_ERROR_SYSCALL) {
        log_debug("tls: %s: %s", reading ? "read" : "write", strerror(errno));
        ERR_clear_error();
        return RW_EIO;
    }
    tls_reason(x->ssl, why, sizeof(why));
    ERR_clear_error();
    log_debug("tls: %s: %s", reading ? "read" : "write", why);
    errno = EPROTO;
    return RW_EIO;
}

/* Corks (on 1) or uncorks (0) the TCP socket fd: the records of a batch
 * (a write(2) each) go out in full segments, as a plain transport's one
 * writev of the batch does, not a segment per record.  False when fd is
 * not a TCP socket. */
static bool tls_cork(int fd, int on)
{
    return fd >= 0 &&
           setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)) == 0;
}

static ssize_t tls_writev(struct transport *t, struct iovec *iov, int n)
{
    struct tls_transport *x = (struct tls_transport *)t;
    struct tls_cursor cur = {.iov = iov, .n = RW_MIN(n, TRANSPORT_IOV_MAX)};
    size_t cap = t->write_max > 0 ? t->write_max : SIZE_MAX, total = 0;
    bool release = SSL_get_mode(x->ssl) & SSL_MODE_RELEASE_BUFFERS;
    ssize_t ret = 0;
    bool corked = false;

    /* the SSL keeps its write buffer from record to record of the batch
     * (released, it would be freed and allocated again for each) */
    if (release)
        SSL_clear_mode(x->ssl, SSL_MODE_RELEASE_BUFFERS);
    ERR_clear_error(); /* an SSL_write that succeeds leaves it empty */
    for (;;) {
        size_t len = x->retry > 0 ? x->retry
                                  : RW_MIN((size_t)TLS_RECORD_MAX, cap - total);
        const void *p = NULL;
        int r;

        if (len == 0 || (len = tls_next(&cur, len, &p)) == 0)
            break;
        if (total > 0 && !corked)
            corked = tls_cork(t->fd, 1);
        r = SSL_write(x->ssl, p, (int)len);
        tls_counters.ssl_writes++;
        if (r <= 0) {
            /* the SSL may hold part of it in a record: the next call
             * starts with the same len bytes, the caller's queue */
            x->retry = len;
            ret = tls_io_error(x, r, false);
            break;
        }
        x->retry = 0;
        total += (size_t)r;
        if ((size_t)r < len)
            break;
    }
    if (corked)
        tls_cork(t->fd, 0);
    if (release) {
        SSL_set_mode(x->ssl, SSL_MODE_RELEASE_BUFFERS);
        /* the batch is out (no record owed): released now, as the SSL
         * would have after a single SSL_write */
        if (x->retry == 0 && SSL_free_buffers(x->ssl))
            tls_counters.buffer_releases++;
    }
    if (total == 0)
        return ret;
    x->wants = 0;
    return (ssize_t)total;
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
            return tls_io_error(x, 0, true);
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

/* ---- the buffered stream's output ---- */

/* Bytes of a pass's output packed at most (the rest of a large response,
 * a LIST, stays in the caller's large chains). */
#define TLS_PACK_MAX (256 * 1024)

/* Packs what the pass queued (its first TLS_PACK_MAX bytes) into one
 * chain (evbuffer_pullup: one copy, each byte once; the references it
 * held are released), when it spans several.  What was queued before
 * stays as it is (packed then). */
static void tls_pack_cb(evutil_socket_t fd, short what, void *arg)
{
    struct tls_transport *x = arg;
    struct evbuffer *out = bufferevent_get_output(x->base.bev);
    struct evbuffer_ptr from;
    size_t len;

    x->pack_due = false;
    if (x->pack_from >= evbuffer_get_length(out) ||
        evbuffer_ptr_set(out, &from, x->pack_from, EVBUFFER_PTR_SET) < 0 ||
        evbuffer_peek(out, -1, &from, NULL, 0) <= 1)
        return;
    if (tls_pack_head == NULL)
        tls_pack_head = evbuffer_new();
    x->packing = true;
    evbuffer_remove_buffer(out, tls_pack_head, x->pack_from);
    len = RW_MIN(evbuffer_get_length(out), (size_t)TLS_PACK_MAX);
    evbuffer_pullup(out, (ssize_t)len);
    evbuffer_prepend_buffer(out, tls_pack_head);
    x->packing = false;
}

/* Output was queued or written.  libevent's OpenSSL bufferevent makes one
 * SSL_write (one record, one write(2)) per chain of its output, and
 * conn_h1 queues an event as two or three chains (the framing copied, the
 * object referenced).  It writes when the socket is next writable, in a
 * later pass of the loop; what this pass queued is packed before, at the
 * end of the pass, so that a flushed batch is one SSL_write. */
static void tls_out_cb(struct evbuffer *out, const struct evbuffer_cb_info *info,
                       void *arg)
{
    struct tls_transport *x = arg;

    if (x->packing || !x->done)
        return;
    if (x->pack_due) /* written meanwhile: fewer bytes before the pass's */
        x->pack_from -= RW_MIN(x->pack_from, info->n_deleted);
    if (info->n_added == 0 || x->pack_due)
        return;
    if (x->pack == NULL)
        x->pack = event_new(bufferevent_get_base(x->base.bev), -1, 0,
                            tls_pack_cb, x);
    x->pack_due = true;
    x->pack_from = info->orig_size;
    event_active(x->pack, EV_TIMEOUT, 0);
}

/* Counts x's handshake, on its side, once. */
static void tls_count_handshake(const struct tls_transport *x, bool ok)
{
    uint64_t *n;

    if (SSL_is_server(x->ssl))
        n = ok ? &tls_counters.handshakes_ok : &tls_counters.handshakes_failed;
    else
        n = ok ? &tls_counters.client_handshakes_ok
               : &tls_counters.client_handshakes_failed;
    (*n)++;
}

static void tls_free(struct transport *t)
{
    struct tls_transport *x = (struct tls_transport *)t;
    struct evbuffer *out = bufferevent_get_output(t->bev);

    evbuffer_remove_cb_entry(out, x->out_cb);
    if (x->pack != NULL)
        event_free(x->pack);
    evbuffer_drain(out, evbuffer_get_length(out));
    SSL_set_app_data(x->ssl, NULL);
    /* a handshake cut short (a timeout, the peer gone) fails too */
    if (!x->done && x->error == NULL)
        tls_count_handshake(x, false);
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

/* The subject's entry at pos, as a string ("" when not convertible). */
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

    x->base.peer = p;
    if (cert == NULL)
        return;
    p->presented = true;
    v = SSL_get_verify_result(x->ssl);
    p->verified = v == X509_V_OK;
    if (!p->verified)
        p->error = xstrdup(X509_verify_cert_error_string(v));
    name = X509_get_subject_name(cert);
    /* as Go's pkix.Name reads a subject: the last non-empty CN, and the
     * non-empty O values in order */
    for (int pos = 0; pos < X509_NAME_entry_count(name); pos++) {
        int nid = OBJ_obj2nid(
            X509_NAME_ENTRY_get_object(X509_NAME_get_entry(name, pos)));
        char *value;

        if (nid != NID_commonName && nid != NID_organizationName)
            continue;
        value = tls_name_entry(name, pos);
        if (*value == '\0') {
            free(value);
        } else if (nid == NID_commonName) {
            free((char *)p->common_name);
            p->common_name = value;
        } else {
            if (p->organizations == NULL)
                p->organizations = xcalloc((size_t)X509_NAME_entry_count(name),
                                           sizeof(char *));
            ((char **)p->organizations)[p->norganizations++] = value;
        }
    }
}

void tls_transport_handshake_done(SSL *ssl)
{
    struct tls_transport *x = SSL_get_app_data(ssl);

    if (x == NULL || x->done)
        return;
    x->done = true;
    tls_count_handshake(x, true);
    /* from now on a peer that closes without close_notify (most HTTP
     * clients do) is an end of stream; during the handshake it is an
     * error ("unexpected eof while reading"), as a refused connection is */
    SSL_set_options(ssl, SSL_OP_IGNORE_UNEXPECTED_EOF);
    bufferevent_openssl_set_allow_dirty_shutdown(x->base.bev, 1);
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

    if (x == NULL || x->error != NULL)
        return;
    x->error = xstrdup(why);
    tls_count_handshake(x, false);
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
    x = xcalloc(1, sizeof(*x));
    x->base.ops = &tls_ops;
    x->base.bev = bev;
    x->base.fd = fd;
    x->ssl = ssl;
    x->out_cb = evbuffer_add_cb(bufferevent_get_output(bev), tls_out_cb, x);
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
