/*
 * signals.c: SIGHUP reload hooks, the SIGUSR1 state line and the SIGUSR2
 * debug switch (see signals.h).
 *
 * Hooks sit in an array in registration order; a SIGHUP runs them all,
 * each once, and builds one log line from what they report.  libevent
 * restores the previous disposition (SIG_IGN, from signals_ignore) when a
 * signal event is freed.
 */
#include "src/signals.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "src/log.h"

struct reload_hook {
    const char *what;
    signals_reload_fn fn;
    void *arg;
};

struct signals {
    struct event *hup, *usr1, *usr2;
    signals_state_fn state;
    void *state_arg;
    enum log_level configured; /* the level SIGUSR2 switches back to */
    struct reload_hook *hooks;
    size_t nhooks;
};

void signals_ignore(void)
{
    static const int ignored[] = {SIGPIPE, SIGHUP, SIGUSR1, SIGUSR2};

    for (size_t i = 0; i < RW_ARRAY_LEN(ignored); i++)
        signal(ignored[i], SIG_IGN);
}

/* Runs every reload hook and logs the outcome (SIGHUP). */
static void signals_reload(struct signals *s)
{
    struct sbuf line = {0};
    size_t reloaded = 0, failed = 0;

    for (size_t i = 0; i < s->nhooks; i++) {
        char done[512] = "";

        if (s->hooks[i].fn(s->hooks[i].arg, done, sizeof(done)) != RW_OK) {
            log_warnx("SIGHUP: %s not reloaded: %s", s->hooks[i].what, done);
            failed++;
            continue;
        }
        if (done[0] == '\0')
            continue;
        sbuf_addf(&line, "%s%s %s", reloaded++ ? "; " : "", s->hooks[i].what,
                  done);
    }
    if (reloaded > 0)
        log_info_always("SIGHUP: reloaded %s", line.data);
    else if (failed == 0) /* a failure has said so already */
        log_info_always("SIGHUP: nothing to reload (command-line options "
                        "need a restart)");
    sbuf_fini(&line);
}

static void signals_hup_cb(evutil_socket_t sig, short what, void *arg)
{
    signals_reload(arg);
}

static void signals_usr1_cb(evutil_socket_t sig, short what, void *arg)
{
    struct signals *s = arg;
    struct sbuf line = {0};

    s->state(&line, s->state_arg);
    log_info_always("SIGUSR1: %s", line.data ? line.data : "");
    sbuf_fini(&line);
}

static void signals_usr2_cb(evutil_socket_t sig, short what, void *arg)
{
    struct signals *s = arg;
    enum log_level next = log_level() == LOG_DEBUG && s->configured != LOG_DEBUG
                              ? s->configured
                              : LOG_DEBUG;

    log_set_level(next);
    log_info_always(
        "SIGUSR2: log level %s (SIGUSR2 again: %s)", log_level_name(next),
        log_level_name(next == LOG_DEBUG ? s->configured : LOG_DEBUG));
}

struct signals *signals_new(struct event_base *base, signals_state_fn state,
                            void *arg)
{
    struct signals *s = xcalloc(1, sizeof(*s));

    s->state = state;
    s->state_arg = arg;
    s->configured = log_level();
    s->hup = evsignal_new(base, SIGHUP, signals_hup_cb, s);
    s->usr1 = evsignal_new(base, SIGUSR1, signals_usr1_cb, s);
    s->usr2 = evsignal_new(base, SIGUSR2, signals_usr2_cb, s);
    rw_assert(s->hup != NULL && s->usr1 != NULL && s->usr2 != NULL);
    event_add(s->hup, NULL);
    event_add(s->usr1, NULL);
    event_add(s->usr2, NULL);
    return s;
}

void signals_on_reload(struct signals *s, const char *what,
                       signals_reload_fn fn, void *arg)
{
    s->hooks = xrealloc(s->hooks, (s->nhooks + 1) * sizeof(*s->hooks));
    s->hooks[s->nhooks++] = (struct reload_hook){what, fn, arg};
}

void signals_free(struct signals *s)
{
    if (s == NULL)
        return;
    event_free(s->hup);
    event_free(s->usr1);
    event_free(s->usr2);
    free(s->hooks);
    free(s);
}
