/*
 * sender.h: the fan-out half of ringwatch-rawfan.  It accepts a fixed
 * number of loopback TCP connections, sends each an HTTP/1.1 200 head,
 * then at a fixed rate stamps the pre-encoded event (rawfan/chunk.h) once
 * and write()s the same bytes to every connection: one write per
 * connection per event, no other work, no copy on the normal path.
 * With a batch of K, each write carries K consecutive records of the
 * event (what K watchers multiplexed on one connection need: deliveries
 * are records), stamped with consecutive sequence numbers.
 *
 * A short write (the socket's kernel buffer is full: its reader is behind)
 * queues the rest, and every later event of that connection, in a
 * per-connection backlog written when the socket is writable again; a
 * backlog over SENDER_BACKLOG_LIMIT bytes (or two writes' worth, if more)
 * closes the connection (its reader lost events), as a server drops a watcher
 * too slow for its ring. When the sender falls more than one second behind its
 * schedule it skips the missed events.  After the load it sends the last chunk
 * to every connection, waits for the backlogs (at most the drain timeout) and
 * closes them all.
 */
#ifndef RAWFAN_SENDER_H
#define RAWFAN_SENDER_H

#include <stdbool.h>
#include <stdint.h>

#include "src/rawfan/chunk.h"

struct event_base;
struct sender;

/* Bytes queued for one connection beyond which it is closed. */
#define SENDER_BACKLOG_LIMIT (256u * 1024u)

struct sender_stats {
    uint64_t accepted;      /* connections accepted */
    uint64_t events;        /* events stamped and written to every socket
                               (each as batch records) */
    uint64_t scheduled;     /* events the rate and duration asked for */
    uint64_t writes;        /* write() calls for events (short ones too) */
    uint64_t short_writes;  /* writes that left bytes in a backlog */
    uint64_t queued_events; /* events copied into a non-empty backlog */
    uint64_t backlog_peak;  /* largest backlog of one connection, bytes */
    uint64_t dropped;       /* connections closed for backlog or error */
    uint64_t undrained;     /* connections closed with a backlog at the end */
    double elapsed_s;       /* first event to the last close, seconds */
    double cpu_user_s;      /* getrusage user time over elapsed_s */
    double cpu_sys_s;       /* getrusage system time over elapsed_s */
    uint64_t rss_before;    /* VmRSS before accepting, bytes */
    uint64_t rss_loaded;    /* VmRSS at the end of the load, bytes */
    uint64_t rss_peak;      /* VmHWM at the end, bytes */
    bool ready;             /* every connection was accepted in time */
};

struct sender_params {
    uint64_t connections; /* to accept within setup_s */
    uint64_t rate;        /* events per second */
    uint64_t batch;       /* records per write (>= 1) */
    double duration_s;    /* seconds of load */
    double setup_s;       /* seconds to wait for the connections */
    double drain_s;       /* seconds to wait for backlogs at the end */
};

/*
 * Starts accepting on listen_fd (a listening, non-blocking socket the
 * caller keeps and closes) on base.  c: the event template (borrowed;
 * must outlive the sender; the sender stamps its own copies).  done_cb(arg)
 * runs once, from the loop, when the sender has finished (or given up
 * waiting for connections).
 */
struct sender *sender_new(struct event_base *base, int listen_fd,
                          const struct chunk *c, const struct sender_params *p,
                          void (*done_cb)(void *arg), void *arg);

/* Copies the counters into *out; complete once done_cb has run. */
void sender_stats(const struct sender *s, struct sender_stats *out);

/* Closes every connection still open and frees s; NULL is a no-op. */
void sender_free(struct sender *s);

#endif
