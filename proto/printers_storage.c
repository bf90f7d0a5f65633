/*
 * printers_storage.c: persistentvolumes and persistentvolumeclaims (see
 * printers_storage.h).
 *
 * The v1 defaults the apiserver applies before printing: a volume's phase
 * Pending, reclaim policy Retain and volume mode Filesystem, a claim's
 * phase Pending and volume mode Filesystem, and every ResourceList value
 * (capacities) rounded up to a multiple of 10^-3.  The storage class is the
 * beta annotation volume.beta.kubernetes.io/storage-class when it is set,
 * else spec.storageClassName (helper.GetPersistentVolumeClass).
 */
#include "proto/printers_storage.h"

#include <string.h>

#include "cache/rw.h"

#define DOC_VOLUME_MODE_PV                                                     \
    "volumeMode defines if a volume is intended to be used with a "            \
    "formatted filesystem or to remain in raw block state. Value of "          \
    "Filesystem is implied when not included in spec."

static const struct printer_column pv_columns[] = {
    PRINTER_COL_NAME,
    {"Capacity", "string", "", 0,
     "capacity is the description of the persistent volume's resources and "
     "capacity. More info: "
     "https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity"},
    {"Access Modes", "string", "", 0,
     "accessModes contains all ways the volume can be mounted. More info: "
     "https://kubernetes.io/docs/concepts/storage/persistent-volumes"
     "#access-modes"},
    {"Reclaim Policy", "string", "", 0,
     "persistentVolumeReclaimPolicy defines what happens to a persistent "
     "volume when released from its claim. Valid options are Retain "
     "(default for manually created PersistentVolumes), Delete (default for "
     "dynamically provisioned PersistentVolumes), and Recycle (deprecated). "
     "Recycle must be supported by the volume plugin underlying this "
     "PersistentVolume. More info: "
     "https://kubernetes.io/docs/concepts/storage/persistent-volumes"
     "#reclaiming"},
    {"Status", "string", "", 0,
     "phase indicates if a volume is available, bound to a claim, or "
     "released by a claim. More info: "
     "https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase"},
    {"Claim", "string", "", 0,
     "claimRef is part of a bi-directional binding between PersistentVolume "
     "and PersistentVolumeClaim. Expected to be non-nil when bound. "
     "claim.VolumeName is the authoritative bind between PV and PVC. More "
     "info: "
     "https://kubernetes.io/docs/concepts/storage/persistent-volumes"
     "#binding"},
    {"StorageClass", "string", "", 0, "StorageClass of the pv"},
    {"VolumeAttributesClass", "string", "", 0,
     "VolumeAttributesClass of the pv"},
    {"Reason", "string", "", 0,
     "reason is a brief CamelCase string that describes any failure and is "
     "meant for machine parsing and tidy display in the CLI."},
    PRINTER_COL_AGE,
    {"VolumeMode", "string", "", 1, DOC_VOLUME_MODE_PV},
};

static const struct printer_column pvc_columns[] = {
    PRINTER_COL_NAME,
    {"Status", "string", "", 0,
     "phase represents the current phase of PersistentVolumeClaim."},
    {"Volume", "string", "", 0,
     "volumeName is the binding reference to the PersistentVolume backing "
     "this claim."},
    {"Capacity", "string", "", 0,
     "capacity represents the actual resources of the underlying volume."},
    {"Access Modes", "string", "", 0,
     "accessModes contains the actual access modes the volume backing the "
     "PVC has. More info: "
     "https://kubernetes.io/docs/concepts/storage/persistent-volumes"
     "#access-modes-1"},
    {"StorageClass", "string", "", 0, "StorageClass of the pvc"},
    {"VolumeAttributesClass", "string", "", 0,
     "VolumeAttributesClass of the pvc"},
    PRINTER_COL_AGE,
    {"VolumeMode", "string", "", 1,
     "volumeMode defines what type of volume is required by the claim. "
     "Value of Filesystem is implied when not included in claim spec."},
};

/* helper.GetAccessModesAsString: RWO, ROX, RWX, RWOP in that order, each
 * once, joined by ",". */
static void cell_access_modes(struct printer_row *r, const struct jval *modes)
{
    static const char *const order[][2] = {
        {"ReadWriteOnce", "RWO"},
        {"ReadOnlyMany", "ROX"},
        {"ReadWriteMany", "RWX"},
        {"ReadWriteOncePod", "RWOP"},
    };
    const struct jval *m;
    struct sbuf s = {0};

    for (size_t i = 0; i < RW_ARRAY_LEN(order); i++) {
        JVAL_EACH(m, modes)
        {
            if (strcmp(jval_str(m), order[i][0]) == 0) {
                sbuf_addf(&s, "%s%s", s.len ? "," : "", order[i][1]);
                break;
            }
        }
    }
    printer_cell_sbuf(r, &s, "");
}

/* The phase, "Terminating" while the object is being deleted. */
static void cell_phase(struct printer_row *r, const struct jval *obj)
{
    if (jval_path(obj, "metadata.deletionTimestamp") != NULL)
        printer_cell_str(r, "Terminating");
    else
        printer_cell_or(r, jval_str(jval_path(obj, "status.phase")), "Pending");
}

/* The beta storage-class annotation, NULL when the object has none. */
static const struct jval *beta_class(const struct jval *obj)
{
    return jval_get(jval_path(obj, "metadata.annotations"),
                    "volume.beta.kubernetes.io/storage-class");
}

static void pv_cells(struct printer_row *r, const struct jval *pv,
                     const struct object *o)
{
    const struct jval *spec = jval_get(pv, "spec");
    const struct jval *claim = jval_get(spec, "claimRef");
    const struct jval *class = beta_class(pv);
    struct sbuf s = {0};

    if (claim != NULL)
        sbuf_addf(&s, "%s/%s", jval_str(jval_get(claim, "namespace")),
                  jval_str(jval_get(claim, "name")));
    printer_cell_str(r, o->name);
    printer_cell_quantity(r, jval_path(spec, "capacity.storage"),
                          PRINTER_QUANTITY_LIST);
    cell_access_modes(r, jval_get(spec, "accessModes"));
    printer_cell_or(
        r, jval_str(jval_get(spec, "persistentVolumeReclaimPolicy")), "Retain");
    cell_phase(r, pv);
    printer_cell_sbuf(r, &s, "");
    printer_cell_str(
        r,
        jval_str(class != NULL ? class : jval_get(spec, "storageClassName")));
    printer_cell_ptr_or(r, jval_get(spec, "volumeAttributesClassName"),
                        "<unset>");
    printer_cell_str(r, jval_str(jval_path(pv, "status.reason")));
    printer_cell_age(r, o);
    printer_cell_ptr_or(r, jval_get(spec, "volumeMode"), "Filesystem");
}

static void pvc_cells(struct printer_row *r, const struct jval *pvc,
                      const struct object *o)
{
    const struct jval *spec = jval_get(pvc, "spec");
    const struct jval *status = jval_get(pvc, "status");
    const struct jval *class = beta_class(pvc);
    const char *volume = jval_str(jval_get(spec, "volumeName"));

    printer_cell_str(r, o->name);
    cell_phase(r, pvc);
    printer_cell_str(r, volume);
    if (*volume != '\0') {
        printer_cell_quantity(r, jval_path(status, "capacity.storage"),
                              PRINTER_QUANTITY_LIST);
        cell_access_modes(r, jval_get(status, "accessModes"));
    } else {
        printer_cell_str(r, "");
        printer_cell_str(r, "");
    }
    printer_cell_str(
        r,
        jval_str(class != NULL ? class : jval_get(spec, "storageClassName")));
    printer_cell_ptr_or(r, jval_get(spec, "volumeAttributesClassName"),
                        "<unset>");
    printer_cell_age(r, o);
    printer_cell_ptr_or(r, jval_get(spec, "volumeMode"), "Filesystem");
}

const struct printer printers_storage[] = {
    PRINTER("", "persistentvolumes", pv_columns, pv_cells),
    PRINTER("", "persistentvolumeclaims", pvc_columns, pvc_cells),
};
const size_t printers_storage_len = RW_ARRAY_LEN(printers_storage);
