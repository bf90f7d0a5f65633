/*
 * sbuf.c: growable byte strings (see sbuf.h).  Capacity doubles, so n
 * appends cost O(total length).
 */
#include "cache/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

void sbuf_reserve(struct sbuf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap)
        return;
    b->cap = RW_MAX(RW_MAX(b->cap * 2, b->len + n + 1), (size_t)64);
    b->data = xrealloc(b->data, b->cap);
}

void sbuf_addn(struct sbuf *b, const void *p, size_t n)
{
    sbuf_reserve(b, n);
    if (n > 0)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sbuf_add(struct sbuf *b, const char *s)
{
    sbuf_addn(b, s, strlen(s));
}

void sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    int n;

    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    rw_assert(n >= 0);
    sbuf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
    va_end(again);
    b->len += (size_t)n;
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sbuf_vaddf(b, fmt, ap);
    va_end(ap);
}

void sbuf_fini(struct sbuf *b)
{
    free(b->data);
    *b = (struct sbuf){0};
}
