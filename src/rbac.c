/*
 * rbac.c: the RBAC evaluator (see rbac.h).
 *
 * Data: per kind, the objects sorted by (namespace, name), so that a role
 * is found by binary search and a namespace's RoleBindings are one run;
 * per ClusterRole with an aggregationRule, the plain ClusterRoles whose
 * rules it has (its sources), resolved once by rbac_build.  A request
 * walks the ClusterRoleBindings, then its namespace's RoleBindings, and
 * stops at the first rule that allows it.
 */
#include "src/rbac.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"

/* How many distinct missing roles a denial's reason names at most. */
#define RBAC_MAX_MISSING 16

struct rbac_sources {
    const struct rbac_object **v; /* plain ClusterRoles */
    size_t n;
};

struct rbac {
    const struct rbac_object **objs[RBAC_KINDS];
    size_t n[RBAC_KINDS], cap[RBAC_KINDS];
    struct rbac_sources *sources; /* per clusterrole (objs index) */
    bool built;
};

struct rbac *rbac_new(void)
{
    return xcalloc(1, sizeof(struct rbac));
}

void rbac_free(struct rbac *x)
{
    if (x == NULL)
        return;
    for (size_t i = 0; x->sources != NULL && i < x->n[RBAC_CLUSTERROLE]; i++)
        free(x->sources[i].v);
    free(x->sources);
    for (int k = 0; k < RBAC_KINDS; k++)
        free(x->objs[k]);
    free(x);
}

void rbac_add(struct rbac *x, const struct rbac_object *o)
{
    enum rbac_kind k = o->kind;

    rw_assert(!x->built);
    if (x->n[k] == x->cap[k]) {
        x->cap[k] = x->cap[k] ? 2 * x->cap[k] : 16;
        x->objs[k] = xrealloc(x->objs[k], x->cap[k] * sizeof(*x->objs[k]));
    }
    x->objs[k][x->n[k]++] = o;
}

static int compare_objects(const void *a, const void *b)
{
    const struct rbac_object *x = *(const struct rbac_object *const *)a;
    const struct rbac_object *y = *(const struct rbac_object *const *)b;
    int c = strcmp(x->ns, y->ns);

    return c ? c : strcmp(x->name, y->name);
}

/* The index of the first object of kind k at or after (ns, name). */
static size_t lower_bound(const struct rbac *x, enum rbac_kind k,
                          const char *ns, const char *name)
{
    size_t lo = 0, hi = x->n[k];

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct rbac_object *o = x->objs[k][mid];
        int c = strcmp(o->ns, ns);

        if (c == 0)
            c = strcmp(o->name, name);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The object (ns, name) of kind k, or SIZE_MAX. */
static size_t find(const struct rbac *x, enum rbac_kind k, const char *ns,
                   const char *name)
{
    size_t i = lower_bound(x, k, ns, name);

    if (i < x->n[k] && strcmp(x->objs[k][i]->ns, ns) == 0 &&
        strcmp(x->objs[k][i]->name, name) == 0)
        return i;
    return SIZE_MAX;
}

/* ---- aggregation ---- */

static bool selected(const struct rbac_object *agg, const struct rbac_object *o)
{
    for (size_t s = 0; s < agg->nselectors; s++)
        if (rbac_selector_matches(&agg->selectors[s], o->labels, o->nlabels))
            return true;
    return false;
}

/* Adds to src the plain ClusterRoles the aggregated ClusterRole at
 * selects, through aggregated ones it selects in turn; seen marks the
 * ClusterRoles visited (the root first: a role never aggregates
 * itself, as the controller skips it). */
static void collect(const struct rbac *x, size_t at, bool *seen,
                    struct rbac_sources *src)
{
    const struct rbac_object *agg = x->objs[RBAC_CLUSTERROLE][at];

    for (size_t j = 0; j < x->n[RBAC_CLUSTERROLE]; j++) {
        const struct rbac_object *o = x->objs[RBAC_CLUSTERROLE][j];

        if (seen[j] || !selected(agg, o))
            continue;
        seen[j] = true;
        if (o->aggregated) {
            collect(x, j, seen, src);
            continue;
        }
        src->v = xrealloc(src->v, (src->n + 1) * sizeof(*src->v));
        src->v[src->n++] = o;
    }
}

void rbac_build(struct rbac *x)
{
    size_t ncr = x->n[RBAC_CLUSTERROLE];
    bool *seen;

    rw_assert(!x->built);
    x->built = true;
    for (int k = 0; k < RBAC_KINDS; k++)
        if (x->n[k] > 1)
            qsort(x->objs[k], x->n[k], sizeof(*x->objs[k]), compare_objects);
    x->sources = xcalloc(ncr + 1, sizeof(*x->sources));
    seen = xcalloc(ncr + 1, sizeof(*seen));
    for (size_t i = 0; i < ncr; i++) {
        if (!x->objs[RBAC_CLUSTERROLE][i]->aggregated)
            continue;
        memset(seen, 0, ncr * sizeof(*seen));
        seen[i] = true;
        collect(x, i, seen, &x->sources[i]);
    }
    free(seen);
}

/* ---- rules ---- */

static bool has_or_all(const struct rbac_strings *s, const char *v,
                       const char *all)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], all) == 0 || strcmp(s->v[i], v) == 0)
            return true;
    return false;
}

/* ResourceMatches: "*", the exact RES or RES/SUB, or "*\/SUB". */
static bool resource_matches(const struct rbac_rule *r, const char *combined,
                             const char *sub)
{
    size_t sublen = strlen(sub);

    for (size_t i = 0; i < r->resources.n; i++) {
        const char *res = r->resources.v[i];

        if (strcmp(res, "*") == 0 || strcmp(res, combined) == 0)
            return true;
        if (sublen > 0 && strlen(res) == sublen + 2 &&
            strncmp(res, "*/", 2) == 0 && strcmp(res + 2, sub) == 0)
            return true;
    }
    return false;
}

static bool resource_name_matches(const struct rbac_rule *r, const char *name)
{
    for (size_t i = 0; i < r->resource_names.n; i++)
        if (strcmp(r->resource_names.v[i], name) == 0)
            return true;
    return r->resource_names.n == 0;
}

/* NonResourceURLMatches: "*", the exact path, or a prefix ending in "*". */
static bool url_matches(const struct rbac_rule *r, const char *path)
{
    for (size_t i = 0; i < r->non_resource_urls.n; i++) {
        const char *u = r->non_resource_urls.v[i];
        size_t len = strlen(u);

        if (strcmp(u, "*") == 0 || strcmp(u, path) == 0)
            return true;
        /* strings.TrimRight(u, "*"): every trailing star */
        while (len > 0 && u[len - 1] == '*')
            len--;
        if (len < strlen(u) && strncmp(path, u, len) == 0)
            return true;
    }
    return false;
}

#define S(s) ((s) ? (s) : "")

/* RuleAllows. */
static bool rule_allows(const struct rbac_rule *r,
                        const struct authz_attributes *a, const char *combined)
{
    if (!has_or_all(&r->verbs, S(a->verb), "*"))
        return false;
    if (!a->resource_request)
        return url_matches(r, S(a->path));
    return has_or_all(&r->api_groups, S(a->api_group), "*") &&
           resource_matches(r, combined, S(a->subresource)) &&
           resource_name_matches(r, S(a->name));
}

static bool rules_allow(const struct rbac_object *role,
                        const struct authz_attributes *a, const char *combined)
{
    for (size_t i = 0; i < role->nrules; i++)
        if (rule_allows(&role->rules[i], a, combined))
            return true;
    return false;
}

/* ---- subjects and bindings ---- */

static bool subject_applies(const struct rbac_subject *s,
                            const struct identity *id, const char *ns)
{
    static const char prefix[] = "system:serviceaccount:";
    const char *sa_ns, *rest;
    size_t len;

    switch (s->kind) {
    case RBAC_SUBJECT_USER:
        return strcmp(id->name, s->name) == 0;
    case RBAC_SUBJECT_GROUP:
        return identity_in_group(id, s->name);
    default:
        /* the binding's namespace when the subject names none */
        sa_ns = *s->ns ? s->ns : ns;
        len = strlen(sa_ns);
        if (len == 0 || strncmp(id->name, prefix, sizeof(prefix) - 1) != 0)
            return false;
        rest = id->name + sizeof(prefix) - 1;
        return strncmp(rest, sa_ns, len) == 0 && rest[len] == ':' &&
               strcmp(rest + len + 1, s->name) == 0;
    }
}

static bool binding_applies(const struct rbac_object *b,
                            const struct identity *id)
{
    for (size_t i = 0; i < b->nsubjects; i++)
        if (subject_applies(&b->subjects[i], id, b->ns))
            return true;
    return false;
}

/* The missing roles of bindings that apply (the denial's reason). */
struct missing {
    struct {
        bool cluster;
        const char *name;
    } v[RBAC_MAX_MISSING];
    size_t n;
};

static void missing_add(struct missing *m, bool cluster, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].cluster == cluster && strcmp(m->v[i].name, name) == 0)
            return;
    if (m->n < RBAC_MAX_MISSING) {
        m->v[m->n].cluster = cluster;
        m->v[m->n++].name = name;
    }
}

/* utilerrors.NewAggregate(...).Error() of the not-found errors, after
 * "RBAC: ". */
static void missing_reason(const struct missing *m, char *out, size_t len)
{
    struct sbuf b = {0};

    if (m->n == 0) {
        snprintf(out, len, "%s", "");
        return;
    }
    sbuf_add(&b, m->n > 1 ? "RBAC: [" : "RBAC: ");
    for (size_t i = 0; i < m->n; i++)
        sbuf_addf(&b, "%s%s.rbac.authorization.k8s.io \"%s\" not found",
                  i ? ", " : "", m->v[i].cluster ? "clusterrole" : "role",
                  m->v[i].name);
    if (m->n > 1)
        sbuf_add(&b, "]");
    snprintf(out, len, "%s", b.data);
    sbuf_fini(&b);
}

/* Whether the role binding b refers to allows a; a missing role is noted. */
static bool binding_allows(const struct rbac *x, const struct rbac_object *b,
                           const struct authz_attributes *a,
                           const char *combined, struct missing *m)
{
    size_t i = b->ref_cluster ? find(x, RBAC_CLUSTERROLE, "", b->ref_name)
                              : find(x, RBAC_ROLE, b->ns, b->ref_name);
    const struct rbac_sources *src;

    if (i == SIZE_MAX) {
        missing_add(m, b->ref_cluster, b->ref_name);
        return false;
    }
    if (!b->ref_cluster)
        return rules_allow(x->objs[RBAC_ROLE][i], a, combined);
    if (!x->objs[RBAC_CLUSTERROLE][i]->aggregated)
        return rules_allow(x->objs[RBAC_CLUSTERROLE][i], a, combined);
    src = &x->sources[i];
    for (size_t s = 0; s < src->n; s++)
        if (rules_allow(src->v[s], a, combined))
            return true;
    return false;
}

bool rbac_allows(const struct rbac *x, const struct identity *id,
                 const struct authz_attributes *a, char *reason,
                 size_t reason_len)
{
    const char *ns = a->resource_request ? S(a->ns) : "";
    struct missing m = {.n = 0};
    char *combined;
    bool ok = false;

    rw_assert(x->built);
    if (identity_in_group(id, IDENTITY_MASTERS))
        return true;
    combined = *S(a->subresource)
                   ? xasprintf("%s/%s", S(a->resource), a->subresource)
                   : xstrdup(S(a->resource));
    for (size_t i = 0; !ok && i < x->n[RBAC_CLUSTERROLEBINDING]; i++) {
        const struct rbac_object *b = x->objs[RBAC_CLUSTERROLEBINDING][i];

        ok = binding_applies(b, id) && binding_allows(x, b, a, combined, &m);
    }
    for (size_t i = *ns ? lower_bound(x, RBAC_ROLEBINDING, ns, "") : SIZE_MAX;
         !ok && i < x->n[RBAC_ROLEBINDING] &&
         strcmp(x->objs[RBAC_ROLEBINDING][i]->ns, ns) == 0;
         i++) {
        const struct rbac_object *b = x->objs[RBAC_ROLEBINDING][i];

        ok = binding_applies(b, id) && binding_allows(x, b, a, combined, &m);
    }
    free(combined);
    if (!ok)
        missing_reason(&m, reason, reason_len);
    return ok;
}
