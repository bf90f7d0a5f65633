/*
 * tls_test.c: the TLS contexts and transport (src/tls*.c) between a
 * client and a server transport over loopback TCP, with certificates
 * made at test time by the openssl command line: the handshake reports
 * BEV_EVENT_CONNECTED only once done and settles ALPN; a writev batch of
 * many iovecs is one SSL_write; a full socket gives partial progress,
 * then 0 with TRANSPORT_WANT_WRITE, then progress with the same bytes
 * again; the buffered stream's output goes out packed (a record per
 * 16 KiB, not per chain); readv decrypts, says 0 with TRANSPORT_WANT_READ when nothing
 * is there and RW_ECLOSED after close_notify; bad certificates, a wrong
 * name, an unknown ALPN fail the handshake with a clear reason; the
 * server's transport_peer reports the client certificate (verified or
 * why not) without failing the handshake; bad files are clear errors;
 * a reload makes new connections use the new pair; h2_client and the
 * listener's conn_h2 work unchanged over TLS, a burst of frames going out
 * in one SSL_write per flushed batch.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "cache/rbuf.h"
#include "cache/rw.h"
#include "proto/frame.h"
#include "src/h2_client.h"
#include "src/listener.h"
#include "src/stream.h"
#include "src/tls.h"
#include "src/tls_server.h"
#include "src/tls_transport.h"
#include "src/transport.h"

static char dir[] = "/tmp/rw-tls-test-XXXXXX";

static char *path(const char *name)
{
    static char bufs[8][512];
    static int k;
    char *p = bufs[k++ % 8];

    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

static void sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    if (system(cmd) != 0)
        fail_msg("command failed: %s", cmd);
}

/* A CA (name.crt/key) and a certificate signed by it. */
static void make_ca(const char *name)
{
    sh("cd %s && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
       "-nodes -keyout %s.key -out %s.crt -days 30 -subj /CN=%s "
       "-addext basicConstraints=critical,CA:TRUE 2>/dev/null",
       dir, name, name, name);
}

static void make_cert(const char *ca, const char *name, const char *subj,
                      const char *ext)
{
    sh("cd %s && openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
       "-nodes -keyout %s.key -out %s.csr -subj '%s' 2>/dev/null && "
       "printf '%%s\\n' '%s' > %s.ext && "
       "openssl x509 -req -in %s.csr -CA %s.crt -CAkey %s.key "
       "-CAcreateserial -days 30 -extfile %s.ext -out %s.crt 2>/dev/null",
       dir, name, name, subj, ext, name, name, ca, ca, name, name);
}

static int group_setup(void **state)
{
    if (mkdtemp(dir) == NULL)
        return -1;
    make_ca("ca");
    make_ca("other");
    make_cert("ca", "server", "/CN=server",
              "subjectAltName=IP:127.0.0.1,DNS:localhost");
    make_cert("ca", "server2", "/CN=server2",
              "subjectAltName=IP:127.0.0.1,DNS:localhost");
    make_cert("other", "foreign", "/CN=foreign",
              "subjectAltName=IP:127.0.0.1,DNS:localhost");
    make_cert("ca", "alice", "/O=dev/O=ops/CN=alice",
              "extendedKeyUsage=clientAuth");
    make_cert("other", "mallory", "/CN=mallory", "extendedKeyUsage=clientAuth");
    make_cert("ca", "twocn", "/CN=first/CN=bob", "extendedKeyUsage=clientAuth");
    return 0;
}

static int group_teardown(void **state)
{
    sh("rm -rf %s", dir);
    return 0;
}

/* ---- a connection between a client and a server transport ---- */

struct end {
    struct transport *t;
    short events; /* BEV_EVENT_* seen */
    struct evbuffer *got;
};

struct conn {
    struct event_base *base;
    struct end cli, srv;
    struct tls_client *own_cli; /* conn_open_default's, freed by conn_close */
    struct tls_server *own_srv;
};

static void end_event_cb(struct bufferevent *bev, short what, void *arg)
{
    ((struct end *)arg)->events |= what;
}

static void end_read_cb(struct bufferevent *bev, void *arg)
{
    evbuffer_add_buffer(((struct end *)arg)->got, bufferevent_get_input(bev));
}

static void run_until(struct conn *c, bool (*done)(struct conn *))
{
    for (int i = 0; i < 2000 && !done(c); i++)
        event_base_loop(c->base, EVLOOP_ONCE | EVLOOP_NONBLOCK),
            usleep(i > 100 ? 1000 : 0);
}

static bool handshaken(struct conn *c)
{
    return (c->cli.events & (BEV_EVENT_CONNECTED | BEV_EVENT_ERROR |
                             BEV_EVENT_EOF)) &&
           (c->srv.events & (BEV_EVENT_CONNECTED | BEV_EVENT_ERROR |
                             BEV_EVENT_EOF));
}

static void end_init(struct end *e, struct transport *t)
{
    e->t = t;
    e->got = evbuffer_new();
    bufferevent_setcb(transport_bev(t), end_read_cb, NULL, end_event_cb, e);
    bufferevent_enable(transport_bev(t), EV_READ);
}

/* Connects a client made from cli to a server made from srv over
 * loopback; runs both handshakes. */
static void conn_open(struct conn *c, struct tls_client *cli,
                      struct tls_server *srv)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd, sfd;

    memset(c, 0, sizeof(*c));
    c->base = event_base_new();
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(listen(lfd, 1), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
    cfd = socket(AF_INET, SOCK_STREAM, 0);
    evutil_make_socket_nonblocking(cfd);
    end_init(&c->cli, tls_client_transport(c->base, cfd, cli));
    assert_int_equal(bufferevent_socket_connect(transport_bev(c->cli.t),
                                                (struct sockaddr *)&sin,
                                                sizeof(sin)),
                     0);
    sfd = accept(lfd, NULL, NULL);
    assert_true(sfd >= 0);
    close(lfd);
    evutil_make_socket_nonblocking(sfd);
    end_init(&c->srv, tls_server_transport(srv, c->base, sfd));
    run_until(c, handshaken);
}

static void conn_close(struct conn *c)
{
    transport_free(c->cli.t);
    transport_free(c->srv.t);
    evbuffer_free(c->cli.got);
    evbuffer_free(c->srv.got);
    transport_base_free(c->base);
    tls_client_free(c->own_cli);
    tls_server_free(c->own_srv);
}

static struct tls_client *client(const char *ca, const char *cert,
                                 const char *name, const char *alpn)
{
    char why[512] = "";
    struct tls_client_config cfg = {
        .ca_file = path(ca),
        .server_name = name,
        .alpn = alpn,
    };
    struct tls_client *c;

    if (cert != NULL) {
        char crt[64], key[64];

        snprintf(crt, sizeof(crt), "%s.crt", cert);
        snprintf(key, sizeof(key), "%s.key", cert);
        cfg.cert_file = path(crt);
        cfg.key_file = path(key);
    }
    c = tls_client_new(&cfg, why, sizeof(why));
    if (c == NULL)
        fail_msg("tls_client_new: %s", why);
    return c;
}

static struct tls_server *server(const char *name, bool client_ca,
                                 enum tls_version min)
{
    char why[512] = "", crt[64], key[64];
    struct tls_server_config cfg = {.min_version = min};
    struct tls_server *s;

    snprintf(crt, sizeof(crt), "%s.crt", name);
    snprintf(key, sizeof(key), "%s.key", name);
    cfg.cert_file = path(crt);
    cfg.key_file = path(key);
    cfg.client_ca_file = client_ca ? path("ca.crt") : NULL;
    s = tls_server_new(&cfg, why, sizeof(why));
    if (s == NULL)
        fail_msg("tls_server_new: %s", why);
    return s;
}

/* conn_open, and conn_close frees cli and srv. */
static void conn_open_owned(struct conn *c, struct tls_client *cli,
                            struct tls_server *srv)
{
    conn_open(c, cli, srv);
    c->own_cli = cli;
    c->own_srv = srv;
}

/* A connection between the usual pair: a client trusting ca.crt, checking
 * 127.0.0.1, offering h2; the server's certificate, TLS 1.2 and up. */
static void conn_open_default(struct conn *c)
{
    conn_open_owned(c, client("ca.crt", NULL, "127.0.0.1", "h2"),
                    server("server", false, TLS_VERSION_12));
}

/* ---- tests ---- */

static void test_handshake_alpn_and_buffered(void **state)
{
    struct conn c;
    char buf[16] = "";

    conn_open_default(&c);
    assert_int_equal(c.cli.events, BEV_EVENT_CONNECTED);
    assert_int_equal(c.srv.events, BEV_EVENT_CONNECTED);
    assert_string_equal(tls_transport_alpn(c.srv.t), "h2");
    assert_string_equal(tls_transport_alpn(c.cli.t), "h2");
    /* a server transport without a client CA: a peer with nothing */
    assert_non_null(transport_peer(c.srv.t));
    assert_false(transport_peer(c.srv.t)->presented);
    assert_null(transport_peer(c.cli.t));
    evbuffer_add(bufferevent_get_output(transport_bev(c.cli.t)), "hello", 5);
    for (int i = 0; i < 200 && evbuffer_get_length(c.srv.got) < 5; i++)
        event_base_loop(c.base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(500);
    assert_int_equal(evbuffer_remove(c.srv.got, buf, sizeof(buf)), 5);
    assert_memory_equal(buf, "hello", 5);
    conn_close(&c);
}

static void test_alpn_http11_and_none(void **state)
{
    struct tls_client *h1 = client("ca.crt", NULL, "localhost", "http/1.1");
    struct tls_client *none = client("ca.crt", NULL, "localhost", NULL);
    struct tls_server *srv = server("server", false, TLS_VERSION_12);
    struct conn c;

    conn_open(&c, h1, srv);
    assert_int_equal(c.cli.events, BEV_EVENT_CONNECTED);
    assert_string_equal(tls_transport_alpn(c.srv.t), "http/1.1");
    conn_close(&c);
    conn_open(&c, none, srv);
    assert_int_equal(c.cli.events, BEV_EVENT_CONNECTED);
    assert_null(tls_transport_alpn(c.srv.t));
    conn_close(&c);
    tls_client_free(h1);
    tls_client_free(none);
    tls_server_free(srv);
}

static void test_unknown_alpn_fails(void **state)
{
    struct conn c;

    conn_open_owned(&c, client("ca.crt", NULL, "localhost", "foo"),
                    server("server", false, TLS_VERSION_12));
    assert_true(c.cli.events & BEV_EVENT_ERROR);
    assert_false(c.srv.events & BEV_EVENT_CONNECTED);
    assert_non_null(strstr(tls_client_last_error(c.own_cli),
                           "no application protocol"));
    conn_close(&c);
}

/* Reads what the client side's transport has, into got. */
static size_t client_drain(struct conn *c, unsigned char *got, size_t cap)
{
    size_t sum = 0;

    for (int i = 0; i < 400 && sum < cap; i++) {
        struct iovec v = {got + sum, RW_MIN(cap - sum, (size_t)7000)};
        ssize_t n = transport_readv(c->cli.t, &v, 1);

        if (n > 0) {
            sum += (size_t)n;
            continue;
        }
        assert_int_equal(n, 0);
        assert_int_equal(transport_wants(c->cli.t), TRANSPORT_WANT_READ);
        usleep(1000);
    }
    return sum;
}

static void test_writev_one_ssl_write_per_batch(void **state)
{
    static unsigned char data[64][100], got[6400];
    struct iovec iov[64];
    uint64_t before;
    struct conn c;

    conn_open_default(&c);
    bufferevent_disable(transport_bev(c.cli.t), EV_READ);
    for (int i = 0; i < 64; i++) {
        memset(data[i], 'a' + i % 26, sizeof(data[i]));
        iov[i].iov_base = data[i];
        iov[i].iov_len = sizeof(data[i]);
    }
    before = tls_stats()->ssl_writes;
    assert_int_equal(transport_writev(c.srv.t, iov, 64), 6400);
    assert_int_equal(tls_stats()->ssl_writes - before, 1);
    assert_int_equal(client_drain(&c, got, sizeof(got)), sizeof(got));
    for (int i = 0; i < 64; i++)
        assert_memory_equal(got + i * 100, data[i], 100);
    /* nothing more: 0, and the transport wants the socket readable */
    {
        struct iovec v = {got, 10};

        assert_int_equal(transport_readv(c.cli.t, &v, 1), 0);
        assert_int_equal(transport_wants(c.cli.t), TRANSPORT_WANT_READ);
    }
    conn_close(&c);
}

/* A batch larger than a record, as conn_h2 flushes one (small frames
 * and large ones): taken whole by one transport_writev while the socket
 * has room, one SSL_write per record; a record that one iovec holds goes
 * from it, the others are gathered; the SSL's buffers are kept from
 * record to record and released once the batch is out. */
static void test_writev_batch_in_records(void **state)
{
    enum { SMALL = 600, PIECE = 100, BIG = 40000 };
    static unsigned char big[BIG], small[SMALL][PIECE];
    static unsigned char got[BIG + SMALL * PIECE];
    struct iovec iov[1 + SMALL];
    uint64_t writes, staged, releases;
    size_t total = BIG + SMALL * PIECE, full = BIG / TLS_RECORD_MAX;
    int room = 4 << 20;
    struct conn c;

    conn_open_default(&c);
    bufferevent_disable(transport_bev(c.cli.t), EV_READ);
    setsockopt(transport_fd(c.srv.t), SOL_SOCKET, SO_SNDBUF, &room,
               sizeof(room));
    setsockopt(transport_fd(c.cli.t), SOL_SOCKET, SO_RCVBUF, &room,
               sizeof(room));
    for (size_t i = 0; i < BIG; i++)
        big[i] = (unsigned char)(i * 13 + i / 977);
    iov[0].iov_base = big;
    iov[0].iov_len = BIG;
    for (int i = 0; i < SMALL; i++) {
        memset(small[i], 'A' + i % 26, PIECE);
        iov[1 + i].iov_base = small[i];
        iov[1 + i].iov_len = PIECE;
    }
    writes = tls_stats()->ssl_writes;
    staged = tls_stats()->bytes_staged;
    releases = tls_stats()->buffer_releases;
    assert_int_equal(transport_writev(c.srv.t, iov, 1 + SMALL), total);
    assert_int_equal(tls_stats()->ssl_writes - writes,
                     (total + TLS_RECORD_MAX - 1) / TLS_RECORD_MAX);
    /* the big iovec's full records were not copied; the rest was */
    assert_int_equal(tls_stats()->bytes_staged - staged,
                     total - full * TLS_RECORD_MAX);
    assert_int_equal(tls_stats()->buffer_releases - releases, 1);
    for (size_t have = 0, i = 0; have < total; i++) {
        /* whole records at a time: nothing spills to the bufferevent */
        struct iovec v = {got + have, total - have};
        ssize_t n = transport_readv(c.cli.t, &v, 1);

        assert_true(n >= 0 && i < 2000);
        have += (size_t)n;
        if (n == 0)
            usleep(1000);
    }
    assert_memory_equal(got, big, BIG);
    for (int i = 0; i < SMALL; i++)
        assert_memory_equal(got + BIG + i * PIECE, small[i], PIECE);
    conn_close(&c);
}

static void test_partial_writes_and_retry(void **state)
{
    const size_t total = 8u << 20;
    unsigned char *data = malloc(total), *got = malloc(total);
    size_t sent = 0, recvd = 0;
    bool blocked = false;
    struct conn c;
    int small = 16384;

    for (size_t i = 0; i < total; i++)
        data[i] = (unsigned char)(i * 7 + i / 4096);
    conn_open_default(&c);
    bufferevent_disable(transport_bev(c.cli.t), EV_READ);
    setsockopt(transport_fd(c.srv.t), SOL_SOCKET, SO_SNDBUF, &small,
               sizeof(small));
    while (recvd < total) {
        while (sent < total) {
            struct iovec v[2] = {
                {data + sent, RW_MIN((total - sent) / 2, (size_t)30000)},
                {data + sent + RW_MIN((total - sent) / 2, (size_t)30000),
                 total - sent - RW_MIN((total - sent) / 2, (size_t)30000)}};
            ssize_t w = transport_writev(c.srv.t, v, v[0].iov_len ? 2 : 1);

            if (v[0].iov_len == 0)
                w = transport_writev(c.srv.t, &v[1], 1);
            assert_true(w >= 0);
            if (w == 0) {
                assert_int_equal(transport_wants(c.srv.t),
                                 TRANSPORT_WANT_WRITE);
                blocked = true;
                break;
            }
            assert_true((size_t)w <= total - sent);
            sent += (size_t)w;
        }
        {
            struct iovec v = {got + recvd, total - recvd};
            ssize_t n = transport_readv(c.cli.t, &v, 1);

            assert_true(n >= 0);
            recvd += (size_t)n;
            if (n == 0)
                usleep(200);
        }
    }
    assert_true(blocked);
    assert_int_equal(sent, total);
    assert_memory_equal(got, data, total);
    conn_close(&c);
    free(data);
    free(got);
}

static void unref_cleanup(const void *data, size_t len, void *arg)
{
    (*(int *)arg)++;
}

/* The buffered stream's output as conn_h1 queues it (framing copied, the
 * objects referenced: many chains) goes out packed: one record per 16 KiB,
 * not per chain; the references are released. */
static void test_buffered_output_is_packed(void **state)
{
    static char object[1500];
    static unsigned char got[100 * (sizeof(object) + 8)];
    struct evbuffer *out;
    uint64_t records;
    int released = 0;
    size_t want = 0, have = 0;
    struct conn c;

    memset(object, 'o', sizeof(object));
    conn_open_default(&c);
    bufferevent_disable(transport_bev(c.cli.t), EV_READ);
    out = bufferevent_get_output(transport_bev(c.srv.t));
    bufferevent_enable(transport_bev(c.srv.t), EV_WRITE);
    records = tls_stats()->records_sent;
    for (int i = 0; i < 100; i++) {
        evbuffer_add_printf(out, "%x\r\n", (unsigned)sizeof(object));
        evbuffer_add_reference(out, object, sizeof(object), unref_cleanup,
                               &released);
        evbuffer_add(out, "\r\n", 2);
        want += 3 + 2 + sizeof(object) + 2;
    }
    for (int i = 0; i < 2000 && have < want; i++) {
        struct iovec v = {got + have, want - have};
        ssize_t n;

        event_base_loop(c.base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
        n = transport_readv(c.cli.t, &v, 1);
        assert_true(n >= 0);
        have += (size_t)n;
        if (n == 0)
            usleep(500);
    }
    assert_int_equal(have, want);
    assert_memory_equal(got, "5dc\r\noooo", 9);
    assert_int_equal(released, 100);
    records = tls_stats()->records_sent - records;
    print_message("300 chains, %zu bytes: %d records\n", want, (int)records);
    assert_true(records <= want / 16384 + 3);
    conn_close(&c);
}

static void test_close_notify_is_eof(void **state)
{
    struct iovec w = {"bye", 3};
    unsigned char buf[16];
    struct iovec r = {buf, sizeof(buf)};
    struct conn c;
    ssize_t n = 0;

    conn_open_default(&c);
    bufferevent_disable(transport_bev(c.cli.t), EV_READ);
    assert_int_equal(transport_writev(c.srv.t, &w, 1), 3);
    assert_int_equal(transport_shutdown_write(c.srv.t), RW_OK);
    assert_int_equal(client_drain(&c, buf, 3), 3);
    for (int i = 0; i < 200 && (n = transport_readv(c.cli.t, &r, 1)) == 0; i++)
        usleep(1000);
    assert_int_equal(n, RW_ECLOSED);
    conn_close(&c);
}

static void noop_write_cb(struct bufferevent *bev, void *arg)
{
}

static void break_on_written(struct evbuffer *buf,
                             const struct evbuffer_cb_info *info, void *arg)
{
    if (info->n_deleted > 0)
        event_base_loopbreak(arg);
}

/* The loop broken in the pass that wrote (as a fatal error in another
 * callback of that pass breaks it, e.g. etcd's alert refusing our client
 * certificate): the OpenSSL bufferevent's deferred write callback, which
 * holds a reference to it, has not run, so transport_free leaves it alive
 * (its SSL, buffers and socket); transport_base_free still frees it all
 * (the socket closed; under ASan, nothing leaks). */
static void test_base_free_after_loopbreak(void **state)
{
    struct conn c;
    struct bufferevent *bev;
    struct evbuffer *out;
    struct evbuffer_cb_entry *cb;
    int fd;

    conn_open_default(&c);
    bev = transport_bev(c.cli.t);
    out = bufferevent_get_output(bev);
    fd = (int)bufferevent_getfd(bev);
    bufferevent_setcb(bev, end_read_cb, noop_write_cb, end_event_cb, &c.cli);
    cb = evbuffer_add_cb(out, break_on_written, c.base);
    bufferevent_write(bev, "ping", 4);
    for (int i = 0; i < 2000 && evbuffer_get_length(out) > 0; i++)
        event_base_loop(c.base, EVLOOP_ONCE | EVLOOP_NONBLOCK),
            usleep(i > 100 ? 1000 : 0);
    assert_int_equal(evbuffer_get_length(out), 0);
    evbuffer_remove_cb_entry(out, cb);
    transport_free(c.cli.t);
    transport_free(c.srv.t);
    evbuffer_free(c.cli.got);
    evbuffer_free(c.srv.got);
    assert_true(fcntl(fd, F_GETFD) >= 0); /* alive: the callback is owed */
    transport_base_free(c.base);
    assert_int_equal(fcntl(fd, F_GETFD), -1);
    assert_int_equal(errno, EBADF);
    tls_client_free(c.own_cli);
    tls_server_free(c.own_srv);
}

static void test_untrusted_server_fails(void **state)
{
    uint64_t failed = tls_stats()->client_handshakes_failed;
    struct conn c;

    conn_open_owned(&c, client("ca.crt", NULL, "127.0.0.1", "h2"),
                    server("foreign", false, TLS_VERSION_12));
    assert_true(c.cli.events & BEV_EVENT_ERROR);
    assert_false(c.cli.events & BEV_EVENT_CONNECTED);
    assert_string_equal(tls_client_last_error(c.own_cli),
                        "certificate verify failed: "
                        "unable to get local issuer certificate");
    assert_true(tls_stats()->client_handshakes_failed > failed);
    conn_close(&c);
}

static void test_wrong_name_fails(void **state)
{
    struct conn c;

    conn_open_owned(&c, client("ca.crt", NULL, "etcd.example", "h2"),
                    server("server", false, TLS_VERSION_12));
    assert_true(c.cli.events & BEV_EVENT_ERROR);
    assert_string_equal(tls_client_last_error(c.own_cli),
                        "certificate verify failed: hostname mismatch");
    conn_close(&c);
}

static void test_client_certificates(void **state)
{
    struct tls_client *alice = client("ca.crt", "alice", "127.0.0.1", "h2");
    struct tls_client *mallory = client("ca.crt", "mallory", "127.0.0.1", "h2");
    struct tls_client *anon = client("ca.crt", NULL, "127.0.0.1", "h2");
    struct tls_client *twocn = client("ca.crt", "twocn", "127.0.0.1", "h2");
    struct tls_server *srv = server("server", true, TLS_VERSION_12);
    const struct transport_peer *p;
    struct conn c;

    conn_open(&c, alice, srv);
    assert_int_equal(c.srv.events, BEV_EVENT_CONNECTED);
    p = transport_peer(c.srv.t);
    assert_true(p->presented);
    assert_true(p->verified);
    assert_null(p->error);
    assert_string_equal(p->common_name, "alice");
    assert_int_equal(p->norganizations, 2);
    assert_string_equal(p->organizations[0], "dev");
    assert_string_equal(p->organizations[1], "ops");
    conn_close(&c);

    /* a certificate from another CA: the handshake succeeds, the peer
     * says why it is not verified */
    conn_open(&c, mallory, srv);
    assert_int_equal(c.cli.events, BEV_EVENT_CONNECTED);
    assert_int_equal(c.srv.events, BEV_EVENT_CONNECTED);
    p = transport_peer(c.srv.t);
    assert_true(p->presented);
    assert_false(p->verified);
    assert_non_null(p->error);
    assert_string_equal(p->common_name, "mallory");
    conn_close(&c);

    /* two CNs: the last names the user, as Go's pkix.Name reads them */
    conn_open(&c, twocn, srv);
    assert_int_equal(c.srv.events, BEV_EVENT_CONNECTED);
    p = transport_peer(c.srv.t);
    assert_true(p->verified);
    assert_string_equal(p->common_name, "bob");
    conn_close(&c);

    conn_open(&c, anon, srv);
    assert_int_equal(c.srv.events, BEV_EVENT_CONNECTED);
    assert_false(transport_peer(c.srv.t)->presented);
    conn_close(&c);
    tls_client_free(twocn);
    tls_client_free(alice);
    tls_client_free(mallory);
    tls_client_free(anon);
    tls_server_free(srv);
}

/* Nothing listening, or a server that closes at once: BEV_EVENT_ERROR,
 * never CONNECTED or a mere EOF. */
static void test_connect_failures_are_errors(void **state)
{
    struct tls_client *cli = client("ca.crt", NULL, "127.0.0.1", "h2");
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    struct conn c;

    for (int closes = 0; closes < 2; closes++) {
        int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd;

        memset(&c, 0, sizeof(c));
        c.base = event_base_new();
        sin.sin_port = 0;
        sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        assert_int_equal(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
        assert_int_equal(getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
        if (closes)
            assert_int_equal(listen(lfd, 1), 0);
        else
            close(lfd); /* nothing listens: refused */
        cfd = socket(AF_INET, SOCK_STREAM, 0);
        evutil_make_socket_nonblocking(cfd);
        end_init(&c.cli, tls_client_transport(c.base, cfd, cli));
        bufferevent_socket_connect(transport_bev(c.cli.t),
                                   (struct sockaddr *)&sin, sizeof(sin));
        if (closes) {
            int sfd = accept(lfd, NULL, NULL);

            close(sfd);
            close(lfd);
        }
        for (int i = 0; i < 1000 && c.cli.events == 0; i++)
            event_base_loop(c.base, EVLOOP_ONCE | EVLOOP_NONBLOCK),
                usleep(1000);
        assert_true(c.cli.events & BEV_EVENT_ERROR);
        assert_false(c.cli.events & (BEV_EVENT_CONNECTED | BEV_EVENT_EOF));
        if (closes)
            assert_string_equal(tls_client_last_error(cli),
                                "unexpected eof while reading");
        transport_free(c.cli.t);
        evbuffer_free(c.cli.got);
        event_base_loop(c.base, EVLOOP_NONBLOCK);
        event_base_free(c.base);
    }
    tls_client_free(cli);
}

static void test_file_errors(void **state)
{
    char why[512];
    struct tls_client_config cc = {
        .ca_file = path("ca.crt"),
        .cert_file = "/nonexistent/x.crt",
        .key_file = path("alice.key"),
        .cert_option = "--etcd-certfile",
        .key_option = "--etcd-keyfile",
    };
    struct tls_server_config sc = {.cert_file = path("server.crt"),
                                   .key_file = path("alice.key")};

    assert_null(tls_client_new(&cc, why, sizeof(why)));
    assert_string_equal(why,
                        "--etcd-certfile /nonexistent/x.crt: "
                        "No such file or directory");
    cc.cert_file = path("server.crt");
    assert_null(tls_client_new(&cc, why, sizeof(why)));
    assert_non_null(strstr(why, "--etcd-keyfile"));
    assert_non_null(strstr(why, "key does not match certificate"));
    cc.key_file = NULL;
    assert_null(tls_client_new(&cc, why, sizeof(why)));
    assert_string_equal(why, "--etcd-certfile given without --etcd-keyfile");
    cc.cert_file = NULL;
    cc.ca_file = path("alice.key");
    cc.ca_option = "--etcd-cafile";
    assert_null(tls_client_new(&cc, why, sizeof(why)));
    assert_non_null(strstr(why, "--etcd-cafile"));
    assert_null(tls_server_new(&sc, why, sizeof(why)));
    assert_non_null(strstr(why, "--tls-private-key-file"));
    assert_non_null(strstr(why, "key does not match certificate"));
}

static void test_min_version_13(void **state)
{
    struct conn c;

    conn_open_owned(&c, client("ca.crt", NULL, "127.0.0.1", "h2"),
                    server("server", false, TLS_VERSION_13));
    assert_int_equal(c.cli.events, BEV_EVENT_CONNECTED);
    conn_close(&c);
}

static void test_reload(void **state)
{
    struct tls_client *cli = client("ca.crt", NULL, "127.0.0.1", "h2");
    struct tls_server *srv = server("server", false, TLS_VERSION_12);
    uint64_t ok = tls_stats()->reloads_ok, bad = tls_stats()->reloads_failed;
    char why[512];
    struct conn old, c;

    sh("cp %s %s && cp %s %s", path("server.crt"), path("live.crt"),
       path("server.key"), path("live.key"));
    tls_server_free(srv);
    srv = server("live", false, TLS_VERSION_12);
    assert_false(tls_server_files_changed(srv));
    conn_open(&old, cli, srv);
    assert_int_equal(old.cli.events, BEV_EVENT_CONNECTED);
    /* a half-written pair: the reload fails, the old pair stays */
    sh("cp %s %s", path("server2.crt"), path("live.crt"));
    assert_true(tls_server_files_changed(srv));
    assert_int_equal(tls_server_reload(srv, why, sizeof(why)), RW_EINVAL);
    assert_non_null(strstr(why, "key does not match certificate"));
    assert_int_equal(tls_stats()->reloads_failed, bad + 1);
    conn_open(&c, cli, srv);
    assert_int_equal(c.cli.events, BEV_EVENT_CONNECTED);
    conn_close(&c);
    sh("cp %s %s", path("server2.key"), path("live.key"));
    assert_true(tls_server_files_changed(srv));
    assert_int_equal(tls_server_reload(srv, why, sizeof(why)), RW_OK);
    assert_int_equal(tls_stats()->reloads_ok, ok + 1);
    assert_false(tls_server_files_changed(srv));
    conn_open(&c, cli, srv);
    assert_int_equal(c.cli.events, BEV_EVENT_CONNECTED);
    conn_close(&c);
    /* the connection from before still works */
    evbuffer_add(bufferevent_get_output(transport_bev(old.cli.t)), "x", 1);
    for (int i = 0; i < 200 && evbuffer_get_length(old.srv.got) < 1; i++)
        event_base_loop(old.base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(500);
    assert_int_equal(evbuffer_get_length(old.srv.got), 1);
    conn_close(&old);
    tls_client_free(cli);
    tls_server_free(srv);
}

/* ---- the front over TLS: conn_h2 under the listener, h2_client ---- */

#define EVENTS 2000
#define EVENT_BYTES 100

struct h2_run {
    size_t got;
    bool closed, bad;
    uint32_t error;
};

static void events_handler(struct stream *s, void *arg)
{
    char payload[EVENT_BYTES];

    stream_begin(s, 200, "application/json", -1);
    for (int i = 0; i < EVENTS; i++) {
        struct rbuf *f;

        memset(payload, 'a' + i % 26, sizeof(payload));
        f = frame_from(payload, sizeof(payload));
        stream_write_frame(s, f);
        rbuf_unref(f);
    }
    stream_end(s);
}

static void h2_data_cb(const uint8_t *data, size_t len, void *arg)
{
    struct h2_run *r = arg;

    for (size_t i = 0; i < len; i++)
        r->bad |= data[i] == 0;
    r->got += len;
}

static void h2_stream_close_cb(uint32_t error_code, void *arg)
{
    struct h2_run *r = arg;

    r->closed = true;
    r->error = error_code;
}

static void h2_connect_cb(struct h2_client *c, void *arg)
{
    static const struct h2_client_stream_callbacks cbs = {
        .on_data = h2_data_cb, .on_close = h2_stream_close_cb};

    assert_non_null(
        h2_client_request(c, "GET", "/events", NULL, NULL, 0, 0, &cbs, arg));
}

/* h2_client and conn_h2 unchanged over TLS: a response of EVENTS frames
 * written at once arrives whole, in far fewer SSL_writes than frames
 * (one per flushed batch). */
static void test_front_h2_over_tls(void **state)
{
    struct tls_client *cli = client("ca.crt", NULL, "127.0.0.1", "h2");
    struct tls_server *srv = server("server", false, TLS_VERSION_12);
    struct event_base *base = event_base_new();
    struct front_config fc;
    struct listener *l;
    struct h2_client_config hc = {.transport = tls_client_transport,
                                  .transport_arg = cli};
    struct h2_client_callbacks cbs = {.on_connect = h2_connect_cb};
    struct h2_run run = {0};
    struct h2_client *c;
    uint64_t writes;
    char port[16];

    listener_config_defaults(&fc);
    fc.tls = srv;
    fc.tls_plaintext = false;
    l = listener_new(base, "127.0.0.1:0", &fc, events_handler, NULL);
    assert_non_null(l);
    snprintf(port, sizeof(port), "%d", listener_port(l));
    writes = tls_stats()->ssl_writes;
    c = h2_client_new(base, "127.0.0.1", port, &hc, &cbs, &run);
    for (int i = 0; i < 5000 && !run.closed; i++)
        event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK),
            usleep(i > 200 ? 1000 : 0);
    assert_true(run.closed);
    assert_int_equal(run.error, 0);
    assert_false(run.bad);
    assert_true(run.got >= (size_t)EVENTS * EVENT_BYTES);
    writes = tls_stats()->ssl_writes - writes;
    print_message("%d frames, %d bytes: %d SSL_writes\n", EVENTS, (int)run.got, (int)writes);
    assert_true(writes < EVENTS / 20);
    h2_client_free(c);
    listener_free(l);
    transport_base_free(base);
    tls_client_free(cli);
    tls_server_free(srv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_handshake_alpn_and_buffered),
        cmocka_unit_test(test_alpn_http11_and_none),
        cmocka_unit_test(test_unknown_alpn_fails),
        cmocka_unit_test(test_writev_one_ssl_write_per_batch),
        cmocka_unit_test(test_writev_batch_in_records),
        cmocka_unit_test(test_partial_writes_and_retry),
        cmocka_unit_test(test_buffered_output_is_packed),
        cmocka_unit_test(test_close_notify_is_eof),
        cmocka_unit_test(test_base_free_after_loopbreak),
        cmocka_unit_test(test_untrusted_server_fails),
        cmocka_unit_test(test_wrong_name_fails),
        cmocka_unit_test(test_client_certificates),
        cmocka_unit_test(test_connect_failures_are_errors),
        cmocka_unit_test(test_file_errors),
        cmocka_unit_test(test_min_version_13),
        cmocka_unit_test(test_reload),
        cmocka_unit_test(test_front_h2_over_tls),
    };

    signal(SIGPIPE, SIG_IGN); /* as every program using TLS (tls.h) */
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
