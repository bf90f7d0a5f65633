/*
 * sniff_fuzz.c: client bytes into a listener with TLS configured: the
 * first-byte sniff (TLS, plaintext served, plaintext refused with Go's
 * 400), OpenSSL's handshake on arbitrary ClientHellos (versions, ALPN
 * lists, extensions), then the plaintext sniff and HTTP/1.x or HTTP/2
 * over TLS or in the clear.
 *
 * Each input is written into one end of a socketpair (the TLS transport
 * needs a socket) whose other end two listeners adopt in turn: one that
 * serves plaintext next to TLS and one that refuses it.  The loop runs a
 * bounded number of non-blocking rounds, then every connection is closed:
 * no crash, no leak (ASan, or valgrind with the driver).  The server's
 * certificate is made once with the openssl command line.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/util.h>

#include "cache/rbuf.h"
#include "cache/rw.h"
#include "src/listener.h"
#include "src/log.h"
#include "src/stream.h"
#include "src/tls_server.h"

#define ROUNDS 12

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct event_base *base;
static struct listener *listeners[2]; /* plaintext served, refused */
static struct tls_server *tls;
static char dir[] = "/tmp/rw-sniff-fuzz-XXXXXX";

static void fuzz_handle(struct stream *s, void *arg)
{
    struct rbuf *f = rbuf_from_str("{\"kind\":\"Small\"}\n");

    stream_respond(s, 200, "application/json", f);
    rbuf_unref(f);
}

static void cleanup(void)
{
    char cmd[128];

    for (size_t i = 0; i < RW_ARRAY_LEN(listeners); i++)
        listener_free(listeners[i]);
    tls_server_free(tls);
    event_base_free(base);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "sniff_fuzz: cannot remove %s\n", dir);
}

static void setup(void)
{
    char cmd[1024], crt[128], key[128], why[512];
    struct tls_server_config tc = {.cert_file = crt, .key_file = key};
    struct front_config cfg;

    log_init(LOG_ERROR, "sniff_fuzz");
    signal(SIGPIPE, SIG_IGN); /* as every program using TLS (tls.h) */
    rw_assert(mkdtemp(dir) != NULL);
    snprintf(crt, sizeof(crt), "%s/tls.crt", dir);
    snprintf(key, sizeof(key), "%s/tls.key", dir);
    snprintf(cmd, sizeof(cmd),
             "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 "
             "-nodes -keyout %s -out %s -days 2 -subj /CN=localhost "
             "-addext subjectAltName=IP:127.0.0.1 2>/dev/null",
             key, crt);
    rw_assert(system(cmd) == 0);
    tls = tls_server_new(&tc, why, sizeof(why));
    rw_assert(tls != NULL);
    base = event_base_new();
    listener_config_defaults(&cfg);
    cfg.max_header_bytes = 2048;
    cfg.idle_timeout = 0; /* no timers: rounds are bounded by the loop */
    cfg.header_timeout = 0;
    cfg.tls = tls;
    for (size_t i = 0; i < RW_ARRAY_LEN(listeners); i++) {
        cfg.tls_plaintext = i == 0;
        listeners[i] =
            listener_new(base, "127.0.0.1:0", &cfg, fuzz_handle, NULL);
        rw_assert(listeners[i] != NULL);
    }
    atexit(cleanup);
}

static void feed(struct listener *l, const uint8_t *data, size_t size)
{
    char sink[65536];
    int sv[2];

    rw_assert(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    evutil_make_socket_nonblocking(sv[0]);
    evutil_make_socket_nonblocking(sv[1]);
    if (size > 0)
        rw_assert(send(sv[1], data, size, MSG_NOSIGNAL) == (ssize_t)size);
    shutdown(sv[1], SHUT_WR);
    listener_adopt_socket(l, sv[0]);
    for (int i = 0; i < ROUNDS; i++) {
        event_base_loop(base, EVLOOP_NONBLOCK);
        while (recv(sv[1], sink, sizeof(sink), MSG_DONTWAIT) > 0)
            ;
    }
    listener_close_connections(l);
    close(sv[1]);
    event_base_loop(base, EVLOOP_NONBLOCK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (base == NULL)
        setup();
    for (size_t i = 0; i < RW_ARRAY_LEN(listeners); i++)
        feed(listeners[i], data, size);
    return 0;
}
