/*
 * kjson_fuzz.c: kjson_decode_object on arbitrary bytes, as a pod's store
 * value under a fixed key.  Whatever the input, decoding either fails with
 * a reason and no object, or yields an object whose JSON
 *  - parses, is compact (no whitespace between tokens), carries
 *    metadata.resourceVersion "42" with its digits where rv_off/rv_len say,
 *    the key's name and namespace, and kind "Pod" and apiVersion "v1"
 *    (the value named no other type);
 *  - differs from the input only at the spliced spots: with the spliced
 *    members removed from both cJSON trees, they print the same;
 *  - holds the input's numbers byte for byte, in order, but for those a
 *    replaced resourceVersion held;
 *  - yields the labels and spec.nodeName that Go reads in it;
 * and stays valid after object_with_rv and as a watch frame.  cJSON reads
 * both through go_parse, as Go would as far as cJSON can: lone surrogate
 * escapes (which cJSON refuses) and \u0000 (where it cuts strings) read
 * as U+FFFD.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/frame.h"
#include "proto/kjson.h"
#include "proto/kjson_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define KEY "/registry/pods/default/fuzz"

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return -1;
}

/* The \uXXXX escape at text[i] (i + 6 <= n), or -1. */
static long escape_at(const char *text, size_t n, size_t i)
{
    long v = 0;

    if (i + 6 > n || text[i] != '\\' || text[i + 1] != 'u')
        return -1;
    for (size_t k = 2; k < 6; k++) {
        if (hex_digit(text[i + k]) < 0)
            return -1;
        v = v * 16 + hex_digit(text[i + k]);
    }
    return v;
}

/* cJSON's tree of text[0..n), with each \u0000 and lone surrogate escape
 * read as \ufffd; NULL when cJSON refuses it. */
static cJSON *go_parse(const char *text, size_t n)
{
    char *copy = xmalloc(n + 1);
    bool in_string = false;
    cJSON *root;
    long cp, next;

    memcpy(copy, text, n);
    copy[n] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!in_string || text[i] != '\\') {
            in_string ^= text[i] == '"';
            continue;
        }
        cp = escape_at(text, n, i);
        if (cp >= 0xd800 && cp <= 0xdbff &&
            (next = escape_at(text, n, i + 6)) >= 0xdc00 && next <= 0xdfff)
            i += 6; /* a pair: leave it */
        else if (cp == 0 || (cp >= 0xd800 && cp <= 0xdfff))
            memcpy(copy + i + 2, "fffd", 4);
        i++; /* the escaped character */
    }
    root = cJSON_ParseWithLength(copy, n);
    free(copy);
    return root;
}

/* Parses json and checks metadata.resourceVersion == digits[0..n). */
static void check_rv(const char *json, size_t len, const char *digits, size_t n)
{
    cJSON *root = go_parse(json, len), *meta, *rv;

    rw_assert(root != NULL);
    meta = cJSON_GetObjectItemCaseSensitive(root, "metadata");
    rv = cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion");
    rw_assert(cJSON_IsString(rv));
    rw_assert(strlen(rv->valuestring) == n &&
              memcmp(rv->valuestring, digits, n) == 0);
    cJSON_Delete(root);
}

static void check_object(const struct object *o, int64_t rv)
{
    char digits[32];
    int n = snprintf(digits, sizeof(digits), "%lld", (long long)rv);

    rw_assert(o->rv == rv && o->rv_len == (uint32_t)n);
    rw_assert(memcmp(o->json->data + o->rv_off, digits, (size_t)n) == 0);
    check_rv(o->json->data, o->json->len, digits, (size_t)n);
    rw_assert(strcmp(o->name, "fuzz") == 0 && strcmp(o->ns, "default") == 0);
}

/* ------------------------------------------------------------------ */
/* Tokens                                                              */
/* ------------------------------------------------------------------ */

struct spans {
    const char *text;
    size_t *off;
    size_t *len;
    size_t n;
};

static void spans_add(struct spans *s, size_t off, size_t len)
{
    s->off = xrealloc(s->off, (s->n + 1) * sizeof(*s->off));
    s->len = xrealloc(s->len, (s->n + 1) * sizeof(*s->len));
    s->off[s->n] = off;
    s->len[s->n] = len;
    s->n++;
}

/* The number tokens of valid JSON text[0..n); *ws counts the whitespace
 * bytes outside strings. */
static void numbers(const char *text, size_t n, struct spans *out, size_t *ws)
{
    size_t i = 0, start;

    *out = (struct spans){.text = text};
    *ws = 0;
    while (i < n) {
        char c = text[i];

        if (c == '"') {
            for (i++; text[i] != '"'; i++)
                if (text[i] == '\\')
                    i++;
            i++;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            start = i;
            while (i < n && strchr("0123456789+-.eE", text[i]) != NULL)
                i++;
            spans_add(out, start, i - start);
        } else {
            *ws += c == ' ' || c == '\t' || c == '\n' || c == '\r';
            i++;
        }
    }
}

static bool span_eq(const struct spans *a, size_t i, const struct spans *b,
                    size_t j)
{
    return a->len[i] == b->len[j] &&
           memcmp(a->text + a->off[i], b->text + b->off[j], a->len[i]) == 0;
}

/* The output's numbers are the input's with one run (the replaced
 * resourceVersion's, maybe empty) left out; the output is compact. */
static void check_numbers(const uint8_t *data, size_t size,
                          const struct object *o)
{
    struct spans in, out;
    size_t ws_in, ws_out, p = 0, q = 0;

    numbers((const char *)data, size, &in, &ws_in);
    numbers(o->json->data, o->json->len, &out, &ws_out);
    rw_assert(ws_out == 0 && out.n <= in.n);
    while (p < out.n && span_eq(&in, p, &out, p))
        p++;
    while (q < out.n - p && span_eq(&in, in.n - 1 - q, &out, out.n - 1 - q))
        q++;
    rw_assert(p + q == out.n);
    free(in.off);
    free(in.len);
    free(out.off);
    free(out.len);
}

/* ------------------------------------------------------------------ */
/* Trees                                                               */
/* ------------------------------------------------------------------ */

/* A member Go reads as unset: missing, null or "". */
static bool blank(const cJSON *item)
{
    return item == NULL || cJSON_IsNull(item) ||
           (cJSON_IsString(item) && item->valuestring[0] == '\0');
}

/* Removes name from both objects when the input's is blank (spliced). */
static void prune_blank(cJSON *in, cJSON *out, const char *name)
{
    if (!blank(cJSON_GetObjectItemCaseSensitive(in, name)))
        return;
    cJSON_DeleteItemFromObjectCaseSensitive(in, name);
    cJSON_DeleteItemFromObjectCaseSensitive(out, name);
}

/* The spliced members of the output hold what they should. */
static void check_spliced(const cJSON *out)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(out, "metadata");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(meta, "namespace");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(out, "kind");
    const cJSON *api = cJSON_GetObjectItemCaseSensitive(out, "apiVersion");

    rw_assert(cJSON_IsString(kind) && strcmp(kind->valuestring, "Pod") == 0);
    rw_assert(cJSON_IsString(api) && strcmp(api->valuestring, "v1") == 0);
    rw_assert(cJSON_IsString(name) && strcmp(name->valuestring, "fuzz") == 0);
    rw_assert(cJSON_IsString(ns) && strcmp(ns->valuestring, "default") == 0);
}

/* The member name of obj (the last, as Go), or NULL. */
static const cJSON *last_member(const cJSON *obj, const char *name)
{
    const cJSON *found = NULL, *c;

    cJSON_ArrayForEach(c, obj)
    {
        if (c->string != NULL && strcmp(c->string, name) == 0)
            found = c;
    }
    return found;
}

/* The labels and spec.nodeName extracted are what Go reads in the JSON. */
static void check_extracted(const cJSON *out, const struct object *o)
{
    const cJSON *meta = last_member(out, "metadata");
    const cJSON *labels = last_member(meta, "labels"), *c;
    const cJSON *node = last_member(last_member(out, "spec"), "nodeName");
    size_t distinct = 0;

    if (cJSON_IsObject(labels)) {
        cJSON_ArrayForEach(c, labels)
        {
            const char *v = object_label(o, c->string);

            if (last_member(labels, c->string) != c)
                continue;
            distinct++;
            rw_assert(v != NULL && strcmp(v, c->valuestring) == 0);
        }
    }
    rw_assert(o->nlabels == distinct);
    if (cJSON_IsString(node))
        rw_assert(strcmp(o->fields[0], node->valuestring) == 0);
    else if (node == NULL || cJSON_IsNull(node))
        rw_assert(strcmp(o->fields[0], "") == 0);
}

/* Input and output trees equal once the spliced members are removed. */
static void check_tree(const uint8_t *data, size_t size, const struct object *o)
{
    cJSON *in = go_parse((const char *)data, size);
    cJSON *out = go_parse(o->json->data, o->json->len);
    cJSON *in_meta, *out_meta;
    char *a, *b;

    rw_assert(cJSON_IsObject(in) && cJSON_IsObject(out));
    check_spliced(out);
    check_extracted(out, o);
    prune_blank(in, out, "kind");
    in_meta = cJSON_GetObjectItemCaseSensitive(in, "metadata");
    out_meta = cJSON_GetObjectItemCaseSensitive(out, "metadata");
    if (cJSON_IsObject(in_meta)) {
        cJSON_DeleteItemFromObjectCaseSensitive(in_meta, "resourceVersion");
        cJSON_DeleteItemFromObjectCaseSensitive(out_meta, "resourceVersion");
        prune_blank(in_meta, out_meta, "name");
        prune_blank(in_meta, out_meta, "namespace");
    } else {
        cJSON_DeleteItemFromObjectCaseSensitive(in, "metadata");
        cJSON_DeleteItemFromObjectCaseSensitive(out, "metadata");
    }
    a = cJSON_PrintUnformatted(in);
    b = cJSON_PrintUnformatted(out);
    rw_assert(a != NULL && b != NULL && strcmp(a, b) == 0);
    cJSON_free(a);
    cJSON_free(b);
    cJSON_Delete(in);
    cJSON_Delete(out);
}

static void check_decoded(const uint8_t *data, size_t size, struct object *o)
{
    struct object *later;
    struct rbuf *frame;

    check_object(o, 42);
    check_tree(data, size, o);
    check_numbers(data, size, o);
    later = object_with_rv(o, 9876543210LL);
    check_object(later, 9876543210LL);
    rw_assert(later->json->len == o->json->len + 8);
    rw_assert(memcmp(later->json->data, o->json->data, o->rv_off) == 0);
    frame = kjson_watch_frame(EVENT_DELETED, later);
    check_rv(frame_payload(frame) + strlen("{\"type\":\"DELETED\","
                                           "\"object\":"),
             later->json->len, "9876543210", 10);
    rw_assert(memchr(frame_payload(frame), '\n',
                     frame_payload_len(frame) - 1) == NULL);
    rbuf_unref(frame);
    object_unref(later);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct resource_type *pods = resource_type_find("pods");
    struct object *o = NULL;
    const char *why = NULL;
    char *copy;

    if (kjson_decode_object(pods, KEY, strlen(KEY), data, size, 42, &o, &why) !=
        RW_OK) {
        rw_assert(o == NULL && why != NULL);
    } else {
        check_decoded(data, size, o);
        object_unref(o);
    }

    /* The same bytes as a string to escape: always a valid JSON string. */
    copy = xmalloc(size + 1);
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *escaped = kjson_escape(copy);
    char *quoted = xasprintf("\"%s\"", escaped);
    cJSON *str = cJSON_Parse(quoted);
    rw_assert(cJSON_IsString(str));
    cJSON_Delete(str);
    free(quoted);
    free(escaped);
    free(copy);
    return 0;
}
