/*
 * list.c: LIST and GET from memory (see list.h).
 *
 * A LIST takes a store snapshot, collects the matching objects in key
 * order, sums their lengths for Content-Length, and writes head, each
 * object's JSON (by reference) with "," between, and tail.
 */
#include "list.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/watchcache.h"
#include "metrics.h"
#include "proto/kjson.h"
#include "resource.h"
#include "status.h"

struct collect {
    const struct selector *sel;
    const char *ns;
    struct object **items;
    size_t n, cap;
    size_t bytes;
};

static bool list_collect_cb(struct object *obj, void *arg)
{
    struct collect *c = arg;

    if (c->ns != NULL && strcmp(obj->ns, c->ns) != 0)
        return true;
    if (!selector_matches(c->sel, obj))
        return true;
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->items = xrealloc(c->items, c->cap * sizeof(*c->items));
    }
    c->items[c->n++] = obj;
    c->bytes += obj->json->len;
    return true;
}

void list_collection(struct stream *s, struct resource *r, const char *ns,
                     const struct selector *sel, const struct query *q)
{
    const struct resource_type *rt = resource_type(r);
    struct watchcache *wc = resource_cache(r);
    struct collect c = {.sel = sel, .ns = ns};
    static struct rbuf *comma;
    struct rbuf *head, *tail;
    struct store_snap *snap;
    char *prefix;

    if (!resource_ready(r)) {
        status_respond(s, 429, "TooManyRequests",
                       "storage is (re)initializing: %s", rt->resource);
        return;
    }
    if (comma == NULL)
        comma = rbuf_from(",", 1); /* shared by every list, never freed */

    snap = store_snapshot(watchcache_store(wc));
    prefix = ns ? xasprintf("%s%s/", rt->etcd_prefix, ns)
                : xstrdup(rt->etcd_prefix);
    store_snap_scan(snap, prefix, strlen(prefix), list_collect_cb, &c);
    free(prefix);

    head = kjson_list_head(rt, watchcache_rv(wc), NULL, -1);
    tail = kjson_list_tail();
    stream_begin(s, 200, "application/json",
                 (int64_t)(head->len + c.bytes + (c.n ? c.n - 1 : 0) +
                           tail->len));
    stream_write(s, head, 0, head->len);
    for (size_t i = 0; i < c.n; i++) {
        if (i > 0)
            stream_write(s, comma, 0, 1);
        stream_write(s, c.items[i]->json, 0, c.items[i]->json->len);
    }
    stream_write(s, tail, 0, tail->len);
    stream_end(s);
    resource_metrics(r)->list_hits++;

    rbuf_unref(head);
    rbuf_unref(tail);
    free(c.items);
    store_snap_unref(snap);
    (void)q;
}

void list_object(struct stream *s, struct resource *r, const char *ns,
                 const char *name)
{
    const struct resource_type *rt = resource_type(r);
    struct object *obj;
    char *key;

    if (!resource_ready(r)) {
        status_respond(s, 429, "TooManyRequests",
                       "storage is (re)initializing: %s", rt->resource);
        return;
    }
    key = ns ? xasprintf("%s%s/%s", rt->etcd_prefix, ns, name)
             : xasprintf("%s%s", rt->etcd_prefix, name);
    obj = store_get(watchcache_store(resource_cache(r)), key, strlen(key));
    free(key);
    resource_metrics(r)->gets++;
    if (obj == NULL) {
        /* As the apiserver: the group-qualified resource, e.g.
         * deployments.apps "web" not found. */
        status_respond(s, 404, "NotFound", "%s%s%s \"%s\" not found",
                       rt->resource, *rt->group ? "." : "", rt->group, name);
        return;
    }
    stream_respond(s, 200, "application/json", obj->json);
}
