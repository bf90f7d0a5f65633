/*
 * deadline.h: a binary min-heap of deadlines, so that thousands of
 * long-lived requests (watches ending at timeoutSeconds or after the
 * random 30-60 minutes) cost one timer in the event loop and 24 bytes
 * each, instead of one timer event each.
 *
 * Items are embedded in their owners; the heap holds pointers to them and
 * keeps each item's position in it, so removal is O(log n).  Times are
 * whatever unit the caller uses (ringwatch: monotonic milliseconds).  No
 * I/O, no clocks.
 */
#ifndef DEADLINE_H
#define DEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct deadline_item {
    uint64_t at;  /* when it is due */
    size_t index; /* private: position in the heap, or SIZE_MAX */
};

struct deadline_heap {
    struct deadline_item **items; /* private */
    size_t n, cap;
};

/* An item that is in no heap (also what deadline_remove leaves). */
#define DEADLINE_ITEM_INIT                                                     \
    {                                                                          \
        0, SIZE_MAX                                                            \
    }

/* Adds item, due at `at`; it must not be in a heap.  O(log n). */
void deadline_add(struct deadline_heap *h, struct deadline_item *item,
                  uint64_t at);
/* Removes item if it is in h (else a no-op).  O(log n). */
void deadline_remove(struct deadline_heap *h, struct deadline_item *item);
/* The item due first, or NULL when h is empty.  O(1). */
struct deadline_item *deadline_first(const struct deadline_heap *h);
/* Frees h's array; items still in it are dropped (marked out). */
void deadline_fini(struct deadline_heap *h);

#endif
