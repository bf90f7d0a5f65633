/*
 * resource_type.c: the table of built-in Kubernetes types (see
 * resource_type.h).  Names, kinds, scopes and the field selectors each type
 * accepts are the kube-apiserver's (pkg/registry/.../strategy.go
 * GetAttrs / AddFieldLabelConversionFunc); prefixes are its default etcd
 * layout.
 */
#include "cache/resource_type.h"

#include <string.h>

#include "cache/rw.h"

#define CORE(res, sing, kind, ns, prefix, ...)                                 \
    {                                                                          \
        res, sing, kind, kind "List", "", "v1", "v1", ns, prefix, __VA_ARGS__  \
    }
#define GROUP(grp, ver, res, sing, kind, ns, prefix, ...)                      \
    {                                                                          \
        res, sing, kind, kind "List", grp, ver, grp "/" ver, ns, prefix,       \
            __VA_ARGS__                                                        \
    }

#define ALL {"all", NULL}
#define NONE {NULL}

static const struct resource_type types[] = {
    CORE("pods", "pod", "Pod", true, "/registry/pods/", {"po", NULL},
         {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
          "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
          "status.podIP", "status.nominatedNodeName"},
         0, ALL),
    CORE("configmaps", "configmap", "ConfigMap", true, "/registry/configmaps/",
         {"cm", NULL}, {NULL}, -1, NONE),
    CORE("secrets", "secret", "Secret", true, "/registry/secrets/", {NULL},
         {"type", NULL}, -1, NONE),
    CORE("services", "service", "Service", true, "/registry/services/specs/",
         {"svc", NULL}, {NULL}, -1, ALL),
    CORE("endpoints", "endpoints", "Endpoints", true,
         "/registry/services/endpoints/", {"ep", NULL}, {NULL}, -1, NONE),
    CORE("serviceaccounts", "serviceaccount", "ServiceAccount", true,
         "/registry/serviceaccounts/", {"sa", NULL}, {NULL}, -1, NONE),
    /* Every field the apiserver's event GetAttrs selects on (kubectl
     * describe asks involvedObject.name, .namespace, .kind and .uid). */
    CORE("events", "event", "Event", true, "/registry/events/", {"ev", NULL},
         {"involvedObject.kind", "involvedObject.namespace",
          "involvedObject.name", "involvedObject.uid", "reason", "source",
          "type", "involvedObject.apiVersion",
          "involvedObject.resourceVersion", "involvedObject.fieldPath",
          "reportingComponent", NULL},
         -1, NONE),
    CORE("nodes", "node", "Node", false, "/registry/minions/", {"no", NULL},
         {"spec.unschedulable", NULL}, -1, NONE),
    CORE("namespaces", "namespace", "Namespace", false, "/registry/namespaces/",
         {"ns", NULL}, {"status.phase", NULL}, -1, NONE),
    CORE("persistentvolumes", "persistentvolume", "PersistentVolume", false,
         "/registry/persistentvolumes/", {"pv", NULL}, {NULL}, -1, NONE),
    CORE("persistentvolumeclaims", "persistentvolumeclaim",
         "PersistentVolumeClaim", true, "/registry/persistentvolumeclaims/",
         {"pvc", NULL}, {NULL}, -1, NONE),
    CORE("replicationcontrollers", "replicationcontroller",
         "ReplicationController", true, "/registry/controllers/",
         {"rc", NULL}, {NULL}, -1, ALL),
    GROUP("apps", "v1", "deployments", "deployment", "Deployment", true,
          "/registry/deployments/", {"deploy", NULL}, {NULL}, -1, ALL),
    GROUP("apps", "v1", "replicasets", "replicaset", "ReplicaSet", true,
          "/registry/replicasets/", {"rs", NULL}, {NULL}, -1, ALL),
    GROUP("apps", "v1", "statefulsets", "statefulset", "StatefulSet", true,
          "/registry/statefulsets/", {"sts", NULL}, {NULL}, -1, ALL),
    GROUP("apps", "v1", "daemonsets", "daemonset", "DaemonSet", true,
          "/registry/daemonsets/", {"ds", NULL}, {NULL}, -1, ALL),
    GROUP("autoscaling", "v2", "horizontalpodautoscalers",
          "horizontalpodautoscaler", "HorizontalPodAutoscaler", true,
          "/registry/horizontalpodautoscalers/", {"hpa", NULL}, {NULL}, -1,
          ALL),
    GROUP("batch", "v1", "jobs", "job", "Job", true, "/registry/jobs/", {NULL},
          {NULL}, -1, ALL),
    GROUP("batch", "v1", "cronjobs", "cronjob", "CronJob", true,
          "/registry/cronjobs/", {"cj", NULL}, {NULL}, -1, ALL),
    GROUP("coordination.k8s.io", "v1", "leases", "lease", "Lease", true,
          "/registry/leases/", {NULL}, {NULL}, -1, NONE),
    /* RBAC: what --authorization-mode RBAC evaluates (src/rbac.h); no
     * short names, as the apiserver's. */
    GROUP("rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true,
          "/registry/roles/", {NULL}, {NULL}, -1, NONE),
    GROUP("rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding",
          "RoleBinding", true, "/registry/rolebindings/", {NULL}, {NULL}, -1,
          NONE),
    GROUP("rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole",
          "ClusterRole", false, "/registry/clusterroles/", {NULL}, {NULL}, -1,
          NONE),
    GROUP("rbac.authorization.k8s.io", "v1", "clusterrolebindings",
          "clusterrolebinding", "ClusterRoleBinding", false,
          "/registry/clusterrolebindings/", {NULL}, {NULL}, -1, NONE),
};

const struct resource_type *resource_type_all(size_t *n)
{
    *n = sizeof(types) / sizeof(types[0]);
    return types;
}

static bool matches(const struct resource_type *rt, const char *spec)
{
    const char *slash = strrchr(spec, '/');
    const char *dot;
    size_t glen;

    if (slash == NULL) {
        /* "pods" or "deployments.apps" */
        if (strcmp(spec, rt->resource) == 0)
            return true;
        dot = strchr(spec, '.');
        if (dot == NULL || *rt->group == '\0')
            return false;
        return (size_t)(dot - spec) == strlen(rt->resource) &&
               strncmp(spec, rt->resource, dot - spec) == 0 &&
               strcmp(dot + 1, rt->group) == 0;
    }
    /* "v1/pods" or "apps/v1/deployments": api_version "/" resource */
    if (strcmp(slash + 1, rt->resource) != 0)
        return false;
    glen = slash - spec;
    return glen == strlen(rt->api_version) &&
           strncmp(spec, rt->api_version, glen) == 0;
}

const struct resource_type *resource_type_find(const char *spec)
{
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (matches(&types[i], spec))
            return &types[i];
    return NULL;
}

int resource_type_field_id(const struct resource_type *rt, const char *path)
{
    if (strcmp(path, "metadata.name") == 0)
        return FIELD_NAME;
    if (strcmp(path, "metadata.namespace") == 0)
        return rt->namespaced ? FIELD_NAMESPACE : -1;
    for (int i = 0; i < RESOURCE_TYPE_MAX_FIELDS && rt->fields[i]; i++)
        if (strcmp(path, rt->fields[i]) == 0)
            return FIELD_EXTRA + i;
    return -1;
}

char *resource_type_ns_prefix(const struct resource_type *rt, const char *ns)
{
    return ns ? xasprintf("%s%s/", rt->key_prefix, ns)
              : xstrdup(rt->key_prefix);
}

char *resource_type_key(const struct resource_type *rt, const char *ns,
                        const char *name)
{
    return ns ? xasprintf("%s%s/%s", rt->key_prefix, ns, name)
              : xasprintf("%s%s", rt->key_prefix, name);
}

bool resource_type_key_split(const struct resource_type *rt, const char *key,
                             size_t key_len, struct resource_key *out)
{
    size_t plen = strlen(rt->key_prefix), rest_len;
    const char *rest, *slash;

    if (key_len <= plen || memcmp(key, rt->key_prefix, plen) != 0)
        return false;
    rest = key + plen;
    rest_len = key_len - plen;
    if (memchr(rest, '\0', rest_len) != NULL)
        return false;
    slash = memchr(rest, '/', rest_len);
    *out = (struct resource_key){.ns = "", .name = rest, .name_len = rest_len};
    if (!rt->namespaced)
        return slash == NULL;
    if (slash == NULL || slash == rest || slash == rest + rest_len - 1 ||
        memchr(slash + 1, '/', rest_len - (slash + 1 - rest)) != NULL)
        return false;
    out->ns = rest;
    out->ns_len = (size_t)(slash - rest);
    out->name = slash + 1;
    out->name_len = rest_len - out->ns_len - 1;
    return true;
}

size_t resource_type_nfields(const struct resource_type *rt)
{
    size_t n = 0;

    while (n < RESOURCE_TYPE_MAX_FIELDS && rt->fields[n])
        n++;
    return n;
}
