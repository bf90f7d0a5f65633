/*
 * kjson.c: the Kubernetes JSON codec (see kjson.h); the only module that
 * includes cJSON.
 *
 * Decoding: a store value is parsed once with cJSON, completed (kind,
 * apiVersion, metadata.name and metadata.namespace when absent), its
 * selector inputs extracted, and printed compact with a one-byte raw marker
 * in place of metadata.resourceVersion.  cJSON escapes every control
 * character inside strings and keys, so the marker's byte occurs exactly
 * once in the printed text: the final JSON is spliced around it with the
 * quoted revision, and the digits' offset is recorded so that later
 * revisions (object_with_rv) are spliced without parsing again.
 *
 * Lookups follow Go's encoding/json: a member is matched case-sensitively
 * and, when a key is repeated, the last occurrence wins.  The members the
 * codec reads to complete the object (kind, apiVersion, metadata, name,
 * namespace, resourceVersion) keep only that last occurrence, so readers
 * that take the first one see the same resourceVersion.
 *
 * Encoding: small documents (events, Status, lists, discovery) are written
 * with a growable string builder in a fixed key order; every string that
 * comes from outside goes through kjson_escape's rules.  Watch frames are
 * built with one allocation and one copy of the object's JSON.
 */
#include "kjson.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/frame.h"

#define RV_MARKER '\x01'
#define MAX_LABELS (UINT16_MAX - 1)
#define NUMBER_LEN 32

static const char *const event_type_names[EVENT_TYPE_MAX] = {
    [EVENT_ADDED] = "ADDED",
    [EVENT_MODIFIED] = "MODIFIED",
    [EVENT_DELETED] = "DELETED",
};

/* cJSON allocates through the aborting allocator, so no cJSON call made
 * here returns NULL for lack of memory. */
static void kjson_init(void)
{
    static bool done;
    cJSON_Hooks hooks = {.malloc_fn = xmalloc, .free_fn = free};

    if (done)
        return;
    cJSON_InitHooks(&hooks);
    done = true;
}

/* ------------------------------------------------------------------ */
/* String builder and escaping                                         */
/* ------------------------------------------------------------------ */

struct jw {
    char *buf;
    size_t len;
    size_t cap;
};

static void jw_mem(struct jw *w, const void *p, size_t n)
{
    if (w->len + n + 1 > w->cap) {
        w->cap = RW_MAX(w->cap * 2, w->len + n + 1);
        w->cap = RW_MAX(w->cap, (size_t)256);
        w->buf = xrealloc(w->buf, w->cap);
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void jw_raw(struct jw *w, const char *s)
{
    jw_mem(w, s, strlen(s));
}

static void jw_int(struct jw *w, int64_t v)
{
    char digits[NUMBER_LEN];
    int n = snprintf(digits, sizeof(digits), "%" PRId64, v);

    jw_mem(w, digits, (size_t)n);
}

/*
 * Length of the well-formed UTF-8 sequence at s (1 to 4 bytes), or 0 when
 * s does not start one (RFC 3629: no overlongs, no surrogates, nothing
 * above U+10FFFF).  s is NUL-terminated, which stops every check.
 */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t n;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* Appends s escaped as the inside of a JSON string. */
static void jw_escaped(struct jw *w, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    char esc[8];

    while (*p) {
        size_t n = utf8_len(p);

        if (n == 0) {
            jw_raw(w, "\\ufffd"); /* as Go's encoding/json */
            p++;
        } else if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            jw_mem(w, esc, 2);
            p++;
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
        } else {
            jw_mem(w, p, n);
            p += n;
        }
    }
}

/* Appends s as a quoted JSON string; NULL is written as "". */
static void jw_str(struct jw *w, const char *s)
{
    jw_mem(w, "\"", 1);
    jw_escaped(w, s ? s : "");
    jw_mem(w, "\"", 1);
}

/* Appends ,"key":"value" (or without the comma for the first member). */
static void jw_member_str(struct jw *w, bool first, const char *key,
                          const char *value)
{
    if (!first)
        jw_mem(w, ",", 1);
    jw_str(w, key);
    jw_mem(w, ":", 1);
    jw_str(w, value);
}

/* Hands the text over as an rbuf and resets the builder. */
static struct rbuf *jw_rbuf(struct jw *w)
{
    struct rbuf *b = rbuf_from(w->buf, w->len);

    free(w->buf);
    *w = (struct jw){0};
    return b;
}

/* Hands the text over as a frame's payload and resets the builder. */
static struct rbuf *jw_frame(struct jw *w)
{
    struct rbuf *f = frame_from(w->buf, w->len);

    free(w->buf);
    *w = (struct jw){0};
    return f;
}

char *kjson_escape(const char *s)
{
    struct jw w = {0};

    jw_mem(&w, "", 0);
    jw_escaped(&w, s);
    return w.buf;
}

/* ------------------------------------------------------------------ */
/* cJSON tree helpers                                                  */
/* ------------------------------------------------------------------ */

/* The member of obj named name[0..n) (case-sensitive, the last of
 * repeated keys, as Go's encoding/json), or NULL. */
static cJSON *member_n(const cJSON *obj, const char *name, size_t n)
{
    cJSON *found = NULL;

    for (cJSON *c = obj->child; c != NULL; c = c->next)
        if (c->string && strncmp(c->string, name, n) == 0 &&
            c->string[n] == '\0')
            found = c;
    return found;
}

static cJSON *member(const cJSON *obj, const char *name)
{
    return member_n(obj, name, strlen(name));
}

/* A member that Go would read as absent: missing or JSON null. */
static bool absent(const cJSON *item)
{
    return item == NULL || cJSON_IsNull(item);
}

static int index_of(const cJSON *obj, const cJSON *item)
{
    int i = 0;

    for (const cJSON *c = obj->child; c != NULL; c = c->next, i++)
        if (c == item)
            return i;
    return -1;
}

/*
 * Sibling lists are edited here rather than with cJSON's detach, insert
 * and replace calls: Debian 12's libcjson 1.7.15 (+deb12u4) refuses
 * cJSON_InsertItemInArray at any index but 0.  cJSON's list is
 * doubly linked, with the head's prev pointing at the tail (that is how
 * it appends); both helpers keep that invariant.
 */
static void unlink_member(cJSON *obj, cJSON *item)
{
    if (item == obj->child) {
        obj->child = item->next;
        if (item->next != NULL)
            item->next->prev = item->prev;
    } else {
        item->prev->next = item->next;
        if (item->next != NULL)
            item->next->prev = item->prev;
        else
            obj->child->prev = item->prev;
    }
    item->next = item->prev = NULL;
}

/* Links item in before the member at index at (appends past the end). */
static void link_member(cJSON *obj, cJSON *item, int at)
{
    cJSON *after = obj->child;

    for (int i = 0; after != NULL && i < at; i++)
        after = after->next;
    if (obj->child == NULL) {
        obj->child = item;
        item->prev = item;
        item->next = NULL;
    } else if (after == NULL) {
        item->prev = obj->child->prev;
        item->next = NULL;
        obj->child->prev->next = item;
        obj->child->prev = item;
    } else {
        item->next = after;
        item->prev = after->prev;
        if (after == obj->child)
            obj->child = item;
        else
            after->prev->next = item;
        after->prev = item;
    }
}

/* Deletes every member name of obj but the last, so that readers taking
 * the first of repeated keys (cJSON, some clients) agree with Go's. */
static void keep_last(cJSON *obj, const char *name)
{
    cJSON *last = member(obj, name), *c, *next;

    for (c = obj->child; c != NULL && c != last; c = next) {
        next = c->next;
        if (c->string != NULL && strcmp(c->string, name) == 0) {
            unlink_member(obj, c);
            cJSON_Delete(c);
        }
    }
}

/*
 * Sets obj's member name to item (taking it): every duplicate is deleted
 * and item takes the place of the last one; when obj has no such member
 * item is inserted at index at (appended when at < 0 or past the end).
 */
static void set_member(cJSON *obj, const char *name, cJSON *item, int at)
{
    cJSON *c, *next;
    int where = -1, i = 0;

    for (c = obj->child; c != NULL; c = next, i++) {
        next = c->next;
        if (c->string == NULL || strcmp(c->string, name) != 0)
            continue;
        where = i--;
        unlink_member(obj, c);
        cJSON_Delete(c);
    }
    if (where < 0)
        where = at < 0 ? INT32_MAX : at;
    rw_assert(item->string == NULL);
    item->string = xstrdup(name); /* cJSON frees it with its free_fn */
    item->type &= ~cJSON_StringIsConst;
    link_member(obj, item, where);
}

/* ------------------------------------------------------------------ */
/* Decoding                                                            */
/* ------------------------------------------------------------------ */

/* Selector inputs pointing into the tree (or into numbers[]). */
struct decoded {
    cJSON *root;
    cJSON *meta;
    const char *ns;
    const char *name;
    const char *created;
    struct label *labels;
    size_t nlabels;
    const char *fields[RESOURCE_TYPE_MAX_FIELDS];
    char numbers[RESOURCE_TYPE_MAX_FIELDS][NUMBER_LEN];
};

/* Where namespace and name sit in a key, after rt->etcd_prefix. */
struct key_parts {
    const char *ns;
    size_t ns_len;
    const char *name;
    size_t name_len;
};

/* As the apiserver's default layout: <prefix><ns>/<name> for namespaced
 * types, <prefix><name> otherwise; no part empty, no NUL byte. */
static bool split_key(const struct resource_type *rt, const char *key,
                      size_t key_len, struct key_parts *kp)
{
    size_t plen = strlen(rt->etcd_prefix), rest_len;
    const char *rest, *slash;

    if (key_len <= plen || memcmp(key, rt->etcd_prefix, plen) != 0)
        return false;
    rest = key + plen;
    rest_len = key_len - plen;
    if (memchr(rest, '\0', rest_len) != NULL)
        return false;
    slash = memchr(rest, '/', rest_len);
    *kp = (struct key_parts){.ns = "", .name = rest, .name_len = rest_len};
    if (!rt->namespaced)
        return slash == NULL;
    if (slash == NULL || slash == rest || slash == rest + rest_len - 1 ||
        memchr(slash + 1, '/', rest_len - (slash + 1 - rest)) != NULL)
        return false;
    kp->ns = rest;
    kp->ns_len = (size_t)(slash - rest);
    kp->name = slash + 1;
    kp->name_len = rest_len - kp->ns_len - 1;
    return true;
}

static cJSON *string_n(const char *s, size_t n)
{
    char *copy = xstrndup(s, n);
    cJSON *item = cJSON_CreateString(copy);

    free(copy);
    return item;
}

/*
 * The string member name of obj, set from s[0..n) when missing, null or
 * empty (inserted at index at).  Returns the value, or NULL when the
 * member holds something other than a string.
 */
static const char *string_or_default(cJSON *obj, const char *name,
                                     const char *s, size_t n, int at)
{
    cJSON *item;

    keep_last(obj, name);
    item = member(obj, name);

    if (cJSON_IsString(item) && item->valuestring[0] != '\0')
        return item->valuestring;
    if (!absent(item) && !cJSON_IsString(item))
        return NULL;
    item = string_n(s, n);
    set_member(obj, name, item, at);
    return item->valuestring;
}

static int parse_value(const void *value, size_t len, cJSON **root,
                       const char **why)
{
    const char *end = NULL, *stop = (const char *)value + len;

    *root = NULL;
    if (len >= 4 && memcmp(value, "k8s\0", 4) == 0) {
        *why = "value is protobuf (k8s\\0 prefix)";
        return RW_EINVAL;
    }
    if (len == 0 ||
        (*root = cJSON_ParseWithLengthOpts(value, len, &end, 0)) == NULL) {
        *why = "value is not JSON";
        return RW_EINVAL;
    }
    while (end < stop &&
           (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
        end++;
    if (end != stop) {
        cJSON_Delete(*root);
        *root = NULL;
        *why = "value is not JSON";
        return RW_EINVAL;
    }
    return RW_OK;
}

/* kind, apiVersion and metadata: present, typed, completed from rt. */
static int complete_type_meta(const struct resource_type *rt, struct decoded *d,
                              const char **why)
{
    cJSON *root = d->root, *kind;

    if (string_or_default(root, "kind", rt->kind, strlen(rt->kind), 0) ==
        NULL) {
        *why = "kind is not a string";
        return RW_EINVAL;
    }
    kind = member(root, "kind");
    if (string_or_default(root, "apiVersion", rt->api_version,
                          strlen(rt->api_version),
                          index_of(root, kind) + 1) == NULL) {
        *why = "apiVersion is not a string";
        return RW_EINVAL;
    }
    keep_last(root, "metadata");
    d->meta = member(root, "metadata");
    if (absent(d->meta)) {
        d->meta = cJSON_CreateObject();
        set_member(root, "metadata", d->meta,
                   index_of(root, member(root, "apiVersion")) + 1);
    }
    if (!cJSON_IsObject(d->meta)) {
        *why = "metadata is not an object";
        return RW_EINVAL;
    }
    return RW_OK;
}

/* metadata.name, metadata.namespace (from the key when absent) and
 * metadata.creationTimestamp. */
static int complete_object_meta(const struct resource_type *rt,
                                const struct key_parts *kp, struct decoded *d,
                                const char **why)
{
    cJSON *created;

    d->name = string_or_default(d->meta, "name", kp->name, kp->name_len, 0);
    if (d->name == NULL) {
        *why = "metadata.name is not a string";
        return RW_EINVAL;
    }
    d->ns = "";
    if (rt->namespaced) {
        d->ns =
            string_or_default(d->meta, "namespace", kp->ns, kp->ns_len,
                              index_of(d->meta, member(d->meta, "name")) + 1);
        if (d->ns == NULL) {
            *why = "metadata.namespace is not a string";
            return RW_EINVAL;
        }
    }
    created = member(d->meta, "creationTimestamp");
    d->created = cJSON_IsString(created) ? created->valuestring : "";
    return RW_OK;
}

/* metadata.labels: an object of strings (null or absent: none). */
static int extract_labels(struct decoded *d, const char **why)
{
    cJSON *labels = member(d->meta, "labels");
    size_t n = 0;

    if (absent(labels))
        return RW_OK;
    if (!cJSON_IsObject(labels)) {
        *why = "metadata.labels is not an object";
        return RW_EINVAL;
    }
    for (cJSON *c = labels->child; c != NULL; c = c->next) {
        if (!cJSON_IsString(c)) {
            *why = "label values must be strings";
            return RW_EINVAL;
        }
        n++;
    }
    if (n > MAX_LABELS) {
        *why = "too many labels";
        return RW_EINVAL;
    }
    d->labels = xcalloc(n, sizeof(*d->labels));
    for (cJSON *c = labels->child; c != NULL; c = c->next)
        d->labels[d->nlabels++] =
            (struct label){.key = c->string, .value = c->valuestring};
    return RW_OK;
}

/* The item at a dot-separated path under root, or NULL. */
static cJSON *lookup_path(cJSON *root, const char *path)
{
    cJSON *item = root;

    while (item != NULL) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);

        if (!cJSON_IsObject(item))
            return NULL;
        item = member_n(item, path, n);
        if (dot == NULL)
            return item;
        path = dot + 1;
    }
    return NULL;
}

/* Fields the apiserver reads from a Go bool: absent means "false". */
static bool bool_field(const struct resource_type *rt, const char *path)
{
    static const char *const table[][2] = {
        {"Pod", "spec.hostNetwork"},
        {"Node", "spec.unschedulable"},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(table); i++)
        if (strcmp(rt->kind, table[i][0]) == 0 &&
            strcmp(path, table[i][1]) == 0)
            return true;
    return false;
}

/* A field-selector value as the apiserver's GetAttrs renders it. */
static const char *field_text(const cJSON *item, char *number, bool boolean)
{
    double v;

    if (cJSON_IsString(item))
        return item->valuestring;
    if (cJSON_IsTrue(item))
        return "true";
    if (cJSON_IsFalse(item))
        return "false";
    if (absent(item))
        return boolean ? "false" : "";
    if (!cJSON_IsNumber(item))
        return "";
    v = item->valuedouble;
    if (v >= -9.2e18 && v <= 9.2e18 && v == (double)(int64_t)v)
        snprintf(number, NUMBER_LEN, "%" PRId64, (int64_t)v);
    else
        snprintf(number, NUMBER_LEN, "%.17g", v);
    return number;
}

static void extract_fields(const struct resource_type *rt, struct decoded *d)
{
    size_t n = resource_type_nfields(rt);

    for (size_t i = 0; i < n; i++) {
        const char *path = rt->fields[i];
        const cJSON *item;

        /* Events: "source" is source.component, else reportingComponent
         * (as the apiserver's event ToSelectableFields). */
        if (strcmp(rt->kind, "Event") == 0 && strcmp(path, "source") == 0) {
            item = lookup_path(d->root, "source.component");
            if (!cJSON_IsString(item) || item->valuestring[0] == '\0')
                item = lookup_path(d->root, "reportingComponent");
        } else {
            item = lookup_path(d->root, path);
        }
        d->fields[i] = field_text(item, d->numbers[i], bool_field(rt, path));
    }
}

/*
 * Prints the tree with metadata.resourceVersion = "rv" into a new rbuf;
 * *rv_off and *rv_len locate the digits in it.
 */
static int splice_rv(struct decoded *d, int64_t rv, struct rbuf **json,
                     size_t *rv_off, size_t *rv_len, const char **why)
{
    char digits[NUMBER_LEN], *text, *at;
    int nd = snprintf(digits, sizeof(digits), "%" PRId64, rv);
    size_t tlen, pre, post;

    set_member(d->meta, "resourceVersion", cJSON_CreateRaw("\x01"), -1);
    text = cJSON_PrintUnformatted(d->root);
    rw_assert(text != NULL);
    at = strchr(text, RV_MARKER);
    rw_assert(at != NULL && strchr(at + 1, RV_MARKER) == NULL);
    tlen = strlen(text);
    if (tlen > UINT32_MAX - 2 * NUMBER_LEN) {
        cJSON_free(text);
        *why = "value is too large";
        return RW_EINVAL;
    }
    pre = (size_t)(at - text);
    post = tlen - pre - 1;
    *json = rbuf_new(pre + 1 + (size_t)nd + 1 + post);
    memcpy((*json)->data, text, pre);
    (*json)->data[pre] = '"';
    memcpy((*json)->data + pre + 1, digits, (size_t)nd);
    (*json)->data[pre + 1 + nd] = '"';
    memcpy((*json)->data + pre + 2 + nd, at + 1, post);
    cJSON_free(text);
    *rv_off = pre + 1;
    *rv_len = (size_t)nd;
    return RW_OK;
}

static int decode_tree(const struct resource_type *rt,
                       const struct key_parts *kp, struct decoded *d,
                       const char **why)
{
    int rc;

    if (!cJSON_IsObject(d->root)) {
        *why = "value is not a JSON object";
        return RW_EINVAL;
    }
    if ((rc = complete_type_meta(rt, d, why)) != RW_OK)
        return rc;
    if ((rc = complete_object_meta(rt, kp, d, why)) != RW_OK)
        return rc;
    if ((rc = extract_labels(d, why)) != RW_OK)
        return rc;
    extract_fields(rt, d);
    return RW_OK;
}

int kjson_decode_object(const struct resource_type *rt, const char *key,
                        size_t key_len, const void *value, size_t len,
                        int64_t rv, struct object **out, const char **why)
{
    struct decoded d = {0};
    struct key_parts kp;
    struct object_init in;
    int rc;

    kjson_init();
    *out = NULL;
    if ((rc = parse_value(value, len, &d.root, why)) != RW_OK)
        return rc;
    if (!split_key(rt, key, key_len, &kp)) {
        *why = "key does not match the resource's layout";
        rc = RW_EINVAL;
        goto done;
    }
    if ((rc = decode_tree(rt, &kp, &d, why)) != RW_OK)
        goto done;
    in = (struct object_init){
        .key = key,
        .key_len = key_len,
        .rv = rv,
        .ns = d.ns,
        .name = d.name,
        .created = d.created,
        .labels = d.labels,
        .nlabels = d.nlabels,
        .fields = d.fields,
        .nfields = resource_type_nfields(rt),
    };
    if ((rc = splice_rv(&d, rv, &in.json, &in.rv_off, &in.rv_len, why)) !=
        RW_OK)
        goto done;
    *out = object_new(&in);
done:
    free(d.labels);
    cJSON_Delete(d.root);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Watch events                                                        */
/* ------------------------------------------------------------------ */

struct rbuf *kjson_watch_frame(enum event_type type, const struct object *obj)
{
    static const char mid[] = "\",\"object\":", tail[] = "}\n";
    const char *name;
    size_t nlen, len, at;
    struct rbuf *f;
    char *p;

    rw_assert((int)type >= 0 && (int)type < EVENT_TYPE_MAX);
    name = event_type_names[type];
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

struct rbuf *kjson_bookmark_frame(const struct resource_type *rt, int64_t rv,
                                  bool initial_events_end)
{
    struct jw w = {0};

    jw_raw(&w, "{\"type\":\"BOOKMARK\",\"object\":{");
    jw_member_str(&w, true, "kind", rt->kind);
    jw_member_str(&w, false, "apiVersion", rt->api_version);
    jw_raw(&w, ",\"metadata\":{\"resourceVersion\":\"");
    jw_int(&w, rv);
    jw_raw(&w, "\"");
    if (initial_events_end)
        jw_raw(&w, ",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}");
    jw_raw(&w, "}}}\n");
    return jw_frame(&w);
}

/* ------------------------------------------------------------------ */
/* Status and lists                                                    */
/* ------------------------------------------------------------------ */

static void jw_status(struct jw *w, int code, const char *reason,
                      const char *message)
{
    jw_raw(w, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
              "\"status\":\"Failure\"");
    jw_member_str(w, false, "message", message);
    jw_member_str(w, false, "reason", reason);
    jw_raw(w, ",\"code\":");
    jw_int(w, code);
    jw_raw(w, "}");
}

struct rbuf *kjson_status(int code, const char *reason, const char *message)
{
    struct jw w = {0};

    jw_status(&w, code, reason, message);
    return jw_rbuf(&w);
}

struct rbuf *kjson_error_frame(int code, const char *reason,
                               const char *message)
{
    struct jw w = {0};

    jw_raw(&w, "{\"type\":\"ERROR\",\"object\":");
    jw_status(&w, code, reason, message);
    jw_raw(&w, "}\n");
    return jw_frame(&w);
}

struct rbuf *kjson_list_head(const struct resource_type *rt, int64_t rv,
                             const char *continue_token, int64_t remaining)
{
    struct jw w = {0};

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

/* ------------------------------------------------------------------ */
/* Discovery                                                           */
/* ------------------------------------------------------------------ */

#ifndef RINGWATCH_GIT_COMMIT
#define RINGWATCH_GIT_COMMIT "unknown"
#endif

/* The compiler's __DATE__ and __TIME__ (which honour SOURCE_DATE_EPOCH)
 * as RFC 3339, the form of the apiserver's buildDate. */
static void build_date(char *out, size_t size)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    const char *date = __DATE__, *clock = __TIME__; /* "Mmm dd yyyy" */
    const char *m = strstr(months, (char[4]){date[0], date[1], date[2], 0});
    int month = m ? (int)(m - months) / 3 + 1 : 1;
    int day = atoi(date + 4), year = atoi(date + 7);

    snprintf(out, size, "%04d-%02d-%02dT%.8sZ", year, month, day, clock);
}

struct rbuf *kjson_version(void)
{
    struct jw w = {0};
    char date[32];

    build_date(date, sizeof(date));
    jw_raw(&w, "{");
    jw_member_str(&w, true, "major", "1");
    jw_member_str(&w, false, "minor", "32");
    jw_member_str(&w, false, "gitVersion", "v1.32.0+ringwatch");
    jw_member_str(&w, false, "gitCommit", RINGWATCH_GIT_COMMIT);
    jw_member_str(&w, false, "gitTreeState", "clean");
    jw_member_str(&w, false, "buildDate", date);
    jw_member_str(&w, false, "goVersion", "n/a");
    jw_member_str(&w, false, "compiler", "gc");
    jw_member_str(&w, false, "platform", "linux/amd64");
    jw_raw(&w, "}");
    return jw_rbuf(&w);
}

struct rbuf *kjson_api_versions(const char *server_address)
{
    struct jw w = {0};

    jw_raw(&w, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
               "\"serverAddressByClientCIDRs\":[{");
    jw_member_str(&w, true, "clientCIDR", "0.0.0.0/0");
    jw_member_str(&w, false, "serverAddress", server_address);
    jw_raw(&w, "}]}");
    return jw_rbuf(&w);
}

/* {"groupVersion":"G/V","version":"V"} */
static void jw_group_version(struct jw *w, const struct resource_type *rt)
{
    jw_raw(w, "{");
    jw_member_str(w, true, "groupVersion", rt->api_version);
    jw_member_str(w, false, "version", rt->version);
    jw_raw(w, "}");
}

/* Whether types[0..i) already has rt's group (and version, if both). */
static bool seen_before(const struct resource_type *const *types, size_t i,
                        bool same_version)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(types[j]->group, types[i]->group) == 0 &&
            (!same_version ||
             strcmp(types[j]->version, types[i]->version) == 0))
            return true;
    return false;
}

/* One APIGroup: its versions in order of first appearance, the first one
 * preferred. */
static void jw_group(struct jw *w, const struct resource_type *const *types,
                     size_t n, size_t first)
{
    const char *group = types[first]->group;
    bool comma = false;

    jw_raw(w, "{");
    jw_member_str(w, true, "name", group);
    jw_raw(w, ",\"versions\":[");
    for (size_t i = first; i < n; i++) {
        if (strcmp(types[i]->group, group) != 0 || seen_before(types, i, true))
            continue;
        if (comma)
            jw_raw(w, ",");
        jw_group_version(w, types[i]);
        comma = true;
    }
    jw_raw(w, "],\"preferredVersion\":");
    jw_group_version(w, types[first]);
    jw_raw(w, "}");
}

struct rbuf *kjson_api_group_list(const struct resource_type *const *types,
                                  size_t n)
{
    struct jw w = {0};
    bool comma = false;

    jw_raw(&w, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\",\"groups\":[");
    for (size_t i = 0; i < n; i++) {
        if (types[i]->group[0] == '\0' || seen_before(types, i, false))
            continue;
        if (comma)
            jw_raw(&w, ",");
        jw_group(&w, types, n, i);
        comma = true;
    }
    jw_raw(&w, "]}");
    return jw_rbuf(&w);
}

/* One APIResource entry. */
static void jw_resource(struct jw *w, const struct resource_type *rt)
{
    jw_raw(w, "{");
    jw_member_str(w, true, "name", rt->resource);
    jw_member_str(w, false, "singularName", rt->singular);
    jw_raw(w,
           rt->namespaced ? ",\"namespaced\":true" : ",\"namespaced\":false");
    jw_member_str(w, false, "kind", rt->kind);
    jw_raw(w, ",\"verbs\":[\"get\",\"list\",\"watch\"]");
    if (rt->short_names[0] != NULL) {
        jw_raw(w, ",\"shortNames\":[");
        for (size_t i = 0;
             i < RW_ARRAY_LEN(rt->short_names) && rt->short_names[i] != NULL;
             i++) {
            if (i > 0)
                jw_raw(w, ",");
            jw_str(w, rt->short_names[i]);
        }
        jw_raw(w, "]");
    }
    jw_raw(w, "}");
}

struct rbuf *kjson_api_resource_list(const char *group, const char *version,
                                     const struct resource_type *const *types,
                                     size_t n)
{
    struct jw w = {0};
    bool comma = false;

    group = group ? group : "";
    jw_raw(&w, "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\","
               "\"groupVersion\":\"");
    if (group[0] != '\0') {
        jw_escaped(&w, group);
        jw_raw(&w, "/");
    }
    jw_escaped(&w, version);
    jw_raw(&w, "\",\"resources\":[");
    for (size_t i = 0; i < n; i++) {
        if (strcmp(types[i]->group, group) != 0 ||
            strcmp(types[i]->version, version) != 0)
            continue;
        if (comma)
            jw_raw(&w, ",");
        jw_resource(&w, types[i]);
        comma = true;
    }
    jw_raw(&w, "]}");
    return jw_rbuf(&w);
}
