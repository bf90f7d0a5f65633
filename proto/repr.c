/*
 * repr.c: watch event frames in each representation (see repr.h).
 *
 * A frame is built in an sbuf and copied once into its exact-size frame.
 * A BOOKMARK is first written as the bookmark object's JSON, then goes
 * through the same path as any object (a transient struct object), so a
 * bookmark's Table row and PartialObjectMetadata are what the printers and
 * the metadata scan make of it, as the apiserver converts its bookmark
 * object like any other.
 */
#include "proto/repr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/frame.h"
#include "proto/kjson.h"
#include "proto/partial.h"

#define NO_COLUMNS "\"columnDefinitions\":null"

int repr_resolve(const struct accept_choice *c, enum accept_verb verb,
                 const struct resource_type *rt, const char *include_object,
                 struct repr *out, char *why, size_t size)
{
    *out = (struct repr){c->kind, c->beta, TABLE_OBJECT_METADATA};
    if (c->kind == ACCEPT_TABLE &&
        table_parse_include(include_object, &out->include) != RW_OK) {
        char *e = kjson_escape(include_object);

        snprintf(why, size,
                 "Unable to convert to Table as requested: includeObject: "
                 "Invalid value: \"%s\": must be 'Metadata', 'Object', "
                 "'None', or empty",
                 e);
        free(e);
        return 400;
    }
    return accept_convertible(c, verb, rt, why, size) ? 0 : 406;
}

static const struct repr formats[REPR_FORMATS] = {
    {ACCEPT_OBJECT, false, TABLE_OBJECT_METADATA},
    {ACCEPT_PARTIAL, false, TABLE_OBJECT_METADATA},
    {ACCEPT_PARTIAL, true, TABLE_OBJECT_METADATA},
    {ACCEPT_TABLE, false, TABLE_OBJECT_METADATA},
    {ACCEPT_TABLE, false, TABLE_OBJECT_NONE},
    {ACCEPT_TABLE, false, TABLE_OBJECT_FULL},
    {ACCEPT_TABLE, true, TABLE_OBJECT_METADATA},
    {ACCEPT_TABLE, true, TABLE_OBJECT_NONE},
    {ACCEPT_TABLE, true, TABLE_OBJECT_FULL},
};

const struct repr *repr_of(unsigned format)
{
    rw_assert(format < REPR_FORMATS);
    return &formats[format];
}

unsigned repr_format(const struct repr *r)
{
    switch (r->kind) {
    case ACCEPT_PARTIAL:
        return 1 + r->beta;
    case ACCEPT_TABLE:
        return 3 + 3 * r->beta + (unsigned)r->include;
    default:
        return 0;
    }
}

bool repr_ages(const struct repr *r)
{
    return r->kind == ACCEPT_TABLE;
}

static struct rbuf *frame_of(struct sbuf *sb)
{
    struct rbuf *f = frame_from(sb->data, sb->len);

    sbuf_fini(sb);
    return f;
}

/* {"type":TYPE,"object":<o in r>}\n into a frame. */
static struct rbuf *event(const struct repr *r, const struct resource_type *rt,
                          const char *type, const struct object *o, time_t now)
{
    struct sbuf sb = {0};

    sbuf_addf(&sb, "{\"type\":\"%s\",\"object\":", type);
    if (r->kind == ACCEPT_TABLE)
        table_append_object(&sb, rt, o, r->include, r->beta, false, now);
    else if (r->kind == ACCEPT_PARTIAL)
        partial_append(&sb, o, r->beta);
    else
        sbuf_addn(&sb, o->json->data, o->json->len);
    sbuf_add(&sb, "}\n");
    return frame_of(&sb);
}

struct rbuf *repr_event_frame(const struct repr *r,
                              const struct resource_type *rt, enum event_type t,
                              const struct object *o, time_t now)
{
    return event(r, rt, kjson_event_type(t), o, now);
}

struct rbuf *repr_with_columns(const struct rbuf *f,
                               const struct resource_type *rt)
{
    const char *p = f->data + FRAME_HEAD_LEN;
    size_t n = frame_payload_len(f);
    const char *at = memmem(p, n, NO_COLUMNS, strlen(NO_COLUMNS));
    size_t head;
    struct sbuf sb = {0};

    rw_assert(at != NULL);
    head = (size_t)(at - p) + strlen("\"columnDefinitions\":");
    sbuf_addn(&sb, p, head);
    table_append_columns(&sb, rt);
    sbuf_addn(&sb, at + strlen(NO_COLUMNS), n - head - strlen("null"));
    return frame_of(&sb);
}

/* ---- bookmarks ---- */

/* The empty list of r's objects as the apiserver's JSON encoder writes
 * it, base64. */
static void add_blueprint(struct sbuf *sb, const struct repr *r,
                          const struct resource_type *rt)
{
    struct sbuf list = {0};

    sbuf_add(&list, "{\"kind\":");
    if (r->kind == ACCEPT_PARTIAL) {
        sbuf_addf(&list,
                  "\"PartialObjectMetadataList\",\"apiVersion\":"
                  "\"meta.k8s.io/%s\"",
                  r->beta ? "v1beta1" : "v1");
    } else {
        kjson_add_string(&list, rt->list_kind);
        sbuf_add(&list, ",\"apiVersion\":");
        kjson_add_string(&list, rt->api_version);
    }
    sbuf_add(&list, ",\"metadata\":{},\"items\":null}\n");
    sbuf_add_base64(sb, list.data, list.len, false);
    sbuf_fini(&list);
}

/* The bookmark object of rt at rv, as a transient object. */
static struct object *bookmark_object(const struct repr *r,
                                      const struct resource_type *rt,
                                      int64_t rv, bool initial_end)
{
    struct sbuf sb = {0};
    struct object_init in = {.key = "", .rv = rv};
    size_t rv_off;

    sbuf_add(&sb, "{\"kind\":");
    kjson_add_string(&sb, rt->kind);
    sbuf_add(&sb, ",\"apiVersion\":");
    kjson_add_string(&sb, rt->api_version);
    sbuf_add(&sb, ",\"metadata\":{\"resourceVersion\":\"");
    rv_off = sb.len;
    sbuf_addf(&sb, "%lld\"", (long long)rv);
    in.rv_off = rv_off;
    in.rv_len = sb.len - rv_off - 1;
    if (initial_end) {
        sbuf_add(&sb, ",\"annotations\":{\"k8s.io/initial-events-end\":"
                      "\"true\",\"kubernetes.io/initial-events-list-"
                      "blueprint\":\"");
        add_blueprint(&sb, r, rt);
        sbuf_add(&sb, "\"}");
    }
    sbuf_add(&sb, "}}");
    in.json = rbuf_from(sb.data, sb.len);
    sbuf_fini(&sb);
    return object_new(&in);
}

struct rbuf *repr_bookmark_frame(const struct repr *r,
                                 const struct resource_type *rt, int64_t rv,
                                 bool initial_end, time_t now)
{
    struct object *o = bookmark_object(r, rt, rv, initial_end);
    struct rbuf *f = event(r, rt, "BOOKMARK", o, now);

    object_unref(o);
    return f;
}
