/*
 * fairness.h: request fairness, kube-apiserver's API Priority and
 * Fairness (APF) in small.  Requests that are not watches (LIST, GET,
 * discovery, /metrics, the reviews ...) take a seat of a bounded number
 * (--max-requests-inflight, default 400 as the apiserver's) while they are
 * answered: from admission until their response is complete or their
 * stream closes.  A WATCH takes one only while its initial events are
 * written, up to when they are all written or its output first waits for
 * its client (stream_release then gives it back, src/watch.c: as a LIST's
 * response handed over whole, a client that does not read holds no
 * seat), none once it follows the cache.
 *
 * When no seat is free a request waits in its flow's queue.  A flow is the
 * request's user name (identity.h): every anonymous request is one flow,
 * so a real deployment, where clients authenticate, queues each user on
 * its own.  Queues are bounded: FAIRNESS_QUEUE_LENGTH requests per flow
 * (APF's default queueLengthLimit, 50), and FAIRNESS_QUEUE_WAIT_MS a
 * request may wait at most (APF's request wait limit, 15 s).  Each seat
 * that frees goes to the next flow with a queued request, round robin
 * (fair queuing: a client relisting in a loop only ever waits behind
 * itself, and is refused once its queue is full, while other flows keep
 * being served).  Refused: 429 TooManyRequests "Too many requests, please
 * try again later." with Retry-After: 1, the apiserver's words and
 * header (which it writes as text/plain; here a Status, as every error).
 *
 * Exempt, served at once without a seat (APF's exempt priority level):
 * the probes /healthz, /livez and /readyz, and users in system:masters.
 *
 * Single-threaded, on the daemon's event loop.  Queued requests are
 * dispatched from an event of their own, never from inside the call that
 * freed the seat.
 */
#ifndef FAIRNESS_H
#define FAIRNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/identity.h"
#include "src/metrics.h"
#include "src/stream.h"

struct event_base;
struct fairness;

#define FAIRNESS_DEFAULT_SEATS 400
#define FAIRNESS_QUEUE_LENGTH 50
#define FAIRNESS_QUEUE_WAIT_MS 15000
#define FAIRNESS_MESSAGE "Too many requests, please try again later."

struct fairness_config {
    unsigned seats;        /* > 0 */
    unsigned queue_length; /* per flow; 0: no queuing, refused at once */
    unsigned wait_ms;      /* a queued request waits at most this */
};

/* The defaults above. */
void fairness_config_defaults(struct fairness_config *cfg);

struct fairness *fairness_new(struct event_base *base,
                              const struct fairness_config *cfg);
/* Queued requests are forgotten (their streams are the connections').
 * NULL is a no-op. */
void fairness_free(struct fairness *f);

/* What the router serves once a request is admitted: id is the one
 * given to fairness_admit (borrowed for the call). */
typedef void (*fairness_serve_fn)(struct stream *s, struct identity *id,
                                  void *arg);

/*
 * Admits the request of s by id, whose flow is id's user name: serves it
 * at once (serve(s, id, arg), before returning) when exempt or a seat is
 * free and no request waits; else queues it, holding a reference to id
 * (serve is called later from the loop), or
 * answers 429 when its flow's queue is full (reason queue-full) or once it
 * has waited wait_ms (time-out).  A seat taken is held until s finishes
 * or stream_release(s); a queued request whose stream finishes leaves its
 * queue.  Uses s's release hook (stream_set_release).
 */
void fairness_admit(struct fairness *f, struct stream *s, struct identity *id,
                    bool exempt, fairness_serve_fn serve, void *arg);

/* Whether a request for path by id is exempt (see above). */
bool fairness_exempt(const char *path, const struct identity *id);

/* Fills what /metrics shows. */
void fairness_stats(const struct fairness *f, struct metrics_fairness *out);

#endif
