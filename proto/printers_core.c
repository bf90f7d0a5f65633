/*
 * printers_core.c: nodes, namespaces, configmaps, secrets,
 * serviceaccounts and events (see printers_core.h).
 *
 * Defaults the apiserver's v1 decoding applies before printing: a
 * namespace's phase Active, a secret's type Opaque; a v1 Secret's
 * write-only stringData is merged into data by the conversion to the
 * internal type, so both count.
 */
#include "proto/printers_core.h"

#include <stdio.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/metatime.h"

/* ------------------------------------------------------------------ */
/* Nodes                                                               */
/* ------------------------------------------------------------------ */

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

static const struct printer_column node_columns[] = {
    PRINTER_COL_NAME,
    {"Status", "string", "", 0, "The status of the node"},
    {"Roles", "string", "", 0, "The roles of the node"},
    PRINTER_COL_AGE,
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

/* The first status.addresses entry of type, or "<none>". */
static void cell_node_address(struct printer_row *r, const struct jval *node,
                              const char *type)
{
    const struct jval *a;

    JVAL_EACH(a, jval_path(node, "status.addresses"))
    {
        if (strcmp(jval_str(jval_get(a, "type")), type) == 0) {
            printer_cell_str(r, jval_str(jval_get(a, "address")));
            return;
        }
    }
    printer_cell_str(r, "<none>");
}

/* Roles from node-role.kubernetes.io/<role> and kubernetes.io/role=<role>. */
static void cell_node_roles(struct printer_row *r, const struct object *o)
{
    static const char prefix[] = "node-role.kubernetes.io/";
    struct printer_list roles = {0};
    struct sbuf s = {0};

    for (size_t i = 0; i < o->nlabels; i++) {
        const struct label *l = &o->labels[i];

        if (strncmp(l->key, prefix, sizeof(prefix) - 1) == 0) {
            if (l->key[sizeof(prefix) - 1] != '\0')
                printer_list_add(&roles, l->key + sizeof(prefix) - 1);
        } else if (strcmp(l->key, "kubernetes.io/role") == 0 && *l->value) {
            printer_list_add(&roles, l->value);
        }
    }
    printer_list_sort_unique(&roles);
    printer_list_join(&s, &roles, ",");
    printer_list_fini(&roles);
    printer_cell_sbuf(r, &s, "<none>");
}

static void node_cells(struct printer_row *r, const struct jval *node,
                       const struct object *o)
{
    const struct jval *info = jval_path(node, "status.nodeInfo"), *c;
    const struct jval *ready = NULL;
    struct sbuf s = {0};

    JVAL_EACH(c, jval_path(node, "status.conditions"))
    {
        if (strcmp(jval_str(jval_get(c, "type")), "Ready") == 0)
            ready = c; /* a map: the last one wins */
    }
    if (ready == NULL)
        sbuf_add(&s, "Unknown");
    else
        sbuf_add(&s, strcmp(jval_str(jval_get(ready, "status")), "True") == 0
                         ? "Ready"
                         : "NotReady");
    if (jval_true(jval_path(node, "spec.unschedulable")))
        sbuf_add(&s, ",SchedulingDisabled");

    printer_cell_str(r, o->name);
    printer_cell_sbuf(r, &s, "");
    cell_node_roles(r, o);
    printer_cell_age(r, o);
    printer_cell_str(r, jval_str(jval_get(info, "kubeletVersion")));
    cell_node_address(r, node, "InternalIP");
    cell_node_address(r, node, "ExternalIP");
    printer_cell_or(r, jval_str(jval_get(info, "osImage")), "<unknown>");
    printer_cell_or(r, jval_str(jval_get(info, "kernelVersion")), "<unknown>");
    printer_cell_or(r, jval_str(jval_get(info, "containerRuntimeVersion")),
                    "<unknown>");
}

/* ------------------------------------------------------------------ */
/* Namespaces, configmaps, secrets, serviceaccounts                    */
/* ------------------------------------------------------------------ */

static const struct printer_column namespace_columns[] = {
    PRINTER_COL_NAME,
    {"Status", "string", "", 0, "The status of the namespace"},
    PRINTER_COL_AGE,
};

static void namespace_cells(struct printer_row *r, const struct jval *ns,
                            const struct object *o)
{
    printer_cell_str(r, o->name);
    printer_cell_or(r, jval_str(jval_path(ns, "status.phase")), "Active");
    printer_cell_age(r, o);
}

static const struct printer_column configmap_columns[] = {
    PRINTER_COL_NAME,
    {"Data", "string", "", 0,
     "Data contains the configuration data. Each key must consist of "
     "alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte "
     "sequences must use the BinaryData field. The keys stored in Data must "
     "not overlap with the keys in the BinaryData field, this is enforced "
     "during validation process."},
    PRINTER_COL_AGE,
};

static void configmap_cells(struct printer_row *r, const struct jval *cm,
                            const struct object *o)
{
    printer_cell_str(r, o->name);
    printer_cell_int(r, (int64_t)(jval_len(jval_get(cm, "data")) +
                                  jval_len(jval_get(cm, "binaryData"))));
    printer_cell_age(r, o);
}

static const struct printer_column secret_columns[] = {
    PRINTER_COL_NAME,
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
    PRINTER_COL_AGE,
};

/* len(Data) once stringData's keys are merged into it. */
static int64_t secret_keys(const struct jval *secret)
{
    const struct jval *data = jval_get(secret, "data"), *c;
    int64_t n = (int64_t)jval_len(data);

    JVAL_EACH(c, jval_get(secret, "stringData"))
    {
        n += !jval_shadowed(c) && jval_get(data, jval_name(c)) == NULL;
    }
    return n;
}

static void secret_cells(struct printer_row *r, const struct jval *s,
                         const struct object *o)
{
    printer_cell_str(r, o->name);
    printer_cell_or(r, jval_str(jval_get(s, "type")), "Opaque");
    printer_cell_int(r, secret_keys(s));
    printer_cell_age(r, o);
}

static const struct printer_column serviceaccount_columns[] = {
    PRINTER_COL_NAME,
    {"Secrets", "string", "", 0,
     "Secrets is a list of the secrets in the same namespace that pods "
     "running using this ServiceAccount are allowed to use. Pods are only "
     "limited to this list if this service account has a "
     "\"kubernetes.io/enforce-mountable-secrets\" annotation set to "
     "\"true\". The \"kubernetes.io/enforce-mountable-secrets\" annotation "
     "is deprecated since v1.32. Prefer separate namespaces to isolate "
     "access to mounted secrets. This field should not be used to find "
     "auto-generated service account token secrets for use outside of "
     "pods. Instead, tokens can be requested directly using the "
     "TokenRequest API, or service account token secrets can be manually "
     "created. More info: "
     "https://kubernetes.io/docs/concepts/configuration/secret"},
    PRINTER_COL_AGE,
};

static void serviceaccount_cells(struct printer_row *r, const struct jval *sa,
                                 const struct object *o)
{
    printer_cell_str(r, o->name);
    printer_cell_int(r, (int64_t)jval_len(jval_get(sa, "secrets")));
    printer_cell_age(r, o);
}

/* ------------------------------------------------------------------ */
/* Events                                                              */
/* ------------------------------------------------------------------ */

static const struct printer_column event_columns[] = {
    {"Last Seen", "string", "", 0,
     "The time at which the most recent occurrence of this event was "
     "recorded."},
    {"Type", "string", "", 0,
     "Type of this event (Normal, Warning), new types could be added in the "
     "future"},
    {"Reason", "string", "", 0,
     "This should be a short, machine understandable string that gives the "
     "reason for the transition into the object's current status."},
    {"Object", "string", "", 0, "The object that this event is about."},
    {"Subobject", "string", "", 1,
     "If referring to a piece of an object instead of an entire object, "
     "this string should contain a valid JSON/Go field access statement, "
     "such as desiredState.manifest.containers[2]. For example, if the "
     "object reference is to a container within a pod, this would take on a "
     "value like: \"spec.containers{name}\" (where \"name\" refers to the "
     "name of the container that triggered the event) or if no container "
     "name is specified \"spec.containers[2]\" (container with index 2 in "
     "this pod). This syntax is chosen only to have some well-defined way "
     "of referencing a part of an object."},
    {"Source", "string", "", 1,
     "The component reporting this event. Should be a short machine "
     "understandable string."},
    {"Message", "string", "", 0,
     "A human-readable description of the status of this operation."},
    {"First Seen", "string", "", 1,
     "The time at which the event was first recorded. (Time of server "
     "receipt is in TypeMeta.)"},
    {"Count", "string", "", 1, "The number of times this event has occurred."},
    {"Name", "string", "name", 1, PRINTER_DOC_NAME},
};

/* Whether the time t is set (metav1.Time.IsZero is false). */
static bool time_set(const struct jval *t)
{
    int64_t s;

    return metatime_parse(jval_str(t), &s);
}

/* formatEventSource: source.component (else reportingComponent), then ", "
 * and source.host (else reportingInstance) when there is one. */
static void cell_event_source(struct printer_row *r, const struct jval *ev)
{
    const char *component = jval_str(jval_path(ev, "source.component"));
    const char *host = jval_str(jval_path(ev, "source.host"));
    struct sbuf s = {0};

    if (*component == '\0')
        component = jval_str(jval_get(ev, "reportingComponent"));
    if (*host == '\0')
        host = jval_str(jval_get(ev, "reportingInstance"));
    sbuf_add(&s, component);
    if (*host != '\0')
        sbuf_addf(&s, ", %s", host);
    printer_cell_sbuf(r, &s, "");
}

/* OBJECT: "kind/name" with the kind lowercased (strings.ToLower; kinds
 * are ASCII), or the kind alone when the name is empty. */
static void cell_event_object(struct printer_row *r, const struct jval *ev)
{
    const char *name = jval_str(jval_path(ev, "involvedObject.name"));
    struct sbuf s = {0};

    sbuf_add(&s, jval_str(jval_path(ev, "involvedObject.kind")));
    for (size_t i = 0; i < s.len; i++)
        if (s.data[i] >= 'A' && s.data[i] <= 'Z')
            s.data[i] = (char)(s.data[i] - 'A' + 'a');
    if (*name != '\0')
        sbuf_addf(&s, "/%s", name);
    printer_cell_sbuf(r, &s, "");
}

static void event_cells(struct printer_row *r, const struct jval *ev,
                        const struct object *o)
{
    const struct jval *series = jval_get(ev, "series");
    int64_t count = jval_int(jval_get(ev, "count"));
    char first[32], last[32];

    if (time_set(jval_get(ev, "firstTimestamp")))
        printer_since(first, sizeof(first), jval_get(ev, "firstTimestamp"),
                      r->now);
    else
        printer_since(first, sizeof(first), jval_get(ev, "eventTime"), r->now);
    if (time_set(jval_get(ev, "lastTimestamp")))
        printer_since(last, sizeof(last), jval_get(ev, "lastTimestamp"),
                      r->now);
    else
        snprintf(last, sizeof(last), "%s", first);
    if (series != NULL) {
        printer_since(last, sizeof(last), jval_get(series, "lastObservedTime"),
                      r->now);
        count = jval_int(jval_get(series, "count"));
    } else if (count == 0) {
        count = 1; /* singleton events of the new API have no count */
    }

    printer_cell_str(r, last);
    printer_cell_str(r, jval_str(jval_get(ev, "type")));
    printer_cell_str(r, jval_str(jval_get(ev, "reason")));
    cell_event_object(r, ev);
    printer_cell_str(r, jval_str(jval_path(ev, "involvedObject.fieldPath")));
    cell_event_source(r, ev);
    printer_cell_trimmed(r, jval_str(jval_get(ev, "message")));
    printer_cell_str(r, first);
    printer_cell_int(r, count);
    printer_cell_str(r, o->name);
}

const struct printer printers_core[] = {
    PRINTER("", "nodes", node_columns, node_cells),
    PRINTER("", "namespaces", namespace_columns, namespace_cells),
    PRINTER("", "configmaps", configmap_columns, configmap_cells),
    PRINTER("", "secrets", secret_columns, secret_cells),
    PRINTER("", "serviceaccounts", serviceaccount_columns,
            serviceaccount_cells),
    PRINTER("", "events", event_columns, event_cells),
};
const size_t printers_core_len = RW_ARRAY_LEN(printers_core);
