/*
 * fleet_options_test.c: ringwatch-fleet's option table, its --help and
 * man/ringwatch-fleet.1 agree (every option, its metavar and its
 * "Default: X." with "none" for unset strings and "off" for flags), and
 * the brief's command line parses into the config; --redis's options
 * and their check (redis_store_config_init).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/fleet/options.h"
#include "src/fleet/redis_store.h"
#include "test/option_doc.h"
#include "test/option_invalid.h"

static void test_man_page_agrees(void **state)
{
    option_doc_check_man(options_specs, options_nspecs,
                         "man/ringwatch-fleet.1");
}

static void test_help_lists_every_option(void **state)
{
    option_doc_check_help(options_specs, options_nspecs, "ringwatch-fleet",
                          FLEET_SYNOPSIS);
}

static void test_every_option_refuses_invalid_values(void **state)
{
    struct fleet_config c;

    option_invalid_check(options_specs, options_nspecs, &c);
}

static int parse(struct fleet_config *c, char *why, size_t len, int argc, ...)
{
    char *argv[32] = {"ringwatch-fleet"};
    va_list ap;

    va_start(ap, argc);
    for (int i = 1; i < argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    return config_parse(options_specs, options_nspecs, c, argc, argv, why,
                        len);
}

static void test_command_line(void **state)
{
    struct fleet_config c;
    char why[256];

    assert_int_equal(
        parse(&c, why, sizeof(why), 24, "--server", "http://127.0.0.1:8080",
              "--resource", "pods", "--watchers", "1000", "--connections", "10",
              "--http1", "--label-selector", "app=web", "--field-selector",
              "spec.nodeName=n1", "--duration", "20", "--etcd",
              "http://127.0.0.1:2379", "--write-rate", "100", "--server-pid",
              "4242", "--report", "out.json"),
        RW_OK);
    assert_string_equal(c.server, "http://127.0.0.1:8080");
    assert_string_equal(c.resource, "pods");
    assert_int_equal(c.watchers, 1000);
    assert_int_equal(c.connections, 10);
    assert_true(c.http1);
    assert_string_equal(c.label_selector, "app=web");
    assert_string_equal(c.field_selector, "spec.nodeName=n1");
    assert_true(c.duration == 20.0);
    assert_string_equal(c.etcd, "http://127.0.0.1:2379");
    assert_int_equal(c.write_rate, 100);
    assert_int_equal(c.server_pid, 4242);
    assert_string_equal(c.report, "out.json");
    assert_null(c.cacert);
    assert_null(c.token);

    assert_int_equal(
        parse(&c, why, sizeof(why), 19, "--server", "https://127.0.0.1:8443",
              "--cacert", "ca.crt", "--cert", "me.crt", "--key", "me.key",
              "--token", "s3cret", "--etcd", "https://127.0.0.1:2379",
              "--etcd-cacert", "etcd-ca.crt", "--etcd-cert", "etcd.crt",
              "--etcd-key", "etcd.key"),
        RW_OK);
    assert_string_equal(c.server, "https://127.0.0.1:8443");
    assert_string_equal(c.cacert, "ca.crt");
    assert_string_equal(c.cert, "me.crt");
    assert_string_equal(c.key, "me.key");
    assert_string_equal(c.token, "s3cret");
    assert_string_equal(c.etcd_cacert, "etcd-ca.crt");
    assert_string_equal(c.etcd_cert, "etcd.crt");
    assert_string_equal(c.etcd_key, "etcd.key");
}

static void test_defaults_and_errors(void **state)
{
    struct fleet_config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 1), RW_OK);
    assert_int_equal(c.watchers, 100);
    assert_int_equal(c.connections, 0);
    assert_false(c.http1);
    assert_null(c.label_selector);
    assert_null(c.etcd);
    assert_null(c.report);
    assert_int_equal(c.write_rate, 0);
    assert_true(c.drain_timeout == 10.0);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--watchers=0"), RW_EINVAL);
    assert_non_null(strstr(why, "--watchers"));
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--duration=0"), RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--http1=yes"), RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--write-rate"), RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 2, "--bogus"), RW_EINVAL);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--duration", "500ms"),
                     RW_OK);
    assert_true(c.duration == 0.5);
}

static void test_redis_options(void **state)
{
    struct fleet_config c;
    char why[256];

    assert_int_equal(parse(&c, why, sizeof(why), 1), RW_OK);
    assert_null(c.redis);
    assert_null(c.redis_password_file);
    assert_string_equal(c.redis_revisions, "global");
    assert_int_equal(c.redis_history, 10000);
    assert_int_equal(parse(&c, why, sizeof(why), 9, "--redis",
                           "redis://127.0.0.1:6379", "--redis-password-file",
                           "pw", "--redis-revisions", "per-resource",
                           "--redis-history", "500"),
                     RW_OK);
    assert_string_equal(c.redis, "redis://127.0.0.1:6379");
    assert_string_equal(c.redis_password_file, "pw");
    assert_string_equal(c.redis_revisions, "per-resource");
    assert_int_equal(c.redis_history, 500);
    assert_int_equal(parse(&c, why, sizeof(why), 3, "--redis-history", "0"),
                     RW_EINVAL);
    assert_non_null(strstr(why, "--redis-history"));
}

/* redis_store_config_init: the URL, the mode and the password file. */
static void test_redis_store_config(void **state)
{
    struct redis_store_config rc;
    char why[256], path[] = "/tmp/rw-fleet-pw-XXXXXX";
    int fd;

    assert_int_equal(redis_store_config_init(&rc, "redis://127.0.0.1:6380",
                                             NULL, "global", 7, why,
                                             sizeof(why)),
                     RW_OK);
    assert_string_equal(rc.host, "127.0.0.1");
    assert_string_equal(rc.port, "6380");
    assert_false(rc.per_resource);
    assert_null(rc.password);
    assert_int_equal(rc.history, 7);
    redis_store_config_fini(&rc);
    assert_int_equal(redis_store_config_init(&rc, "http://127.0.0.1:6380",
                                             NULL, "global", 7, why,
                                             sizeof(why)),
                     RW_EINVAL);
    assert_non_null(strstr(why, "redis://HOST:PORT"));
    assert_int_equal(redis_store_config_init(&rc, "redis://127.0.0.1", NULL,
                                             "global", 7, why, sizeof(why)),
                     RW_EINVAL);
    assert_int_equal(redis_store_config_init(&rc, "redis://127.0.0.1:6380",
                                             NULL, "both", 7, why,
                                             sizeof(why)),
                     RW_EINVAL);
    assert_non_null(strstr(why, "--redis-revisions"));
    assert_int_equal(redis_store_config_init(&rc, "redis://127.0.0.1:6380",
                                             "/nonexistent/pw", "global", 7,
                                             why, sizeof(why)),
                     RW_EINVAL);
    assert_non_null(strstr(why, "--redis-password-file"));
    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "s3cret\nignored\n", 15), 15);
    close(fd);
    assert_int_equal(redis_store_config_init(&rc, "redis://[::1]:6380", path,
                                             "per-resource", 7, why,
                                             sizeof(why)),
                     RW_OK);
    unlink(path);
    assert_string_equal(rc.host, "::1");
    assert_true(rc.per_resource);
    assert_string_equal(rc.password, "s3cret");
    redis_store_config_fini(&rc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_man_page_agrees),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_every_option_refuses_invalid_values),
        cmocka_unit_test(test_command_line),
        cmocka_unit_test(test_defaults_and_errors),
        cmocka_unit_test(test_redis_options),
        cmocka_unit_test(test_redis_store_config),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
