/*
 * filter.h: one selection of the resource that a group of watchers share
 * (same label and field selectors), and what the fleet knows about it:
 * the initial LIST (S0 at R0), the events the oracle says its watchers
 * must receive, and etcd's final state filtered by it.
 *
 * Watchers with the same selection share one filter: the controllers'
 * (the selectors given) and one per watched node for kubelets
 * (fieldSelector=spec.nodeName=NODE, filter_new_node).  A filter_index
 * finds, for one change, the few filters it may concern (the unindexed
 * ones plus the node filters of the old and new spec.nodeName), so the
 * oracle's work per change does not grow with the number of nodes.
 *
 * Expected events: the oracle appends, in revision order, each change
 * whose old or new state the selector matches, with the event type a
 * watcher must see, as kube-apiserver's cacheWatcher decides it: new
 * and old match -> MODIFIED; only new -> ADDED; only old -> DELETED;
 * neither -> nothing.  Each is 4 bytes: the oracle entry index and type.
 */
#ifndef FLEET_FILTER_H
#define FLEET_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/object.h"
#include "cache/resource_type.h"
#include "src/fleet/view.h"

struct watcher;

struct filter {
    uint32_t id;            /* index among the fleet's filters */
    char *label_selector;   /* NULL: none */
    char *field_selector;   /* NULL: none */
    struct selector *sel;   /* NULL matches everything */
    char *query;            /* "&labelSelector=..." URL-encoded, or "" */
    char *node;             /* filter_new_node's node, else NULL */
    struct watcher *leader; /* the watcher that LISTs S0 */
    size_t watchers;        /* watchers using this filter */
    bool ready;             /* S0 and R0 are known */
    int64_t r0;             /* the initial LIST's resourceVersion */
    struct view s0;         /* the initial LIST */
    struct view final;      /* etcd's final state, filtered */
    uint32_t *expected;     /* entry index << 2 | enum event_type */
    size_t n_expected, cap_expected;
};

/*
 * A filter for resource type rt with these selectors (NULL or "" for
 * none), parsed with cache/selector.h as the daemon parses them.  Returns
 * NULL with the apiserver-worded reason in why when a selector does not
 * parse.
 */
struct filter *filter_new(uint32_t id, const struct resource_type *rt,
                          const char *label_selector,
                          const char *field_selector, char *why,
                          size_t why_len);
void filter_free(struct filter *f);

/* A kubelet's filter: fieldSelector spec.nodeName=node (rt must have
 * that field, as pods do; NULL otherwise). */
struct filter *filter_new_node(uint32_t id, const struct resource_type *rt,
                               const char *node);

/* Whether obj (a decoded object; NULL reads as "no object") is in f's
 * selection. */
bool filter_matches(const struct filter *f, const struct object *obj);

/*
 * Whether a watcher of f gets an event for a change from old to new
 * (either NULL when absent: a create has no old, a delete no new); if so,
 * its type in *type.
 */
bool filter_transition(const struct filter *f, const struct object *old,
                       const struct object *new_obj, enum event_type *type);

/* Appends oracle entry `entry` with event type `type` to the expected
 * list.  Entries must be appended in revision order. */
void filter_expect(struct filter *f, uint32_t entry, enum event_type type);

static inline uint32_t filter_expected_entry(const struct filter *f, size_t i)
{
    return f->expected[i] >> 2;
}

static inline enum event_type filter_expected_type(const struct filter *f,
                                                   size_t i)
{
    return (enum event_type)(f->expected[i] & 3u);
}

/* ---- index ---- */

struct filter_index;

/* An index of the n filters (borrowed; they must outlive it): node
 * filters by node name, the others in a list.  Without a spec.nodeName
 * field in rt every filter is unindexed. */
struct filter_index *filter_index_new(const struct resource_type *rt,
                                      struct filter *const *filters, size_t n);
void filter_index_free(struct filter_index *ix);

/* Most filters filter_index_candidates can return. */
size_t filter_index_max(const struct filter_index *ix);

/*
 * The filters a change from old to new_obj (either NULL) may concern:
 * every unindexed filter and the node filters of old's and new_obj's
 * spec.nodeName (once each), into out (room for filter_index_max).
 * Returns how many.  Any other filter's transition is "nothing".
 */
size_t filter_index_candidates(const struct filter_index *ix,
                               const struct object *old,
                               const struct object *new_obj,
                               struct filter **out);

/* Percent-encodes s for a query string value into a new string. */
char *filter_url_encode(const char *s);

#endif
