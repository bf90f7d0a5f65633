/*
 * redis_client_test: src/redis_client.c against a real redis-server
 * (started on a free loopback port by the test; skipped without one):
 * replies of every type, nested arrays, AUTH with a right and a wrong
 * password, a server that is not Redis, one that never answers, a refused
 * port, a server that dies, and freeing from inside each callback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <event2/listener.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/redis_client.h"
#include "test/redis_testlib.h"

static struct rtest_server server;

struct probe {
    struct event_base *base;
    struct redis_client *c;
    int ready, down, replies, got;
    char why[512];
    bool free_on_down, free_on_reply;
    /* the last reply, flattened */
    enum redis_client_type type;
    char text[256];
    long long integer;
    size_t n;
    char nested[256]; /* "[id:[k,v,...]]..." of an XRANGE */
};

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

static int wait_for(struct event_base *base, const int *flag)
{
    struct timeval tv = {0, 10000};
    struct event *tick = event_new(base, -1, EV_PERSIST, tick_cb, NULL);
    double deadline = clock_mono_s() + RTEST_TIMEOUT;
    event_add(tick, &tv);
    while (!*flag && clock_mono_s() < deadline)
        event_base_loop(base, EVLOOP_ONCE);
    event_free(tick);
    return *flag;
}

static void ready_cb(struct redis_client *c, void *arg)
{
    struct probe *p = arg;
    (void)c;
    p->ready++;
}

static void down_cb(struct redis_client *c, const char *why, void *arg)
{
    struct probe *p = arg;
    p->down++;
    snprintf(p->why, sizeof(p->why), "%s", why);
    if (p->free_on_down) {
        redis_client_free(c);
        p->c = NULL;
    }
}

static const struct redis_client_callbacks cbs = {ready_cb, down_cb};

static void flatten(const struct redis_client_reply *r, char *out, size_t size)
{
    size_t used = strlen(out);
    if (r->type == REDIS_CLIENT_ARRAY) {
        snprintf(out + used, size - used, "[");
        for (size_t i = 0; i < r->n; i++)
            flatten(&r->elem[i], out, size);
        used = strlen(out);
        snprintf(out + used, size - used, "]");
    } else {
        snprintf(out + used, size - used, "%.*s,", (int)r->len, r->str);
    }
}

static void reply_cb(struct redis_client *c, const struct redis_client_reply *r,
                     void *arg)
{
    struct probe *p = arg;
    p->replies++;
    p->got = 1;
    p->type = r->type;
    p->integer = r->integer;
    p->n = r->n;
    redis_client_reply_text(r, p->text, sizeof(p->text));
    p->nested[0] = '\0';
    flatten(r, p->nested, sizeof(p->nested));
    if (p->free_on_reply) {
        redis_client_free(c);
        p->c = NULL;
    }
}

static void open_probe(struct probe *p, uint16_t port, const char *password,
                       double timeout)
{
    memset(p, 0, sizeof(*p));
    p->base = event_base_new();
    p->c = redis_client_new(p->base, "127.0.0.1", port, password, timeout, &cbs,
                            p);
}

static void close_probe(struct probe *p)
{
    redis_client_free(p->c);
    event_base_free(p->base);
}

/* Sends argv and waits for its reply. */
static void ask_len(struct probe *p, int argc, const char **argv,
                    const size_t *lens)
{
    int before = p->replies;
    p->got = 0;
    assert_int_equal(redis_client_command(p->c, argc, argv, lens, reply_cb, p),
                     RW_OK);
    assert_true(wait_for(p->base, &p->got));
    assert_int_equal(p->replies, before + 1);
}

static void ask(struct probe *p, int argc, const char **argv)
{
    ask_len(p, argc, argv, NULL);
}

static void test_reply_types(void **state)
{
    struct probe p;
    (void)state;
    open_probe(&p, server.port, "s3cret", 0);
    assert_int_equal(redis_client_command(p.c, 1, (const char *[]){"PING"},
                                          NULL, reply_cb, &p),
                     RW_ECLOSED); /* not ready yet */
    assert_true(wait_for(p.base, &p.ready));

    ask(&p, 3, (const char *[]){"SET", "k", "v a l"});
    assert_int_equal(p.type, REDIS_CLIENT_STATUS);
    assert_string_equal(p.text, "OK");
    ask(&p, 2, (const char *[]){"GET", "k"});
    assert_int_equal(p.type, REDIS_CLIENT_STRING);
    assert_string_equal(p.text, "v a l");
    ask(&p, 2, (const char *[]){"GET", "absent"});
    assert_int_equal(p.type, REDIS_CLIENT_NIL);
    ask(&p, 2, (const char *[]){"INCR", "n"});
    assert_int_equal(p.type, REDIS_CLIENT_INTEGER);
    assert_int_equal(p.integer, 1);
    ask(&p, 2, (const char *[]){"INCR", "k"});
    assert_int_equal(p.type, REDIS_CLIENT_ERROR);
    assert_non_null(strstr(p.text, "not an integer"));

    /* binary-safe arguments */
    size_t lens[3] = {3, 1, 3};
    const char *bin[3] = {"SET", "b", "x\0y"};
    ask_len(&p, 3, bin, lens);
    ask(&p, 2, (const char *[]){"STRLEN", "b"});
    assert_int_equal(p.integer, 3);

    /* nested arrays: XRANGE's [[id, [field, value, ...]], ...] */
    ask(&p, 7,
        (const char *[]){"XADD", "s", "5-0", "type", "PUT", "key", "/a"});
    ask(&p, 5, (const char *[]){"XADD", "s", "7-0", "type", "DELETE"});
    ask(&p, 4, (const char *[]){"XRANGE", "s", "-", "+"});
    assert_int_equal(p.type, REDIS_CLIENT_ARRAY);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.nested,
                        "[[5-0,[type,PUT,key,/a,]][7-0,[type,DELETE,]]]");
    ask(&p, 4, (const char *[]){"XRANGE", "s", "8", "+"});
    assert_int_equal(p.type, REDIS_CLIENT_ARRAY);
    assert_int_equal(p.n, 0);
    assert_int_equal(p.down, 0);
    close_probe(&p);
}

static void test_wrong_password(void **state)
{
    struct probe p;
    (void)state;
    open_probe(&p, server.port, "wrong", 0);
    assert_true(wait_for(p.base, &p.down));
    assert_int_equal(p.ready, 0);
    assert_non_null(strstr(p.why, "AUTH refused"));
    assert_non_null(strstr(p.why, "WRONGPASS"));
    assert_true(redis_client_reached(p.c));
    assert_int_equal(redis_client_command(p.c, 1, (const char *[]){"PING"},
                                          NULL, reply_cb, &p),
                     RW_ECLOSED);
    close_probe(&p);

    open_probe(&p, server.port, NULL, 0); /* no password: PING refused */
    assert_true(wait_for(p.base, &p.down));
    assert_non_null(strstr(p.why, "NOAUTH"));
    close_probe(&p);
}

/* A listener that answers every connection with an HTTP error, or says
 * nothing when silent. */
static void accept_cb(struct evconnlistener *l, evutil_socket_t fd,
                      struct sockaddr *sa, int len, void *arg)
{
    static const char answer[] = "HTTP/1.1 400 Bad Request\r\n\r\n";
    (void)l;
    (void)sa;
    (void)len;
    if (arg != NULL)
        return; /* silent: the socket stays open, unanswered, till exit */
    if (write(fd, answer, sizeof(answer) - 1) < 0)
        fail();
    close(fd);
}

static struct evconnlistener *fake_server(struct event_base *base, bool silent,
                                          uint16_t *port)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof(a);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct evconnlistener *l =
        evconnlistener_new_bind(base, accept_cb, silent ? (void *)1 : NULL,
                                LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE, 16,
                                (struct sockaddr *)&a, sizeof(a));
    assert_non_null(l);
    getsockname(evconnlistener_get_fd(l), (struct sockaddr *)&a, &len);
    *port = ntohs(a.sin_port);
    return l;
}

static void test_not_redis(void **state)
{
    struct probe p;
    uint16_t port;
    (void)state;
    struct event_base *base = event_base_new();
    struct evconnlistener *l = fake_server(base, false, &port);
    memset(&p, 0, sizeof(p));
    p.base = base;
    p.c = redis_client_new(base, "127.0.0.1", port, NULL, 0, &cbs, &p);
    assert_true(wait_for(base, &p.down));
    assert_int_equal(p.ready, 0);
    assert_non_null(strstr(p.why, "Protocol error"));
    assert_true(redis_client_reached(p.c));
    redis_client_free(p.c);
    evconnlistener_free(l);

    l = fake_server(base, true, &port);
    memset(&p, 0, sizeof(p));
    p.base = base;
    p.c = redis_client_new(base, "127.0.0.1", port, "pw", 0.3, &cbs, &p);
    assert_true(wait_for(base, &p.down));
    assert_non_null(strstr(p.why, "no answer to AUTH within 0.3 s"));
    redis_client_free(p.c);
    evconnlistener_free(l);
    event_base_free(base);
}

static void test_refused(void **state)
{
    struct probe p;
    (void)state;
    open_probe(&p, rtest_free_port(), NULL, 0);
    p.free_on_down = true;
    assert_true(wait_for(p.base, &p.down));
    assert_null(p.c);
    assert_non_null(strstr(p.why, "cannot connect"));
    assert_non_null(strstr(p.why, "refused"));
    close_probe(&p);
}

/* Freed from inside a reply while more commands are pending: none of
 * their callbacks runs, nothing is touched after (ASan's concern). */
static void test_free_in_reply(void **state)
{
    struct probe p;
    (void)state;
    open_probe(&p, server.port, "s3cret", 0);
    assert_true(wait_for(p.base, &p.ready));
    p.free_on_reply = true;
    for (int i = 0; i < 5; i++)
        assert_int_equal(redis_client_command(p.c, 1, (const char *[]){"PING"},
                                              NULL, reply_cb, &p),
                         RW_OK);
    assert_true(wait_for(p.base, &p.replies));
    assert_null(p.c);
    struct timeval tv = {0, 100000};
    event_base_loopexit(p.base, &tv);
    event_base_dispatch(p.base);
    assert_int_equal(p.replies, 1);
    assert_int_equal(p.down, 0);
    event_base_free(p.base);
}

/* The server dies under a blocked command: on_down (once), the pending
 * command's callback never; freed from inside on_down. */
static void test_server_dies(void **state)
{
    struct rtest_server other = {0};
    struct probe p;
    (void)state;
    rtest_start(&other, NULL, NULL);
    open_probe(&p, other.port, NULL, 0);
    assert_true(wait_for(p.base, &p.ready));
    p.free_on_down = true;
    assert_int_equal(redis_client_command(p.c, 3,
                                          (const char *[]){"BLPOP", "q", "0"},
                                          NULL, reply_cb, &p),
                     RW_OK);
    rtest_kill(&other, SIGKILL);
    assert_true(wait_for(p.base, &p.down));
    assert_null(p.c);
    assert_int_equal(p.replies, 0);
    assert_int_equal(p.down, 1);
    assert_non_null(strstr(p.why, "redis 127.0.0.1:"));
    close_probe(&p);
    rtest_stop(&other);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reply_types),
        cmocka_unit_test(test_wrong_password),
        cmocka_unit_test(test_not_redis),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_free_in_reply),
        cmocka_unit_test(test_server_dies),
    };
    rtest_start(&server, "s3cret", NULL);
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    rtest_stop(&server);
    return failed;
}
