/*
 * discovery_json.c: the discovery documents' JSON (see discovery_json.h).
 *
 * Each document is written in one sbuf from a copy of the types sorted by
 * group (in the apiserver's order) and resource name; strings go through
 * kjson_add_string.  Built once at start by src/discovery.c, never per
 * request.
 */
#include "src/discovery_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/kjson.h"

#ifndef RINGWATCH_GIT_COMMIT
#define RINGWATCH_GIT_COMMIT "unknown"
#endif

/* ,"key":"value" (no comma when first). */
static void add_member(struct sbuf *sb, bool first, const char *key,
                       const char *value)
{
    sbuf_addf(sb, "%s\"%s\":", first ? "" : ",", key);
    kjson_add_string(sb, value);
}

/* A NULL-terminated list of strings as a JSON array member (omitted when
 * empty, as omitempty). */
static void add_strings(struct sbuf *sb, const char *key, const char *const *v,
                        size_t max)
{
    if (max == 0 || v[0] == NULL)
        return;
    sbuf_addf(sb, ",\"%s\":[", key);
    for (size_t i = 0; i < max && v[i] != NULL; i++) {
        if (i > 0)
            sbuf_add(sb, ",");
        kjson_add_string(sb, v[i]);
    }
    sbuf_add(sb, "]");
}

static struct rbuf *done(struct sbuf *sb)
{
    struct rbuf *b = rbuf_from(sb->data, sb->len);

    sbuf_fini(sb);
    return b;
}

/* A group's place in the apiserver's /apis order (kube-aggregator's group
 * priorities, highest first: apps 17800, authentication 17700,
 * authorization 17600, autoscaling 17500, batch 17400, ... rbac 17000,
 * ... coordination 16500); groups it does not list come after, by name. */
static size_t group_rank(const char *group)
{
    static const char *const order[] = {
        "", "apiregistration.k8s.io", "apps", "events.k8s.io",
        "authentication.k8s.io", "authorization.k8s.io", "autoscaling",
        "batch", "certificates.k8s.io", "networking.k8s.io", "policy",
        "rbac.authorization.k8s.io", "storage.k8s.io",
        "admissionregistration.k8s.io", "scheduling.k8s.io",
        "coordination.k8s.io", "apiextensions.k8s.io", "node.k8s.io",
        "discovery.k8s.io", "flowcontrol.apiserver.k8s.io"};

    for (size_t i = 0; i < RW_ARRAY_LEN(order); i++)
        if (strcmp(group, order[i]) == 0)
            return i;
    return RW_ARRAY_LEN(order);
}

static int type_cmp(const void *a, const void *b)
{
    const struct resource_type *x = *(const struct resource_type *const *)a;
    const struct resource_type *y = *(const struct resource_type *const *)b;
    size_t rx = group_rank(x->group), ry = group_rank(y->group);
    int c = rx != ry ? (rx < ry ? -1 : 1) : strcmp(x->group, y->group);

    return c != 0 ? c : strcmp(x->resource, y->resource);
}

/* types sorted by group (group_rank), then resource (free()). */
static const struct resource_type **
sorted(const struct resource_type *const *types, size_t n)
{
    const struct resource_type **v = xmalloc((n + 1) * sizeof(*v));

    memcpy(v, types, n * sizeof(*v));
    qsort(v, n, sizeof(*v), type_cmp);
    return v;
}

/* Whether v[0..i) has v[i]'s group (and version, when same_version). */
static bool seen_before(const struct resource_type *const *v, size_t i,
                        bool same_version)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(v[j]->group, v[i]->group) == 0 &&
            (!same_version || strcmp(v[j]->version, v[i]->version) == 0))
            return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* /version and /api                                                   */
/* ------------------------------------------------------------------ */

/* The compiler's __DATE__ and __TIME__ (which honour SOURCE_DATE_EPOCH)
 * as RFC 3339, the form of the apiserver's buildDate. */
static void build_date(char *out, size_t size)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    const char *date = __DATE__, *clock = __TIME__; /* "Mmm dd yyyy" */
    const char *m = strstr(months, (char[4]){date[0], date[1], date[2], 0});
    int month = m ? (int)(m - months) / 3 + 1 : 1;
    int day = atoi(date + 4), year = atoi(date + 7);

    snprintf(out, size, "%04d-%02d-%02dT%.8sZ", year, month, day, clock);
}

struct rbuf *discovery_json_version(void)
{
    struct sbuf sb = {0};
    char date[32];

    build_date(date, sizeof(date));
    sbuf_add(&sb, "{");
    add_member(&sb, true, "major", "1");
    add_member(&sb, false, "minor", "32");
    add_member(&sb, false, "gitVersion", "v1.32.0+ringwatch");
    add_member(&sb, false, "gitCommit", RINGWATCH_GIT_COMMIT);
    add_member(&sb, false, "gitTreeState", "clean");
    add_member(&sb, false, "buildDate", date);
    add_member(&sb, false, "goVersion", "n/a");
    add_member(&sb, false, "compiler", "gc");
    add_member(&sb, false, "platform", "linux/amd64");
    sbuf_add(&sb, "}");
    return done(&sb);
}

struct rbuf *discovery_json_versions(const char *server_address)
{
    struct sbuf sb = {0};

    sbuf_add(&sb, "{\"kind\":\"APIVersions\",\"versions\":[\"v1\"],"
                  "\"serverAddressByClientCIDRs\":[{");
    add_member(&sb, true, "clientCIDR", "0.0.0.0/0");
    add_member(&sb, false, "serverAddress",
               server_address ? server_address : "");
    sbuf_add(&sb, "}]}");
    return done(&sb);
}

/* ------------------------------------------------------------------ */
/* Groups                                                              */
/* ------------------------------------------------------------------ */

/* {"groupVersion":"G/V","version":"V"} */
static void add_group_version(struct sbuf *sb, const struct resource_type *rt)
{
    sbuf_add(sb, "{");
    add_member(sb, true, "groupVersion", rt->api_version);
    add_member(sb, false, "version", rt->version);
    sbuf_add(sb, "}");
}

/* An APIGroup's members after its name: its versions in order of first
 * appearance in v, the first one preferred. */
static void add_group_versions(struct sbuf *sb,
                               const struct resource_type *const *v, size_t n,
                               const char *group)
{
    const struct resource_type *first = NULL;

    sbuf_add(sb, ",\"versions\":[");
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i]->group, group) != 0 || seen_before(v, i, true))
            continue;
        if (first != NULL)
            sbuf_add(sb, ",");
        else
            first = v[i];
        add_group_version(sb, v[i]);
    }
    rw_assert(first != NULL);
    sbuf_add(sb, "],\"preferredVersion\":");
    add_group_version(sb, first);
}

struct rbuf *discovery_json_group_list(const struct resource_type *const *types,
                                       size_t n)
{
    const struct resource_type **v = sorted(types, n);
    struct sbuf sb = {0};
    bool comma = false;

    sbuf_add(&sb, "{\"kind\":\"APIGroupList\",\"apiVersion\":\"v1\","
                  "\"groups\":[");
    for (size_t i = 0; i < n; i++) {
        if (*v[i]->group == '\0' || seen_before(v, i, false))
            continue;
        sbuf_add(&sb, comma ? ",{" : "{");
        add_member(&sb, true, "name", v[i]->group);
        add_group_versions(&sb, v, n, v[i]->group);
        sbuf_add(&sb, "}");
        comma = true;
    }
    sbuf_add(&sb, "]}");
    free(v);
    return done(&sb);
}

struct rbuf *discovery_json_group(const struct resource_type *const *types,
                                  size_t n, const char *group)
{
    const struct resource_type **v = sorted(types, n);
    struct sbuf sb = {0};

    sbuf_add(&sb, "{\"kind\":\"APIGroup\",\"apiVersion\":\"v1\"");
    add_member(&sb, false, "name", group);
    add_group_versions(&sb, v, n, group);
    sbuf_add(&sb, "}");
    free(v);
    return done(&sb);
}

/* ------------------------------------------------------------------ */
/* Resources                                                           */
/* ------------------------------------------------------------------ */

/* What ringwatch serves of a type: a type not stored (no key_prefix) is
 * a review, only created (src/review.h). */
static const char *verbs(const struct resource_type *rt)
{
    return rt->key_prefix == NULL ? ",\"verbs\":[\"create\"]"
                                  : ",\"verbs\":[\"get\",\"list\",\"watch\"]";
}

/* Short names and categories, when the type has any. */
static void add_names(struct sbuf *sb, const struct resource_type *rt)
{
    add_strings(sb, "shortNames", rt->short_names,
                RW_ARRAY_LEN(rt->short_names));
    add_strings(sb, "categories", rt->categories, RW_ARRAY_LEN(rt->categories));
}

struct rbuf *
discovery_json_resource_list(const char *group, const char *version,
                             const struct resource_type *const *types, size_t n)
{
    const struct resource_type **v = sorted(types, n);
    struct sbuf sb = {0};
    bool comma = false;

    group = group ? group : "";
    sbuf_add(&sb, "{\"kind\":\"APIResourceList\",\"apiVersion\":\"v1\"");
    if (*group) {
        char *gv = xasprintf("%s/%s", group, version);

        add_member(&sb, false, "groupVersion", gv);
        free(gv);
    } else {
        add_member(&sb, false, "groupVersion", version);
    }
    sbuf_add(&sb, ",\"resources\":[");
    for (size_t i = 0; i < n; i++) {
        const struct resource_type *rt = v[i];

        if (strcmp(rt->group, group) != 0 || strcmp(rt->version, version) != 0)
            continue;
        sbuf_add(&sb, comma ? ",{" : "{");
        add_member(&sb, true, "name", rt->resource);
        add_member(&sb, false, "singularName", rt->singular);
        sbuf_addf(&sb, ",\"namespaced\":%s", rt->namespaced ? "true" : "false");
        add_member(&sb, false, "kind", rt->kind);
        sbuf_add(&sb, verbs(rt));
        add_names(&sb, rt);
        sbuf_add(&sb, "}");
        comma = true;
    }
    sbuf_add(&sb, "]}");
    free(v);
    return done(&sb);
}

/* ------------------------------------------------------------------ */
/* Aggregated discovery                                                */
/* ------------------------------------------------------------------ */

static void add_resource_discovery(struct sbuf *sb,
                                   const struct resource_type *rt)
{
    sbuf_add(sb, "{");
    add_member(sb, true, "resource", rt->resource);
    sbuf_add(sb, ",\"responseKind\":{");
    add_member(sb, true, "group", rt->group);
    add_member(sb, false, "version", rt->version);
    add_member(sb, false, "kind", rt->kind);
    sbuf_add(sb, "}");
    add_member(sb, false, "scope", rt->namespaced ? "Namespaced" : "Cluster");
    add_member(sb, false, "singularResource", rt->singular);
    sbuf_add(sb, verbs(rt));
    add_names(sb, rt);
    sbuf_add(sb, "}");
}

/* One APIVersionDiscovery: version, its resources (omitted when none),
 * freshness. */
static void add_version_discovery(struct sbuf *sb,
                                  const struct resource_type *const *v,
                                  size_t n, const char *group,
                                  const char *version)
{
    bool comma = false;

    sbuf_add(sb, "{");
    add_member(sb, true, "version", version);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i]->group, group) != 0 ||
            strcmp(v[i]->version, version) != 0)
            continue;
        sbuf_add(sb, comma ? "," : ",\"resources\":[");
        add_resource_discovery(sb, v[i]);
        comma = true;
    }
    sbuf_add(sb, comma ? "],\"freshness\":\"Current\"}"
                       : ",\"freshness\":\"Current\"}");
}

/* One APIGroupDiscovery of group. */
static void add_group_discovery(struct sbuf *sb,
                                const struct resource_type *const *v, size_t n,
                                const char *group)
{
    bool comma = false;

    sbuf_add(sb, "{\"metadata\":{");
    if (*group) {
        add_member(sb, true, "name", group);
        sbuf_add(sb, ",");
    }
    sbuf_add(sb, "\"creationTimestamp\":null},\"versions\":[");
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i]->group, group) != 0 || seen_before(v, i, true))
            continue;
        if (comma)
            sbuf_add(sb, ",");
        add_version_discovery(sb, v, n, group, v[i]->version);
        comma = true;
    }
    if (!comma) /* the core group with nothing served: still v1 */
        add_version_discovery(sb, v, n, group, "v1");
    sbuf_add(sb, "]}");
}

struct rbuf *discovery_json_aggregated(const struct resource_type *const *types,
                                       size_t n, bool core, bool beta)
{
    const struct resource_type **v = sorted(types, n);
    struct sbuf sb = {0};
    bool comma = false;

    sbuf_addf(&sb,
              "{\"kind\":\"APIGroupDiscoveryList\",\"apiVersion\":"
              "\"apidiscovery.k8s.io/%s\",\"metadata\":{},\"items\":[",
              beta ? "v2beta1" : "v2");
    if (core) {
        add_group_discovery(&sb, v, n, "");
    } else {
        for (size_t i = 0; i < n; i++) {
            if (*v[i]->group == '\0' || seen_before(v, i, false))
                continue;
            if (comma)
                sbuf_add(&sb, ",");
            add_group_discovery(&sb, v, n, v[i]->group);
            comma = true;
        }
    }
    sbuf_add(&sb, "]}");
    free(v);
    return done(&sb);
}
