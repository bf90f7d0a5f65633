/*
 * option_doc.c: option table, --help and man page agreement (see
 * option_doc.h).
 */
#include "test/option_doc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf;
    long n;

    if (f == NULL)
        fail_msg("cannot open %s", path);
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

void option_doc_check_man(const struct option_spec *specs, size_t n,
                          const char *man_page)
{
    const char *top = getenv("TOP_SRCDIR");
    char *path = xasprintf("%s/%s", top ? top : "..", man_page);
    char *man = slurp(path);

    for (size_t i = 0; i < n; i++) {
        const struct option_spec *o = &specs[i];
        char *item = o->type == OPT_FLAG
                         ? xasprintf(".It Fl \\-%s\n", o->name)
                         : xasprintf(".It Fl \\-%s Ar ", o->name);
        char *def = xasprintf("Default: %s.", default_text(o));
        const char *at = strstr(man, item), *next;

        if (at == NULL) {
            fail_msg("%s lacks option --%s", man_page, o->name);
            return; /* cmocka's _fail is not declared noreturn */
        }
        next = strstr(at + 1, "\n.It ");
        at = strstr(at, def);
        if (at == NULL || (next != NULL && at > next))
            fail_msg("%s gives no \"%s\" for --%s", man_page, def, o->name);
        free(item);
        free(def);
    }
    for (const char *p = man; (p = strstr(p, "\n.It Fl \\-")) != NULL; p++) {
        char name[64] = "";
        bool known = false;

        sscanf(p + strlen("\n.It Fl \\-"), "%63[a-z0-9-]", name);
        for (size_t i = 0; i < n; i++)
            known |= strcmp(specs[i].name, name) == 0;
        known |= strcmp(name, "help") == 0 || strcmp(name, "version") == 0;
        if (!known)
            fail_msg("%s lists --%s, which the table lacks", man_page, name);
    }
    free(man);
    free(path);
}

void option_doc_check_help(const struct option_spec *specs, size_t n,
                           const char *program, const char *synopsis)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    config_usage(f, program, synopsis, specs, n);
    fclose(f);
    for (size_t i = 0; i < n; i++) {
        const struct option_spec *o = &specs[i];
        char *name = o->type == OPT_FLAG
                         ? xasprintf("--%s ", o->name)
                         : xasprintf("--%s %s", o->name, o->metavar);

        if (strstr(text, name) == NULL)
            fail_msg("--help lacks \"%s\"", name);
        if (o->def != NULL && o->type != OPT_FLAG) {
            char *def = xasprintf("(default: %s)", o->def);

            if (strstr(text, def) == NULL)
                fail_msg("--help lacks \"%s\" for --%s", def, o->name);
            free(def);
        }
        free(name);
    }
    free(text);
}
