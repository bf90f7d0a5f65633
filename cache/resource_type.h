/*
 * resource_type.h: the Kubernetes resource types ringwatch knows how to
 * serve: names, group/version/kind, scope, storage key prefix and the
 * field selectors each supports.
 *
 * The table follows the kube-apiserver's built-in types and its default
 * storage layout (/registry/<resource>/[<namespace>/]<name>, with the
 * exceptions the apiserver makes, e.g. services under
 * /registry/services/specs/).  Field selectors: every type supports
 * metadata.name and metadata.namespace (field ids FIELD_NAME and
 * FIELD_NAMESPACE); fields[] lists the extra ones the apiserver supports
 * for that type (pods: spec.nodeName, status.phase, ...), whose values an
 * object carries in object->fields[i] (field id FIELD_EXTRA + i).
 * Short names and categories are the apiserver's (its REST storages'
 * ShortNames and Categories), as discovery announces them.
 */
#ifndef RESOURCE_TYPE_H
#define RESOURCE_TYPE_H

#include <stdbool.h>
#include <stddef.h>

#define RESOURCE_TYPE_MAX_FIELDS 12 /* events have 11 */

enum {
    FIELD_NAME = 0,      /* metadata.name */
    FIELD_NAMESPACE = 1, /* metadata.namespace */
    FIELD_EXTRA = 2,     /* first of resource_type->fields[] */
};

struct resource_type {
    const char *resource;    /* plural, lower case: "pods" */
    const char *singular;    /* "pod" */
    const char *kind;        /* "Pod" */
    const char *list_kind;   /* "PodList" */
    const char *group;       /* "" for the core group */
    const char *version;     /* "v1" */
    const char *api_version; /* "v1", "apps/v1": the objects' apiVersion */
    bool namespaced;
    /* The objects' keys in the store, as kube-apiserver's default storage
     * layout: "/registry/pods/", always ends in '/'.  Store-neutral: the
     * etcd adapter reads it as a key prefix, a future adapter as its own
     * store's key space (resource_type_key below is the one writer). */
    const char *key_prefix;
    const char *short_names[4];                   /* NULL-terminated */
    const char *fields[RESOURCE_TYPE_MAX_FIELDS]; /* NULL-terminated paths */
    /* The field watchers of this type are most often pinned to, as an
     * index into fields[], or -1 for none (pods: spec.nodeName, as kubelets
     * watch): what ringwatch --index-fields indexes by default and what the
     * fleet's kubelet profile selects on. */
    int indexed_field;
    /* The categories discovery lists it in (NULL-terminated): "all" for
     * the types kube-apiserver puts in kubectl's `get all`. */
    const char *categories[2];
};

/*
 * Finds a type by the spelling --resources accepts: "pods", "v1/pods",
 * "apps/v1/deployments" (GROUP/VERSION/RESOURCE) or "deployments.apps"
 * (RESOURCE.GROUP).  Returns NULL when the table has no such type.
 */
const struct resource_type *resource_type_find(const char *spec);

/* The whole table, *n entries. */
const struct resource_type *resource_type_all(size_t *n);

/*
 * Field id of a field selector path for rt (FIELD_NAME, FIELD_NAMESPACE,
 * FIELD_EXTRA + i), or -1 when the apiserver would answer
 * "field label not supported".
 */
int resource_type_field_id(const struct resource_type *rt, const char *path);

/*
 * The object key layout, in this one place: the kube-apiserver's
 * /registry/<resource>/[<namespace>/]<name> (key_prefix, then "NS/NAME"
 * or "NAME").  The cache's keys and their order (a LIST's order, as
 * etcd's) are these; an upstream adapter maps them to its store's keys.
 */
/* The key prefix of namespace ns of rt, e.g. "/registry/pods/ns/", or
 * rt->key_prefix when ns is NULL: a new string (free()). */
char *resource_type_ns_prefix(const struct resource_type *rt, const char *ns);
/* The key of object name in namespace ns (NULL: cluster-scoped), e.g.
 * "/registry/pods/ns/name": a new string (free()). */
char *resource_type_key(const struct resource_type *rt, const char *ns,
                        const char *name);

/* Where namespace and name sit in a key (pointing into it). */
struct resource_key {
    const char *ns; /* "" for a cluster-scoped type */
    size_t ns_len;
    const char *name;
    size_t name_len;
};
/* Splits key (key_len bytes) of rt into *out: true when it is
 * rt->key_prefix then NS/NAME (namespaced) or NAME (cluster-scoped), no
 * part empty, no NUL byte; false otherwise (*out then undefined). */
bool resource_type_key_split(const struct resource_type *rt, const char *key,
                             size_t key_len, struct resource_key *out);

/* Number of extra fields (entries of fields[]). */
size_t resource_type_nfields(const struct resource_type *rt);

#endif
