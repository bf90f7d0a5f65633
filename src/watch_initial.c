/*
 * watch_initial.c: a watcher's initial events (see watch_initial.h).
 *
 * Invariant: `last` is the last object of the snapshot looked at (sent or
 * filtered out), so each object is looked at once, in key order, and the
 * end marker follows the last ADDED.  The snapshot was taken at the same
 * instant as the watcher's ring cursor (watch_start.c), so the ring
 * events that follow are exactly the changes after this state.
 */
#include "src/watch_initial.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/store.h"
#include "src/metrics_resource.h"
#include "src/watch_impl.h"

struct watch_initial {
    struct store_snap *snap;
    const struct object *last; /* last object looked at, or NULL */
    char *prefix;              /* store key prefix of the namespace */
    size_t prefix_len;
};

struct watch_initial *watch_initial_new(struct store_snap *snap,
                                        const struct resource_type *rt,
                                        const char *ns)
{
    struct watch_initial *in = xcalloc(1, sizeof(*in));

    in->snap = store_snap_ref(snap);
    in->prefix = resource_type_ns_prefix(rt, ns);
    in->prefix_len = strlen(in->prefix);
    return in;
}

void watch_initial_free(struct watch_initial *in)
{
    if (in != NULL) {
        store_snap_unref(in->snap);
        free(in->prefix);
    }
    free(in);
}

/* The watch-list end marker: a BOOKMARK at the initial state's revision
 * annotated k8s.io/initial-events-end (KEP-3157), sent once. */
static void watch_initial_end(struct watcher *w)
{
    struct rbuf *frame =
        repr_bookmark_frame(repr_of(w->format), resource_type(w->set->res),
                            w->min_rv, true, time(NULL));

    w->initial_end = false;
    watch_write(w, frame);
    rbuf_unref(frame);
    w->set->metrics->bookmarks_sent++;
}

bool watch_initial_pump(struct watcher *w, size_t high_water)
{
    struct metrics_resource *m = w->set->metrics;
    struct watch_initial *in = w->initial;

    while (stream_pending(w->stream) < high_water) {
        struct object *o;

        if (in->last == NULL)
            o = store_snap_seek(in->snap, in->prefix, in->prefix_len, true);
        else
            o = store_snap_seek(in->snap, in->last->key, in->last->key_len,
                                false);
        if (o == NULL || o->key_len < in->prefix_len ||
            memcmp(o->key, in->prefix, in->prefix_len) != 0) {
            watch_initial_free(in);
            w->initial = NULL;
            if (w->initial_end)
                watch_initial_end(w);
            return true;
        }
        in->last = o;
        if (!watch_selects(w, o))
            continue;
        watch_write(w, watch_frame(w, o, EVENT_ADDED));
        m->events_dispatched++;
    }
    return false;
}
