/*
 * transport_test.c: the plain transport (src/transport.c) over a real
 * socketpair: vectored writes arrive whole and in order; a full send
 * buffer gives partial writes, then 0 with TRANSPORT_WANT_WRITE, and
 * progress again once the peer reads; write_max bounds each write and the
 * caller's iovecs are restored; readv reads, says 0 with
 * TRANSPORT_WANT_READ when nothing is there and RW_ECLOSED at the peer's
 * EOF; shutdown_write gives the peer EOF; transport_free closes the
 * socket.  Without a socket (a bufferevent pair) writes are copied into
 * the bufferevent's output and shutdown fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "cache/rw.h"
#include "src/transport.h"

struct pair {
    struct event_base *base;
    struct transport *t;
    int peer;
};

static void pair_open(struct pair *p)
{
    int sv[2];
    struct bufferevent *bev;

    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    p->base = event_base_new();
    evutil_make_socket_nonblocking(sv[0]);
    bev = bufferevent_socket_new(p->base, sv[0], BEV_OPT_CLOSE_ON_FREE);
    assert_non_null(bev);
    p->t = transport_plain_new(bev);
    assert_int_equal(transport_fd(p->t), sv[0]);
    assert_ptr_equal(transport_bev(p->t), bev);
    p->peer = sv[1];
}

static void pair_close(struct pair *p)
{
    transport_free(p->t);
    close(p->peer);
    event_base_free(p->base);
}

/* Reads everything the peer has now. */
static size_t peer_drain(int fd, char *buf, size_t cap)
{
    size_t got = 0;
    ssize_t n;

    while (got < cap && (n = recv(fd, buf + got, cap - got, MSG_DONTWAIT)) > 0)
        got += (size_t)n;
    return got;
}

static void test_writev_in_order(void **state)
{
    struct pair p;
    char a[] = "HEADER", b[] = "payload", c[] = "!";
    struct iovec iov[3] = {{a, 6}, {b, 7}, {c, 1}};
    char buf[32];

    pair_open(&p);
    assert_int_equal(transport_writev(p.t, iov, 3), 14);
    assert_int_equal(transport_wants(p.t), 0);
    assert_int_equal(peer_drain(p.peer, buf, sizeof(buf)), 14);
    assert_memory_equal(buf, "HEADERpayload!", 14);
    pair_close(&p);
}

static void test_full_then_wants_write(void **state)
{
    static char big[64 * 1024], sink[64 * 1024];
    struct pair p;
    int small = 4096;
    size_t written = 0, read = 0;
    ssize_t w;

    pair_open(&p);
    setsockopt(transport_fd(p.t), SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
    memset(big, 'x', sizeof(big));
    /* partial writes until the kernel takes nothing */
    for (int i = 0; i < 1000; i++) {
        struct iovec v = {big, sizeof(big)};

        w = transport_writev(p.t, &v, 1);
        assert_true(w >= 0);
        if (w == 0)
            break;
        assert_true((size_t)w <= sizeof(big));
        written += (size_t)w;
    }
    assert_int_equal(w, 0);
    assert_true(written > 0);
    assert_int_equal(transport_wants(p.t), TRANSPORT_WANT_WRITE);
    /* the peer reads: progress again */
    read = peer_drain(p.peer, sink, sizeof(sink));
    assert_true(read > 0);
    {
        struct iovec v = {big, 16};

        assert_int_equal(transport_writev(p.t, &v, 1), 16);
    }
    assert_int_equal(transport_wants(p.t), 0);
    written += 16;
    while ((w = (ssize_t)peer_drain(p.peer, sink, sizeof(sink))) > 0)
        read += (size_t)w;
    assert_int_equal(read, written);
    pair_close(&p);
}

static void test_write_max(void **state)
{
    static char big[3][8192];
    struct pair p;
    struct iovec iov[3] = {{big[0], 8192}, {big[1], 8192}, {big[2], 8192}};
    int sndbuf = 4096;
    ssize_t w;

    pair_open(&p);
    setsockopt(transport_fd(p.t), SOL_SOCKET, SO_SNDBUF, &sndbuf,
               sizeof(sndbuf));
    transport_limit_writes(p.t, sndbuf);
    assert_true(p.t->write_max >= (size_t)sndbuf);
    assert_true(p.t->write_max < sizeof(big));
    w = transport_writev(p.t, iov, 3);
    assert_true(w > 0 && (size_t)w <= p.t->write_max);
    for (int i = 0; i < 3; i++) /* the caller's iovecs, restored */
        assert_int_equal(iov[i].iov_len, 8192);
    transport_limit_writes(p.t, 0);
    assert_int_equal(p.t->write_max, 0);
    pair_close(&p);
}

static void test_readv_and_eof(void **state)
{
    struct pair p;
    char a[3], b[8];
    struct iovec iov[2] = {{a, sizeof(a)}, {b, sizeof(b)}};

    pair_open(&p);
    assert_int_equal(transport_readv(p.t, iov, 2), 0); /* nothing yet */
    assert_int_equal(transport_wants(p.t), TRANSPORT_WANT_READ);
    assert_int_equal(send(p.peer, "hello", 5, 0), 5);
    assert_int_equal(transport_readv(p.t, iov, 2), 5);
    assert_memory_equal(a, "hel", 3);
    assert_memory_equal(b, "lo", 2);
    shutdown(p.peer, SHUT_WR);
    assert_int_equal(transport_readv(p.t, iov, 2), RW_ECLOSED);
    pair_close(&p);
}

static void test_shutdown_and_free(void **state)
{
    struct pair p;
    char buf[8];
    struct iovec v = {"bye", 3};

    pair_open(&p);
    assert_int_equal(transport_writev(p.t, &v, 1), 3);
    assert_int_equal(transport_shutdown_write(p.t), RW_OK);
    assert_int_equal(recv(p.peer, buf, sizeof(buf), 0), 3);
    assert_int_equal(recv(p.peer, buf, sizeof(buf), 0), 0); /* EOF */
    /* the read side still works: the client's last bytes */
    assert_int_equal(send(p.peer, "x", 1, 0), 1);
    {
        struct iovec r = {buf, sizeof(buf)};

        assert_int_equal(transport_readv(p.t, &r, 1), 1);
    }
    /* free closes the socket (libevent may finish that in the loop):
     * the peer reads its EOF */
    transport_free(p.t);
    p.t = NULL;
    event_base_loop(p.base, EVLOOP_NONBLOCK);
    assert_int_equal(recv(p.peer, buf, sizeof(buf), MSG_DONTWAIT), 0);
    close(p.peer);
    event_base_free(p.base);
}

static void test_without_socket(void **state)
{
    struct event_base *base = event_base_new();
    struct bufferevent *ends[2];
    struct transport *t;
    char a[] = "ab", b[] = "cde", buf[8];
    struct iovec iov[2] = {{a, 2}, {b, 3}};
    struct iovec r = {buf, sizeof(buf)};

    assert_int_equal(bufferevent_pair_new(base, 0, ends), 0);
    t = transport_plain_new(ends[0]);
    assert_int_equal(transport_fd(t), -1);
    assert_int_equal(transport_writev(t, iov, 2), 5);
    assert_int_equal(evbuffer_get_length(bufferevent_get_output(ends[0])), 5);
    assert_int_equal(transport_shutdown_write(t), RW_EIO);
    bufferevent_enable(ends[0], EV_READ);
    bufferevent_enable(ends[1], EV_READ | EV_WRITE);
    bufferevent_write(ends[1], "zz", 2);
    event_base_loop(base, EVLOOP_NONBLOCK);
    assert_int_equal(transport_readv(t, &r, 1), 2);
    assert_memory_equal(buf, "zz", 2);
    transport_free(t);
    bufferevent_free(ends[1]);
    event_base_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writev_in_order),
        cmocka_unit_test(test_full_then_wants_write),
        cmocka_unit_test(test_write_max),
        cmocka_unit_test(test_readv_and_eof),
        cmocka_unit_test(test_shutdown_and_free),
        cmocka_unit_test(test_without_socket),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
