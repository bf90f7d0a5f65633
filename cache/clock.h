/*
 * clock.h: the process's two clocks, read one way everywhere.
 *
 * The monotonic clock (CLOCK_MONOTONIC) measures intervals and deadlines:
 * it never jumps when the wall clock is set.  The wall clock
 * (CLOCK_REALTIME) stamps what leaves the process and is compared with
 * another process's stamp (a fleet writer's stamp in an object, read by a
 * fleet watcher to measure delivery latency).
 */
#ifndef CLOCK_H
#define CLOCK_H

#include <stdint.h>

struct timeval;

/* Monotonic time in milliseconds since an arbitrary start. */
uint64_t clock_mono_ms(void);

/* Monotonic time in seconds (with nanosecond fraction) since an arbitrary
 * start. */
double clock_mono_s(void);

/* Wall-clock time in nanoseconds since the Unix epoch. */
int64_t clock_wall_ns(void);

/* The time left until deadline_ms (clock_mono_ms), at least 1 ms (a
 * deadline already past fires at once, and a zero timeout would mean
 * none to a bufferevent), as a relative timeout for libevent. */
void clock_until(uint64_t deadline_ms, struct timeval *tv);

#endif
