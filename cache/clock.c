/*
 * clock.c: the monotonic and wall clocks (see clock.h).
 */
#include "cache/clock.h"

#include <sys/time.h>
#include <time.h>

uint64_t clock_mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

double clock_mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int64_t clock_wall_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void clock_until(uint64_t deadline_ms, struct timeval *tv)
{
    uint64_t now = clock_mono_ms();
    uint64_t left = deadline_ms > now ? deadline_ms - now : 1;

    tv->tv_sec = (time_t)(left / 1000);
    tv->tv_usec = (suseconds_t)(left % 1000) * 1000;
}
