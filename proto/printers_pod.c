/*
 * printers_pod.c: the pods printer, kube-apiserver 1.32's printPod (see
 * printers_pod.h): READY, STATUS (the phase, then the reason from the init
 * containers or the containers, Terminating, Unknown), RESTARTS with the
 * last restart's age, and the wide IP, NODE, NOMINATED NODE and READINESS
 * GATES; pods that Succeeded or Failed carry the Completed row condition.
 *
 * The v1 status is read as the apiserver's conversion to its internal type
 * leaves it: status.podIP, when set, is the first pod IP (it wins over a
 * differing podIPs[0]).
 */
#include "proto/printers_pod.h"

#include <stdio.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/metatime.h"

static const struct printer_column pod_columns[] = {
    PRINTER_COL_NAME,
    {"Ready", "string", "", 0,
     "The aggregate readiness state of this pod for accepting traffic."},
    {"Status", "string", "", 0,
     "The aggregate status of the containers in this pod."},
    {"Restarts", "string", "", 0,
     "The number of times the containers in this pod have been restarted "
     "and when the last container in this pod has restarted."},
    PRINTER_COL_AGE,
    {"IP", "string", "", 1,
     "podIP address allocated to the pod. Routable at least within the "
     "cluster. Empty if not yet allocated."},
    {"Node", "string", "", 1,
     "NodeName indicates in which node this pod is scheduled. If empty, "
     "this pod is a candidate for scheduling by the scheduler defined in "
     "schedulerName. Once this field is set, the kubelet for this node "
     "becomes responsible for the lifecycle of this pod. This field should "
     "not be used to express a desire for the pod to be scheduled on a "
     "specific node. "
     "https://kubernetes.io/docs/concepts/scheduling-eviction/"
     "assign-pod-node/#nodename"},
    {"Nominated Node", "string", "", 1,
     "nominatedNodeName is set only when this pod preempts other pods on "
     "the node, but it cannot be scheduled right away as preemption victims "
     "receive their graceful termination periods. This field does not "
     "guarantee that the pod will be scheduled on this node. Scheduler may "
     "decide to place the pod elsewhere if other nodes become available "
     "sooner. Scheduler may also decide to give the resources on this node "
     "to a higher priority pod that is created after preemption. As a "
     "result, this field may be different than PodSpec.nodeName when the "
     "pod is scheduled."},
    {"Readiness Gates", "string", "", 1,
     "If specified, all readiness gates will be evaluated for pod "
     "readiness. A pod is ready when all its containers are ready AND all "
     "conditions specified in the readiness gates have status equal to "
     "\"True\" More info: "
     "https://git.k8s.io/enhancements/keps/sig-network/"
     "580-pod-readiness-gates"},
};

/* No time: metav1.Time's zero value. */
#define NO_TIME INT64_MIN

/* What printPod accumulates. */
struct pod_state {
    char reason[128];
    int64_t restarts, ready, total;
    int64_t last_restart; /* NO_TIME or seconds */
};

/* Whether any condition of type is "True" (hasPodReadyCondition). */
static bool any_condition_true(const struct jval *conditions, const char *type)
{
    const struct jval *c;

    JVAL_EACH(c, conditions)
    {
        if (strcmp(jval_str(jval_get(c, "type")), type) == 0 &&
            strcmp(jval_str(jval_get(c, "status")), "True") == 0)
            return true;
    }
    return false;
}

/* Whether the init container named name is restartable (a sidecar). */
static bool restartable_init(const struct jval *spec, const char *name)
{
    const struct jval *c, *found = NULL;

    JVAL_EACH(c, jval_get(spec, "initContainers"))
    {
        if (strcmp(jval_str(jval_get(c, "name")), name) == 0)
            found = c; /* a map: the last one wins */
    }
    return strcmp(jval_str(jval_get(found, "restartPolicy")), "Always") == 0;
}

/* The later of *t and status.lastState.terminated.finishedAt. */
static void note_restart(int64_t *t, const struct jval *status)
{
    int64_t f;

    if (metatime_parse(
            jval_str(jval_path(status, "lastState.terminated.finishedAt")),
            &f) &&
        (*t == NO_TIME || *t < f))
        *t = f;
}

/* Reason of a terminated state without one: "Signal:n" or "ExitCode:n". */
static void terminated_reason(char *buf, size_t size, const char *prefix,
                              const struct jval *terminated)
{
    int64_t signal = jval_int(jval_get(terminated, "signal"));

    if (signal != 0)
        snprintf(buf, size, "%sSignal:%lld", prefix, (long long)signal);
    else
        snprintf(buf, size, "%sExitCode:%lld", prefix,
                 (long long)jval_int(jval_get(terminated, "exitCode")));
}

/* The init container loop; returns whether the pod is initializing. */
static bool pod_init_containers(const struct jval *pod, struct pod_state *ps,
                                int64_t *sidecar_restarts,
                                int64_t *sidecar_last)
{
    const struct jval *spec = jval_get(pod, "spec"), *c;
    size_t i = 0, ninit = jval_len(jval_get(spec, "initContainers"));

    JVAL_EACH(c, jval_path(pod, "status.initContainerStatuses"))
    {
        const struct jval *waiting = jval_path(c, "state.waiting");
        const struct jval *term = jval_path(c, "state.terminated");
        const char *wreason = jval_str(jval_get(waiting, "reason"));
        bool sidecar = restartable_init(spec, jval_str(jval_get(c, "name")));

        ps->restarts += jval_int(jval_get(c, "restartCount"));
        note_restart(&ps->last_restart, c);
        if (sidecar) {
            *sidecar_restarts += jval_int(jval_get(c, "restartCount"));
            note_restart(sidecar_last, c);
        }
        if (term != NULL && jval_int(jval_get(term, "exitCode")) == 0) {
            i++;
            continue;
        }
        if (sidecar && jval_true(jval_get(c, "started"))) {
            ps->ready += jval_true(jval_get(c, "ready"));
            i++;
            continue;
        }
        if (term != NULL && *jval_str(jval_get(term, "reason")) == '\0')
            terminated_reason(ps->reason, sizeof(ps->reason), "Init:", term);
        else if (term != NULL)
            snprintf(ps->reason, sizeof(ps->reason), "Init:%s",
                     jval_str(jval_get(term, "reason")));
        else if (waiting && *wreason && strcmp(wreason, "PodInitializing"))
            snprintf(ps->reason, sizeof(ps->reason), "Init:%s", wreason);
        else
            snprintf(ps->reason, sizeof(ps->reason), "Init:%zu/%zu", i, ninit);
        return true;
    }
    return false;
}

/* The container loop, last status first, as printPod. */
static void pod_containers(const struct jval *pod, struct pod_state *ps)
{
    const struct jval *statuses = jval_path(pod, "status.containerStatuses");
    bool running = false;

    for (size_t i = jval_len(statuses); i-- > 0;) {
        const struct jval *c = jval_at(statuses, i);
        const struct jval *waiting = jval_path(c, "state.waiting");
        const struct jval *term = jval_path(c, "state.terminated");

        ps->restarts += jval_int(jval_get(c, "restartCount"));
        note_restart(&ps->last_restart, c);
        if (waiting && *jval_str(jval_get(waiting, "reason")))
            snprintf(ps->reason, sizeof(ps->reason), "%s",
                     jval_str(jval_get(waiting, "reason")));
        else if (term && *jval_str(jval_get(term, "reason")))
            snprintf(ps->reason, sizeof(ps->reason), "%s",
                     jval_str(jval_get(term, "reason")));
        else if (term)
            terminated_reason(ps->reason, sizeof(ps->reason), "", term);
        else if (jval_true(jval_get(c, "ready")) &&
                 jval_path(c, "state.running")) {
            running = true;
            ps->ready++;
        }
    }
    if (strcmp(ps->reason, "Completed") == 0 && running)
        snprintf(
            ps->reason, sizeof(ps->reason), "%s",
            any_condition_true(jval_path(pod, "status.conditions"), "Ready")
                ? "Running"
                : "NotReady");
}

/* Status reason and counters before the container loops. */
static void pod_start(const struct jval *pod, struct pod_state *ps)
{
    const struct jval *status = jval_get(pod, "status"), *c;
    const char *reason = jval_str(jval_get(status, "reason"));

    snprintf(ps->reason, sizeof(ps->reason), "%s",
             *reason ? reason : jval_str(jval_get(status, "phase")));
    JVAL_EACH(c, jval_get(status, "conditions"))
    {
        if (strcmp(jval_str(jval_get(c, "type")), "PodScheduled") == 0 &&
            strcmp(jval_str(jval_get(c, "reason")), "SchedulingGated") == 0)
            snprintf(ps->reason, sizeof(ps->reason), "SchedulingGated");
    }
    ps->total = (int64_t)jval_len(jval_path(pod, "spec.containers"));
    JVAL_EACH(c, jval_path(pod, "spec.initContainers"))
    {
        ps->total +=
            strcmp(jval_str(jval_get(c, "restartPolicy")), "Always") == 0;
    }
    ps->last_restart = NO_TIME;
}

/* Terminating / Unknown for a pod being deleted. */
static void pod_deleting(const struct jval *pod, struct pod_state *ps)
{
    const char *phase = jval_str(jval_path(pod, "status.phase"));
    const char *reason = jval_str(jval_path(pod, "status.reason"));

    if (jval_path(pod, "metadata.deletionTimestamp") == NULL)
        return;
    if (strcmp(reason, "NodeLost") == 0)
        snprintf(ps->reason, sizeof(ps->reason), "Unknown");
    else if (strcmp(phase, "Succeeded") != 0 && strcmp(phase, "Failed") != 0)
        snprintf(ps->reason, sizeof(ps->reason), "Terminating");
}

/* "N/M" readiness gates that are True, or "<none>". */
static void cell_readiness_gates(struct printer_row *r, const struct jval *pod)
{
    const struct jval *gates = jval_path(pod, "spec.readinessGates");
    const struct jval *conds = jval_path(pod, "status.conditions");
    const struct jval *g;
    int64_t n = 0, ok = 0;
    char buf[48];

    JVAL_EACH(g, gates)
    {
        n++;
        ok += printer_first_condition_true(
            conds, jval_str(jval_get(g, "conditionType")));
    }
    snprintf(buf, sizeof(buf), "%lld/%lld", (long long)ok, (long long)n);
    printer_cell_str(r, n > 0 ? buf : "<none>");
}

/* The first pod IP as the internal type has it, "<none>" when unset. */
static void cell_pod_ip(struct printer_row *r, const struct jval *status)
{
    const char *ip = jval_str(jval_get(status, "podIP"));

    if (*ip == '\0')
        ip = jval_str(jval_get(jval_at(jval_get(status, "podIPs"), 0), "ip"));
    printer_cell_or(r, ip, "<none>");
}

static void pod_cells(struct printer_row *r, const struct jval *pod,
                      const struct object *o)
{
    const struct jval *status = jval_get(pod, "status");
    const char *phase = jval_str(jval_get(status, "phase"));
    struct pod_state ps = {0};
    int64_t sidecar_restarts = 0, sidecar_last = NO_TIME;
    char buf[160], age[32];

    pod_start(pod, &ps);
    if (!pod_init_containers(pod, &ps, &sidecar_restarts, &sidecar_last) ||
        printer_first_condition_true(jval_get(status, "conditions"),
                                     "Initialized")) {
        ps.restarts = sidecar_restarts;
        ps.last_restart = sidecar_last;
        pod_containers(pod, &ps);
    }
    pod_deleting(pod, &ps);
    if (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0)
        r->completed = strcmp(phase, "Succeeded") == 0 ? "Succeeded" : "Failed";

    printer_cell_str(r, o->name);
    snprintf(buf, sizeof(buf), "%lld/%lld", (long long)ps.ready,
             (long long)ps.total);
    printer_cell_str(r, buf);
    printer_cell_str(r, ps.reason);
    snprintf(buf, sizeof(buf), "%lld", (long long)ps.restarts);
    if (ps.restarts != 0 && ps.last_restart != NO_TIME) {
        metatime_human_duration(age, sizeof(age),
                                (int64_t)r->now - ps.last_restart);
        snprintf(buf, sizeof(buf), "%lld (%s ago)", (long long)ps.restarts,
                 age);
    }
    printer_cell_str(r, buf);
    printer_cell_age(r, o);
    cell_pod_ip(r, status);
    printer_cell_or(r, jval_str(jval_path(pod, "spec.nodeName")), "<none>");
    printer_cell_or(r, jval_str(jval_get(status, "nominatedNodeName")),
                    "<none>");
    cell_readiness_gates(r, pod);
}

const struct printer printers_pod[] = {
    PRINTER("", "pods", pod_columns, pod_cells),
};
const size_t printers_pod_len = RW_ARRAY_LEN(printers_pod);
