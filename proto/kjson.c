/*
 * kjson.c: the Kubernetes JSON encoders (see kjson.h): watch events,
 * Status objects, LIST heads and tails, and the JSON string escaper the
 * other encoders (repr.c, table.c, printer.c, src/discovery_json.c) share.
 * Decoding store values is kjson_decode.c's.
 *
 * Small documents (Status, list heads) are written with a growable string
 * builder (cache/sbuf.h) in a fixed key order; every string that comes
 * from outside goes through kjson_escape's rules.  Watch frames are built
 * with one allocation and one copy of the object's JSON: they are encoded
 * once per object and event type and then shared by reference.
 */
#include "proto/kjson.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/utf8.h"
#include "proto/frame.h"

#define NUMBER_LEN 32

static const char *const event_type_names[EVENT_TYPE_MAX] = {
    [EVENT_ADDED] = "ADDED",
    [EVENT_MODIFIED] = "MODIFIED",
    [EVENT_DELETED] = "DELETED",
};

/* ------------------------------------------------------------------ */
/* String builder and escaping                                         */
/* ------------------------------------------------------------------ */

/* JSON writers over a struct sbuf (cache/sbuf.h). */
static void jw_mem(struct sbuf *w, const void *p, size_t n)
{
    sbuf_addn(w, p, n);
}

static void jw_raw(struct sbuf *w, const char *s)
{
    jw_mem(w, s, strlen(s));
}

static void jw_int(struct sbuf *w, int64_t v)
{
    char digits[NUMBER_LEN];
    int n = snprintf(digits, sizeof(digits), "%" PRId64, v);

    jw_mem(w, digits, (size_t)n);
}

/* Appends s escaped as the inside of a JSON string. */
static void jw_escaped(struct sbuf *w, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    char esc[8];

    while (left > 0) {
        size_t n = utf8_len(p, left);

        if (n == 0) {
            jw_raw(w, "\\ufffd"); /* as Go's encoding/json */
            p++;
            left--;
        } else if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            jw_mem(w, esc, 2);
            p++;
            left--;
        } else if (*p < 0x20) {
            if (*p == '\n')
                jw_raw(w, "\\n");
            else if (*p == '\r')
                jw_raw(w, "\\r");
            else if (*p == '\t')
                jw_raw(w, "\\t");
            else {
                snprintf(esc, sizeof(esc), "\\u%04x", *p);
                jw_raw(w, esc);
            }
            p++;
            left--;
        } else {
            jw_mem(w, p, n);
            p += n;
            left -= n;
        }
    }
}

/* Appends s as a quoted JSON string; NULL is written as "". */
static void jw_str(struct sbuf *w, const char *s)
{
    jw_mem(w, "\"", 1);
    jw_escaped(w, s ? s : "");
    jw_mem(w, "\"", 1);
}

/* Appends ,"key":"value" (or without the comma for the first member). */
static void jw_member_str(struct sbuf *w, bool first, const char *key,
                          const char *value)
{
    if (!first)
        jw_mem(w, ",", 1);
    jw_str(w, key);
    jw_mem(w, ":", 1);
    jw_str(w, value);
}

/* Hands the text over as an rbuf and resets the builder. */
static struct rbuf *jw_rbuf(struct sbuf *w)
{
    struct rbuf *b = rbuf_from(w->data, w->len);

    free(w->data);
    *w = (struct sbuf){0};
    return b;
}

/* Hands the text over as a frame's payload and resets the builder. */
static struct rbuf *jw_frame(struct sbuf *w)
{
    struct rbuf *f = frame_from(w->data, w->len);

    free(w->data);
    *w = (struct sbuf){0};
    return f;
}

void kjson_add_string(struct sbuf *sb, const char *s)
{
    jw_str(sb, s);
}

char *kjson_escape(const char *s)
{
    struct sbuf w = {0};

    jw_mem(&w, "", 0);
    jw_escaped(&w, s);
    return w.data;
}

/* ------------------------------------------------------------------ */
/* Watch events                                                        */
/* ------------------------------------------------------------------ */

const char *kjson_event_type(enum event_type type)
{
    rw_assert((int)type >= 0 && (int)type < EVENT_TYPE_MAX);
    return event_type_names[type];
}

struct rbuf *kjson_watch_frame(enum event_type type, const struct object *obj)
{
    static const char mid[] = "\",\"object\":", tail[] = "}\n";
    const char *name;
    size_t nlen, len, at;
    struct rbuf *f;
    char *p;

    name = kjson_event_type(type);
    nlen = strlen(name);
    len = strlen("{\"type\":\"") + nlen + strlen(mid) + obj->json->len +
          strlen(tail);
    f = frame_alloc(len);
    p = frame_payload(f);
    at = 0;
    memcpy(p + at, "{\"type\":\"", 9);
    at += 9;
    memcpy(p + at, name, nlen);
    at += nlen;
    memcpy(p + at, mid, sizeof(mid) - 1);
    at += sizeof(mid) - 1;
    memcpy(p + at, obj->json->data, obj->json->len);
    at += obj->json->len;
    memcpy(p + at, tail, sizeof(tail) - 1);
    rw_assert(at + sizeof(tail) - 1 == len);
    return f;
}

/* ------------------------------------------------------------------ */
/* Status and lists                                                    */
/* ------------------------------------------------------------------ */

/* A Status up to its reason: {"kind":"Status","apiVersion":"v1",
 * "metadata":{["continue":token]},"status":"Failure","message":message,
 * "reason":reason (token NULL: none); jw_status_close ends it. */
static void jw_status_open(struct sbuf *w, const char *token,
                           const char *reason, const char *message)
{
    jw_raw(w, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{");
    if (token != NULL)
        jw_member_str(w, true, "continue", token);
    jw_raw(w, "},\"status\":\"Failure\"");
    jw_member_str(w, false, "message", message);
    jw_member_str(w, false, "reason", reason);
}

/* ,"code":code} */
static void jw_status_close(struct sbuf *w, int code)
{
    jw_raw(w, ",\"code\":");
    jw_int(w, code);
    jw_raw(w, "}");
}

struct rbuf *kjson_status(int code, const char *reason, const char *message)
{
    return kjson_status_continue(code, reason, message, NULL);
}

struct rbuf *kjson_status_continue(int code, const char *reason,
                                   const char *message, const char *token)
{
    struct sbuf w = {0};

    jw_status_open(&w, token, reason, message);
    jw_status_close(&w, code);
    return jw_rbuf(&w);
}

struct rbuf *kjson_status_invalid(const char *field, const char *detail)
{
    const char *cause = strncmp(detail, "Unsupported value", 17) == 0
                            ? "FieldValueNotSupported"
                            : "FieldValueForbidden";
    char *message = xasprintf("ListOptions.meta.k8s.io \"\" is invalid: "
                              "%s: %s",
                              field, detail);
    struct sbuf w = {0};

    jw_status_open(&w, NULL, "Invalid", message);
    jw_raw(&w, ",\"details\":{\"group\":\"meta.k8s.io\",\"kind\":"
               "\"ListOptions\",\"causes\":[{");
    jw_member_str(&w, true, "reason", cause);
    jw_member_str(&w, false, "message", detail);
    jw_member_str(&w, false, "field", field);
    jw_raw(&w, "}]}");
    jw_status_close(&w, 422);
    free(message);
    return jw_rbuf(&w);
}

struct rbuf *kjson_status_detailed(int code, const char *reason,
                                   const char *message, const char *cause,
                                   const char *cause_message, int retry_after,
                                   bool event)
{
    struct sbuf w = {0};

    if (event)
        jw_raw(&w, "{\"type\":\"ERROR\",\"object\":");
    jw_status_open(&w, NULL, reason, message);
    jw_raw(&w, ",\"details\":{");
    if (cause != NULL) {
        jw_raw(&w, "\"causes\":[{");
        jw_member_str(&w, true, "reason", cause);
        jw_member_str(&w, false, "message", cause_message);
        jw_raw(&w, "}]");
    }
    if (retry_after > 0) {
        jw_raw(&w, cause != NULL ? ",\"retryAfterSeconds\":"
                                 : "\"retryAfterSeconds\":");
        jw_int(&w, retry_after);
    }
    jw_raw(&w, "}");
    jw_status_close(&w, code);
    if (!event)
        return jw_rbuf(&w);
    jw_raw(&w, "}\n");
    return jw_frame(&w);
}

struct rbuf *kjson_status_forbidden(const char *message, const char *name,
                                    const char *group, const char *kind,
                                    bool event)
{
    struct sbuf w = {0};
    bool first = true;
    const char *const members[][2] = {
        {"name", name}, {"group", group}, {"kind", kind}};

    if (event)
        jw_raw(&w, "{\"type\":\"ERROR\",\"object\":");
    jw_status_open(&w, NULL, "Forbidden", message);
    jw_raw(&w, ",\"details\":{");
    for (size_t i = 0; i < RW_ARRAY_LEN(members); i++) {
        if (*members[i][1] == '\0')
            continue; /* omitempty */
        jw_member_str(&w, first, members[i][0], members[i][1]);
        first = false;
    }
    jw_raw(&w, "}");
    jw_status_close(&w, 403);
    if (!event)
        return jw_rbuf(&w);
    jw_raw(&w, "}\n");
    return jw_frame(&w);
}

struct rbuf *kjson_error_frame(int code, const char *reason,
                               const char *message)
{
    struct sbuf w = {0};

    jw_raw(&w, "{\"type\":\"ERROR\",\"object\":");
    jw_status_open(&w, NULL, reason, message);
    jw_status_close(&w, code);
    jw_raw(&w, "}\n");
    return jw_frame(&w);
}

struct rbuf *kjson_list_head(const struct resource_type *rt, int64_t rv,
                             const char *continue_token, int64_t remaining)
{
    struct sbuf w = {0};

    jw_raw(&w, "{");
    jw_member_str(&w, true, "kind", rt->list_kind);
    jw_member_str(&w, false, "apiVersion", rt->api_version);
    jw_raw(&w, ",\"metadata\":{\"resourceVersion\":\"");
    jw_int(&w, rv);
    jw_raw(&w, "\"");
    if (continue_token != NULL)
        jw_member_str(&w, false, "continue", continue_token);
    if (remaining >= 0) {
        jw_raw(&w, ",\"remainingItemCount\":");
        jw_int(&w, remaining);
    }
    jw_raw(&w, "},\"items\":[");
    return jw_rbuf(&w);
}

struct rbuf *kjson_list_tail(void)
{
    return rbuf_from("]}", 2);
}
