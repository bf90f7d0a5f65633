/*
 * h1_head_fuzz.c: the strict HTTP/1.1 request checks (src/h1_head.c) on
 * arbitrary bytes: the input goes through the reader on an evbuffer (the
 * head's end found, then checked by h1_head_parse), and what follows the
 * head is fed as a chunked body whole and a byte at a time, which must
 * agree.  Refusals must say why; an accepted head has a version of 10 or
 * 11; a request line the reader refuses as soon as it ends is refused
 * alike by h1_head_parse.  An accepted head's body read by the reader and
 * kept holds exactly the body's data bytes, at most the limit.
 */
#include <stdint.h>
#include <string.h>

#include <event2/buffer.h>

#include "cache/rw.h"
#include "src/h1_head.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds size bytes a piece at a time (step); returns done, or -1. */
static int chunked(const uint8_t *data, size_t size, size_t step,
                   uint64_t *body)
{
    struct h1_chunked ch = {0};
    char why[128];

    for (size_t at = 0; at < size && !ch.done; at += step) {
        size_t n = RW_MIN(step, size - at);
        long got = h1_head_chunked_feed(&ch, (const char *)data + at, n, 256,
                                        why, sizeof(why));

        if (got < 0) {
            rw_assert(why[0] != '\0');
            return -1;
        }
        rw_assert((size_t)got == n || ch.done);
    }
    *body = ch.data;
    return ch.done;
}

/* The reader refused the request line of line1 bytes at the front of in
 * with status as soon as it ended: h1_head_parse says the same of a head
 * made of that line alone. */
static void request_line_agrees(struct evbuffer *in, size_t line1, int status)
{
    struct evbuffer *head = evbuffer_new();
    struct h1_head h;
    char why[256];

    rw_assert(line1 > 0 && line1 <= evbuffer_get_length(in));
    evbuffer_add(head, evbuffer_pullup(in, (ssize_t)line1), line1);
    evbuffer_add(head, "\r\n", 2);
    rw_assert(h1_head_parse((const char *)evbuffer_pullup(head, -1),
                            evbuffer_get_length(head), &h, why,
                            sizeof(why)) == status);
    evbuffer_free(head);
}

/* Reads the body of the accepted head r->head from in, keeping it. */
static void body_kept(struct h1_reader *r, struct evbuffer *in)
{
    struct evbuffer *copy = evbuffer_new(), *keep = evbuffer_new();
    char why[160];
    int status = 0, rc;

    evbuffer_add(copy, evbuffer_pullup(in, -1), evbuffer_get_length(in));
    r->head_done = true;
    r->body_left = r->head.content_length;
    rc = h1_head_reader_body(r, copy, keep, 256, 1024, &status, why,
                             sizeof(why));
    rw_assert(evbuffer_get_length(keep) <= 1024);
    if (rc == H1_READER_DONE)
        rw_assert(evbuffer_get_length(keep) ==
                  (r->head.framing == H1_FRAMING_CHUNKED ? r->chunked.data
                   : r->head.framing == H1_FRAMING_LENGTH
                       ? r->head.content_length
                       : 0));
    else if (rc < 0)
        rw_assert((status == 400 || status == 413) && why[0] != '\0');
    evbuffer_free(copy);
    evbuffer_free(keep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct evbuffer *in = evbuffer_new();
    struct h1_reader r = {0};
    char why[256] = "";
    int status = 0;
    uint64_t whole = 0, bytewise = 0;
    long len;

    evbuffer_add(in, data, size);
    len = h1_head_reader_head(&r, in, 4096, &status, why, sizeof(why));
    if (len < 0)
        rw_assert((status == 414 || status == 431 || status == 400 ||
                   status == 505) &&
                  why[0] != '\0');
    if (len < 0 && (status == 400 || status == 505))
        request_line_agrees(in, r.line1, status);
    if (len > 0) {
        status = h1_head_parse((const char *)evbuffer_pullup(in, len),
                               (size_t)len, &r.head, why, sizeof(why));
        rw_assert(status == 0 ? r.head.version == 10 || r.head.version == 11
                              : why[0] != '\0');
        evbuffer_drain(in, (size_t)len);
        if (status == 0)
            body_kept(&r, in);
    }
    size = evbuffer_get_length(in);
    data = evbuffer_pullup(in, -1);
    rw_assert(chunked(data, size, size + 1, &whole) ==
              chunked(data, size, 1, &bytewise));
    rw_assert(whole == bytewise);
    evbuffer_free(in);
    return 0;
}
