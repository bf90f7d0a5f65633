/*
 * config_test.c: the option table, --help and man/ringwatch.8 agree,
 * values parse with their units and bounds, and every invalid form of
 * every option (config_parse's and config_check's) is refused with one
 * line naming the option, its value and the wanted form.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "src/authz.h"
#include "src/config.h"
#include "test/option_doc.h"
#include "test/option_invalid.h"

static int parse(struct config *c, char *why, size_t len, int argc, ...)
{
    char *argv[16] = {"ringwatch"};
    va_list ap;

    va_start(ap, argc);
    for (int i = 1; i < argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    return config_parse(config_options, config_noptions, c, argc, argv, why,
                        len);
}

static void test_man_page_agrees(void **state)
{
    option_doc_check_man(config_options, config_noptions, "man/ringwatch.8");
}

static void test_help_lists_every_option(void **state)
{
    option_doc_check_help(config_options, config_noptions, "ringwatch",
                          "[options]");
}

static void test_defaults(void **state)
{
    struct config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 1), RW_OK);
    assert_string_equal(c.listen, "127.0.0.1:8080");
    assert_string_equal(c.upstream, "http://127.0.0.1:2379");
    assert_int_equal(c.ring_capacity, 10000);
    assert_int_equal(c.ring_bytes, 64 << 20);
    assert_true(c.bookmark_interval == 60.0);
    assert_int_equal(c.watch_high_water, 256 << 10);
}

static void test_values_and_units(void **state)
{
    struct config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 6, "--ring-capacity=8",
                           "--ring-bytes", "2Mi", "--bookmark-interval",
                           "500ms"),
                     RW_OK);
    assert_int_equal(c.ring_capacity, 8);
    assert_int_equal(c.ring_bytes, 2 << 20);
    assert_true(c.bookmark_interval == 0.5);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--ring-bytes", "1G"),
                     RW_OK);
    assert_int_equal(c.ring_bytes, 1000000000);
    errno = ERANGE; /* left over from anything before: not an overflow */
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-bytes=1e6"), RW_OK);
    assert_int_equal(c.ring_bytes, 1000000);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--resources=pods"), RW_OK);
    assert_string_equal(c.resources, "pods");
}

/* --anonymous-auth as a pflag bool; the repeatable service-account
 * options append, as the apiserver's StringArray flags. */
static void test_bool_and_list_options(void **state)
{
    struct config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 1), RW_OK);
    assert_true(c.anonymous_auth);
    assert_int_equal(c.service_account_key_files.n, 0);
    assert_null(c.token_auth_file);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--anonymous-auth=false"),
                     RW_OK);
    assert_false(c.anonymous_auth);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--anonymous-auth=0",
                           "--anonymous-auth"),
                     RW_OK);
    assert_true(c.anonymous_auth); /* alone: true, the last wins */
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--anonymous-auth",
                           "False"),
                     RW_OK);
    assert_false(c.anonymous_auth);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--anonymous-auth=no"),
                     RW_EINVAL);
    assert_string_equal(why,
                        "--anonymous-auth: \"no\": expected true or false");
    assert_int_equal(parse(&c, why, sizeof(why), 5,
                           "--service-account-key-file=a.pem",
                           "--service-account-key-file", "b,c.pem",
                           "--api-audiences=x,y"),
                     RW_OK);
    assert_int_equal(c.service_account_key_files.n, 2);
    assert_string_equal(c.service_account_key_files.v[0], "a.pem");
    assert_string_equal(c.service_account_key_files.v[1], "b,c.pem");
    assert_int_equal(c.api_audiences.n, 1);
    assert_string_equal(c.api_audiences.v[0], "x,y");
}

static void test_errors(void **state)
{
    struct config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-capacity=0"),
                     RW_EINVAL);
    assert_non_null(strstr(why, "--ring-capacity"));
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-capacity=-3"),
                     RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-capacity=12x"),
                     RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--ring-bytes=lots"),
                     RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--bookmark-interval=0"),
                     RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--nope"), RW_EINVAL);
    assert_string_equal(why, "unknown option --nope");
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--listen"), RW_EINVAL);
    assert_non_null(strstr(why, "needs a value"));
    assert_int_equal(parse(&c, why, sizeof(why), 2, "stray"), RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--help"), CONFIG_HELP);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "-h"), CONFIG_HELP);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--help=1"), RW_EINVAL);
    assert_string_equal(why, "--help takes no value");
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--version=x"), RW_EINVAL);
    assert_string_equal(why, "--version takes no value");
}

/* --help and --version: distinct results, the first on the line wins and
 * nothing after it is looked at (as GNU getopt programs). */
static void test_help_and_version(void **state)
{
    char why[256];
    struct config c;

    assert_int_equal(parse(&c, why, sizeof(why), 2, "--version"),
                     CONFIG_VERSION);
    assert_int_not_equal(CONFIG_HELP, CONFIG_VERSION);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--help", "--version"),
                     CONFIG_HELP);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--version", "--help"),
                     CONFIG_VERSION);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "-h", "--version"),
                     CONFIG_HELP);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--version", "-h"),
                     CONFIG_VERSION);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--help", "--nope"),
                     CONFIG_HELP);
    assert_int_equal(
        parse(&c, why, sizeof(why), 4, "--listen", "[::1]:1", "--version"),
        CONFIG_VERSION);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--nope", "--help"),
                     RW_EINVAL);
    assert_string_equal(why, "unknown option --nope");
}

static void test_every_option_refuses_invalid_values(void **state)
{
    struct config c;

    option_invalid_check(config_options, config_noptions, &c);
}

/* Values config_parse takes but config_check refuses, and what the line
 * must say. */
static const struct {
    const char *option, *value, *says;
} bad_values[] = {
    {"listen", "nohost", "expected HOST:PORT or [IPV6]:PORT"},
    {"listen", "127.0.0.1", "expected HOST:PORT or [IPV6]:PORT"},
    {"listen", "127.0.0.1:", "expected HOST:PORT or [IPV6]:PORT"},
    {"listen", "127.0.0.1:http", "expected HOST:PORT or [IPV6]:PORT"},
    {"listen", "127.0.0.1:65536", "port out of range"},
    {"listen", "localhost:8080", "with HOST an IPv4 address"},
    {"listen", "[::1:8080", "expected HOST:PORT or [IPV6]:PORT"},
    {"listen", "[nope]:8080", "with IPV6 an IPv6 address"},
    {"listen", ":8080", "expected HOST:PORT or [IPV6]:PORT"},
    {"upstream", "ftp://x",
     "unknown scheme \"ftp\": expected http:// or https:// (etcd)"},
    {"upstream", "http://127.0.0.1:2379,https://127.0.0.2:2379",
     "member 2 \"https://127.0.0.2:2379\" is https but member 1 is http: "
     "expected one scheme for every member"},
    {"upstream", "http://127.0.0.1:2379,,http://127.0.0.2:2379",
     "an empty member: expected URLs separated by commas"},
    {"etcd-certfile", "/dev/null",
     "given with cleartext members (--upstream http://127.0.0.1:2379): "
     "expected https:// members"},
    {"upstream", "http://127.0.0.1", "expected http://HOST:PORT"},
    {"upstream", "http://127.0.0.1:0", "port out of range"},
    {"upstream", "http://127.0.0.1:99999999999", "port out of range"},
    {"upstream", "http://127.0.0.1:2379/v3", "without a path"},
    {"upstream", "http://:2379", "with a HOST"},
    {"upstream", "http://ho st:2379", "with HOST a host name or an IP address"},
    {"upstream", "127.0.0.1:2379",
     "expected a URL SCHEME://HOST:PORT with SCHEME one of http:// or "
     "https:// (etcd)"},
    {"resources", "pods,widgets", "unknown resource type: expected RESOURCE"},
    {"resources", "pods,v1/pods", "given twice"},
    {"resources", "", "expected a comma-separated list of resource types"},
    {"resources", " , ", "expected a comma-separated list of resource types"},
    {"index-fields", "pods=spec.bogus",
     "expected RESOURCE=FIELD with FIELD one of pods's field selectors"},
    {"index-fields", "pods", "expected RESOURCE=FIELD"},
    {"index-fields", "widgets=spec.x",
     "unknown resource type: expected "
     "RESOURCE=FIELD"},
    {"index-fields", "configmaps=data.x", "configmaps has none"},
    {"index-fields", "pods=metadata.name", "always indexed"},
    {"index-fields", "pods=spec.nodeName,pods=status.phase", "given twice"},
    {"index-fields", "deployments=spec.x", "deployments has none"},
    {"log-level", "loud", "expected debug, info, warn or error"},
    {"log-level", "", "expected debug, info, warn or error"},
    {"log-file", "", "expected a file name"},
    {"listen", "0.0.0.0:8080",
     "plaintext HTTP on a non-loopback address: give --tls-cert-file and "
     "--tls-private-key-file, or --insecure-allow-plaintext"},
    {"listen", "[::]:8080", "plaintext HTTP on a non-loopback address"},
    {"tls-min-version", "VersionTLS11",
     "expected VersionTLS12 or VersionTLS13"},
    {"tls-min-version", "1.2", "expected VersionTLS12 or VersionTLS13"},
    {"authorization-mode", "Node,RBAC",
     "expected a comma-separated list of AlwaysAllow and RBAC; Node is not "
     "supported"},
    {"authorization-mode", "", "expected AlwaysAllow, RBAC or both"},
    {"authorization-mode", "RBAC,RBAC", "RBAC given twice"},
};

/* The TLS files go together; plaintext off loopback needs its flag. */
static void test_check_tls(void **state)
{
    static const struct {
        const char *args[3], *says; /* says NULL: accepted */
    } cases[] = {
        {{"--tls-cert-file=a", NULL},
         "--tls-cert-file given without --tls-private-key-file"},
        {{"--tls-private-key-file=a", NULL},
         "--tls-private-key-file given without --tls-cert-file"},
        {{"--client-ca-file=a", NULL}, "--client-ca-file needs TLS"},
        {{"--listen=10.0.0.1:80", "--insecure-allow-plaintext", NULL}, NULL},
        {{"--listen=[::1]:80", NULL}, NULL},
        {{"--listen=127.1.2.3:80", NULL}, NULL},
        {{"--listen=0.0.0.0:80", "--tls-cert-file=a",
          "--tls-private-key-file=b"},
         NULL},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        struct config c;
        struct config_resources res;
        char why[1024] = "";
        int argc = 1, rc;

        while (argc <= 3 && cases[i].args[argc - 1] != NULL)
            argc++;
        assert_int_equal(parse(&c, why, sizeof(why), argc, cases[i].args[0],
                               cases[i].args[1], cases[i].args[2]),
                         RW_OK);
        rc = config_check(&c, &res, why, sizeof(why));
        if (cases[i].says == NULL) {
            if (rc != RW_OK)
                fail_msg("%s refused: %s", cases[i].args[0], why);
            config_resources_fini(&res);
        } else if (rc != RW_EINVAL || strstr(why, cases[i].says) == NULL) {
            fail_msg("%s: \"%s\" does not say \"%s\"", cases[i].args[0],
                     why, cases[i].says);
        }
    }
}

static void test_check_refuses_bad_values(void **state)
{
    for (size_t i = 0; i < RW_ARRAY_LEN(bad_values); i++) {
        struct config c;
        struct config_resources res;
        char arg[128], why[1024], head[160];

        snprintf(arg, sizeof(arg), "--%s=%s", bad_values[i].option,
                 bad_values[i].value);
        assert_int_equal(parse(&c, why, sizeof(why), 2, arg), RW_OK);
        if (config_check(&c, &res, why, sizeof(why)) != RW_EINVAL)
            fail_msg("%s was accepted", arg);
        snprintf(head, sizeof(head), "--%s: \"", bad_values[i].option);
        if (strncmp(why, head, strlen(head)) != 0 ||
            strstr(why, bad_values[i].says) == NULL || strchr(why, '\n'))
            fail_msg("%s: \"%s\" does not say \"%s\"", arg, why,
                     bad_values[i].says);
        assert_null(res.types);
    }
}

/* --etcd is --upstream's alias: one field, one default, one form of
 * value; the last one given wins; errors name --upstream. */
static void test_etcd_alias(void **state)
{
    const struct option_spec *up = NULL, *etcd = NULL;
    struct config c;
    struct config_resources res;
    char why[1024];

    for (size_t i = 0; i < config_noptions; i++) {
        if (strcmp(config_options[i].name, "upstream") == 0)
            up = &config_options[i];
        if (strcmp(config_options[i].name, "etcd") == 0)
            etcd = &config_options[i];
    }
    assert_non_null(up);
    assert_non_null(etcd);
    assert_int_equal(up->offset, etcd->offset);
    assert_int_equal(up->type, etcd->type);
    assert_string_equal(up->def, etcd->def);
    assert_string_equal(up->metavar, etcd->metavar);
    assert_non_null(strstr(etcd->help, "alias of --upstream"));

    assert_int_equal(
        parse(&c, why, sizeof(why), 3, "--etcd", "http://127.0.0.1:1"), RW_OK);
    assert_string_equal(c.upstream, "http://127.0.0.1:1");
    assert_int_equal(parse(&c, why, sizeof(why), 4, "--etcd",
                           "http://127.0.0.1:1", "--upstream=http://[::1]:2"),
                     RW_OK);
    assert_string_equal(c.upstream, "http://[::1]:2");
    assert_int_equal(parse(&c, why, sizeof(why), 4, "--upstream",
                           "http://127.0.0.1:3", "--etcd=ftp://x"),
                     RW_OK);
    assert_string_equal(c.upstream, "ftp://x");
    assert_int_equal(config_check(&c, &res, why, sizeof(why)), RW_EINVAL);
    assert_non_null(strstr(why, "--upstream: \"ftp://x\": unknown scheme"));
}

static void test_check_resolves(void **state)
{
    struct config c;
    struct config_resources res;
    char why[1024];

    assert_int_equal(parse(&c, why, sizeof(why), 1), RW_OK);
    assert_int_equal(config_check(&c, &res, why, sizeof(why)), RW_OK);
    assert_int_equal(res.n, 5);
    assert_string_equal(res.types[0]->resource, "pods");
    assert_int_equal(res.indexed_field[0], 0); /* spec.nodeName */
    for (size_t i = 1; i < res.n; i++)
        assert_int_equal(res.indexed_field[i], -1);
    config_resources_fini(&res);

    /* an entry for a type not served is checked, then ignored */
    assert_int_equal(parse(&c, why, sizeof(why), 7, "--resources",
                           "deployments.apps,pods", "--listen", "[::1]:0",
                           "--index-fields",
                           "pods=status.phase,events=involvedObject.uid"),
                     RW_OK);
    assert_int_equal(config_check(&c, &res, why, sizeof(why)), RW_OK);
    assert_int_equal(res.n, 2);
    assert_int_equal(res.indexed_field[0], -1);
    assert_int_equal(res.indexed_field[1],
                     resource_type_field_id(res.types[1], "status.phase") -
                         FIELD_EXTRA);
    config_resources_fini(&res);
}

/* --authorization-mode: RBAC by default off loopback; with RBAC the RBAC
 * types are served, once each, after --resources'. */
static void test_authorization_mode(void **state)
{
    static const struct {
        const char *listen, *mode;
        unsigned want;
        size_t n;
    } cases[] = {
        {"127.0.0.1:0", NULL, AUTHZ_ALWAYS_ALLOW, 1},
        {"127.9.9.9:0", NULL, AUTHZ_ALWAYS_ALLOW, 1},
        {"[::1]:0", NULL, AUTHZ_ALWAYS_ALLOW, 1},
        {"[::ffff:127.0.0.1]:0", NULL, AUTHZ_ALWAYS_ALLOW, 1},
        {"0.0.0.0:0", NULL, AUTHZ_RBAC, 5},
        {"10.1.2.3:0", NULL, AUTHZ_RBAC, 5},
        {"[::]:0", NULL, AUTHZ_RBAC, 5},
        {"0.0.0.0:0", "AlwaysAllow", AUTHZ_ALWAYS_ALLOW, 1},
        {"127.0.0.1:0", "RBAC", AUTHZ_RBAC, 5},
        {"127.0.0.1:0", "AlwaysAllow,RBAC", AUTHZ_ALWAYS_ALLOW | AUTHZ_RBAC,
         5},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        struct config c;
        struct config_resources res;
        char why[1024], mode[64];

        snprintf(mode, sizeof(mode), "--authorization-mode=%s",
                 cases[i].mode ? cases[i].mode : "");
        /* off loopback, plaintext needs --insecure-allow-plaintext */
        assert_int_equal(parse(&c, why, sizeof(why), cases[i].mode ? 7 : 6,
                               "--insecure-allow-plaintext", "--resources",
                               "pods", "--listen", cases[i].listen, mode),
                         RW_OK);
        assert_int_equal(config_check(&c, &res, why, sizeof(why)), RW_OK);
        assert_int_equal(res.authz_modes, cases[i].want);
        assert_int_equal(res.listen_loopback,
                         strstr(cases[i].listen, "127.") != NULL ||
                             strcmp(cases[i].listen, "[::1]:0") == 0);
        assert_int_equal(res.n, cases[i].n);
        if (res.n == 5)
            assert_string_equal(res.types[4]->resource, "clusterrolebindings");
        config_resources_fini(&res);
    }
    /* listed already: served once */
    {
        struct config c;
        struct config_resources res;
        char why[1024];

        assert_int_equal(parse(&c, why, sizeof(why), 6,
                               "--insecure-allow-plaintext", "--resources",
                               "clusterroles.rbac.authorization.k8s.io,pods",
                               "--listen", "0.0.0.0:0"),
                         RW_OK);
        assert_int_equal(config_check(&c, &res, why, sizeof(why)), RW_OK);
        assert_int_equal(res.n, 5);
        assert_string_equal(res.types[0]->resource, "clusterroles");
        config_resources_fini(&res);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_man_page_agrees),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values_and_units),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bool_and_list_options),
        cmocka_unit_test(test_every_option_refuses_invalid_values),
        cmocka_unit_test(test_check_refuses_bad_values),
        cmocka_unit_test(test_check_tls),
        cmocka_unit_test(test_etcd_alias),
        cmocka_unit_test(test_check_resolves),
        cmocka_unit_test(test_authorization_mode),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
