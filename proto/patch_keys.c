/*
 * patch_keys.c: the merge keys and strategies of the built-in kinds (see
 * patch_keys.h), transcribed from the patchStrategy/patchMergeKey struct
 * tags of k8s.io/api (1.32).  Every kind shares metav1.ObjectMeta; the
 * workloads share PodTemplateSpec.  Lists without a tag (tolerations,
 * taints, rules, subjects, endpoints' subsets, command, args, ...) are
 * atomic and need no entry.
 */
#include "proto/patch_keys.h"

#include <stddef.h>
#include <string.h>

#include "cache/rw.h"

#define END {NULL, false, false, NULL, NULL}
#define MERGE(name, key, type) {name, true, false, key, type}
#define SET(name) {name, true, false, NULL, NULL} /* merged as a set */
#define FIELD(name, type) {name, false, false, NULL, type}

/* metav1.ObjectMeta */
static const struct patch_keys_field object_meta_fields[] = {
    MERGE("ownerReferences", "uid", NULL),
    SET("finalizers"),
    END,
};
static const struct patch_keys_type object_meta = {"ObjectMeta",
                                                   object_meta_fields};

/* core/v1 Container, and EphemeralContainer (EphemeralContainerCommon
 * repeats Container's tags) */
static const struct patch_keys_field container_fields[] = {
    MERGE("ports", "containerPort", NULL),
    MERGE("env", "name", NULL),
    MERGE("volumeMounts", "mountPath", NULL),
    MERGE("volumeDevices", "devicePath", NULL),
    END,
};
static const struct patch_keys_type container = {"Container",
                                                 container_fields};

/* core/v1 PodSpec */
static const struct patch_keys_field pod_spec_fields[] = {
    MERGE("volumes", "name", NULL), /* merge,retainKeys */
    MERGE("initContainers", "name", &container),
    MERGE("containers", "name", &container),
    MERGE("ephemeralContainers", "name", &container),
    MERGE("imagePullSecrets", "name", NULL),
    MERGE("hostAliases", "ip", NULL),
    MERGE("topologySpreadConstraints", "topologyKey", NULL),
    MERGE("resourceClaims", "name", NULL), /* merge,retainKeys */
    MERGE("schedulingGates", "name", NULL),
    END,
};
static const struct patch_keys_type pod_spec = {"PodSpec", pod_spec_fields};

/* Conditions merged by type: the status of most kinds. */
static const struct patch_keys_field conditions_status_fields[] = {
    MERGE("conditions", "type", NULL),
    END,
};
static const struct patch_keys_type conditions_status = {
    "Status", conditions_status_fields};

/* core/v1 PodStatus */
static const struct patch_keys_field pod_status_fields[] = {
    MERGE("conditions", "type", NULL),
    MERGE("podIPs", "ip", NULL),
    MERGE("hostIPs", "ip", NULL),
    MERGE("resourceClaimStatuses", "name", NULL), /* merge,retainKeys */
    END,
};
static const struct patch_keys_type pod_status = {"PodStatus",
                                                  pod_status_fields};

/* core/v1 Pod, and PodTemplateSpec (metadata, spec) */
static const struct patch_keys_field pod_fields[] = {
    FIELD("metadata", &object_meta),
    FIELD("spec", &pod_spec),
    FIELD("status", &pod_status),
    END,
};
static const struct patch_keys_type pod = {"Pod", pod_fields};
#define pod_template pod /* PodTemplateSpec: Pod's metadata and spec */

/* A workload's spec: its pod template (Deployment, ReplicaSet,
 * StatefulSet, DaemonSet, ReplicationController, Job). */
static const struct patch_keys_field workload_spec_fields[] = {
    FIELD("template", &pod_template),
    END,
};
static const struct patch_keys_type workload_spec = {"Spec",
                                                     workload_spec_fields};

static const struct patch_keys_field workload_fields[] = {
    FIELD("metadata", &object_meta),
    FIELD("spec", &workload_spec),
    FIELD("status", &conditions_status),
    END,
};
static const struct patch_keys_type workload = {"Workload", workload_fields};

/* batch/v1 CronJob: spec.jobTemplate is a JobTemplateSpec */
static const struct patch_keys_field job_template_fields[] = {
    FIELD("metadata", &object_meta),
    FIELD("spec", &workload_spec),
    END,
};
static const struct patch_keys_type job_template = {"JobTemplateSpec",
                                                    job_template_fields};
static const struct patch_keys_field cron_job_spec_fields[] = {
    FIELD("jobTemplate", &job_template),
    END,
};
static const struct patch_keys_type cron_job_spec = {"CronJobSpec",
                                                     cron_job_spec_fields};
static const struct patch_keys_field cron_job_fields[] = {
    FIELD("metadata", &object_meta),
    FIELD("spec", &cron_job_spec),
    END,
};
static const struct patch_keys_type cron_job = {"CronJob", cron_job_fields};

/* core/v1 Service: ports merged by port */
static const struct patch_keys_field service_spec_fields[] = {
    MERGE("ports", "port", NULL),
    END,
};
static const struct patch_keys_type service_spec = {"ServiceSpec",
                                                    service_spec_fields};
static const struct patch_keys_field service_fields[] = {
    FIELD("metadata", &object_meta),
    FIELD("spec", &service_spec),
    FIELD("status", &conditions_status),
    END,
};
static const struct patch_keys_type service = {"Service", service_fields};

/* core/v1 Node: spec.podCIDRs a set, status addresses by type */
static const struct patch_keys_field node_spec_fields[] = {
    SET("podCIDRs"),
    END,
};
static const struct patch_keys_type node_spec = {"NodeSpec", node_spec_fields};
static const struct patch_keys_field node_status_fields[] = {
    MERGE("conditions", "type", NULL),
    MERGE("addresses", "type", NULL),
    END,
};
static const struct patch_keys_type node_status = {"NodeStatus",
                                                   node_status_fields};
static const struct patch_keys_field node_fields[] = {
    FIELD("metadata", &object_meta),
    FIELD("spec", &node_spec),
    FIELD("status", &node_status),
    END,
};
static const struct patch_keys_type node = {"Node", node_fields};

/* core/v1 ServiceAccount: secrets by name (imagePullSecrets untagged) */
static const struct patch_keys_field service_account_fields[] = {
    FIELD("metadata", &object_meta),
    MERGE("secrets", "name", NULL),
    END,
};
static const struct patch_keys_type service_account = {
    "ServiceAccount", service_account_fields};

/* Kinds whose only tagged fields are metadata's and status.conditions
 * (Namespace, PersistentVolumeClaim, HorizontalPodAutoscaler; the others
 * have no conditions list and read it as untagged, never present). */
static const struct patch_keys_field meta_status_fields[] = {
    FIELD("metadata", &object_meta),
    FIELD("status", &conditions_status),
    END,
};
static const struct patch_keys_type meta_status = {"Object",
                                                   meta_status_fields};

/* Kinds with only metadata tagged (ConfigMap, Secret, Endpoints, Event,
 * PersistentVolume, Lease, the RBAC kinds). */
static const struct patch_keys_field meta_only_fields[] = {
    FIELD("metadata", &object_meta),
    END,
};
static const struct patch_keys_type meta_only = {"Object", meta_only_fields};

static const struct {
    const char *group, *kind;
    const struct patch_keys_type *type;
} kinds[] = {
    {"", "Pod", &pod},
    {"", "ConfigMap", &meta_only},
    {"", "Secret", &meta_only},
    {"", "Service", &service},
    {"", "Endpoints", &meta_only},
    {"", "ServiceAccount", &service_account},
    {"", "Event", &meta_only},
    {"", "Node", &node},
    {"", "Namespace", &meta_status},
    {"", "PersistentVolume", &meta_only},
    {"", "PersistentVolumeClaim", &meta_status},
    {"", "ReplicationController", &workload},
    {"apps", "Deployment", &workload},
    {"apps", "ReplicaSet", &workload},
    {"apps", "StatefulSet", &workload},
    {"apps", "DaemonSet", &workload},
    {"autoscaling", "HorizontalPodAutoscaler", &meta_status},
    {"batch", "Job", &workload},
    {"batch", "CronJob", &cron_job},
    {"coordination.k8s.io", "Lease", &meta_only},
    {"rbac.authorization.k8s.io", "Role", &meta_only},
    {"rbac.authorization.k8s.io", "RoleBinding", &meta_only},
    {"rbac.authorization.k8s.io", "ClusterRole", &meta_only},
    {"rbac.authorization.k8s.io", "ClusterRoleBinding", &meta_only},
};

const struct patch_keys_type *patch_keys_find(const char *group,
                                              const char *kind)
{
    for (size_t i = 0; i < RW_ARRAY_LEN(kinds); i++)
        if (strcmp(kinds[i].group, group) == 0 &&
            strcmp(kinds[i].kind, kind) == 0)
            return kinds[i].type;
    return NULL;
}

const struct patch_keys_field *patch_keys_field(const struct patch_keys_type *t,
                                                const char *name)
{
    if (t == NULL)
        return NULL;
    for (const struct patch_keys_field *f = t->fields; f->name != NULL; f++)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}
