/*
 * upstream_redis_snap.c: a resource's state while listed (see
 * upstream_redis_snap.h).  An append-only array of changes, each with its
 * arrival number; emit sorts by (key, arrival) and keeps each key's last.
 */
#include "src/upstream_redis_snap.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

struct snap_change {
    char *key, *value; /* value NULL: deleted */
    size_t key_len, value_len;
    int64_t mod_rev;
    size_t seq;
};

struct upstream_redis_snap {
    int64_t l0;
    struct snap_change *c;
    size_t n, cap, emitted;
};

struct upstream_redis_snap *upstream_redis_snap_new(int64_t l0)
{
    struct upstream_redis_snap *s = xcalloc(1, sizeof(*s));

    s->l0 = l0;
    return s;
}

void upstream_redis_snap_free(struct upstream_redis_snap *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free(s->c[i].key);
        free(s->c[i].value);
    }
    free(s->c);
    free(s);
}

int64_t upstream_redis_snap_l0(const struct upstream_redis_snap *s)
{
    return s->l0;
}

static void snap_add(struct upstream_redis_snap *s, const char *key,
                     size_t key_len, const char *value, size_t value_len,
                     int64_t mod_rev)
{
    struct snap_change *c;

    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->c = xrealloc(s->c, s->cap * sizeof(*s->c));
    }
    c = &s->c[s->n];
    c->key = xmemdup(key, key_len);
    c->key_len = key_len;
    c->value = value != NULL ? xmemdup(value, value_len ? value_len : 1) : NULL;
    c->value_len = value_len;
    c->mod_rev = mod_rev;
    c->seq = s->n++;
}

void upstream_redis_snap_put(struct upstream_redis_snap *s, const char *key,
                             size_t key_len, const char *value,
                             size_t value_len, int64_t mod_rev)
{
    snap_add(s, key, key_len, value != NULL ? value : "", value_len, mod_rev);
}

void upstream_redis_snap_del(struct upstream_redis_snap *s, const char *key,
                             size_t key_len)
{
    snap_add(s, key, key_len, NULL, 0, 0);
}

static int snap_cmp(const void *a, const void *b)
{
    const struct snap_change *x = a, *y = b;
    size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
    int d = memcmp(x->key, y->key, n);

    if (d != 0)
        return d;
    if (x->key_len != y->key_len)
        return x->key_len < y->key_len ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t upstream_redis_snap_emit(struct upstream_redis_snap *s, int64_t max_rev,
                                upstream_redis_snap_fn fn, void *arg)
{
    size_t skipped = 0;

    if (s->n > 0)
        qsort(s->c, s->n, sizeof(*s->c), snap_cmp);
    s->emitted = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct snap_change *c = &s->c[i];

        if (i + 1 < s->n && c->key_len == s->c[i + 1].key_len &&
            memcmp(c->key, s->c[i + 1].key, c->key_len) == 0)
            continue; /* a later change of the same key wins */
        if (c->value == NULL)
            continue;
        if (c->mod_rev > max_rev) {
            skipped++;
            continue;
        }
        fn(c->key, c->key_len, c->value, c->value_len, c->mod_rev, arg);
        s->emitted++;
    }
    return skipped;
}

size_t upstream_redis_snap_count(const struct upstream_redis_snap *s)
{
    return s->emitted;
}
