/*
 * scan.c: the fleet's single-pass JSON scanner (see scan.h).
 *
 * Data structure: none beyond the caller's output struct and a member
 * iterator (struct scan_iter) that walks one object's members.  A value the
 * scanner is not interested in is skipped by scan_skip_value, which
 * validates it on the way (strings and their escapes, numbers by JSON's
 * grammar, literals, nesting up to SCAN_MAX_DEPTH); a value it is
 * interested in (metadata, annotations, items) is descended into with a
 * nested iterator instead, so every byte is looked at once.
 *
 * Invariants: no function reads outside [p, end); every span reported
 * lies inside the input; recursion depth is bounded by SCAN_MAX_DEPTH.
 */
#include "src/fleet/scan.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/utf8.h"

/* Bytes that end the fast loop inside a string: '"', '\\', controls. */
static const uint8_t string_stop[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1,
    [0x06] = 1, [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1,
    [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1,
    [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
    [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1,
    [0x1e] = 1, [0x1f] = 1, ['"'] = 1,  ['\\'] = 1,
};

static inline const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* ==== strings, numbers, literals ==== */

/* p at '"': fills *out and returns the byte after the closing quote. */
static const char *scan_string(const char *p, const char *end,
                               struct scan_str *out)
{
    const char *q = p + 1;
    bool escaped = false;

    for (;;) {
        while (q < end && !string_stop[(uint8_t)*q])
            q++;
        if (q >= end || (uint8_t)*q < 0x20)
            return NULL;
        if (*q == '"')
            break;
        /* backslash */
        escaped = true;
        if (end - q < 2)
            return NULL;
        switch (q[1]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            q += 2;
            break;
        case 'u':
            if (end - q < 6 || rw_hex_digit(q[2]) < 0 ||
                rw_hex_digit(q[3]) < 0 || rw_hex_digit(q[4]) < 0 ||
                rw_hex_digit(q[5]) < 0)
                return NULL;
            q += 6;
            break;
        default:
            return NULL;
        }
    }
    if ((size_t)(q - p - 1) > UINT32_MAX)
        return NULL;
    out->p = p + 1;
    out->len = (uint32_t)(q - p - 1);
    out->escaped = escaped;
    return q + 1;
}

static const char *skip_digits(const char *p, const char *end)
{
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* A JSON number at p; returns its end.  *integer is set when it has no
 * fraction or exponent and fits: then *value holds it. */
static const char *scan_number(const char *p, const char *end, bool *integer,
                               int64_t *value)
{
    const char *digits;
    bool neg = false;

    *integer = false;
    if (p < end && *p == '-') {
        neg = true;
        p++;
    }
    digits = p;
    if (p < end && *p == '0')
        p++;
    else if (p < end && *p >= '1' && *p <= '9')
        p = skip_digits(p, end);
    else
        return NULL;
    if (p - digits <= 18) {
        bool has_more = p < end && (*p == '.' || *p == 'e' || *p == 'E');
        int64_t v = 0;

        for (const char *d = digits; d < p; d++)
            v = v * 10 + (*d - '0');
        if (!has_more) {
            *integer = true;
            *value = neg ? -v : v;
        }
    }
    if (p < end && *p == '.') {
        const char *f = ++p;

        p = skip_digits(p, end);
        if (p == f)
            return NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *e;

        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        e = p;
        p = skip_digits(p, end);
        if (p == e)
            return NULL;
    }
    return p;
}

static const char *scan_literal(const char *p, const char *end,
                                const char *word, size_t n)
{
    if ((size_t)(end - p) < n || memcmp(p, word, n) != 0)
        return NULL;
    return p + n;
}

/* ==== generic walk ==== */

static const char *skip_array(const char *p, const char *end, int depth)
{
    p = skip_ws(p + 1, end);
    if (p < end && *p == ']')
        return p + 1;
    for (;;) {
        p = scan_skip_value(p, end, depth + 1);
        if (p == NULL)
            return NULL;
        p = skip_ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == ']')
            return p + 1;
        if (*p != ',')
            return NULL;
        p++;
    }
}

const char *scan_skip_value(const char *p, const char *end, int depth)
{
    struct scan_iter it;
    struct scan_str s;
    bool integer;
    int64_t v;
    int rc;

    p = skip_ws(p, end);
    if (p >= end || depth >= SCAN_MAX_DEPTH)
        return NULL;
    switch (*p) {
    case '{':
        scan_iter_begin(&it, p, end, depth);
        while ((rc = scan_iter_next(&it, &s, &p, &p)) == 1)
            ;
        return rc == 0 ? scan_iter_end(&it) : NULL;
    case '[':
        return skip_array(p, end, depth);
    case '"':
        return scan_string(p, end, &s);
    case 't':
        return scan_literal(p, end, "true", 4);
    case 'f':
        return scan_literal(p, end, "false", 5);
    case 'n':
        return scan_literal(p, end, "null", 4);
    default:
        return scan_number(p, end, &integer, &v);
    }
}

bool scan_iter_begin(struct scan_iter *it, const char *p, const char *end,
                     int depth)
{
    p = skip_ws(p, end);
    it->end = end;
    it->depth = depth;
    if (p >= end || *p != '{' || depth >= SCAN_MAX_DEPTH) {
        it->p = p;
        it->state = 2;
        return false;
    }
    it->p = p + 1;
    it->state = 0;
    return true;
}

/* The next member's key; leaves it->p at the first byte of its value.
 * Returns 1, 0 at '}', RW_EINVAL. */
static int iter_key(struct scan_iter *it, struct scan_str *key)
{
    const char *p = skip_ws(it->p, it->end);

    if (it->state == 2)
        return RW_EINVAL;
    if (p < it->end && *p == '}' && it->state == 0) {
        it->p = p + 1;
        it->state = 2;
        return 0;
    }
    if (it->state == 1) {
        if (p < it->end && *p == '}') {
            it->p = p + 1;
            it->state = 2;
            return 0;
        }
        if (p >= it->end || *p != ',')
            return RW_EINVAL;
        p = skip_ws(p + 1, it->end);
    }
    if (p >= it->end || *p != '"' || (p = scan_string(p, it->end, key)) == NULL)
        return RW_EINVAL;
    p = skip_ws(p, it->end);
    if (p >= it->end || *p != ':')
        return RW_EINVAL;
    it->p = skip_ws(p + 1, it->end);
    if (it->p >= it->end)
        return RW_EINVAL;
    it->state = 1;
    return 1;
}

int scan_iter_next(struct scan_iter *it, struct scan_str *key,
                   const char **value, const char **value_end)
{
    int rc = iter_key(it, key);
    const char *v, *e;

    if (rc != 1)
        return rc;
    v = it->p;
    if ((e = scan_skip_value(v, it->end, it->depth + 1)) == NULL)
        return RW_EINVAL;
    it->p = e;
    *value = v;
    *value_end = e;
    return 1;
}

const char *scan_iter_end(const struct scan_iter *it)
{
    return it->p;
}

/* ==== strings out ==== */

/* Appends code point cp to out (cap bytes) at n, as far as it fits,
 * keeping room for the NUL; returns n plus its length. */
static size_t put_utf8(char *out, size_t cap, size_t n, uint32_t cp)
{
    unsigned char b[4];
    size_t k = utf8_encode(cp, b);

    for (size_t i = 0; i < k; i++)
        if (n + i + 1 < cap)
            out[n + i] = (char)b[i];
    return n + k;
}

static uint32_t hex4(const char *p)
{
    return (uint32_t)(rw_hex_digit(p[0]) << 12 | rw_hex_digit(p[1]) << 8 |
                      rw_hex_digit(p[2]) << 4 | rw_hex_digit(p[3]));
}

/* The code point of the (validated) escape at *pp, before end; moves *pp
 * past it.  A \uXXXX high surrogate followed by a low one is one code
 * point; a lone surrogate is U+FFFD. */
static uint32_t decode_escape(const char **pp, const char *end)
{
    static const char simple[][2] = {
        {'b', '\b'}, {'f', '\f'}, {'n', '\n'}, {'r', '\r'}, {'t', '\t'},
    };
    const char *p = *pp;
    uint32_t cp, low;

    *pp = p + 2;
    for (size_t i = 0; i < RW_ARRAY_LEN(simple); i++)
        if (p[1] == simple[i][0])
            return (uint8_t)simple[i][1];
    if (p[1] != 'u')
        return (uint8_t)p[1]; /* '"', '\\', '/' */
    cp = hex4(p + 2);
    *pp = p + 6;
    if (cp < 0xd800 || cp > 0xdfff)
        return cp;
    if (cp <= 0xdbff && end - p >= 12 && p[6] == '\\' && p[7] == 'u' &&
        (low = hex4(p + 8)) >= 0xdc00 && low <= 0xdfff) {
        *pp = p + 12;
        return 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
    }
    return 0xfffd;
}

size_t scan_str_decode(const struct scan_str *s, char *out, size_t cap)
{
    const char *p, *end;
    size_t n = 0;

    if (s->p == NULL) {
        if (cap > 0)
            out[0] = '\0';
        return 0;
    }
    p = s->p;
    end = s->p + s->len;
    while (p < end) {
        if (*p == '\\') {
            n = put_utf8(out, cap, n, decode_escape(&p, end));
            continue;
        }
        if (n + 1 < cap)
            out[n] = *p;
        n++;
        p++;
    }
    if (cap > 0)
        out[n < cap ? n : cap - 1] = '\0';
    return n;
}

bool scan_str_eq(const struct scan_str *s, const char *lit, size_t len)
{
    char buf[128];
    char *tmp;
    bool eq;

    if (s->p == NULL)
        return false;
    if (!s->escaped)
        return s->len == len && memcmp(s->p, lit, len) == 0;
    if (s->len < len) /* escapes only ever shorten */
        return false;
    if (len < sizeof(buf))
        return scan_str_decode(s, buf, sizeof(buf)) == len &&
               memcmp(buf, lit, len) == 0;
    tmp = xmalloc(len + 1);
    eq = scan_str_decode(s, tmp, len + 1) == len && memcmp(tmp, lit, len) == 0;
    free(tmp);
    return eq;
}

int64_t scan_decimal(const char *p, size_t len)
{
    uint64_t v = 0;

    if (p == NULL || len == 0 || len > 19)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX)
        return -1;
    return (int64_t)v;
}

static int64_t str_decimal(const struct scan_str *s)
{
    return s->escaped ? -1 : scan_decimal(s->p, s->len);
}

/* ==== Kubernetes objects ==== */

#define KEY_IS(k, lit) scan_str_eq((k), (lit), sizeof(lit) - 1)

/* A string value at v, or an absent span when v is not a string. */
static void string_value(const char *v, const char *e, struct scan_str *out)
{
    memset(out, 0, sizeof(*out));
    if (*v == '"')
        scan_string(v, e, out);
}

/* metadata.annotations at v: only SCAN_WRITTEN_AT is kept. */
static const char *scan_annotations(const char *v, const char *end, int depth,
                                    struct scan_object *obj)
{
    struct scan_iter it;
    struct scan_str key;
    const char *val, *val_end;
    int rc;

    memset(&obj->written_at_text, 0, sizeof(obj->written_at_text));
    if (!scan_iter_begin(&it, v, end, depth))
        return scan_skip_value(v, end, depth);
    while ((rc = scan_iter_next(&it, &key, &val, &val_end)) == 1)
        if (KEY_IS(&key, SCAN_WRITTEN_AT))
            string_value(val, val_end, &obj->written_at_text);
    return rc == 0 ? scan_iter_end(&it) : NULL;
}

/* The object's metadata at v. */
static const char *scan_metadata(const char *v, const char *end, int depth,
                                 struct scan_object *obj)
{
    struct scan_iter it;
    struct scan_str key;
    const char *val, *val_end;
    int rc;

    memset(&obj->ns, 0, sizeof(obj->ns));
    memset(&obj->name, 0, sizeof(obj->name));
    memset(&obj->rv_text, 0, sizeof(obj->rv_text));
    memset(&obj->written_at_text, 0, sizeof(obj->written_at_text));
    if (!scan_iter_begin(&it, v, end, depth))
        return scan_skip_value(v, end, depth);
    while ((rc = iter_key(&it, &key)) == 1) {
        val = it.p;
        if (KEY_IS(&key, "annotations"))
            val_end = scan_annotations(val, end, depth + 1, obj);
        else
            val_end = scan_skip_value(val, end, depth + 1);
        if (val_end == NULL)
            return NULL;
        it.p = val_end;
        if (KEY_IS(&key, "namespace"))
            string_value(val, val_end, &obj->ns);
        else if (KEY_IS(&key, "name"))
            string_value(val, val_end, &obj->name);
        else if (KEY_IS(&key, "resourceVersion"))
            string_value(val, val_end, &obj->rv_text);
    }
    return rc == 0 ? scan_iter_end(&it) : NULL;
}

/* Stop condition of SCAN_FAST, checked after each metadata. */
struct scan_ctx {
    bool fast;
    const enum scan_event_type *type; /* the event's type so far, or NULL */
    bool stopped;
};

/* An integral number value at v, else 0. */
static int64_t number_value(const char *v, const char *e)
{
    bool integer;
    int64_t n = 0;

    if (*v != '-' && (*v < '0' || *v > '9'))
        return 0;
    if (scan_number(v, e, &integer, &n) == NULL || !integer)
        return 0;
    return n;
}

/* The object's members at v (v at '{').  Returns its end, or NULL. */
static const char *scan_object_members(const char *v, const char *end,
                                       int depth, struct scan_object *obj,
                                       struct scan_ctx *ctx)
{
    struct scan_iter it;
    struct scan_str key;
    const char *val, *val_end;
    int rc;

    memset(obj, 0, sizeof(*obj));
    if (!scan_iter_begin(&it, v, end, depth))
        return NULL;
    while ((rc = iter_key(&it, &key)) == 1) {
        val = it.p;
        if (KEY_IS(&key, "metadata")) {
            if ((val_end = scan_metadata(val, end, depth + 1, obj)) == NULL)
                return NULL;
            if (ctx != NULL && ctx->fast && ctx->type != NULL &&
                *ctx->type != SCAN_UNKNOWN && *ctx->type != SCAN_ERROR) {
                ctx->stopped = true;
                return val_end;
            }
        } else if ((val_end = scan_skip_value(val, end, depth + 1)) == NULL) {
            return NULL;
        }
        it.p = val_end;
        if (KEY_IS(&key, "code")) {
            obj->code = number_value(val, val_end);
        } else if (KEY_IS(&key, "reason")) {
            string_value(val, val_end, &obj->reason);
        } else if (KEY_IS(&key, "message")) {
            string_value(val, val_end, &obj->message);
        }
    }
    return rc == 0 ? scan_iter_end(&it) : NULL;
}

static void object_numbers(struct scan_object *obj)
{
    obj->rv = str_decimal(&obj->rv_text);
    obj->written_at = str_decimal(&obj->written_at_text);
}

static enum scan_event_type event_type(const struct scan_str *s)
{
    static const struct {
        const char *name;
        size_t len;
        enum scan_event_type type;
    } types[] = {
        {"ADDED", 5, SCAN_ADDED},     {"MODIFIED", 8, SCAN_MODIFIED},
        {"DELETED", 7, SCAN_DELETED}, {"BOOKMARK", 8, SCAN_BOOKMARK},
        {"ERROR", 5, SCAN_ERROR},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(types); i++)
        if (scan_str_eq(s, types[i].name, types[i].len))
            return types[i].type;
    return SCAN_UNKNOWN;
}

int scan_event(const char *line, size_t len, unsigned flags,
               struct scan_event *ev)
{
    const char *end = line + len, *val, *val_end;
    struct scan_ctx ctx = {.fast = (flags & SCAN_FAST) != 0, .type = &ev->type};
    struct scan_iter it;
    struct scan_str key;
    int rc;

    memset(ev, 0, sizeof(*ev));
    ev->object.rv = ev->object.written_at = -1;
    if (!scan_iter_begin(&it, line, end, 0))
        return RW_EINVAL;
    while ((rc = iter_key(&it, &key)) == 1) {
        val = it.p;
        if (KEY_IS(&key, "object") && *val == '{') {
            val_end = scan_object_members(val, end, 1, &ev->object, &ctx);
            ev->has_object = val_end != NULL;
            if (ctx.stopped) {
                object_numbers(&ev->object);
                return 0;
            }
        } else {
            val_end = scan_skip_value(val, end, 1);
            if (KEY_IS(&key, "object")) {
                ev->has_object = false;
                memset(&ev->object, 0, sizeof(ev->object));
            }
        }
        if (val_end == NULL)
            return RW_EINVAL;
        it.p = val_end;
        if (KEY_IS(&key, "type")) {
            string_value(val, val_end, &ev->type_text);
            ev->type = event_type(&ev->type_text);
        }
    }
    if (rc != 0 || skip_ws(scan_iter_end(&it), end) != end)
        return RW_EINVAL;
    object_numbers(&ev->object);
    return 0;
}

int scan_object(const char *json, size_t len, struct scan_object *obj)
{
    const char *end = json + len, *e;

    e = scan_object_members(json, end, 0, obj, NULL);
    if (e == NULL || skip_ws(e, end) != end) {
        memset(obj, 0, sizeof(*obj));
        obj->rv = obj->written_at = -1;
        return RW_EINVAL;
    }
    object_numbers(obj);
    return 0;
}

/* "items" at v: one callback per element, each an object. */
static const char *scan_items(const char *v, const char *end, scan_item_cb cb,
                              void *arg)
{
    struct scan_object item;
    const char *p;

    if (*v == 'n')
        return scan_literal(v, end, "null", 4);
    if (*v != '[')
        return NULL;
    p = skip_ws(v + 1, end);
    if (p < end && *p == ']')
        return p + 1;
    for (;;) {
        p = scan_object_members(p, end, 2, &item, NULL);
        if (p == NULL)
            return NULL;
        object_numbers(&item);
        cb(&item, arg);
        p = skip_ws(p, end);
        if (p >= end)
            return NULL;
        if (*p == ']')
            return p + 1;
        if (*p != ',')
            return NULL;
        p = skip_ws(p + 1, end);
    }
}

int scan_list(const char *json, size_t len, int64_t *list_rv, scan_item_cb cb,
              void *arg)
{
    const char *end = json + len, *val, *val_end;
    struct scan_object meta;
    struct scan_iter it;
    struct scan_str key;
    int rc;

    *list_rv = -1;
    if (!scan_iter_begin(&it, json, end, 0))
        return RW_EINVAL;
    while ((rc = iter_key(&it, &key)) == 1) {
        val = it.p;
        if (KEY_IS(&key, "items")) {
            val_end = scan_items(val, end, cb, arg);
        } else if (KEY_IS(&key, "metadata")) {
            memset(&meta, 0, sizeof(meta));
            val_end = scan_metadata(val, end, 1, &meta);
            if (val_end != NULL)
                *list_rv = str_decimal(&meta.rv_text);
        } else {
            val_end = scan_skip_value(val, end, 1);
        }
        if (val_end == NULL)
            return RW_EINVAL;
        it.p = val_end;
    }
    if (rc != 0 || skip_ws(scan_iter_end(&it), end) != end)
        return RW_EINVAL;
    return 0;
}
