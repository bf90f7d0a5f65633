/*
 * watch_initial.h: a watcher's initial events (the synthetic ADDED per
 * object of its starting state, then, for sendInitialEvents=true, the
 * initial-events-end BOOKMARK), as kube-apiserver's cacher sends them for
 * a watch with resourceVersion unset or "0" and for a watch-list
 * (KEP-3157).  Part of the watch set (watch_impl.h): only watch.c and
 * watch_start.c use it.
 *
 * The state is a store snapshot (cache/store.h) walked in key order under
 * the watcher's namespace prefix, resuming after the last key looked at,
 * so a slow stream is fed as it drains without copying the state.
 */
#ifndef WATCH_INITIAL_H
#define WATCH_INITIAL_H

#include <stdbool.h>
#include <stddef.h>

struct resource_type;
struct store_snap;
struct watch_initial;
struct watcher;

/* The initial events of a watch of type rt in namespace ns (NULL: all)
 * from state snap (a reference is taken).  Free with watch_initial_free. */
struct watch_initial *watch_initial_new(struct store_snap *snap,
                                        const struct resource_type *rt,
                                        const char *ns);
/* Drops the snapshot reference and frees.  NULL is a no-op. */
void watch_initial_free(struct watch_initial *in);

/*
 * Sends w's initial events (w->initial) that w's selection takes, each an
 * ADDED in w's representation, while its stream is below high_water
 * (bytes).  At the end of the state, frees w->initial (sets it NULL) and,
 * when w->initial_end, sends the BOOKMARK at w->min_rv annotated
 * {"k8s.io/initial-events-end":"true"}.  Returns true when every initial
 * event is sent, false when the stream filled first (call again when it
 * drains).
 */
bool watch_initial_pump(struct watcher *w, size_t high_water);

#endif
