/*
 * kjson_scan.h: the strict JSON scanner of store values, for the decoder
 * (kjson_decode.c): it validates a value strictly as RFC 8259 and Go's
 * encoding/json (no leading zeros, no raw control characters in strings,
 * only the escapes \" \\ \/ \b \f \n \r \t \uXXXX, at most 1000
 * containers deep as cJSON's CJSON_NESTING_LIMIT) and finds, without
 * allocating, the spans of the members the decoder completes: kind,
 * apiVersion and metadata at the top, name, namespace and resourceVersion
 * inside metadata.  Member names compare after unescaping, case-sensitively;
 * for a repeated member the last occurrence's span is recorded, as Go's
 * decoder reads it.
 *
 * The fleet's scanner (src/fleet/scan.h) is another one on purpose: it
 * stops early on its hot path and is twice as fast there (the measurement
 * is in scan.h).
 */
#ifndef KJSON_SCAN_H
#define KJSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sbuf;

/* The members of an object the codec looks for: the last occurrence's
 * value span, and how many there are. */
struct kjson_scan_member {
    unsigned count;
    size_t val; /* offset of the value's first byte */
    size_t end; /* offset just past the value */
};

/* An object's braces and its number of members. */
struct kjson_scan_braces {
    size_t open;  /* offset of '{' */
    size_t close; /* offset of '}' */
    size_t nmembers;
};

/* The members looked for: at the top, and inside metadata. */
enum {
    KJSON_SCAN_KIND,
    KJSON_SCAN_API_VERSION,
    KJSON_SCAN_METADATA,
    KJSON_SCAN_TOP_N
};
enum {
    KJSON_SCAN_NAME,
    KJSON_SCAN_NAMESPACE,
    KJSON_SCAN_RV,
    KJSON_SCAN_META_N
};

/* Where the value's top level and its metadata object lie. */
struct kjson_scan_layout {
    struct kjson_scan_braces top;
    struct kjson_scan_member topm[KJSON_SCAN_TOP_N];
    bool has_meta; /* metadata is an object: meta and metam are set */
    struct kjson_scan_braces meta;
    struct kjson_scan_member metam[KJSON_SCAN_META_N];
    bool patch; /* cJSON must parse a patched copy (kjson_scan_patched_copy) */
};

/* The names of the members above, in their enums' order. */
extern const char *const kjson_scan_top_names[KJSON_SCAN_TOP_N];
extern const char *const kjson_scan_meta_names[KJSON_SCAN_META_N];

/*
 * Validates value[0..len) as one JSON object (whitespace around it) and
 * fills *l.  The value's bytes above 0x7f must have been checked as UTF-8
 * (cache/utf8.h) before.  Returns RW_OK, or RW_EINVAL with *why a static
 * reason: "value is not JSON", "value is not a JSON object", or a repeated
 * member that the decoder splices ("duplicate kind", "duplicate
 * apiVersion", "duplicate metadata", "duplicate metadata.name",
 * "duplicate metadata.namespace", "duplicate metadata.resourceVersion").
 */
int kjson_scan_layout(const unsigned char *value, size_t len,
                      struct kjson_scan_layout *l, const char **why);

/* Whether the content s[0..n) of a string kjson_scan_layout validated
 * (between its quotes), unescaped as Go does, is the n_want bytes at
 * want. */
bool kjson_scan_string_equals(const unsigned char *s, size_t n,
                              const char *want, size_t n_want);

/*
 * A copy of value[0..len) (validated, l->patch set) for cJSON, which cuts
 * strings at a NUL and refuses lone surrogates: each \u0000 and each lone
 * surrogate escape becomes \ufffd, the same length, so offsets do not move.
 * Go reads a lone surrogate as U+FFFD too; a NUL cannot live in a C
 * string, so extracted strings read U+FFFD where the value has \u0000.
 * NUL-terminated; the caller frees it.
 */
char *kjson_scan_patched_copy(const unsigned char *value, size_t len);

/* Appends s[0..n) of a validated value, which starts and ends between
 * tokens, to w without the whitespace between tokens. */
void kjson_scan_compact(struct sbuf *w, const unsigned char *s, size_t n);

#endif
