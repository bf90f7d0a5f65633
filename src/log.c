/*
 * log.c: timestamped leveled messages on stderr (see log.h).
 */
#include "src/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"

static enum log_level threshold = LOG_INFO;
static const char *program = "ringwatch";
static char *file_path; /* log_open's, or NULL: standard error */

static const char *const level_names[] = {"debug", "info", "warn", "error"};

static void vlog(enum log_level level, int errnum, const char *fmt,
                 va_list ap)
{
    char msg[4096], stamp[32];
    int64_t now = clock_wall_ns();
    time_t sec = (time_t)(now / 1000000000);
    long ms = (long)(now % 1000000000 / 1000000);
    struct tm tm;

    vsnprintf(msg, sizeof(msg), fmt, ap);
    gmtime_r(&sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    if (errnum != 0)
        fprintf(stderr, "%s.%03ldZ %s %s: %s: %s\n", stamp, ms,
                level_names[level], program, msg, strerror(errnum));
    else
        fprintf(stderr, "%s.%03ldZ %s %s: %s\n", stamp, ms, level_names[level],
                program, msg);
}

static void log_libevent_cb(int severity, const char *msg)
{
    enum log_level level = LOG_DEBUG;

    if (severity == EVENT_LOG_WARN)
        level = LOG_WARN;
    else if (severity == EVENT_LOG_ERR)
        level = LOG_ERROR;
    else if (severity == EVENT_LOG_MSG)
        level = LOG_INFO;
    if (level >= threshold)
        fprintf(stderr, "%s libevent: %s\n", level_names[level], msg);
}

void log_init(enum log_level level, const char *name)
{
    threshold = level;
    if (name != NULL)
        program = name;
    event_set_log_callback(log_libevent_cb);
    setvbuf(stderr, NULL, _IOLBF, 0);
}

void log_set_level(enum log_level level)
{
    threshold = level;
}

enum log_level log_level(void)
{
    return threshold;
}

const char *log_level_name(enum log_level level)
{
    return level_names[level];
}

/* Points standard error at path (appended); RW_EIO with errno on failure. */
static int log_redirect(const char *path)
{
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);

    if (fd < 0)
        return RW_EIO;
    fflush(stderr);
    if (dup2(fd, STDERR_FILENO) < 0) {
        int saved = errno;

        close(fd);
        errno = saved;
        return RW_EIO;
    }
    close(fd);
    return RW_OK;
}

int log_open(const char *path)
{
    if (log_redirect(path) != RW_OK)
        return RW_EIO;
    free(file_path);
    file_path = xstrdup(path);
    return RW_OK;
}

int log_reopen(void)
{
    return file_path ? log_redirect(file_path) : RW_OK;
}

const char *log_path(void)
{
    return file_path;
}

int log_level_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
        if (strcasecmp(name, level_names[i]) == 0)
            return (int)i;
    return -1;
}

int log_enabled(enum log_level level)
{
    return level >= threshold;
}

#define LOG_FN(fn, level, with_errno, always)                                 \
    void fn(const char *fmt, ...)                                             \
    {                                                                         \
        int saved = errno;                                                    \
        va_list ap;                                                           \
        if (!(always) && (level) < threshold)                                 \
            return;                                                           \
        va_start(ap, fmt);                                                    \
        vlog(level, with_errno ? saved : 0, fmt, ap);                         \
        va_end(ap);                                                           \
        errno = saved;                                                        \
    }

LOG_FN(log_debug, LOG_DEBUG, 0, false)
LOG_FN(log_info, LOG_INFO, 0, false)
LOG_FN(log_info_always, LOG_INFO, 0, true)
LOG_FN(log_warn, LOG_WARN, 1, false)
LOG_FN(log_warnx, LOG_WARN, 0, false)
LOG_FN(log_error, LOG_ERROR, 0, false)

noreturn void log_fatal(const char *fmt, ...)
{
    int saved = errno;
    va_list ap;

    va_start(ap, fmt);
    vlog(LOG_ERROR, saved, fmt, ap);
    va_end(ap);
    exit(1);
}

noreturn void log_fatalx(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vlog(LOG_ERROR, 0, fmt, ap);
    va_end(ap);
    exit(1);
}
