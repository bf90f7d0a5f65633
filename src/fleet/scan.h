/*
 * scan.h: a single-pass JSON scanner for watch event lines, LIST bodies and
 * Kubernetes objects, extracting only what the fleet verifies.
 *
 * The scanner walks the JSON structurally (objects, arrays, strings with
 * their escapes, numbers, literals) without building a tree and without
 * copying: every string it reports is a span of the input (struct
 * scan_str), decoded only on demand (scan_str_decode).  From a watch event
 * {"type":T,"object":O} it takes T and, from O, metadata.namespace,
 * metadata.name, metadata.resourceVersion,
 * metadata.annotations["ringwatch.io/written-at"] and, for a Status (ERROR
 * events, error responses), code, reason and message.  Only direct members
 * count: a "metadata" nested in spec.template is not O's.  As Go's
 * encoding/json (and kjson_decode_object), a repeated key's last
 * occurrence wins and null reads as absent.
 *
 * Speed: an event is scanned in one pass over its bytes, with memchr-like
 * loops inside strings.  In SCAN_FAST mode scan_event stops as soon as it
 * has the type and the object's metadata and the event is not an ERROR:
 * the rest of the line (spec, status: most of a pod's bytes) is neither
 * looked at nor validated, and a later repeated "metadata" is not seen.
 * Without SCAN_FAST the whole line is validated as JSON.
 *
 * Why not the daemon's scanner (proto/kjson_scan.h): that one validates
 * the whole value before anything is read (the decoder must refuse bad
 * store values) and walks only the members the decoder splices; it has no
 * early stop, no member iterator (scan_iter, for writer.c) and no string
 * spans.  Measured on one 4155-byte pod MODIFIED event line (managedFields,
 * spec, status; gcc -O2, best of 7 rounds of 300000 scans, 2-core VM):
 * scan_event with SCAN_FAST 2.5 us, scan_event full 5.0 us,
 * kjson_scan_layout 5.1 us, and as the decoder runs it (utf8_valid first)
 * 9.8 us.  On the fleet's hot path (watcher.c, one scan per delivered
 * event) the separate scanner is twice as fast, so both stay.
 */
#ifndef FLEET_SCAN_H
#define FLEET_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The annotation the fleet's writer stamps: wall-clock unix nanoseconds at
 * the write, as a decimal string. */
#define SCAN_WRITTEN_AT "ringwatch.io/written-at"

/* Deepest nesting of arrays and objects accepted (as cJSON's default). */
#define SCAN_MAX_DEPTH 1000

/* A JSON string as it stands in the input: the bytes between the quotes
 * (p, len), still escaped when escaped is true.  p is NULL when the member
 * was absent, null, or not a string. */
struct scan_str {
    const char *p;
    uint32_t len;
    bool escaped;
};

enum scan_event_type {
    SCAN_UNKNOWN = 0, /* "type" absent or not one of the below */
    SCAN_ADDED,
    SCAN_MODIFIED,
    SCAN_DELETED,
    SCAN_BOOKMARK,
    SCAN_ERROR,
};

/* What the fleet reads from one Kubernetes object (or Status). */
struct scan_object {
    struct scan_str ns;              /* metadata.namespace */
    struct scan_str name;            /* metadata.name */
    struct scan_str rv_text;         /* metadata.resourceVersion */
    struct scan_str written_at_text; /* metadata.annotations[SCAN_WRITTEN_AT] */
    int64_t rv;         /* rv_text as a decimal int64; -1 absent or invalid */
    int64_t written_at; /* written_at_text likewise, nanoseconds; -1 */
    /* A Status's members (docs/kube-wire.md "Status objects"). */
    int64_t code; /* "code" when an integral number; 0 otherwise */
    struct scan_str reason;
    struct scan_str message;
};

struct scan_event {
    enum scan_event_type type;
    struct scan_str type_text; /* the raw "type" string */
    bool has_object;           /* "object" was a JSON object */
    struct scan_object object;
};

/* Flags of scan_event. */
enum {
    SCAN_FAST = 1u << 0, /* stop after type and metadata (see above) */
};

/*
 * Scans one event line (len bytes; a trailing newline and whitespace are
 * allowed) into *ev, whose spans point into line.  Returns 0, or RW_EINVAL
 * when the bytes scanned are not JSON or the top level is not an object
 * (*ev is then partly filled and meaningless).  A well-formed object
 * without "type" or "object" is not an error: type SCAN_UNKNOWN,
 * has_object false.
 */
int scan_event(const char *line, size_t len, unsigned flags,
               struct scan_event *ev);

/*
 * Scans one JSON object (a store value, a Status body) of len bytes into
 * *obj; the whole input is validated.  Returns 0 or RW_EINVAL as above.
 */
int scan_object(const char *json, size_t len, struct scan_object *obj);

/* One item of a LIST: its scanned object (spans into the LIST body). */
typedef void (*scan_item_cb)(const struct scan_object *item, void *arg);

/*
 * Scans a LIST response {"kind":...,"metadata":{"resourceVersion":"N"},
 * "items":[...]} of len bytes: calls cb once per item, in order, then sets
 * *list_rv (metadata.resourceVersion, -1 when absent or invalid).  Returns
 * 0, or RW_EINVAL when the body is not JSON, not an object, or "items" is
 * present but not an array of objects (cb may have run for earlier items).
 */
int scan_list(const char *json, size_t len, int64_t *list_rv, scan_item_cb cb,
              void *arg);

/* ---- building blocks, also for rewriting objects (writer.c) ---- */

/* Iterates over the members of one JSON object.  Fields are private. */
struct scan_iter {
    const char *p, *end;
    int depth;
    int state; /* 0: before the first member, 1: after one, 2: done */
};

/*
 * Starts iterating the object whose '{' is the first non-blank byte of
 * [p, end).  depth is the nesting of that object (0 at the top level).
 * Returns false when there is no '{' there.
 */
bool scan_iter_begin(struct scan_iter *it, const char *p, const char *end,
                     int depth);

/*
 * The next member: its key and its value's bytes [*value, *value_end)
 * (the value validated as JSON).  Returns 1 for a member, 0 at the closing
 * '}' (then scan_iter_end gives the byte after it), RW_EINVAL on malformed
 * input.
 */
int scan_iter_next(struct scan_iter *it, struct scan_str *key,
                   const char **value, const char **value_end);

/* After scan_iter_next returned 0: the byte after the object's '}'. */
const char *scan_iter_end(const struct scan_iter *it);

/*
 * The end of the JSON value starting at the first non-blank byte of
 * [p, end), validated, nested at most SCAN_MAX_DEPTH - depth deeper; NULL
 * when malformed or truncated.
 */
const char *scan_skip_value(const char *p, const char *end, int depth);

/* Whether the string s, decoded, equals the len bytes at lit. */
bool scan_str_eq(const struct scan_str *s, const char *lit, size_t len);

/*
 * Decodes s (escapes, \uXXXX with surrogate pairs to UTF-8; a lone
 * surrogate becomes U+FFFD) into out, which has room for cap bytes;
 * NUL-terminates when cap > 0.  Returns the decoded length, which may
 * exceed cap - 1 (then out holds a truncated prefix).  An absent s decodes
 * to "".
 */
size_t scan_str_decode(const struct scan_str *s, char *out, size_t cap);

/* Parses a decimal int64 of 1..19 digits (no sign); -1 otherwise. */
int64_t scan_decimal(const char *p, size_t len);

#endif
