/*
 * line_cache.c: each distinct watch event line scanned once (see
 * line_cache.h).
 *
 * Data structure: LINES_SETS sets of LINES_WAYS entries (struct
 * line_slot), the least recently used of a set replaced; entries are
 * named by index + 1 (0: none) in the succession chain and in a reader's
 * last line.
 */
#include "src/fleet/line_cache.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

#define LINES_SETS 1024     /* sets (a power of two) */
#define LINES_WAYS 4        /* entries per set */
#define LINES_MAX_LEN 65536 /* longer lines are scanned, not cached */

/* One entry: a line's bytes and what they say. */
struct line_slot {
    uint64_t hash; /* line_hash of the bytes */
    uint64_t used; /* clock at the last lookup that found it; 0: empty */
    char *bytes;
    uint32_t len, cap;
    uint32_t next; /* index + 1 of the entry a watcher received after
                      this one, last time; 0: none */
    struct line_cache_info info;
};

struct line_cache {
    struct keys *keys;
    struct line_slot *lines;     /* LINES_SETS * LINES_WAYS; NULL until used */
    uint64_t clock;              /* lookups so far */
    struct line_slot *line_last; /* the entry found or filled last */
    uint64_t scanned;
};

struct line_cache *line_cache_new(struct keys *keys)
{
    struct line_cache *lc = xcalloc(1, sizeof(*lc));

    lc->keys = keys;
    return lc;
}

void line_cache_free(struct line_cache *lc)
{
    if (lc == NULL)
        return;
    if (lc->lines != NULL)
        for (size_t i = 0; i < LINES_SETS * LINES_WAYS; i++)
            free(lc->lines[i].bytes);
    free(lc->lines);
    free(lc);
}

uint32_t line_cache_key(struct keys *keys, const struct scan_object *o)
{
    char ns[320], name[320];
    size_t ns_len, name_len;

    if (!o->ns.escaped && !o->name.escaped)
        return keys_intern(keys, o->ns.p ? o->ns.p : "", o->ns.len, o->name.p,
                           o->name.len);
    ns_len = scan_str_decode(&o->ns, ns, sizeof(ns));
    name_len = scan_str_decode(&o->name, name, sizeof(name));
    return keys_intern(keys, ns, RW_MIN(ns_len, sizeof(ns) - 1), name,
                       RW_MIN(name_len, sizeof(name) - 1));
}

/* Scans one event line into *li, interning an event's object key. */
static void line_scan(struct line_cache *lc, const char *line, size_t len,
                      struct line_cache_info *li)
{
    struct scan_event ev;
    const struct scan_object *o = &ev.object;

    memset(li, 0, sizeof(*li));
    li->type = SCAN_UNKNOWN;
    li->key = KEYS_NONE;
    li->rv = li->written_at = -1;
    li->view_hint = UINT32_MAX;
    lc->scanned++;
    if (scan_event(line, len, SCAN_FAST, &ev) != 0 || !ev.has_object)
        return;
    li->type = ev.type;
    li->rv = o->rv;
    li->written_at = o->written_at;
    li->code = o->code;
    if ((ev.type == SCAN_ADDED || ev.type == SCAN_MODIFIED ||
         ev.type == SCAN_DELETED) &&
        o->name.p != NULL && o->rv > 0)
        li->key = line_cache_key(lc->keys, o);
}

static inline uint64_t line_rotl(uint64_t x, unsigned r)
{
    return x << r | x >> (64 - r);
}

static uint64_t line_word(const char *p)
{
    uint64_t w;

    memcpy(&w, p, sizeof(w));
    return w;
}

#define LINE_MIX(lane, word)                                                   \
    ((lane) = line_rotl(((lane) ^ (word)) * 0x9e3779b97f4a7c15ull, 29))

/*
 * A 64-bit hash of all len bytes: four independent multiply-rotate lanes
 * over 8-byte words (about a word per cycle), then the tail, the length
 * and a final avalanche.  Only picks the cache set and filters
 * candidates: a hit is always confirmed by comparing the bytes.
 */
static uint64_t line_hash(const char *p, size_t len)
{
    uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull;
    uint64_t c = 0xa4093822299f31d0ull, d = 0x082efa98ec4e6c89ull;
    uint64_t h = len, tail = 0;
    size_t i = 0;

    for (; i + 32 <= len; i += 32) {
        LINE_MIX(a, line_word(p + i));
        LINE_MIX(b, line_word(p + i + 8));
        LINE_MIX(c, line_word(p + i + 16));
        LINE_MIX(d, line_word(p + i + 24));
    }
    for (; i + 8 <= len; i += 8)
        LINE_MIX(a, line_word(p + i));
    memcpy(&tail, p + i, len - i);
    LINE_MIX(b, tail);
    LINE_MIX(h, a);
    LINE_MIX(h, b);
    LINE_MIX(h, c);
    LINE_MIX(h, d);
    h ^= h >> 32;
    h *= 0xd6e8feb86659fd93ull;
    return h ^ (h >> 32);
}

static bool line_is(const struct line_slot *s, const char *line, size_t len)
{
    return s->used != 0 && s->len == len && memcmp(s->bytes, line, len) == 0;
}

/* The entry holding line (len <= LINES_MAX_LEN bytes), found by its hash
 * or, on a miss, made by scanning it into the least recently used entry
 * of its set. */
static struct line_slot *line_lookup(struct line_cache *lc, const char *line,
                                     size_t len)
{
    uint64_t h = line_hash(line, len);
    struct line_slot *set = &lc->lines[(h & (LINES_SETS - 1)) * LINES_WAYS];
    struct line_slot *victim = set;

    for (size_t i = 0; i < LINES_WAYS; i++) {
        if (set[i].hash == h && line_is(&set[i], line, len))
            return &set[i];
        if (set[i].used < victim->used)
            victim = &set[i];
    }
    line_scan(lc, line, len, &victim->info);
    if (victim->cap < len) {
        free(victim->bytes);
        victim->cap = (uint32_t)RW_MAX(len, 256);
        victim->bytes = xmalloc(victim->cap);
    }
    memcpy(victim->bytes, line, len);
    victim->len = (uint32_t)len;
    victim->hash = h;
    victim->next = 0;
    return victim;
}

/*
 * Watchers of one selection receive the same lines in the same order, so
 * the line that followed the reader's previous line for an earlier
 * watcher is tried first, then the entry found last (the watchers sharing
 * a connection often get one change back to back), then the hash: a
 * compare is cheaper than hashing.
 */
struct line_cache_info *line_cache_get(struct line_cache *lc, uint32_t *last,
                                       const char *line, size_t len,
                                       struct line_cache_info *tmp)
{
    struct line_slot *prev = NULL, *s = NULL;

    if (len > LINES_MAX_LEN) {
        line_scan(lc, line, len, tmp);
        return tmp;
    }
    if (lc->lines == NULL)
        lc->lines = xcalloc(LINES_SETS * LINES_WAYS, sizeof(*lc->lines));
    if (*last != 0) {
        prev = &lc->lines[*last - 1];
        if (prev->next != 0 && line_is(&lc->lines[prev->next - 1], line, len))
            s = &lc->lines[prev->next - 1];
    }
    if (s == NULL && lc->line_last != NULL && line_is(lc->line_last, line, len))
        s = lc->line_last;
    if (s == NULL)
        s = line_lookup(lc, line, len);
    s->used = ++lc->clock;
    lc->line_last = s;
    *last = (uint32_t)(s - lc->lines) + 1;
    if (prev != NULL)
        prev->next = *last;
    return &s->info;
}

uint64_t line_cache_scanned(const struct line_cache *lc)
{
    return lc->scanned;
}

size_t line_cache_footprint(const struct line_cache *lc)
{
    size_t bytes = sizeof(*lc);

    if (lc->lines != NULL) {
        bytes += LINES_SETS * LINES_WAYS * sizeof(*lc->lines);
        for (size_t i = 0; i < LINES_SETS * LINES_WAYS; i++)
            bytes += lc->lines[i].cap;
    }
    return bytes;
}
