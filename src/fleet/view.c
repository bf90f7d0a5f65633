/*
 * view.c: key index -> resourceVersion maps (see view.h).
 *
 * Invariants: keys[0..n) strictly increasing; live = number of rvs[i] > 0;
 * tombstones (rv 0) are never more than live + 16 for long.  A hint is
 * only ever a guess: it is checked (index in range, key equal) before
 * use.
 */
#include "src/fleet/view.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

void view_init(struct view *v)
{
    memset(v, 0, sizeof(*v));
}

void view_fini(struct view *v)
{
    free(v->keys);
    free(v->rvs);
    view_init(v);
}

void view_clear(struct view *v)
{
    v->n = 0;
    v->live = 0;
}

/* Position of key, or where it would be inserted; hint is tried first
 * (UINT32_MAX: none). */
static uint32_t view_find(const struct view *v, uint32_t key, uint32_t hint)
{
    uint32_t lo = 0, hi = v->n;

    if (hint < v->n && v->keys[hint] == key)
        return hint;
    if (v->n > 0 && v->keys[v->n - 1] < key)
        return v->n; /* the common append */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (v->keys[mid] < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t view_get(const struct view *v, uint32_t key)
{
    uint32_t i = view_find(v, key, UINT32_MAX);

    return i < v->n && v->keys[i] == key ? v->rvs[i] : 0;
}

static void view_reserve(struct view *v, uint32_t need)
{
    if (need <= v->cap)
        return;
    v->cap = RW_MAX(need, v->cap ? v->cap + v->cap / 2 : 8);
    v->keys = xrealloc(v->keys, (size_t)v->cap * sizeof(*v->keys));
    v->rvs = xrealloc(v->rvs, (size_t)v->cap * sizeof(*v->rvs));
}

int64_t view_put(struct view *v, uint32_t key, int64_t rv)
{
    uint32_t hint = UINT32_MAX;

    return view_put_hint(v, key, rv, &hint);
}

int64_t view_put_hint(struct view *v, uint32_t key, int64_t rv, uint32_t *hint)
{
    uint32_t i = view_find(v, key, *hint);
    int64_t old;

    rw_assert(rv > 0);
    *hint = i;
    if (i < v->n && v->keys[i] == key) {
        old = v->rvs[i];
        v->rvs[i] = rv;
        if (old == 0)
            v->live++;
        return old;
    }
    view_reserve(v, v->n + 1);
    memmove(v->keys + i + 1, v->keys + i,
            (size_t)(v->n - i) * sizeof(*v->keys));
    memmove(v->rvs + i + 1, v->rvs + i, (size_t)(v->n - i) * sizeof(*v->rvs));
    v->keys[i] = key;
    v->rvs[i] = rv;
    v->n++;
    v->live++;
    return 0;
}

/* Squeezes tombstones out. */
static void view_compact(struct view *v)
{
    uint32_t j = 0;

    for (uint32_t i = 0; i < v->n; i++) {
        if (v->rvs[i] == 0)
            continue;
        v->keys[j] = v->keys[i];
        v->rvs[j] = v->rvs[i];
        j++;
    }
    v->n = j;
}

int64_t view_remove(struct view *v, uint32_t key)
{
    uint32_t hint = UINT32_MAX;

    return view_remove_hint(v, key, &hint);
}

int64_t view_remove_hint(struct view *v, uint32_t key, uint32_t *hint)
{
    uint32_t i = view_find(v, key, *hint);
    int64_t old;

    *hint = i;
    if (i >= v->n || v->keys[i] != key || v->rvs[i] == 0)
        return 0;
    old = v->rvs[i];
    v->rvs[i] = 0;
    v->live--;
    if (v->n - v->live > v->live + 16)
        view_compact(v);
    return old;
}

void view_copy(struct view *dst, const struct view *src)
{
    view_reserve(dst, src->n);
    if (src->n > 0) {
        memcpy(dst->keys, src->keys, (size_t)src->n * sizeof(*dst->keys));
        memcpy(dst->rvs, src->rvs, (size_t)src->n * sizeof(*dst->rvs));
    }
    dst->n = src->n;
    dst->live = src->live;
}

bool view_equal(const struct view *a, const struct view *b)
{
    uint32_t i = 0, j = 0;

    if (a->live != b->live)
        return false;
    for (;;) {
        while (i < a->n && a->rvs[i] == 0)
            i++;
        while (j < b->n && b->rvs[j] == 0)
            j++;
        if (i == a->n || j == b->n)
            return i == a->n && j == b->n;
        if (a->keys[i] != b->keys[j] || a->rvs[i] != b->rvs[j])
            return false;
        i++;
        j++;
    }
}

size_t view_footprint(const struct view *v)
{
    return (size_t)v->cap * (sizeof(*v->keys) + sizeof(*v->rvs));
}
