/*
 * write_meta.c: the write verbs' pure parts (see write_meta.h).  The body
 * is checked by the store decoder's strict scanner (proto/kjson_scan.h),
 * read through proto/jval.h, and rebuilt member by member: the members
 * kept are copied byte for byte (compacted), never re-encoded.
 */
#include "src/write_meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/utf8.h"
#include "proto/jval.h"
#include "proto/jval_edit.h"
#include "proto/kjson.h"
#include "proto/kjson_scan.h"

/* ==== the types' rules ==== */

void write_meta_rules(const struct resource_type *rt, struct write_rules *out)
{
    static const struct {
        const char *resource;
        enum write_name_rule name;
        bool return_deleted, create_on_update;
    } table[] = {
        /* resource, name, ReturnDeletedObject, AllowCreateOnUpdate */
        {"pods", WRITE_NAME_SUBDOMAIN, true, false},
        {"services", WRITE_NAME_DNS1035, true, true},
        {"endpoints", WRITE_NAME_SUBDOMAIN, false, true},
        {"serviceaccounts", WRITE_NAME_SUBDOMAIN, true, true},
        {"events", WRITE_NAME_SUBDOMAIN, false, true},
        {"namespaces", WRITE_NAME_LABEL, true, false},
        {"persistentvolumes", WRITE_NAME_SUBDOMAIN, true, false},
        {"persistentvolumeclaims", WRITE_NAME_SUBDOMAIN, true, false},
        {"leases", WRITE_NAME_SUBDOMAIN, false, true},
        {"roles", WRITE_NAME_SEGMENT, false, true},
        {"rolebindings", WRITE_NAME_SEGMENT, false, true},
        {"clusterroles", WRITE_NAME_SEGMENT, false, true},
        {"clusterrolebindings", WRITE_NAME_SEGMENT, false, true},
    };

    /* Every other served type: a DNS-1123 subdomain, a Status on
     * delete, no create on update (configmaps, secrets, nodes, the
     * workloads, jobs, autoscalers). */
    *out = (struct write_rules){.name = WRITE_NAME_SUBDOMAIN};
    if (strcmp(rt->resource, "cronjobs") == 0)
        out->name_max = 52; /* ValidateCronJob: the Job names it makes */
    for (size_t i = 0; i < RW_ARRAY_LEN(table); i++)
        if (strcmp(table[i].resource, rt->resource) == 0) {
            out->name = table[i].name;
            out->return_deleted = table[i].return_deleted;
            out->create_on_update = table[i].create_on_update;
        }
}

/* ==== names ==== */

#define SUBDOMAIN_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
#define LABEL_FMT "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
#define DNS1035_FMT "[a-z]([-a-z0-9]*[a-z0-9])?"

static bool is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? over s[0..n). */
static bool is_label(const char *s, size_t n)
{
    if (n == 0 || !is_lower_alnum(s[0]) || !is_lower_alnum(s[n - 1]))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_lower_alnum(s[i]) && s[i] != '-')
            return false;
    return true;
}

static bool is_subdomain(const char *s)
{
    const char *dot;

    do {
        dot = strchr(s, '.');
        if (!is_label(s, dot ? (size_t)(dot - s) : strlen(s)))
            return false;
        s = dot + 1;
    } while (dot != NULL);
    return true;
}

static void add_cause(struct write_cause *causes, size_t *n, const char *field,
                      const char *name, const char *detail)
{
    struct sbuf b = {0};

    if (*n == WRITE_MAX_CAUSES)
        return;
    sbuf_add(&b, "Invalid value: ");
    sbuf_add_quoted(&b, name, strlen(name));
    sbuf_addf(&b, ": %s", detail);
    causes[*n].reason = "FieldValueInvalid";
    causes[*n].field = field;
    snprintf(causes[*n].message, sizeof(causes[*n].message), "%s", b.data);
    sbuf_fini(&b);
    (*n)++;
}

static void check_length(const char *field, const char *name, size_t max,
                         struct write_cause *causes, size_t *n)
{
    char detail[64];

    if (strlen(name) > max) {
        snprintf(detail, sizeof(detail), "must be no more than %zu characters",
                 max);
        add_cause(causes, n, field, name, detail);
    }
}

void write_meta_check_name(const struct write_rules *r, const char *name,
                           bool prefix, const char *field,
                           struct write_cause *causes, size_t *n)
{
    char *masked = xstrdup(name);
    size_t len = strlen(masked);

    /* maskTrailingDash: a generateName may end in '-' */
    if (prefix && len > 1 && masked[len - 1] == '-')
        masked[len - 1] = 'a';
    switch (r->name) {
    case WRITE_NAME_SUBDOMAIN:
        check_length(field, name, 253, causes, n);
        if (!is_subdomain(masked))
            add_cause(causes, n, field, name,
                      "a lowercase RFC 1123 subdomain must consist of lower "
                      "case alphanumeric characters, '-' or '.', and must "
                      "start and end with an alphanumeric character (e.g. "
                      "'example.com', regex used for validation is "
                      "'" SUBDOMAIN_FMT "')");
        break;
    case WRITE_NAME_LABEL:
        check_length(field, name, 63, causes, n);
        if (!is_label(masked, strlen(masked)))
            add_cause(causes, n, field, name,
                      "a lowercase RFC 1123 label must consist of lower case "
                      "alphanumeric characters or '-', and must start and "
                      "end with an alphanumeric character (e.g. 'my-name',  "
                      "or '123-abc', regex used for validation is "
                      "'" LABEL_FMT "')");
        break;
    case WRITE_NAME_DNS1035:
        check_length(field, name, 63, causes, n);
        if (!is_label(masked, strlen(masked)) ||
            !(masked[0] >= 'a' && masked[0] <= 'z'))
            add_cause(causes, n, field, name,
                      "a DNS-1035 label must consist of lower case "
                      "alphanumeric characters or '-', start with an "
                      "alphabetic character, and end with an alphanumeric "
                      "character (e.g. 'my-name',  or 'abc-123', regex used "
                      "for validation is '" DNS1035_FMT "')");
        break;
    case WRITE_NAME_SEGMENT:
        if (!prefix && strcmp(name, ".") == 0)
            add_cause(causes, n, field, name, "may not be '.'");
        else if (!prefix && strcmp(name, "..") == 0)
            add_cause(causes, n, field, name, "may not be '..'");
        if (strchr(name, '/') != NULL)
            add_cause(causes, n, field, name, "may not contain '/'");
        if (strchr(name, '%') != NULL)
            add_cause(causes, n, field, name, "may not contain '%'");
        break;
    }
    if (r->name_max > 0 && !prefix)
        check_length(field, name, r->name_max, causes, n);
    free(masked);
}

/* ==== the body ==== */

/* The apiserver's summarizeData(body, 30): the text of an object, else
 * hex, "..." past 30 bytes. */
static void summarize(struct sbuf *b, const char *body, size_t len)
{
    size_t n = RW_MIN(len, 30);

    if (len == 0) {
        sbuf_add(b, "<empty>");
        return;
    }
    if (body[0] == '{')
        sbuf_addn(b, body, n);
    else
        for (size_t i = 0; i < n; i++)
            sbuf_addf(b, "%02x", (unsigned char)body[i]);
    if (len > n)
        sbuf_add(b, " ...");
}

/* The message of a body the decoder could not read (transformDecodeError
 * without a kind). */
static void unrecognized(const struct resource_type *rt, const char *body,
                         size_t len, const char *cause, char *why,
                         size_t why_len)
{
    struct sbuf b = {0};

    sbuf_addf(&b,
              "the object provided is unrecognized (must be of type %s): "
              "couldn't get version/kind; json parse error: %s (",
              rt->kind, cause);
    summarize(&b, body, len);
    sbuf_add(&b, ")");
    snprintf(why, why_len, "%s", b.data);
    sbuf_fini(&b);
}

/* The Go package of a group's internal types ("core" for the core
 * group): what the apiserver's conversion errors name. */
static void internal_package(const char *group, char *out, size_t n)
{
    size_t len = strcspn(group, ".");

    if (*group == '\0')
        snprintf(out, n, "core");
    else
        snprintf(out, n, "%.*s", (int)len, group);
}

/* A body of another kind or version: transformDecodeError with a kind. */
static void wrong_kind(const struct resource_type *rt, const char *kind,
                       const char *api_version, char *why, size_t why_len)
{
    const char *slash = strrchr(api_version, '/');
    const char *version = slash ? slash + 1 : api_version;
    const struct resource_type *all;
    char pkg[64];
    size_t n;

    internal_package(rt->group, pkg, sizeof(pkg));
    all = resource_type_all(&n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].api_version, api_version) == 0 &&
            strcmp(all[i].kind, kind) == 0) {
            snprintf(why, why_len,
                     "%s in version \"%s\" cannot be handled as a %s: "
                     "converting (%s.%s) to (%s.%s): unknown conversion",
                     kind, version, rt->kind, version, kind, pkg, rt->kind);
            return;
        }
    snprintf(why, why_len,
             "%s in version \"%s\" cannot be handled as a %s: no kind \"%s\" "
             "is registered for version \"%s\" in scheme "
             "\"pkg/api/legacyscheme/scheme.go:30\"",
             kind, version, rt->kind, kind, api_version);
}

/* A member that must be a string (or absent, or null); false otherwise. */
static bool string_member(const struct jval *obj, const char *name,
                          const char **out)
{
    const struct jval *v = jval_get(obj, name);

    *out = jval_str(v);
    return v == NULL || jval_type(v) == JVAL_STRING;
}

int write_meta_decode(const struct resource_type *rt, const char *body,
                      size_t len, struct write_body *out, char *why,
                      size_t why_len)
{
    struct kjson_scan_layout l;
    const struct jval *meta;
    const char *cause;
    char field[64];

    memset(out, 0, sizeof(*out));
    out->json = body;
    out->len = len;
    if (len == 0) {
        unrecognized(rt, body, len, "unexpected end of JSON input", why,
                     why_len);
        return 400;
    }
    if (!utf8_valid(body, len)) {
        unrecognized(rt, body, len, "invalid UTF-8 in the body", why,
                     why_len);
        return 400;
    }
    if (kjson_scan_layout((const unsigned char *)body, len, &l, &cause) !=
        RW_OK) {
        if (strncmp(cause, "duplicate ", 10) == 0)
            snprintf(why, why_len, "strict decoding error: duplicate field "
                                   "\"%s\"",
                     cause + 10);
        else
            unrecognized(rt, body, len,
                         strcmp(cause, "value is not a JSON object") == 0
                             ? "json: cannot unmarshal a value that is not "
                               "an object into Go value of type struct { "
                               "APIVersion string \"json:\\\"apiVersion,"
                               "omitempty\\\"\"; Kind string \"json:\\\"kind,"
                               "omitempty\\\"\" }"
                             : "invalid JSON",
                         why, why_len);
        return 400;
    }
    out->doc = jval_parse(body, len);
    if (!string_member(out->doc, "kind", &out->kind) ||
        !string_member(out->doc, "apiVersion", &out->api_version)) {
        unrecognized(rt, body, len,
                     "json: cannot unmarshal a non-string kind or apiVersion",
                     why, why_len);
        return 400;
    }
    if ((*out->kind && strcmp(out->kind, rt->kind) != 0) ||
        (*out->api_version && strcmp(out->api_version, rt->api_version) != 0)) {
        wrong_kind(rt, *out->kind ? out->kind : rt->kind,
                   *out->api_version ? out->api_version : rt->api_version, why,
                   why_len);
        return 400;
    }
    meta = jval_get(out->doc, "metadata");
    if (meta != NULL && !jval_is_object(meta)) {
        snprintf(why, why_len,
                 "%s in version \"%s\" cannot be handled as a %s: json: "
                 "cannot unmarshal metadata into Go struct field %s.metadata "
                 "of type v1.ObjectMeta",
                 rt->kind, rt->version, rt->kind, rt->kind);
        return 400;
    }
    static const char *const names[] = {"name", "namespace", "generateName",
                                        "uid", "resourceVersion"};
    const char **fields[] = {&out->name, &out->ns, &out->generate_name,
                             &out->uid, &out->resource_version};
    for (size_t i = 0; i < RW_ARRAY_LEN(names); i++)
        if (!string_member(meta, names[i], fields[i])) {
            snprintf(field, sizeof(field), "%s", names[i]);
            snprintf(why, why_len,
                     "%s in version \"%s\" cannot be handled as a %s: json: "
                     "cannot unmarshal into Go struct field ObjectMeta."
                     "metadata.%s of type string",
                     rt->kind, rt->version, rt->kind, field);
            return 400;
        }
    return 0;
}

void write_meta_body_fini(struct write_body *b)
{
    jval_free(b->doc);
    b->doc = NULL;
}

/* ==== rendering ==== */

/* One member of a validated object: its key token (quotes included) and
 * its value's bytes. */
struct member {
    size_t key, key_end, val, val_end;
};

static size_t skip_ws(const char *s, size_t i)
{
    while (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')
        i++;
    return i;
}

static size_t skip_string(const char *s, size_t i)
{
    for (i++; s[i] != '"'; i++)
        if (s[i] == '\\')
            i++;
    return i + 1;
}

static size_t skip_value(const char *s, size_t i)
{
    int depth = 0;

    if (s[i] == '"')
        return skip_string(s, i);
    if (s[i] != '{' && s[i] != '[') {
        while (!strchr(",}] \t\r\n", s[i]))
            i++;
        return i;
    }
    for (;;) {
        if (s[i] == '"') {
            i = skip_string(s, i);
            continue;
        }
        if (s[i] == '{' || s[i] == '[')
            depth++;
        else if (s[i] == '}' || s[i] == ']')
            if (--depth == 0)
                return i + 1;
        i++;
    }
}

/* The members of the object at s[open] ('{'): a malloc'd array of *n. */
static struct member *members(const char *s, size_t open, size_t *n)
{
    struct member *m = NULL;
    size_t i = skip_ws(s, open + 1), cap = 0;

    *n = 0;
    while (s[i] == '"') {
        if (*n == cap) {
            cap = cap ? cap * 2 : 16;
            m = xrealloc(m, cap * sizeof(*m));
        }
        m[*n].key = i;
        m[*n].key_end = skip_string(s, i);
        m[*n].val = skip_ws(s, skip_ws(s, m[*n].key_end) + 1);
        m[*n].val_end = skip_value(s, m[*n].val);
        i = skip_ws(s, m[*n].val_end);
        (*n)++;
        if (s[i] == ',')
            i = skip_ws(s, i + 1);
    }
    return m;
}

static bool key_is(const char *s, const struct member *m, const char *name)
{
    return kjson_scan_string_equals((const unsigned char *)s + m->key + 1,
                                    m->key_end - m->key - 2, name,
                                    strlen(name));
}

static bool key_in(const char *s, const struct member *m,
                   const char *const *names)
{
    for (; *names != NULL; names++)
        if (key_is(s, m, *names))
            return true;
    return false;
}

/* Appends the members of the object at s[open] whose names are not in
 * drop, each after a comma (the caller wrote at least one member). */
static void copy_members(struct sbuf *b, const char *s, size_t open,
                         const char *const *drop)
{
    size_t n;
    struct member *m = members(s, open, &n);

    for (size_t i = 0; i < n; i++) {
        if (key_in(s, &m[i], drop))
            continue;
        sbuf_add(b, ",");
        kjson_scan_compact(b, (const unsigned char *)s + m[i].key,
                           m[i].val_end - m[i].key);
    }
    free(m);
}

static void add_member(struct sbuf *b, const char *name, const char *value)
{
    sbuf_addf(b, ",\"%s\":", name);
    kjson_add_string(b, value);
}

char *write_meta_render(const struct resource_type *rt, const char *body,
                        size_t len, const struct write_stamp *st,
                        size_t *out_len)
{
    static const char *const top_drop[] = {"kind", "apiVersion", "metadata",
                                           NULL};
    static const char *const meta_drop[] = {
        "name",     "namespace",  "uid",
        "selfLink", "generation", "creationTimestamp",
        "resourceVersion", NULL};
    struct kjson_scan_layout l;
    const char *why;
    struct sbuf b = {0};

    (void)kjson_scan_layout((const unsigned char *)body, len, &l, &why);
    sbuf_add(&b, "{\"kind\":");
    kjson_add_string(&b, rt->kind);
    add_member(&b, "apiVersion", rt->api_version);
    sbuf_add(&b, ",\"metadata\":{\"name\":");
    kjson_add_string(&b, st->name);
    if (st->ns != NULL)
        add_member(&b, "namespace", st->ns);
    add_member(&b, "uid", st->uid);
    sbuf_addf(&b, ",\"generation\":%lld", (long long)st->generation);
    add_member(&b, "creationTimestamp", st->created);
    if (l.has_meta)
        copy_members(&b, body, l.meta.open, meta_drop);
    sbuf_add(&b, "}");
    copy_members(&b, body, l.top.open, top_drop);
    sbuf_add(&b, "}");
    *out_len = b.len;
    return b.data;
}

/* ==== generation ==== */

bool write_meta_spec_changed(const char *old_json, size_t old_len,
                             const char *new_json, size_t new_len)
{
    const char *why;
    struct jval *a = jval_edit_parse(old_json, old_len, &why);
    struct jval *b = jval_edit_parse(new_json, new_len, &why);
    bool changed = a == NULL || b == NULL;

    /* every member of either side but metadata and status (the parse kept
     * the last of each name, as Go's decoder) */
    for (int side = 0; side < 2 && !changed; side++) {
        struct jval *v = side == 0 ? a : b;

        jval_free(jval_edit_take(v, "metadata"));
        jval_free(jval_edit_take(v, "status"));
    }
    changed = changed || !jval_edit_equal(a, b);
    jval_free(a);
    jval_free(b);
    return changed;
}

/* ==== random names ==== */

static void random_bytes(void *p, size_t n)
{
    unsigned char *out = p;

    while (n > 0) {
        ssize_t got = getrandom(out, n, 0);

        if (got <= 0)
            continue; /* EINTR; the pool is never short after boot */
        out += got;
        n -= (size_t)got;
    }
}

void write_meta_uuid(char out[37])
{
    unsigned char u[16];

    random_bytes(u, sizeof(u));
    u[6] = (u[6] & 0x0f) | 0x40; /* version 4 */
    u[8] = (u[8] & 0x3f) | 0x80; /* RFC 4122 variant */
    snprintf(out, 37,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x"
             "%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
             u[11], u[12], u[13], u[14], u[15]);
}

void write_meta_timestamp(time_t t, char out[21])
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

char *write_meta_generate_name(const char *base)
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    unsigned char r[5];
    char suffix[6];

    random_bytes(r, sizeof(r));
    for (size_t i = 0; i < 5; i++)
        suffix[i] = alphabet[r[i] % (sizeof(alphabet) - 1)];
    suffix[5] = '\0';
    return xasprintf("%.58s%s", base, suffix);
}
