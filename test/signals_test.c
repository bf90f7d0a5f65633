/*
 * signals_test.c: SIGHUP runs every reload hook in order and logs what
 * each reloaded (a failing hook is a warning, the others still run), the
 * process survives SIGHUP, SIGUSR1, SIGUSR2 and SIGPIPE, SIGUSR1 logs the
 * state line and SIGUSR2 switches the level to debug and back, each answer
 * logged whatever the level; log_open and log_reopen follow a rotation.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "src/log.h"
#include "src/signals.h"

struct hook {
    const char *done; /* what it reports; NULL: fails */
    int calls;
    int order; /* the run's call counter when it was called */
};

static int calls_so_far;

static int hook_cb(void *arg, char *done, size_t done_len)
{
    struct hook *h = arg;

    h->calls++;
    h->order = ++calls_so_far;
    snprintf(done, done_len, "%s", h->done ? h->done : "disk on fire");
    return h->done ? RW_OK : RW_EIO;
}

static void state_cb(struct sbuf *line, void *arg)
{
    sbuf_addf(line, "state of %s", (const char *)arg);
}

static char log_path_buf[64];

/* The log so far (a new string). */
static char *log_text(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = xcalloc(1, 65536);

    assert_non_null(f);
    fread(text, 1, 65535, f);
    fclose(f);
    return text;
}

/* Sends sig to this process and runs the loop until it was handled. */
static void deliver(struct event_base *base, int sig)
{
    assert_int_equal(raise(sig), 0);
    event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK);
}

static int setup(void **state)
{
    int fd;

    snprintf(log_path_buf, sizeof(log_path_buf), "/tmp/rw-signals-XXXXXX");
    fd = mkstemp(log_path_buf);
    assert_true(fd >= 0);
    close(fd);
    log_init(LOG_WARN, "signals_test");
    assert_int_equal(log_open(log_path_buf), RW_OK);
    return 0;
}

static int teardown(void **state)
{
    char rotated[80];

    snprintf(rotated, sizeof(rotated), "%s.1", log_path_buf);
    unlink(log_path_buf);
    unlink(rotated);
    return 0;
}

static void test_hup_runs_every_hook(void **state)
{
    struct event_base *base = event_base_new();
    struct signals *s;
    struct hook a = {.done = "x.pem reloaded"}, b = {.done = NULL},
                c = {.done = ""};
    char *text;

    signals_ignore();
    s = signals_new(base, state_cb, "it");
    signals_on_reload(s, "first", hook_cb, &a);
    signals_on_reload(s, "second", hook_cb, &b);
    signals_on_reload(s, "third", hook_cb, &c);
    calls_so_far = 0;
    deliver(base, SIGHUP);
    assert_int_equal(a.calls, 1);
    assert_int_equal(b.calls, 1);
    assert_int_equal(c.calls, 1);
    assert_true(a.order < b.order && b.order < c.order);
    text = log_text(log_path_buf);
    /* logged although the level is warn: the operator asked */
    assert_non_null(strstr(text, "info signals_test: SIGHUP: reloaded first "
                                 "x.pem reloaded\n"));
    assert_non_null(strstr(text, "warn signals_test: SIGHUP: second not "
                                 "reloaded: disk on fire\n"));
    free(text);

    deliver(base, SIGHUP); /* again: every hook again, the process lives */
    assert_int_equal(a.calls, 2);
    assert_int_equal(c.calls, 2);
    signals_free(s);
    deliver(base, SIGHUP); /* ignored again once freed */
    assert_int_equal(a.calls, 2);
    event_base_free(base);
}

static void test_hup_without_hooks(void **state)
{
    struct event_base *base = event_base_new();
    struct signals *s = signals_new(base, state_cb, "it");
    char *text;

    deliver(base, SIGHUP);
    text = log_text(log_path_buf);
    assert_non_null(strstr(text, "SIGHUP: nothing to reload (command-line "
                                 "options need a restart)"));
    free(text);
    signals_free(s);
    event_base_free(base);
}

/* A reload whose one hook fails says so once, as a warning, and does not
 * also claim there was nothing to reload. */
static void test_hup_only_failure(void **state)
{
    struct event_base *base = event_base_new();
    struct signals *s = signals_new(base, state_cb, "it");
    struct hook broken = {.done = NULL};
    char *before, *text;
    size_t seen;

    signals_on_reload(s, "log file", hook_cb, &broken);
    before = log_text(log_path_buf);
    seen = strlen(before); /* the group's earlier tests wrote the rest */
    free(before);
    deliver(base, SIGHUP);
    assert_int_equal(broken.calls, 1);
    text = log_text(log_path_buf);
    assert_non_null(
        strstr(text + seen, "SIGHUP: log file not reloaded: disk on fire"));
    assert_null(strstr(text + seen, "nothing to reload"));
    free(text);
    signals_free(s);
    event_base_free(base);
}

static void test_usr1_usr2_pipe(void **state)
{
    struct event_base *base = event_base_new();
    struct signals *s = signals_new(base, state_cb, "the daemon");
    char *text;

    deliver(base, SIGUSR1);
    deliver(base, SIGPIPE); /* ignored */
    assert_false(log_enabled(LOG_DEBUG));
    deliver(base, SIGUSR2);
    assert_int_equal(log_level(), LOG_DEBUG);
    deliver(base, SIGUSR2);
    assert_int_equal(log_level(), LOG_WARN);
    text = log_text(log_path_buf);
    assert_non_null(strstr(text, "SIGUSR1: state of the daemon\n"));
    assert_non_null(strstr(text, "SIGUSR2: log level debug (SIGUSR2 again: "
                                 "warn)\n"));
    assert_non_null(strstr(text, "SIGUSR2: log level warn (SIGUSR2 again: "
                                 "debug)\n"));
    free(text);
    signals_free(s);
    event_base_free(base);
}

static void test_log_reopen_follows_rotation(void **state)
{
    char rotated[80], *text;

    snprintf(rotated, sizeof(rotated), "%s.1", log_path_buf);
    log_warnx("before the rotation");
    assert_int_equal(rename(log_path_buf, rotated), 0);
    log_warnx("after the rename");
    assert_int_equal(log_reopen(), RW_OK);
    log_warnx("after the reopen");
    assert_string_equal(log_path(), log_path_buf);
    text = log_text(rotated);
    assert_non_null(strstr(text, "before the rotation"));
    assert_non_null(strstr(text, "after the rename"));
    assert_null(strstr(text, "after the reopen"));
    free(text);
    text = log_text(log_path_buf);
    assert_non_null(strstr(text, "after the reopen"));
    assert_null(strstr(text, "before the rotation"));
    free(text);
    assert_int_equal(log_open("/nonexistent-dir/x.log"), RW_EIO);
    assert_string_equal(log_path(), log_path_buf); /* kept */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hup_runs_every_hook),
        cmocka_unit_test(test_hup_without_hooks),
        cmocka_unit_test(test_hup_only_failure),
        cmocka_unit_test(test_usr1_usr2_pipe),
        cmocka_unit_test(test_log_reopen_follows_rotation),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
