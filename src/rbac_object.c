/*
 * rbac_object.c: the parse of one RBAC object (see rbac_object.h).  Every
 * reader below returns false on a member of the wrong type, leaving what
 * it filled for rbac_object_free.
 */
#include "src/rbac_object.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/jval.h"

const char *rbac_object_kind_resource(enum rbac_kind kind)
{
    static const char *const names[RBAC_KINDS] = {
        "roles", "rolebindings", "clusterroles", "clusterrolebindings"};

    rw_assert(kind < RBAC_KINDS);
    return names[kind];
}

/* A parse in progress: the first problem, for the log. */
struct parse {
    char *why;
    size_t why_len;
};

static bool fail(struct parse *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static bool fail(struct parse *p, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(p->why, p->why_len, fmt, ap);
    va_end(ap);
    return false;
}

/* Whether v is absent (or null) or of type t. */
static bool absent_or(const struct jval *v, enum jval_type t)
{
    return v == NULL || jval_type(v) == t;
}

/* A string member: "" when absent; false when of another type. */
static bool read_string(struct parse *p, const struct jval *obj,
                        const char *name, char **out)
{
    const struct jval *v = jval_get(obj, name);

    if (!absent_or(v, JVAL_STRING))
        return fail(p, "%s: expected a string", name);
    *out = xstrdup(jval_str(v));
    return true;
}

/* A []string member. */
static bool read_strings(struct parse *p, const struct jval *obj,
                         const char *name, struct rbac_strings *out)
{
    const struct jval *v = jval_get(obj, name), *e;

    if (!absent_or(v, JVAL_ARRAY))
        return fail(p, "%s: expected an array of strings", name);
    out->v = xcalloc(jval_len(v) + 1, sizeof(*out->v));
    JVAL_EACH(e, v)
    {
        /* null reads as "", as Go's decoder leaves a string element */
        if (!absent_or(e, JVAL_STRING) && jval_type(e) != JVAL_NULL)
            return fail(p, "%s: expected an array of strings", name);
        out->v[out->n++] = xstrdup(jval_str(e));
    }
    return true;
}

static void strings_fini(struct rbac_strings *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

/* An array member whose elements are objects: *n and a zeroed array of
 * that many elements of size each. */
static bool read_objects(struct parse *p, const struct jval *obj,
                         const char *name, size_t size, void **out, size_t *n)
{
    const struct jval *v = jval_get(obj, name), *e;

    if (!absent_or(v, JVAL_ARRAY))
        return fail(p, "%s: expected an array of objects", name);
    JVAL_EACH(e, v)
    if (jval_type(e) != JVAL_OBJECT)
        return fail(p, "%s: expected an array of objects", name);
    *n = jval_len(v);
    *out = xcalloc(*n + 1, size);
    return true;
}

static bool read_rules(struct parse *p, const struct jval *obj,
                       struct rbac_object *o)
{
    const struct jval *e;
    size_t i = 0;

    if (!read_objects(p, obj, "rules", sizeof(*o->rules), (void **)&o->rules,
                      &o->nrules))
        return false;
    JVAL_EACH(e, jval_get(obj, "rules"))
    {
        struct rbac_rule *r = &o->rules[i++];

        if (!read_strings(p, e, "verbs", &r->verbs) ||
            !read_strings(p, e, "apiGroups", &r->api_groups) ||
            !read_strings(p, e, "resources", &r->resources) ||
            !read_strings(p, e, "resourceNames", &r->resource_names) ||
            !read_strings(p, e, "nonResourceURLs", &r->non_resource_urls))
            return false;
    }
    return true;
}

/* A map[string]string member into labels (each key once: the last). */
static bool read_labels(struct parse *p, const struct jval *obj,
                        const char *name, struct rbac_label **out, size_t *n)
{
    const struct jval *v = jval_get(obj, name), *e;

    if (!absent_or(v, JVAL_OBJECT))
        return fail(p, "%s: expected an object of strings", name);
    *out = xcalloc(jval_count(v) + 1, sizeof(**out));
    *n = 0;
    JVAL_EACH(e, v)
    {
        if (jval_type(e) != JVAL_STRING && jval_type(e) != JVAL_NULL)
            return fail(p, "%s: expected an object of strings", name);
        if (jval_shadowed(e))
            continue;
        (*out)[*n].key = xstrdup(jval_name(e));
        (*out)[(*n)++].value = xstrdup(jval_str(e));
    }
    return true;
}

/* One matchExpressions element, as labels.NewRequirement checks it. */
static bool read_requirement(struct parse *p, const struct jval *e,
                             struct rbac_requirement *r)
{
    static const char *const ops[] = {"In", "NotIn", "Exists", "DoesNotExist"};
    const struct jval *op = jval_get(e, "operator");
    size_t i;

    if (!read_string(p, e, "key", &r->key) ||
        !read_strings(p, e, "values", &r->values))
        return false;
    if (!absent_or(op, JVAL_STRING))
        return fail(p, "operator: expected a string");
    for (i = 0; i < RW_ARRAY_LEN(ops); i++)
        if (strcmp(jval_str(op), ops[i]) == 0)
            break;
    if (i == RW_ARRAY_LEN(ops))
        return fail(p, "\"%s\" is not a valid label selector operator",
                    jval_str(op));
    r->op = (enum rbac_selector_op)i;
    if ((r->op <= RBAC_SEL_NOT_IN) != (r->values.n > 0))
        return fail(p, "%s: values must be %s for operator %s", r->key,
                    r->values.n ? "empty" : "non-empty", ops[i]);
    return true;
}

static bool read_selector(struct parse *p, const struct jval *e,
                          struct rbac_selector *s)
{
    struct rbac_label *labels = NULL;
    const struct jval *x;
    size_t nlabels = 0, nexpr = 0, i = 0;
    bool ok = read_labels(p, e, "matchLabels", &labels, &nlabels) &&
              read_objects(p, e, "matchExpressions", sizeof(*s->req),
                           (void **)&s->req, &nexpr);

    if (ok) {
        s->req = xrealloc(s->req, (nlabels + nexpr + 1) * sizeof(*s->req));
        JVAL_EACH(x, jval_get(e, "matchExpressions"))
        {
            memset(&s->req[i], 0, sizeof(s->req[i]));
            s->n = ++i;
            if (!(ok = read_requirement(p, x, &s->req[i - 1])))
                break;
        }
    }
    for (size_t l = 0; l < nlabels; l++) {
        if (ok) {
            struct rbac_requirement *r = &s->req[s->n++];

            *r = (struct rbac_requirement){.key = labels[l].key,
                                           .op = RBAC_SEL_IN};
            r->values.v = xcalloc(1, sizeof(*r->values.v));
            r->values.v[r->values.n++] = labels[l].value;
        } else {
            free(labels[l].key);
            free(labels[l].value);
        }
    }
    free(labels);
    return ok;
}

static bool read_aggregation(struct parse *p, const struct jval *obj,
                             struct rbac_object *o)
{
    const struct jval *agg = jval_get(obj, "aggregationRule"), *e;
    size_t i = 0;

    if (!absent_or(agg, JVAL_OBJECT))
        return fail(p, "aggregationRule: expected an object");
    if (agg == NULL)
        return true;
    o->aggregated = true;
    if (!read_objects(p, agg, "clusterRoleSelectors", sizeof(*o->selectors),
                      (void **)&o->selectors, &o->nselectors))
        return false;
    JVAL_EACH(e, jval_get(agg, "clusterRoleSelectors"))
    if (!read_selector(p, e, &o->selectors[i++]))
        return false;
    return true;
}

static bool read_role_ref(struct parse *p, const struct jval *obj,
                          struct rbac_object *o)
{
    const struct jval *ref = jval_get(obj, "roleRef");
    char *kind = NULL;
    bool ok;

    if (jval_type(ref) != JVAL_OBJECT)
        return fail(p, "roleRef: expected an object");
    if (!read_string(p, ref, "kind", &kind) ||
        !read_string(p, ref, "name", &o->ref_name)) {
        free(kind);
        return false;
    }
    o->ref_cluster = strcmp(kind, "ClusterRole") == 0;
    ok = o->ref_cluster ||
         (strcmp(kind, "Role") == 0 && o->kind == RBAC_ROLEBINDING);
    if (!ok)
        fail(p, "roleRef.kind: \"%s\" is not %s", kind,
             o->kind == RBAC_ROLEBINDING ? "Role or ClusterRole"
                                         : "ClusterRole");
    free(kind);
    return ok;
}

static bool read_subjects(struct parse *p, const struct jval *obj,
                          struct rbac_object *o)
{
    static const char *const kinds[] = {"User", "Group", "ServiceAccount"};
    const struct jval *e;
    size_t i = 0;

    if (!read_objects(p, obj, "subjects", sizeof(*o->subjects),
                      (void **)&o->subjects, &o->nsubjects))
        return false;
    JVAL_EACH(e, jval_get(obj, "subjects"))
    {
        struct rbac_subject *s = &o->subjects[i++];
        char *kind = NULL;
        size_t k;

        if (!read_string(p, e, "kind", &kind) ||
            !read_string(p, e, "name", &s->name) ||
            !read_string(p, e, "namespace", &s->ns)) {
            free(kind);
            return false;
        }
        for (k = 0; k < RW_ARRAY_LEN(kinds); k++)
            if (strcmp(kind, kinds[k]) == 0)
                break;
        if (k == RW_ARRAY_LEN(kinds)) {
            fail(p, "subjects: unknown kind \"%s\"", kind);
            free(kind);
            return false;
        }
        s->kind = (enum rbac_subject_kind)k;
        free(kind);
    }
    return true;
}

static bool read_object(struct parse *p, const struct jval *root,
                        struct rbac_object *o)
{
    const struct jval *meta = jval_get(root, "metadata");

    if (jval_type(root) != JVAL_OBJECT)
        return fail(p, "not a JSON object");
    if (!absent_or(meta, JVAL_OBJECT))
        return fail(p, "metadata: expected an object");
    if (!read_string(p, meta, "namespace", &o->ns) ||
        !read_string(p, meta, "name", &o->name) ||
        !read_labels(p, meta, "labels", &o->labels, &o->nlabels))
        return false;
    switch (o->kind) {
    case RBAC_ROLE:
        return read_rules(p, root, o);
    case RBAC_CLUSTERROLE:
        return read_rules(p, root, o) && read_aggregation(p, root, o);
    default:
        return read_role_ref(p, root, o) && read_subjects(p, root, o);
    }
}

int rbac_object_parse(enum rbac_kind kind, const char *json, size_t len,
                      struct rbac_object **out, char *why, size_t why_len)
{
    struct parse p = {why, why_len};
    struct jval *root = jval_try_parse(json, len);
    struct rbac_object *o = xcalloc(1, sizeof(*o));
    bool ok;

    rw_assert(kind < RBAC_KINDS);
    o->kind = kind;
    ok = root != NULL ? read_object(&p, root, o) : fail(&p, "not JSON");
    jval_free(root);
    if (!ok) {
        rbac_object_free(o);
        o = NULL;
    }
    *out = o;
    return ok ? RW_OK : RW_EINVAL;
}

static void selector_fini(struct rbac_selector *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->req[i].key);
        strings_fini(&s->req[i].values);
    }
    free(s->req);
}

void rbac_object_free(struct rbac_object *o)
{
    if (o == NULL)
        return;
    for (size_t i = 0; o->rules != NULL && i < o->nrules; i++) {
        strings_fini(&o->rules[i].verbs);
        strings_fini(&o->rules[i].api_groups);
        strings_fini(&o->rules[i].resources);
        strings_fini(&o->rules[i].resource_names);
        strings_fini(&o->rules[i].non_resource_urls);
    }
    for (size_t i = 0; i < o->nlabels; i++) {
        free(o->labels[i].key);
        free(o->labels[i].value);
    }
    for (size_t i = 0; o->selectors != NULL && i < o->nselectors; i++)
        selector_fini(&o->selectors[i]);
    for (size_t i = 0; o->subjects != NULL && i < o->nsubjects; i++) {
        free(o->subjects[i].name);
        free(o->subjects[i].ns);
    }
    free(o->rules);
    free(o->labels);
    free(o->selectors);
    free(o->subjects);
    free(o->ns);
    free(o->name);
    free(o->ref_name);
    free(o);
}

/* The value of key among labels, NULL when absent. */
static const char *label_value(const struct rbac_label *labels, size_t n,
                               const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(labels[i].key, key) == 0)
            return labels[i].value;
    return NULL;
}

static bool strings_has(const struct rbac_strings *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], v) == 0)
            return true;
    return false;
}

bool rbac_object_selector_matches(const struct rbac_selector *sel,
                                  const struct rbac_label *labels,
                                  size_t nlabels)
{
    for (size_t i = 0; i < sel->n; i++) {
        const struct rbac_requirement *r = &sel->req[i];
        const char *v = label_value(labels, nlabels, r->key);
        bool ok;

        switch (r->op) {
        case RBAC_SEL_IN:
            ok = v != NULL && strings_has(&r->values, v);
            break;
        case RBAC_SEL_NOT_IN:
            ok = v == NULL || !strings_has(&r->values, v);
            break;
        case RBAC_SEL_EXISTS:
            ok = v != NULL;
            break;
        default:
            ok = v == NULL;
            break;
        }
        if (!ok)
            return false;
    }
    return true;
}
