/*
 * line_cache.h: the watch event lines the fleet's watchers receive, each
 * distinct line scanned once for all of them.
 *
 * Every watcher of a selection receives the same bytes for one change
 * (the server encodes each event once), so each distinct watch event line
 * is scanned (scan.h) once for the whole fleet, not once per watcher.  A
 * set-associative table holds copies of recent lines with what each says
 * (struct line_cache_info) and a hint of where the key sits in the
 * receivers' views.  Entries are chained by succession (the line a
 * watcher received after this one), so a watcher usually finds its next
 * line by comparing it with the successor of its previous one; else with
 * the entry found last, else by a hash of all its bytes.  A hit is always
 * confirmed by comparing all the bytes: equal bytes scan to equal
 * results, so every check still runs per watcher on what that watcher
 * received.
 *
 * Invariants: an entry's info is the scan of exactly its bytes (a key
 * index, once interned, never changes); its view_hint, its successor and
 * a reader's last line are only guesses, checked before use (entries are
 * replaced under them).
 */
#ifndef FLEET_LINE_CACHE_H
#define FLEET_LINE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "src/fleet/keys.h"
#include "src/fleet/scan.h"

/* What one watch event line says. */
struct line_cache_info {
    enum scan_event_type type; /* SCAN_UNKNOWN also when the line did not
                                  scan or had no object */
    uint32_t key;       /* an event's object key index, when it has a name
                           and an RV > 0; else KEYS_NONE */
    uint32_t view_hint; /* where the last watcher found key in its view
                           (view_put_hint); UINT32_MAX: none */
    int64_t rv;         /* metadata.resourceVersion; -1 absent, invalid */
    int64_t written_at; /* unix ns; -1 absent, invalid */
    int64_t code;       /* ERROR: the Status's code */
};

struct line_cache;

/* An empty cache interning object keys in keys (borrowed); the table is
 * allocated at the first line. */
struct line_cache *line_cache_new(struct keys *keys);
void line_cache_free(struct line_cache *lc);

/*
 * What line (len bytes, without its newline) says, valid until the next
 * call; its view_hint may be updated by the caller.  *last is the
 * reader's own state (0 before its first line), updated.  Lines over
 * 64 KiB are scanned into tmp, not cached.
 */
struct line_cache_info *line_cache_get(struct line_cache *lc, uint32_t *last,
                                       const char *line, size_t len,
                                       struct line_cache_info *tmp);

/* The key index of a scanned object's metadata.namespace/name, interned
 * in keys (escaped strings decoded first). */
uint32_t line_cache_key(struct keys *keys, const struct scan_object *o);

/* Lines scanned so far (the rest were found in the cache). */
uint64_t line_cache_scanned(const struct line_cache *lc);

/* Bytes held. */
size_t line_cache_footprint(const struct line_cache *lc);

#endif
