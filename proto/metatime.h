/*
 * metatime.h: metav1.Time (and MicroTime) for the Table printers: the
 * RFC 3339 text the apiserver stores, parsed to seconds since the epoch,
 * and shown as kubectl's AGE columns show it (apimachinery's
 * duration.HumanDuration, the printers' translateTimestampSince).
 */
#ifndef METATIME_H
#define METATIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* A metav1.Time or MicroTime: "2006-01-02T15:04:05[.frac](Z|±hh:mm)" to
 * seconds since the epoch (fraction dropped), as time.Parse(RFC3339).
 * False for text that is not one, and for Go's zero time
 * (0001-01-01T00:00:00Z), which IsZero() reports unset. */
bool metatime_parse(const char *s, int64_t *out);

/* duration.HumanDuration of s seconds into buf (at least 32 bytes): "10s",
 * "2m5s", "3h", "2d1h", "3y"; "0s" for -1 s, "<invalid>" further in the
 * future. */
void metatime_human_duration(char *buf, size_t size, int64_t s);

/* translateTimestampSince (and translateMicroTimestampSince) of the time
 * text timestamp at now (seconds since the epoch) into buf (at least 32
 * bytes): "<unknown>" when it is not a time or Go's zero time (unset). */
void metatime_since(char *buf, size_t size, const char *timestamp, time_t now);

#endif
