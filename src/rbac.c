/*
 * rbac.c: the RBAC evaluator (see rbac.h).
 *
 * Data: per kind, the objects sorted by (namespace, name), so that a role
 * is found by binary search and a namespace's RoleBindings are one run;
 * per ClusterRole with an aggregationRule, the plain ClusterRoles whose
 * rules it has (its sources), resolved once by rbac_build; per binding
 * kind, every subject filed under the user name or group it applies to.
 * A request looks up the ClusterRoleBindings, then its namespace's
 * RoleBindings, that apply to its user and groups, and stops at the first
 * rule that allows it.
 */
#include "src/rbac.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"

struct rbac_sources {
    const struct rbac_object **v; /* plain ClusterRoles */
    size_t n;
};

/* One subject of one binding, as the user name or group it applies to. */
struct rbac_grantee {
    const char *ns;  /* the RoleBinding's namespace, "" for a cluster one */
    bool group;      /* key is a group name, else a user name */
    const char *key; /* a ServiceAccount's: system:serviceaccount:NS:NAME */
    size_t binding;  /* index into objs[RBAC_ROLEBINDING or _CLUSTER...] */
};

/* The grantees of one binding kind, sorted by (ns, group, key, binding). */
struct rbac_grantees {
    struct rbac_grantee *v;
    size_t n;
};

struct rbac {
    const struct rbac_object **objs[RBAC_KINDS];
    size_t n[RBAC_KINDS], cap[RBAC_KINDS];
    struct rbac_sources *sources;        /* per clusterrole (objs index) */
    struct rbac_grantees cluster, local; /* of ClusterRole-, RoleBindings */
    char **sa_names; /* the service-account user names keys point to */
    size_t nsa_names;
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
    free(x->cluster.v);
    free(x->local.v);
    for (size_t i = 0; i < x->nsa_names; i++)
        free(x->sa_names[i]);
    free(x->sa_names);
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
        if (rbac_object_selector_matches(&agg->selectors[s], o->labels,
                                         o->nlabels))
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

/*
 * Subjects are filed by the user name or group they apply to, as the
 * apiserver's appliesToUser compares them: a User by its name, a Group by
 * its name, a ServiceAccount as the user system:serviceaccount:NS:NAME
 * (NS its namespace, or the RoleBinding's when it names none; a
 * ClusterRoleBinding's without one applies to nobody).  A request then
 * looks up its user name and each of its groups instead of walking every
 * binding.
 */

static int compare_grantees(const void *a, const void *b)
{
    const struct rbac_grantee *x = a, *y = b;
    int c = strcmp(x->ns, y->ns);

    if (c == 0 && x->group != y->group)
        c = x->group ? 1 : -1;
    if (c == 0)
        c = strcmp(x->key, y->key);
    if (c == 0 && x->binding != y->binding)
        c = x->binding < y->binding ? -1 : 1;
    return c;
}

static void file_subjects(struct rbac *x, enum rbac_kind kind,
                          struct rbac_grantees *g)
{
    size_t total = 0;

    for (size_t i = 0; i < x->n[kind]; i++)
        total += x->objs[kind][i]->nsubjects;
    g->v = xcalloc(total + 1, sizeof(*g->v));
    x->sa_names = xrealloc(x->sa_names,
                           (x->nsa_names + total + 1) * sizeof(*x->sa_names));
    for (size_t i = 0; i < x->n[kind]; i++) {
        const struct rbac_object *b = x->objs[kind][i];

        for (size_t j = 0; j < b->nsubjects; j++) {
            const struct rbac_subject *sub = &b->subjects[j];
            struct rbac_grantee e = {b->ns, sub->kind == RBAC_SUBJECT_GROUP,
                                     sub->name, i};

            if (sub->kind == RBAC_SUBJECT_SERVICE_ACCOUNT) {
                const char *sa_ns = *sub->ns ? sub->ns : b->ns;

                if (*sa_ns == '\0')
                    continue;
                e.key = x->sa_names[x->nsa_names++] =
                    xasprintf(IDENTITY_SA_PREFIX "%s:%s", sa_ns, sub->name);
            }
            g->v[g->n++] = e;
        }
    }
    qsort(g->v, g->n, sizeof(*g->v), compare_grantees);
}

/* The bindings a request's user or groups are among the subjects of. */
struct applying {
    size_t *v;
    size_t n, cap;
};

/* Adds the bindings filed under (ns, group, key) to out. */
static void find_grantees(const struct rbac_grantees *g, const char *ns,
                          bool group, const char *key, struct applying *out)
{
    struct rbac_grantee want = {ns, group, key, 0};
    size_t lo = 0, hi = g->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (compare_grantees(&g->v[mid], &want) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < g->n && g->v[lo].group == group &&
           strcmp(g->v[lo].ns, ns) == 0 && strcmp(g->v[lo].key, key) == 0;
         lo++) {
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 16;
            out->v = xrealloc(out->v, out->cap * sizeof(*out->v));
        }
        out->v[out->n++] = g->v[lo].binding;
    }
}

static int compare_indices(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

/* The bindings in g (namespace ns) that apply to id, each once, in the
 * order of the bindings. */
static void applying(const struct rbac_grantees *g, const char *ns,
                     const struct identity *id, struct applying *out)
{
    size_t n = 0;

    out->n = 0;
    find_grantees(g, ns, false, id->name, out);
    for (size_t i = 0; i < id->ngroups; i++)
        find_grantees(g, ns, true, id->groups[i], out);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), compare_indices);
    for (size_t i = 0; i < out->n; i++)
        if (n == 0 || out->v[n - 1] != out->v[i])
            out->v[n++] = out->v[i];
    out->n = n;
}

/* ---- the index ---- */

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
    file_subjects(x, RBAC_CLUSTERROLEBINDING, &x->cluster);
    file_subjects(x, RBAC_ROLEBINDING, &x->local);
}

/* ---- decisions ---- */

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
 * prefix. */
static void missing_reason(const struct missing *m, const char *prefix,
                           char *out, size_t len)
{
    struct sbuf b = {0};

    if (m->n == 0) {
        snprintf(out, len, "%s", "");
        return;
    }
    sbuf_addf(&b, "%s%s", prefix, m->n > 1 ? "[" : "");
    for (size_t i = 0; i < m->n; i++)
        sbuf_addf(&b, "%s%s.rbac.authorization.k8s.io \"%s\" not found",
                  i ? ", " : "", m->v[i].cluster ? "clusterrole" : "role",
                  m->v[i].name);
    if (m->n > 1)
        sbuf_add(&b, "]");
    snprintf(out, len, "%s", b.data);
    sbuf_fini(&b);
}

/*
 * The roles whose rules the binding b grants: the role it refers to, or
 * an aggregated ClusterRole's sources; *n of them at *roles (borrowed).
 * False, the missing role noted, when it refers to none.
 */
static bool bound_roles(const struct rbac *x, const struct rbac_object *b,
                        const struct rbac_object *const **roles, size_t *n,
                        struct missing *m)
{
    enum rbac_kind k = b->ref_cluster ? RBAC_CLUSTERROLE : RBAC_ROLE;
    size_t i = find(x, k, b->ref_cluster ? "" : b->ns, b->ref_name);

    if (i == SIZE_MAX) {
        missing_add(m, b->ref_cluster, b->ref_name);
        return false;
    }
    if (k == RBAC_CLUSTERROLE && x->objs[k][i]->aggregated) {
        *roles = x->sources[i].v;
        *n = x->sources[i].n;
    } else {
        *roles = &x->objs[k][i];
        *n = 1;
    }
    return true;
}

/* Whether the role binding b refers to allows a; a missing role is noted. */
static bool binding_allows(const struct rbac *x, const struct rbac_object *b,
                           const struct authz_attributes *a,
                           const char *combined, struct missing *m)
{
    const struct rbac_object *const *roles;
    size_t n;

    if (!bound_roles(x, b, &roles, &n, m))
        return false;
    for (size_t r = 0; r < n; r++)
        if (rules_allow(roles[r], a, combined))
            return true;
    return false;
}

bool rbac_allows(const struct rbac *x, const struct identity *id,
                 const struct authz_attributes *a, char *reason,
                 size_t reason_len)
{
    const char *ns = a->resource_request ? S(a->ns) : "";
    struct missing m = {.n = 0};
    struct applying in = {0};
    char *combined;
    bool ok = false;

    rw_assert(x->built);
    if (identity_in_group(id, IDENTITY_MASTERS))
        return true;
    combined = *S(a->subresource)
                   ? xasprintf("%s/%s", S(a->resource), a->subresource)
                   : xstrdup(S(a->resource));
    applying(&x->cluster, "", id, &in);
    for (size_t i = 0; !ok && i < in.n; i++)
        ok = binding_allows(x, x->objs[RBAC_CLUSTERROLEBINDING][in.v[i]], a,
                            combined, &m);
    if (!ok && *ns)
        applying(&x->local, ns, id, &in);
    for (size_t i = 0; !ok && *ns && i < in.n; i++)
        ok = binding_allows(x, x->objs[RBAC_ROLEBINDING][in.v[i]], a, combined,
                            &m);
    free(in.v);
    free(combined);
    if (!ok)
        missing_reason(&m, "RBAC: ", reason, reason_len);
    return ok;
}

/* Visits the rules of the role binding b refers to; a missing role is
 * noted. */
static void binding_rules(const struct rbac *x, const struct rbac_object *b,
                          rbac_rule_fn fn, void *arg, struct missing *m)
{
    const struct rbac_object *const *roles;
    size_t n;

    if (!bound_roles(x, b, &roles, &n, m))
        return;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < roles[r]->nrules; i++)
            fn(&roles[r]->rules[i], arg);
}

void rbac_rules(const struct rbac *x, const struct identity *id, const char *ns,
                rbac_rule_fn fn, void *arg, char *error, size_t error_len)
{
    struct missing m = {.n = 0};
    struct applying in = {0};

    rw_assert(x->built);
    applying(&x->cluster, "", id, &in);
    for (size_t i = 0; i < in.n; i++)
        binding_rules(x, x->objs[RBAC_CLUSTERROLEBINDING][in.v[i]], fn, arg,
                      &m);
    if (*ns) {
        applying(&x->local, ns, id, &in);
        for (size_t i = 0; i < in.n; i++)
            binding_rules(x, x->objs[RBAC_ROLEBINDING][in.v[i]], fn, arg, &m);
    }
    free(in.v);
    missing_reason(&m, "", error, error_len);
}
