/*
 * config.c: the option-table engine and ringwatch's table (see config.h).
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"

#define OFF(field) offsetof(struct config, field)

const struct option_spec ringwatch_options[] = {
    {"listen", OPT_STRING, OFF(listen), 0, 0, "127.0.0.1:8080", "ADDRESS",
     "address and port to serve HTTP/1.1 and HTTP/2 (h2c) on"},
    {"etcd", OPT_STRING, OFF(etcd), 0, 0, "http://127.0.0.1:2379", "URL",
     "etcd client URL (gRPC over cleartext HTTP/2)"},
    {"resources", OPT_STRING, OFF(resources), 0, 0,
     "pods,configmaps,nodes,namespaces,apps/v1/deployments", "LIST",
     "comma-separated resource types to cache and serve"},
    {"ring-capacity", OPT_UINT, OFF(ring_capacity), 1, 100000000, "10000",
     "EVENTS", "events kept per resource ring"},
    {"ring-bytes", OPT_BYTES, OFF(ring_bytes), 1024, 1e12, "64Mi", "BYTES",
     "bytes of object JSON kept per resource ring"},
    {"bookmark-interval", OPT_SECONDS, OFF(bookmark_interval), 0.1, 86400, "60",
     "SECONDS", "seconds between BOOKMARK events to watchers that allow them"},
    {"min-request-timeout", OPT_SECONDS, OFF(min_request_timeout), 1, 86400,
     "1800", "SECONDS",
     "a watch without timeoutSeconds ends after a random time in [T, 2T)"},
    {"list-page-size", OPT_UINT, OFF(list_page_size), 1, 100000, "500", "KEYS",
     "keys per etcd Range page when listing"},
    {"index-fields", OPT_STRING, OFF(index_fields), 0, 0, "pods=spec.nodeName",
     "LIST",
     "RESOURCE=FIELD,...: per resource, the field selector field the "
     "dispatcher indexes watchers by, besides name and namespace (\"\": "
     "none)"},
    {"watch-high-water", OPT_BYTES, OFF(watch_high_water), 32768, 1e9, "256Ki",
     "BYTES",
     "bytes queued per watch stream before it stops taking events (at "
     "least 32Ki: twice the 16 KiB mark at which it resumes)"},
    {"max-connections", OPT_UINT, OFF(max_connections), 1, 10000000, "100000",
     "N", "client connections served at once"},
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
    {"log-level", OPT_STRING, OFF(log_level), 0, 0, "info", "LEVEL",
     "debug, info, warn or error"},
};
const size_t ringwatch_noptions = RW_ARRAY_LEN(ringwatch_options);

/* ---- values ---- */

static int fail(char *why, size_t why_len, const struct option_spec *spec,
                const char *text, const char *what)
{
    snprintf(why, why_len, "--%s: \"%s\": %s", spec->name, text, what);
    return RW_EINVAL;
}

/* Parses a number with an optional suffix from units[]; *mult = scale. */
static int parse_scaled(const char *text, const char *const units[][2],
                        double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(text, &end);
    if (end == text || errno != 0 || !isfinite(v) || v < 0)
        return RW_EINVAL;
    if (*end == '\0') {
        *out = v;
        return RW_OK;
    }
    for (size_t i = 0; units[i][0] != NULL; i++) {
        if (strcmp(end, units[i][0]) == 0) {
            *out = v * strtod(units[i][1], NULL);
            return RW_OK;
        }
    }
    return RW_EINVAL;
}

static const char *const byte_units[][2] = {
    {"K", "1e3"},       {"M", "1e6"},          {"G", "1e9"}, {"Ki", "1024"},
    {"Mi", "1048576"},  {"Gi", "1073741824"},  {"k", "1e3"}, {"KiB", "1024"},
    {"MiB", "1048576"}, {"GiB", "1073741824"}, {NULL, NULL},
};
static const char *const second_units[][2] = {
    {"s", "1"}, {"ms", "1e-3"}, {"m", "60"}, {"h", "3600"}, {NULL, NULL},
};

int config_parse_value(const struct option_spec *spec, const char *text,
                       void *dst, char *why, size_t why_len)
{
    double v;
    char *end;

    switch (spec->type) {
    case OPT_STRING:
        *(const char **)dst = text;
        return RW_OK;
    case OPT_FLAG:
        *(bool *)dst = true;
        return RW_OK;
    case OPT_UINT:
        errno = 0;
        v = (double)strtoull(text, &end, 10);
        if (*text == '\0' || *end != '\0' || errno != 0 || *text == '-')
            return fail(why, why_len, spec, text, "not a whole number");
        break;
    case OPT_BYTES:
        if (parse_scaled(text, byte_units, &v) != RW_OK || v != floor(v))
            return fail(why, why_len, spec, text,
                        "not a byte count (e.g. 65536, 64Ki, 64Mi)");
        break;
    case OPT_SECONDS:
        if (parse_scaled(text, second_units, &v) != RW_OK)
            return fail(why, why_len, spec, text,
                        "not a duration (e.g. 60, 1.5, 500ms, 2m)");
        break;
    default:
        rw_assert(!"unknown option type");
    }
    if (v < spec->min || v > spec->max) {
        snprintf(why, why_len, "--%s: %s is outside [%g, %g]", spec->name, text,
                 spec->min, spec->max);
        return RW_EINVAL;
    }
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
                 int argc, char **argv, const char *version, char *why,
                 size_t why_len)
{
    if (apply_defaults(specs, n, base, why, why_len) != RW_OK)
        return RW_EINVAL;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *name, *eq, *value;
        const struct option_spec *spec;
        size_t len;

        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return 1;
        if (strcmp(arg, "--version") == 0) {
            printf("%s\n", version);
            return 1;
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
