/*
 * option_invalid.h: checks, for the unit tests of every program with an
 * option table, that each option refuses each invalid form of its type
 * (malformed, negative, beyond its bounds, beyond any integer; a flag with
 * a value; a missing value) with RW_EINVAL and one line that names the
 * option and the value and says what is wanted: "out of range: expected
 * MIN to MAX" for a number beyond the bounds, the wanted form for a
 * malformed one.  Failures are cmocka failures.
 */
#ifndef OPTION_INVALID_H
#define OPTION_INVALID_H

#include <stddef.h>

#include "src/config.h"

/* base: a config struct of the table's program (config_parse writes it). */
void option_invalid_check(const struct option_spec *specs, size_t n,
                          void *base);

#endif
