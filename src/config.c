/*
 * config.c: the option-table engine and ringwatch's table (see config.h).
 */
#include "src/config.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "src/address.h"
#include "src/authz.h"
#include "src/log.h"
#include "src/tls_server.h"
#include "src/upstream_etcd_tls.h"
#include "src/upstream_members.h"
#include "src/upstream_registry.h"

#define OFF(field) offsetof(struct config, field)

const struct option_spec config_options[] = {
    {"listen", OPT_STRING, OFF(listen), 0, 0, "127.0.0.1:8080", "ADDRESS",
     "address and port to serve HTTP/1.1 and HTTP/2 (h2c) on"},
    {"upstream", OPT_STRING, OFF(upstream), 0, 0, CONFIG_UPSTREAM_DEFAULT,
     "URL",
     "the store to cache, its adapter chosen by the URL's scheme: "
     "http://HOST:PORT or https://HOST:PORT for etcd (gRPC over HTTP/2, "
     "cleartext or TLS), a comma-separated list for a cluster's members; "
     "redis://HOST:PORT[,redis://...] for Redis (a standalone server, or "
     "seeds of a Redis Cluster)"},
    /* The alias: the same field, so that the last one given wins. */
    {"etcd", OPT_STRING, OFF(upstream), 0, 0, CONFIG_UPSTREAM_DEFAULT, "URL",
     "an alias of --upstream, kept for compatibility (the last of the two "
     "given wins)"},
    {"etcd-cafile", OPT_STRING, OFF(etcd_cafile), 0, 0, NULL, "FILE",
     "PEM CA certificates that sign the https:// etcd members' "
     "certificates (default: the system's CA store)"},
    {"etcd-certfile", OPT_STRING, OFF(etcd_certfile), 0, 0, NULL, "FILE",
     "PEM client certificate presented to https:// etcd members (with "
     "--etcd-keyfile)"},
    {"etcd-keyfile", OPT_STRING, OFF(etcd_keyfile), 0, 0, NULL, "FILE",
     "PEM private key of --etcd-certfile"},
    {"redis-password-file", OPT_STRING, OFF(redis_password_file), 0, 0, NULL,
     "FILE",
     "file whose first line is the password sent with AUTH to redis:// "
     "seeds (default: none)"},
    {"redis-revisions", OPT_STRING, OFF(redis_revisions), 0, 0, "global",
     "MODE",
     "global (one revision counter for every resource, hash tag {rw}) or "
     "per-resource (one per resource, hash tag {rw:RESOURCE}): as the "
     "writers of the Redis store use it"},
    {"redis-history", OPT_UINT, OFF(redis_history), 1, 100000000, "10000",
     "EVENTS",
     "entries the writers keep in each resource's Redis log (the most one "
     "read of a log returns)"},
    {"resources", OPT_STRING, OFF(resources), 0, 0,
     "pods,configmaps,nodes,namespaces,apps/v1/deployments", "LIST",
     "comma-separated resource types to cache and serve"},
    {"ring-capacity", OPT_UINT, OFF(ring_capacity), 1, 100000000, "10000",
     "EVENTS", "events kept per resource ring"},
    {"ring-bytes", OPT_BYTES, OFF(ring_bytes), 1024, 1e12, "64Mi", "BYTES",
     "bytes of object JSON kept per resource ring"},
    {"warm-start-window", OPT_UINT, OFF(warm_start_window), 0, 1e12,
     "10000", "REVISIONS",
     "etcd: list each resource first at this many revisions below the "
     "store's current one (not below its compaction) and replay the "
     "history since into the ring, so that watchers resuming after a "
     "restart get their missed events instead of 410 (0: list at the "
     "current revision, as kube-apiserver)"},
    {"bookmark-interval", OPT_SECONDS, OFF(bookmark_interval), 0.1, 86400, "60",
     "SECONDS", "seconds between BOOKMARK events to watchers that allow them"},
    {"min-request-timeout", OPT_SECONDS, OFF(min_request_timeout), 1, 86400,
     "1800", "SECONDS",
     "a watch without timeoutSeconds ends after a random time in [T, 2T)"},
    {"list-page-size", OPT_UINT, OFF(list_page_size), 1, 100000, "500", "KEYS",
     "keys per upstream page when listing (etcd: per Range)"},
    {"index-fields", OPT_STRING, OFF(index_fields), 0, 0, "pods=spec.nodeName",
     "LIST",
     "RESOURCE=FIELD,...: per resource, the field selector field the "
     "dispatcher indexes watchers by, besides name and namespace (\"\": "
     "none)"},
    {"watch-high-water", OPT_BYTES, OFF(watch_high_water), 32768, 1e9, "256Ki",
     "BYTES",
     "bytes queued per watch stream before it stops taking events (at "
     "least 32Ki: twice the 16 KiB mark at which it resumes)"},
    {"max-connections", OPT_UINT, OFF(max_connections), 0,
     CONFIG_MAX_CONNECTIONS, "0", "N",
     "client connections served at once (0: as many as the descriptor "
     "limit allows, less 64 kept for the upstream, the listener and the "
     "log)"},
    {"max-requests-inflight", OPT_UINT, OFF(max_requests_inflight), 0,
     1000000, "400", "N",
     "requests answered at once, watches aside; more wait in per-user "
     "queues, served round robin, or get 429 (0: no limit), as the "
     "apiserver's"},
    {"h2-max-streams", OPT_UINT, OFF(h2_max_streams), 1, 100000, "1000", "N",
     "concurrent HTTP/2 streams per connection"},
    {"sndbuf", OPT_BYTES, OFF(sndbuf), 0, 1e9, "0", "BYTES",
     "socket send buffer per connection (0: the kernel's default)"},
    {"header-timeout", OPT_SECONDS, OFF(header_timeout), 0, 86400, "32",
     "SECONDS",
     "a client must send a whole request within this (0: no limit), as "
     "the apiserver's ReadHeaderTimeout"},
    {"idle-timeout", OPT_SECONDS, OFF(idle_timeout), 0, 86400, "90", "SECONDS",
     "a connection with no request or response in progress is closed "
     "after this (0: never)"},
    {"shutdown-grace", OPT_SECONDS, OFF(shutdown_grace), 0, 3600, "10",
     "SECONDS",
     "on SIGTERM or SIGINT, every watch ends cleanly and responses get "
     "this long to drain before the connections close"},
    {"authorization-mode", OPT_STRING, OFF(authorization_mode), 0, 0, NULL,
     "MODES",
     "AlwaysAllow, RBAC or both, comma-separated, as kube-apiserver's "
     "(unset: RBAC when a TLS flag is given or --listen is not a loopback "
     "address, AlwaysAllow otherwise)"},
    {"log-level", OPT_STRING, OFF(log_level), 0, 0, "info", "LEVEL",
     "debug, info, warn or error"},
    {"log-file", OPT_STRING, OFF(log_file), 0, 0, NULL, "FILE",
     "append the log to FILE instead of standard error; SIGHUP reopens it"},
    {"tls-cert-file", OPT_STRING, OFF(tls_cert_file), 0, 0, NULL, "FILE",
     "PEM certificate chain (leaf first) to serve TLS with on --listen's "
     "port, next to plaintext; re-read on SIGHUP and when it changes"},
    {"tls-private-key-file", OPT_STRING, OFF(tls_key_file), 0, 0, NULL,
     "FILE", "PEM private key of --tls-cert-file"},
    {"client-ca-file", OPT_STRING, OFF(client_ca_file), 0, 0, NULL, "FILE",
     "PEM CA bundle: TLS clients may present a certificate signed by it "
     "(asked for, never required; CN is the user, O the groups)"},
    {"tls-min-version", OPT_STRING, OFF(tls_min_version), 0, 0,
     "VersionTLS12", "VERSION",
     "the lowest TLS version accepted: VersionTLS12 or VersionTLS13"},
    {"insecure-allow-plaintext", OPT_FLAG, OFF(insecure_allow_plaintext), 0,
     0, NULL, NULL,
     "serve plaintext HTTP on a non-loopback --listen address, or next to "
     "TLS on one (otherwise plaintext is served on loopback only)"},
    {"anonymous-auth", OPT_BOOL, OFF(anonymous_auth), 0, 0, "true", "BOOL",
     "a request without credentials is user system:anonymous in group "
     "system:unauthenticated (false: 401 Unauthorized), as the apiserver's"},
    {"token-auth-file", OPT_STRING, OFF(token_auth_file), 0, 0, NULL, "FILE",
     "static bearer tokens, the apiserver's CSV: token,user,uid,\"groups\""},
    {"service-account-key-file", OPT_LIST, OFF(service_account_key_files), 0,
     0, NULL, "FILE",
     "PEM file of RSA or ECDSA keys (public, private or certificates) that "
     "verify service-account tokens; may be repeated"},
    {"service-account-issuer", OPT_LIST, OFF(service_account_issuers), 0, 0,
     NULL, "ISSUER",
     "an iss accepted in service-account tokens; may be repeated"},
    {"api-audiences", OPT_LIST, OFF(api_audiences), 0, 0, NULL, "LIST",
     "comma-separated audiences a service-account token must name one of "
     "(none given: the first --service-account-issuer); may be repeated"},
};
const size_t config_noptions = RW_ARRAY_LEN(config_options);

/* ---- values ---- */

int config_fail(char *why, size_t why_len, const char *option,
                const char *value, const char *fmt, ...)
{
    va_list ap;
    int n;

    n = snprintf(why, why_len, "--%s: \"%s\": ", option, value);
    if (n >= 0 && (size_t)n < why_len) {
        va_start(ap, fmt);
        vsnprintf(why + n, why_len - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return RW_EINVAL;
}

/* The bounds of spec as text, e.g. "1 to 100000000". */
static void bounds(const struct option_spec *spec, char *out, size_t len)
{
    if (spec->type == OPT_SECONDS)
        snprintf(out, len, "%g to %g seconds", spec->min, spec->max);
    else
        snprintf(out, len, "%.0f to %.0f%s", spec->min, spec->max,
                 spec->type == OPT_BYTES ? " bytes" : "");
}

/* A decimal number as strtod reads it, but only digits, one point and an
 * exponent: no spaces, hex, inf or nan.  Sets *end past it; false when
 * there is none. */
static bool plain_number(const char *text, double *out, const char **end)
{
    char *e;
    size_t n;

    errno = 0;
    *out = strtod(text, &e);
    n = (size_t)(e - text);
    if (n == 0 || strspn(text, "+-0123456789.eE") < n || isnan(*out))
        return false;
    if (errno == ERANGE && fabs(*out) > 1)
        *out = *out > 0 ? INFINITY : -INFINITY; /* overflow: out of range */
    *end = e;
    return true;
}

/* A number with an optional suffix from units[]; negative and infinite
 * values are returned for the range check to refuse. */
static bool parse_scaled(const char *text, const char *const units[][2],
                         double *out)
{
    const char *end;
    double v;

    if (!plain_number(text, &v, &end))
        return false;
    if (*end == '\0') {
        *out = v;
        return true;
    }
    for (size_t i = 0; units[i][0] != NULL; i++) {
        if (strcmp(end, units[i][0]) == 0) {
            *out = v * strtod(units[i][1], NULL);
            return true;
        }
    }
    return false;
}

static const char *const byte_units[][2] = {
    {"K", "1e3"},       {"M", "1e6"},          {"G", "1e9"}, {"Ki", "1024"},
    {"Mi", "1048576"},  {"Gi", "1073741824"},  {"k", "1e3"}, {"KiB", "1024"},
    {"MiB", "1048576"}, {"GiB", "1073741824"}, {NULL, NULL},
};
static const char *const second_units[][2] = {
    {"s", "1"}, {"ms", "1e-3"}, {"m", "60"}, {"h", "3600"}, {NULL, NULL},
};

/* A whole number: [-]digits, negative ones returned for the range check. */
static bool parse_whole(const char *text, double *out)
{
    const char *digits = text + (*text == '-');
    size_t n = strspn(digits, "0123456789");

    if (n == 0 || digits[n] != '\0')
        return false;
    errno = 0;
    *out = (double)strtoull(digits, NULL, 10);
    if (errno == ERANGE)
        *out = INFINITY;
    if (*text == '-' && *out != 0)
        *out = -*out;
    return true;
}

/* Go's strconv.ParseBool, which pflag's bool flags use. */
static int parse_bool(const struct option_spec *spec, const char *text,
                      bool *dst, char *why, size_t why_len)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};

    for (size_t i = 0; i < RW_ARRAY_LEN(yes); i++) {
        if (strcmp(text, yes[i]) == 0 || strcmp(text, no[i]) == 0) {
            *dst = strcmp(text, yes[i]) == 0;
            return RW_OK;
        }
    }
    return config_fail(why, why_len, spec->name, text,
                       "expected true or false");
}

static int list_append(const struct option_spec *spec, const char *text,
                       struct config_list *dst, char *why, size_t why_len)
{
    if (dst->n == CONFIG_LIST_MAX)
        return config_fail(why, why_len, spec->name, text,
                           "given more than %d times", CONFIG_LIST_MAX);
    dst->v[dst->n++] = text;
    return RW_OK;
}

int config_parse_value(const struct option_spec *spec, const char *text,
                       void *dst, char *why, size_t why_len)
{
    char range[96];
    double v;

    bounds(spec, range, sizeof(range));
    switch (spec->type) {
    case OPT_STRING:
        *(const char **)dst = text;
        return RW_OK;
    case OPT_FLAG:
        *(bool *)dst = true;
        return RW_OK;
    case OPT_BOOL:
        return parse_bool(spec, text, dst, why, why_len);
    case OPT_LIST:
        return list_append(spec, text, dst, why, why_len);
    case OPT_UINT:
        if (!parse_whole(text, &v))
            return config_fail(why, why_len, spec->name, text,
                               "expected a whole number from %s", range);
        break;
    case OPT_BYTES:
        if (!parse_scaled(text, byte_units, &v) || v != floor(v))
            return config_fail(why, why_len, spec->name, text,
                               "expected a whole byte count such as 65536, "
                               "64Ki or 64Mi, from %s",
                               range);
        break;
    case OPT_SECONDS:
        if (!parse_scaled(text, second_units, &v))
            return config_fail(why, why_len, spec->name, text,
                               "expected a duration such as 60, 1.5, 500ms "
                               "or 2m, from %s",
                               range);
        break;
    default:
        rw_assert(!"unknown option type");
    }
    if (!(v >= spec->min && v <= spec->max))
        return config_fail(why, why_len, spec->name, text,
                           "out of range: expected %s", range);
    if (spec->type == OPT_SECONDS)
        *(double *)dst = v;
    else
        *(uint64_t *)dst = (uint64_t)v;
    return RW_OK;
}

/* ---- argv ---- */

static const struct option_spec *find(const struct option_spec *specs, size_t n,
                                      const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(specs[i].name) == len &&
            strncmp(specs[i].name, name, len) == 0)
            return &specs[i];
    return NULL;
}

static int apply_defaults(const struct option_spec *specs, size_t n, void *base,
                          char *why, size_t why_len)
{
    for (size_t i = 0; i < n; i++) {
        void *dst = (char *)base + specs[i].offset;

        if (specs[i].type == OPT_FLAG) {
            *(bool *)dst = false;
            continue;
        }
        if (specs[i].type == OPT_LIST) {
            rw_assert(specs[i].def == NULL);
            ((struct config_list *)dst)->n = 0;
            continue;
        }
        if (specs[i].def == NULL) {
            rw_assert(specs[i].type == OPT_STRING);
            *(const char **)dst = NULL;
            continue;
        }
        if (config_parse_value(&specs[i], specs[i].def, dst, why, why_len))
            return RW_EINVAL;
    }
    return RW_OK;
}

int config_parse(const struct option_spec *specs, size_t n, void *base,
                 int argc, char **argv, char *why, size_t why_len)
{
    if (apply_defaults(specs, n, base, why, why_len) != RW_OK)
        return RW_EINVAL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *name, *eq, *value;
        const struct option_spec *spec;
        size_t len;

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return CONFIG_HELP;
        if (strcmp(arg, "--version") == 0)
            return CONFIG_VERSION;
        if (strncmp(arg, "--help=", 7) == 0 ||
            strncmp(arg, "--version=", 10) == 0) {
            snprintf(why, why_len, "%.*s takes no value",
                     (int)strcspn(arg, "="), arg);
            return RW_EINVAL;
        }
        if (strncmp(arg, "--", 2) != 0) {
            snprintf(why, why_len, "unexpected argument \"%s\"", arg);
            return RW_EINVAL;
        }
        name = arg + 2;
        eq = strchr(name, '=');
        len = eq ? (size_t)(eq - name) : strlen(name);
        if ((spec = find(specs, n, name, len)) == NULL) {
            snprintf(why, why_len, "unknown option --%.*s", (int)len, name);
            return RW_EINVAL;
        }
        if (spec->type == OPT_FLAG) {
            if (eq != NULL) {
                snprintf(why, why_len, "--%s takes no value", spec->name);
                return RW_EINVAL;
            }
            value = "true";
        } else if (eq != NULL) {
            value = eq + 1;
        } else if (spec->type == OPT_BOOL &&
                   (i + 1 == argc || strncmp(argv[i + 1], "--", 2) == 0)) {
            value = "true"; /* --name alone, as pflag */
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            snprintf(why, why_len, "--%s needs a value (%s)", spec->name,
                     spec->metavar);
            return RW_EINVAL;
        }
        if (config_parse_value(spec, value, (char *)base + spec->offset, why,
                               why_len) != RW_OK)
            return RW_EINVAL;
    }
    return RW_OK;
}

void config_usage(FILE *out, const char *program, const char *synopsis,
                  const struct option_spec *specs, size_t n)
{
    fprintf(out, "usage: %s %s\n\noptions:\n", program, synopsis);
    for (size_t i = 0; i < n; i++) {
        char left[64];

        if (specs[i].type == OPT_FLAG)
            snprintf(left, sizeof(left), "--%s", specs[i].name);
        else
            snprintf(left, sizeof(left), "--%s %s", specs[i].name,
                     specs[i].metavar);
        fprintf(out, "  %-32s %s", left, specs[i].help);
        if (specs[i].def != NULL && specs[i].type != OPT_FLAG)
            fprintf(out, " (default: %s)", specs[i].def);
        fputc('\n', out);
    }
    fprintf(out, "  %-32s %s\n  %-32s %s\n", "--help", "print this help",
            "--version", "print the version");
}

int config_usage_error(const struct config_program *prog, const char *why)
{
    fprintf(stderr, "%s: %s (see %s --help)\n", prog->name, why, prog->name);
    return 2;
}

int config_program_parse(const struct config_program *prog, void *base,
                         int argc, char **argv, int *status)
{
    char why[1024];
    int rc =
        config_parse(prog->specs, prog->n, base, argc, argv, why, sizeof(why));

    if (rc == RW_OK)
        return RW_OK;
    if (rc != CONFIG_HELP && rc != CONFIG_VERSION) {
        *status = config_usage_error(prog, why);
        return rc;
    }
    if (rc == CONFIG_HELP)
        config_usage(stdout, prog->name, prog->synopsis, prog->specs, prog->n);
    else
        printf("%s\n", prog->version);
    *status = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: write error: %s\n", prog->name, strerror(errno));
        *status = 1;
    }
    return rc;
}

/* ---- ringwatch's checks beyond one value's type ---- */

int config_log_level(const char *text, int *level, char *why, size_t why_len)
{
    if ((*level = log_level_parse(text)) < 0)
        return config_fail(why, why_len, "log-level", text,
                           "expected debug, info, warn or error");
    return RW_OK;
}

/* "pods, configmaps, ..., coordination.k8s.io/v1/leases" into b. */
static void known_types(struct sbuf *b)
{
    size_t n;
    const struct resource_type *all = resource_type_all(&n);

    for (size_t i = 0; i < n; i++)
        sbuf_addf(b, "%s%s%s%s", i ? ", " : "",
                  *all[i].group ? all[i].api_version : "",
                  *all[i].group ? "/" : "", all[i].resource);
}

int config_unknown_type(char *why, size_t why_len, const char *option,
                        const char *value, const char *form)
{
    struct sbuf known = {0};

    known_types(&known);
    config_fail(why, why_len, option, value,
                "unknown resource type: expected %s%sone of %s",
                form ? form : "", form ? " with RESOURCE " : "", known.data);
    sbuf_fini(&known);
    return RW_EINVAL;
}

static size_t type_slot(const struct config_resources *r,
                        const struct resource_type *rt)
{
    size_t i = 0;

    while (i < r->n && r->types[i] != rt)
        i++;
    return i;
}

static int check_resources(const char *list, struct config_resources *r,
                           char *why, size_t why_len)
{
    char *copy = xstrdup(list), *save = NULL;
    int rc = RW_OK;

    for (char *tok = strtok_r(copy, ",", &save); tok != NULL && rc == RW_OK;
         tok = strtok_r(NULL, ",", &save)) {
        const struct resource_type *rt;

        while (*tok == ' ')
            tok++;
        if (*tok == '\0')
            continue;
        if ((rt = resource_type_find(tok)) == NULL)
            rc = config_unknown_type(why, why_len, "resources", tok,
                                     "RESOURCE, GROUP/VERSION/RESOURCE or "
                                     "RESOURCE.GROUP");
        else if (type_slot(r, rt) < r->n)
            rc = config_fail(why, why_len, "resources", tok,
                             "given twice: expected each type once");
        else
            r->types[r->n++] = rt;
    }
    free(copy);
    if (rc == RW_OK && r->n == 0)
        rc = config_fail(why, why_len, "resources", list,
                         "expected a comma-separated list of resource types");
    return rc;
}

/* "spec.nodeName, status.phase" into b: the fields rt can index. */
static void indexable_fields(const struct resource_type *rt, struct sbuf *b)
{
    for (size_t i = 0; i < resource_type_nfields(rt); i++)
        sbuf_addf(b, "%s%s", i ? ", " : "", rt->fields[i]);
}

/* One --index-fields entry, RESOURCE=FIELD (tok is modified). */
static int check_index_field(char *tok, const struct config_resources *r,
                             const struct resource_type **seen, size_t *nseen,
                             char *why, size_t why_len)
{
    char *entry = xstrdup(tok), *eq = strchr(tok, '=');
    const struct resource_type *rt;
    struct sbuf fields = {0};
    size_t slot;
    int id, rc = RW_OK;

    if (eq == NULL) {
        rc = config_fail(why, why_len, "index-fields", entry,
                         "expected RESOURCE=FIELD");
        goto out;
    }
    *eq = '\0';
    if ((rt = resource_type_find(tok)) == NULL) {
        rc = config_unknown_type(why, why_len, "index-fields", entry,
                                 "RESOURCE=FIELD");
        goto out;
    }
    for (size_t i = 0; i < *nseen; i++)
        if (seen[i] == rt)
            rc = config_fail(why, why_len, "index-fields", entry,
                             "%s given twice: expected one field per type",
                             rt->resource);
    if (rc != RW_OK)
        goto out;
    seen[(*nseen)++] = rt;
    id = resource_type_field_id(rt, eq + 1);
    indexable_fields(rt, &fields);
    if (id < FIELD_EXTRA && fields.data == NULL)
        rc = config_fail(why, why_len, "index-fields", entry,
                         "expected RESOURCE=FIELD with a RESOURCE that has a "
                         "field selector besides metadata.name and "
                         "metadata.namespace (always indexed); %s has none",
                         rt->resource);
    else if (id < FIELD_EXTRA)
        rc = config_fail(why, why_len, "index-fields", entry,
                         "expected RESOURCE=FIELD with FIELD one of %s's "
                         "field selectors besides metadata.name and "
                         "metadata.namespace (always indexed): %s",
                         rt->resource, fields.data);
    if (rc != RW_OK)
        goto out;
    if ((slot = type_slot(r, rt)) < r->n)
        r->indexed_field[slot] = id - FIELD_EXTRA;
out:
    sbuf_fini(&fields);
    free(entry);
    return rc;
}

static int check_index_fields(const char *list, struct config_resources *r,
                              char *why, size_t why_len)
{
    size_t nall, nseen = 0;
    const struct resource_type **seen;
    char *copy = xstrdup(list), *save = NULL;
    int rc = RW_OK;

    resource_type_all(&nall);
    seen = xcalloc(nall, sizeof(*seen));
    for (char *tok = strtok_r(copy, ",", &save); tok != NULL && rc == RW_OK;
         tok = strtok_r(NULL, ",", &save))
        if (*tok != '\0')
            rc = check_index_field(tok, r, seen, &nseen, why, why_len);
    free(seen);
    free(copy);
    return rc;
}

/* --etcd-cafile, --etcd-certfile, --etcd-keyfile: only with https://
 * members, the certificate and the key together, the files readable and
 * valid (upstream_etcd_tls_check). */
static int check_etcd_tls(const struct config *c, char *why, size_t why_len)
{
    const struct {
        const char *option, *file;
    } files[] = {{"etcd-cafile", c->etcd_cafile},
                 {"etcd-certfile", c->etcd_certfile},
                 {"etcd-keyfile", c->etcd_keyfile}};
    struct upstream_members ms;
    bool tls;

    if (upstream_members_parse(c->upstream, &ms, why, why_len) != RW_OK)
        return RW_OK; /* not etcd's: its adapter checked it */
    tls = ms.tls;
    upstream_members_fini(&ms);
    for (size_t i = 0; i < RW_ARRAY_LEN(files); i++)
        if (files[i].file != NULL && !tls)
            return config_fail(why, why_len, files[i].option, files[i].file,
                               "given with cleartext members (--upstream "
                               "%s): expected https:// members",
                               c->upstream);
    if (c->etcd_certfile != NULL && c->etcd_keyfile == NULL)
        return config_fail(why, why_len, "etcd-certfile", c->etcd_certfile,
                           "given without --etcd-keyfile: expected both or "
                           "neither");
    if (c->etcd_keyfile != NULL && c->etcd_certfile == NULL)
        return config_fail(why, why_len, "etcd-keyfile", c->etcd_keyfile,
                           "given without --etcd-certfile: expected both or "
                           "neither");
    if (!tls)
        return RW_OK;
    return upstream_etcd_tls_check(c->etcd_cafile, c->etcd_certfile,
                                   c->etcd_keyfile, why, why_len);
}

/* --redis-revisions: global or per-resource; --redis-password-file: a
 * readable file with a password on its first line; both only with
 * redis:// seeds. */
static int check_redis(const struct config *c, char *why, size_t why_len)
{
    bool redis = strncasecmp(c->upstream, "redis://", 8) == 0;
    char *password;

    if (strcmp(c->redis_revisions, "global") != 0 &&
        strcmp(c->redis_revisions, "per-resource") != 0)
        return config_fail(why, why_len, "redis-revisions", c->redis_revisions,
                           "expected global or per-resource");
    if (c->redis_password_file == NULL)
        return RW_OK;
    if (!redis)
        return config_fail(why, why_len, "redis-password-file",
                           c->redis_password_file,
                           "given with --upstream %s: expected redis:// "
                           "seeds",
                           c->upstream);
    password = config_redis_password(c, why, why_len);
    free(password);
    return password != NULL ? RW_OK : RW_EINVAL;
}

char *config_redis_password(const struct config *c, char *why, size_t why_len)
{
    char line[1024];
    FILE *f;
    size_t len;

    if (c->redis_password_file == NULL)
        return NULL;
    f = fopen(c->redis_password_file, "r");
    if (f == NULL) {
        config_fail(why, why_len, "redis-password-file",
                    c->redis_password_file, "cannot be read: %s",
                    strerror(errno));
        return NULL;
    }
    if (fgets(line, sizeof(line), f) == NULL)
        line[0] = '\0';
    fclose(f);
    len = strcspn(line, "\r\n");
    line[len] = '\0';
    if (len == 0) {
        config_fail(why, why_len, "redis-password-file",
                    c->redis_password_file,
                    "has no password on its first line");
        return NULL;
    }
    return xstrdup(line);
}

int config_tls_min_version(const char *text, int *version, char *why,
                           size_t why_len)
{
    if (strcmp(text, "VersionTLS12") == 0)
        *version = TLS_VERSION_12;
    else if (strcmp(text, "VersionTLS13") == 0)
        *version = TLS_VERSION_13;
    else
        return config_fail(why, why_len, "tls-min-version", text,
                           "expected VersionTLS12 or VersionTLS13");
    return RW_OK;
}

/* The TLS options together, and plaintext only where it is safe. */
static int check_tls(const struct config *c,
                     const struct sockaddr_storage *listen, char *why,
                     size_t why_len)
{
    bool tls = c->tls_cert_file != NULL;
    int version;

    if (tls != (c->tls_key_file != NULL)) {
        snprintf(why, why_len, "--%s given without --%s",
                 tls ? "tls-cert-file" : "tls-private-key-file",
                 tls ? "tls-private-key-file" : "tls-cert-file");
        return RW_EINVAL;
    }
    if (!tls && c->client_ca_file != NULL) {
        snprintf(why, why_len, "--client-ca-file needs TLS: give "
                 "--tls-cert-file and --tls-private-key-file");
        return RW_EINVAL;
    }
    if (config_tls_min_version(c->tls_min_version, &version, why, why_len) !=
        RW_OK)
        return RW_EINVAL;
    if (!tls && !c->insecure_allow_plaintext && !address_is_loopback(listen))
        return config_fail(why, why_len, "listen", c->listen,
                           "plaintext HTTP on a non-loopback address: give "
                           "--tls-cert-file and --tls-private-key-file, or "
                           "--insecure-allow-plaintext");
    return RW_OK;
}

/* --authorization-mode, or its default: RBAC when ringwatch is reachable
 * from elsewhere (a TLS flag, or a --listen address that is not loopback),
 * else AlwaysAllow.  With RBAC, the RBAC types are served (appended to
 * --resources when it does not list them): the authorizer reads them. */
static int check_authorization(const struct config *c,
                               struct config_resources *out, char *why,
                               size_t why_len)
{
    static const char *const rbac[] = {
        "rbac.authorization.k8s.io/v1/roles",
        "rbac.authorization.k8s.io/v1/rolebindings",
        "rbac.authorization.k8s.io/v1/clusterroles",
        "rbac.authorization.k8s.io/v1/clusterrolebindings"};
    bool reachable = c->tls_cert_file != NULL || c->client_ca_file != NULL ||
                     !out->listen_loopback;
    char what[160];

    if (c->authorization_mode == NULL)
        out->authz_modes = reachable ? AUTHZ_RBAC : AUTHZ_ALWAYS_ALLOW;
    else if (authz_mode_parse(c->authorization_mode, &out->authz_modes, what,
                              sizeof(what)) != RW_OK)
        return config_fail(why, why_len, "authorization-mode",
                           c->authorization_mode, "%s", what);
    if (!(out->authz_modes & AUTHZ_RBAC))
        return RW_OK;
    for (size_t i = 0; i < RW_ARRAY_LEN(rbac); i++) {
        const struct resource_type *rt = resource_type_find(rbac[i]);

        if (type_slot(out, rt) == out->n)
            out->types[out->n++] = rt;
    }
    return RW_OK;
}

int config_check(const struct config *c, struct config_resources *out,
                 char *why, size_t why_len)
{
    struct sockaddr_storage ss;
    socklen_t sslen;
    size_t nall;
    char what[160];
    int level, rc;

    resource_type_all(&nall);
    out->types = xcalloc(nall, sizeof(*out->types));
    out->indexed_field = xcalloc(nall, sizeof(*out->indexed_field));
    out->n = 0;
    for (size_t i = 0; i < nall; i++)
        out->indexed_field[i] = -1;
    if (address_parse_listen(c->listen, &ss, &sslen, what, sizeof(what)) !=
        RW_OK)
        rc = config_fail(why, why_len, "listen", c->listen, "%s", what);
    else if (upstream_registry_find(c->upstream, what, sizeof(what)) == NULL)
        rc = config_fail(why, why_len, "upstream", c->upstream, "%s", what);
    else if (check_etcd_tls(c, why, why_len) != RW_OK ||
             check_redis(c, why, why_len) != RW_OK)
        rc = RW_EINVAL;
    else
        rc = config_log_level(c->log_level, &level, why, why_len);
    if (rc == RW_OK && c->log_file != NULL && c->log_file[0] == '\0')
        rc = config_fail(why, why_len, "log-file", c->log_file,
                         "expected a file name");
    if (rc == RW_OK) {
        out->listen_loopback = address_is_loopback(&ss);
        rc = check_tls(c, &ss, why, why_len);
    }
    if (rc == RW_OK)
        rc = check_resources(c->resources, out, why, why_len);
    if (rc == RW_OK)
        rc = check_authorization(c, out, why, why_len);
    if (rc == RW_OK)
        rc = check_index_fields(c->index_fields, out, why, why_len);
    if (rc != RW_OK)
        config_resources_fini(out);
    return rc;
}

void config_resources_fini(struct config_resources *r)
{
    free(r->types);
    free(r->indexed_field);
    memset(r, 0, sizeof(*r));
}
