/*
 * printers_rbac.c: roles, rolebindings, clusterroles, clusterrolebindings
 * (see printers_rbac.h).
 */
#include "proto/printers_rbac.h"

#include <string.h>

#include "cache/rw.h"

/* rest.NewDefaultTableConvertor's columns. */
static const struct printer_column default_columns[] = {
    PRINTER_COL_NAME,
    {"Created At", "date", "", 0, PRINTER_DOC_CREATED},
};

/* The default convertor's cells: the name and creationTimestamp in RFC
 * 3339 (the zero time when unset, as Go formats metav1.Time{}). */
static void default_cells(struct printer_row *r, const struct jval *obj,
                          const struct object *o)
{
    printer_cell_str(r, o->name);
    printer_cell_or(r, o->created, "0001-01-01T00:00:00Z");
}

#define ROLE_REF_DOC                                                           \
    " If the RoleRef cannot be resolved, the Authorizer must return an error."

static const struct printer_column rolebinding_columns[] = {
    PRINTER_COL_NAME,
    {"Role", "string", "", 0,
     "RoleRef can reference a Role in the current namespace or a "
     "ClusterRole in the global namespace." ROLE_REF_DOC},
    PRINTER_COL_AGE,
    {"Users", "string", "", 1, "Users in the roleBinding"},
    {"Groups", "string", "", 1, "Groups in the roleBinding"},
    {"ServiceAccounts", "string", "", 1, "ServiceAccounts in the roleBinding"},
};

static const struct printer_column clusterrolebinding_columns[] = {
    PRINTER_COL_NAME,
    {"Role", "string", "", 0,
     "RoleRef can only reference a ClusterRole in the global "
     "namespace." ROLE_REF_DOC},
    PRINTER_COL_AGE,
    {"Users", "string", "", 1, "Users in the clusterRoleBinding"},
    {"Groups", "string", "", 1, "Groups in the clusterRoleBinding"},
    {"ServiceAccounts", "string", "", 1,
     "ServiceAccounts in the clusterRoleBinding"},
};

/* One of rbac.SubjectsStrings' lists: the subjects of kind, joined by ", "
 * (service accounts as NAMESPACE/NAME). */
static void subjects_cell(struct printer_row *r, const struct jval *subjects,
                          const char *kind)
{
    const struct jval *s;
    struct sbuf b = {0};
    bool sa = strcmp(kind, "ServiceAccount") == 0;

    JVAL_EACH(s, subjects)
    {
        if (strcmp(jval_str(jval_get(s, "kind")), kind) != 0)
            continue;
        if (b.len > 0)
            sbuf_add(&b, ", ");
        if (sa)
            sbuf_addf(&b, "%s/", jval_str(jval_get(s, "namespace")));
        sbuf_add(&b, jval_str(jval_get(s, "name")));
    }
    printer_cell_sbuf(r, &b, "");
}

/* printRoleBinding and printClusterRoleBinding, always wide. */
static void binding_cells(struct printer_row *r, const struct jval *b,
                          const struct object *o)
{
    const struct jval *ref = jval_get(b, "roleRef");
    const struct jval *subjects = jval_get(b, "subjects");
    struct sbuf role = {0};

    printer_cell_str(r, o->name);
    sbuf_addf(&role, "%s/%s", jval_str(jval_get(ref, "kind")),
              jval_str(jval_get(ref, "name")));
    printer_cell_sbuf(r, &role, "");
    printer_cell_age(r, o);
    subjects_cell(r, subjects, "User");
    subjects_cell(r, subjects, "Group");
    subjects_cell(r, subjects, "ServiceAccount");
}

#define RBAC "rbac.authorization.k8s.io"

const struct printer printers_rbac[] = {
    PRINTER(RBAC, "roles", default_columns, default_cells),
    PRINTER(RBAC, "clusterroles", default_columns, default_cells),
    PRINTER(RBAC, "rolebindings", rolebinding_columns, binding_cells),
    PRINTER(RBAC, "clusterrolebindings", clusterrolebinding_columns,
            binding_cells),
};
const size_t printers_rbac_len = RW_ARRAY_LEN(printers_rbac);
