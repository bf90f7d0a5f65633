/*
 * option_invalid.c: every option's invalid forms (see option_invalid.h).
 */
#include "test/option_invalid.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"

struct invalid_form {
    const char *value; /* NULL: derived from the bounds (see bound_text) */
    int bound;         /* with value NULL: 1 max * 10 + 1, -1 min - 1 */
    const char *says;  /* what the message must contain */
};

static const struct invalid_form uint_forms[] = {
    {"many", 0, "expected a whole number from "},
    {"1.5", 0, "expected a whole number from "},
    {"12x", 0, "expected a whole number from "},
    {"", 0, "expected a whole number from "},
    {"-1", 0, "out of range: expected "},
    {"99999999999999999999999", 0, "out of range: expected "},
    {NULL, 1, "out of range: expected "},
    {NULL, -1, "out of range: expected "},
};
static const struct invalid_form bytes_forms[] = {
    {"lots", 0, "expected a whole byte count such as "},
    {"64Q", 0, "expected a whole byte count such as "},
    {"0x10", 0, "expected a whole byte count such as "},
    {"-1", 0, "out of range: expected "},
    {"1e400", 0, "out of range: expected "},
    {NULL, 1, "out of range: expected "},
    {NULL, -1, "out of range: expected "},
};
static const struct invalid_form seconds_forms[] = {
    {"soon", 0, "expected a duration such as "},
    {"nan", 0, "expected a duration such as "},
    {"inf", 0, "expected a duration such as "},
    {"5d", 0, "expected a duration such as "},
    {"-1", 0, "out of range: expected "},
    {"1e400", 0, "out of range: expected "},
    {NULL, 1, "out of range: expected "},
    {NULL, -1, "out of range: expected "},
};

static int parse(const struct option_spec *specs, size_t n, void *base,
                 char *a1, char *a2, char *why, size_t why_len)
{
    char *argv[] = {"program", a1, a2, NULL};

    return config_parse(specs, n, base, a2 ? 3 : 2, argv, why, why_len);
}

/* The bounds as config_parse_value prints them. */
static void range_text(const struct option_spec *o, char *out, size_t len)
{
    if (o->type == OPT_SECONDS)
        snprintf(out, len, "%g to %g", o->min, o->max);
    else
        snprintf(out, len, "%.0f to %.0f", o->min, o->max);
}

static void check_form(const struct option_spec *specs, size_t n, void *base,
                       const struct option_spec *o,
                       const struct invalid_form *f)
{
    char value[64], flag[96], why[1024], want[256], range[96];

    if (f->value != NULL)
        snprintf(value, sizeof(value), "%s", f->value);
    else if (f->bound > 0)
        snprintf(value, sizeof(value), "%.0f", o->max * 10 + 1);
    else if (o->min >= 1)
        snprintf(value, sizeof(value), "%.0f", o->min - 1);
    else
        return; /* no whole number below the minimum but negatives */
    snprintf(flag, sizeof(flag), "--%s", o->name);
    if (parse(specs, n, base, flag, value, why, sizeof(why)) != RW_EINVAL)
        fail_msg("--%s %s was accepted", o->name, value);
    snprintf(want, sizeof(want), "--%s: \"%s\": ", o->name, value);
    if (strncmp(why, want, strlen(want)) != 0 || strstr(why, f->says) == NULL)
        fail_msg("--%s %s: \"%s\" is not \"%s...%s...\"", o->name, value, why,
                 want, f->says);
    range_text(o, range, sizeof(range));
    if (strstr(why, range) == NULL)
        fail_msg("--%s %s: \"%s\" does not give the bounds %s", o->name, value,
                 why, range);
    if (strchr(why, '\n') != NULL)
        fail_msg("--%s %s: more than one line: \"%s\"", o->name, value, why);
}

void option_invalid_check(const struct option_spec *specs, size_t n, void *base)
{
    char flag[96], why[1024];

    for (size_t i = 0; i < n; i++) {
        const struct option_spec *o = &specs[i];
        const struct invalid_form *forms = NULL;
        size_t nforms = 0;

        switch (o->type) {
        case OPT_UINT:
            forms = uint_forms, nforms = RW_ARRAY_LEN(uint_forms);
            break;
        case OPT_BYTES:
            forms = bytes_forms, nforms = RW_ARRAY_LEN(bytes_forms);
            break;
        case OPT_SECONDS:
            forms = seconds_forms, nforms = RW_ARRAY_LEN(seconds_forms);
            break;
        case OPT_FLAG:
        case OPT_BOOL:
            snprintf(flag, sizeof(flag), "--%s=yes", o->name);
            assert_int_equal(
                parse(specs, n, base, flag, NULL, why, sizeof(why)), RW_EINVAL);
            assert_non_null(strstr(why, o->type == OPT_FLAG
                                            ? "takes no value"
                                            : "expected true or false"));
            continue;
        case OPT_STRING:
        case OPT_LIST:
            break;
        }
        for (size_t j = 0; j < nforms; j++)
            check_form(specs, n, base, o, &forms[j]);
        snprintf(flag, sizeof(flag), "--%s", o->name);
        assert_int_equal(parse(specs, n, base, flag, NULL, why, sizeof(why)),
                         RW_EINVAL);
        if (strstr(why, "needs a value") == NULL ||
            strstr(why, o->metavar) == NULL)
            fail_msg("--%s without a value: \"%s\"", o->name, why);
    }
}
