/*
 * grpc.c: gRPC length-prefixed message framing (see grpc.h).
 *
 * Deframer state: prefix_have counts prefix bytes received (0..5).  Once
 * the prefix is complete, msg_len is the body length and buf_have the body
 * bytes assembled so far.  Invariant: a body is assembled into buf only
 * when it did not arrive whole in one slice; when it did, the callback gets
 * a pointer into that slice and buf is not touched.  buf is kept between
 * messages for reuse unless it grew beyond GRPC_KEEP_BUF bytes, so a burst
 * of large split messages does not pin memory.
 */
#include "proto/grpc.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

#define GRPC_KEEP_BUF (256u * 1024)

static const char *const status_names[] = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

const char *grpc_status_name(int status)
{
    if (status < 0 || (size_t)status >= RW_ARRAY_LEN(status_names))
        return "UNKNOWN";
    return status_names[status];
}

void grpc_prefix_write(uint8_t out[GRPC_PREFIX_LEN], size_t len)
{
    rw_assert(len <= GRPC_MAX_LEN);
    out[0] = 0;
    out[1] = (uint8_t)(len >> 24);
    out[2] = (uint8_t)(len >> 16);
    out[3] = (uint8_t)(len >> 8);
    out[4] = (uint8_t)len;
}

struct rbuf *grpc_frame_encode(const void *msg, size_t len)
{
    struct rbuf *b;

    rw_assert(len <= GRPC_MAX_LEN);
    b = rbuf_new(GRPC_PREFIX_LEN + len);
    grpc_prefix_write((uint8_t *)b->data, len);
    if (len)
        memcpy(b->data + GRPC_PREFIX_LEN, msg, len);
    return b;
}

long grpc_frame_encode_into(void *out, size_t cap, const void *msg, size_t len)
{
    if (len > GRPC_MAX_LEN || cap < GRPC_PREFIX_LEN ||
        cap - GRPC_PREFIX_LEN < len)
        return RW_ELIMIT;
    grpc_prefix_write(out, len);
    if (len)
        memcpy((uint8_t *)out + GRPC_PREFIX_LEN, msg, len);
    return (long)(len + GRPC_PREFIX_LEN);
}

void grpc_deframer_init(struct grpc_deframer *d, size_t max_message)
{
    memset(d, 0, sizeof(*d));
    d->max_message = max_message ? max_message : GRPC_DEFAULT_MAX_MESSAGE;
}

void grpc_deframer_fini(struct grpc_deframer *d)
{
    free(d->buf);
    d->buf = NULL;
    d->buf_cap = 0;
    d->buf_have = 0;
}

bool grpc_deframer_idle(const struct grpc_deframer *d)
{
    return d->prefix_have == 0;
}

/* The prefix just completed: validate it and set msg_len. */
static int deframer_prefix_done(struct grpc_deframer *d)
{
    const uint8_t *p = d->prefix;
    uint32_t len = (uint32_t)p[1] << 24 | (uint32_t)p[2] << 16 |
                   (uint32_t)p[3] << 8 | (uint32_t)p[4];

    if (p[0] != 0)
        return RW_EPROTO; /* compressed (1) or undefined flag bits */
    if (len > d->max_message)
        return RW_ELIMIT;
    d->msg_len = len;
    d->buf_have = 0;
    return 0;
}

/* Copies body bytes into the assembly buffer; returns bytes taken. */
static size_t deframer_assemble(struct grpc_deframer *d, const uint8_t *p,
                                size_t n)
{
    size_t want = d->msg_len - d->buf_have;

    if (n > want)
        n = want;
    if (n == 0)
        return 0;
    if (d->buf_have + n > d->buf_cap) {
        /* Grow with what arrives, not with what the prefix announces. */
        size_t cap =
            RW_MAX(d->buf_have + n, RW_MIN(d->msg_len, d->buf_cap * 2));

        d->buf = xrealloc(d->buf, cap);
        d->buf_cap = cap;
    }
    memcpy(d->buf + d->buf_have, p, n);
    d->buf_have += n;
    return n;
}

/* A whole message is ready (in place or in buf): deliver it. */
static int deframer_deliver(struct grpc_deframer *d, const uint8_t *msg,
                            grpc_deframer_message_cb cb, void *arg)
{
    size_t len = d->msg_len;
    int rc;

    d->prefix_have = 0;
    d->msg_len = 0;
    d->buf_have = 0;
    rc = cb(msg, len, arg);
    if (d->buf_cap > GRPC_KEEP_BUF) {
        free(d->buf);
        d->buf = NULL;
        d->buf_cap = 0;
    }
    return rc;
}

int grpc_deframer_feed(struct grpc_deframer *d, const void *data, size_t len,
                       grpc_deframer_message_cb cb, void *arg)
{
    const uint8_t *p = data, *end = p + len;
    int rc;

    if (d->err)
        return d->err;
    while (p < end) {
        if (d->prefix_have < GRPC_PREFIX_LEN) {
            size_t n =
                RW_MIN((size_t)(end - p), GRPC_PREFIX_LEN - d->prefix_have);

            memcpy(d->prefix + d->prefix_have, p, n);
            d->prefix_have += n;
            p += n;
            if (d->prefix_have < GRPC_PREFIX_LEN)
                break;
            if ((rc = deframer_prefix_done(d)) != 0)
                return d->err = rc;
        }
        if (d->buf_have == 0 && (size_t)(end - p) >= d->msg_len) {
            const uint8_t *msg = p; /* whole in this slice: no copy */

            p += d->msg_len;
            rc = deframer_deliver(d, msg, cb, arg);
        } else {
            p += deframer_assemble(d, p, (size_t)(end - p));
            if (d->buf_have < d->msg_len)
                break;
            rc = deframer_deliver(d, d->buf, cb, arg);
        }
        if (rc != 0)
            return d->err = rc;
    }
    return 0;
}
