/*
 * fake_upstream.h: a fake upstream store behind struct upstream_reader
 * (src/upstream.h), for the unit tests of the reads (src/fresh.c,
 * src/list.c): the keys the test puts, the store's revision, its compacted
 * revision, and whether it can be reached.  Every read is answered from
 * the event loop, as the real adapter's.  Kept in one place so that a
 * change of the reader interface is one change here.
 */
#ifndef FAKE_UPSTREAM_H
#define FAKE_UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "src/upstream.h"

struct event_base;

struct fake_upstream;

struct fake_upstream *fake_upstream_new(struct event_base *base);
void fake_upstream_free(struct fake_upstream *fu);
/* The reader to hand to resource_set_reader (lives as long as fu). */
const struct upstream_reader *fake_upstream_reader(struct fake_upstream *fu);

/* The store now: key -> value, at revision rev (pages are read as of
 * now, whatever revision they ask for between compacted + 1 and rev). */
void fake_upstream_put(struct fake_upstream *fu, const char *key,
                       const char *value, int64_t mod_rev);
void fake_upstream_set_rev(struct fake_upstream *fu, int64_t rev);
/* Revisions at or below it answer RW_EEXPIRED. */
void fake_upstream_set_compacted(struct fake_upstream *fu, int64_t rev);
/* What every probe finds instead of what the keys say: the store at
 * revision rev holds count keys under the prefix, one of them written
 * after the probe's since when modified.  The answer is unchanged when
 * none was and the count is the caller's, as the etcd adapter's. */
struct fake_probe {
    int64_t rev;
    int64_t count;
    bool modified;
};
/* NULL: the keys say. */
void fake_upstream_set_probe(struct fake_upstream *fu,
                             const struct fake_probe *p);
/* Reads cannot be started (no connection). */
void fake_upstream_set_unavailable(struct fake_upstream *fu, bool down);

/* Reads started so far: probes, pages. */
size_t fake_upstream_probes(const struct fake_upstream *fu);
size_t fake_upstream_pages(const struct fake_upstream *fu);

#endif
