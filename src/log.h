/*
 * log.h: the daemon's log, one line per message on stderr:
 *   2026-11-29T19:21:58.123Z warn upstream: etcd 127.0.0.1:2379: connection refused
 * The non-x forms (log_warn, log_fatal) append ": strerror(errno)".  Nothing
 * above debug level is logged per event; libevent's and nghttp2's own
 * messages are routed here (log_init).  With log_open the lines go to a
 * file instead (standard error itself is pointed at it, so that messages
 * from libraries and sanitizers land there too); log_reopen reopens it
 * after a rotation.
 */
#ifndef LOG_H
#define LOG_H

#include <stdnoreturn.h>

enum log_level { LOG_DEBUG = 0, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Sets the threshold and routes libevent's messages into this log. */
void log_init(enum log_level threshold, const char *program);
void log_set_level(enum log_level threshold);
enum log_level log_level(void);
/* The level's name: "debug", "info", "warn" or "error". */
const char *log_level_name(enum log_level level);

/*
 * Sends the log (and everything else written to standard error) to path,
 * appended, created with mode 0644 when missing.  Returns RW_OK, or RW_EIO
 * with errno set (the log stays where it was).
 */
int log_open(const char *path);
/*
 * Reopens the file log_open opened, for log rotation: the next line goes
 * to a file of that name, created if it was moved away.  Returns RW_OK
 * (also when no file is open: then nothing to do), or RW_EIO with errno
 * set, the old file still in use.
 */
int log_reopen(void);
/* The path log_open opened, or NULL when logging to standard error. */
const char *log_path(void);
/* Parses "debug", "info", "warn", "error"; -1 when unknown. */
int log_level_parse(const char *name);
int log_enabled(enum log_level level);

void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* An info line logged whatever the level: the answer to an operator's
 * request (a signal). */
void log_info_always(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
noreturn void log_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
noreturn void log_fatalx(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

#endif
