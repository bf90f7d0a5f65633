/*
 * outq.c: a connection's buffered output, by reference or by copy (see
 * outq.h).
 */
#include "src/outq.h"

#include <string.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "cache/rw.h"

int outq_copy(struct evbuffer *out, bool *tail_ref, const void *p, size_t len)
{
    struct evbuffer_iovec v;

    if (len == 0)
        return RW_OK;
    if (!*tail_ref)
        return evbuffer_add(out, p, len) == 0 ? RW_OK : RW_EIO;
    /* evbuffer_reserve_space sizes a new chain for len (1 KiB at least),
     * not after the immutable tail's length */
    if (evbuffer_reserve_space(out, (ev_ssize_t)len, &v, 1) < 1)
        return RW_EIO;
    memcpy(v.iov_base, p, len);
    v.iov_len = len;
    if (evbuffer_commit_space(out, &v, 1) < 0)
        return RW_EIO;
    *tail_ref = false;
    return RW_OK;
}

static void outq_unref_cb(const void *data, size_t len, void *extra)
{
    rbuf_unref(extra);
}

int outq_add(struct evbuffer *out, bool *tail_ref, struct rbuf *b, size_t off,
             size_t len)
{
    if (len < OUTQ_COPY_BELOW)
        return outq_copy(out, tail_ref, b->data + off, len);
    rbuf_ref(b);
    if (evbuffer_add_reference(out, b->data + off, len, outq_unref_cb, b) < 0) {
        rbuf_unref(b);
        return RW_EIO;
    }
    *tail_ref = true;
    return RW_OK;
}

void outq_close(struct bufferevent *bev, unsigned flush_seconds)
{
    struct timeval tv = {.tv_sec = flush_seconds, .tv_usec = 0};

    bufferevent_setwatermark(bev, EV_WRITE, 0, 0);
    bufferevent_set_timeouts(bev, NULL, &tv);
}
