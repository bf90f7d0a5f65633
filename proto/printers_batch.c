/*
 * printers_batch.c: jobs and cronjobs (see printers_batch.h).
 *
 * The batch/v1 defaults the apiserver applies before printing: a Job with
 * neither completions nor parallelism gets 1 of each; a CronJob's suspend
 * is false when absent.
 */
#include "proto/printers_batch.h"

#include <stdio.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/metatime.h"

#define DOC_JOB_SELECTOR                                                       \
    "A label query over pods that should match the pod count. Normally, the "  \
    "system sets this field for you. More info: "                              \
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/"       \
    "labels/#label-selectors"

static const struct printer_column job_columns[] = {
    PRINTER_COL_NAME,
    {"Status", "string", "", 0, "Status of the job."},
    {"Completions", "string", "", 0,
     "The number of pods which reached phase Succeeded. The value increases "
     "monotonically for a given spec. However, it may decrease in reaction "
     "to scale down of elastic indexed jobs."},
    {"Duration", "string", "", 0, "Time required to complete the job."},
    PRINTER_COL_AGE,
    PRINTER_COLS_TEMPLATE,
    {"Selector", "string", "", 1, DOC_JOB_SELECTOR},
};

/* COMPLETIONS: "succeeded/completions", or without completions
 * "succeeded/1", "of parallelism" added when it is above 1. */
static void cell_completions(struct printer_row *r, const struct jval *job)
{
    const struct jval *spec = jval_get(job, "spec");
    const struct jval *completions = jval_get(spec, "completions");
    long long succeeded =
        (long long)jval_int(jval_path(job, "status.succeeded"));
    int64_t parallelism = jval_int(jval_get(spec, "parallelism"));
    char buf[96];

    if (completions != NULL)
        snprintf(buf, sizeof(buf), "%lld/%lld", succeeded,
                 (long long)jval_int(completions));
    else if (parallelism > 1)
        snprintf(buf, sizeof(buf), "%lld/1 of %lld", succeeded,
                 (long long)parallelism);
    else
        snprintf(buf, sizeof(buf), "%lld/1", succeeded);
    printer_cell_str(r, buf);
}

/* DURATION: completionTime - startTime, or now - startTime while
 * running, "" before the job starts. */
static void cell_duration(struct printer_row *r, const struct jval *status,
                          time_t now)
{
    int64_t start, end;
    char buf[32] = "";

    if (metatime_parse(jval_str(jval_get(status, "startTime")), &start)) {
        if (!metatime_parse(jval_str(jval_get(status, "completionTime")), &end))
            end = (int64_t)now;
        metatime_human_duration(buf, sizeof(buf), end - start);
    }
    printer_cell_str(r, buf);
}

/* STATUS: the first of Complete, Failed, Terminating, Suspended,
 * FailureTarget that holds, else Running. */
static const char *job_status(const struct jval *job)
{
    const struct jval *conds = jval_path(job, "status.conditions");

    if (printer_first_condition_true(conds, "Complete"))
        return "Complete";
    if (printer_first_condition_true(conds, "Failed"))
        return "Failed";
    if (jval_path(job, "metadata.deletionTimestamp") != NULL)
        return "Terminating";
    if (printer_first_condition_true(conds, "Suspended"))
        return "Suspended";
    if (printer_first_condition_true(conds, "FailureTarget"))
        return "FailureTarget";
    return "Running";
}

static void job_cells(struct printer_row *r, const struct jval *job,
                      const struct object *o)
{
    const struct jval *spec = jval_get(job, "spec");

    printer_cell_str(r, o->name);
    printer_cell_str(r, job_status(job));
    cell_completions(r, job);
    cell_duration(r, jval_get(job, "status"), r->now);
    printer_cell_age(r, o);
    printer_cell_containers(r, jval_path(spec, "template.spec.containers"));
    printer_cell_selector(r, jval_get(spec, "selector"));
}

static const struct printer_column cronjob_columns[] = {
    PRINTER_COL_NAME,
    {"Schedule", "string", "", 0,
     "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron."},
    {"Timezone", "string", "", 0,
     "The time zone name for the given schedule, see "
     "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not "
     "specified, this will default to the time zone of the "
     "kube-controller-manager process. The set of valid time zone names and "
     "the time zone offset is loaded from the system-wide time zone "
     "database by the API server during CronJob validation and the "
     "controller manager during execution. If no system-wide time zone "
     "database can be found a bundled version of the database is used "
     "instead. If the time zone name becomes invalid during the lifetime of "
     "a CronJob or due to a change in host configuration, the controller "
     "will stop creating new new Jobs and will create a system event with "
     "the reason UnknownTimeZone. More information can be found in "
     "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/"
     "#time-zones"},
    {"Suspend", "boolean", "", 0,
     "This flag tells the controller to suspend subsequent executions, it "
     "does not apply to already started executions.  Defaults to false."},
    {"Active", "integer", "", 0,
     "A list of pointers to currently running jobs."},
    {"Last Schedule", "string", "", 0,
     "Information when was the last time the job was successfully "
     "scheduled."},
    PRINTER_COL_AGE,
    PRINTER_COLS_TEMPLATE,
    {"Selector", "string", "", 1, DOC_JOB_SELECTOR},
};

static void cronjob_cells(struct printer_row *r, const struct jval *cj,
                          const struct object *o)
{
    const struct jval *spec = jval_get(cj, "spec");
    const struct jval *job_spec = jval_path(spec, "jobTemplate.spec");
    const struct jval *last = jval_path(cj, "status.lastScheduleTime");

    printer_cell_str(r, o->name);
    printer_cell_str(r, jval_str(jval_get(spec, "schedule")));
    printer_cell_ptr_or(r, jval_get(spec, "timeZone"), "<none>");
    printer_cell_str(r,
                     jval_true(jval_get(spec, "suspend")) ? "True" : "False");
    printer_cell_int(r, (int64_t)jval_len(jval_path(cj, "status.active")));
    if (last != NULL)
        printer_cell_since(r, last);
    else
        printer_cell_str(r, "<none>");
    printer_cell_age(r, o);
    printer_cell_containers(r, jval_path(job_spec, "template.spec.containers"));
    printer_cell_selector(r, jval_get(job_spec, "selector"));
}

const struct printer printers_batch[] = {
    PRINTER("batch", "jobs", job_columns, job_cells),
    PRINTER("batch", "cronjobs", cronjob_columns, cronjob_cells),
};
const size_t printers_batch_len = RW_ARRAY_LEN(printers_batch);
