/*
 * h1_req.c: an HTTP/1.x request's target and kept header fields as
 * http-parser extracts them (see h1_req.h).
 */
#include "src/h1_req.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"

struct h1_req *h1_req_new(uint64_t deadline_ms)
{
    struct h1_req *r = xcalloc(1, sizeof(*r));

    r->deadline_ms = deadline_ms;
    return r;
}

void h1_req_free(struct h1_req *r)
{
    if (r != NULL) {
        free(r->buf);
        stream_gather_free(&r->gather);
    }
    free(r);
}

static void h1_req_append(struct h1_req *r, const char *at, size_t len)
{
    if (r->len + len > r->cap) {
        r->cap = RW_MAX(r->cap * 2, r->len + len);
        r->cap = RW_MAX(r->cap, (size_t)256);
        r->buf = xrealloc(r->buf, r->cap);
    }
    memcpy(r->buf + r->len, at, len);
    r->len += len;
}

/* The kept field (an enum stream_field, or H1_FIELD_EXPECT) the current
 * field is; H1_FIELD_OTHER for any other. */
static int h1_req_field_kind(const struct h1_req *r)
{
    if (r->field_len == 6 && memcmp(r->field, "expect", 6) == 0)
        return H1_FIELD_EXPECT;
    if (r->field_len > H1_FIELD_MAX)
        return H1_FIELD_OTHER;
    return stream_field_index(r->field, r->field_len);
}

bool h1_req_expects_continue(const struct h1_req *r)
{
    const struct h1_value *v = &r->values[H1_FIELD_EXPECT];
    const char *p = r->buf + v->off, *end = p + v->len;

    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *e = comma != NULL ? comma : end;

        while (p < e && (*p == ' ' || *p == '\t'))
            p++;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (e - p == 12 && strncasecmp(p, "100-continue", 12) == 0)
            return true;
        p = comma != NULL ? comma + 1 : end;
    }
    return false;
}

bool h1_req_expectation_failed(const struct h1_req *r)
{
    const struct h1_value *v = &r->values[H1_FIELD_EXPECT];

    return v->seen && v->len > 0 && !h1_req_expects_continue(r);
}

/* Splits the request target (origin or absolute form) into path and
 * query.  A "#" is kept where it is, in the path or the query, as Go's
 * url.ParseRequestURI keeps it (a request target has no fragment). */
static void target_split(const char *url, size_t len, const char **path,
                         size_t *path_len, const char **query,
                         size_t *query_len)
{
    const char *end = url + len, *p = url, *q;

    if (len > 0 && url[0] != '/') {
        const char *scheme = memmem(url, len, "://", 3);

        if (scheme != NULL) {
            p = scheme + 3;
            while (p < end && *p != '/' && *p != '?')
                p++;
        }
    }
    for (q = p; q < end && *q != '?'; q++)
        ;
    *path = p == q ? "/" : p;
    *path_len = p == q ? 1 : (size_t)(q - p);
    *query = q < end ? q + 1 : "";
    *query_len = q < end ? (size_t)(end - q - 1) : 0;
}

void h1_req_url(struct h1_req *r, const char *at, size_t len)
{
    h1_req_append(r, at, len);
    r->url_len += len;
}

void h1_req_field(struct h1_req *r, const char *at, size_t len)
{
    if (r->in_value) {
        r->in_value = false;
        r->field_len = 0;
    }
    for (size_t i = 0; i < len; i++, r->field_len++)
        if (r->field_len < H1_FIELD_MAX)
            r->field[r->field_len] = (char)(at[i] | 0x20);
}

void h1_req_value(struct h1_req *r, const char *at, size_t len)
{
    if (!r->in_value) {
        r->in_value = true;
        r->field_kind = h1_req_field_kind(r);
        r->gathering = stream_field_gathered(
            r->field, RW_MIN(r->field_len, (size_t)H1_FIELD_MAX));
        if (r->gathering)
            stream_gather_begin(&r->gather, r->field,
                                RW_MIN(r->field_len, (size_t)H1_FIELD_MAX));
        /* a repeated field: the first one counts (stream_field_index) */
        if (r->field_kind != H1_FIELD_OTHER && r->values[r->field_kind].seen)
            r->field_kind = H1_FIELD_OTHER;
        if (r->field_kind != H1_FIELD_OTHER) {
            r->values[r->field_kind].off = r->len;
            r->values[r->field_kind].len = 0;
            r->values[r->field_kind].seen = true;
        }
    }
    if (r->field_kind != H1_FIELD_OTHER) {
        h1_req_append(r, at, len);
        r->values[r->field_kind].len += len;
    }
    if (r->gathering)
        stream_gather_add(&r->gather, at, len);
}

void h1_req_apply(const struct h1_req *r, struct stream *s)
{
    struct stream_value fields[STREAM_FIELD_COUNT];
    const char *path, *query;
    size_t path_len, query_len;

    target_split(r->buf, r->url_len, &path, &path_len, &query, &query_len);
    for (int i = 0; i < STREAM_FIELD_COUNT; i++)
        fields[i] = (struct stream_value){
            r->values[i].seen ? r->buf + r->values[i].off : NULL,
            r->values[i].len};
    fields[STREAM_FIELD_IMPERSONATE] = stream_gathered(&r->gather);
    stream_set_request(s, r->reader.head.version, r->method, strlen(r->method),
                       path, path_len, query, query_len, fields);
}
