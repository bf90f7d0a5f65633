/*
 * fdlimit.c: raising RLIMIT_NOFILE (see fdlimit.h).
 */
#include "src/fdlimit.h"

#include <stdio.h>
#include <sys/resource.h>

#include "src/log.h"

#define FDLIMIT_UNKNOWN 1024

static uint64_t fdlimit_value(rlim_t v)
{
    return v == RLIM_INFINITY ? UINT64_MAX : (uint64_t)v;
}

/* Linux refuses an infinite soft limit above fs.nr_open: an unlimited
 * hard limit is raised to as much as the kernel allows. */
static rlim_t fdlimit_ceiling(rlim_t hard)
{
    unsigned long long nr_open;
    FILE *f;

    if (hard != RLIM_INFINITY ||
        (f = fopen("/proc/sys/fs/nr_open", "r")) == NULL)
        return hard;
    if (fscanf(f, "%llu", &nr_open) != 1)
        nr_open = hard;
    fclose(f);
    return (rlim_t)nr_open;
}

uint64_t fdlimit_raise(void)
{
    struct rlimit rl;
    rlim_t was;

    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) {
        log_warn("getrlimit(RLIMIT_NOFILE)");
        return FDLIMIT_UNKNOWN;
    }
    if (rl.rlim_cur == rl.rlim_max)
        return fdlimit_value(rl.rlim_cur);
    was = rl.rlim_cur;
    rl.rlim_cur = fdlimit_ceiling(rl.rlim_max);
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        log_warn("setrlimit(RLIMIT_NOFILE, %llu)",
                 (unsigned long long)rl.rlim_cur);
        return fdlimit_value(was);
    }
    return fdlimit_value(rl.rlim_cur);
}
