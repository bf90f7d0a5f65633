/*
 * write_flow.c: the write verbs' flows (see write.c and write_impl.h):
 * a create, and an update, patch or delete against the current object,
 * one round of GuaranteedUpdate per call.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/rw.h"
#include "proto/jval.h"
#include "proto/patch.h"
#include "src/write_impl.h"
#include "src/write_meta.h"

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
    if (st.ns != NULL) /* ValidateObjectMeta: ValidateNamespaceName */
        write_meta_check_name(&(struct write_rules){.name = WRITE_NAME_LABEL},
                              st.ns, false, "metadata.namespace", causes, &n);
    if (n > 0) {
        write_invalid(wr, wr->name, causes, n);
        return false;
    }
    free(wr->value);
    wr->value = write_meta_render(wr->rt, b->json, b->len, &st, &wr->value_len);
    return true;
}

void write_flow_create(struct write_req *wr)
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
bool write_flow_delete_options(struct write_req *wr)
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

void write_flow_step(struct write_req *wr)
{
    if (wr->verb == VERB_DELETE)
        write_delete_step(wr);
    else
        write_update_step(wr);
}
