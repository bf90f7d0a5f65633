/*
 * log.h: the daemon's log, one line per message on stderr:
 *   2026-11-29T19:21:58.123Z warn upstream: etcd 127.0.0.1:2379: connection refused
 * The non-x forms (log_warn, log_fatal) append ": strerror(errno)".  Nothing
 * above debug level is logged per event; libevent's and nghttp2's own
 * messages are routed here (log_init).
 */
#ifndef LOG_H
#define LOG_H

#include <stdnoreturn.h>

enum log_level { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Sets the threshold and routes libevent's messages into this log. */
void log_init(enum log_level threshold, const char *program);
void log_set_level(enum log_level threshold);
/* Parses "debug", "info", "warn", "error"; -1 when unknown. */
int log_level_parse(const char *name);
int log_enabled(enum log_level level);

void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void log_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
noreturn void log_fatalx(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif
