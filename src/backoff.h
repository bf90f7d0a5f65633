/*
 * backoff.h: jittered exponential backoff for retries and reconnects
 * ("full jitter", as in AWS's "Exponential Backoff And Jitter" and
 * grpc-go's connection backoff): the delay before attempt n is uniform
 * between min and min(max, min * 2^n) seconds, so that many clients
 * retrying at once spread out.
 */
#ifndef BACKOFF_H
#define BACKOFF_H

#include <stdint.h>

/* Embedded in its owner; filled by backoff_init. */
struct backoff {
    double min, max; /* seconds */
    uint64_t rng;    /* xorshift64* state, never 0 */
};

/* min and max in seconds (max below min is raised to min); the random
 * sequence is seeded from the time, the process and b's address. */
void backoff_init(struct backoff *b, double min, double max);

/* Seconds to wait before attempt (0: the first retry), in [min, max]. */
double backoff_delay(struct backoff *b, unsigned attempt);

#endif
