/*
 * review_body.c: decoding the review endpoints' bodies (see
 * review_body.h).  JSON is validated strictly (kjson_scan) and read
 * through jval; protobuf is read by a small wire-format reader here (the
 * messages are a handful of strings and nested messages).
 */
#include "src/review_body.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"
#include "cache/utf8.h"
#include "proto/jval.h"
#include "proto/kjson_scan.h"

/* What a review endpoint decodes. */
struct review_kind {
    const char *kind;        /* "SelfSubjectAccessReview" */
    const char *group;       /* "authorization.k8s.io" */
    const char *api_version; /* "authorization.k8s.io/v1" */
};

static const struct review_kind access_kind = {"SelfSubjectAccessReview",
                                               "authorization.k8s.io",
                                               "authorization.k8s.io/v1"};
static const struct review_kind rules_kind = {"SelfSubjectRulesReview",
                                              "authorization.k8s.io",
                                              "authorization.k8s.io/v1"};
static const struct review_kind self_kind = {
    "SelfSubjectReview", "authentication.k8s.io", "authentication.k8s.io/v1"};

/* ---- both encodings ---- */

static int fail(struct review_error *err, int code, const char *reason,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(struct review_error *err, int code, const char *reason,
                const char *fmt, ...)
{
    va_list ap;

    err->code = code;
    err->reason = reason;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    return RW_EINVAL;
}

enum media {
    MEDIA_JSON,
    MEDIA_PROTOBUF,
    MEDIA_OTHER,
};

/* The body's encoding by its Content-Type (none: JSON, the apiserver's
 * default); parameters are ignored. */
static enum media media_of(const char *content_type)
{
    static const char pb[] = "application/vnd.kubernetes.protobuf";
    size_t len = strcspn(content_type, ";");

    while (len > 0 &&
           (content_type[len - 1] == ' ' || content_type[len - 1] == '\t'))
        len--;
    if (len == 0 ||
        (len == 16 && strncasecmp(content_type, "application/json", 16) == 0))
        return MEDIA_JSON;
    if (len == sizeof(pb) - 1 && strncasecmp(content_type, pb, len) == 0)
        return MEDIA_PROTOBUF;
    return MEDIA_OTHER;
}

/* Whether kind and apiVersion (as sent; "" when absent) are the
 * endpoint's (empty: defaulted, as the create handler's defaultGVK). */
static int check_names(const char *kind_s, const char *av_s,
                       const struct review_kind *k, struct review_error *err)
{
    const char *version;

    if (*av_s == '\0')
        av_s = k->api_version;
    if (strcmp(av_s, k->api_version) != 0)
        return fail(err, 400, "BadRequest",
                    "the API version in the data (%s) does not match the "
                    "expected API version (%s)",
                    av_s, k->api_version);
    if (*kind_s != '\0' && strcmp(kind_s, k->kind) != 0) {
        version = strchr(av_s, '/') + 1;
        return fail(err, 400, "BadRequest",
                    "%s in version \"%s\" cannot be handled as a %s: no kind "
                    "\"%s\" is registered for version \"%s\"",
                    kind_s, version, k->kind, kind_s, av_s);
    }
    return RW_OK;
}

/* ---- JSON ---- */

/* The type check of kind and apiVersion, then check_names. */
static int check_kind(const struct jval *root, const struct review_kind *k,
                      struct review_error *err)
{
    const struct jval *kind = jval_get(root, "kind");
    const struct jval *av = jval_get(root, "apiVersion");
    bool bad_kind = kind != NULL && jval_type(kind) != JVAL_STRING;

    if (bad_kind || (av != NULL && jval_type(av) != JVAL_STRING))
        return fail(err, 400, "BadRequest",
                    "couldn't get version/kind; json parse error: json: "
                    "cannot unmarshal %s into Go struct field .%s of type "
                    "string",
                    jval_go_type(bad_kind ? kind : av),
                    bad_kind ? "kind" : "apiVersion");
    return check_names(jval_str(kind), jval_str(av), k, err);
}

/* Parses body as one JSON object of kind k into *root (jval_free). */
static int json_decode(const char *body, size_t len,
                       const struct review_kind *k, struct jval **root,
                       struct review_error *err)
{
    struct kjson_scan_layout l;
    const char *why = NULL;
    char *copy = NULL;

    *root = NULL;
    if (body == NULL || len == 0)
        return fail(err, 400, "BadRequest",
                    "couldn't get version/kind; json parse error: "
                    "unexpected end of JSON input");
    if (!utf8_valid(body, len))
        why = "invalid UTF-8";
    else if (kjson_scan_layout((const unsigned char *)body, len, &l, &why) !=
             RW_OK)
        why = why != NULL ? why : "value is not JSON";
    if (why != NULL)
        return fail(err, 400, "BadRequest",
                    "couldn't get version/kind; json parse error: %s", why);
    if (l.patch)
        copy = kjson_scan_patched_copy((const unsigned char *)body, len);
    *root = jval_parse(copy != NULL ? copy : body, len);
    free(copy);
    if (check_kind(*root, k, err) != RW_OK) {
        jval_free(*root);
        *root = NULL;
        return RW_EINVAL;
    }
    return RW_OK;
}

/* Go's "cannot be handled as" error of a field of the wrong type: field
 * is its Go path ("SelfSubjectAccessReview.spec"), type its Go type, the
 * object's kind the first word of field. */
static int wrong_type(const struct jval *v, const char *field, const char *type,
                      struct review_error *err)
{
    int kind_len = (int)strcspn(field, ".");

    return fail(err, 400, "BadRequest",
                "%.*s in version \"v1\" cannot be handled as a %.*s: json: "
                "cannot unmarshal %s into Go struct field %s of type %s",
                kind_len, field, kind_len, field, jval_go_type(v), field, type);
}

/* Member name of object v as a string ("" when absent or null); a
 * copy in *out. */
static int get_string(const struct jval *v, const char *name,
                      const char *go_struct, char **out,
                      struct review_error *err)
{
    const struct jval *m = jval_get(v, name);
    char field[160];

    if (m != NULL && jval_type(m) != JVAL_STRING) {
        snprintf(field, sizeof(field), "%s.%s", go_struct, name);
        return wrong_type(m, field, "string", err);
    }
    *out = xstrdup(jval_str(m));
    return RW_OK;
}

/* Member name of object v as an object (NULL when absent or null). */
static int get_object(const struct jval *v, const char *name, const char *field,
                      const char *type, const struct jval **out,
                      struct review_error *err)
{
    const struct jval *m = jval_get(v, name);

    *out = NULL;
    if (m != NULL && jval_type(m) != JVAL_OBJECT)
        return wrong_type(m, field, type, err);
    *out = m;
    return RW_OK;
}

/* Exactly one of the attributes, as the apiserver's
 * ValidateSelfSubjectAccessReviewSpec: 422 Invalid otherwise. */
static int check_spec(bool res, bool non, struct review_error *err)
{
    const char *field = "spec.nonResourceAttributes";
    const char *detail =
        "cannot be specified in combination with resourceAttributes";

    if (res != non)
        return RW_OK;
    if (!res) {
        field = "spec.resourceAttributes";
        detail = "exactly one of nonResourceAttributes or "
                 "resourceAttributes must be specified";
    }
    return fail(err, 422, "Invalid",
                "%s.%s \"\" is invalid: %s: Invalid value: \"null\": %s",
                access_kind.kind, access_kind.group, field, detail);
}

static int json_access(const char *body, size_t len, struct review_access *a,
                       struct review_error *err)
{
    static const char ra[] = "SelfSubjectAccessReview.spec.resourceAttributes";
    static const char na[] =
        "SelfSubjectAccessReview.spec.nonResourceAttributes";
    const struct jval *spec = NULL, *res = NULL, *non = NULL;
    struct jval *root;
    int rc;

    if (json_decode(body, len, &access_kind, &root, err) != RW_OK)
        return RW_EINVAL;
    rc = get_object(root, "spec", "SelfSubjectAccessReview.spec",
                    "v1.SelfSubjectAccessReviewSpec", &spec, err);
    if (rc == RW_OK)
        rc = get_object(spec, "resourceAttributes", ra, "v1.ResourceAttributes",
                        &res, err);
    if (rc == RW_OK)
        rc = get_object(spec, "nonResourceAttributes", na,
                        "v1.NonResourceAttributes", &non, err);
    if (rc == RW_OK)
        rc = check_spec(res != NULL, non != NULL, err);
    a->resource_request = res != NULL;
    if (rc == RW_OK && res != NULL) {
        struct {
            const char *name;
            char **out;
        } f[] = {{"namespace", &a->ns},      {"verb", &a->verb},
                 {"group", &a->group},       {"version", &a->version},
                 {"resource", &a->resource}, {"subresource", &a->subresource},
                 {"name", &a->name}};

        for (size_t i = 0; rc == RW_OK && i < RW_ARRAY_LEN(f); i++)
            rc = get_string(res, f[i].name, ra, f[i].out, err);
    } else if (rc == RW_OK) {
        rc = get_string(non, "path", na, &a->path, err);
        if (rc == RW_OK)
            rc = get_string(non, "verb", na, &a->verb, err);
    }
    jval_free(root);
    return rc;
}

void review_body_access_fini(struct review_access *a)
{
    char **f[] = {&a->ns,       &a->verb,        &a->group, &a->version,
                  &a->resource, &a->subresource, &a->name,  &a->path};

    for (size_t i = 0; i < RW_ARRAY_LEN(f); i++) {
        free(*f[i]);
        *f[i] = NULL;
    }
}

static int json_rules(const char *body, size_t len, char **ns,
                      struct review_error *err)
{
    const struct jval *spec;
    struct jval *root;
    int rc;

    if (json_decode(body, len, &rules_kind, &root, err) != RW_OK)
        return RW_EINVAL;
    rc = get_object(root, "spec", "SelfSubjectRulesReview.spec",
                    "v1.SelfSubjectRulesReviewSpec", &spec, err);
    if (rc == RW_OK)
        rc = get_string(spec, "namespace", "SelfSubjectRulesReview.spec", ns,
                        err);
    jval_free(root);
    return rc;
}

static int json_self(const char *body, size_t len, struct review_error *err)
{
    struct jval *root;

    if (json_decode(body, len, &self_kind, &root, err) != RW_OK)
        return RW_EINVAL;
    jval_free(root);
    return RW_OK;
}

/* ---- protobuf ---- */

/* A protobuf message being read: the bytes left. */
struct pb {
    const uint8_t *p, *end;
};

/* One field of a message: its number, wire type and, for a length-
 * delimited one (wire type 2), its bytes. */
struct pb_field {
    uint64_t num;
    int wire;
    struct pb bytes;
};

#define PB_EOF "unexpected EOF"

static int pb_varint(struct pb *b, uint64_t *v, const char **why)
{
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (b->p == b->end) {
            *why = PB_EOF;
            return RW_EINVAL;
        }
        *v |= (uint64_t)(*b->p & 0x7f) << shift;
        if ((*b->p++ & 0x80) == 0)
            return RW_OK;
    }
    *why = "integer overflow";
    return RW_EINVAL;
}

/* Reads the next field of b into *f (skipping its value unless it is
 * length-delimited).  RW_OK; RW_ENOTFOUND at the end of b; RW_EINVAL with
 * *why (Go's proto error words). */
static int pb_next(struct pb *b, struct pb_field *f, const char **why)
{
    uint64_t key, len;
    size_t skip = 0;

    if (b->p == b->end)
        return RW_ENOTFOUND;
    if (pb_varint(b, &key, why) != RW_OK)
        return RW_EINVAL;
    f->num = key >> 3;
    f->wire = (int)(key & 7);
    if (f->num == 0) {
        *why = "illegal tag 0";
        return RW_EINVAL;
    }
    switch (f->wire) {
    case 0:
        return pb_varint(b, &len, why);
    case 1:
        skip = 8;
        break;
    case 2:
        if (pb_varint(b, &len, why) != RW_OK)
            return RW_EINVAL;
        if (len > (uint64_t)(b->end - b->p)) {
            *why = PB_EOF;
            return RW_EINVAL;
        }
        f->bytes = (struct pb){b->p, b->p + len};
        b->p += len;
        return RW_OK;
    case 5:
        skip = 4;
        break;
    default:
        *why = "illegal wireType";
        return RW_EINVAL;
    }
    if (skip > (size_t)(b->end - b->p)) {
        *why = PB_EOF;
        return RW_EINVAL;
    }
    b->p += skip;
    return RW_OK;
}

/* A string field's copy (the last occurrence wins, as Go's decoder); a
 * NUL inside is refused, as it cannot be held in a C string. */
static int pb_string(const struct pb_field *f, char **out, const char **why)
{
    size_t len = (size_t)(f->bytes.end - f->bytes.p);

    if (f->wire != 2 || memchr(f->bytes.p, '\0', len) != NULL) {
        *why = f->wire != 2 ? "wrong wireType for a string" : "NUL in a string";
        return RW_EINVAL;
    }
    free(*out);
    *out = xmalloc(len + 1);
    memcpy(*out, f->bytes.p, len);
    (*out)[len] = '\0';
    return RW_OK;
}

/* Reads the string fields of message b numbered 1..n into out[0..n). */
static int pb_strings(struct pb b, char **out[], size_t n, const char **why)
{
    struct pb_field f;
    int rc;

    while ((rc = pb_next(&b, &f, why)) == RW_OK)
        if (f.num >= 1 && f.num <= n &&
            pb_string(&f, out[f.num - 1], why) != RW_OK)
            return RW_EINVAL;
    return rc == RW_ENOTFOUND ? RW_OK : RW_EINVAL;
}

/* A message of kind k that does not decode: 400, Go's proto words. */
static int pb_fail(const struct review_kind *k, const char *why,
                   struct review_error *err)
{
    return fail(err, 400, "BadRequest",
                "%s in version \"v1\" cannot be handled as a %s: proto: %s",
                k->kind, k->kind, why);
}

/* The runtime.Unknown envelope of a protobuf body: the magic, typeMeta
 * checked against k, and *raw the object's message. */
static int pb_envelope(const char *body, size_t len,
                       const struct review_kind *k, struct pb *raw,
                       struct review_error *err)
{
    static const char magic[4] = {'k', '8', 's', 0};
    struct pb b = {(const uint8_t *)body, (const uint8_t *)body + len};
    char *av = NULL, *kind = NULL;
    char **names[] = {&av, &kind};
    const char *why = NULL;
    struct pb_field f;
    int rc;

    *raw = (struct pb){NULL, NULL};
    if (body == NULL || len < 4 || memcmp(body, magic, 4) != 0)
        return fail(err, 400, "BadRequest",
                    "provided data does not appear to be a protobuf "
                    "message, expected prefix [107 56 115 0]");
    b.p += 4;
    while ((rc = pb_next(&b, &f, &why)) == RW_OK) {
        if (f.num == 1 && f.wire == 2)
            rc = pb_strings(f.bytes, names, 2, &why);
        else if (f.num == 2 && f.wire == 2)
            *raw = f.bytes;
        if (rc != RW_OK)
            break;
    }
    if (rc == RW_ENOTFOUND)
        rc = check_names(kind ? kind : "", av ? av : "", k, err);
    else
        rc = pb_fail(k, why, err);
    free(av);
    free(kind);
    return rc;
}

static int pb_access(const char *body, size_t len, struct review_access *a,
                     struct review_error *err)
{
    char **res[] = {&a->ns,       &a->verb,        &a->group, &a->version,
                    &a->resource, &a->subresource, &a->name};
    char **non[] = {&a->path, &a->verb};
    bool has_res = false, has_non = false;
    const char *why = NULL;
    struct pb raw, spec = {NULL, NULL};
    struct pb_field f;
    int rc;

    if (pb_envelope(body, len, &access_kind, &raw, err) != RW_OK)
        return RW_EINVAL;
    while ((rc = pb_next(&raw, &f, &why)) == RW_OK)
        if (f.num == 2 && f.wire == 2)
            spec = f.bytes;
    while (rc == RW_ENOTFOUND && spec.p != NULL &&
           (rc = pb_next(&spec, &f, &why)) == RW_OK) {
        if (f.wire != 2 || (f.num != 1 && f.num != 2))
            continue;
        if (f.num == 1)
            has_res = true;
        else
            has_non = true;
        /* the verb of the other one may be read too: check_spec refuses
         * both together */
        rc = f.num == 1 ? pb_strings(f.bytes, res, RW_ARRAY_LEN(res), &why)
                        : pb_strings(f.bytes, non, RW_ARRAY_LEN(non), &why);
    }
    if (rc != RW_ENOTFOUND && rc != RW_OK)
        return pb_fail(&access_kind, why, err);
    a->resource_request = has_res;
    return check_spec(has_res, has_non, err);
}

/* SelfSubjectRulesReview {metadata 1, spec 2, status 3}, its spec
 * {namespace 1} (authorization/v1 generated.proto). */
static int pb_rules(const char *body, size_t len, char **ns,
                    struct review_error *err)
{
    char **fields[] = {ns};
    const char *why = NULL;
    struct pb raw, spec = {NULL, NULL};
    struct pb_field f;
    int rc;

    if (pb_envelope(body, len, &rules_kind, &raw, err) != RW_OK)
        return RW_EINVAL;
    while ((rc = pb_next(&raw, &f, &why)) == RW_OK)
        if (f.num == 2 && f.wire == 2)
            spec = f.bytes;
    if (rc == RW_ENOTFOUND && spec.p != NULL)
        rc = pb_strings(spec, fields, 1, &why) == RW_OK ? RW_ENOTFOUND
                                                        : RW_EINVAL;
    return rc == RW_ENOTFOUND ? RW_OK : pb_fail(&rules_kind, why, err);
}

/* ---- the interface ---- */

/* Every string of a "" when it was not given. */
static void access_fill(struct review_access *a)
{
    char **f[] = {&a->ns,       &a->verb,        &a->group, &a->version,
                  &a->resource, &a->subresource, &a->name,  &a->path};

    for (size_t i = 0; i < RW_ARRAY_LEN(f); i++)
        if (*f[i] == NULL)
            *f[i] = xstrdup("");
}

static int unsupported(struct review_error *err)
{
    return fail(err, 415, "UnsupportedMediaType",
                "the body of the request was in an unknown format - "
                "accepted media types include: application/json, "
                "application/vnd.kubernetes.protobuf");
}

int review_body_decode_access(const char *body, size_t len,
                              const char *content_type, struct review_access *a,
                              struct review_error *err)
{
    enum media m = media_of(content_type);
    int rc;

    memset(a, 0, sizeof(*a));
    if (m == MEDIA_OTHER)
        return unsupported(err);
    rc = m == MEDIA_JSON ? json_access(body, len, a, err)
                         : pb_access(body, len, a, err);
    if (rc != RW_OK) {
        review_body_access_fini(a);
        return rc;
    }
    access_fill(a);
    return RW_OK;
}

int review_body_decode_rules(const char *body, size_t len,
                             const char *content_type, char **ns,
                             struct review_error *err)
{
    enum media m = media_of(content_type);
    int rc;

    *ns = NULL;
    if (m == MEDIA_OTHER)
        return unsupported(err);
    rc = m == MEDIA_JSON ? json_rules(body, len, ns, err)
                         : pb_rules(body, len, ns, err);
    if (rc != RW_OK) {
        free(*ns);
        *ns = NULL;
        return rc;
    }
    if (*ns == NULL)
        *ns = xstrdup("");
    return RW_OK;
}

int review_body_decode_self(const char *body, size_t len,
                            const char *content_type, struct review_error *err)
{
    enum media m = media_of(content_type);
    struct pb raw;

    if (m == MEDIA_OTHER)
        return unsupported(err);
    if (m == MEDIA_JSON)
        return json_self(body, len, err);
    return pb_envelope(body, len, &self_kind, &raw, err);
}
