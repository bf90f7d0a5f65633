/*
 * backoff.c: jittered exponential backoff (see backoff.h).
 */
#include "src/backoff.h"

#include <math.h>
#include <time.h>
#include <unistd.h>

#include "cache/rw.h"

void backoff_init(struct backoff *b, double min, double max)
{
    b->min = min;
    b->max = max < min ? min : max;
    b->rng = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid() ^
             (uint64_t)(uintptr_t)b;
    if (b->rng == 0)
        b->rng = 1;
}

/* Uniform in [0, 1), xorshift64*. */
static double backoff_random(struct backoff *b)
{
    b->rng ^= b->rng >> 12;
    b->rng ^= b->rng << 25;
    b->rng ^= b->rng >> 27;
    return (double)((b->rng * 2685821657736338717ull) >> 11) /
           9007199254740992.0;
}

double backoff_delay(struct backoff *b, unsigned attempt)
{
    double cap = b->min * pow(2.0, (double)RW_MIN(attempt, 30u));

    if (cap > b->max)
        cap = b->max;
    if (cap < b->min)
        cap = b->min;
    return b->min + backoff_random(b) * (cap - b->min);
}
