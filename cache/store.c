/*
 * store.c: a persistent (path-copying) AVL tree of reference-counted nodes
 * (see store.h).
 *
 * Data structure: every node holds one object reference and one reference
 * to each child.  A node whose count is 1 is reachable from exactly one
 * parent (or root holder); a node whose count is above 1 is shared with a
 * snapshot, or with another tree version, and is never written again.
 * Writers descend from the store's root making each node on their path
 * private first (copy-on-write: a shared node is copied, the copy takes
 * references to the children and the object, and the link is moved to the
 * copy), then change and rebalance only private nodes.  Copying a node
 * raises its children's counts, so below a copied node every node is
 * shared and is copied in turn: a write copies at most the O(log n) nodes
 * of its path, and writes with no snapshot outstanding copy nothing.
 *
 * Invariants: in-order traversal yields keys in bytewise order (memcmp,
 * shorter first on a tie), keys unique; every node's height is 1 + the
 * larger child height and the child heights differ by at most 1; the
 * store's count and bytes equal the number of objects and the sum of their
 * JSON lengths.  No recursion: AVL height is below STORE_MAX_HEIGHT for any
 * tree that fits in memory, so fixed stacks bound every walk.
 */
#include "cache/store.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

/* An AVL tree of height 64 has at least fib(66) - 1 > 2^44 nodes. */
#define STORE_MAX_HEIGHT 64

struct node {
    uint32_t refs;
    uint32_t height; /* 1 for a leaf */
    struct node *left;
    struct node *right;
    struct object *obj;
};

struct store {
    struct node *root;
    size_t count;
    size_t bytes; /* sum of obj->json->len */
};

struct store_snap {
    uint32_t refs;
    struct node *root;
    size_t count;
};

/* In-order cursor: the nodes still to visit whose left subtrees are done. */
struct iter {
    struct node *stack[STORE_MAX_HEIGHT];
    size_t depth;
};

/* ---- keys ---- */

static int key_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t n = RW_MIN(alen, blen);
    int c = n ? memcmp(a, b, n) : 0;

    if (c != 0)
        return c;
    return alen < blen ? -1 : alen > blen;
}

static int node_cmp(const char *key, size_t len, const struct node *n)
{
    return key_cmp(key, len, n->obj->key, n->obj->key_len);
}

/* ---- nodes ---- */

static struct node *node_new(struct object *obj)
{
    struct node *n = xmalloc(sizeof(*n));

    n->refs = 1;
    n->height = 1;
    n->left = NULL;
    n->right = NULL;
    n->obj = obj;
    return n;
}

static struct node *node_ref(struct node *n)
{
    if (n != NULL) {
        rw_assert(n->refs > 0 && n->refs < UINT32_MAX);
        n->refs++;
    }
    return n;
}

/* Drops one reference; frees the nodes (and objects) that reach zero with
 * an explicit stack: a DFS over a subtree of height h holds <= h + 1. */
static void node_unref(struct node *n)
{
    struct node *stack[2 * STORE_MAX_HEIGHT];
    size_t top = 0;

    if (n == NULL)
        return;
    rw_assert(n->refs > 0);
    if (--n->refs > 0)
        return;
    stack[top++] = n;
    while (top > 0) {
        struct node *dead = stack[--top];
        struct node *kids[2] = {dead->left, dead->right};

        object_unref(dead->obj);
        free(dead);
        for (int i = 0; i < 2; i++) {
            if (kids[i] == NULL || --kids[i]->refs > 0)
                continue;
            rw_assert(top < RW_ARRAY_LEN(stack));
            stack[top++] = kids[i];
        }
    }
}

static uint32_t height(const struct node *n)
{
    return n ? n->height : 0;
}

static void fix_height(struct node *n)
{
    n->height = 1 + RW_MAX(height(n->left), height(n->right));
}

/*
 * Makes *link private to the caller (refs 1), copying it if it is shared.
 * link must itself live in a private node or be the store's root.  The
 * shared original keeps its other holders' references; it cannot reach
 * zero here because its count was above 1.
 */
static struct node *cow(struct node **link)
{
    struct node *n = *link, *copy;

    if (n->refs == 1)
        return n;
    copy = xmalloc(sizeof(*copy));
    copy->refs = 1;
    copy->height = n->height;
    copy->left = node_ref(n->left);
    copy->right = node_ref(n->right);
    copy->obj = object_ref(n->obj);
    n->refs--;
    *link = copy;
    return copy;
}

/* ---- rebalancing: every rotation makes the nodes it rewrites private ---- */

static void rotate_right(struct node **link)
{
    struct node *n = cow(link);
    struct node *l = cow(&n->left);

    n->left = l->right;
    l->right = n;
    fix_height(n);
    fix_height(l);
    *link = l;
}

static void rotate_left(struct node **link)
{
    struct node *n = cow(link);
    struct node *r = cow(&n->right);

    n->right = r->left;
    r->left = n;
    fix_height(n);
    fix_height(r);
    *link = r;
}

/* Restores the AVL balance at *link (private) after a child changed. */
static void rebalance(struct node **link)
{
    struct node *n = *link;
    int balance;

    if (n == NULL)
        return;
    fix_height(n);
    balance = (int)height(n->left) - (int)height(n->right);
    if (balance > 1) {
        if (height(n->left->left) < height(n->left->right))
            rotate_left(&n->left);
        rotate_right(link);
    } else if (balance < -1) {
        if (height(n->right->right) < height(n->right->left))
            rotate_right(&n->right);
        rotate_left(link);
    }
}

static struct node *tree_find(struct node *n, const char *key, size_t len)
{
    while (n != NULL) {
        int c = node_cmp(key, len, n);

        if (c == 0)
            return n;
        n = c < 0 ? n->left : n->right;
    }
    return NULL;
}

/* ---- the store ---- */

struct store *store_new(void)
{
    return xcalloc(1, sizeof(struct store));
}

void store_free(struct store *s)
{
    if (s == NULL)
        return;
    node_unref(s->root);
    free(s);
}

size_t store_count(const struct store *s)
{
    return s->count;
}

size_t store_bytes(const struct store *s)
{
    return s->bytes;
}

struct object *store_get(const struct store *s, const char *key, size_t len)
{
    struct node *n = tree_find(s->root, key, len);

    return n ? n->obj : NULL;
}

struct object *store_put(struct store *s, struct object *obj)
{
    struct node **path[STORE_MAX_HEIGHT];
    struct node **link = &s->root;
    size_t depth = 0;

    while (*link != NULL) {
        struct node *n = cow(link);
        int c = node_cmp(obj->key, obj->key_len, n);

        if (c == 0) {
            struct object *old = n->obj;

            n->obj = obj;
            s->bytes = s->bytes - old->json->len + obj->json->len;
            return old;
        }
        rw_assert(depth < STORE_MAX_HEIGHT);
        path[depth++] = link;
        link = c < 0 ? &n->left : &n->right;
    }
    *link = node_new(obj);
    s->count++;
    s->bytes += obj->json->len;
    while (depth > 0)
        rebalance(path[--depth]);
    return NULL;
}

/* Unlinks the leftmost node under *link (private path pushed on path),
 * returns its object and frees the node. */
static struct object *unlink_min(struct node **link, struct node ***path,
                                 size_t *depth)
{
    struct node *min;
    struct object *obj;

    while (cow(link)->left != NULL) {
        rw_assert(*depth < STORE_MAX_HEIGHT);
        path[(*depth)++] = link;
        link = &(*link)->left;
    }
    min = *link;
    obj = min->obj;
    *link = min->right; /* min's reference moves to the link */
    free(min);
    return obj;
}

struct object *store_delete(struct store *s, const char *key, size_t len)
{
    struct node **path[STORE_MAX_HEIGHT];
    struct node **link = &s->root;
    struct object *old;
    struct node *n;
    size_t depth = 0;

    /* Absent keys must not copy a path for nothing. */
    if (tree_find(s->root, key, len) == NULL)
        return NULL;
    for (;;) {
        int c;

        n = cow(link);
        c = node_cmp(key, len, n);
        if (c == 0)
            break;
        rw_assert(depth < STORE_MAX_HEIGHT);
        path[depth++] = link;
        link = c < 0 ? &n->left : &n->right;
    }
    old = n->obj;
    if (n->left != NULL && n->right != NULL) {
        /* Keep the node, move its in-order successor's object into it. */
        rw_assert(depth < STORE_MAX_HEIGHT);
        path[depth++] = link;
        n->obj = unlink_min(&n->right, path, &depth);
    } else {
        *link = n->left ? n->left : n->right;
        free(n);
    }
    s->count--;
    s->bytes -= old->json->len;
    while (depth > 0)
        rebalance(path[--depth]);
    return old;
}

void store_clear(struct store *s)
{
    node_unref(s->root);
    s->root = NULL;
    s->count = 0;
    s->bytes = 0;
}

/* ---- snapshots ---- */

struct store_snap *store_snapshot(const struct store *s)
{
    struct store_snap *snap = xmalloc(sizeof(*snap));

    snap->refs = 1;
    snap->root = node_ref(s->root);
    snap->count = s->count;
    return snap;
}

struct store_snap *store_snap_ref(struct store_snap *snap)
{
    if (snap != NULL) {
        rw_assert(snap->refs > 0 && snap->refs < UINT32_MAX);
        snap->refs++;
    }
    return snap;
}

void store_snap_unref(struct store_snap *snap)
{
    if (snap == NULL)
        return;
    rw_assert(snap->refs > 0);
    if (--snap->refs > 0)
        return;
    node_unref(snap->root);
    free(snap);
}

size_t store_snap_count(const struct store_snap *snap)
{
    return snap->count;
}

static bool store_bytes_cb(struct object *obj, void *arg)
{
    *(size_t *)arg += obj->json->len;
    return true;
}

struct store *store_from_snap(const struct store_snap *snap)
{
    struct store *s = store_new();

    s->root = node_ref(snap->root);
    s->count = snap->count;
    store_snap_scan(snap, NULL, 0, store_bytes_cb, &s->bytes);
    return s;
}

struct object *store_snap_get(const struct store_snap *snap, const char *key,
                              size_t len)
{
    struct node *n = tree_find(snap->root, key, len);

    return n ? n->obj : NULL;
}

struct object *store_snap_seek(const struct store_snap *snap, const char *key,
                               size_t len, bool inclusive)
{
    struct node *n = snap->root, *best = NULL;

    while (n != NULL) {
        int c = key ? node_cmp(key, len, n) : -1;

        if (c < 0 || (c == 0 && inclusive)) {
            best = n;
            n = n->left;
        } else {
            n = n->right;
        }
    }
    return best ? best->obj : NULL;
}

/* ---- in-order walks ---- */

static void iter_push(struct iter *it, struct node *n)
{
    rw_assert(it->depth < STORE_MAX_HEIGHT);
    it->stack[it->depth++] = n;
}

/* Positions it at the first key >= key (all keys when key is NULL). */
static void iter_seek(struct iter *it, struct node *n, const char *key,
                      size_t len)
{
    it->depth = 0;
    while (n != NULL) {
        if (key == NULL || node_cmp(key, len, n) <= 0) {
            iter_push(it, n);
            n = n->left;
        } else {
            n = n->right;
        }
    }
}

static struct object *iter_next(struct iter *it)
{
    struct node *n, *m;

    if (it->depth == 0)
        return NULL;
    n = it->stack[--it->depth];
    for (m = n->right; m != NULL; m = m->left)
        iter_push(it, m);
    return n->obj;
}

void store_snap_scan(const struct store_snap *snap, const char *prefix,
                     size_t prefix_len, store_visit_fn fn, void *arg)
{
    struct iter it;
    struct object *obj;

    if (prefix == NULL)
        prefix_len = 0;
    iter_seek(&it, snap->root, prefix_len ? prefix : NULL, prefix_len);
    while ((obj = iter_next(&it)) != NULL) {
        if (prefix_len > 0 && (obj->key_len < prefix_len ||
                               memcmp(obj->key, prefix, prefix_len) != 0))
            break;
        if (!fn(obj, arg))
            break;
    }
}

void store_snap_diff(const struct store_snap *a, const struct store_snap *b,
                     store_diff_fn fn, void *arg)
{
    struct iter ia, ib;
    struct object *x, *y;

    iter_seek(&ia, a->root, NULL, 0);
    iter_seek(&ib, b->root, NULL, 0);
    x = iter_next(&ia);
    y = iter_next(&ib);
    while (x != NULL || y != NULL) {
        int c = x == NULL   ? 1
                : y == NULL ? -1
                            : key_cmp(x->key, x->key_len, y->key, y->key_len);

        if (c < 0) {
            fn(x, NULL, arg);
            x = iter_next(&ia);
        } else if (c > 0) {
            fn(NULL, y, arg);
            y = iter_next(&ib);
        } else {
            /* Same key: equal ModRevisions mean the same stored value. */
            if (x != y && x->rv != y->rv)
                fn(x, y, arg);
            x = iter_next(&ia);
            y = iter_next(&ib);
        }
    }
}
