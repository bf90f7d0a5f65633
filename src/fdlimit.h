/*
 * fdlimit.h: the process's descriptor limit (RLIMIT_NOFILE), raised once at
 * start by each program that holds many sockets (ringwatch,
 * ringwatch-fleet --http1, ringwatch-rawfan), instead of each keeping its
 * own copy of the dance.
 */
#ifndef FDLIMIT_H
#define FDLIMIT_H

#include <stdint.h>

/*
 * Raises the soft RLIMIT_NOFILE to the hard limit and returns the soft
 * limit then in force, in descriptors (UINT64_MAX when unlimited).  When
 * setrlimit refuses (logged as a warning) or getrlimit fails, returns the
 * limit as it was (getrlimit failing: 1024, the usual default).
 */
uint64_t fdlimit_raise(void);

#endif
