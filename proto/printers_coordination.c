/*
 * printers_coordination.c: leases (see printers_coordination.h).
 */
#include "proto/printers_coordination.h"

#include "cache/rw.h"

static const struct printer_column lease_columns[] = {
    PRINTER_COL_NAME,
    {"Holder", "string", "", 0,
     "holderIdentity contains the identity of the holder of a current "
     "lease. If Coordinated Leader Election is used, the holder identity "
     "must be equal to the elected LeaseCandidate.metadata.name field."},
    PRINTER_COL_AGE,
};

static void lease_cells(struct printer_row *r, const struct jval *lease,
                        const struct object *o)
{
    printer_cell_str(r, o->name);
    printer_cell_str(r, jval_str(jval_path(lease, "spec.holderIdentity")));
    printer_cell_age(r, o);
}

const struct printer printers_coordination[] = {
    PRINTER("coordination.k8s.io", "leases", lease_columns, lease_cells),
};
const size_t printers_coordination_len = RW_ARRAY_LEN(printers_coordination);
