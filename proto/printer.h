/*
 * printer.h: what every Table printer is written with, as kube-apiserver's
 * pkg/printers/internalversion/printers.go writes its print functions: a
 * type's column definitions, the row being written, and the cell formats
 * several printers share (ages, label maps and selectors, containers,
 * quantities).  The per-type printers live in proto/printers_*.c, one
 * module per API group (the core group's split into pods, services and
 * endpoints, storage and the rest; replicationcontrollers sit with the
 * apps group's printers, which they share); proto/table.c finds them and
 * writes the Table around their cells.
 *
 * A printer reads the stored (v1) object through proto/jval.h with the
 * defaults the apiserver's decoder applies before its printer runs
 * (SetDefaults_* of the type's version: a ReplicaSet's 1 replica, a
 * PersistentVolume's Pending phase...), and writes exactly the cells
 * AddHandlers' column list declares, always as with GenerateOptions{Wide:
 * true}, as the apiserver's TableConvertor calls it.
 */
#ifndef PRINTER_H
#define PRINTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cache/object.h"
#include "cache/sbuf.h"
#include "proto/jval.h"

/* One TableColumnDefinition: name, type ("string", "integer",
 * "boolean"), format ("name" or ""), priority (1: shown by -o wide only),
 * description (the field's swagger doc in k8s.io/api 1.32). */
struct printer_column {
    const char *name;
    const char *type;
    const char *format;
    int priority;
    const char *description;
};

/* The row being written: cells go to sb as a JSON array's members. */
struct printer_row {
    struct sbuf *sb;
    size_t ncells;
    time_t now;            /* seconds since the epoch, for ages */
    const char *completed; /* a pod's "Succeeded"/"Failed": Completed row
                              condition, NULL for none */
};

/* Writes one row's cells for object o, whose parsed JSON is obj. */
typedef void printer_cells_fn(struct printer_row *r, const struct jval *obj,
                              const struct object *o);

/* A type's printer: group and resource as in cache/resource_type.h. */
struct printer {
    const char *group;
    const char *resource;
    const struct printer_column *columns;
    size_t ncolumns;
    printer_cells_fn *cells;
};

#define PRINTER(group, resource, columns, cells)                               \
    {                                                                          \
        group, resource, columns, sizeof(columns) / sizeof((columns)[0]),      \
            cells                                                              \
    }

/* metav1.ObjectMeta{}.SwaggerDoc()["name"] and ["creationTimestamp"],
 * and the template columns' literal descriptions. */
#define PRINTER_DOC_NAME                                                       \
    "Name must be unique within a namespace. Is required when creating "       \
    "resources, although some resources may allow a client to request the "    \
    "generation of an appropriate name automatically. Name is primarily "      \
    "intended for creation idempotence and configuration definition. Cannot "  \
    "be updated. More info: "                                                  \
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/"       \
    "names#names"
#define PRINTER_DOC_CREATED                                                    \
    "CreationTimestamp is a timestamp representing the server time when "      \
    "this object was created. It is not guaranteed to be set in "              \
    "happens-before order across separate operations. Clients may not set "    \
    "this value. It is represented in RFC3339 form and is in UTC.\n\n"         \
    "Populated by the system. Read-only. Null for lists. More info: "          \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"        \
    "api-conventions.md#metadata"
#define PRINTER_DOC_CONTAINERS "Names of each container in the template."
#define PRINTER_DOC_IMAGES                                                     \
    "Images referenced by each container in the template."

#define PRINTER_COL_NAME                                                       \
    {                                                                          \
        "Name", "string", "name", 0, PRINTER_DOC_NAME                          \
    }
#define PRINTER_COL_AGE                                                        \
    {                                                                          \
        "Age", "string", "", 0, PRINTER_DOC_CREATED                            \
    }
/* The Containers and Images columns of a template (wide). */
#define PRINTER_COLS_TEMPLATE                                                  \
    {"Containers", "string", "", 1, PRINTER_DOC_CONTAINERS},                   \
    {                                                                          \
        "Images", "string", "", 1, PRINTER_DOC_IMAGES                          \
    }

/* metatime_since of the metav1.Time (or MicroTime) value t: "<unknown>"
 * when it is absent, null or not a time. */
void printer_since(char *buf, size_t size, const struct jval *t, time_t now);

/* ------------------------------------------------------------------ */
/* Cells                                                               */
/* ------------------------------------------------------------------ */

/* A JSON string cell (escaped as kjson_escape does). */
void printer_cell_str(struct printer_row *r, const char *s);
/* A JSON integer cell. */
void printer_cell_int(struct printer_row *r, int64_t v);
/* strings.TrimSpace(s) as a string cell: Unicode white space (Go's
 * unicode.IsSpace) removed at both ends. */
void printer_cell_trimmed(struct printer_row *r, const char *s);
/* A string cell reading fallback when s is empty. */
void printer_cell_or(struct printer_row *r, const char *s,
                     const char *fallback);
/* A pointer field's cell (*string): its value when set, even "", and
 * unset when it is nil (absent or null). */
void printer_cell_ptr_or(struct printer_row *r, const struct jval *v,
                         const char *unset);
/* The sbuf's bytes as a string cell (fallback when empty); finalises s. */
void printer_cell_sbuf(struct printer_row *r, struct sbuf *s,
                       const char *fallback);
/* AGE: translateTimestampSince(metadata.creationTimestamp). */
void printer_cell_age(struct printer_row *r, const struct object *o);
/* translateTimestampSince of a metav1.Time value: "<unknown>" when unset. */
void printer_cell_since(struct printer_row *r, const struct jval *timestamp);
/* labels.FormatLabels of a map: the "k=v" strings sorted and joined by
 * ",", "<none>" when empty. */
void printer_cell_labels(struct printer_row *r, const struct jval *map);
/* metav1.FormatLabelSelector: the selector's String(), "<none>" when it is
 * empty or absent, "<error>" when LabelSelectorAsSelector refuses it. */
void printer_cell_selector(struct printer_row *r, const struct jval *sel);
/* LabelSelectorAsSelector(sel).String() as printDeployment writes it: ""
 * when empty or absent, "<invalid>" when refused. */
void printer_cell_selector_string(struct printer_row *r,
                                  const struct jval *sel);
/* layoutContainerCells: two cells, the containers' names and their images,
 * each joined by ",". */
void printer_cell_containers(struct printer_row *r,
                             const struct jval *containers);
/* Where a quantity is read from. */
enum printer_quantity {
    PRINTER_QUANTITY_LIST,    /* a ResourceList value: absent reads "0",
                                 rounded up to milli by the v1 defaults */
    PRINTER_QUANTITY_POINTER, /* a *Quantity: absent reads "<nil>" */
};
/* Quantity.String() of the quantity q (quantity_format); a value
 * ParseQuantity refuses (the apiserver could not have decoded the object)
 * is written as stored. */
void printer_cell_quantity(struct printer_row *r, const struct jval *q,
                           enum printer_quantity kind);
/* Appends it to sb instead. */
void printer_add_quantity(struct sbuf *sb, const struct jval *q,
                          enum printer_quantity kind);

/* ------------------------------------------------------------------ */
/* String lists (Go's []string and sets.String)                        */
/* ------------------------------------------------------------------ */

struct printer_list {
    char **v;
    size_t n;
};

/* Appends a copy of s. */
void printer_list_add(struct printer_list *l, const char *s);
/* Sorts and drops duplicates: sets.NewString(...).List(). */
void printer_list_sort_unique(struct printer_list *l);
/* Appends the strings joined by glue to sb. */
void printer_list_join(struct sbuf *sb, const struct printer_list *l,
                       const char *glue);
/* Frees the strings; l is empty again. */
void printer_list_fini(struct printer_list *l);

/* Whether the condition of type in array conditions is "True", looking at
 * the first condition of that type only (as hasJobCondition,
 * isPodInitializedConditionTrue and printPod's readiness gates). */
bool printer_first_condition_true(const struct jval *conditions,
                                  const char *type);

#endif
