/*
 * signals.h: what ringwatch does on the operator's signals, besides the
 * graceful shutdown on SIGINT and SIGTERM (main.c).
 *
 *   SIGHUP   reload: runs every reload hook, in the order registered, and
 *            logs one line saying what each reloaded (a hook that fails
 *            is logged as a warning and keeps its old state).  Nothing else
 *            happens: no connection, watch or cache is touched, and the
 *            process never ends on it.  Options given on the command line
 *            need a restart; hooks are for state read from files (the log
 *            file, the TLS certificates).
 *   SIGUSR1  logs one line of state, written by a callback.
 *   SIGUSR2  switches the log level between debug and the one configured.
 *   SIGPIPE  ignored: a write to a closed socket fails with EPIPE.
 *
 * The lines answering a signal are logged whatever the log level: the
 * operator asked for them.  Signal handling runs on the event loop
 * (libevent signal events), so hooks and callbacks may use any module.
 */
#ifndef SIGNALS_H
#define SIGNALS_H

#include <stddef.h>

struct event_base;
struct sbuf;
struct signals;

/*
 * One reload hook: reloads one thing and says what it did in done (e.g.
 * "/var/log/ringwatch.log reopened"), or leaves done empty when there was
 * nothing to reload.  Returns RW_OK, or a negative rw_err with why in done;
 * on failure the thing must keep working as before.
 */
typedef int (*signals_reload_fn)(void *arg, char *done, size_t done_len);

/* Appends one line of state (no newline) to line, for SIGUSR1. */
typedef void (*signals_state_fn)(struct sbuf *line, void *arg);

/*
 * Ignores SIGPIPE for good, and SIGHUP, SIGUSR1 and SIGUSR2 until
 * signals_new handles them, so that none ends the process while it
 * starts.  Call first thing in main.
 */
void signals_ignore(void);

/*
 * Handles SIGHUP, SIGUSR1 and SIGUSR2 on base's loop from now on.  state
 * (with arg) writes SIGUSR1's line; the log level in force now is the one
 * SIGUSR2 switches back to.  No hooks yet.
 */
struct signals *signals_new(struct event_base *base, signals_state_fn state,
                            void *arg);

/*
 * Adds a reload hook named what ("log file", "TLS certificates"), run on
 * every SIGHUP after those added before.  what must outlive s.
 */
void signals_on_reload(struct signals *s, const char *what,
                       signals_reload_fn fn, void *arg);

/* Stops handling the signals (they are ignored again) and frees s.  NULL
 * is a no-op. */
void signals_free(struct signals *s);

#endif
