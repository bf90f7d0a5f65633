/*
 * h2_req.c: an HTTP/2 request's header fields as they arrive (see
 * h2_req.h).
 */
#include "src/h2_req.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/query.h"
#include "src/stream_impl.h"

/* The fields a request keeps: its method and path, and those handlers
 * see (enum stream_field, from H2_REQ_FIELDS on). */
enum h2_req_field {
    H2_REQ_METHOD,
    H2_REQ_PATH,
    H2_REQ_FIELDS,
    H2_REQ_COUNT = H2_REQ_FIELDS + STREAM_FIELD_COUNT,
};

struct h2_req {
    char *buf;
    size_t len, cap;
    size_t off[H2_REQ_COUNT], vlen[H2_REQ_COUNT];
    bool seen[H2_REQ_COUNT];
    size_t bytes; /* header list size as RFC 9113 6.5.2 counts it */
    bool too_large;
    char *body; /* the DATA so far, NUL-terminated; NULL: none */
    size_t body_len, body_cap;
    bool body_too_large;
    struct stream_gather gather; /* STREAM_FIELD_IMPERSONATE */
};

struct h2_req *h2_req_new(void)
{
    return xcalloc(1, sizeof(struct h2_req));
}

void h2_req_free(struct h2_req *r)
{
    if (r != NULL) {
        free(r->buf);
        free(r->body);
        stream_gather_free(&r->gather);
    }
    free(r);
}

/* Which enum h2_req_field a field is, or -1 (names are lower case). */
static int h2_req_index(const uint8_t *name, size_t len)
{
    int i;

    if (len == 7 && memcmp(name, ":method", 7) == 0)
        return H2_REQ_METHOD;
    if (len == 5 && memcmp(name, ":path", 5) == 0)
        return H2_REQ_PATH;
    i = stream_field_index((const char *)name, len);
    return i < 0 ? -1 : H2_REQ_FIELDS + i;
}

static void h2_req_append(struct h2_req *r, const uint8_t *v, size_t len)
{
    if (r->len + len + 1 > r->cap) {
        r->cap = RW_MAX(RW_MAX(r->cap * 2, r->len + len + 1), (size_t)128);
        r->buf = xrealloc(r->buf, r->cap);
    }
    memcpy(r->buf + r->len, v, len);
    r->buf[r->len + len] = '\0';
    r->len += len + 1;
}

void h2_req_add(struct h2_req *r, const uint8_t *name, size_t namelen,
                const uint8_t *value, size_t valuelen, size_t max_bytes)
{
    int i;

    r->bytes += namelen + valuelen + 32;
    if (r->bytes > max_bytes)
        r->too_large = true;
    if (!r->too_large && stream_field_gathered((const char *)name, namelen)) {
        stream_gather_begin(&r->gather, (const char *)name, namelen);
        stream_gather_add(&r->gather, (const char *)value, valuelen);
    }
    /* a repeated field: the first one counts (stream_field_index) */
    if (r->too_large || (i = h2_req_index(name, namelen)) < 0 || r->seen[i])
        return;
    r->off[i] = r->len;
    r->vlen[i] = valuelen;
    r->seen[i] = true;
    h2_req_append(r, value, valuelen);
}

bool h2_req_has_body(const struct h2_req *r)
{
    const char *m = r->buf + r->off[H2_REQ_METHOD];
    size_t len = r->vlen[H2_REQ_METHOD];

    if (!r->seen[H2_REQ_METHOD] || r->too_large)
        return false;
    return !(len == 3 && memcmp(m, "GET", 3) == 0) &&
           !(len == 4 && memcmp(m, "HEAD", 4) == 0);
}

int h2_req_body_add(struct h2_req *r, const uint8_t *data, size_t len,
                    size_t max_bytes)
{
    if (r->body_too_large || len > max_bytes - r->body_len) {
        free(r->body);
        r->body = NULL;
        r->body_len = r->body_cap = 0;
        r->body_too_large = true;
        return RW_ELIMIT;
    }
    if (r->body_len + len + 1 > r->body_cap) {
        r->body_cap =
            RW_MAX(RW_MAX(r->body_cap * 2, r->body_len + len + 1), (size_t)256);
        r->body = xrealloc(r->body, r->body_cap);
    }
    memcpy(r->body + r->body_len, data, len);
    r->body_len += len;
    r->body[r->body_len] = '\0';
    return RW_OK;
}

int h2_req_apply(struct h2_req *r, struct stream *s)
{
    int rv = h2_req_apply_head(r, s);

    if (rv != RW_OK)
        return rv;
    stream_set_body(s, r->body, r->body_len);
    r->body = NULL;
    r->body_len = r->body_cap = 0;
    return RW_OK;
}

int h2_req_apply_head(const struct h2_req *r, struct stream *s)
{
    struct stream_value fields[STREAM_FIELD_COUNT];
    const char *v[H2_REQ_COUNT], *path, *q;
    size_t len, path_len;

    if (r->too_large)
        return RW_ELIMIT;
    for (int i = 0; i < H2_REQ_COUNT; i++)
        v[i] = r->seen[i] ? r->buf + r->off[i] : NULL;
    if (v[H2_REQ_METHOD] == NULL || v[H2_REQ_PATH] == NULL)
        return RW_EINVAL;
    path = v[H2_REQ_PATH];
    len = r->vlen[H2_REQ_PATH];
    q = memchr(path, '?', len);
    path_len = q != NULL ? (size_t)(q - path) : len;
    if (!query_escapes_valid(path, path_len))
        return RW_EPROTO;
    for (int i = 0; i < STREAM_FIELD_COUNT; i++)
        fields[i] = (struct stream_value){v[H2_REQ_FIELDS + i],
                                          r->vlen[H2_REQ_FIELDS + i]};
    fields[STREAM_FIELD_IMPERSONATE] = stream_gathered(&r->gather);
    stream_set_request(s, 20, v[H2_REQ_METHOD], r->vlen[H2_REQ_METHOD], path,
                       path_len, q != NULL ? q + 1 : NULL,
                       q != NULL ? len - path_len - 1 : 0, fields);
    return RW_OK;
}
