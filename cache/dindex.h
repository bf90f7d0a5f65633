/*
 * dindex.h: the dispatcher's index: entries (watchers) filed under string
 * keys, so that for each event the dispatcher visits only the watchers
 * filed under the event's keys (docs/design.md "Data flow": work per
 * event proportional to the watchers it concerns, not to all watchers).
 *
 * Entries are embedded in their owners (no allocation per entry); a key's
 * entries form a list in its bucket; a bucket exists while it has entries.
 * The table is open hashing with chaining, a power of two of slots, grown
 * (doubled) when the buckets outnumber the slots.  No I/O, no clocks.
 */
#ifndef DINDEX_H
#define DINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

struct dindex;
struct dindex_bucket;

struct dindex_entry {
    LIST_ENTRY(dindex_entry) link; /* private */
    struct dindex_bucket *bucket;  /* private; NULL when not filed */
};

struct dindex *dindex_new(void);
/* Frees the table and its buckets; entries still filed are dropped (their
 * owners must not use them again).  NULL is a no-op. */
void dindex_free(struct dindex *ix);

/* Files e under key (len bytes, copied into the bucket when the key is
 * new).  e must not be filed already.  O(1) expected. */
void dindex_add(struct dindex *ix, const char *key, size_t len,
                struct dindex_entry *e);
/* Unfiles e (a no-op when it is not filed); frees its bucket when that
 * was the last entry.  O(1). */
void dindex_remove(struct dindex *ix, struct dindex_entry *e);
/* The first entry filed under key, or NULL; follow dindex_next.  Entries
 * may be removed while walking if the walker took dindex_next first.
 * O(1) expected. */
struct dindex_entry *dindex_first(const struct dindex *ix, const char *key,
                                  size_t len);
/* The entry filed after e under the same key, or NULL. */
static inline struct dindex_entry *dindex_next(const struct dindex_entry *e)
{
    return LIST_NEXT(e, link);
}
/* Distinct keys filed (buckets). */
size_t dindex_keys(const struct dindex *ix);

#endif
