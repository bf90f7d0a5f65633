/*
 * table.c: meta.k8s.io/v1 Table rendering (see table.h).
 *
 * A printer is a type's column list plus a function that appends one row's
 * cells; both follow kube-apiserver's pkg/printers/internalversion
 * printers.go with GenerateOptions{Wide: true}, reading the stored (v1)
 * JSON with the defaults the apiserver's decoder would apply (a Service's
 * type ClusterIP and port protocol TCP, a Deployment's 1 replica, a
 * Namespace's phase Active).  Objects are parsed with cJSON once per row;
 * the document is built in one sbuf and handed over as an rbuf.  Strings
 * come out through kjson_escape (so "<none>" is written as is, where Go
 * would write \u003cnone\u003e: the same JSON string).
 *
 * Part of the Kubernetes JSON codec, hence the cJSON include.
 */
#include "table.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "kjson.h"
#include "partial.h"

/* ------------------------------------------------------------------ */
/* includeObject                                                       */
/* ------------------------------------------------------------------ */

int table_parse_include(const char *value, enum table_object *out)
{
    if (strcmp(value, "") == 0 || strcmp(value, "Metadata") == 0)
        *out = TABLE_OBJECT_METADATA;
    else if (strcmp(value, "None") == 0)
        *out = TABLE_OBJECT_NONE;
    else if (strcmp(value, "Object") == 0)
        *out = TABLE_OBJECT_FULL;
    else
        return RW_EINVAL;
    return RW_OK;
}

/* ------------------------------------------------------------------ */
/* Time: RFC 3339 and duration.HumanDuration                           */
/* ------------------------------------------------------------------ */

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    int64_t era, yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = y - era * 400;
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static bool digits(const char *s, int n, int *out)
{
    *out = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        *out = *out * 10 + (s[i] - '0');
    }
    return true;
}

/* "2006-01-02T15:04:05[.frac](Z|+hh:mm|-hh:mm)" to seconds since the
 * epoch (fraction dropped), as metav1.Time reads RFC 3339. */
static bool parse_rfc3339(const char *s, int64_t *out)
{
    int y, mo, d, h, mi, se, oh, om;
    const char *p = s + 19;

    if (strlen(s) < 20 || s[4] != '-' || s[7] != '-' ||
        (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
        return false;
    if (!digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
        !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) ||
        !digits(s + 17, 2, &se) || mo < 1 || mo > 12 || d < 1 || d > 31)
        return false;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            ;
    *out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
    if ((*p == 'Z' || *p == 'z') && p[1] == '\0')
        return true;
    if ((*p != '+' && *p != '-') || strlen(p) != 6 || p[3] != ':' ||
        !digits(p + 1, 2, &oh) || !digits(p + 4, 2, &om))
        return false;
    *out -= (*p == '+' ? 1 : -1) * (int64_t)(oh * 3600 + om * 60);
    return true;
}

/* duration.HumanDuration of s seconds into buf (at least 32 bytes). */
static void human_duration(char *buf, size_t size, int64_t s)
{
    int64_t m = s / 60, h = s / 3600;

    if (s < -1)
        snprintf(buf, size, "<invalid>");
    else if (s < 0)
        snprintf(buf, size, "0s");
    else if (s < 120)
        snprintf(buf, size, "%llds", (long long)s);
    else if (m < 10 && s % 60 != 0)
        snprintf(buf, size, "%lldm%llds", (long long)m, (long long)(s % 60));
    else if (m < 180)
        snprintf(buf, size, "%lldm", (long long)m);
    else if (h < 8 && m % 60 != 0)
        snprintf(buf, size, "%lldh%lldm", (long long)h, (long long)(m % 60));
    else if (h < 48)
        snprintf(buf, size, "%lldh", (long long)h);
    else if (h < 24 * 8 && h % 24 != 0)
        snprintf(buf, size, "%lldd%lldh", (long long)(h / 24),
                 (long long)(h % 24));
    else if (h < 24 * 365 * 2)
        snprintf(buf, size, "%lldd", (long long)(h / 24));
    else if (h < 24 * 365 * 8 && (h / 24) % 365 != 0)
        snprintf(buf, size, "%lldy%lldd", (long long)(h / 24 / 365),
                 (long long)((h / 24) % 365));
    else
        snprintf(buf, size, "%lldy", (long long)(h / 24 / 365));
}

/* translateTimestampSince: "<unknown>" for an absent or unreadable time. */
static void age_of(char *buf, size_t size, const char *timestamp, time_t now)
{
    int64_t t;

    if (timestamp == NULL || !parse_rfc3339(timestamp, &t))
        snprintf(buf, size, "<unknown>");
    else
        human_duration(buf, size, (int64_t)now - t);
}

/* ------------------------------------------------------------------ */
/* Reading the object                                                  */
/* ------------------------------------------------------------------ */

/* Member name of an object, the last occurrence (as Go's decoder); NULL
 * when absent, null, or o is not an object. */
static const cJSON *get(const cJSON *o, const char *name)
{
    const cJSON *found = NULL, *c;

    if (!cJSON_IsObject(o))
        return NULL;
    for (c = o->child; c != NULL; c = c->next)
        if (c->string != NULL && strcmp(c->string, name) == 0)
            found = c;
    return cJSON_IsNull(found) ? NULL : found;
}

/* get() along a path of member names, NULL-terminated. */
static const cJSON *path(const cJSON *o, const char *first, ...)
{
    va_list ap;
    const char *name;

    va_start(ap, first);
    for (name = first; name != NULL && o != NULL; name = va_arg(ap, char *))
        o = get(o, name);
    va_end(ap);
    return o;
}

static const char *str_of(const cJSON *v)
{
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : "";
}

static int64_t int_of(const cJSON *v)
{
    return cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
}

static bool bool_of(const cJSON *v)
{
    return cJSON_IsTrue(v);
}

/* v when it is an object, else NULL (to walk its members). */
static const cJSON *members(const cJSON *v)
{
    return cJSON_IsObject(v) ? v : NULL;
}

/* v when it is an array, else NULL (for cJSON_ArrayForEach). */
static const cJSON *arr(const cJSON *v)
{
    return cJSON_IsArray(v) ? v : NULL;
}

/* Number of distinct member names of an object (a Go map's len). */
static int64_t distinct_members(const cJSON *o)
{
    int64_t n = 0;

    if (!cJSON_IsObject(o))
        return 0;
    for (const cJSON *c = o->child; c != NULL; c = c->next) {
        const cJSON *d = c->next;

        while (d != NULL && strcmp(d->string, c->string) != 0)
            d = d->next;
        n += d == NULL; /* count each name at its last occurrence */
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Cells                                                               */
/* ------------------------------------------------------------------ */

struct row {
    struct sbuf *sb;
    size_t ncells;
    const char *completed; /* a pod's phase for its Completed condition */
};

static void sep(struct row *r)
{
    if (r->ncells++ > 0)
        sbuf_add(r->sb, ",");
}

static void add_json_string(struct sbuf *sb, const char *s)
{
    char *e = kjson_escape(s);

    sbuf_add(sb, "\"");
    sbuf_add(sb, e);
    sbuf_add(sb, "\"");
    free(e);
}

static void cell_str(struct row *r, const char *s)
{
    sep(r);
    add_json_string(r->sb, s);
}

static void cell_int(struct row *r, int64_t v)
{
    sep(r);
    sbuf_addf(r->sb, "%lld", (long long)v);
}

static void cell_age(struct row *r, const struct object *o, time_t now)
{
    char age[32];

    age_of(age, sizeof(age), *o->created ? o->created : NULL, now);
    cell_str(r, age);
}

/* A string cell that reads fallback when s is empty. */
static void cell_or(struct row *r, const char *s, const char *fallback)
{
    cell_str(r, *s ? s : fallback);
}

/* A list of strings joined into one cell. */
struct strlist {
    char **v;
    size_t n;
};

static void strlist_add(struct strlist *l, const char *s)
{
    l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
    l->v[l->n++] = xstrdup(s);
}

static int strlist_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts and drops duplicates: sets.NewString(...).List(). */
static void strlist_sort_unique(struct strlist *l)
{
    size_t out = 0;

    if (l->n == 0)
        return;
    qsort(l->v, l->n, sizeof(*l->v), strlist_cmp);
    for (size_t i = 0; i < l->n; i++) {
        if (out > 0 && strcmp(l->v[out - 1], l->v[i]) == 0)
            free(l->v[i]);
        else
            l->v[out++] = l->v[i];
    }
    l->n = out;
}

static void strlist_join(struct sbuf *sb, const struct strlist *l,
                         const char *glue)
{
    for (size_t i = 0; i < l->n; i++) {
        if (i > 0)
            sbuf_add(sb, glue);
        sbuf_add(sb, l->v[i]);
    }
}

static void strlist_fini(struct strlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    *l = (struct strlist){0};
}

/* A cell from an sbuf (fallback when empty); finalises it. */
static void cell_sbuf(struct row *r, struct sbuf *s, const char *fallback)
{
    cell_or(r, s->len ? s->data : "", fallback);
    sbuf_fini(s);
}

/* labels.FormatLabels: "k=v,..." sorted by key, "<none>" when empty. */
static void cell_label_map(struct row *r, const cJSON *map)
{
    struct strlist l = {0};
    struct sbuf s = {0};
    const cJSON *c;

    cJSON_ArrayForEach(c, members(map))
    {
        if (get(map, c->string) != c) /* an earlier duplicate */
            continue;
        sbuf_addf(&s, "%s=%s", c->string, str_of(c));
        strlist_add(&l, s.data);
        sbuf_fini(&s);
    }
    strlist_sort_unique(&l);
    strlist_join(&s, &l, ",");
    strlist_fini(&l);
    cell_sbuf(r, &s, "<none>");
}

/* layoutContainerCells: names and images joined by ",". */
static void cells_containers(struct row *r, const cJSON *containers)
{
    struct sbuf names = {0}, images = {0};
    const cJSON *c;
    size_t i = 0;

    cJSON_ArrayForEach(c, arr(containers))
    {
        if (i++ > 0) {
            sbuf_add(&names, ",");
            sbuf_add(&images, ",");
        }
        sbuf_add(&names, str_of(get(c, "name")));
        sbuf_add(&images, str_of(get(c, "image")));
    }
    cell_sbuf(r, &names, "");
    cell_sbuf(r, &images, "");
}

/* ------------------------------------------------------------------ */
/* Columns                                                             */
/* ------------------------------------------------------------------ */

struct column {
    const char *name;
    const char *type;
    const char *format;
    int priority;
    const char *description;
};

/* metav1.ObjectMeta{}.SwaggerDoc()["name"] and ["creationTimestamp"]. */
#define DOC_NAME                                                               \
    "Name must be unique within a namespace. Is required when creating "       \
    "resources, although some resources may allow a client to request the "    \
    "generation of an appropriate name automatically. Name is primarily "      \
    "intended for creation idempotence and configuration definition. Cannot "  \
    "be updated. More info: "                                                  \
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/"       \
    "names#names"
#define DOC_CREATED                                                            \
    "CreationTimestamp is a timestamp representing the server time when "      \
    "this object was created. It is not guaranteed to be set in "              \
    "happens-before order across separate operations. Clients may not set "    \
    "this value. It is represented in RFC3339 form and is in UTC.\n\n"         \
    "Populated by the system. Read-only. Null for lists. More info: "          \
    "https://git.k8s.io/community/contributors/devel/sig-architecture/"        \
    "api-conventions.md#metadata"
#define COL_NAME                                                               \
    {                                                                          \
        "Name", "string", "name", 0, DOC_NAME                                  \
    }
#define COL_AGE                                                                \
    {                                                                          \
        "Age", "string", "", 0, DOC_CREATED                                    \
    }
#define DOC_CONTAINERS "Names of each container in the template."
#define DOC_IMAGES "Images referenced by each container in the template."
#define DOC_ADDRESSES                                                          \
    "List of addresses reachable to the node. Queried from cloud provider, "   \
    "if available. More info: "                                                \
    "https://kubernetes.io/docs/reference/node/node-status/#addresses Note: "  \
    "This field is declared as mergeable, but the merge key is not "           \
    "sufficiently unique, which can cause data corruption when it is "         \
    "merged. Callers should instead use a full-replacement patch. See "        \
    "https://pr.k8s.io/79391 for an example. Consumers should assume that "    \
    "addresses can change during the lifetime of a Node. However, there are "  \
    "some exceptions where this may not be possible, such as Pods that "       \
    "inherit a Node's address in its own status or consumers of the "          \
    "downward API (status.hostIP)."

static const struct column generic_columns[] = {COL_NAME, COL_AGE};

static const struct column pod_columns[] = {
    COL_NAME,
    {"Ready", "string", "", 0,
     "The aggregate readiness state of this pod for accepting traffic."},
    {"Status", "string", "", 0,
     "The aggregate status of the containers in this pod."},
    {"Restarts", "string", "", 0,
     "The number of times the containers in this pod have been restarted "
     "and when the last container in this pod has restarted."},
    COL_AGE,
    {"IP", "string", "", 1,
     "podIP address allocated to the pod. Routable at least within the "
     "cluster. Empty if not yet allocated."},
    {"Node", "string", "", 1,
     "NodeName is a request to schedule this pod onto a specific node. If "
     "it is non-empty, the scheduler simply schedules this pod onto that "
     "node, assuming that it fits resource requirements."},
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

static const struct column namespace_columns[] = {
    COL_NAME,
    {"Status", "string", "", 0, "The status of the namespace"},
    COL_AGE,
};

static const struct column node_columns[] = {
    COL_NAME,
    {"Status", "string", "", 0, "The status of the node"},
    {"Roles", "string", "", 0, "The roles of the node"},
    COL_AGE,
    {"Version", "string", "", 0, "Kubelet Version reported by the node."},
    {"Internal-IP", "string", "", 1, DOC_ADDRESSES},
    {"External-IP", "string", "", 1, DOC_ADDRESSES},
    {"OS-Image", "string", "", 1,
     "OS Image reported by the node from /etc/os-release (e.g. Debian "
     "GNU/Linux 7 (wheezy))."},
    {"Kernel-Version", "string", "", 1,
     "Kernel Version reported by the node from 'uname -r' (e.g. "
     "3.16.0-0.bpo.4-amd64)."},
    {"Container-Runtime", "string", "", 1,
     "ContainerRuntime Version reported by the node through runtime remote "
     "API (e.g. containerd://1.4.2)."},
};

static const struct column configmap_columns[] = {
    COL_NAME,
    {"Data", "string", "", 0,
     "Data contains the configuration data. Each key must consist of "
     "alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte "
     "sequences must use the BinaryData field. The keys stored in Data must "
     "not overlap with the keys in the BinaryData field, this is enforced "
     "during validation process."},
    COL_AGE,
};

static const struct column secret_columns[] = {
    COL_NAME,
    {"Type", "string", "", 0,
     "Used to facilitate programmatic handling of secret data. More info: "
     "https://kubernetes.io/docs/concepts/configuration/secret/"
     "#secret-types"},
    {"Data", "string", "", 0,
     "Data contains the secret data. Each key must consist of alphanumeric "
     "characters, '-', '_' or '.'. The serialized form of the secret data is "
     "a base64 encoded string, representing the arbitrary (possibly "
     "non-string) data value here. Described in "
     "https://tools.ietf.org/html/rfc4648#section-4"},
    COL_AGE,
};

static const struct column service_columns[] = {
    COL_NAME,
    {"Type", "string", "", 0,
     "type determines how the Service is exposed. Defaults to ClusterIP. "
     "Valid options are ExternalName, ClusterIP, NodePort, and "
     "LoadBalancer. \"ClusterIP\" allocates a cluster-internal IP address "
     "for load-balancing to endpoints. Endpoints are determined by the "
     "selector or if that is not specified, by manual construction of an "
     "Endpoints object or EndpointSlice objects. If clusterIP is \"None\", "
     "no virtual IP is allocated and the endpoints are published as a set "
     "of endpoints rather than a virtual IP. \"NodePort\" builds on "
     "ClusterIP and allocates a port on every node which routes to the same "
     "endpoints as the clusterIP. \"LoadBalancer\" builds on NodePort and "
     "creates an external load-balancer (if supported in the current "
     "cloud) which routes to the same endpoints as the clusterIP. "
     "\"ExternalName\" aliases this service to the specified externalName. "
     "Several other fields do not apply to ExternalName services. More "
     "info: https://kubernetes.io/docs/concepts/services-networking/"
     "service/#publishing-services-service-types"},
    {"Cluster-IP", "string", "", 0,
     "clusterIP is the IP address of the service and is usually assigned "
     "randomly. If an address is specified manually, is in-range (as per "
     "system configuration), and is not in use, it will be allocated to the "
     "service; otherwise creation of the service will fail. This field may "
     "not be changed through updates unless the type field is also being "
     "changed to ExternalName (which requires this field to be blank) or "
     "the type field is being changed from ExternalName (in which case this "
     "field may optionally be specified, as describe above).  Valid values "
     "are \"None\", empty string (\"\"), or a valid IP address. Setting this "
     "to \"None\" makes a \"headless service\" (no virtual IP), which is "
     "useful when direct endpoint connections are preferred and proxying "
     "is not required.  Only applies to types ClusterIP, NodePort, and "
     "LoadBalancer. If this field is specified when creating a Service of "
     "type ExternalName, creation will fail. This field will be wiped when "
     "updating a Service to type ExternalName. More info: "
     "https://kubernetes.io/docs/concepts/services-networking/service/"
     "#virtual-ips-and-service-proxies"},
    {"External-IP", "string", "", 0,
     "externalIPs is a list of IP addresses for which nodes in the cluster "
     "will also accept traffic for this service.  These IPs are not "
     "managed by Kubernetes.  The user is responsible for ensuring that "
     "traffic arrives at a node with this IP.  A common example is "
     "external load-balancers that are not part of the Kubernetes system."},
    {"Port(s)", "string", "", 0,
     "The list of ports that are exposed by this service. More info: "
     "https://kubernetes.io/docs/concepts/services-networking/service/"
     "#virtual-ips-and-service-proxies"},
    COL_AGE,
    {"Selector", "string", "", 1,
     "Route service traffic to pods with label keys and values matching "
     "this selector. If empty or not present, the service is assumed to "
     "have an external process managing its endpoints, which Kubernetes "
     "will not modify. Only applies to types ClusterIP, NodePort, and "
     "LoadBalancer. Ignored if type is ExternalName. More info: "
     "https://kubernetes.io/docs/concepts/services-networking/service/"},
};

static const struct column deployment_columns[] = {
    COL_NAME,
    {"Ready", "string", "", 0, "Number of the pod with ready state"},
    {"Up-to-date", "string", "", 0,
     "Total number of non-terminated pods targeted by this deployment that "
     "have the desired template spec."},
    {"Available", "string", "", 0,
     "Total number of available pods (ready for at least minReadySeconds) "
     "targeted by this deployment."},
    COL_AGE,
    {"Containers", "string", "", 1, DOC_CONTAINERS},
    {"Images", "string", "", 1, DOC_IMAGES},
    {"Selector", "string", "", 1,
     "Label selector for pods. Existing ReplicaSets whose pods are selected "
     "by this will be the ones affected by this deployment."},
};

/* ------------------------------------------------------------------ */
/* Pods (printPod)                                                     */
/* ------------------------------------------------------------------ */

/* No time: metav1.Time's zero value. */
#define NO_TIME INT64_MIN

static int64_t time_of(const cJSON *v)
{
    int64_t t;

    return cJSON_IsString(v) && parse_rfc3339(v->valuestring, &t) ? t : NO_TIME;
}

/* Whether conditions holds {type, status "True"}. */
static bool condition_true(const cJSON *conditions, const char *type)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, arr(conditions))
    {
        if (strcmp(str_of(get(c, "type")), type) == 0 &&
            strcmp(str_of(get(c, "status")), "True") == 0)
            return true;
    }
    return false;
}

/* Whether the init container named name is restartable (a sidecar). */
static bool restartable_init(const cJSON *spec, const char *name)
{
    const cJSON *c, *found = NULL;

    cJSON_ArrayForEach(c, arr(get(spec, "initContainers")))
    {
        if (strcmp(str_of(get(c, "name")), name) == 0)
            found = c; /* a map: the last one wins */
    }
    return strcmp(str_of(get(found, "restartPolicy")), "Always") == 0;
}

/* What printPod accumulates. */
struct pod_state {
    char reason[128];
    int64_t restarts, ready, total;
    int64_t last_restart; /* NO_TIME or seconds */
};

/* The later of *t and status.lastState.terminated.finishedAt. */
static void note_restart(int64_t *t, const cJSON *status)
{
    int64_t f = time_of(
        path(status, "lastState", "terminated", "finishedAt", (char *)NULL));

    if (f != NO_TIME && (*t == NO_TIME || *t < f))
        *t = f;
}

/* Reason of a terminated state without one: "Signal:n" or "ExitCode:n". */
static void terminated_reason(char *buf, size_t size, const char *prefix,
                              const cJSON *terminated)
{
    int64_t signal = int_of(get(terminated, "signal"));

    if (signal != 0)
        snprintf(buf, size, "%sSignal:%lld", prefix, (long long)signal);
    else
        snprintf(buf, size, "%sExitCode:%lld", prefix,
                 (long long)int_of(get(terminated, "exitCode")));
}

/* The init container loop; returns whether the pod is initializing. */
static bool pod_init_containers(const cJSON *pod, struct pod_state *ps,
                                int64_t *sidecar_restarts,
                                int64_t *sidecar_last)
{
    const cJSON *spec = get(pod, "spec"), *statuses, *c;
    int i = 0, ninit = cJSON_GetArraySize(get(spec, "initContainers"));

    statuses = path(pod, "status", "initContainerStatuses", (char *)NULL);
    cJSON_ArrayForEach(c, arr(statuses))
    {
        const cJSON *waiting = path(c, "state", "waiting", (char *)NULL);
        const cJSON *term = path(c, "state", "terminated", (char *)NULL);
        const char *wreason = str_of(get(waiting, "reason"));
        bool sidecar = restartable_init(spec, str_of(get(c, "name")));

        ps->restarts += int_of(get(c, "restartCount"));
        note_restart(&ps->last_restart, c);
        if (sidecar) {
            *sidecar_restarts += int_of(get(c, "restartCount"));
            note_restart(sidecar_last, c);
        }
        if (term != NULL && int_of(get(term, "exitCode")) == 0) {
            i++;
            continue;
        }
        if (sidecar && bool_of(get(c, "started"))) {
            ps->ready += bool_of(get(c, "ready"));
            i++;
            continue;
        }
        if (term != NULL && *str_of(get(term, "reason")) == '\0')
            terminated_reason(ps->reason, sizeof(ps->reason), "Init:", term);
        else if (term != NULL)
            snprintf(ps->reason, sizeof(ps->reason), "Init:%s",
                     str_of(get(term, "reason")));
        else if (waiting && *wreason && strcmp(wreason, "PodInitializing"))
            snprintf(ps->reason, sizeof(ps->reason), "Init:%s", wreason);
        else
            snprintf(ps->reason, sizeof(ps->reason), "Init:%d/%d", i, ninit);
        return true;
    }
    return false;
}

/* The container loop, last status first, as printPod. */
static void pod_containers(const cJSON *pod, struct pod_state *ps)
{
    const cJSON *statuses =
        path(pod, "status", "containerStatuses", (char *)NULL);
    bool running = false;

    for (int i = cJSON_GetArraySize(statuses) - 1; i >= 0; i--) {
        const cJSON *c = cJSON_GetArrayItem(statuses, i);
        const cJSON *waiting = path(c, "state", "waiting", (char *)NULL);
        const cJSON *term = path(c, "state", "terminated", (char *)NULL);

        ps->restarts += int_of(get(c, "restartCount"));
        note_restart(&ps->last_restart, c);
        if (waiting && *str_of(get(waiting, "reason")))
            snprintf(ps->reason, sizeof(ps->reason), "%s",
                     str_of(get(waiting, "reason")));
        else if (term && *str_of(get(term, "reason")))
            snprintf(ps->reason, sizeof(ps->reason), "%s",
                     str_of(get(term, "reason")));
        else if (term)
            terminated_reason(ps->reason, sizeof(ps->reason), "", term);
        else if (bool_of(get(c, "ready")) &&
                 path(c, "state", "running", (char *)NULL)) {
            running = true;
            ps->ready++;
        }
    }
    if (strcmp(ps->reason, "Completed") == 0 && running)
        snprintf(ps->reason, sizeof(ps->reason), "%s",
                 condition_true(path(pod, "status", "conditions", (char *)NULL),
                                "Ready")
                     ? "Running"
                     : "NotReady");
}

/* Status reason and counters before the container loops. */
static void pod_start(const cJSON *pod, struct pod_state *ps)
{
    const cJSON *status = get(pod, "status"), *c;
    const char *reason = str_of(get(status, "reason"));

    snprintf(ps->reason, sizeof(ps->reason), "%s",
             *reason ? reason : str_of(get(status, "phase")));
    cJSON_ArrayForEach(c, arr(get(status, "conditions")))
    {
        if (strcmp(str_of(get(c, "type")), "PodScheduled") == 0 &&
            strcmp(str_of(get(c, "reason")), "SchedulingGated") == 0)
            snprintf(ps->reason, sizeof(ps->reason), "SchedulingGated");
    }
    ps->total =
        cJSON_GetArraySize(path(pod, "spec", "containers", (char *)NULL));
    cJSON_ArrayForEach(c,
                       arr(path(pod, "spec", "initContainers", (char *)NULL)))
    {
        ps->total += strcmp(str_of(get(c, "restartPolicy")), "Always") == 0;
    }
    ps->last_restart = NO_TIME;
}

/* Terminating / Unknown for a pod being deleted. */
static void pod_deleting(const cJSON *pod, struct pod_state *ps)
{
    const char *phase = str_of(path(pod, "status", "phase", (char *)NULL));
    const char *reason = str_of(path(pod, "status", "reason", (char *)NULL));

    if (path(pod, "metadata", "deletionTimestamp", (char *)NULL) == NULL)
        return;
    if (strcmp(reason, "NodeLost") == 0)
        snprintf(ps->reason, sizeof(ps->reason), "Unknown");
    else if (strcmp(phase, "Succeeded") != 0 && strcmp(phase, "Failed") != 0)
        snprintf(ps->reason, sizeof(ps->reason), "Terminating");
}

/* "N/M" readiness gates that are True, or "<none>". */
static void cell_readiness_gates(struct row *r, const cJSON *pod)
{
    const cJSON *gates = path(pod, "spec", "readinessGates", (char *)NULL);
    const cJSON *conds = path(pod, "status", "conditions", (char *)NULL);
    const cJSON *g, *c;
    int64_t n = 0, ok = 0;

    cJSON_ArrayForEach(g, arr(gates))
    {
        const char *type = str_of(get(g, "conditionType"));

        n++;
        cJSON_ArrayForEach(c, arr(conds))
        {
            if (strcmp(str_of(get(c, "type")), type) == 0) {
                ok += strcmp(str_of(get(c, "status")), "True") == 0;
                break;
            }
        }
    }
    if (n == 0) {
        cell_str(r, "<none>");
        return;
    }
    sep(r);
    sbuf_addf(r->sb, "\"%lld/%lld\"", (long long)ok, (long long)n);
}

static void pod_cells(struct row *r, const cJSON *pod, const struct object *o,
                      time_t now)
{
    const cJSON *status = get(pod, "status"), *ips = get(status, "podIPs");
    const char *phase = str_of(get(status, "phase")), *ip;
    struct pod_state ps = {0};
    int64_t sidecar_restarts = 0, sidecar_last = NO_TIME;
    char buf[160], age[32];

    pod_start(pod, &ps);
    if (!pod_init_containers(pod, &ps, &sidecar_restarts, &sidecar_last) ||
        condition_true(get(status, "conditions"), "Initialized")) {
        ps.restarts = sidecar_restarts;
        ps.last_restart = sidecar_last;
        pod_containers(pod, &ps);
    }
    pod_deleting(pod, &ps);
    if (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0)
        r->completed = strcmp(phase, "Succeeded") == 0 ? "Succeeded" : "Failed";

    cell_str(r, o->name);
    snprintf(buf, sizeof(buf), "%lld/%lld", (long long)ps.ready,
             (long long)ps.total);
    cell_str(r, buf);
    cell_str(r, ps.reason);
    snprintf(buf, sizeof(buf), "%lld", (long long)ps.restarts);
    if (ps.restarts != 0 && ps.last_restart != NO_TIME) {
        human_duration(age, sizeof(age), (int64_t)now - ps.last_restart);
        snprintf(buf, sizeof(buf), "%lld (%s ago)", (long long)ps.restarts,
                 age);
    }
    cell_str(r, buf);
    cell_age(r, o, now);
    ip = str_of(get(cJSON_GetArrayItem(ips, 0), "ip"));
    cell_or(r, *ip ? ip : str_of(get(status, "podIP")), "<none>");
    cell_or(r, str_of(path(pod, "spec", "nodeName", (char *)NULL)), "<none>");
    cell_or(r, str_of(get(status, "nominatedNodeName")), "<none>");
    cell_readiness_gates(r, pod);
}

/* ------------------------------------------------------------------ */
/* Other printers                                                      */
/* ------------------------------------------------------------------ */

static void generic_cells(struct row *r, const cJSON *obj,
                          const struct object *o, time_t now)
{
    (void)obj;
    cell_str(r, o->name);
    cell_age(r, o, now);
}

static void namespace_cells(struct row *r, const cJSON *ns,
                            const struct object *o, time_t now)
{
    cell_str(r, o->name);
    cell_or(r, str_of(path(ns, "status", "phase", (char *)NULL)), "Active");
    cell_age(r, o, now);
}

static void configmap_cells(struct row *r, const cJSON *cm,
                            const struct object *o, time_t now)
{
    cell_str(r, o->name);
    cell_int(r, distinct_members(get(cm, "data")) +
                    distinct_members(get(cm, "binaryData")));
    cell_age(r, o, now);
}

static void secret_cells(struct row *r, const cJSON *s, const struct object *o,
                         time_t now)
{
    cell_str(r, o->name);
    cell_str(r, str_of(get(s, "type")));
    cell_int(r, distinct_members(get(s, "data")));
    cell_age(r, o, now);
}

/* The first status.addresses entry of type, or "<none>". */
static void cell_node_address(struct row *r, const cJSON *node,
                              const char *type)
{
    const cJSON *a;

    cJSON_ArrayForEach(a, arr(path(node, "status", "addresses", (char *)NULL)))
    {
        if (strcmp(str_of(get(a, "type")), type) == 0) {
            cell_str(r, str_of(get(a, "address")));
            return;
        }
    }
    cell_str(r, "<none>");
}

/* Roles from node-role.kubernetes.io/<role> and kubernetes.io/role=<role>. */
static void cell_node_roles(struct row *r, const struct object *o)
{
    static const char prefix[] = "node-role.kubernetes.io/";
    struct strlist roles = {0};
    struct sbuf s = {0};

    for (size_t i = 0; i < o->nlabels; i++) {
        const struct label *l = &o->labels[i];

        if (strncmp(l->key, prefix, sizeof(prefix) - 1) == 0) {
            if (l->key[sizeof(prefix) - 1] != '\0')
                strlist_add(&roles, l->key + sizeof(prefix) - 1);
        } else if (strcmp(l->key, "kubernetes.io/role") == 0 && *l->value) {
            strlist_add(&roles, l->value);
        }
    }
    strlist_sort_unique(&roles);
    strlist_join(&s, &roles, ",");
    strlist_fini(&roles);
    cell_sbuf(r, &s, "<none>");
}

static void node_cells(struct row *r, const cJSON *node, const struct object *o,
                       time_t now)
{
    const cJSON *info = path(node, "status", "nodeInfo", (char *)NULL), *c;
    const cJSON *ready = NULL;
    struct sbuf s = {0};

    cJSON_ArrayForEach(c, arr(path(node, "status", "conditions", (char *)NULL)))
    {
        if (strcmp(str_of(get(c, "type")), "Ready") == 0)
            ready = c; /* a map: the last one wins */
    }
    if (ready == NULL)
        sbuf_add(&s, "Unknown");
    else
        sbuf_add(&s, strcmp(str_of(get(ready, "status")), "True") == 0
                         ? "Ready"
                         : "NotReady");
    if (bool_of(path(node, "spec", "unschedulable", (char *)NULL)))
        sbuf_add(&s, ",SchedulingDisabled");

    cell_str(r, o->name);
    cell_sbuf(r, &s, "");
    cell_node_roles(r, o);
    cell_age(r, o, now);
    cell_str(r, str_of(get(info, "kubeletVersion")));
    cell_node_address(r, node, "InternalIP");
    cell_node_address(r, node, "ExternalIP");
    cell_or(r, str_of(get(info, "osImage")), "<unknown>");
    cell_or(r, str_of(get(info, "kernelVersion")), "<unknown>");
    cell_or(r, str_of(get(info, "containerRuntimeVersion")), "<unknown>");
}

/* getServiceExternalIP with wide set (no truncation). */
static void cell_service_external(struct row *r, const cJSON *spec,
                                  const char *type, const cJSON *svc)
{
    const cJSON *ext = get(spec, "externalIPs"), *c;
    struct strlist l = {0}, lb = {0};
    struct sbuf s = {0};

    cJSON_ArrayForEach(c, arr(ext)) strlist_add(&l, str_of(c));
    if (strcmp(type, "ExternalName") == 0) {
        cell_str(r, str_of(get(spec, "externalName")));
    } else if (strcmp(type, "ClusterIP") == 0 ||
               strcmp(type, "NodePort") == 0) {
        strlist_join(&s, &l, ",");
        cell_sbuf(r, &s, "<none>");
    } else if (strcmp(type, "LoadBalancer") == 0) {
        cJSON_ArrayForEach(c, arr(path(svc, "status", "loadBalancer", "ingress",
                                       (char *)NULL)))
        {
            const char *ip = str_of(get(c, "ip"));

            if (*ip || *str_of(get(c, "hostname")))
                strlist_add(&lb, *ip ? ip : str_of(get(c, "hostname")));
        }
        strlist_sort_unique(&lb);
        strlist_join(&s, &lb, ",");
        if (lb.n > 0 && l.n > 0)
            sbuf_add(&s, ",");
        strlist_join(&s, &l, ",");
        cell_sbuf(r, &s, "<pending>");
    } else {
        cell_str(r, "<unknown>");
    }
    strlist_fini(&l);
    strlist_fini(&lb);
}

/* makePortString: "80/TCP,443:30443/TCP", "<none>" when empty. */
static void cell_service_ports(struct row *r, const cJSON *spec)
{
    const cJSON *p;
    struct sbuf s = {0};

    cJSON_ArrayForEach(p, arr(get(spec, "ports")))
    {
        const char *proto = str_of(get(p, "protocol"));
        int64_t node_port = int_of(get(p, "nodePort"));

        if (s.len > 0)
            sbuf_add(&s, ",");
        sbuf_addf(&s, "%lld", (long long)int_of(get(p, "port")));
        if (node_port > 0)
            sbuf_addf(&s, ":%lld", (long long)node_port);
        sbuf_addf(&s, "/%s", *proto ? proto : "TCP");
    }
    cell_sbuf(r, &s, "<none>");
}

static void service_cells(struct row *r, const cJSON *svc,
                          const struct object *o, time_t now)
{
    const cJSON *spec = get(svc, "spec");
    const char *type = str_of(get(spec, "type"));
    const char *ip = str_of(cJSON_GetArrayItem(get(spec, "clusterIPs"), 0));

    if (*type == '\0')
        type = "ClusterIP";
    if (*ip == '\0')
        ip = str_of(get(spec, "clusterIP"));
    cell_str(r, o->name);
    cell_str(r, type);
    cell_or(r, ip, "<none>");
    cell_service_external(r, spec, type, svc);
    cell_service_ports(r, spec);
    cell_age(r, o, now);
    cell_label_map(r, get(spec, "selector"));
}

/* One matchExpressions requirement as labels.Requirement.String(); false
 * for an operator LabelSelectorAsSelector rejects. */
static bool requirement(struct sbuf *s, const cJSON *expr)
{
    const char *key = str_of(get(expr, "key"));
    const char *op = str_of(get(expr, "operator"));
    struct strlist values = {0};
    const cJSON *v;

    if (strcmp(op, "Exists") == 0 || strcmp(op, "DoesNotExist") == 0) {
        sbuf_addf(s, "%s%s", *op == 'D' ? "!" : "", key);
        return true;
    }
    if (strcmp(op, "In") != 0 && strcmp(op, "NotIn") != 0)
        return false;
    cJSON_ArrayForEach(v, arr(get(expr, "values")))
        strlist_add(&values, str_of(v));
    if (values.n > 1) /* sorted on output, duplicates kept */
        qsort(values.v, values.n, sizeof(*values.v), strlist_cmp);
    sbuf_addf(s, "%s %s (", key, strcmp(op, "In") == 0 ? "in" : "notin");
    strlist_join(s, &values, ",");
    sbuf_add(s, ")");
    strlist_fini(&values);
    return true;
}

/* Orders requirements by key, as labels.ByKey: the key is what precedes
 * '=' or ' ' in "k=v", "k in (...)", "k", after the '!' of "!k". */
static int requirement_cmp(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    size_t xn, yn;
    int c;

    x += *x == '!';
    y += *y == '!';
    xn = strcspn(x, "= ");
    yn = strcspn(y, "= ");
    c = memcmp(x, y, RW_MIN(xn, yn));
    return c != 0 ? c : (xn > yn) - (xn < yn);
}

/* metav1.LabelSelectorAsSelector(sel).String(): requirements sorted by
 * key; "" for a nil or empty selector; "<invalid>" for a bad operator. */
static void cell_label_selector(struct row *r, const cJSON *sel)
{
    const cJSON *labels = get(sel, "matchLabels");
    struct strlist reqs = {0};
    struct sbuf s = {0};
    const cJSON *c;
    bool ok = true;

    cJSON_ArrayForEach(c, members(labels))
    {
        if (get(labels, c->string) != c)
            continue;
        sbuf_addf(&s, "%s=%s", c->string, str_of(c));
        strlist_add(&reqs, s.data);
        sbuf_fini(&s);
    }
    cJSON_ArrayForEach(c, arr(get(sel, "matchExpressions")))
    {
        ok = ok && requirement(&s, c);
        if (s.len > 0)
            strlist_add(&reqs, s.data);
        sbuf_fini(&s);
    }
    if (reqs.n > 1)
        qsort(reqs.v, reqs.n, sizeof(*reqs.v), requirement_cmp);
    strlist_join(&s, &reqs, ",");
    strlist_fini(&reqs);
    if (!ok) {
        sbuf_fini(&s);
        cell_str(r, "<invalid>");
        return;
    }
    cell_sbuf(r, &s, "");
}

static void deployment_cells(struct row *r, const cJSON *d,
                             const struct object *o, time_t now)
{
    const cJSON *spec = get(d, "spec"), *status = get(d, "status");
    const cJSON *replicas = get(spec, "replicas");
    char buf[64];

    snprintf(buf, sizeof(buf), "%lld/%lld",
             (long long)int_of(get(status, "readyReplicas")),
             (long long)(replicas ? int_of(replicas) : 1));
    cell_str(r, o->name);
    cell_str(r, buf);
    cell_int(r, int_of(get(status, "updatedReplicas")));
    cell_int(r, int_of(get(status, "availableReplicas")));
    cell_age(r, o, now);
    cells_containers(
        r, path(spec, "template", "spec", "containers", (char *)NULL));
    cell_label_selector(r, get(spec, "selector"));
}

/* ------------------------------------------------------------------ */
/* The printer table                                                   */
/* ------------------------------------------------------------------ */

typedef void cells_fn(struct row *r, const cJSON *obj, const struct object *o,
                      time_t now);

struct printer {
    const char *group;
    const char *resource;
    const struct column *columns;
    size_t ncolumns;
    cells_fn *cells;
};

#define PRINTER(g, res, cols, fn)                                              \
    {                                                                          \
        g, res, cols, RW_ARRAY_LEN(cols), fn                                   \
    }

static const struct printer printers[] = {
    PRINTER("", "pods", pod_columns, pod_cells),
    PRINTER("", "namespaces", namespace_columns, namespace_cells),
    PRINTER("", "nodes", node_columns, node_cells),
    PRINTER("", "configmaps", configmap_columns, configmap_cells),
    PRINTER("", "secrets", secret_columns, secret_cells),
    PRINTER("", "services", service_columns, service_cells),
    PRINTER("apps", "deployments", deployment_columns, deployment_cells),
};

static const struct printer generic_printer =
    PRINTER("", "", generic_columns, generic_cells);

static const struct printer *printer_for(const struct resource_type *rt)
{
    for (size_t i = 0; i < RW_ARRAY_LEN(printers); i++)
        if (strcmp(printers[i].group, rt->group) == 0 &&
            strcmp(printers[i].resource, rt->resource) == 0)
            return &printers[i];
    return &generic_printer;
}

/* ------------------------------------------------------------------ */
/* The document                                                        */
/* ------------------------------------------------------------------ */

static void add_columns(struct sbuf *sb, const struct printer *p)
{
    sbuf_add(sb, "[");
    for (size_t i = 0; i < p->ncolumns; i++) {
        const struct column *c = &p->columns[i];

        sbuf_add(sb, i ? ",{\"name\":" : "{\"name\":");
        add_json_string(sb, c->name);
        sbuf_add(sb, ",\"type\":");
        add_json_string(sb, c->type);
        sbuf_add(sb, ",\"format\":");
        add_json_string(sb, c->format);
        sbuf_add(sb, ",\"description\":");
        add_json_string(sb, c->description);
        sbuf_addf(sb, ",\"priority\":%d}", c->priority);
    }
    sbuf_add(sb, "]");
}

void table_append_columns(struct sbuf *sb, const struct resource_type *rt)
{
    add_columns(sb, printer_for(rt));
}

static void add_row(struct sbuf *sb, const struct printer *p,
                    const struct object *o, enum table_object include,
                    bool beta, time_t now)
{
    cJSON *obj = cJSON_ParseWithLength(o->json->data, o->json->len);
    struct row r = {.sb = sb};

    if (obj == NULL)
        obj = cJSON_CreateObject();
    sbuf_add(sb, "{\"cells\":[");
    p->cells(&r, obj, o, now);
    rw_assert(r.ncells == p->ncolumns);
    sbuf_add(sb, "]");
    if (r.completed != NULL)
        sbuf_addf(sb,
                  ",\"conditions\":[{\"type\":\"Completed\",\"status\":"
                  "\"True\",\"reason\":\"%s\",\"message\":\"%s\"}]",
                  r.completed,
                  strcmp(r.completed, "Succeeded") == 0
                      ? "The pod has completed successfully."
                      : "The pod failed.");
    sbuf_add(sb, ",\"object\":");
    if (include == TABLE_OBJECT_FULL)
        sbuf_addn(sb, o->json->data, o->json->len);
    else if (include == TABLE_OBJECT_METADATA)
        partial_append(sb, o, beta);
    else
        sbuf_add(sb, "null");
    sbuf_add(sb, "}");
    cJSON_Delete(obj);
}

/* {"kind":"Table","apiVersion":"meta.k8s.io/V","metadata":{"resourceVersion":"rv" */
static void add_head(struct sbuf *sb, bool beta, int64_t rv)
{
    sbuf_addf(sb,
              "{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/%s\","
              "\"metadata\":{\"resourceVersion\":\"%lld\"",
              beta ? "v1beta1" : "v1", (long long)rv);
}

struct rbuf *table_render(const struct resource_type *rt,
                          struct object *const *items, size_t n, int64_t rv,
                          const char *continue_token, int64_t remaining,
                          enum table_object include_object, bool beta,
                          time_t now)
{
    const struct printer *p = printer_for(rt);
    struct sbuf sb = {0};
    struct rbuf *out;

    add_head(&sb, beta, rv);
    if (continue_token != NULL && *continue_token != '\0') {
        sbuf_add(&sb, ",\"continue\":");
        add_json_string(&sb, continue_token);
    }
    if (remaining >= 0)
        sbuf_addf(&sb, ",\"remainingItemCount\":%lld", (long long)remaining);
    sbuf_add(&sb, "},\"columnDefinitions\":");
    add_columns(&sb, p);
    sbuf_add(&sb, ",\"rows\":[");
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            sbuf_add(&sb, ",");
        add_row(&sb, p, items[i], include_object, beta, now);
    }
    sbuf_add(&sb, "]}");
    out = rbuf_from(sb.data, sb.len);
    sbuf_fini(&sb);
    return out;
}

void table_append_object(struct sbuf *sb, const struct resource_type *rt,
                         const struct object *o, enum table_object include,
                         bool beta, bool columns, time_t now)
{
    const struct printer *p = printer_for(rt);

    add_head(sb, beta, o->rv);
    sbuf_add(sb, "},\"columnDefinitions\":");
    if (columns)
        add_columns(sb, p);
    else
        sbuf_add(sb, "null");
    sbuf_add(sb, ",\"rows\":[");
    add_row(sb, p, o, include, beta, now);
    sbuf_add(sb, "]}");
}
