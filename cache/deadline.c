/*
 * deadline.c: a binary min-heap of deadlines (see deadline.h).
 *
 * Invariants: items[i]->index == i for every i < n; items[(i-1)/2]->at
 * <= items[i]->at for every i > 0.
 */
#include "cache/deadline.h"

#include <stdlib.h>

#include "cache/rw.h"

static void heap_set(struct deadline_heap *h, size_t i,
                     struct deadline_item *item)
{
    h->items[i] = item;
    item->index = i;
}

static void heap_up(struct deadline_heap *h, size_t i)
{
    struct deadline_item *item = h->items[i];

    while (i > 0 && h->items[(i - 1) / 2]->at > item->at) {
        heap_set(h, i, h->items[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(h, i, item);
}

static void heap_down(struct deadline_heap *h, size_t i)
{
    struct deadline_item *item = h->items[i];

    for (;;) {
        size_t c = 2 * i + 1;

        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->items[c + 1]->at < h->items[c]->at)
            c++;
        if (h->items[c]->at >= item->at)
            break;
        heap_set(h, i, h->items[c]);
        i = c;
    }
    heap_set(h, i, item);
}

void deadline_add(struct deadline_heap *h, struct deadline_item *item,
                  uint64_t at)
{
    rw_assert(item->index == SIZE_MAX);
    if (h->n == h->cap) {
        h->cap = h->cap ? h->cap * 2 : 64;
        h->items = xrealloc(h->items, h->cap * sizeof(*h->items));
    }
    item->at = at;
    h->items[h->n] = item;
    item->index = h->n++;
    heap_up(h, item->index);
}

void deadline_remove(struct deadline_heap *h, struct deadline_item *item)
{
    size_t i = item->index;
    struct deadline_item *last;

    if (i == SIZE_MAX)
        return;
    rw_assert(i < h->n && h->items[i] == item);
    item->index = SIZE_MAX;
    last = h->items[--h->n];
    if (i == h->n)
        return;
    heap_set(h, i, last);
    heap_up(h, i);
    heap_down(h, last->index);
}

struct deadline_item *deadline_first(const struct deadline_heap *h)
{
    return h->n ? h->items[0] : NULL;
}

void deadline_fini(struct deadline_heap *h)
{
    for (size_t i = 0; i < h->n; i++)
        h->items[i]->index = SIZE_MAX;
    free(h->items);
    h->items = NULL;
    h->n = h->cap = 0;
}
