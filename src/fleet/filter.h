/*
 * filter.h: one selection of the resource that a group of watchers share
 * (same label and field selectors), and what the fleet knows about it:
 * the initial LIST (S0 at R0), the events the oracle says its watchers
 * must receive, and etcd's final state filtered by it.
 *
 * Today every watcher shares one filter.  Profiles will add more (a
 * kubelet's fieldSelector=spec.nodeName=NODE per node); everything per
 * selection lives here so that adding filters changes no other module.
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
#include "view.h"

struct watcher;

struct filter {
    uint32_t id;            /* index among the fleet's filters */
    char *label_selector;   /* NULL: none */
    char *field_selector;   /* NULL: none */
    struct selector *sel;   /* NULL matches everything */
    char *query;            /* "&labelSelector=..." URL-encoded, or "" */
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

/* Whether obj (a decoded object; NULL reads as "no object") is in f's
 * selection. */
bool filter_matches(const struct filter *f, const struct object *obj);

/*
 * The event type a watcher of f gets for a change from old to new (either
 * NULL when absent: a create has no old, a delete no new), or -1 for none.
 */
int filter_transition(const struct filter *f, const struct object *old,
                      const struct object *new_obj);

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

/* Percent-encodes s for a query string value into a new string. */
char *filter_url_encode(const char *s);

#endif
