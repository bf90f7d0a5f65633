/*
 * write.c: the write verbs (see write.h): the request, its answers (the
 * apiserver's Statuses) and its calls to the store; the flows are
 * write_flow.c's.
 *
 * One struct write_req per request (write_impl.h), alive from
 * write_handle until its answer (or the client's going away, which
 * cancels the store call in flight).  A create is one conditional write
 * (again under another name when a generateName collides).  Updates,
 * patches and deletes run a loop as the etcd3 store's GuaranteedUpdate:
 * the current object comes from the cache first (cur_fresh false);
 * whatever would refuse the request against a cached object (absent,
 * another revision, a failed precondition) reads the store's current one
 * first (upstream get), and a write whose compare on the current revision
 * fails starts over from the value the store answered with (or a get),
 * at most WRITE_TRIES times.
 */
#include "src/write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/object.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/store.h"
#include "cache/watchcache.h"
#include "proto/accept.h"
#include "proto/jval.h"
#include "proto/kjson.h"
#include "proto/kjson_decode.h"
#include "proto/patch.h"
#include "proto/query.h"
#include "src/log.h"
#include "src/resource.h"
#include "src/upstream.h"
#include "src/write_impl.h"
#include "src/write_meta.h"

static void write_free(struct write_req *wr)
{
    free(wr->ns);
    free(wr->name);
    free(wr->key);
    free(wr->generate_base);
    free(wr->cur);
    free(wr->pre_uid);
    free(wr->pre_rv);
    free(wr->value);
    free(wr);
}

static void write_close_cb(struct stream *s, void *arg)
{
    struct write_req *wr = arg;

    (void)s;
    if (wr->call != NULL)
        wr->rd->cancel(wr->rd->ctx, wr->call);
    write_free(wr);
}

/* ==== answers ==== */

void write_answer(struct write_req *wr, int code, struct rbuf *body)
{
    stream_set_callbacks(wr->s, NULL, NULL, NULL);
    stream_respond(wr->s, code, "application/json", body);
    rbuf_unref(body);
    write_free(wr);
}

/* b's bytes as a buffer; b is emptied. */
static struct rbuf *write_rbuf(struct sbuf *b)
{
    struct rbuf *out = rbuf_from(b->data, b->len);

    sbuf_fini(b);
    return out;
}

/* The qualified resource as the apiserver's messages name it: "pods",
 * "deployments.apps". */
static void add_qualified(struct sbuf *b, const struct resource_type *rt)
{
    sbuf_addf(b, "%s%s%s", rt->resource, *rt->group ? "." : "", rt->group);
}

/* A failure Status with details {name, group, kind}: kind is the
 * resource (errors.NewNotFound, NewAlreadyExists, NewConflict) or, with
 * causes, the Kind (errors.NewInvalid). */
static struct rbuf *write_status(const struct resource_type *rt, int code,
                                 const char *reason, const char *message,
                                 const char *name,
                                 const struct write_cause *causes, size_t n,
                                 bool invalid)
{
    struct sbuf b = {0};

    sbuf_add(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                 "\"status\":\"Failure\",\"message\":");
    kjson_add_string(&b, message);
    sbuf_add(&b, ",\"reason\":");
    kjson_add_string(&b, reason);
    if (name != NULL) {
        sbuf_add(&b, ",\"details\":{\"name\":");
        kjson_add_string(&b, name);
        if (*rt->group) {
            sbuf_add(&b, ",\"group\":");
            kjson_add_string(&b, rt->group);
        }
        sbuf_add(&b, ",\"kind\":");
        kjson_add_string(&b, invalid ? rt->kind : rt->resource);
        if (n > 0) {
            sbuf_add(&b, ",\"causes\":[");
            for (size_t i = 0; i < n; i++) {
                sbuf_add(&b, i ? ",{\"reason\":" : "{\"reason\":");
                kjson_add_string(&b, causes[i].reason);
                sbuf_add(&b, ",\"message\":");
                kjson_add_string(&b, causes[i].message);
                sbuf_add(&b, ",\"field\":");
                kjson_add_string(&b, causes[i].field);
                sbuf_add(&b, "}");
            }
            sbuf_add(&b, "]");
        }
        sbuf_add(&b, "}");
    }
    sbuf_addf(&b, ",\"code\":%d}\n", code);
    return write_rbuf(&b);
}

/* 404 NotFound '<resource> "<name>" not found' (errors.NewNotFound). */
void write_not_found(struct write_req *wr)
{
    struct sbuf m = {0};

    add_qualified(&m, wr->rt);
    sbuf_addf(&m, " \"%s\" not found", wr->name);
    write_answer(wr, 404, write_status(wr->rt, 404, "NotFound", m.data,
                                       wr->name, NULL, 0, false));
    sbuf_fini(&m);
}

/* 409 Conflict "Operation cannot be fulfilled on <resource> \"<name>\":
 * <why>" (errors.NewConflict). */
void write_conflict(struct write_req *wr, const char *why)
{
    struct sbuf m = {0};

    sbuf_add(&m, "Operation cannot be fulfilled on ");
    add_qualified(&m, wr->rt);
    sbuf_addf(&m, " \"%s\": %s", wr->name, why);
    write_answer(wr, 409, write_status(wr->rt, 409, "Conflict", m.data,
                                       wr->name, NULL, 0, false));
    sbuf_fini(&m);
}

/* A failed precondition: the etcd3 store's InvalidObjError, as a
 * Conflict (storage/errors InterpretDeleteError, InterpretUpdateError). */
void write_precondition(struct write_req *wr, const char *what,
                        const char *want, const char *have)
{
    char why[1024];

    snprintf(why, sizeof(why),
             "StorageError: invalid object, Code: 4, Key: %s, "
             "ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: "
             "%s in precondition: %s, %s in object meta: %s",
             wr->key, what, want, what, have);
    write_conflict(wr, why);
}

/* 422 Invalid '<Kind> "<name>" is invalid: ...' (errors.NewInvalid). */
void write_invalid(struct write_req *wr, const char *name,
                   const struct write_cause *causes, size_t n)
{
    struct sbuf m = {0};

    sbuf_addf(&m, "%s%s%s \"%s\" is invalid: %s", wr->rt->kind,
              *wr->rt->group ? "." : "", wr->rt->group, name,
              n > 1 ? "[" : "");
    for (size_t i = 0; i < n; i++)
        sbuf_addf(&m, "%s%s: %s", i ? ", " : "", causes[i].field,
                  causes[i].message);
    if (n > 1)
        sbuf_add(&m, "]");
    write_answer(wr, 422, write_status(wr->rt, 422, "Invalid", m.data, name,
                                       causes, n, true));
    sbuf_fini(&m);
}

void write_fail(struct write_req *wr, int code, const char *reason,
                const char *message)
{
    write_answer(wr, code, kjson_status(code, reason, message));
}

/* A store call that failed: the apiserver's answers to its storage
 * errors (errors.NewServerTimeout when etcd cannot be reached or timed
 * out, NewInternalError otherwise); the write may have happened. */
void write_store_error(struct write_req *wr, int err, const char *why)
{
    static const char *const ops[] = {"create", "update", "patch", "delete"};
    char m[512];

    log_debug("%s %s: the store failed: %s: %s", ops[wr->verb], wr->key,
              rw_strerror(err), why);
    if (err == RW_EUNAVAIL || err == RW_ETIMEDOUT) {
        struct sbuf b = {0};

        sbuf_addf(&b, "The %s operation against ", ops[wr->verb]);
        add_qualified(&b, wr->rt);
        sbuf_add(&b, " could not be completed at this time, please try "
                     "again.");
        write_answer(wr, 500, write_status(wr->rt, 500, "ServerTimeout",
                                           b.data, wr->name, NULL, 0, false));
        sbuf_fini(&b);
        return;
    }
    snprintf(m, sizeof(m), "Internal error occurred: %s", why);
    write_fail(wr, 500, "InternalError", m);
}

/* The written object as reads serve it: metadata.resourceVersion rev (0:
 * none, a dry run's), with code. */
static void write_answer_object(struct write_req *wr, int code,
                                const char *value, size_t len, int64_t rev)
{
    struct object *obj;
    const char *why;

    if (rev == 0) {
        write_answer(wr, code, rbuf_from(value, len));
        return;
    }
    if (kjson_decode_object(wr->rt, wr->key, strlen(wr->key), value, len, rev,
                            &obj, &why) != RW_OK) {
        write_fail(wr, 500, "InternalError", why);
        return;
    }
    write_answer(wr, code, rbuf_ref(obj->json));
    object_unref(obj);
}

/* ==== the store calls ==== */

/* The store's current value of the key (len bytes at mod revision rev)
 * as the current object, as reads serve it (metadata.resourceVersion
 * rev: what a patch applies to); the value as it is when the store
 * decoder refuses it. */
static void write_set_current(struct write_req *wr, const void *value,
                              size_t len, int64_t rev)
{
    struct object *obj;
    const char *why;

    free(wr->cur);
    if (kjson_decode_object(wr->rt, wr->key, strlen(wr->key), value, len, rev,
                            &obj, &why) == RW_OK) {
        wr->cur = xstrndup(obj->json->data, obj->json->len);
        wr->cur_len = obj->json->len;
        object_unref(obj);
    } else {
        wr->cur = xstrndup(value, len);
        wr->cur_len = len;
    }
    wr->cur_rev = rev;
    wr->cur_present = true;
    wr->cur_fresh = true;
}

static void write_got_cb(int err, const char *why, int64_t rev,
                         const struct upstream_kv *kv, void *arg)
{
    struct write_req *wr = arg;

    (void)rev;
    wr->call = NULL;
    if (err != RW_OK) {
        write_store_error(wr, err, why);
        return;
    }
    if (kv != NULL) {
        write_set_current(wr, kv->value, kv->value_len, kv->mod_rev);
    } else {
        free(wr->cur);
        wr->cur = NULL;
        wr->cur_len = 0;
        wr->cur_rev = 0;
        wr->cur_present = false;
        wr->cur_fresh = true;
    }
    write_flow_step(wr);
}

/* Reads the current object from the store, then steps again. */
void write_refresh(struct write_req *wr)
{
    if (++wr->tries > WRITE_TRIES) {
        write_fail(wr, 500, "InternalError",
                   "Internal error occurred: the object kept changing: "
                   "gave up after 100 conflicting writes");
        return;
    }
    wr->call = wr->rd->get(wr->rd->ctx, wr->key, strlen(wr->key),
                           write_got_cb, wr);
    if (wr->call == NULL)
        write_store_error(wr, RW_EUNAVAIL, "no connection to the store");
}

/* The cache's object under wr->key as the current one. */
static void write_from_cache(struct write_req *wr)
{
    struct object *obj =
        store_get(watchcache_store(resource_cache(wr->r)), wr->key,
                  strlen(wr->key));

    wr->cur_present = obj != NULL;
    wr->cur_fresh = false;
    if (obj != NULL) {
        wr->cur = xstrndup(obj->json->data, obj->json->len);
        wr->cur_len = obj->json->len;
        wr->cur_rev = obj->rv;
    }
}

static void write_done_cb(int err, const char *why,
                          const struct upstream_write_result *res, void *arg);

void write_send(struct write_req *wr, enum upstream_write_op op,
                int64_t expected)
{
    struct upstream_write w = {
        .op = op,
        .key = wr->key,
        .key_len = strlen(wr->key),
        .value = wr->value,
        .value_len = wr->value_len,
        .expected = expected,
    };

    wr->call = wr->rd->write(wr->rd->ctx, &w, write_done_cb, wr);
    if (wr->call == NULL)
        write_store_error(wr, RW_EUNAVAIL, "no connection to the store");
}

/* 201 (a create) or 200, or the deleted object or a Status Success. */
void write_succeeded(struct write_req *wr,
                     const struct upstream_write_result *res)
{
    struct sbuf b = {0};
    const char *uid = "";
    struct jval *doc = NULL;

    if (wr->verb != VERB_DELETE) {
        write_answer_object(wr, wr->creating ? 201 : 200, wr->value,
                            wr->value_len, res ? res->rev : 0);
        return;
    }
    if (wr->rules.return_deleted) {
        const char *v = res && res->value ? res->value : wr->cur;
        size_t len = res && res->value ? res->value_len : wr->cur_len;

        write_answer_object(wr, 200, v, len, res ? res->rev : 0);
        return;
    }
    /* finalizeDelete: details name, group, kind (the resource), uid */
    doc = jval_parse(wr->cur, wr->cur_len);
    uid = jval_str(jval_path(doc, "metadata.uid"));
    sbuf_add(&b, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
                 "\"status\":\"Success\",\"details\":{\"name\":");
    kjson_add_string(&b, wr->name);
    if (*wr->rt->group) {
        sbuf_add(&b, ",\"group\":");
        kjson_add_string(&b, wr->rt->group);
    }
    sbuf_add(&b, ",\"kind\":");
    kjson_add_string(&b, wr->rt->resource);
    if (*uid) {
        sbuf_add(&b, ",\"uid\":");
        kjson_add_string(&b, uid);
    }
    sbuf_add(&b, "}}\n");
    jval_free(doc);
    write_answer(wr, 200, write_rbuf(&b));
}

static void write_done_cb(int err, const char *why,
                          const struct upstream_write_result *res, void *arg)
{
    struct write_req *wr = arg;

    wr->call = NULL;
    switch (err) {
    case RW_OK:
        write_succeeded(wr, res);
        return;
    case RW_EEXIST:
        if (wr->generate_base != NULL &&
            ++wr->tries < WRITE_GENERATE_TRIES) {
            write_flow_create(wr); /* another name */
            return;
        }
        if (wr->verb == VERB_CREATE) {
            struct sbuf m = {0};

            add_qualified(&m, wr->rt);
            sbuf_addf(&m, " \"%s\" already exists", wr->name);
            write_answer(wr, 409, write_status(wr->rt, 409, "AlreadyExists",
                                               m.data, wr->name, NULL, 0,
                                               false));
            sbuf_fini(&m);
            return;
        }
        /* a PUT's create lost to another create: start over */
        break;
    case RW_ECONFLICT:
    case RW_ENOTFOUND:
        break;
    default:
        write_store_error(wr, err, why);
        return;
    }
    /* The compare failed: the store's current state, then again. */
    if (err == RW_ECONFLICT && res != NULL && res->value != NULL &&
        ++wr->tries <= WRITE_TRIES) {
        write_set_current(wr, res->value, res->value_len, res->mod_rev);
        write_flow_step(wr);
        return;
    }
    write_refresh(wr);
}

/* ==== the request ==== */

/* ?dryRun, ?fieldManager, ?fieldValidation, as the apiserver's
 * ValidateCreateOptions (and Update, Patch, Delete): false once
 * answered (422 Invalid on the options' kind). */
static bool write_options(struct write_req *wr, const char *query)
{
    static const char *const kinds[] = {"CreateOptions", "UpdateOptions",
                                        "PatchOptions", "DeleteOptions"};
    char *dry = query_first(query, "dryRun");
    char *validation = query_first(query, "fieldValidation");
    char *manager = query_first(query, "fieldManager");
    char message[512], detail[256];
    const char *field = NULL, *reason = "FieldValueNotSupported";
    struct sbuf b = {0};

    if (dry != NULL && strcmp(dry, "All") == 0) {
        wr->dry_run = true;
    } else if (dry != NULL) {
        field = "dryRun";
        sbuf_add(&b, "Unsupported value: ");
        sbuf_add_quoted(&b, dry, strlen(dry));
        sbuf_add(&b, ": supported values: \"All\"");
    }
    if (field == NULL && validation != NULL && *validation &&
        strcmp(validation, "Ignore") != 0 && strcmp(validation, "Warn") != 0 &&
        strcmp(validation, "Strict") != 0) {
        field = "fieldValidation";
        sbuf_add(&b, "Unsupported value: ");
        sbuf_add_quoted(&b, validation, strlen(validation));
        sbuf_add(&b, ": supported values: \"Ignore\", \"Strict\", \"Warn\"");
    }
    if (field == NULL && manager != NULL && strlen(manager) > 128) {
        field = "fieldManager";
        reason = "FieldValueTooLong";
        sbuf_add(&b, "Too long: may not be more than 128 bytes");
    }
    free(dry);
    free(validation);
    free(manager);
    if (field == NULL)
        return true;
    snprintf(detail, sizeof(detail), "%s", b.data);
    sbuf_fini(&b);
    snprintf(message, sizeof(message),
             "%s.meta.k8s.io \"\" is invalid: %s: %s", kinds[wr->verb], field,
             detail);
    {
        struct sbuf s = {0};

        sbuf_add(&s, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":"
                     "{},\"status\":\"Failure\",\"message\":");
        kjson_add_string(&s, message);
        sbuf_addf(&s, ",\"reason\":\"Invalid\",\"details\":{\"group\":"
                      "\"meta.k8s.io\",\"kind\":\"%s\",\"causes\":[{\"reason\":"
                      "\"%s\",\"message\":",
                  kinds[wr->verb], reason);
        kjson_add_string(&s, detail);
        sbuf_addf(&s, ",\"field\":\"%s\"}]},\"code\":422}\n", field);
        write_answer(wr, 422, write_rbuf(&s));
    }
    return false;
}

/* The body's media type: JSON for create and update (the apiserver's
 * NegotiateInputSerializer, an empty Content-Type is JSON), one of the
 * patch types for a patch; false once answered 415. */
static bool write_media_type(struct write_req *wr, const char *ct)
{
    size_t n = strcspn(ct, "; \t");
    char message[512];
    int t;

    if (wr->verb == VERB_PATCH) {
        if ((t = patch_type_of(ct)) >= 0) {
            wr->patch = (enum patch_type)t;
            return true;
        }
        if (n == strlen("application/apply-patch+yaml") &&
            strncmp(ct, "application/apply-patch+yaml", n) == 0)
            snprintf(message, sizeof(message),
                     "the body of the request was in an unknown format - "
                     "accepted media types include: "
                     "application/json-patch+json, "
                     "application/merge-patch+json, "
                     "application/strategic-merge-patch+json (server-side "
                     "apply, application/apply-patch+yaml, is not served "
                     "by ringwatch)");
        else
            snprintf(message, sizeof(message),
                     "the body of the request was in an unknown format - "
                     "accepted media types include: "
                     "application/json-patch+json, "
                     "application/merge-patch+json, "
                     "application/strategic-merge-patch+json");
    } else if (n == 0 || (n == strlen("application/json") &&
                          strncmp(ct, "application/json", n) == 0) ||
               wr->verb == VERB_DELETE) {
        return true;
    } else {
        snprintf(message, sizeof(message),
                 "the body of the request was in an unknown format - "
                 "accepted media types include: application/json");
    }
    write_fail(wr, 415, "UnsupportedMediaType", message);
    return false;
}

void write_handle(struct stream *s, struct resource *r, const char *ns,
                  const char *name)
{
    static const char *const object[] = {"application/json", NULL};
    const struct request *req = stream_request(s);
    struct write_req *wr = xcalloc(1, sizeof(*wr));
    char why[512];

    wr->s = s;
    wr->r = r;
    wr->rt = resource_type(r);
    wr->rd = resource_reader(r);
    write_meta_rules(wr->rt, &wr->rules);
    wr->verb = req->method == STREAM_POST    ? VERB_CREATE
               : req->method == STREAM_PUT   ? VERB_UPDATE
               : req->method == STREAM_PATCH ? VERB_PATCH
                                             : VERB_DELETE;
    wr->ns = ns ? xstrdup(ns) : NULL;
    wr->name = xstrdup(name ? name : "");
    wr->key = resource_type_key(wr->rt, ns, wr->name);
    wr->body = stream_body(s, &wr->body_len);
    stream_set_callbacks(s, NULL, write_close_cb, wr);
    if (!accept_route(req->accept, object, why, sizeof(why))) {
        write_fail(wr, 406, "NotAcceptable", why);
        return;
    }
    if (wr->rd == NULL || wr->rd->write == NULL || !resource_ready(r)) {
        write_fail(wr, 429, "TooManyRequests", "storage is (re)initializing");
        return;
    }
    if (!write_media_type(wr, req->content_type) ||
        !write_options(wr, req->query))
        return;
    switch (wr->verb) {
    case VERB_CREATE:
        write_flow_create(wr);
        break;
    case VERB_DELETE:
        if (!write_flow_delete_options(wr))
            return;
        write_from_cache(wr);
        write_flow_step(wr);
        break;
    default:
        write_from_cache(wr);
        write_flow_step(wr);
        break;
    }
}
