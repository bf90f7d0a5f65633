/*
 * rw.c: error names, aborting allocators and the assert handler.
 */
#include "cache/rw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rw_strerror(int err)
{
    switch (err) {
    case RW_OK:
        return "success";
    case RW_EINVAL:
        return "invalid input";
    case RW_ENOTFOUND:
        return "not found";
    case RW_EEXPIRED:
        return "revision expired";
    case RW_ELIMIT:
        return "limit exceeded";
    case RW_EPROTO:
        return "protocol error";
    case RW_EIO:
        return "i/o error";
    case RW_EUNAVAIL:
        return "unavailable";
    case RW_EACCES:
        return "access denied";
    case RW_ETIMEDOUT:
        return "timed out";
    case RW_EFUTURE:
        return "revision from the future";
    case RW_ERESET:
        return "the store's history was reset";
    case RW_ECLOSED:
        return "closed";
    case RW_ECONFLICT:
        return "precondition failed";
    case RW_EEXIST:
        return "already exists";
    }
    return "unknown error";
}

struct timeval rw_timeval(double seconds)
{
    struct timeval tv;

    if (seconds < 0)
        seconds = 0;
    tv.tv_sec = (time_t)seconds;
    tv.tv_usec = (suseconds_t)((seconds - (double)tv.tv_sec) * 1e6);
    return tv;
}

static noreturn void out_of_memory(size_t size)
{
    fprintf(stderr, "ringwatch: out of memory allocating %zu bytes\n", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);

    if (p == NULL)
        out_of_memory(size);
    return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
    void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

    if (p == NULL)
        out_of_memory(nmemb * size);
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);

    if (p == NULL)
        out_of_memory(size);
    return p;
}

char *xstrdup(const char *s)
{
    return xmemdup(s, strlen(s) + 1);
}

char *xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *p = xmalloc(len + 1);

    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

void *xmemdup(const void *p, size_t n)
{
    void *q = xmalloc(n);

    if (n)
        memcpy(q, p, n);
    return q;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        out_of_memory(0);
    return s;
}

noreturn void rw_assert_fail(const char *expr, const char *file, int line)
{
    fprintf(stderr, "ringwatch: assertion \"%s\" failed at %s:%d\n", expr, file,
            line);
    abort();
}
