/*
 * review.c: SelfSubjectAccessReview and SelfSubjectReview (see review.h).
 * Bodies are validated strictly (kjson_scan) and read through jval; the
 * answers are written by hand, as the apiserver encodes the objects
 * (members in its field order, empty ones omitted).
 */
#include "src/review.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/utf8.h"
#include "proto/jval.h"
#include "proto/kjson.h"
#include "proto/kjson_scan.h"
#include "src/status.h"

/* The authorizer (src/authz.c) is the RBAC module's, merged separately:
 * until it is linked in, no router has one (cfg.authz NULL) and this is
 * never called.  (For the lead: drop this line once authz.c is in.) */
#pragma weak authz_authorize

/* What a review endpoint decodes. */
struct review_kind {
    const char *kind;        /* "SelfSubjectAccessReview" */
    const char *group;       /* "authorization.k8s.io" */
    const char *api_version; /* "authorization.k8s.io/v1" */
};

static const struct review_kind access_kind = {
    "SelfSubjectAccessReview", "authorization.k8s.io",
    "authorization.k8s.io/v1"};
static const struct review_kind self_kind = {
    "SelfSubjectReview", "authentication.k8s.io", "authentication.k8s.io/v1"};

bool review_path(const char *path)
{
    return strcmp(path, REVIEW_ACCESS_PATH) == 0 ||
           strcmp(path, REVIEW_SELF_PATH) == 0;
}

/* ---- decoding ---- */

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

/* A JSON type as Go's decoder names it in its errors. */
static const char *go_type(const struct jval *v)
{
    switch (jval_type(v)) {
    case JVAL_FALSE:
    case JVAL_TRUE:
        return "bool";
    case JVAL_NUMBER:
        return "number";
    case JVAL_STRING:
        return "string";
    case JVAL_ARRAY:
        return "array";
    default:
        return "object";
    }
}

/* Whether content_type is JSON or absent (the apiserver's default). */
static bool json_media_type(const char *content_type)
{
    size_t len = strcspn(content_type, ";");

    while (len > 0 && (content_type[len - 1] == ' ' ||
                       content_type[len - 1] == '\t'))
        len--;
    return len == 0 || (len == 16 && strncasecmp(content_type,
                                                 "application/json", 16) == 0);
}

/* The type check of kind and apiVersion, then whether they are the
 * endpoint's (empty: defaulted, as the create handler's defaultGVK). */
static int check_kind(const struct jval *root, const struct review_kind *k,
                      struct review_error *err)
{
    const struct jval *kind = jval_get(root, "kind");
    const struct jval *av = jval_get(root, "apiVersion");
    const char *kind_s, *av_s, *version;

    if ((kind != NULL && jval_type(kind) != JVAL_STRING) ||
        (av != NULL && jval_type(av) != JVAL_STRING))
        return fail(err, 400, "BadRequest",
                    "couldn't get version/kind; json parse error: json: "
                    "cannot unmarshal %s into Go struct field .%s of type "
                    "string",
                    go_type(kind != NULL && jval_type(kind) != JVAL_STRING
                                ? kind
                                : av),
                    kind != NULL && jval_type(kind) != JVAL_STRING
                        ? "kind"
                        : "apiVersion");
    kind_s = jval_str(kind);
    av_s = *jval_str(av) ? jval_str(av) : k->api_version;
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

/* Parses body as one JSON object of kind k into *root (jval_free). */
static int decode(const char *body, size_t len, const char *content_type,
                  const struct review_kind *k, struct jval **root,
                  struct review_error *err)
{
    struct kjson_scan_layout l;
    const char *why = NULL;
    char *copy = NULL;

    *root = NULL;
    if (!json_media_type(content_type))
        return fail(err, 415, "UnsupportedMediaType",
                    "the body of the request was in an unknown format - "
                    "accepted media types include: application/json");
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
 * is its Go path ("SelfSubjectAccessReview.spec"), type its Go type. */
static int wrong_type(const struct jval *v, const char *field,
                      const char *type, struct review_error *err)
{
    return fail(err, 400, "BadRequest",
                "%s in version \"v1\" cannot be handled as a %s: json: "
                "cannot unmarshal %s into Go struct field %s of type %s",
                access_kind.kind, access_kind.kind, go_type(v), field, type);
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
static int get_object(const struct jval *v, const char *name,
                      const char *field, const char *type,
                      const struct jval **out, struct review_error *err)
{
    const struct jval *m = jval_get(v, name);

    *out = NULL;
    if (m != NULL && jval_type(m) != JVAL_OBJECT)
        return wrong_type(m, field, type, err);
    *out = m;
    return RW_OK;
}

/* 422 Invalid as the apiserver's ValidateSelfSubjectAccessReviewSpec. */
static int invalid_spec(struct review_error *err, const char *field,
                        const char *detail)
{
    return fail(err, 422, "Invalid",
                "%s.%s \"\" is invalid: %s: Invalid value: \"null\": %s",
                access_kind.kind, access_kind.group, field, detail);
}

int review_decode_access(const char *body, size_t len,
                         const char *content_type, struct review_access *a,
                         struct review_error *err)
{
    static const char ra[] = "SelfSubjectAccessReview.spec.resourceAttributes";
    static const char na[] =
        "SelfSubjectAccessReview.spec.nonResourceAttributes";
    const struct jval *spec, *res, *non;
    struct jval *root;
    int rc;

    memset(a, 0, sizeof(*a));
    if (decode(body, len, content_type, &access_kind, &root, err) != RW_OK)
        return RW_EINVAL;
    rc = get_object(root, "spec", "SelfSubjectAccessReview.spec",
                    "v1.SelfSubjectAccessReviewSpec", &spec, err);
    if (rc == RW_OK)
        rc = get_object(spec, "resourceAttributes", ra,
                        "v1.ResourceAttributes", &res, err);
    if (rc == RW_OK)
        rc = get_object(spec, "nonResourceAttributes", na,
                        "v1.NonResourceAttributes", &non, err);
    if (rc == RW_OK && res != NULL && non != NULL)
        rc = invalid_spec(err, "spec.nonResourceAttributes",
                          "cannot be specified in combination with "
                          "resourceAttributes");
    else if (rc == RW_OK && res == NULL && non == NULL)
        rc = invalid_spec(err, "spec.resourceAttributes",
                          "exactly one of nonResourceAttributes or "
                          "resourceAttributes must be specified");
    a->resource_request = res != NULL;
    if (rc == RW_OK && res != NULL) {
        struct {
            const char *name;
            char **out;
        } f[] = {{"namespace", &a->ns},     {"verb", &a->verb},
                 {"group", &a->group},      {"version", &a->version},
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
    if (rc != RW_OK)
        review_access_fini(a);
    return rc;
}

void review_access_fini(struct review_access *a)
{
    char **f[] = {&a->ns,       &a->verb,        &a->group, &a->version,
                  &a->resource, &a->subresource, &a->name,  &a->path};

    for (size_t i = 0; i < RW_ARRAY_LEN(f); i++) {
        free(*f[i]);
        *f[i] = NULL;
    }
}

int review_decode_self(const char *body, size_t len, const char *content_type,
                       struct review_error *err)
{
    struct jval *root;

    if (decode(body, len, content_type, &self_kind, &root, err) != RW_OK)
        return RW_EINVAL;
    jval_free(root);
    return RW_OK;
}

/* ---- answering ---- */

/* ,"key":"value" when value is not empty (omitempty). */
static void add_nonempty(struct sbuf *sb, bool *comma, const char *key,
                         const char *value)
{
    if (value == NULL || *value == '\0')
        return;
    sbuf_addf(sb, "%s\"%s\":", *comma ? "," : "", key);
    kjson_add_string(sb, value);
    *comma = true;
}

static void respond_created(struct stream *s, struct sbuf *sb)
{
    struct rbuf *b = rbuf_from(sb->data, sb->len);

    sbuf_fini(sb);
    stream_respond(s, 201, "application/json", b);
    rbuf_unref(b);
}

static void respond_error(struct stream *s, const struct review_error *err)
{
    status_respond(s, err->code, err->reason, "%s", err->message);
}

static void answer_access(struct stream *s, struct authz *z,
                          const struct identity *id)
{
    const struct request *req = stream_request(s);
    struct authz_attributes at = {0};
    struct review_access a;
    struct review_error err;
    struct sbuf sb = {0};
    const char *body;
    char reason[512] = "";
    bool allowed = true, comma = false;
    size_t len;

    body = stream_body(s, &len);
    if (review_decode_access(body, len, req->content_type, &a, &err) !=
        RW_OK) {
        respond_error(s, &err);
        return;
    }
    at = (struct authz_attributes){
        .verb = a.verb,
        .resource_request = a.resource_request,
        .api_group = a.resource_request ? a.group : "",
        .api_version = a.resource_request ? a.version : "",
        .resource = a.resource_request ? a.resource : "",
        .subresource = a.resource_request ? a.subresource : "",
        .ns = a.resource_request ? a.ns : "",
        .name = a.resource_request ? a.name : "",
        .path = a.resource_request ? "" : a.path,
    };
    if (z != NULL)
        allowed = authz_authorize(z, id, &at, reason, sizeof(reason)) ==
                  AUTHZ_ALLOW;
    sbuf_add(&sb, "{\"kind\":\"SelfSubjectAccessReview\",\"apiVersion\":"
                  "\"authorization.k8s.io/v1\",\"metadata\":"
                  "{\"creationTimestamp\":null},\"spec\":{");
    if (a.resource_request) {
        sbuf_add(&sb, "\"resourceAttributes\":{");
        add_nonempty(&sb, &comma, "namespace", a.ns);
        add_nonempty(&sb, &comma, "verb", a.verb);
        add_nonempty(&sb, &comma, "group", a.group);
        add_nonempty(&sb, &comma, "version", a.version);
        add_nonempty(&sb, &comma, "resource", a.resource);
        add_nonempty(&sb, &comma, "subresource", a.subresource);
        add_nonempty(&sb, &comma, "name", a.name);
    } else {
        sbuf_add(&sb, "\"nonResourceAttributes\":{");
        add_nonempty(&sb, &comma, "path", a.path);
        add_nonempty(&sb, &comma, "verb", a.verb);
    }
    sbuf_addf(&sb, "}},\"status\":{\"allowed\":%s",
              allowed ? "true" : "false");
    comma = true;
    add_nonempty(&sb, &comma, "reason", reason);
    sbuf_add(&sb, "}}");
    review_access_fini(&a);
    respond_created(s, &sb);
}

static void answer_self(struct stream *s, const struct identity *id)
{
    const struct request *req = stream_request(s);
    struct review_error err;
    struct sbuf sb = {0};
    bool comma = true;
    const char *body;
    size_t len;

    body = stream_body(s, &len);
    if (review_decode_self(body, len, req->content_type, &err) != RW_OK) {
        respond_error(s, &err);
        return;
    }
    sbuf_add(&sb, "{\"kind\":\"SelfSubjectReview\",\"apiVersion\":"
                  "\"authentication.k8s.io/v1\",\"metadata\":"
                  "{\"creationTimestamp\":null},\"status\":{\"userInfo\":{"
                  "\"username\":");
    kjson_add_string(&sb, id->name);
    add_nonempty(&sb, &comma, "uid", id->uid);
    if (id->ngroups > 0) {
        sbuf_add(&sb, ",\"groups\":[");
        for (size_t i = 0; i < id->ngroups; i++) {
            if (i > 0)
                sbuf_add(&sb, ",");
            kjson_add_string(&sb, id->groups[i]);
        }
        sbuf_add(&sb, "]");
    }
    sbuf_add(&sb, "}}}");
    respond_created(s, &sb);
}

void review_handle(struct stream *s, struct authz *z,
                   const struct identity *id)
{
    if (strcmp(stream_request(s)->path, REVIEW_ACCESS_PATH) == 0)
        answer_access(s, z, id);
    else
        answer_self(s, id);
}
