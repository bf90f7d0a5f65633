/*
 * rbac_object.h: one rbac.authorization.k8s.io/v1 object (Role,
 * ClusterRole, RoleBinding, ClusterRoleBinding) parsed from its stored
 * JSON into what the RBAC evaluator (src/rbac.h) reads.
 *
 * The parse is strict where Go's decoder is (a member of the wrong JSON
 * type fails the whole object, as json.Unmarshal into rbacv1 types does)
 * and where a grant would otherwise be guessed: a subject of a kind other
 * than User, Group or ServiceAccount, a roleRef that names no Role or
 * ClusterRole (a ClusterRoleBinding's only a ClusterRole), an
 * aggregationRule selector LabelSelectorAsSelector refuses.  Such an
 * object is malformed: the caller counts it and skips it, so it never
 * grants anything.  null reads as absent, a repeated member's last
 * occurrence wins (proto/jval.h).
 */
#ifndef RBAC_OBJECT_H
#define RBAC_OBJECT_H

#include <stdbool.h>
#include <stddef.h>

enum rbac_kind {
    RBAC_ROLE,
    RBAC_ROLEBINDING,
    RBAC_CLUSTERROLE,
    RBAC_CLUSTERROLEBINDING,
    RBAC_KINDS,
};

/* A list of strings (a Go []string). */
struct rbac_strings {
    char **v;
    size_t n;
};

/* A PolicyRule. */
struct rbac_rule {
    struct rbac_strings verbs, api_groups, resources, resource_names,
        non_resource_urls;
};

enum rbac_selector_op {
    RBAC_SEL_IN, /* matchLabels entries are In with one value */
    RBAC_SEL_NOT_IN,
    RBAC_SEL_EXISTS,
    RBAC_SEL_DOES_NOT_EXIST,
};

struct rbac_requirement {
    char *key;
    enum rbac_selector_op op;
    struct rbac_strings values;
};

/* A metav1.LabelSelector: every requirement must hold; none selects
 * everything (as LabelSelectorAsSelector's labels.Everything()). */
struct rbac_selector {
    struct rbac_requirement *req;
    size_t n;
};

enum rbac_subject_kind {
    RBAC_SUBJECT_USER,
    RBAC_SUBJECT_GROUP,
    RBAC_SUBJECT_SERVICE_ACCOUNT,
};

struct rbac_subject {
    enum rbac_subject_kind kind;
    char *name;
    char *ns; /* "" when not given */
};

struct rbac_label {
    char *key, *value;
};

struct rbac_object {
    enum rbac_kind kind;
    char *ns;   /* metadata.namespace, "" when absent */
    char *name; /* metadata.name */
    /* roles and clusterroles */
    struct rbac_rule *rules;
    size_t nrules;
    struct rbac_label *labels; /* metadata.labels, in document order */
    size_t nlabels;
    bool aggregated;                 /* a ClusterRole with an aggregationRule */
    struct rbac_selector *selectors; /* its clusterRoleSelectors */
    size_t nselectors;
    /* bindings */
    bool ref_cluster; /* roleRef.kind ClusterRole (else Role) */
    char *ref_name;
    struct rbac_subject *subjects;
    size_t nsubjects;
};

/* The resource of each enum rbac_kind: "roles", "rolebindings",
 * "clusterroles", "clusterrolebindings". */
const char *rbac_object_kind_resource(enum rbac_kind kind);

/*
 * Parses len bytes of JSON at json as an object of kind.  RW_OK with a new
 * object in *out (rbac_object_free); RW_EINVAL when it is not a JSON
 * object or malformed as above, with the reason in why (for the log), *out
 * NULL.
 */
int rbac_object_parse(enum rbac_kind kind, const char *json, size_t len,
                      struct rbac_object **out, char *why, size_t why_len);

/* Frees; NULL is a no-op. */
void rbac_object_free(struct rbac_object *o);

/* Whether selector sel selects an object with these labels, as
 * labels.Selector.Matches. */
bool rbac_object_selector_matches(const struct rbac_selector *sel,
                                  const struct rbac_label *labels,
                                  size_t nlabels);

#endif
