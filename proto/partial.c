/*
 * partial.c: PartialObjectMetadata (see partial.h).
 *
 * A small scanner walks the top level of an object's JSON, which
 * kjson_decode_object has already checked is valid: strings are skipped by
 * their quotes and escapes, containers by depth, and only member names are
 * looked at (unescaped by kjson_scan_string_equals, the decoder's own
 * comparison).
 */
#include "proto/partial.h"

#include "proto/kjson_scan.h"

const char *partial_head(bool beta)
{
    return beta ? "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":"
                  "\"meta.k8s.io/v1beta1\",\"metadata\":"
                : "{\"kind\":\"PartialObjectMetadata\",\"apiVersion\":"
                  "\"meta.k8s.io/v1\",\"metadata\":";
}

/* Index just past the JSON string starting at p[i] == '"'. */
static size_t skip_string(const char *p, size_t len, size_t i)
{
    for (i++; i < len && p[i] != '"'; i++)
        if (p[i] == '\\')
            i++;
    return i < len ? i + 1 : len;
}

/* Index just past the JSON value starting at p[i]. */
static size_t skip_value(const char *p, size_t len, size_t i)
{
    size_t depth = 0;

    if (i < len && p[i] == '"')
        return skip_string(p, len, i);
    while (i < len) {
        char c = p[i];

        if (c == '"') {
            i = skip_string(p, len, i);
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i; /* the end of a scalar in its container */
            if (--depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || c == ' ' || c == '\t' ||
                                  c == '\n' || c == '\r')) {
            return i;
        }
        i++;
    }
    return len;
}

static size_t skip_ws(const char *p, size_t len, size_t i)
{
    while (i < len &&
           (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return i;
}

bool partial_locate(const struct object *o, size_t *off, size_t *len)
{
    const char *p = o->json->data;
    size_t n = o->json->len, i = skip_ws(p, n, 0);
    bool found = false;

    if (i >= n || p[i] != '{')
        return false;
    for (i = skip_ws(p, n, i + 1); i < n && p[i] == '"';) {
        size_t key = i + 1, key_end = skip_string(p, n, i) - 1, start;

        i = skip_ws(p, n, key_end + 1);
        if (i >= n || p[i] != ':')
            return found;
        start = skip_ws(p, n, i + 1);
        i = skip_value(p, n, start);
        if (kjson_scan_string_equals((const unsigned char *)p + key,
                                     key_end - key, "metadata", 8)) {
            *off = start;
            *len = i - start;
            found = true;
        }
        i = skip_ws(p, n, i);
        if (i >= n || p[i] != ',')
            break;
        i = skip_ws(p, n, i + 1);
    }
    return found;
}

void partial_append(struct sbuf *sb, const struct object *o, bool beta)
{
    size_t off, len;

    sbuf_add(sb, partial_head(beta));
    if (partial_locate(o, &off, &len))
        sbuf_addn(sb, o->json->data + off, len);
    else
        sbuf_add(sb, "{}");
    sbuf_add(sb, "}");
}
