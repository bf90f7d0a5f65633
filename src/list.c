/*
 * list.c: LIST and GET from memory (see list.h).
 *
 * A LIST takes a store snapshot, collects the matching objects in key
 * order, sums their lengths for Content-Length, and writes head, each
 * object's JSON with "," between, and tail.  The body goes out in blocks:
 * runs of small pieces (head, separators, objects under LIST_REF_MIN
 * bytes) are copied into blocks of up to LIST_BLOCK bytes, and larger
 * objects are written by reference.  Per queued reference the socket
 * queues cost about 1 KiB of bookkeeping (libevent 2.1), so copying small
 * objects keeps a slow client's queued LIST near 1x its size while large
 * objects are still shared, not copied.
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

#define LIST_BLOCK (64 * 1024)
#define LIST_REF_MIN (8 * 1024)

/* Writes a body of known length to a stream in blocks (see above). */
struct body {
    struct stream *s;
    size_t left;        /* body bytes not yet written or buffered */
    struct rbuf *block; /* being filled, or NULL */
    size_t used;        /* bytes of block filled */
};

static void body_flush(struct body *b)
{
    if (b->block == NULL)
        return;
    stream_write(b->s, b->block, 0, b->used);
    rbuf_unref(b->block);
    b->block = NULL;
}

static void body_copy(struct body *b, const char *p, size_t n)
{
    while (n > 0) {
        size_t take;

        if (b->block == NULL) {
            b->block = rbuf_new(RW_MIN(LIST_BLOCK, b->left));
            b->used = 0;
        }
        take = RW_MIN(n, b->block->len - b->used);
        memcpy(b->block->data + b->used, p, take);
        b->used += take;
        b->left -= take;
        p += take;
        n -= take;
        if (b->used == b->block->len)
            body_flush(b);
    }
}

static void body_add(struct body *b, struct rbuf *buf)
{
    if (buf->len < LIST_REF_MIN) {
        body_copy(b, buf->data, buf->len);
        return;
    }
    body_flush(b);
    stream_write(b->s, buf, 0, buf->len);
    b->left -= buf->len;
}

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
    struct rbuf *head, *tail;
    struct store_snap *snap;
    struct body body;
    char *prefix;

    if (!resource_ready(r)) {
        status_respond(s, 429, "TooManyRequests",
                       "storage is (re)initializing: %s", rt->resource);
        return;
    }
    snap = store_snapshot(watchcache_store(wc));
    prefix = ns ? xasprintf("%s%s/", rt->etcd_prefix, ns)
                : xstrdup(rt->etcd_prefix);
    store_snap_scan(snap, prefix, strlen(prefix), list_collect_cb, &c);
    free(prefix);

    head = kjson_list_head(rt, watchcache_rv(wc), NULL, -1);
    tail = kjson_list_tail();
    body = (struct body){
        .s = s,
        .left = head->len + c.bytes + (c.n ? c.n - 1 : 0) + tail->len,
    };
    stream_begin(s, 200, "application/json", (int64_t)body.left);
    body_add(&body, head);
    for (size_t i = 0; i < c.n; i++) {
        if (i > 0)
            body_copy(&body, ",", 1);
        body_add(&body, c.items[i]->json);
    }
    body_add(&body, tail);
    body_flush(&body);
    rw_assert(body.left == 0);
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
