/*
 * printers_service.c: services and endpoints (see printers_service.h).
 *
 * A Service is read as the apiserver's registry presents it: type
 * ClusterIP and port protocol TCP by the v1 defaults, and spec.clusterIPs
 * taken from spec.clusterIP when a Service written before dual-stack has
 * only the latter (the registry's defaultOnRead).
 */
#include "proto/printers_service.h"

#include <string.h>

#include "cache/rw.h"

/* ------------------------------------------------------------------ */
/* Services                                                            */
/* ------------------------------------------------------------------ */

static const struct printer_column service_columns[] = {
    PRINTER_COL_NAME,
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
    PRINTER_COL_AGE,
    {"Selector", "string", "", 1,
     "Route service traffic to pods with label keys and values matching "
     "this selector. If empty or not present, the service is assumed to "
     "have an external process managing its endpoints, which Kubernetes "
     "will not modify. Only applies to types ClusterIP, NodePort, and "
     "LoadBalancer. Ignored if type is ExternalName. More info: "
     "https://kubernetes.io/docs/concepts/services-networking/service/"},
};

/* getServiceExternalIP with wide set (no truncation). */
static void cell_service_external(struct printer_row *r, const struct jval *svc,
                                  const char *type)
{
    const struct jval *spec = jval_get(svc, "spec"), *c;
    struct printer_list ext = {0}, lb = {0};
    struct sbuf s = {0};

    JVAL_EACH(c, jval_get(spec, "externalIPs"))
    printer_list_add(&ext, jval_str(c));
    if (strcmp(type, "ExternalName") == 0) {
        printer_cell_str(r, jval_str(jval_get(spec, "externalName")));
    } else if (strcmp(type, "ClusterIP") == 0 ||
               strcmp(type, "NodePort") == 0) {
        printer_list_join(&s, &ext, ",");
        printer_cell_sbuf(r, &s, "<none>");
    } else if (strcmp(type, "LoadBalancer") == 0) {
        JVAL_EACH(c, jval_path(svc, "status.loadBalancer.ingress"))
        {
            const char *ip = jval_str(jval_get(c, "ip"));
            const char *host = jval_str(jval_get(c, "hostname"));

            if (*ip || *host)
                printer_list_add(&lb, *ip ? ip : host);
        }
        printer_list_sort_unique(&lb);
        printer_list_join(&s, &lb, ",");
        if (lb.n > 0 && ext.n > 0)
            sbuf_add(&s, ",");
        printer_list_join(&s, &ext, ",");
        printer_cell_sbuf(r, &s, "<pending>");
    } else {
        printer_cell_str(r, "<unknown>");
    }
    printer_list_fini(&ext);
    printer_list_fini(&lb);
}

/* makePortString: "80/TCP,443:30443/TCP", "<none>" when empty. */
static void cell_service_ports(struct printer_row *r, const struct jval *spec)
{
    const struct jval *p;
    struct sbuf s = {0};

    JVAL_EACH(p, jval_get(spec, "ports"))
    {
        const char *proto = jval_str(jval_get(p, "protocol"));
        int64_t node_port = jval_int(jval_get(p, "nodePort"));

        if (s.len > 0)
            sbuf_add(&s, ",");
        sbuf_addf(&s, "%lld", (long long)jval_int(jval_get(p, "port")));
        if (node_port > 0)
            sbuf_addf(&s, ":%lld", (long long)node_port);
        sbuf_addf(&s, "/%s", *proto ? proto : "TCP");
    }
    printer_cell_sbuf(r, &s, "<none>");
}

static void service_cells(struct printer_row *r, const struct jval *svc,
                          const struct object *o)
{
    const struct jval *spec = jval_get(svc, "spec");
    const struct jval *ips = jval_get(spec, "clusterIPs");
    const char *type = jval_str(jval_get(spec, "type"));

    if (*type == '\0')
        type = "ClusterIP";
    printer_cell_str(r, o->name);
    printer_cell_str(r, type);
    if (jval_len(ips) > 0)
        printer_cell_str(r, jval_str(jval_at(ips, 0)));
    else
        printer_cell_or(r, jval_str(jval_get(spec, "clusterIP")), "<none>");
    cell_service_external(r, svc, type);
    cell_service_ports(r, spec);
    printer_cell_age(r, o);
    printer_cell_labels(r, jval_get(spec, "selector"));
}

/* ------------------------------------------------------------------ */
/* Endpoints                                                           */
/* ------------------------------------------------------------------ */

static const struct printer_column endpoints_columns[] = {
    PRINTER_COL_NAME,
    {"Endpoints", "string", "", 0,
     "The set of all endpoints is the union of all subsets. Addresses are "
     "placed into subsets according to the IPs they share. A single address "
     "with multiple ports, some of which are ready and some of which are "
     "not (because they come from different containers) will result in the "
     "address being displayed in different subsets for the different ports. "
     "No address will appear in both Addresses and NotReadyAddresses in the "
     "same subset. Sets of addresses and ports that comprise a service."},
    PRINTER_COL_AGE,
};

/* At most this many endpoints are listed, then "+ N more...". */
#define ENDPOINTS_SHOWN 3

/* Adds address a to the first ENDPOINTS_SHOWN, with the port of the
 * EndpointPort port (net.JoinHostPort) or alone when port is NULL; returns
 * false once the list is full. */
static bool endpoint_add(struct sbuf *s, size_t *listed, const struct jval *a,
                         const struct jval *port)
{
    const char *ip = jval_str(jval_get(a, "ip"));
    long long number = (long long)jval_int(jval_get(port, "port"));

    if (*listed == ENDPOINTS_SHOWN)
        return false;
    if ((*listed)++ > 0)
        sbuf_add(s, ",");
    if (port == NULL)
        sbuf_add(s, ip);
    else if (strchr(ip, ':') != NULL)
        sbuf_addf(s, "[%s]:%lld", ip, number);
    else
        sbuf_addf(s, "%s:%lld", ip, number);
    return true;
}

/* formatEndpoints(endpoints, nil): each subset's ready addresses, with
 * each of its ports or alone when it has none; "<none>" without subsets. */
static void cell_endpoints(struct printer_row *r, const struct jval *ep)
{
    const struct jval *subsets = jval_get(ep, "subsets"), *ss, *p, *a;
    size_t listed = 0, count = 0;
    bool more = false;
    struct sbuf s = {0};

    if (jval_len(subsets) == 0) {
        printer_cell_str(r, "<none>");
        return;
    }
    JVAL_EACH(ss, subsets)
    {
        const struct jval *addrs = jval_get(ss, "addresses");
        const struct jval *ports = jval_get(ss, "ports");

        if (jval_len(ports) == 0) { /* a headless service's */
            count += jval_len(addrs);
            JVAL_EACH(a, addrs)
            {
                if (!endpoint_add(&s, &listed, a, NULL)) {
                    more = true;
                    break;
                }
            }
            continue;
        }
        JVAL_EACH(p, ports)
        {
            count += jval_len(addrs);
            JVAL_EACH(a, addrs)
            {
                if (!endpoint_add(&s, &listed, a, p)) {
                    more = true;
                    break;
                }
            }
        }
    }
    if (more)
        sbuf_addf(&s, " + %zu more...", count - ENDPOINTS_SHOWN);
    printer_cell_sbuf(r, &s, "");
}

static void endpoints_cells(struct printer_row *r, const struct jval *ep,
                            const struct object *o)
{
    printer_cell_str(r, o->name);
    cell_endpoints(r, ep);
    printer_cell_age(r, o);
}

const struct printer printers_service[] = {
    PRINTER("", "services", service_columns, service_cells),
    PRINTER("", "endpoints", endpoints_columns, endpoints_cells),
};
const size_t printers_service_len = RW_ARRAY_LEN(printers_service);
