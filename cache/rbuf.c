/*
 * rbuf.c: reference-counted immutable byte buffers (see rbuf.h).  The
 * header and the bytes are one allocation; a trailing NUL makes textual
 * contents usable as C strings.
 */
#include "cache/rbuf.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

struct rbuf *rbuf_new(size_t len)
{
    struct rbuf *b = xmalloc(sizeof(*b) + len + 1);

    b->refs = 1;
    b->pad = 0;
    b->len = len;
    b->data[len] = '\0';
    return b;
}

struct rbuf *rbuf_from(const void *p, size_t len)
{
    struct rbuf *b = rbuf_new(len);

    if (len)
        memcpy(b->data, p, len);
    return b;
}

struct rbuf *rbuf_from_str(const char *s)
{
    return rbuf_from(s, strlen(s));
}

struct rbuf *rbuf_ref(struct rbuf *b)
{
    if (b != NULL) {
        rw_assert(b->refs > 0 && b->refs < UINT32_MAX);
        b->refs++;
    }
    return b;
}

void rbuf_unref(struct rbuf *b)
{
    if (b == NULL)
        return;
    rw_assert(b->refs > 0);
    if (--b->refs == 0)
        free(b);
}

size_t rbuf_footprint(const struct rbuf *b)
{
    return b ? sizeof(*b) + b->len + 1 : 0;
}
