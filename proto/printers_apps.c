/*
 * printers_apps.c: deployments, replicasets, statefulsets, daemonsets and
 * replicationcontrollers (see printers_apps.h).
 *
 * The v1 defaults the apiserver applies before printing: 1 replica for a
 * Deployment, ReplicaSet, StatefulSet or ReplicationController that names
 * none, and a ReplicationController's selector taken from its template's
 * labels when it has none (SetDefaults_ReplicationController).
 */
#include "proto/printers_apps.h"

#include <stdio.h>

#include "cache/rw.h"

/* spec.replicas, 1 when absent (the v1 defaults). */
static int64_t desired_replicas(const struct jval *spec)
{
    const struct jval *replicas = jval_get(spec, "replicas");

    return replicas != NULL ? jval_int(replicas) : 1;
}

/* "ready/desired", as the READY of deployments and statefulsets. */
static void cell_ready_of(struct printer_row *r, const struct jval *obj)
{
    char buf[64];

    snprintf(buf, sizeof(buf), "%lld/%lld",
             (long long)jval_int(jval_path(obj, "status.readyReplicas")),
             (long long)desired_replicas(jval_get(obj, "spec")));
    printer_cell_str(r, buf);
}

/* ------------------------------------------------------------------ */
/* Deployments and statefulsets                                        */
/* ------------------------------------------------------------------ */

static const struct printer_column deployment_columns[] = {
    PRINTER_COL_NAME,
    {"Ready", "string", "", 0, "Number of the pod with ready state"},
    {"Up-to-date", "string", "", 0,
     "Total number of non-terminated pods targeted by this deployment that "
     "have the desired template spec."},
    {"Available", "string", "", 0,
     "Total number of available pods (ready for at least minReadySeconds) "
     "targeted by this deployment."},
    PRINTER_COL_AGE,
    PRINTER_COLS_TEMPLATE,
    {"Selector", "string", "", 1,
     "Label selector for pods. Existing ReplicaSets whose pods are selected "
     "by this will be the ones affected by this deployment."},
};

static void deployment_cells(struct printer_row *r, const struct jval *d,
                             const struct object *o)
{
    const struct jval *spec = jval_get(d, "spec");
    const struct jval *status = jval_get(d, "status");

    printer_cell_str(r, o->name);
    cell_ready_of(r, d);
    printer_cell_int(r, jval_int(jval_get(status, "updatedReplicas")));
    printer_cell_int(r, jval_int(jval_get(status, "availableReplicas")));
    printer_cell_age(r, o);
    printer_cell_containers(r, jval_path(spec, "template.spec.containers"));
    printer_cell_selector_string(r, jval_get(spec, "selector"));
}

static const struct printer_column statefulset_columns[] = {
    PRINTER_COL_NAME,
    {"Ready", "string", "", 0, "Number of the pod with ready state"},
    PRINTER_COL_AGE,
    PRINTER_COLS_TEMPLATE,
};

static void statefulset_cells(struct printer_row *r, const struct jval *sts,
                              const struct object *o)
{
    printer_cell_str(r, o->name);
    cell_ready_of(r, sts);
    printer_cell_age(r, o);
    printer_cell_containers(r, jval_path(sts, "spec.template.spec.containers"));
}

/* ------------------------------------------------------------------ */
/* Replicasets and replicationcontrollers                              */
/* ------------------------------------------------------------------ */

static const struct printer_column replicaset_columns[] = {
    PRINTER_COL_NAME,
    {"Desired", "integer", "", 0,
     "Replicas is the number of desired replicas. This is a pointer to "
     "distinguish between explicit zero and unspecified. Defaults to 1. "
     "More info: "
     "https://kubernetes.io/docs/concepts/workloads/controllers/"
     "replicationcontroller/#what-is-a-replicationcontroller"},
    {"Current", "integer", "", 0,
     "Replicas is the most recently observed number of replicas. More info: "
     "https://kubernetes.io/docs/concepts/workloads/controllers/"
     "replicationcontroller/#what-is-a-replicationcontroller"},
    {"Ready", "integer", "", 0,
     "The number of ready replicas for this replica set."},
    PRINTER_COL_AGE,
    PRINTER_COLS_TEMPLATE,
    {"Selector", "string", "", 1,
     "Selector is a label query over pods that should match the replica "
     "count. If the selector is empty, it is defaulted to the labels present "
     "on the pod template. Label keys and values that must match in order to "
     "be controlled by this replica set. More info: "
     "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
     "labels/#label-selectors"},
};

static const struct printer_column rc_columns[] = {
    PRINTER_COL_NAME,
    {"Desired", "integer", "", 0,
     "Replicas is the number of desired replicas. This is a pointer to "
     "distinguish between explicit zero and unspecified. Defaults to 1. "
     "More info: "
     "https://kubernetes.io/docs/concepts/workloads/controllers/"
     "replicationcontroller#what-is-a-replicationcontroller"},
    {"Current", "integer", "", 0,
     "Replicas is the most recently observed number of replicas. More info: "
     "https://kubernetes.io/docs/concepts/workloads/controllers/"
     "replicationcontroller#what-is-a-replicationcontroller"},
    {"Ready", "integer", "", 0,
     "The number of ready replicas for this replication controller."},
    PRINTER_COL_AGE,
    PRINTER_COLS_TEMPLATE,
    {"Selector", "string", "", 1,
     "Selector is a label query over pods that should match the Replicas "
     "count. If Selector is empty, it is defaulted to the labels present on "
     "the Pod template. Label keys and values that must match in order to "
     "be controlled by this replication controller, if empty defaulted to "
     "labels on Pod template. More info: "
     "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
     "labels/#label-selectors"},
};

/* DESIRED, CURRENT, READY and AGE of a replicaset or controller. */
static void cells_replicas(struct printer_row *r, const struct jval *obj,
                           const struct object *o)
{
    printer_cell_str(r, o->name);
    printer_cell_int(r, desired_replicas(jval_get(obj, "spec")));
    printer_cell_int(r, jval_int(jval_path(obj, "status.replicas")));
    printer_cell_int(r, jval_int(jval_path(obj, "status.readyReplicas")));
    printer_cell_age(r, o);
}

static void replicaset_cells(struct printer_row *r, const struct jval *rs,
                             const struct object *o)
{
    cells_replicas(r, rs, o);
    printer_cell_containers(r, jval_path(rs, "spec.template.spec.containers"));
    printer_cell_selector(r, jval_path(rs, "spec.selector"));
}

static void rc_cells(struct printer_row *r, const struct jval *rc,
                     const struct object *o)
{
    const struct jval *spec = jval_get(rc, "spec");
    const struct jval *selector = jval_get(spec, "selector");
    const struct jval *template_labels =
        jval_path(spec, "template.metadata.labels");

    if (jval_len(selector) == 0 && template_labels != NULL)
        selector = template_labels;
    cells_replicas(r, rc, o);
    printer_cell_containers(r, jval_path(spec, "template.spec.containers"));
    printer_cell_labels(r, selector);
}

/* ------------------------------------------------------------------ */
/* Daemonsets                                                          */
/* ------------------------------------------------------------------ */

static const struct printer_column daemonset_columns[] = {
    PRINTER_COL_NAME,
    {"Desired", "integer", "", 0,
     "The total number of nodes that should be running the daemon pod "
     "(including nodes correctly running the daemon pod). More info: "
     "https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"},
    {"Current", "integer", "", 0,
     "The number of nodes that are running at least 1 daemon pod and are "
     "supposed to run the daemon pod. More info: "
     "https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/"},
    {"Ready", "integer", "", 0,
     "The number of nodes that should be running the daemon pod and have "
     "one or more of the daemon pod running and ready."},
    {"Up-to-date", "integer", "", 0,
     "The total number of nodes that are running updated daemon pod"},
    {"Available", "integer", "", 0,
     "The number of nodes that should be running the daemon pod and have "
     "one or more of the daemon pod running and available (ready for at "
     "least spec.minReadySeconds)"},
    {"Node Selector", "string", "", 0,
     "NodeSelector is a selector which must be true for the pod to fit on a "
     "node. Selector which must match a node's labels for the pod to be "
     "scheduled on that node. More info: "
     "https://kubernetes.io/docs/concepts/configuration/assign-pod-node/"},
    PRINTER_COL_AGE,
    PRINTER_COLS_TEMPLATE,
    {"Selector", "string", "", 1,
     "A label query over pods that are managed by the daemon set. Must match "
     "in order to be controlled. If empty, defaulted to labels on Pod "
     "template. More info: "
     "https://kubernetes.io/docs/concepts/overview/working-with-objects/"
     "labels/#label-selectors"},
};

static void daemonset_cells(struct printer_row *r, const struct jval *ds,
                            const struct object *o)
{
    const struct jval *status = jval_get(ds, "status");
    const struct jval *pod_spec = jval_path(ds, "spec.template.spec");

    printer_cell_str(r, o->name);
    printer_cell_int(r, jval_int(jval_get(status, "desiredNumberScheduled")));
    printer_cell_int(r, jval_int(jval_get(status, "currentNumberScheduled")));
    printer_cell_int(r, jval_int(jval_get(status, "numberReady")));
    printer_cell_int(r, jval_int(jval_get(status, "updatedNumberScheduled")));
    printer_cell_int(r, jval_int(jval_get(status, "numberAvailable")));
    printer_cell_labels(r, jval_get(pod_spec, "nodeSelector"));
    printer_cell_age(r, o);
    printer_cell_containers(r, jval_get(pod_spec, "containers"));
    printer_cell_selector(r, jval_path(ds, "spec.selector"));
}

const struct printer printers_apps[] = {
    PRINTER("apps", "deployments", deployment_columns, deployment_cells),
    PRINTER("apps", "replicasets", replicaset_columns, replicaset_cells),
    PRINTER("apps", "statefulsets", statefulset_columns, statefulset_cells),
    PRINTER("apps", "daemonsets", daemonset_columns, daemonset_cells),
    PRINTER("", "replicationcontrollers", rc_columns, rc_cells),
};
const size_t printers_apps_len = RW_ARRAY_LEN(printers_apps);
