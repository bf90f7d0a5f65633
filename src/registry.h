/*
 * registry.h: the serving front's open connections and their deferred
 * work, one registry per listener.  The listener creates it and adopts
 * accepted connections; conn_h1, conn_h2 and the listener's sniffer
 * register in it, schedule their work through it and hand it their
 * complete requests.  It knows connections only through struct
 * front_conn, never their modules.
 *
 * Data structure: a TAILQ of struct front_conn (sniffing, HTTP/1.x and
 * HTTP/2 connections alike), counters per protocol, and a FIFO of
 * connections to serve (registry_schedule) or to shut down
 * (registry_reap), run from one libevent event of the registry's own.
 * Connections therefore hold no deferred callback of their own (a
 * deferred bufferevent callback holds a reference on the bufferevent that
 * only the loop releases: registry_close_all could not free such a
 * connection), and registry_close_all frees every one of them without
 * running the loop again.
 *
 * Invariants: every open connection is on the list exactly once, counted
 * under its protocol; a connection is on the work FIFO at most once
 * (queued); it is freed only off the FIFO (popped by the work event) or
 * by registry_close_all, which drops the FIFO.
 */
#ifndef REGISTRY_H
#define REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "src/front_config.h"
#include "src/stream_types.h"

struct event_base;
struct registry;

enum front_protocol {
    FRONT_SNIFFING = 0,
    FRONT_H1 = 1,
    FRONT_H2 = 2,
};

/* The part of a connection the registry sees; each connection module
 * embeds it first. */
struct front_conn {
    TAILQ_ENTRY(front_conn) link;  /* the registry's connections */
    STAILQ_ENTRY(front_conn) work; /* on the work FIFO (queued) */
    struct registry *registry;
    /* The client certificate of its TLS handshake (transport_peer); NULL
     * on plaintext.  Every stream's request points at it. */
    const struct transport_peer *peer;
    /* Serves the connection (its scheduled work).  Called only from the
     * registry's event, never from inside the connection's own callbacks,
     * after registry_schedule. */
    void (*service)(struct front_conn *c);
    /* Closes the connection now: every live stream gets stream_gone and
     * stream_finish, the transport is freed, the connection freed (after
     * registry_detach).  Called only from outside the connection's own
     * callbacks: from the registry's event (after registry_reap) or by
     * registry_close_all. */
    void (*close_now)(struct front_conn *c);
    /* Whether the connection has a response left to finish: a stream
     * open, or bytes queued in ringwatch (output buffers, nghttp2's
     * frames) that the kernel has not taken yet, *unsent of them.  A
     * response is finished when its last byte has left ringwatch, not
     * when it was queued (graceful shutdown waits for that).  NULL: never
     * (a connection being sniffed). */
    bool (*unfinished)(const struct front_conn *c, size_t *unsent);
    enum front_protocol protocol;
    bool queued; /* on the work FIFO */
    bool dying;  /* registry_reap called: close_now comes, service never */
};

/* A registry serving complete requests with handler(stream, arg) on base's
 * loop; cfg is kept by pointer and must outlive it (the listener's). */
struct registry *registry_new(struct event_base *base,
                              const struct front_config *cfg,
                              request_handler_fn handler, void *arg);

/* Closes every connection (registry_close_all) and frees r.  NULL is a
 * no-op. */
void registry_free(struct registry *r);

/* Adds c to r's connections as protocol. */
void registry_attach(struct registry *r, struct front_conn *c,
                     enum front_protocol protocol);

/* Removes c from its registry's connections. */
void registry_detach(struct front_conn *c);

/* Has c->service(c) called soon from the event loop, on a clean stack:
 * after the current callback if called from outside the registry's event,
 * on the next loop iteration (after polling) if called from inside it, so
 * that a connection that keeps rescheduling itself does not starve I/O.
 * Many calls before it runs make one call.  No-op for a dying
 * connection. */
void registry_schedule(struct front_conn *c);

/* Has c->close_now(c) called soon from the event loop, on a clean stack.
 * The caller has disabled c's I/O; c's callbacks that still fire must do
 * nothing.  Idempotent. */
void registry_reap(struct front_conn *c);

/* Counts a stream opened (delta 1) or finished (delta -1). */
void registry_count_stream(struct registry *r, enum front_protocol protocol,
                           int delta);

/* Hands a complete request to the handler. */
void registry_dispatch(struct registry *r, struct stream *s);

/* The front's settings. */
const struct front_config *registry_config(const struct registry *r);

/* Seconds a closing connection may go without flushing progress: the idle
 * timeout, else REGISTRY_CLOSE_FLUSH_SECONDS. */
#define REGISTRY_CLOSE_FLUSH_SECONDS 30
unsigned registry_flush_seconds(const struct registry *r);

/* Graceful shutdown begins: from now on registry_draining is true, and
 * every connection but those being sniffed (the listener closes them) is
 * scheduled: its service closes it once finished. */
void registry_drain(struct registry *r);

/* registry_drain was called: connections close once finished. */
bool registry_draining(const struct registry *r);

/* Closes every connection at once, reaped ones included (each
 * close_now): each open stream gets its on_close.  Not from inside a
 * callback of the front. */
void registry_close_all(struct registry *r);

/* Open connections, all protocols. */
uint64_t registry_open(const struct registry *r);

struct registry_stats {
    uint64_t open[3];          /* open connections, by enum front_protocol */
    uint64_t streams[3];       /* open streams, by protocol */
    uint64_t streams_total[3]; /* streams since registry_new */
    uint64_t unfinished;       /* connections with a response to finish */
    uint64_t unsent;           /* bytes they have queued */
};

/* A snapshot of r's counters. */
void registry_stats(const struct registry *r, struct registry_stats *out);

#endif
