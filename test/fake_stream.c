/*
 * fake_stream.c: a recording connection module (see fake_stream.h).
 */
#include "test/fake_stream.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/frame.h"
#include "src/stream.h"

static struct fake_stream *fake_of(const struct stream *s)
{
    return (struct fake_stream *)s;
}

static void append(char **dst, size_t *len, const char *p, size_t n)
{
    *dst = xrealloc(*dst, *len + n + 1);
    memcpy(*dst + *len, p, n);
    *len += n;
    (*dst)[*len] = '\0';
}

static void fake_begin(struct stream *s, int status, const char *content_type,
                       int64_t content_length)
{
    struct fake_stream *fs = fake_of(s);
    const struct stream_header *h;
    size_t len = 0;

    fs->status = status;
    fs->content_type = xstrdup(content_type ? content_type : "");
    fs->content_length = content_length;
    fs->headers = xstrdup("");
    STAILQ_FOREACH (h, &s->headers, link) {
        append(&fs->headers, &len, h->name, strlen(h->name));
        append(&fs->headers, &len, ": ", 2);
        append(&fs->headers, &len, h->value, strlen(h->value));
        append(&fs->headers, &len, "\n", 1);
    }
}

static void fake_write(struct stream *s, struct rbuf *buf, size_t off,
                       size_t len)
{
    struct fake_stream *fs = fake_of(s);

    append(&fs->body, &fs->body_len, buf->data + off, len);
}

static void fake_write_frame(struct stream *s, struct rbuf *frame)
{
    struct fake_stream *fs = fake_of(s);
    const char *p = frame_payload(frame);
    size_t n = frame_payload_len(frame);

    append(&fs->body, &fs->body_len, p, n);
    fs->frames = xrealloc(fs->frames, (fs->nframes + 1) * sizeof(char *));
    fs->frames[fs->nframes++] = xstrndup(p, n);
}

static size_t fake_pending(const struct stream *s)
{
    return fake_of(s)->pending;
}

static void fake_end(struct stream *s)
{
    fake_of(s)->ended = true;
}

static const struct stream_ops fake_ops = {
    .begin = fake_begin,
    .write = fake_write,
    .write_frame = fake_write_frame,
    .pending = fake_pending,
    .end = fake_end,
};

struct fake_stream *fake_stream_new(const char *method, const char *path,
                                    const char *query, const char *accept,
                                    int protocol)
{
    struct fake_stream *fs = xcalloc(1, sizeof(*fs));
    struct stream_value fields[STREAM_FIELD_COUNT] = {{0}};

    if (accept != NULL && *accept)
        fields[STREAM_FIELD_ACCEPT] = (struct stream_value){accept,
                                                            strlen(accept)};
    query = query ? query : "";
    stream_init(&fs->s, &fake_ops, protocol);
    stream_set_request(&fs->s, protocol == 2 ? 20 : 11, method, strlen(method),
                       path, strlen(path), query, strlen(query), fields);
    return fs;
}

void fake_stream_finish(struct fake_stream *fs)
{
    stream_finish(&fs->s);
}

void fake_stream_free(struct fake_stream *fs)
{
    if (fs == NULL)
        return;
    stream_finish(&fs->s);
    for (size_t i = 0; i < fs->nframes; i++)
        free(fs->frames[i]);
    free(fs->frames);
    free(fs->body);
    free(fs->headers);
    free(fs->content_type);
    free(fs);
}

void fake_stream_set_pending(struct fake_stream *fs, size_t pending)
{
    fs->pending = pending;
    if (pending > STREAM_LOW_WATER)
        fs->s.above_low = true; /* as a write that raised it would */
    else
        stream_drained(&fs->s);
}

const char *fake_stream_frame(const struct fake_stream *fs, size_t i)
{
    rw_assert(i < fs->nframes);
    return fs->frames[i];
}

const char *fake_stream_header(const struct fake_stream *fs,
                               const char *name, char *buf, size_t len)
{
    size_t n = strlen(name);

    for (const char *p = fs->headers; p != NULL && *p;) {
        const char *eol = strchr(p, '\n');

        if (strncmp(p, name, n) == 0 && p[n] == ':') {
            snprintf(buf, len, "%.*s", (int)(eol - p - n - 2), p + n + 2);
            return buf;
        }
        p = eol ? eol + 1 : NULL;
    }
    return NULL;
}
