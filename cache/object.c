/*
 * object.c: immutable reference-counted objects (see object.h).
 *
 * Layout: one allocation holds the struct, the label and field arrays and
 * every string (key, namespace, name, creationTimestamp, label keys and
 * values, field values); the JSON is a separate rbuf so that it can be
 * shared with sockets by reference.  Labels are sorted by key so that
 * lookups can stop early and two objects' label sets compare in one pass.
 */
#include "cache/object.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/resource_type.h"
#include "cache/rw.h"

/* One cached view: a short list per object (one node per representation
 * and event type some watcher asked for). */
struct object_view {
    struct object_view *next;
    struct rbuf *buf;
    int64_t stamp;
    unsigned format;
};

/* By key; equal keys keep their input order (their strings were packed in
 * that order, so their addresses tell it), which qsort does not promise. */
static int label_cmp(const void *a, const void *b)
{
    const struct label *x = a, *y = b;
    int c = strcmp(x->key, y->key);

    if (c != 0)
        return c;
    return x->key < y->key ? -1 : x->key > y->key;
}

/* Appends s (NUL included) at *cursor; returns where it went. */
static const char *pack(char **cursor, const char *s)
{
    size_t n = strlen(s) + 1;
    char *at = *cursor;

    memcpy(at, s, n);
    *cursor += n;
    return at;
}

struct object *object_new(const struct object_init *in)
{
    size_t strbytes, nl = in->nlabels, nf = in->nfields;
    struct object *o;
    struct label *labels;
    const char **fields;
    char *cursor;

    rw_assert(in->json != NULL);
    rw_assert(in->rv_off + in->rv_len <= in->json->len);
    rw_assert(nf < UINT16_MAX && nl < UINT16_MAX);

    strbytes = in->key_len + 1 + strlen(in->ns ? in->ns : "") + 1 +
               strlen(in->name ? in->name : "") + 1 +
               strlen(in->created ? in->created : "") + 1;
    for (size_t i = 0; i < nl; i++)
        strbytes += strlen(in->labels[i].key) + strlen(in->labels[i].value) + 2;
    for (size_t i = 0; i < nf; i++)
        strbytes += strlen(in->fields[i] ? in->fields[i] : "") + 1;

    o = xmalloc(sizeof(*o) + nl * sizeof(struct label) +
                nf * sizeof(char *) + strbytes);
    labels = (struct label *)(o + 1);
    fields = (const char **)(labels + nl);
    cursor = (char *)(fields + nf);

    o->refs = 1;
    o->rv = in->rv;
    memcpy(cursor, in->key, in->key_len);
    cursor[in->key_len] = '\0';
    o->key = cursor;
    o->key_len = in->key_len;
    cursor += in->key_len + 1;
    o->ns = pack(&cursor, in->ns ? in->ns : "");
    o->name = pack(&cursor, in->name ? in->name : "");
    o->created = pack(&cursor, in->created ? in->created : "");

    for (size_t i = 0; i < nl; i++) {
        labels[i].key = pack(&cursor, in->labels[i].key);
        labels[i].value = pack(&cursor, in->labels[i].value);
    }
    qsort(labels, nl, sizeof(*labels), label_cmp);
    /* Duplicate keys (invalid JSON objects can carry them): the last wins. */
    size_t kept = 0;
    for (size_t i = 0; i < nl; i++) {
        if (kept > 0 && strcmp(labels[kept - 1].key, labels[i].key) == 0)
            labels[kept - 1] = labels[i];
        else
            labels[kept++] = labels[i];
    }
    o->labels = labels;
    o->nlabels = (uint16_t)kept;

    for (size_t i = 0; i < nf; i++)
        fields[i] = pack(&cursor, in->fields[i] ? in->fields[i] : "");
    o->fields = fields;
    o->nfields = (uint16_t)nf;

    o->json = in->json;
    o->rv_off = (uint32_t)in->rv_off;
    o->rv_len = (uint32_t)in->rv_len;
    for (int t = 0; t < EVENT_TYPE_MAX; t++)
        o->frames[t] = NULL;
    o->views = NULL;
    return o;
}

struct object *object_with_rv(const struct object *o, int64_t rv)
{
    char digits[24];
    int nd = snprintf(digits, sizeof(digits), "%" PRId64, rv);
    size_t tail = o->json->len - o->rv_off - o->rv_len;
    struct rbuf *json = rbuf_new(o->rv_off + nd + tail);
    const char *fields[RESOURCE_TYPE_MAX_FIELDS];
    struct object_init in;

    memcpy(json->data, o->json->data, o->rv_off);
    memcpy(json->data + o->rv_off, digits, nd);
    memcpy(json->data + o->rv_off + nd,
           o->json->data + o->rv_off + o->rv_len, tail);

    rw_assert(o->nfields <= RESOURCE_TYPE_MAX_FIELDS);
    for (size_t i = 0; i < o->nfields; i++)
        fields[i] = o->fields[i];
    in = (struct object_init){
        .key = o->key,
        .key_len = o->key_len,
        .rv = rv,
        .ns = o->ns,
        .name = o->name,
        .created = o->created,
        .labels = o->labels,
        .nlabels = o->nlabels,
        .fields = fields,
        .nfields = o->nfields,
        .json = json,
        .rv_off = o->rv_off,
        .rv_len = (size_t)nd,
    };
    return object_new(&in);
}

struct object *object_ref(struct object *o)
{
    if (o != NULL) {
        rw_assert(o->refs > 0 && o->refs < UINT32_MAX);
        o->refs++;
    }
    return o;
}

void object_unref(struct object *o)
{
    if (o == NULL)
        return;
    rw_assert(o->refs > 0);
    if (--o->refs > 0)
        return;
    rbuf_unref(o->json);
    for (int t = 0; t < EVENT_TYPE_MAX; t++)
        rbuf_unref(o->frames[t]);
    while (o->views != NULL) {
        struct object_view *v = o->views;

        o->views = v->next;
        rbuf_unref(v->buf);
        free(v);
    }
    free(o);
}

struct rbuf *object_view_get(const struct object *o, unsigned format,
                             int64_t stamp)
{
    for (const struct object_view *v = o->views; v != NULL; v = v->next)
        if (v->format == format)
            return v->stamp == stamp ? v->buf : NULL;
    return NULL;
}

void object_view_put(struct object *o, unsigned format, int64_t stamp,
                     struct rbuf *buf)
{
    struct object_view *v = o->views;

    while (v != NULL && v->format != format)
        v = v->next;
    if (v == NULL) {
        v = xcalloc(1, sizeof(*v));
        v->format = format;
        v->next = o->views;
        o->views = v;
    }
    rbuf_ref(buf);
    rbuf_unref(v->buf);
    v->buf = buf;
    v->stamp = stamp;
}

const char *object_label(const struct object *o, const char *key)
{
    for (size_t i = 0; i < o->nlabels; i++) {
        int c = strcmp(o->labels[i].key, key);

        if (c == 0)
            return o->labels[i].value;
        if (c > 0)
            break;
    }
    return NULL;
}

const char *object_field(const struct object *o, int field_id)
{
    if (field_id == FIELD_NAME)
        return o->name;
    if (field_id == FIELD_NAMESPACE)
        return o->ns;
    if (field_id >= FIELD_EXTRA && (size_t)(field_id - FIELD_EXTRA) < o->nfields)
        return o->fields[field_id - FIELD_EXTRA];
    return "";
}

size_t object_footprint(const struct object *o)
{
    size_t n = sizeof(*o) + o->nlabels * sizeof(struct label) +
               o->nfields * sizeof(char *) + o->key_len + 1 +
               rbuf_footprint(o->json);

    n += strlen(o->ns) + strlen(o->name) + strlen(o->created) + 3;
    for (size_t i = 0; i < o->nlabels; i++)
        n += strlen(o->labels[i].key) + strlen(o->labels[i].value) + 2;
    for (size_t i = 0; i < o->nfields; i++)
        n += strlen(o->fields[i]) + 1;
    for (int t = 0; t < EVENT_TYPE_MAX; t++)
        n += rbuf_footprint(o->frames[t]);
    for (const struct object_view *v = o->views; v != NULL; v = v->next)
        n += sizeof(*v) + rbuf_footprint(v->buf);
    return n;
}
