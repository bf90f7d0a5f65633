/*
 * list.c: LIST and GET (see list.h).
 *
 * A request becomes a struct list_req, which asks src/fresh.c for the
 * state to serve (a store snapshot at a revision, from memory or read
 * from the store) and keeps the stream until it comes.  The page is then
 * collected from the snapshot in key order (seeking past the continue
 * token's key), its length summed for Content-Length, and written as
 * head, each object's JSON with "," between, and tail.  The body goes out in
 * blocks: runs of small pieces (head, separators, objects under LIST_REF_MIN
 * bytes) are copied into blocks of up to LIST_BLOCK bytes, and larger
 * objects are written by reference.  Per queued reference HTTP/1.1's socket
 * queue costs about 1 KiB of bookkeeping (libevent 2.1), so copying small
 * objects keeps a slow client's queued LIST near 1x its size while large
 * objects are still shared, not copied.
 */
#include "src/list.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/rw.h"
#include "cache/watchcache.h"
#include "proto/ctoken.h"
#include "proto/kjson.h"
#include "proto/partial.h"
#include "proto/repr.h"
#include "proto/table.h"
#include "src/fresh.h"
#include "src/metrics_resource.h"
#include "src/resource.h"
#include "src/status.h"

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

/* len bytes of buf at off. */
static void body_add_part(struct body *b, struct rbuf *buf, size_t off,
                          size_t len)
{
    if (len < LIST_REF_MIN) {
        body_copy(b, buf->data + off, len);
        return;
    }
    body_flush(b);
    stream_write(b->s, buf, off, len);
    b->left -= len;
}

static void body_add(struct body *b, struct rbuf *buf)
{
    body_add_part(b, buf, 0, buf->len);
}

/* ---- requests ---- */

/* A LIST or GET waiting for its state. */
struct list_req {
    struct stream *s;
    struct resource *r;
    struct selector *sel;
    char *prefix; /* the list's key prefix (GET: the object's key) */
    size_t prefix_len;
    char *start; /* continue: last key returned, relative to prefix */
    char *name;  /* GET: the object's name */
    int64_t limit;
    struct repr repr;    /* how to write the answer */
    int refuse_code;     /* 400 or 406 once the read succeeded, or 0 */
    char *refuse_why;
    struct fresh *pending;
};

static void list_req_free(struct list_req *lr)
{
    selector_free(lr->sel);
    free(lr->prefix);
    free(lr->start);
    free(lr->name);
    free(lr->refuse_why);
    free(lr);
}

static void list_close_cb(struct stream *s, void *arg)
{
    struct list_req *lr = arg;

    fresh_cancel(lr->pending);
    list_req_free(lr);
}

/* ---- collecting a page ---- */

struct page {
    struct object **items;
    size_t n, cap;
    size_t bytes;
    char *token;       /* continue token, or NULL */
    int64_t remaining; /* remainingItemCount, or -1 */
};

static bool list_has_prefix(const struct object *o, const struct list_req *lr)
{
    return o->key_len >= lr->prefix_len &&
           memcmp(o->key, lr->prefix, lr->prefix_len) == 0;
}

/* The first object of the page: after the continue key, or the first
 * under the prefix. */
static struct object *list_first(const struct list_req *lr,
                                 struct store_snap *snap)
{
    struct object *o;
    char *key;

    if (lr->start == NULL)
        return store_snap_seek(snap, lr->prefix, lr->prefix_len, true);
    key = xasprintf("%s%s", lr->prefix, lr->start);
    o = store_snap_seek(snap, key, strlen(key), false);
    free(key);
    return o;
}

static void page_add(struct page *pg, struct object *o)
{
    if (pg->n == pg->cap) {
        pg->cap = pg->cap ? pg->cap * 2 : 64;
        pg->items = xrealloc(pg->items, pg->cap * sizeof(*pg->items));
    }
    pg->items[pg->n++] = o;
    pg->bytes += o->json->len;
}

/* Collects the page of lr from snap (state at rv). */
static void page_collect(const struct list_req *lr, struct store_snap *snap,
                         int64_t rv, struct page *pg)
{
    struct object *o = list_first(lr, snap), *last = NULL;

    *pg = (struct page){.remaining = -1};
    for (; o != NULL && list_has_prefix(o, lr);
         o = store_snap_seek(snap, o->key, o->key_len, false)) {
        if (!selector_matches(lr->sel, o))
            continue;
        if (lr->limit > 0 && pg->n == (size_t)lr->limit)
            break; /* one more matches: the page ends at last */
        page_add(pg, o);
        last = o;
    }
    if (o == NULL || !list_has_prefix(o, lr) || last == NULL)
        return;
    pg->token =
        ctoken_encode(rv, resource_epoch(lr->r), last->key + lr->prefix_len,
                      last->key_len - lr->prefix_len);
    if (lr->sel != NULL)
        return; /* as the apiserver: no count under a selector */
    pg->remaining = 0;
    for (; o != NULL && list_has_prefix(o, lr);
         o = store_snap_seek(snap, o->key, o->key_len, false))
        pg->remaining++;
}

/* ---- writing ---- */

static void list_write_json(struct stream *s, struct resource *r,
                            const struct page *pg, int64_t rv)
{
    struct rbuf *head =
        kjson_list_head(resource_type(r), rv, pg->token, pg->remaining);
    struct rbuf *tail = kjson_list_tail();
    struct body body = {
        .s = s,
        .left = head->len + pg->bytes + (pg->n ? pg->n - 1 : 0) + tail->len,
    };

    stream_begin(s, 200, "application/json", (int64_t)body.left);
    body_add(&body, head);
    for (size_t i = 0; i < pg->n; i++) {
        if (i > 0)
            body_copy(&body, ",", 1);
        body_add(&body, pg->items[i]->json);
    }
    body_add(&body, tail);
    body_flush(&body);
    rw_assert(body.left == 0);
    stream_end(s);
    rbuf_unref(head);
    rbuf_unref(tail);
}

static void list_write_table(struct stream *s, struct resource *r,
                             const struct page *pg, int64_t rv,
                             const struct repr *rep)
{
    struct rbuf *t =
        table_render(resource_type(r), pg->items, pg->n, rv, pg->token,
                     pg->remaining, rep->include, rep->beta, time(NULL));

    stream_respond(s, 200, "application/json", t);
    rbuf_unref(t);
}

/* A PartialObjectMetadataList: the list head of that kind, then each
 * item's PartialObjectMetadata around its metadata bytes, written by
 * reference like the items of a plain list; "items":null when there are
 * none, as the apiserver's nil slice. */
static void list_write_partial(struct stream *s, const struct page *pg,
                               int64_t rv, bool beta)
{
    static const struct resource_type list_type[2] = {
        {.list_kind = "PartialObjectMetadataList",
         .api_version = "meta.k8s.io/v1"},
        {.list_kind = "PartialObjectMetadataList",
         .api_version = "meta.k8s.io/v1beta1"},
    };
    struct rbuf *head =
        kjson_list_head(&list_type[beta], rv, pg->token, pg->remaining);
    const char *item = partial_head(beta);
    size_t *meta = xcalloc(2 * pg->n + 1, sizeof(*meta)); /* off, len */
    const char *tail = pg->n ? "]}" : "null}";
    size_t head_len = head->len - (pg->n == 0); /* without '[' when empty */
    struct body body = {.s = s, .left = head_len + strlen(tail)};

    for (size_t i = 0; i < pg->n; i++) {
        if (!partial_locate(pg->items[i], &meta[2 * i], &meta[2 * i + 1]))
            meta[2 * i + 1] = 0;
        body.left += (i > 0) + strlen(item) +
                     (meta[2 * i + 1] ? meta[2 * i + 1] : 2) + 1;
    }
    stream_begin(s, 200, "application/json", (int64_t)body.left);
    body_copy(&body, head->data, head_len);
    for (size_t i = 0; i < pg->n; i++) {
        if (i > 0)
            body_copy(&body, ",", 1);
        body_copy(&body, item, strlen(item));
        if (meta[2 * i + 1] > 0)
            body_add_part(&body, pg->items[i]->json, meta[2 * i],
                          meta[2 * i + 1]);
        else
            body_copy(&body, "{}", 2);
        body_copy(&body, "}", 1);
    }
    body_copy(&body, tail, strlen(tail));
    body_flush(&body);
    rw_assert(body.left == 0);
    stream_end(s);
    rbuf_unref(head);
    free(meta);
}

static void list_write(struct list_req *lr, const struct page *pg, int64_t rv)
{
    if (lr->repr.kind == ACCEPT_TABLE)
        list_write_table(lr->s, lr->r, pg, rv, &lr->repr);
    else if (lr->repr.kind == ACCEPT_PARTIAL_LIST)
        list_write_partial(lr->s, pg, rv, lr->repr.beta);
    else
        list_write_json(lr->s, lr->r, pg, rv);
}

/* ---- answers ---- */

/* A continue token's snapshot is gone: 410 with a token that continues
 * on current state, as the apiserver's handleCompactedErrorForPaging. */
static void list_continue_expired(struct list_req *lr)
{
    char *token = ctoken_encode(-1, 0, lr->start, strlen(lr->start));
    struct rbuf *body = kjson_status_continue(
        410, "Expired",
        "The provided continue parameter is too old to display a consistent "
        "list result. You can start a new list without the continue "
        "parameter, or use the continue token in this response to retrieve "
        "the remainder of the results. Continuing with the provided token "
        "results in an inconsistent list - objects that were created, "
        "modified, or deleted between the time the first chunk was returned "
        "and now may show up in the list.",
        token);

    stream_respond(lr->s, 410, "application/json", body);
    rbuf_unref(body);
    free(token);
}

/* An exact read's revision is gone: 410, worded as the apiserver's etcd3
 * store. */
static void list_rv_expired(struct list_req *lr)
{
    status_respond(lr->s, 410, "Expired",
                   "The resourceVersion for the provided list is too old.");
}

static void list_error(struct list_req *lr, const struct read_result *res)
{
    switch (res->err) {
    case RW_EEXPIRED:
        if (lr->start != NULL)
            list_continue_expired(lr);
        else
            list_rv_expired(lr);
        break;
    default:
        fresh_respond_error(lr->s, res);
        break;
    }
}

static void list_get_answer(struct list_req *lr, struct store_snap *snap)
{
    const struct resource_type *rt = resource_type(lr->r);
    struct object *obj = store_snap_get(snap, lr->prefix, lr->prefix_len);
    struct sbuf sb = {0};
    struct rbuf *body;

    if (obj == NULL) {
        /* As the apiserver: the group-qualified resource, e.g.
         * deployments.apps "web" not found. */
        status_respond(lr->s, 404, "NotFound", "%s%s%s \"%s\" not found",
                       rt->resource, *rt->group ? "." : "", rt->group,
                       lr->name);
        return;
    }
    if (lr->repr.kind == ACCEPT_OBJECT) {
        stream_respond(lr->s, 200, "application/json", obj->json);
        return;
    }
    if (lr->repr.kind == ACCEPT_TABLE)
        table_append_object(&sb, rt, obj, lr->repr.include, lr->repr.beta,
                            true, time(NULL));
    else
        partial_append(&sb, obj, lr->repr.beta);
    body = rbuf_from(sb.data, sb.len);
    sbuf_fini(&sb);
    stream_respond(lr->s, 200, "application/json", body);
    rbuf_unref(body);
}

static void list_ready_cb(const struct read_result *res, void *arg)
{
    struct list_req *lr = arg;
    struct metrics_resource *m = resource_metrics(lr->r);
    struct page pg;

    if (lr->pending != NULL) {
        lr->pending = NULL;
        stream_set_callbacks(lr->s, NULL, NULL, NULL);
    }
    if (res->err != RW_OK) {
        list_error(lr, res);
    } else if (lr->refuse_code != 0) {
        /* As the apiserver's transformResponseObject, after the read. */
        status_refuse(lr->s, lr->refuse_code, lr->refuse_why);
    } else if (lr->name != NULL) {
        m->gets++;
        list_get_answer(lr, res->snap);
    } else {
        if (res->upstream)
            m->list_misses++;
        else
            m->list_hits++;
        page_collect(lr, res->snap, res->rv, &pg);
        list_write(lr, &pg, res->rv);
        free(pg.items);
        free(pg.token);
    }
    list_req_free(lr);
}

/* ---- starting ---- */

/* Sets the read mode and revision from q; answers and returns false for
 * a continue token that is malformed or comes with a revision (400) or is
 * of an earlier store history (410), and for an exact read at a lost
 * revision (410; a token of this epoch at one is ringwatch's own, and
 * served). */
static bool list_mode(struct list_req *lr, const struct query *q,
                      enum read_mode *mode, int64_t *rv)
{
    char why[256];
    int64_t token_rv;
    uint64_t token_epoch;

    *rv = q->rv;
    if (*q->continue_token) {
        if (q->has_rv && q->rv != 0) {
            status_respond(lr->s, 400, "BadRequest",
                           "specifying resource version is not allowed when "
                           "using continue");
            return false;
        }
        if (ctoken_decode(q->continue_token, &token_rv, &token_epoch,
                          &lr->start, why, sizeof(why)) != RW_OK) {
            status_respond(lr->s, 400, "BadRequest",
                           "invalid continue "
                           "token: %s",
                           why);
            return false;
        }
        if (token_rv > 0 && token_epoch != resource_epoch(lr->r)) {
            /* Of a store history that was reset since: its revision may
             * name another state now. */
            list_continue_expired(lr);
            return false;
        }
        *rv = token_rv;
        *mode = token_rv > 0 ? READ_EXACT : READ_CONSISTENT;
    } else if (!q->has_rv) {
        *mode = READ_CONSISTENT;
    } else if (q->rv == 0) {
        *mode = READ_ANY;
    } else if (q->rv_match == RV_MATCH_EXACT ||
               (q->rv_match == RV_MATCH_UNSET && q->limit > 0)) {
        *mode = READ_EXACT;
        if (resource_rv_lost(lr->r, q->rv)) {
            /* Of the abandoned history or of this one: nothing tells. */
            list_rv_expired(lr);
            return false;
        }
    } else {
        *mode = READ_NOT_OLDER;
    }
    return true;
}

/* The answer's representation; a refusal is kept for after the read. */
static void list_repr(struct list_req *lr, const struct query *q,
                      const struct accept_choice *accept, enum accept_verb verb)
{
    char why[512];

    lr->refuse_code = repr_resolve(accept, verb, resource_type(lr->r),
                                   q->include_object, &lr->repr, why,
                                   sizeof(why));
    if (lr->refuse_code != 0)
        lr->refuse_why = xstrdup(why);
}

/* A LIST's resourceVersion is one to watch from; a GET's object is not. */
static void list_start(struct list_req *lr, enum read_mode mode, int64_t rv)
{
    struct fresh *f = fresh_read(lr->r, lr->prefix, mode, rv, lr->name == NULL,
                                 list_ready_cb, lr);

    if (f == NULL)
        return; /* answered, lr freed */
    lr->pending = f;
    stream_set_callbacks(lr->s, NULL, list_close_cb, lr);
}

static bool list_ready(struct stream *s, struct resource *r)
{
    if (resource_ready(r))
        return true;
    status_respond(s, 429, "TooManyRequests", "storage is (re)initializing: %s",
                   resource_type(r)->resource);
    return false;
}

void list_collection(struct stream *s, struct resource *r, const char *ns,
                     struct selector *sel, const struct query *q,
                     const struct accept_choice *accept)
{
    const struct resource_type *rt = resource_type(r);
    struct list_req *lr;
    enum read_mode mode;
    int64_t rv;

    if (!list_ready(s, r)) {
        selector_free(sel);
        return;
    }
    lr = xcalloc(1, sizeof(*lr));
    lr->s = s;
    lr->r = r;
    lr->sel = sel;
    lr->limit = q->limit;
    lr->prefix = resource_type_ns_prefix(rt, ns);
    lr->prefix_len = strlen(lr->prefix);
    list_repr(lr, q, accept, ACCEPT_LIST);
    if (!list_mode(lr, q, &mode, &rv)) {
        list_req_free(lr);
        return;
    }
    list_start(lr, mode, rv);
}

void list_object(struct stream *s, struct resource *r, const char *ns,
                 const char *name, const struct query *q,
                 const struct accept_choice *accept)
{
    const struct resource_type *rt = resource_type(r);
    struct list_req *lr;
    enum read_mode mode = READ_NOT_OLDER;

    if (!list_ready(s, r))
        return;
    lr = xcalloc(1, sizeof(*lr));
    lr->s = s;
    lr->r = r;
    lr->name = xstrdup(name);
    lr->prefix = resource_type_key(rt, ns, name);
    lr->prefix_len = strlen(lr->prefix);
    list_repr(lr, q, accept, ACCEPT_GET);
    if (!q->has_rv)
        mode = READ_CONSISTENT;
    else if (q->rv == 0)
        mode = READ_ANY;
    list_start(lr, mode, q->rv);
}
