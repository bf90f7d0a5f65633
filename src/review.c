/*
 * review.c: SelfSubjectAccessReview, SelfSubjectRulesReview and
 * SelfSubjectReview (see review.h).
 * Bodies are decoded by review_body.c; the answers are written by hand, as the
 * apiserver encodes the objects (members in its field order, empty ones
 * omitted).
 */
#include "src/review.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/kjson.h"
#include "src/review_body.h"
#include "src/status.h"

static const struct resource_type access_type = {
    .resource = "selfsubjectaccessreviews",
    .singular = "selfsubjectaccessreview",
    .kind = "SelfSubjectAccessReview",
    .group = "authorization.k8s.io",
    .version = "v1",
    .api_version = "authorization.k8s.io/v1",
    .indexed_field = -1, /* no key_prefix: not stored, only created */
};
static const struct resource_type rules_type = {
    .resource = "selfsubjectrulesreviews",
    .singular = "selfsubjectrulesreview",
    .kind = "SelfSubjectRulesReview",
    .group = "authorization.k8s.io",
    .version = "v1",
    .api_version = "authorization.k8s.io/v1",
    .indexed_field = -1, /* no key_prefix: not stored, only created */
};
static const struct resource_type self_type = {
    .resource = "selfsubjectreviews",
    .singular = "selfsubjectreview",
    .kind = "SelfSubjectReview",
    .group = "authentication.k8s.io",
    .version = "v1",
    .api_version = "authentication.k8s.io/v1",
    .indexed_field = -1, /* no key_prefix: not stored, only created */
};

const struct resource_type *const *review_types(size_t *n)
{
    static const struct resource_type *const types[] = {
        &access_type, &rules_type, &self_type};

    *n = RW_ARRAY_LEN(types);
    return types;
}

bool review_path(const char *path)
{
    return strcmp(path, REVIEW_ACCESS_PATH) == 0 ||
           strcmp(path, REVIEW_RULES_PATH) == 0 ||
           strcmp(path, REVIEW_SELF_PATH) == 0;
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
    char reason[AUTHZ_REASON_MAX] = "";
    bool allowed = true, comma = false;
    size_t len;

    body = stream_body(s, &len);
    if (review_body_decode_access(body, len, req->content_type, &a, &err) !=
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
        allowed =
            authz_authorize(z, id, &at, reason, sizeof(reason)) == AUTHZ_ALLOW;
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
    sbuf_addf(&sb, "}},\"status\":{\"allowed\":%s", allowed ? "true" : "false");
    comma = true;
    add_nonempty(&sb, &comma, "reason", reason);
    sbuf_add(&sb, "}}");
    review_body_access_fini(&a);
    respond_created(s, &sb);
}

/* The rules' two lists being written (SubjectRulesReviewStatus). */
struct rules_out {
    struct sbuf res, non; /* the members of each array */
};

/* "key":[...] of s, after a comma unless first; omitted when empty and
 * omitempty. */
static void add_strings(struct sbuf *sb, const char *key,
                        const struct rbac_strings *s, bool first,
                        bool omitempty)
{
    if (s->n == 0 && omitempty)
        return;
    sbuf_addf(sb, "%s\"%s\":[", first ? "" : ",", key);
    for (size_t i = 0; i < s->n; i++) {
        if (i > 0)
            sbuf_add(sb, ",");
        kjson_add_string(sb, s->v[i]);
    }
    sbuf_add(sb, "]");
}

/* A PolicyRule as RBAC's RulesFor splits it: a ResourceRule when it names
 * resources, a NonResourceRule when it names nonResourceURLs (both, or
 * neither, may be). */
static void rules_add_cb(const struct rbac_rule *r, void *arg)
{
    struct rules_out *o = arg;

    if (r->resources.n > 0) {
        sbuf_add(&o->res, o->res.len > 0 ? ",{" : "{");
        add_strings(&o->res, "verbs", &r->verbs, true, false);
        add_strings(&o->res, "apiGroups", &r->api_groups, false, true);
        add_strings(&o->res, "resources", &r->resources, false, true);
        add_strings(&o->res, "resourceNames", &r->resource_names, false, true);
        sbuf_add(&o->res, "}");
    }
    if (r->non_resource_urls.n > 0) {
        sbuf_add(&o->non, o->non.len > 0 ? ",{" : "{");
        add_strings(&o->non, "verbs", &r->verbs, true, false);
        add_strings(&o->non, "nonResourceURLs", &r->non_resource_urls, false,
                    true);
        sbuf_add(&o->non, "}");
    }
}

/* As the apiserver's selfsubjectrulesreview REST Create: 400 without a
 * namespace, else the rules (authz_rules) and the evaluation error; the
 * spec is not echoed. */
static void answer_rules(struct stream *s, struct authz *z,
                         const struct identity *id)
{
    const struct request *req = stream_request(s);
    struct rules_out o = {{0}, {0}};
    struct review_error err;
    struct sbuf sb = {0};
    char error[AUTHZ_REASON_MAX];
    const char *body;
    bool comma = true;
    char *ns;
    size_t len;

    body = stream_body(s, &len);
    if (review_body_decode_rules(body, len, req->content_type, &ns, &err) !=
        RW_OK) {
        respond_error(s, &err);
        return;
    }
    if (*ns == '\0') {
        free(ns);
        status_respond(s, 400, "BadRequest", "no namespace on request");
        return;
    }
    authz_rules(z, id, ns, rules_add_cb, &o, error, sizeof(error));
    free(ns);
    sbuf_addf(&sb,
              "{\"kind\":\"SelfSubjectRulesReview\",\"apiVersion\":"
              "\"authorization.k8s.io/v1\",\"metadata\":"
              "{\"creationTimestamp\":null},\"spec\":{},\"status\":{"
              "\"resourceRules\":[%s],\"nonResourceRules\":[%s],"
              "\"incomplete\":false",
              o.res.len > 0 ? o.res.data : "", o.non.len > 0 ? o.non.data : "");
    add_nonempty(&sb, &comma, "evaluationError", error);
    sbuf_add(&sb, "}}");
    sbuf_fini(&o.res);
    sbuf_fini(&o.non);
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
    if (review_body_decode_self(body, len, req->content_type, &err) != RW_OK) {
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

void review_handle(struct stream *s, struct authz *z, const struct identity *id)
{
    const char *path = stream_request(s)->path;

    if (strcmp(path, REVIEW_ACCESS_PATH) == 0)
        answer_access(s, z, id);
    else if (strcmp(path, REVIEW_RULES_PATH) == 0)
        answer_rules(s, z, id);
    else
        answer_self(s, id);
}
