/*
 * options.c: ringwatch-rawfan's option table (see options.h).
 */
#include "src/rawfan/options.h"

#include "cache/rw.h"

#define OFF(field) offsetof(struct rawfan_config, field)

const struct option_spec options_specs[] = {
    {"connections", OPT_UINT, OFF(connections), 1, 100000, "1000", "N",
     "loopback TCP connections, each an HTTP/1.1 watch stream"},
    {"rate", OPT_UINT, OFF(rate), 1, 100000, "100", "PER_SECOND",
     "events per second, each written to every connection"},
    {"batch", OPT_UINT, OFF(batch), 1, 1000, "1", "K",
     "records per write(), as K watchers multiplexed on one connection "
     "need them (deliveries = connections x K per event)"},
    {"duration", OPT_SECONDS, OFF(duration), 0.1, 3600, "10", "SECONDS",
     "seconds of load"},
    {"event-bytes", OPT_BYTES, OFF(event_bytes), 0, 1048576, "0", "BYTES",
     "length of one framed event, padded with an annotation (0: the "
     "built-in Pod, about 1.2 KiB)"},
    {"setup-timeout", OPT_SECONDS, OFF(setup_timeout), 1, 600, "60", "SECONDS",
     "seconds to open every connection"},
    {"drain-timeout", OPT_SECONDS, OFF(drain_timeout), 0.1, 600, "10",
     "SECONDS", "seconds for slow readers to catch up at the end"},
    {"report", OPT_STRING, OFF(report), 0, 0, NULL, "FILE",
     "write the results as JSON to FILE"},
    {"log-level", OPT_STRING, OFF(log_level), 0, 0, "info", "LEVEL",
     "debug, info, warn or error"},
};
const size_t options_nspecs = RW_ARRAY_LEN(options_specs);
