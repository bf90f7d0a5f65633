/*
 * fleet_scan_fuzz.c: the fleet's JSON scanner (src/fleet/scan.c) on
 * arbitrary bytes, as an event line, an object and a LIST body.  Whatever
 * the input: no crash or out-of-bounds read, every span lies inside the
 * input, a full scan that succeeds implies a SCAN_FAST scan that succeeds
 * (it reads a prefix of the same bytes), and where cJSON also parses the input
 * and the members are not repeated, both read the same type, namespace, name,
 * resourceVersion and written-at annotation.
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/fleet/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *lo, *hi;

static void check_span(const struct scan_str *s)
{
    char *buf;
    size_t n, cap;

    if (s->p == NULL)
        return;
    rw_assert(s->p >= lo && s->p + s->len <= hi);
    cap = (size_t)s->len + 1;
    buf = xmalloc(cap);
    n = scan_str_decode(s, buf, cap);
    rw_assert(n <= s->len);
    rw_assert(!s->escaped ? n == s->len : true);
    free(buf);
}

static void check_object(const struct scan_object *o)
{
    check_span(&o->ns);
    check_span(&o->name);
    check_span(&o->rv_text);
    check_span(&o->written_at_text);
    check_span(&o->reason);
    check_span(&o->message);
}

static void item_cb(const struct scan_object *item, void *arg)
{
    check_object(item);
}

/* The only member `key` of object o, or NULL (absent or repeated). */
static cJSON *unique(const cJSON *o, const char *key)
{
    cJSON *found = NULL;
    int n = 0;

    if (!cJSON_IsObject(o))
        return NULL;
    for (cJSON *c = o->child; c != NULL; c = c->next)
        if (strcmp(c->string, key) == 0) {
            found = c;
            n++;
        }
    return n == 1 ? found : NULL;
}

/* Compares a scanned string with cJSON's when both are plain strings. */
static void same_string(const struct scan_str *s, const cJSON *v)
{
    char buf[1024];
    size_t n;

    if (!cJSON_IsString(v)) {
        rw_assert(s->p == NULL);
        return;
    }
    if (s->p == NULL || s->len >= sizeof(buf))
        return;
    n = scan_str_decode(s, buf, sizeof(buf));
    if (memchr(buf, '\0', n) != NULL)
        return; /* cJSON stops at \u0000 */
    rw_assert(n == strlen(v->valuestring));
    rw_assert(memcmp(buf, v->valuestring, n) == 0);
}

static bool has_duplicates(const cJSON *o)
{
    for (const cJSON *a = o ? o->child : NULL; a != NULL; a = a->next)
        for (const cJSON *b = a->next; b != NULL; b = b->next)
            if (a->string && b->string && strcmp(a->string, b->string) == 0)
                return true;
    return false;
}

static void compare_with_cjson(const uint8_t *data, size_t size,
                               const struct scan_event *ev)
{
    cJSON *root = cJSON_ParseWithLength((const char *)data, size);
    cJSON *obj, *meta, *ann;

    if (root == NULL)
        return;
    if (!has_duplicates(root)) {
        same_string(&ev->type_text, unique(root, "type"));
        obj = unique(root, "object");
        meta = unique(obj, "metadata");
        if (cJSON_IsObject(obj) && !has_duplicates(obj) &&
            cJSON_IsObject(meta) && !has_duplicates(meta)) {
            same_string(&ev->object.ns, unique(meta, "namespace"));
            same_string(&ev->object.name, unique(meta, "name"));
            same_string(&ev->object.rv_text, unique(meta, "resourceVersion"));
            ann = unique(meta, "annotations");
            if (cJSON_IsObject(ann) && !has_duplicates(ann))
                same_string(&ev->object.written_at_text,
                            unique(ann, SCAN_WRITTEN_AT));
        }
    }
    cJSON_Delete(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    struct scan_event full, fast;
    struct scan_object obj;
    int64_t rv;

    lo = s;
    hi = s + size;
    if (scan_event(s, size, 0, &full) == 0) {
        check_object(&full.object);
        rw_assert(scan_event(s, size, SCAN_FAST, &fast) == 0);
        check_object(&fast.object);
        compare_with_cjson(data, size, &full);
    } else if (scan_event(s, size, SCAN_FAST, &fast) == 0) {
        check_object(&fast.object);
    }
    if (scan_object(s, size, &obj) == 0)
        check_object(&obj);
    scan_list(s, size, &rv, item_cb, NULL);
    return 0;
}
