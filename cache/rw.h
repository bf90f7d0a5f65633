/*
 * rw.h: what every ringwatch module shares and nothing else: the error
 * codes runtime functions return, the allocators that abort on exhaustion,
 * and the assert macro for bugs.
 *
 * Runtime failures return 0 or a negative enum rw_err; rw_strerror() names
 * them.  Out of memory is not a runtime failure: x* allocators abort, and
 * callers never check their result.
 */
#ifndef RW_H
#define RW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <sys/time.h>

enum rw_err {
    RW_OK = 0,
    RW_EINVAL = -1,    /* malformed input (query, selector, JSON, protobuf) */
    RW_ENOTFOUND = -2, /* no such object, route or resource */
    RW_EEXPIRED = -3,  /* revision left the window or was compacted */
    RW_ELIMIT = -4,    /* a configured limit would be exceeded */
    RW_EPROTO = -5,    /* the peer broke its protocol */
    RW_EIO = -6,       /* system call failed; errno says why */
    RW_EUNAVAIL = -7,  /* not ready yet (cache initialising, upstream down) */
    RW_ETIMEDOUT = -8, /* a bounded wait ran out */
    RW_ECLOSED = -9,   /* the connection or stream is gone */
    RW_EFUTURE = -10,  /* revision newer than the cache (or the store) */
    RW_ERESET = -11,   /* the store's history was reset under a read */
    RW_EACCES = -12,   /* not authenticated (401) or not allowed (403) */
    RW_ECONFLICT = -13, /* a write's precondition failed: the key's mod
                           revision (or uid) is not the one expected */
    RW_EEXIST = -14,   /* a create found the key already there */
};

/* Returns a static English name for err (0 or an enum rw_err value). */
const char *rw_strerror(int err);

/* seconds (>= 0; negative counts as 0) as a struct timeval, for timers. */
struct timeval rw_timeval(double seconds);

/* Allocators: never return NULL; abort with a message on exhaustion. */
void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void *xmemdup(const void *p, size_t n);
/* printf into a new string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

noreturn void rw_assert_fail(const char *expr, const char *file, int line);

/* Bugs, not runtime failures: abort with file and line.  Always on. */
#define rw_assert(e) ((e) ? (void)0 : rw_assert_fail(#e, __FILE__, __LINE__))

/* Value of hexadecimal digit c, or -1 (for percent and JSON \u escapes). */
static inline int rw_hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

#define RW_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define RW_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RW_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
