/*
 * printers_autoscaling.c: horizontalpodautoscalers (see
 * printers_autoscaling.h), read from their autoscaling/v2 storage form with
 * its defaults: minReplicas 1, and without metrics one CPU Resource metric
 * with an 80% average utilization target.
 */
#include "proto/printers_autoscaling.h"

#include <stdio.h>
#include <string.h>

#include "cache/rw.h"

static const struct printer_column hpa_columns[] = {
    PRINTER_COL_NAME,
    {"Reference", "string", "", 0,
     "scaleTargetRef points to the target resource to scale, and is used to "
     "the pods for which metrics should be collected, as well as to "
     "actually change the replica count."},
    {"Targets", "string", "", 0,
     "metrics contains the specifications for which to use to calculate the "
     "desired replica count (the maximum replica count across all metrics "
     "will be used).  The desired replica count is calculated multiplying "
     "the ratio between the target value and the current value by the "
     "current number of pods.  Ergo, metrics used must decrease as the pod "
     "count is increased, and vice-versa.  See the individual metric source "
     "types for more information about how each type of metric must "
     "respond."},
    {"MinPods", "string", "", 0,
     "minReplicas is the lower limit for the number of replicas to which the "
     "autoscaler can scale down.  It defaults to 1 pod.  minReplicas is "
     "allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled "
     "and at least one Object or External metric is configured.  Scaling is "
     "active as long as at least one metric value is available."},
    {"MaxPods", "string", "", 0,
     "maxReplicas is the upper limit for the number of replicas to which the "
     "autoscaler can scale up. It cannot be less that minReplicas."},
    {"Replicas", "string", "", 0,
     "currentReplicas is current number of replicas of pods managed by this "
     "autoscaler, as last seen by the autoscaler."},
    PRINTER_COL_AGE,
};

/* At most this many metrics are listed, then "+ N more...". */
#define METRICS_SHOWN 2

/* "current/target" of two *Quantity values; current reads <unknown> when
 * the status does not have it (known false). */
static void add_pair(struct sbuf *s, bool known, const struct jval *current,
                     const struct jval *target)
{
    if (known)
        printer_add_quantity(s, current, PRINTER_QUANTITY_POINTER);
    else
        sbuf_add(s, "<unknown>");
    sbuf_add(s, "/");
    printer_add_quantity(s, target, PRINTER_QUANTITY_POINTER);
}

/* An Object or External metric: "current/target (avg)" for an average
 * value target, else "current/target". */
static void add_value_metric(struct sbuf *s, const struct jval *spec,
                             const struct jval *status)
{
    const struct jval *avg = jval_path(spec, "target.averageValue");
    const struct jval *current = jval_get(status, "current");

    if (avg != NULL) {
        add_pair(s, jval_get(current, "averageValue") != NULL,
                 jval_get(current, "averageValue"), avg);
        sbuf_add(s, " (avg)");
    } else {
        add_pair(s, status != NULL, jval_get(current, "value"),
                 jval_path(spec, "target.value"));
    }
}

/* A Resource or ContainerResource metric: "name: current/target", by
 * average value or average utilization ("50%", target "<auto>" when
 * unset). */
static void add_resource_metric(struct sbuf *s, const struct jval *spec,
                                const struct jval *status)
{
    const struct jval *target = jval_get(spec, "target");
    const struct jval *current = jval_get(status, "current");
    const struct jval *util = jval_get(current, "averageUtilization");

    sbuf_addf(s, "%s: ", jval_str(jval_get(spec, "name")));
    if (jval_get(target, "averageValue") != NULL) {
        add_pair(s, status != NULL, jval_get(current, "averageValue"),
                 jval_get(target, "averageValue"));
        return;
    }
    if (status != NULL && util != NULL)
        sbuf_addf(s, "%lld%%", (long long)jval_int(util));
    else
        sbuf_add(s, "<unknown>");
    if (jval_get(target, "averageUtilization") != NULL)
        sbuf_addf(s, "/%lld%%",
                  (long long)jval_int(jval_get(target, "averageUtilization")));
    else
        sbuf_add(s, "/<auto>");
}

/* One metric spec and the status at the same index (NULL when the status
 * has fewer entries or another source). */
static void add_metric(struct sbuf *s, const struct jval *spec,
                       const struct jval *status)
{
    static const struct {
        const char *type, *member;
        bool resource;
    } sources[] = {
        {"External", "external", false},
        {"Pods", "pods", false},
        {"Object", "object", false},
        {"Resource", "resource", true},
        {"ContainerResource", "containerResource", true},
    };
    const char *type = jval_str(jval_get(spec, "type"));

    for (size_t i = 0; i < RW_ARRAY_LEN(sources); i++) {
        const struct jval *source = jval_get(spec, sources[i].member);
        const struct jval *current = jval_get(status, sources[i].member);

        if (strcmp(type, sources[i].type) != 0)
            continue;
        if (sources[i].resource)
            add_resource_metric(s, source, current);
        else if (strcmp(type, "Pods") == 0) /* always by average value */
            add_pair(s, current != NULL,
                     jval_path(current, "current.averageValue"),
                     jval_path(source, "target.averageValue"));
        else
            add_value_metric(s, source, current);
        return;
    }
    sbuf_add(s, "<unknown type>");
}

/* formatHPAMetrics: the first METRICS_SHOWN metrics joined by ", ". */
static void cell_hpa_targets(struct printer_row *r, const struct jval *hpa)
{
    const struct jval *specs = jval_path(hpa, "spec.metrics");
    const struct jval *statuses = jval_path(hpa, "status.currentMetrics");
    size_t n = jval_len(specs);
    struct sbuf s = {0};

    if (n == 0) { /* the default metric */
        const struct jval *status = jval_at(statuses, 0);
        const struct jval *util =
            jval_path(status, "resource.current.averageUtilization");

        if (jval_get(status, "resource") != NULL && util != NULL)
            sbuf_addf(&s, "cpu: %lld%%/80%%", (long long)jval_int(util));
        else
            sbuf_add(&s, "cpu: <unknown>/80%");
    }
    for (size_t i = 0; i < n && i < METRICS_SHOWN; i++) {
        if (i > 0)
            sbuf_add(&s, ", ");
        add_metric(&s, jval_at(specs, i), jval_at(statuses, i));
    }
    if (n > METRICS_SHOWN)
        sbuf_addf(&s, " + %zu more...", n - METRICS_SHOWN);
    printer_cell_sbuf(r, &s, "");
}

static void hpa_cells(struct printer_row *r, const struct jval *hpa,
                      const struct object *o)
{
    const struct jval *spec = jval_get(hpa, "spec");
    const struct jval *min = jval_get(spec, "minReplicas");
    struct sbuf ref = {0};
    char buf[32];

    sbuf_addf(&ref, "%s/%s", jval_str(jval_path(spec, "scaleTargetRef.kind")),
              jval_str(jval_path(spec, "scaleTargetRef.name")));
    printer_cell_str(r, o->name);
    printer_cell_sbuf(r, &ref, "");
    cell_hpa_targets(r, hpa);
    snprintf(buf, sizeof(buf), "%lld",
             (long long)(min != NULL ? jval_int(min) : 1));
    printer_cell_str(r, buf);
    printer_cell_int(r, jval_int(jval_get(spec, "maxReplicas")));
    printer_cell_int(r, jval_int(jval_path(hpa, "status.currentReplicas")));
    printer_cell_age(r, o);
}

const struct printer printers_autoscaling[] = {
    PRINTER("autoscaling", "horizontalpodautoscalers", hpa_columns, hpa_cells),
};
const size_t printers_autoscaling_len = RW_ARRAY_LEN(printers_autoscaling);
