/*
 * authz.c: the authorizer (see authz.h): its modes, and the RBAC index it
 * keeps from the store's RBAC objects.
 *
 * Data: per RBAC resource, the parsed objects of the cache's last state,
 * in key order (each with its key and revision, NULL when malformed); and
 * the evaluator's index (src/rbac.h) over all four.  When a resource's
 * cache changes, its objects are walked in key order beside the previous
 * ones: an object under the same key at the same revision keeps its
 * parse, any other is parsed (and, malformed, logged and counted once);
 * then a new index replaces the old, and the change callback runs.
 * While a resource's cache is not ready (emptied by a store history
 * reset, until its next list) or not caught up with the store (a warm
 * start replaying the history since an older revision, resource.h), its
 * last state holds.
 */
#include "src/authz.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/object.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/store.h"
#include "cache/watchcache.h"
#include "proto/kjson.h"
#include "src/log.h"
#include "src/metrics_resource.h"
#include "src/rbac.h"
#include "src/rbac_object.h"
#include "src/resource.h"

/* One RBAC object of the cache's state. */
struct authz_entry {
    char *key;
    int64_t rv;
    struct rbac_object *obj; /* NULL: malformed, skipped */
};

/* One RBAC resource and its objects' parses. */
struct authz_source {
    struct authz *z;
    enum rbac_kind kind;
    struct resource *r;
    struct authz_entry *v; /* in key order */
    size_t n;
};

struct authz {
    unsigned modes;
    struct authz_source src[RBAC_KINDS];
    struct rbac_object *defaults[6]; /* the bootstrap policy, parsed */
    struct rbac *index;              /* with AUTHZ_RBAC */
    void (*changed)(void *arg);
    void *changed_arg;
};

int authz_mode_parse(const char *text, unsigned *modes, char *why,
                     size_t why_len)
{
    char *copy = xstrdup(text), *save = NULL;
    int rc = RW_OK;

    *modes = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL && rc == RW_OK;
         tok = strtok_r(NULL, ",", &save)) {
        unsigned bit = strcmp(tok, "AlwaysAllow") == 0 ? AUTHZ_ALWAYS_ALLOW
                       : strcmp(tok, "RBAC") == 0      ? AUTHZ_RBAC
                                                       : 0;

        if (bit == 0) {
            snprintf(why, why_len,
                     "expected a comma-separated list of AlwaysAllow and "
                     "RBAC; %s is not supported",
                     tok);
            rc = RW_EINVAL;
        } else if (*modes & bit) {
            snprintf(why, why_len, "%s given twice", tok);
            rc = RW_EINVAL;
        }
        *modes |= bit;
    }
    free(copy);
    if (rc == RW_OK && *modes == 0) {
        snprintf(why, why_len, "expected AlwaysAllow, RBAC or both");
        rc = RW_EINVAL;
    }
    return rc;
}

/* ---- the RBAC objects ---- */

static void entry_fini(struct authz_entry *e)
{
    free(e->key);
    rbac_object_free(e->obj);
}

/* A walk of a source's cache beside its previous entries. */
struct refresh {
    struct authz_source *src;
    struct authz_entry *old, *v;
    size_t nold, at, n, cap;
};

/* The parse of o: its namespace and name as the cache holds them. */
static struct rbac_object *parse(struct authz_source *src,
                                 const struct object *o)
{
    struct rbac_object *ro;
    char why[256];

    if (rbac_object_parse(src->kind, o->json->data, o->json->len, &ro, why,
                          sizeof(why)) != RW_OK) {
        resource_metrics(src->r)->rbac_skipped++;
        log_warnx("%s %s%s%s at revision %" PRId64
                  ": malformed, skipped (it grants nothing): %s",
                  rbac_object_kind_resource(src->kind), o->ns,
                  *o->ns ? "/" : "", o->name, o->rv, why);
        return NULL;
    }
    free(ro->ns);
    free(ro->name);
    ro->ns = xstrdup(o->ns);
    ro->name = xstrdup(o->name);
    return ro;
}

static bool refresh_visit_cb(struct object *o, void *arg)
{
    struct refresh *w = arg;
    struct authz_entry e = {0};
    int c = 1;

    while (w->at < w->nold && (c = strcmp(w->old[w->at].key, o->key)) < 0)
        entry_fini(&w->old[w->at++]);
    if (w->at < w->nold && c == 0 && w->old[w->at].rv == o->rv) {
        e = w->old[w->at++];
    } else {
        e.key = xstrdup(o->key);
        e.rv = o->rv;
        e.obj = parse(w->src, o);
    }
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->v = xrealloc(w->v, w->cap * sizeof(*w->v));
    }
    w->v[w->n++] = e;
    return true;
}

/* Brings src's entries to its cache's state. */
static void source_refresh(struct authz_source *src)
{
    struct store_snap *snap =
        store_snapshot(watchcache_store(resource_cache(src->r)));
    struct refresh w = {.src = src, .old = src->v, .nold = src->n};

    store_snap_scan(snap, NULL, 0, refresh_visit_cb, &w);
    store_snap_unref(snap);
    while (w.at < w.nold)
        entry_fini(&w.old[w.at++]);
    free(src->v);
    src->v = w.v;
    src->n = w.n;
}

/*
 * The part of kube-apiserver's bootstrap policy that every client relies
 * on before any RBAC object of its own (plugin/pkg/auth/authorizer/rbac/
 * bootstrappolicy): probes and version for everyone
 * (system:public-info-viewer), discovery and the self reviews for every
 * authenticated user (system:discovery, system:basic-user).  The
 * apiserver writes them to the store at startup; a store ringwatch fronts
 * without an apiserver (a bare etcd, Redis) has none, so each applies
 * unless the store holds an object of its kind and name (then the
 * store's, as the apiserver leaves an edited one alone when it carries
 * rbac.authorization.kubernetes.io/autoupdate=false).
 */
static const struct {
    enum rbac_kind kind;
    const char *json;
} authz_bootstrap[] = {
    {RBAC_CLUSTERROLE,
     "{\"metadata\":{\"name\":\"system:public-info-viewer\"},\"rules\":[{"
     "\"verbs\":[\"get\"],\"nonResourceURLs\":[\"/healthz\",\"/livez\","
     "\"/readyz\",\"/version\",\"/version/\"]}]}"},
    {RBAC_CLUSTERROLEBINDING,
     "{\"metadata\":{\"name\":\"system:public-info-viewer\"},\"roleRef\":{"
     "\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
     "\"name\":\"system:public-info-viewer\"},\"subjects\":[{\"kind\":"
     "\"Group\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":"
     "\"system:authenticated\"},{\"kind\":\"Group\",\"apiGroup\":"
     "\"rbac.authorization.k8s.io\",\"name\":\"system:unauthenticated\"}]}"},
    {RBAC_CLUSTERROLE,
     "{\"metadata\":{\"name\":\"system:discovery\"},\"rules\":[{\"verbs\":"
     "[\"get\"],\"nonResourceURLs\":[\"/api\",\"/api/*\",\"/apis\",\"/apis/*\","
     "\"/healthz\",\"/livez\",\"/openapi\",\"/openapi/*\",\"/readyz\","
     "\"/version\",\"/version/\"]}]}"},
    {RBAC_CLUSTERROLEBINDING,
     "{\"metadata\":{\"name\":\"system:discovery\"},\"roleRef\":{"
     "\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
     "\"name\":\"system:discovery\"},\"subjects\":[{\"kind\":\"Group\","
     "\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":"
     "\"system:authenticated\"}]}"},
    {RBAC_CLUSTERROLE,
     "{\"metadata\":{\"name\":\"system:basic-user\"},\"rules\":[{\"verbs\":"
     "[\"create\"],\"apiGroups\":[\"authorization.k8s.io\"],\"resources\":"
     "[\"selfsubjectaccessreviews\",\"selfsubjectrulesreviews\"]},{\"verbs\":"
     "[\"create\"],\"apiGroups\":[\"authentication.k8s.io\"],\"resources\":"
     "[\"selfsubjectreviews\"]}]}"},
    {RBAC_CLUSTERROLEBINDING,
     "{\"metadata\":{\"name\":\"system:basic-user\"},\"roleRef\":{"
     "\"apiGroup\":\"rbac.authorization.k8s.io\",\"kind\":\"ClusterRole\","
     "\"name\":\"system:basic-user\"},\"subjects\":[{\"kind\":\"Group\","
     "\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":"
     "\"system:authenticated\"}]}"},
};

/* Whether src's objects include one named name (malformed ones too: the
 * store's word on that name, even one that grants nothing). */
static bool source_has(const struct authz_source *src, const char *name)
{
    for (size_t i = 0; i < src->n; i++) {
        const char *slash = strrchr(src->v[i].key, '/');

        if (strcmp(slash != NULL ? slash + 1 : src->v[i].key, name) == 0)
            return true;
    }
    return false;
}

/* A new index over every source's parses, replacing the old. */
static void authz_reindex(struct authz *z)
{
    struct rbac *x = rbac_new();

    for (int k = 0; k < RBAC_KINDS; k++)
        for (size_t i = 0; i < z->src[k].n; i++)
            if (z->src[k].v[i].obj != NULL)
                rbac_add(x, z->src[k].v[i].obj);
    for (size_t i = 0; i < RW_ARRAY_LEN(z->defaults); i++)
        if (!source_has(&z->src[z->defaults[i]->kind], z->defaults[i]->name))
            rbac_add(x, z->defaults[i]);
    rbac_build(x);
    rbac_free(z->index);
    z->index = x;
}

static void authz_source_changed_cb(void *arg)
{
    struct authz_source *src = arg;
    struct authz *z = src->z;

    /* A cache emptied by a store history reset is no statement about
     * RBAC: the last state holds until the store is listed again.  Nor is
     * an older state while a warm start replays the history since
     * (resource_catch_up): a binding deleted since would grant again. */
    if (!resource_caught_up(src->r))
        return;
    source_refresh(src);
    authz_reindex(z);
    if (z->changed != NULL)
        z->changed(z->changed_arg);
}

struct authz *authz_new(unsigned modes, struct resource *const *rbac)
{
    struct authz *z = xcalloc(1, sizeof(*z));

    z->modes = modes;
    if (!(modes & AUTHZ_RBAC))
        return z;
    rw_assert(rbac != NULL);
    static_assert(RW_ARRAY_LEN(z->defaults) == RW_ARRAY_LEN(authz_bootstrap),
                  "one parse per bootstrap object");
    for (size_t i = 0; i < RW_ARRAY_LEN(authz_bootstrap); i++) {
        char why[256];

        rw_assert(
            rbac_object_parse(authz_bootstrap[i].kind, authz_bootstrap[i].json,
                              strlen(authz_bootstrap[i].json), &z->defaults[i],
                              why, sizeof(why)) == RW_OK);
    }
    for (int k = 0; k < RBAC_KINDS; k++) {
        struct authz_source *src = &z->src[k];

        src->z = z;
        src->kind = (enum rbac_kind)k;
        src->r = rbac[k];
        rw_assert(strcmp(resource_type(src->r)->resource,
                         rbac_object_kind_resource(src->kind)) == 0);
        resource_observe(src->r, authz_source_changed_cb, src);
        source_refresh(src);
    }
    authz_reindex(z);
    return z;
}

void authz_free(struct authz *z)
{
    if (z == NULL)
        return;
    for (int k = 0; k < RBAC_KINDS; k++) {
        struct authz_source *src = &z->src[k];

        if (src->r != NULL)
            resource_observe(src->r, NULL, NULL);
        for (size_t i = 0; i < src->n; i++)
            entry_fini(&src->v[i]);
        free(src->v);
    }
    rbac_free(z->index);
    for (size_t i = 0; i < RW_ARRAY_LEN(z->defaults); i++)
        rbac_object_free(z->defaults[i]);
    free(z);
}

bool authz_may_deny(const struct authz *z)
{
    return z != NULL && z->modes == AUTHZ_RBAC;
}

void authz_on_change(struct authz *z, void (*changed)(void *arg), void *arg)
{
    z->changed = changed;
    z->changed_arg = arg;
}

/* ---- decisions ---- */

enum authz_decision authz_authorize(struct authz *z, const struct identity *id,
                                    const struct authz_attributes *a,
                                    char *reason, size_t reason_len)
{
    if (reason_len > 0)
        *reason = '\0';
    if (z == NULL || (z->modes & AUTHZ_ALWAYS_ALLOW))
        return AUTHZ_ALLOW;
    return rbac_allows(z->index, id, a, reason, reason_len) ? AUTHZ_ALLOW
                                                            : AUTHZ_DENY;
}

void authz_rules(struct authz *z, const struct identity *id, const char *ns,
                 rbac_rule_fn fn, void *arg, char *error, size_t error_len)
{
    static char *all[] = {"*"};
    static const struct rbac_strings star = {all, 1};
    static const struct rbac_rule everything = {
        .verbs = star,
        .api_groups = star,
        .resources = star,
        .non_resource_urls = star,
    };

    if (error_len > 0)
        *error = '\0';
    if (z != NULL && (z->modes & AUTHZ_RBAC))
        rbac_rules(z->index, id, ns, fn, arg, error, error_len);
    if (z == NULL || (z->modes & AUTHZ_ALWAYS_ALLOW))
        fn(&everything, arg);
}

/* Go's %q of s into b: quoted, with \" \\ and control bytes escaped. */
static void add_quoted(struct sbuf *b, const char *s)
{
    sbuf_add(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sbuf_addf(b, "\\%c", *p);
        else if (*p == '\n')
            sbuf_add(b, "\\n");
        else if (*p == '\t')
            sbuf_add(b, "\\t");
        else if (*p == '\r')
            sbuf_add(b, "\\r");
        else if (*p < 0x20 || *p == 0x7f)
            sbuf_addf(b, "\\x%02x", *p);
        else
            sbuf_addf(b, "%c", *p);
    }
    sbuf_add(b, "\"");
}

#define S(s) ((s) ? (s) : "")

/* Appends authz_forbidden_message's text to b. */
static void forbidden_message(struct sbuf *b, const struct identity *id,
                              const struct authz_attributes *a)
{
    /* errors.NewForbidden's qualified resource and name */
    if (!a->resource_request || *S(a->resource) == '\0') {
        sbuf_add(b, "forbidden: ");
    } else {
        sbuf_addf(b, "%s%s%s", a->resource, *S(a->api_group) ? "." : "",
                  S(a->api_group));
        if (*S(a->name)) {
            sbuf_add(b, " ");
            add_quoted(b, a->name);
        }
        sbuf_add(b, " is forbidden: ");
    }
    /* responsewriters.forbiddenMessage */
    sbuf_add(b, "User ");
    add_quoted(b, id->name);
    sbuf_addf(b, " cannot %s ", S(a->verb));
    if (!a->resource_request) {
        sbuf_add(b, "path ");
        add_quoted(b, S(a->path));
    } else {
        struct sbuf res = {0};

        sbuf_addf(&res, "%s%s%s", S(a->resource), *S(a->subresource) ? "/" : "",
                  S(a->subresource));
        sbuf_add(b, "resource ");
        add_quoted(b, res.data ? res.data : "");
        sbuf_add(b, " in API group ");
        add_quoted(b, S(a->api_group));
        if (*S(a->ns)) {
            sbuf_add(b, " in the namespace ");
            add_quoted(b, a->ns);
        } else {
            sbuf_add(b, " at the cluster scope");
        }
        sbuf_fini(&res);
    }
}

void authz_forbidden_message(const struct identity *id,
                             const struct authz_attributes *a, char *out,
                             size_t out_len)
{
    struct sbuf b = {0};

    forbidden_message(&b, id, a);
    snprintf(out, out_len, "%s", b.data);
    sbuf_fini(&b);
}

struct rbuf *authz_forbidden_status(const struct identity *id,
                                    const struct authz_attributes *a,
                                    const char *reason, bool event)
{
    struct sbuf msg = {0};
    struct rbuf *body;
    bool named = a->resource_request && *S(a->resource);

    forbidden_message(&msg, id, a);
    if (*S(reason))
        sbuf_addf(&msg, ": %s", reason);
    body = kjson_status_forbidden(msg.data, named ? S(a->name) : "",
                                  named ? S(a->api_group) : "",
                                  named ? S(a->resource) : "", event);
    sbuf_fini(&msg);
    return body;
}
