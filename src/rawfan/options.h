/*
 * options.h: ringwatch-rawfan's command line, one table of struct
 * option_spec (src/config.h) that parses argv into struct rawfan_config
 * and prints --help (ringwatch-rawfan has no man page: --help and
 * bench/README.md document it).
 */
#ifndef RAWFAN_OPTIONS_H
#define RAWFAN_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "src/config.h"

struct rawfan_config {
    uint64_t connections; /* loopback TCP connections (receivers) */
    uint64_t rate;        /* events per second, each to every connection */
    uint64_t batch;       /* records per write(): watchers per connection */
    double duration;      /* seconds of load */
    uint64_t event_bytes; /* record length wanted; 0: the built-in Pod */
    double setup_timeout; /* seconds to open every connection */
    double drain_timeout; /* seconds for backlogs and readers at the end */
    const char *report;   /* JSON report path; NULL: none */
    const char *log_level;
};

#define RAWFAN_SYNOPSIS                                                        \
    "--connections N --rate PER_SECOND --duration SECONDS [--report FILE]"

extern const struct option_spec options_specs[];
extern const size_t options_nspecs;

#endif
