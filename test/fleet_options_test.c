/*
 * fleet_options_test.c: ringwatch-fleet's option table, its --help and
 * man/ringwatch-fleet.1 agree (every option, its metavar and its
 * "Default: X." with "none" for unset strings and "off" for flags), and
 * the brief's command line parses into the config.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/fleet/options.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long n;

    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    rewind(f);
    buf = xmalloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static const char *default_text(const struct option_spec *o)
{
    if (o->type == OPT_FLAG)
        return "off";
    return o->def ? o->def : "none";
}

static void test_man_page_agrees(void **state)
{
    const char *top = getenv("TOP_SRCDIR");
    char *path = xasprintf("%s/man/ringwatch-fleet.1", top ? top : "..");
    char *man = slurp(path);

    for (size_t i = 0; i < fleet_noptions; i++) {
        const struct option_spec *o = &fleet_options[i];
        char *item = o->type == OPT_FLAG
                         ? xasprintf(".It Fl \\-%s\n", o->name)
                         : xasprintf(".It Fl \\-%s Ar ", o->name);
        char *def = xasprintf("Default: %s.", default_text(o));
        const char *at = strstr(man, item), *next;

        if (at == NULL)
            fail_msg("man page lacks option --%s", o->name);
        next = strstr(at + 1, "\n.It ");
        at = strstr(at, def);
        if (at == NULL || (next != NULL && at > next))
            fail_msg("man page gives no \"%s\" for --%s", def, o->name);
        free(item);
        free(def);
    }
    /* ... and no option the table lacks. */
    for (const char *p = man; (p = strstr(p, "\n.It Fl \\-")) != NULL; p++) {
        char name[64];
        bool known = false;

        sscanf(p + strlen("\n.It Fl \\-"), "%63[a-z0-9-]", name);
        for (size_t i = 0; i < fleet_noptions; i++)
            known |= strcmp(fleet_options[i].name, name) == 0;
        known |= strcmp(name, "help") == 0 || strcmp(name, "version") == 0;
        if (!known)
            fail_msg("man page lists --%s, which the table lacks", name);
    }
    free(man);
    free(path);
}

static void test_help_lists_every_option(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    config_usage(f, "ringwatch-fleet", FLEET_SYNOPSIS, fleet_options,
                 fleet_noptions);
    fclose(f);
    for (size_t i = 0; i < fleet_noptions; i++) {
        const struct option_spec *o = &fleet_options[i];
        char *name = o->type == OPT_FLAG
                         ? xasprintf("--%s ", o->name)
                         : xasprintf("--%s %s", o->name, o->metavar);

        assert_non_null(strstr(text, name));
        if (o->def != NULL && o->type != OPT_FLAG) {
            char *def = xasprintf("(default: %s)", o->def);

            assert_non_null(strstr(text, def));
            free(def);
        }
        free(name);
    }
    free(text);
}

static int parse(struct fleet_config *c, char *why, size_t len, int argc, ...)
{
    char *argv[32] = {"ringwatch-fleet"};
    va_list ap;

    va_start(ap, argc);
    for (int i = 1; i < argc; i++)
        argv[i] = va_arg(ap, char *);
    va_end(ap);
    return config_parse(fleet_options, fleet_noptions, c, argc, argv, "test",
                        why, len);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_man_page_agrees),
        cmocka_unit_test(test_help_lists_every_option),
        cmocka_unit_test(test_command_line),
        cmocka_unit_test(test_defaults_and_errors),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
