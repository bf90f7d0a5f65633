/*
 * config.h: command-line options from one table.
 *
 * Each program (ringwatch, ringwatch-fleet) declares a table of struct
 * option_spec: name, type, bounds, default, metavar and help.  The same
 * table parses argv into the program's config struct (by offset), prints
 * --help, and is what the man page's option list must agree with (a test
 * checks both).  Parsing is apart from runtime code: the parsed struct is
 * immutable once config_parse returns.
 */
#ifndef CONFIG_H
#define CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum option_type {
    OPT_STRING,  /* const char *: any text (NULL default allowed) */
    OPT_UINT,    /* uint64_t in [min, max] */
    OPT_BYTES,   /* uint64_t bytes; accepts K, M, G, Ki, Mi, Gi suffixes */
    OPT_SECONDS, /* double seconds in [min, max]; accepts s, ms, m suffixes */
    OPT_FLAG,    /* bool; takes no value */
    OPT_BOOL,    /* bool: --name=true|false, as a Go (pflag) bool flag:
                    also 1/0, t/f, TRUE/FALSE, True/False, and --name alone
                    is true */
    OPT_LIST,    /* struct config_list: each occurrence appends its value
                    (a Go StringArray flag); the default is empty */
};

/* An OPT_LIST option's values, pointing into argv, in order. */
#define CONFIG_LIST_MAX 16
struct config_list {
    const char *v[CONFIG_LIST_MAX];
    size_t n;
};

struct option_spec {
    const char *name;     /* long option without "--" */
    enum option_type type;
    size_t offset;        /* offsetof(config struct, field) */
    double min, max;      /* bounds for OPT_UINT, OPT_BYTES, OPT_SECONDS */
    const char *def;      /* default as text; NULL: none (strings only) */
    const char *metavar;  /* e.g. "EVENTS" */
    const char *help;     /* one sentence */
};

/*
 * What config_parse found instead of a configuration: a request for the
 * usage or the version.  Positive, so distinct from RW_OK and from every
 * (negative) enum rw_err.
 */
enum config_request {
    CONFIG_HELP = 1,    /* --help or -h */
    CONFIG_VERSION = 2, /* --version */
};

/*
 * Applies the defaults, then argv[1..argc) to the struct at base, in
 * order.  "--name value" and "--name=value" are accepted.  Returns RW_OK;
 * CONFIG_HELP or CONFIG_VERSION at the first --help (-h) or --version,
 * whichever comes first (as GNU getopt programs: the rest of the line is
 * not looked at); RW_EINVAL with a message in why ("--ring-capacity: 0 is
 * below the minimum 1", "unknown option --foo", "--help takes no value",
 * ...) at the first bad argument.  Prints nothing.  Strings point into
 * argv or the table.
 */
int config_parse(const struct option_spec *specs, size_t n, void *base,
                 int argc, char **argv, char *why, size_t why_len);

/* A program's command line: what config_program_parse needs. */
struct config_program {
    const char *name;     /* "ringwatch" */
    const char *synopsis; /* after the name in the usage line */
    const char *version;  /* the --version line: "ringwatch 0.1.0" */
    const struct option_spec *specs;
    size_t n;
};

/*
 * The convention ringwatch, ringwatch-fleet and ringwatch-rawfan share:
 * config_parse of argv into base, then, at --help (-h) or --version,
 * whichever comes first, the usage (config_usage) or the version line on
 * stdout and exit status 0 (1 with a message on stderr when stdout cannot
 * be written, as GNU's close_stdout); at a bad argument, the one-line
 * message on stderr (config_usage_error) and exit status 2.  Returns RW_OK
 * when the program is to run (*status untouched); else CONFIG_HELP,
 * CONFIG_VERSION or RW_EINVAL, already answered, and the process's exit
 * status in *status.
 */
int config_program_parse(const struct config_program *prog, void *base,
                         int argc, char **argv, int *status);

/* Prints "NAME: WHY (see NAME --help)" to stderr; returns 2, the exit
 * status of a configuration error. */
int config_usage_error(const struct config_program *prog, const char *why);

/* Prints usage and one line per option (metavar, default, help). */
void config_usage(FILE *out, const char *program, const char *synopsis,
                  const struct option_spec *specs, size_t n);

/* Parses one value of spec's type into *dst (uint64_t, double, bool or
 * const char *); RW_EINVAL with why on a malformed value (saying what form
 * is wanted, with the bounds) or an out-of-range one ("out of range:
 * expected 1 to 100000000"). */
int config_parse_value(const struct option_spec *spec, const char *text,
                       void *dst, char *why, size_t why_len);

/*
 * Writes the one-line message of an option whose value is wrong, in the
 * form every check uses: --OPTION: "VALUE": then fmt, which says what form
 * is wanted (e.g. "expected HOST:PORT or [IPV6]:PORT").  Returns
 * RW_EINVAL.
 */
int config_fail(char *why, size_t why_len, const char *option,
                const char *value, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* config_fail for a resource type resource_type_find does not know: says
 * form is wanted (e.g. "RESOURCE=FIELD"; NULL: just a type) and lists the
 * known types. */
int config_unknown_type(char *why, size_t why_len, const char *option,
                        const char *value, const char *form);

/* Parses a --log-level value (debug, info, warn, error) into *level
 * (an enum log_level); RW_EINVAL with why otherwise. */
int config_log_level(const char *text, int *level, char *why, size_t why_len);

/* ---- ringwatch's own options ---- */

struct config {
    const char *listen;         /* address:port to serve */
    const char *upstream;       /* --upstream (alias --etcd): the store's
                                   URL, src/upstream_registry.h */
    const char *etcd_cafile;    /* --etcd-cafile: PEM CA bundle; NULL */
    const char *etcd_certfile;  /* --etcd-certfile: PEM client cert; NULL */
    const char *etcd_keyfile;   /* --etcd-keyfile: its PEM key; NULL */
    const char *redis_password_file; /* NULL: no AUTH */
    const char *redis_revisions;     /* "global" or "per-resource" */
    uint64_t redis_history;          /* entries kept per Redis log */
    const char *resources;      /* comma-separated resource types */
    uint64_t ring_capacity;     /* events per resource ring */
    uint64_t warm_start_window; /* revisions below the store's current one
                                   a first list reads at (0: none) */
    uint64_t ring_bytes;        /* bytes per resource ring */
    double bookmark_interval;   /* seconds */
    double min_request_timeout; /* seconds; watches end in [T, 2T) */
    uint64_t list_page_size;    /* keys per upstream list page */
    uint64_t watch_high_water;  /* bytes queued per watch stream */
    const char *index_fields;   /* RESOURCE=FIELD,... */
    uint64_t max_connections;   /* 0: sized from RLIMIT_NOFILE (main.c) */
    uint64_t h2_max_streams;    /* concurrent streams per connection */
    uint64_t max_requests_inflight; /* fairness seats (fairness.h); 0: off */
    uint64_t sndbuf;            /* SO_SNDBUF bytes, 0 = kernel default */
    double header_timeout;      /* seconds to send a request's headers */
    double idle_timeout;        /* seconds a connection may sit idle */
    double shutdown_grace;      /* seconds to drain at shutdown */
    const char *log_level;
    const char *log_file;       /* NULL: standard error */
    /* TLS on --listen's port (src/tls.h), kube-apiserver's flags */
    const char *tls_cert_file;  /* NULL: no TLS */
    const char *tls_key_file;   /* --tls-private-key-file */
    const char *client_ca_file; /* NULL: no client certificates */
    const char *tls_min_version; /* VersionTLS12 or VersionTLS13 */
    bool insecure_allow_plaintext; /* plaintext off loopback, and next to
                                      TLS on any address */
    /* authentication (src/authn.h) */
    bool anonymous_auth;
    const char *token_auth_file;
    struct config_list service_account_key_files;
    struct config_list service_account_issuers;
    struct config_list api_audiences; /* each comma-separated */
    /* authorization (src/authz.h) */
    const char *authorization_mode; /* NULL: by reachability */
};

/* The password in --redis-password-file (its first line, without the line
 * end; a new string), or NULL: none given (why untouched), or the file
 * cannot be read or its first line is empty (why set, naming the
 * option). */
char *config_redis_password(const struct config *c, char *why,
                            size_t why_len);

extern const struct option_spec config_options[];
extern const size_t config_noptions;

/* --upstream's default (and its alias --etcd's). */
#define CONFIG_UPSTREAM_DEFAULT "http://127.0.0.1:2379"

/* --max-connections at most. */
#define CONFIG_MAX_CONNECTIONS 10000000

struct resource_type;

/* --resources and --index-fields resolved. */
struct config_resources {
    const struct resource_type **types; /* each once, in --resources order */
    int *indexed_field; /* per type: index into its fields[] that
                           --index-fields names, or -1 */
    size_t n;
    unsigned authz_modes; /* --authorization-mode resolved (src/authz.h
                             enum authz_mode bits) */
    bool listen_loopback; /* --listen is a loopback address */
};

/*
 * Checks what config_parse cannot about ringwatch's options, so that every
 * configuration error is found before anything starts: --listen and
 * --upstream (src/upstream_registry.h: a scheme known, a URL its
 * adapter takes), --resources (each a type resource_type_find knows,
 * once), --index-fields (RESOURCE=FIELD, FIELD a field selector of that
 * type, each type once; entries for types not served are checked too),
 * --log-level and --log-file (not empty), the TLS files given together
 * (--tls-cert-file with --tls-private-key-file; --client-ca-file only with
 * them), --tls-min-version, no plaintext on a non-loopback --listen
 * address without --insecure-allow-plaintext, and --authorization-mode
 * (unset: RBAC when a TLS flag is given or --listen is not a loopback
 * address, AlwaysAllow otherwise; with RBAC the four
 * rbac.authorization.k8s.io types are served too, after --resources').
 * Fills *out (free with
 * config_resources_fini).  Returns RW_OK, or RW_EINVAL with the first
 * problem in why as config_fail words it; *out is then empty.
 */
int config_check(const struct config *c, struct config_resources *out,
                 char *why, size_t why_len);

/* --tls-min-version as tls.h's enum tls_version; RW_EINVAL with why on
 * anything but VersionTLS12 and VersionTLS13 (Go's crypto/tls names, as
 * kube-apiserver takes them). */
int config_tls_min_version(const char *text, int *version, char *why,
                           size_t why_len);
void config_resources_fini(struct config_resources *r);

#endif
