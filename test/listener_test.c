/*
 * listener_test.c: the listener over real loopback sockets: defaults, a
 * connection counted while being sniffed and closed by listener_drain, an
 * HTTP/1.1 request handed on (sniffed, then served by conn_h1 over the
 * transport the listener made) and answered, HTTP/2's preface handed to
 * conn_h2 (its SETTINGS come back), and listener_free closing open
 * connections without a further loop run.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "cache/rbuf.h"
#include "cache/rw.h"
#include "src/listener.h"

static int requests;

static void ok_handler(struct stream *s, void *arg)
{
    struct rbuf *body = rbuf_new(2);

    requests++;
    memcpy(body->data, "ok", 2);
    stream_respond(s, 200, "text/plain", body);
    rbuf_unref(body);
}

static struct listener *listener_for_test(struct event_base *base)
{
    struct front_config cfg;
    struct listener *l;

    listener_config_defaults(&cfg);
    l = listener_new(base, "127.0.0.1:0", &cfg, ok_handler, NULL);
    assert_non_null(l);
    return l;
}

static int client(const struct listener *l)
{
    struct sockaddr_in sin = {.sin_family = AF_INET};
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    sin.sin_port = htons((uint16_t)listener_port(l));
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    return fd;
}

/* Runs the loop until the listener's counters satisfy done (2 s at
 * most). */
static void run_until(struct event_base *base, const struct listener *l,
                      bool (*done)(const struct listener_stats *))
{
    struct listener_stats st;

    for (int i = 0; i < 2000; i++) {
        event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
        listener_stats(l, &st);
        if (done(&st))
            return;
        usleep(1000);
    }
    fail_msg("listener counters never reached the expected state");
}

static bool one_sniffing(const struct listener_stats *st)
{
    return st->connections_sniffing == 1;
}

static bool none_open(const struct listener_stats *st)
{
    return st->connections_sniffing + st->connections_h1 + st->connections_h2 ==
           0;
}

static bool one_h2(const struct listener_stats *st)
{
    return st->connections_h2 == 1;
}

/* Reads what the peer sends until it closes or want bytes came (2 s at
 * most, the loop run meanwhile). */
static size_t read_some(struct event_base *base, int fd, char *buf, size_t cap,
                        size_t want)
{
    size_t got = 0;

    for (int i = 0; i < 2000 && got < want; i++) {
        ssize_t n;

        event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
        n = recv(fd, buf + got, cap - 1 - got, MSG_DONTWAIT);
        if (n == 0)
            break;
        if (n > 0)
            got += (size_t)n;
        else
            usleep(1000);
    }
    buf[got] = '\0';
    return got;
}

static void test_defaults(void **state)
{
    struct front_config cfg;

    listener_config_defaults(&cfg);
    assert_int_equal(cfg.header_timeout, 32); /* kube ReadHeaderTimeout */
    assert_int_equal(cfg.idle_timeout, 90);
}

static void test_sniffing_then_drain(void **state)
{
    struct event_base *base = event_base_new();
    struct listener *l = listener_for_test(base);
    int fd = client(l);
    char buf[64];

    run_until(base, l, one_sniffing);
    listener_drain(l); /* no request yet: closed */
    run_until(base, l, none_open);
    assert_int_equal(read_some(base, fd, buf, sizeof(buf), 1), 0); /* EOF */
    close(fd);
    listener_free(l);
    event_base_free(base);
}

static void test_h1_request(void **state)
{
    static const char req[] = "GET /x HTTP/1.1\r\nHost: a\r\n\r\n";
    struct event_base *base = event_base_new();
    struct listener *l = listener_for_test(base);
    int fd = client(l);
    char buf[1024];
    struct listener_stats st;

    requests = 0;
    assert_int_equal(send(fd, req, sizeof(req) - 1, 0), sizeof(req) - 1);
    read_some(base, fd, buf, sizeof(buf), 1);
    while (strstr(buf, "\r\n\r\nok") == NULL &&
           read_some(base, fd, buf + strlen(buf), sizeof(buf) - strlen(buf),
                     1) > 0)
        ;
    assert_non_null(strstr(buf, "HTTP/1.1 200 OK\r\n"));
    assert_non_null(strstr(buf, "\r\n\r\nok"));
    assert_int_equal(requests, 1);
    listener_stats(l, &st);
    assert_int_equal(st.connections_h1, 1);
    assert_int_equal(st.streams_h1_total, 1);
    listener_free(l); /* the open connection too, no loop run needed */
    close(fd);
    event_base_free(base);
}

static void test_h2_preface(void **state)
{
    static const char preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    struct event_base *base = event_base_new();
    struct listener *l = listener_for_test(base);
    int fd = client(l);
    char buf[256];

    assert_int_equal(send(fd, preface, 24, 0), 24);
    run_until(base, l, one_h2);
    /* the server's SETTINGS frame: 9-byte header, type 4 */
    assert_true(read_some(base, fd, buf, sizeof(buf), 9) >= 9);
    assert_int_equal(buf[3], 4);
    listener_free(l);
    close(fd);
    event_base_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_sniffing_then_drain),
        cmocka_unit_test(test_h1_request),
        cmocka_unit_test(test_h2_preface),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
