/*
 * option_doc.h: checks, for the unit tests of both programs, that an option
 * table, its --help text and its man page agree: every option appears in
 * each with its metavar and its default ("Default: X." in the man page,
 * "none" for an unset string, "off" for a flag), and the man page lists no
 * option the table lacks.  Failures are cmocka failures.
 */
#ifndef OPTION_DOC_H
#define OPTION_DOC_H

#include <stddef.h>

#include "src/config.h"

/* man_page: path below $TOP_SRCDIR, e.g. "man/ringwatch.8". */
void option_doc_check_man(const struct option_spec *specs, size_t n,
                          const char *man_page);
/* program and synopsis as given to config_usage. */
void option_doc_check_help(const struct option_spec *specs, size_t n,
                           const char *program, const char *synopsis);

#endif
