/*
 * receiver.c: read, frame, check, time (see receiver.h).
 *
 * Every record has the template's length, so a connection's parse state
 * is the number of head bytes still to skip and the offset inside the
 * current record; the bytes of the chunk-size line and of the stamp
 * window are copied aside as they pass (a record may span reads).  A
 * record starting with '0' is the last chunk: the template's size line
 * never starts with 0.  All connections share one read buffer.
 */
#include "src/rawfan/receiver.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "src/log.h"

#define RECEIVER_READ_BYTES (256u * 1024u)
#define RECEIVER_CONNECT_TIMEOUT 10 /* seconds per connect() */

struct receiver_conn {
    int fd;
    bool ended;
    uint32_t head_left; /* head bytes still to skip */
    uint32_t off;       /* offset inside the current record */
    uint64_t last_seq;  /* highest sequence number seen */
    struct event *ev;
    struct receiver *r;
    char line[16]; /* the record's chunk-size line */
    char stamp[CHUNK_STAMP_MAX];
};

struct receiver {
    struct event_base *base;
    const struct chunk *c;
    struct receiver_conn *conns;
    uint64_t n, open;
    struct receiver_stats *st;
    char *buf;
};

static void receiver_close(struct receiver_conn *rc)
{
    if (rc->fd < 0)
        return;
    if (rc->ended)
        rc->r->st->ended++;
    else
        rc->r->st->failed++;
    event_free(rc->ev);
    close(rc->fd);
    rc->fd = -1;
    if (--rc->r->open == 0)
        event_base_loopbreak(rc->r->base);
}

/* Copies the part of [p, p + k) (record offsets [off, off + k)) that
 * falls in [lo, lo + len) to dst + (its offset - lo). */
static void receiver_copy(char *dst, size_t lo, size_t len, const char *p,
                          size_t off, size_t k)
{
    size_t a = RW_MAX(lo, off), b = RW_MIN(lo + len, off + k);

    if (a < b)
        memcpy(dst + (a - lo), p + (a - off), b - a);
}

/* A whole record has passed: check it and time it.  false: bad framing. */
static bool receiver_record(struct receiver_conn *rc, uint64_t now)
{
    struct receiver_stats *st = rc->r->st;
    uint64_t seq, ns;

    if (chunk_check_line(rc->r->c, rc->line) != 0 ||
        chunk_decode(rc->r->c, rc->stamp, &seq, &ns) != 0) {
        st->framing++;
        return false;
    }
    st->deliveries++;
    if (seq <= rc->last_seq) {
        st->reordered++;
    } else {
        st->gaps += seq - rc->last_seq - 1;
        rc->last_seq = seq;
    }
    histogram_record(&st->latency, now > ns ? now - ns : 0);
    return true;
}

/* Consumes n bytes of rc's stream.  false: the stream is broken. */
static bool receiver_parse(struct receiver_conn *rc, const char *p, size_t n,
                           uint64_t now)
{
    const struct chunk *c = rc->r->c;
    size_t k;

    while (n > 0) {
        if (rc->ended)
            return false; /* bytes after the last chunk */
        if (rc->head_left > 0) {
            k = RW_MIN(n, (size_t)rc->head_left);
            rc->head_left -= (uint32_t)k;
        } else if (rc->off == 0 && p[0] == '0') {
            rc->ended = true; /* the rest of CHUNK_END follows */
            return true;
        } else {
            k = RW_MIN(n, c->len - rc->off);
            receiver_copy(rc->line, 0, c->line_len, p, rc->off, k);
            receiver_copy(rc->stamp, c->stamp_off, c->stamp_len, p, rc->off, k);
            rc->off += (uint32_t)k;
            if (rc->off == c->len) {
                rc->off = 0;
                if (!receiver_record(rc, now))
                    return false;
            }
        }
        p += k;
        n -= k;
    }
    return true;
}

static void receiver_read_cb(evutil_socket_t fd, short what, void *arg)
{
    struct receiver_conn *rc = arg;
    struct receiver *r = rc->r;
    ssize_t n = read(fd, r->buf, RECEIVER_READ_BYTES);

    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) {
        receiver_close(rc);
        return;
    }
    r->st->bytes += (uint64_t)n;
    if (!rc->ended)
        if (!receiver_parse(rc, r->buf, (size_t)n, (uint64_t)clock_wall_ns()))
            receiver_close(rc);
}

static void receiver_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    struct receiver *r = arg;

    log_warnx("receiver: %llu streams still open at the deadline",
              (unsigned long long)r->open);
    event_base_loopbreak(r->base);
}

/* Opens the connections (blocking connects: the sender accepts them
 * concurrently in its own process), then makes them non-blocking. */
static int receiver_connect(struct receiver *r, const struct sockaddr_in *addr)
{
    for (uint64_t i = 0; i < r->n; i++) {
        struct receiver_conn *rc = &r->conns[i];
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct timeval tv = {RECEIVER_CONNECT_TIMEOUT, 0};

        /* Linux bounds a blocking connect() by SO_SNDTIMEO (socket(7)). */
        if (fd >= 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
        if (fd < 0 ||
            connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) != 0) {
            log_warn("receiver: connection %llu", (unsigned long long)i);
            if (fd >= 0)
                close(fd);
            return RW_EIO;
        }
        evutil_make_socket_nonblocking(fd);
        rc->fd = fd;
        rc->r = r;
        rc->head_left = (uint32_t)r->c->head_len;
        rc->ev =
            event_new(r->base, fd, EV_READ | EV_PERSIST, receiver_read_cb, rc);
        event_add(rc->ev, NULL);
        r->open++;
        r->st->connected++;
    }
    return 0;
}

int receiver_run(const struct sockaddr_in *addr, const struct chunk *c,
                 uint64_t connections, double deadline_s,
                 struct receiver_stats *out)
{
    struct receiver r = {0};
    struct timeval tv = {(time_t)deadline_s, 0};
    struct event *deadline;
    struct rusage ru;
    int rc;

    memset(out, 0, sizeof(*out));
    histogram_init(&out->latency);
    r.base = event_base_new();
    r.c = c;
    r.n = connections;
    r.st = out;
    r.buf = xmalloc(RECEIVER_READ_BYTES);
    r.conns = xcalloc(connections, sizeof(*r.conns));
    for (uint64_t i = 0; i < connections; i++)
        r.conns[i].fd = -1;
    deadline = event_new(r.base, -1, 0, receiver_deadline_cb, &r);
    event_add(deadline, &tv);
    rc = receiver_connect(&r, addr);
    if (rc == 0)
        event_base_dispatch(r.base);
    for (uint64_t i = 0; i < connections; i++)
        receiver_close(&r.conns[i]);
    getrusage(RUSAGE_SELF, &ru);
    out->cpu_s = (double)ru.ru_utime.tv_sec +
                 (double)ru.ru_utime.tv_usec / 1e6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    event_free(deadline);
    event_base_free(r.base);
    free(r.conns);
    free(r.buf);
    return rc;
}
