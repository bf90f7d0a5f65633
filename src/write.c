/*
 * write.c: the write verbs (see write.h).
 *
 * One struct write_req per request, alive from write_handle until its
 * answer (or the client's going away, which cancels the store call in
 * flight).  A create is one conditional write (again under another name
 * when a generateName collides).  Updates, patches and deletes run a loop
 * as the etcd3 store's GuaranteedUpdate: the current object comes from
 * the cache first (cur_fresh false); whatever would refuse the request
 * against a cached object (absent, another revision, a failed
 * precondition) reads the store's current one first (upstream get), and
 * a write whose compare on the current revision fails starts over from
 * the value the store answered with (or a get), at most WRITE_TRIES
 * times.
 */
#include "src/write.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
#define patch_type_of(ct) ((void)(ct), -1) /* until proto/patch.c */
#define patch_apply(...) (RW_EINVAL)
#include "proto/query.h"
#include "src/log.h"
#include "src/resource.h"
#include "src/status.h"
#include "src/upstream.h"
#include "src/write_meta.h"

/* Store calls one request makes at most: GuaranteedUpdate's rounds, and
 * generateName's attempts (the apiserver's create retries 8 times). */
#define WRITE_TRIES 8

enum write_verb { VERB_CREATE, VERB_UPDATE, VERB_PATCH, VERB_DELETE };

struct write_req {
    struct stream *s;
    struct resource *r;
    const struct resource_type *rt;
    const struct upstream_reader *rd;
    struct write_rules rules;
    enum write_verb verb;
    char *ns;   /* NULL: cluster-scoped */
    char *name; /* the URL's, or the create's */
    char *key;
    bool dry_run;
    const char *body; /* the stream's */
    size_t body_len;
    enum patch_type patch;
    /* a create under generateName: its base, and the name tried */
    char *generate_base;
    /* the current object (update, patch, delete) */
    char *cur;
    size_t cur_len;
    int64_t cur_rev;
    bool cur_present;
    bool cur_fresh; /* read from the store, not the cache */
    /* delete preconditions; NULL: none */
    char *pre_uid, *pre_rv;
    /* the value being written, and whether a PUT creates */
    char *value;
    size_t value_len;
    bool creating;
    unsigned tries;
    struct upstream_read *call;
};

static void write_step(struct write_req *wr);

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

/* The answer, and wr's end. */
static void write_answer(struct write_req *wr, int code, struct rbuf *body)
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
static void write_not_found(struct write_req *wr)
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
static void write_conflict(struct write_req *wr, const char *why)
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
static void write_precondition(struct write_req *wr, const char *what,
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
static void write_invalid(struct write_req *wr, const char *name,
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

static void write_fail(struct write_req *wr, int code, const char *reason,
                       const char *message)
{
    write_answer(wr, code, kjson_status(code, reason, message));
}

/* A store call that failed: the apiserver's answers to its storage
 * errors (errors.NewServerTimeout when etcd cannot be reached or timed
 * out, NewInternalError otherwise); the write may have happened. */
static void write_store_error(struct write_req *wr, int err, const char *why)
{
    static const char *const ops[] = {"create", "update", "patch", "delete"};
    char m[512];

    log_warnx("%s %s: the store failed: %s: %s", ops[wr->verb], wr->key,
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
    free(wr->cur);
    wr->cur = kv ? xstrndup(kv->value, kv->value_len) : NULL;
    wr->cur_len = kv ? kv->value_len : 0;
    wr->cur_rev = kv ? kv->mod_rev : 0;
    wr->cur_present = kv != NULL;
    wr->cur_fresh = true;
    write_step(wr);
}

/* Reads the current object from the store, then steps again. */
static void write_refresh(struct write_req *wr)
{
    if (++wr->tries > WRITE_TRIES) {
        write_fail(wr, 500, "InternalError",
                   "Internal error occurred: too many conflicting writes");
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

static void write_send(struct write_req *wr, enum upstream_write_op op,
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
static void write_succeeded(struct write_req *wr,
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

static void write_create_step(struct write_req *wr);

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
        if (wr->generate_base != NULL && ++wr->tries < WRITE_TRIES) {
            write_create_step(wr); /* another name */
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
        free(wr->cur);
        wr->cur = xstrndup(res->value, res->value_len);
        wr->cur_len = res->value_len;
        wr->cur_rev = res->mod_rev;
        wr->cur_present = true;
        wr->cur_fresh = true;
        write_step(wr);
        return;
    }
    write_refresh(wr);
}

/* ==== create ==== */

/* Validates and stamps the decoded body b as a new object named name;
 * false once answered. */
static bool write_stamp_new(struct write_req *wr, const struct write_body *b,
                            const char *uid, const char *created,
                            int64_t generation)
{
    struct write_cause causes[WRITE_MAX_CAUSES];
    size_t n = 0;
    struct write_stamp st = {
        .name = wr->name,
        .ns = wr->rt->namespaced ? wr->ns : NULL,
        .uid = uid,
        .created = created,
        .generation = generation,
    };

    if (*wr->name == '\0') {
        causes[n].reason = "FieldValueRequired";
        causes[n].field = "metadata.name";
        snprintf(causes[n].message, sizeof(causes[n].message),
                 "Required value: name or generateName is required");
        n++;
    } else {
        write_meta_check_name(&wr->rules, wr->name, false, "metadata.name",
                              causes, &n);
    }
    if (*b->generate_name)
        write_meta_check_name(&wr->rules, b->generate_name, true,
                              "metadata.generateName", causes, &n);
    if (n > 0) {
        write_invalid(wr, wr->name, causes, n);
        return false;
    }
    free(wr->value);
    wr->value = write_meta_render(wr->rt, b->json, b->len, &st, &wr->value_len);
    return true;
}

static void write_create_step(struct write_req *wr)
{
    struct write_body b;
    char why[1024], uid[37], created[21];
    int code;

    code = write_meta_decode(wr->rt, wr->body, wr->body_len, &b, why,
                             sizeof(why));
    if (code != 0) {
        write_fail(wr, code, "BadRequest", why);
        return;
    }
    if (wr->rt->namespaced && *b.ns && strcmp(b.ns, wr->ns) != 0) {
        write_meta_body_fini(&b);
        write_fail(wr, 400, "BadRequest",
                   "the namespace of the provided object does not match the "
                   "namespace sent on the request");
        return;
    }
    free(wr->name);
    free(wr->generate_base);
    wr->generate_base = NULL;
    if (*b.name == '\0' && *b.generate_name) {
        wr->generate_base = xstrdup(b.generate_name);
        wr->name = write_meta_generate_name(b.generate_name);
    } else {
        wr->name = xstrdup(b.name);
    }
    free(wr->key);
    wr->key = resource_type_key(wr->rt, wr->ns, wr->name);
    write_meta_uuid(uid);
    write_meta_timestamp(time(NULL), created);
    if (!write_stamp_new(wr, &b, uid, created, 1)) {
        write_meta_body_fini(&b);
        return;
    }
    if (*b.resource_version) {
        write_meta_body_fini(&b);
        write_fail(wr, 500, "InternalError",
                   "Internal error occurred: resourceVersion should not be "
                   "set on objects to be created");
        return;
    }
    write_meta_body_fini(&b);
    wr->creating = true;
    if (wr->dry_run)
        write_succeeded(wr, NULL);
    else
        write_send(wr, UPSTREAM_CREATE, 0);
}

/* ==== update and patch ==== */

/* The new object's JSON (a PUT's body, or the patch applied to the
 * current object) in *out (malloc'd for a patch); false once answered. */
static bool write_new_body(struct write_req *wr, const char **out,
                           size_t *len, char **owned)
{
    struct patch_error perr = {0};

    *owned = NULL;
    if (wr->verb == VERB_UPDATE) {
        *out = wr->body;
        *len = wr->body_len;
        return true;
    }
    if (patch_apply(wr->patch, wr->rt->group, wr->rt->kind, wr->cur,
                    wr->cur_len, wr->body, wr->body_len, owned, len,
                    &perr) != RW_OK) {
        write_fail(wr, perr.code, perr.reason, perr.message);
        return false;
    }
    *out = *owned;
    return true;
}

/* The current object's server-set fields, for the new one. */
struct write_old {
    struct jval *doc;
    const char *uid, *created;
    int64_t generation;
};

static void write_old_read(struct write_req *wr, struct write_old *o)
{
    o->doc = jval_parse(wr->cur, wr->cur_len);
    o->uid = jval_str(jval_path(o->doc, "metadata.uid"));
    o->created = jval_str(jval_path(o->doc, "metadata.creationTimestamp"));
    o->generation = jval_int(jval_path(o->doc, "metadata.generation"));
}

/* The update against the current object: checks, then the write with a
 * compare on the current revision.  b is the new object, decoded. */
static void write_update_current(struct write_req *wr,
                                 const struct write_body *b, int64_t want_rv)
{
    struct write_old o;
    int64_t generation;

    if (want_rv != 0 && want_rv != wr->cur_rev) {
        if (!wr->cur_fresh) {
            write_refresh(wr);
            return;
        }
        write_conflict(wr, "the object has been modified; please apply your "
                           "changes to the latest version and try again");
        return;
    }
    write_old_read(wr, &o);
    if (*b->uid && strcmp(b->uid, o.uid) != 0) {
        if (!wr->cur_fresh) {
            jval_free(o.doc);
            write_refresh(wr);
            return;
        }
        write_precondition(wr, "UID", b->uid, o.uid);
        jval_free(o.doc);
        return;
    }
    generation = o.generation > 0 ? o.generation : 1;
    if (write_stamp_new(wr, b, o.uid, o.created, generation)) {
        if (write_meta_spec_changed(wr->cur, wr->cur_len, wr->value,
                                    wr->value_len)) {
            struct write_stamp st = {wr->name,
                                     wr->rt->namespaced ? wr->ns : NULL,
                                     o.uid, o.created, generation + 1};

            free(wr->value);
            wr->value = write_meta_render(wr->rt, b->json, b->len, &st,
                                          &wr->value_len);
        }
        wr->creating = false;
        if (wr->dry_run)
            write_succeeded(wr, NULL);
        else
            write_send(wr, UPSTREAM_UPDATE, wr->cur_rev);
    }
    jval_free(o.doc);
}

/* One round of GuaranteedUpdate for a PUT or a PATCH. */
static void write_update_step(struct write_req *wr)
{
    const char *json;
    size_t len;
    char *owned, why[1024], *end;
    struct write_body b;
    int64_t want_rv = 0;
    int code;

    if (!wr->cur_present && !wr->cur_fresh) {
        write_refresh(wr);
        return;
    }
    if (!wr->cur_present && (wr->verb == VERB_PATCH ||
                             !wr->rules.create_on_update)) {
        write_not_found(wr);
        return;
    }
    if (!write_new_body(wr, &json, &len, &owned))
        return;
    code = write_meta_decode(wr->rt, json, len, &b, why, sizeof(why));
    if (code != 0) {
        free(owned);
        write_fail(wr, code, "BadRequest", why);
        return;
    }
    if (strcmp(b.name, wr->name) != 0) {
        snprintf(why, sizeof(why),
                 "the name of the object (%s) does not match the name on the "
                 "URL (%s)",
                 b.name, wr->name);
        write_fail(wr, 400, "BadRequest", why);
    } else if (wr->ns != NULL && *b.ns && strcmp(b.ns, wr->ns) != 0) {
        snprintf(why, sizeof(why),
                 "the namespace of the object (%s) does not match the "
                 "namespace on the request (%s)",
                 b.ns, wr->ns);
        write_fail(wr, 400, "BadRequest", why);
    } else if (*b.resource_version &&
               ((want_rv = strtoll(b.resource_version, &end, 10)) <= 0 ||
                *end != '\0')) {
        snprintf(why, sizeof(why),
                 "Internal error occurred: strconv.ParseUint: parsing \"%s\": "
                 "invalid syntax",
                 b.resource_version);
        write_fail(wr, 500, "InternalError", why);
    } else if (!wr->cur_present) {
        /* AllowCreateOnUpdate: a create, unconditional but on absence */
        char uid[37], created[21];

        write_meta_uuid(uid);
        write_meta_timestamp(time(NULL), created);
        if (write_stamp_new(wr, &b, uid, created, 1)) {
            wr->creating = true;
            if (wr->dry_run)
                write_succeeded(wr, NULL);
            else
                write_send(wr, UPSTREAM_CREATE, 0);
        }
    } else {
        write_update_current(wr, &b, want_rv);
    }
    write_meta_body_fini(&b);
    free(owned);
}

/* ==== delete ==== */

static void write_delete_step(struct write_req *wr)
{
    struct write_old o;
    char rv[24];

    if (!wr->cur_present) {
        if (!wr->cur_fresh)
            write_refresh(wr);
        else
            write_not_found(wr);
        return;
    }
    write_old_read(wr, &o);
    snprintf(rv, sizeof(rv), "%" PRId64, wr->cur_rev);
    if ((wr->pre_uid && strcmp(wr->pre_uid, o.uid) != 0) ||
        (wr->pre_rv && strcmp(wr->pre_rv, rv) != 0)) {
        if (!wr->cur_fresh)
            write_refresh(wr);
        else if (wr->pre_uid && strcmp(wr->pre_uid, o.uid) != 0)
            write_precondition(wr, "UID", wr->pre_uid, o.uid);
        else
            write_precondition(wr, "ResourceVersion", wr->pre_rv, rv);
        jval_free(o.doc);
        return;
    }
    jval_free(o.doc);
    if (wr->dry_run)
        write_succeeded(wr, NULL);
    else
        write_send(wr, UPSTREAM_DELETE, wr->cur_rev);
}

/* Reads a DeleteOptions body's preconditions (and dryRun); false once
 * answered (400: not a DeleteOptions). */
static bool write_delete_options(struct write_req *wr)
{
    struct jval *doc;
    const struct jval *pre, *v;

    if (wr->body_len == 0)
        return true;
    doc = jval_try_parse(wr->body, wr->body_len);
    if (doc == NULL || !jval_is_object(doc)) {
        jval_free(doc);
        write_fail(wr, 400, "BadRequest",
                   "the body of the request could not be decoded as "
                   "DeleteOptions");
        return false;
    }
    pre = jval_get(doc, "preconditions");
    if ((v = jval_get(pre, "uid")) != NULL)
        wr->pre_uid = xstrdup(jval_str(v));
    if ((v = jval_get(pre, "resourceVersion")) != NULL)
        wr->pre_rv = xstrdup(jval_str(v));
    v = jval_get(doc, "dryRun");
    for (size_t i = 0; i < jval_len(v); i++)
        if (strcmp(jval_str(jval_at(v, i)), "All") == 0)
            wr->dry_run = true;
    jval_free(doc);
    return true;
}

/* ==== the request ==== */

static void write_step(struct write_req *wr)
{
    if (wr->verb == VERB_DELETE)
        write_delete_step(wr);
    else
        write_update_step(wr);
}

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
        write_create_step(wr);
        break;
    case VERB_DELETE:
        if (!write_delete_options(wr))
            return;
        write_from_cache(wr);
        write_delete_step(wr);
        break;
    default:
        write_from_cache(wr);
        write_update_step(wr);
        break;
    }
}
