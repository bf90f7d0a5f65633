/*
 * front_fuzz.c: client bytes into the serving front: protocol sniffing,
 * HTTP/1.x requests (http-parser, pipelining, bodies, limits) and HTTP/2
 * sessions (nghttp2 framing, streams, resets), with handlers that answer
 * at once, stream frames, or keep the stream open until it closes.
 *
 * Each input is written into one end of a bufferevent pair whose other
 * end the listener adopts (no sockets per input), the loop runs a bounded
 * number of non-blocking rounds, and every connection is then closed, so
 * that each stream's on_close must run exactly once and nothing may leak
 * (run under ASan, or valgrind with the driver).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "cache/rw.h"
#include "proto/frame.h"
#include "src/listener.h"
#include "src/log.h"
#include "src/stream.h"
#include "src/transport.h"

#define ROUNDS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct event_base *base;
static struct listener *listener;
static long open_streams;

static void fuzz_close_cb(struct stream *s, void *arg)
{
    open_streams--;
}

static void fuzz_drain_cb(struct stream *s, void *arg)
{
    struct rbuf *f = frame_from("{\"more\":1}\n", 11);

    stream_write_frame(s, f);
    rbuf_unref(f);
    stream_end(s);
}

static void fuzz_handle(struct stream *s, void *arg)
{
    const struct request *r = stream_request(s);
    struct rbuf *f;

    if (strcmp(r->path, "/keep") == 0) {
        /* a watch: stays open until the client or the test closes it */
        open_streams++;
        stream_set_callbacks(s, NULL, fuzz_close_cb, NULL);
        stream_begin(s, 200, "application/json", -1);
        return;
    }
    if (strcmp(r->path, "/stream") == 0) {
        open_streams++;
        stream_set_callbacks(s, fuzz_drain_cb, fuzz_close_cb, NULL);
        stream_add_header(s, "x-test", "1");
        stream_begin(s, 200, "application/json", -1);
        f = frame_alloc(STREAM_LOW_WATER + 1); /* above: on_drain follows */
        memset(frame_payload(f), 'a', STREAM_LOW_WATER + 1);
        stream_write_frame(s, f);
        rbuf_unref(f);
        /* HEAD drops writes: nothing is held, no on_drain will come */
        if (stream_pending(s) <= STREAM_LOW_WATER)
            stream_end(s);
        return;
    }
    f = rbuf_from_str("{\"kind\":\"Small\"}\n");
    stream_respond(s, strcmp(r->path, "/") == 0 ? 200 : 404, "application/json",
                   f);
    rbuf_unref(f);
}

static void setup(void)
{
    struct front_config cfg;

    log_init(LOG_ERROR, "front_fuzz");
    base = event_base_new();
    listener_config_defaults(&cfg);
    cfg.max_header_bytes = 2048;
    cfg.idle_timeout = 0; /* no timers: rounds are bounded by the loop */
    cfg.h2_max_concurrent_streams = 16;
    listener = listener_new(base, "127.0.0.1:0", &cfg, fuzz_handle, NULL);
    rw_assert(listener != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct bufferevent *pair[2];
    struct evbuffer *client_in;

    if (base == NULL)
        setup();
    if (bufferevent_pair_new(base, 0, pair) < 0)
        abort();
    listener_adopt(listener, transport_plain_new(pair[0]));
    bufferevent_enable(pair[1], EV_READ | EV_WRITE);
    bufferevent_write(pair[1], data, size);
    client_in = bufferevent_get_input(pair[1]);
    for (int i = 0; i < ROUNDS; i++) {
        event_base_loop(base, EVLOOP_NONBLOCK);
        evbuffer_drain(client_in, evbuffer_get_length(client_in));
    }
    listener_close_connections(listener);
    bufferevent_free(pair[1]);
    event_base_loop(base, EVLOOP_NONBLOCK);
    rw_assert(open_streams == 0); /* on_close for every kept stream */
    return 0;
}
