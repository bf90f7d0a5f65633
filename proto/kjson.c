/*
 * kjson.c: the Kubernetes JSON codec (see kjson.h); the only module that
 * includes cJSON.
 *
 * Decoding serves the store value's own bytes.  A strict RFC 8259 scanner
 * (no allocation) validates the value and finds the spans of the members
 * the codec completes: kind, apiVersion and metadata at the top, name,
 * namespace and resourceVersion inside metadata.  cJSON parses the same
 * bytes for what is extracted (labels, creationTimestamp, field-selector
 * values) and must agree with the scanner on those members; it never
 * prints anything.  The object's JSON is the value copied with the
 * whitespace between tokens dropped (so that a watch event stays one line)
 * and a few edits spliced in: resourceVersion's value replaced by the
 * quoted revision, missing members inserted, null or "" ones replaced.
 * Every other byte (numbers, strings, escapes, key order, duplicates) is
 * the store's.  The revision's digits' offset is recorded so that later
 * revisions (object_with_rv) are spliced without parsing again.
 *
 * Lookups follow Go's encoding/json as the apiserver's case-sensitive
 * decoder uses it: member names compare after unescaping, case-sensitively,
 * and the last of repeated members wins.  The spliced members admit no
 * repetition, so no reader can pick another one than ours.
 *
 * Encoding: small documents (events, Status, lists) are written
 * with a growable string builder in a fixed key order; every string that
 * comes from outside goes through kjson_escape's rules.  Watch frames are
 * built with one allocation and one copy of the object's JSON.
 */
#include "kjson.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/frame.h"

#define MAX_LABELS (UINT16_MAX - 1)
#define NUMBER_LEN 32

static const char *const event_type_names[EVENT_TYPE_MAX] = {
    [EVENT_ADDED] = "ADDED",
    [EVENT_MODIFIED] = "MODIFIED",
    [EVENT_DELETED] = "DELETED",
};

/* cJSON allocates through the aborting allocator, so no cJSON call made
 * here returns NULL for lack of memory. */
static void kjson_init(void)
{
    static bool done;
    cJSON_Hooks hooks = {.malloc_fn = xmalloc, .free_fn = free};

    if (done)
        return;
    cJSON_InitHooks(&hooks);
    done = true;
}

/* ------------------------------------------------------------------ */
/* String builder and escaping                                         */
/* ------------------------------------------------------------------ */

/* JSON writers over a struct sbuf (cache/sbuf.h). */
static void jw_mem(struct sbuf *w, const void *p, size_t n)
{
    sbuf_addn(w, p, n);
}

static void jw_raw(struct sbuf *w, const char *s)
{
    jw_mem(w, s, strlen(s));
}

static void jw_int(struct sbuf *w, int64_t v)
{
    char digits[NUMBER_LEN];
    int n = snprintf(digits, sizeof(digits), "%" PRId64, v);

    jw_mem(w, digits, (size_t)n);
}

/*
 * Length of the well-formed UTF-8 sequence at s (1 to 4 bytes, at most
 * avail), or 0 when s does not start one (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF, no truncated sequence).
 */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    size_t n;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        n = 2;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4;
    else
        return 0;
    if (n > avail)
        return 0;
    if (c == 0xe0)
        lo = 0xa0;
    else if (c == 0xed)
        hi = 0x9f;
    else if (c == 0xf0)
        lo = 0x90;
    else if (c == 0xf4)
        hi = 0x8f;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < n; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return n;
}

/* Whether s[0..len) is well-formed UTF-8 throughout. */
static bool utf8_valid(const unsigned char *s, size_t len)
{
    size_t i = 0, n;

    while (i < len) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        if ((n = utf8_len(s + i, len - i)) == 0)
            return false;
        i += n;
    }
    return true;
}

bool kjson_utf8_valid(const char *s, size_t len)
{
    return utf8_valid((const unsigned char *)s, len);
}

/* Appends s escaped as the inside of a JSON string. */
static void jw_escaped(struct sbuf *w, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    char esc[8];

    while (left > 0) {
        size_t n = utf8_len(p, left);

        if (n == 0) {
            jw_raw(w, "\\ufffd"); /* as Go's encoding/json */
            p++;
            left--;
        } else if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            jw_mem(w, esc, 2);
            p++;
            left--;
        } else if (*p < 0x20) {
            if (*p == '\n')
                jw_raw(w, "\\n");
            else if (*p == '\r')
                jw_raw(w, "\\r");
            else if (*p == '\t')
                jw_raw(w, "\\t");
            else {
                snprintf(esc, sizeof(esc), "\\u%04x", *p);
                jw_raw(w, esc);
            }
            p++;
            left--;
        } else {
            jw_mem(w, p, n);
            p += n;
            left -= n;
        }
    }
}

/* Appends s as a quoted JSON string; NULL is written as "". */
static void jw_str(struct sbuf *w, const char *s)
{
    jw_mem(w, "\"", 1);
    jw_escaped(w, s ? s : "");
    jw_mem(w, "\"", 1);
}

/* Appends ,"key":"value" (or without the comma for the first member). */
static void jw_member_str(struct sbuf *w, bool first, const char *key,
                          const char *value)
{
    if (!first)
        jw_mem(w, ",", 1);
    jw_str(w, key);
    jw_mem(w, ":", 1);
    jw_str(w, value);
}

/* Hands the text over as an rbuf and resets the builder. */
static struct rbuf *jw_rbuf(struct sbuf *w)
{
    struct rbuf *b = rbuf_from(w->data, w->len);

    free(w->data);
    *w = (struct sbuf){0};
    return b;
}

/* Hands the text over as a frame's payload and resets the builder. */
static struct rbuf *jw_frame(struct sbuf *w)
{
    struct rbuf *f = frame_from(w->data, w->len);

    free(w->data);
    *w = (struct sbuf){0};
    return f;
}

void kjson_add_string(struct sbuf *sb, const char *s)
{
    jw_str(sb, s);
}

char *kjson_escape(const char *s)
{
    struct sbuf w = {0};

    jw_mem(&w, "", 0);
    jw_escaped(&w, s);
    return w.data;
}

/* ------------------------------------------------------------------ */
/* Structural scanner                                                  */
/* ------------------------------------------------------------------ */

/* Containers a value may nest, as cJSON's CJSON_NESTING_LIMIT. */
#define MAX_DEPTH 1000

/* A cursor over a value being validated, strictly as RFC 8259 (and Go's
 * encoding/json): no leading zeros, no raw control characters in strings,
 * only the escapes \" \\ \/ \b \f \n \r \t \uXXXX. */
struct scan {
    const unsigned char *s;
    size_t len;
    size_t pos;
    bool patch; /* saw a \u0000 or lone-surrogate escape (see cjson_copy) */
};

static bool is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void scan_ws(struct scan *sc)
{
    while (sc->pos < sc->len && is_ws(sc->s[sc->pos]))
        sc->pos++;
}

/* The byte at the cursor, or -1 at the end. */
static int scan_peek(const struct scan *sc)
{
    return sc->pos < sc->len ? sc->s[sc->pos] : -1;
}

/* The value of the 4 hex digits at p, or -1. */
static long hex4(const unsigned char *p)
{
    long v = 0;

    for (int i = 0; i < 4; i++) {
        int c = p[i] | 0x20, d;

        if (p[i] >= '0' && p[i] <= '9')
            d = p[i] - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else
            return -1;
        v = v * 16 + d;
    }
    return v;
}

/*
 * The escape at s (s[0] == '\\', avail bytes readable): its length in
 * bytes (2, 6, or 12 for a surrogate pair), or 0 when it is not valid
 * JSON.  *cp is the code point it stands for; a surrogate escape that is
 * not half of a pair stands for U+FFFD (*lone), as Go's encoding/json.
 */
static size_t escape_len(const unsigned char *s, size_t avail, uint32_t *cp,
                         bool *lone)
{
    static const char simple[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
    const char *p;
    long hi, lo;

    *lone = false;
    if (avail < 2)
        return 0;
    if (s[1] != 'u') {
        if ((p = memchr(simple, s[1], sizeof(simple) - 1)) == NULL)
            return 0;
        *cp = (unsigned char)meant[p - simple];
        return 2;
    }
    if (avail < 6 || (hi = hex4(s + 2)) < 0)
        return 0;
    *cp = (uint32_t)hi;
    if (hi < 0xd800 || hi > 0xdfff)
        return 6;
    if (hi <= 0xdbff && avail >= 12 && s[6] == '\\' && s[7] == 'u' &&
        (lo = hex4(s + 8)) >= 0xdc00 && lo <= 0xdfff) {
        *cp =
            0x10000 + (uint32_t)((hi - 0xd800) << 10) + (uint32_t)(lo - 0xdc00);
        return 12;
    }
    *cp = 0xfffd;
    *lone = true;
    return 6;
}

/* A string at the cursor (its opening quote); leaves the cursor past the
 * closing quote.  Raw bytes above 0x7f were checked as UTF-8 before. */
static bool scan_string(struct scan *sc)
{
    const unsigned char *s = sc->s;
    size_t i = sc->pos + 1, n;
    uint32_t cp;
    bool lone;

    if (scan_peek(sc) != '"')
        return false;
    while (i < sc->len) {
        if (s[i] == '"') {
            sc->pos = i + 1;
            return true;
        }
        if (s[i] < 0x20)
            return false;
        if (s[i] != '\\') {
            i++;
            continue;
        }
        if ((n = escape_len(s + i, sc->len - i, &cp, &lone)) == 0)
            return false;
        if (cp == 0 || lone)
            sc->patch = true;
        i += n;
    }
    return false;
}

/* One or more decimal digits. */
static bool scan_digits(struct scan *sc)
{
    size_t start = sc->pos;

    while (sc->pos < sc->len && sc->s[sc->pos] >= '0' && sc->s[sc->pos] <= '9')
        sc->pos++;
    return sc->pos > start;
}

/* -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool scan_number(struct scan *sc)
{
    if (scan_peek(sc) == '-')
        sc->pos++;
    if (scan_peek(sc) == '0')
        sc->pos++;
    else if (!scan_digits(sc))
        return false;
    if (scan_peek(sc) == '.') {
        sc->pos++;
        if (!scan_digits(sc))
            return false;
    }
    if (scan_peek(sc) == 'e' || scan_peek(sc) == 'E') {
        sc->pos++;
        if (scan_peek(sc) == '+' || scan_peek(sc) == '-')
            sc->pos++;
        if (!scan_digits(sc))
            return false;
    }
    return true;
}

static bool scan_literal(struct scan *sc, const char *word)
{
    size_t n = strlen(word);

    if (sc->len - sc->pos < n || memcmp(sc->s + sc->pos, word, n) != 0)
        return false;
    sc->pos += n;
    return true;
}

/* A string, number, true, false or null at the cursor. */
static bool scan_scalar(struct scan *sc)
{
    int c = scan_peek(sc);

    if (c == '"')
        return scan_string(sc);
    if (c == '-' || (c >= '0' && c <= '9'))
        return scan_number(sc);
    if (c == 't')
        return scan_literal(sc, "true");
    if (c == 'f')
        return scan_literal(sc, "false");
    return scan_literal(sc, "null");
}

/* Whitespace, a member's name (*key .. *key_end are its quotes' offsets,
 * the closing one excluded), whitespace and the colon. */
static bool scan_key(struct scan *sc, size_t *key, size_t *key_end)
{
    scan_ws(sc);
    *key = sc->pos;
    if (!scan_string(sc))
        return false;
    *key_end = sc->pos - 1;
    scan_ws(sc);
    if (scan_peek(sc) != ':')
        return false;
    sc->pos++;
    return true;
}

/*
 * After a value inside the containers closing[0..*open): consumes the
 * closers that follow, then a comma (and the next member's name in an
 * object).  False on a syntax error; *open == 0 when the outermost
 * container was closed, else a value is expected next.
 */
static bool scan_after_value(struct scan *sc, const char *closing,
                             unsigned *open)
{
    size_t key, key_end;

    while (*open > 0) {
        scan_ws(sc);
        if (scan_peek(sc) == closing[*open - 1]) {
            sc->pos++;
            (*open)--;
            continue;
        }
        if (scan_peek(sc) != ',')
            return false;
        sc->pos++;
        return closing[*open - 1] != '}' || scan_key(sc, &key, &key_end);
    }
    return true;
}

/*
 * Validates one value at the cursor (after whitespace) that sits inside
 * depth containers; leaves the cursor just past it.  Iterative: the
 * closers of the open containers are kept in a fixed array.
 */
static bool scan_value(struct scan *sc, unsigned depth)
{
    char closing[MAX_DEPTH];
    unsigned open = 0;
    size_t key, key_end;
    int c;

    for (;;) {
        scan_ws(sc);
        c = scan_peek(sc);
        if (c == '{' || c == '[') {
            if (depth + open >= MAX_DEPTH)
                return false;
            closing[open++] = c == '{' ? '}' : ']';
            sc->pos++;
            scan_ws(sc);
            if (scan_peek(sc) == closing[open - 1]) {
                sc->pos++;
                open--;
            } else {
                if (c == '{' && !scan_key(sc, &key, &key_end))
                    return false;
                continue;
            }
        } else if (!scan_scalar(sc)) {
            return false;
        }
        if (!scan_after_value(sc, closing, &open))
            return false;
        if (open == 0)
            return true;
    }
}

/* Encodes code point cp (at most U+10FFFF) as UTF-8 into out; returns the
 * length. */
static size_t utf8_put(uint32_t cp, unsigned char *out)
{
    if (cp < 0x80) {
        out[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (unsigned char)(0xc0 | cp >> 6);
        out[1] = (unsigned char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (unsigned char)(0xe0 | cp >> 12);
        out[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (unsigned char)(0xf0 | cp >> 18);
    out[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Whether the content s[0..n) of a validated JSON string, unescaped as Go
 * does, is the n_want bytes at want. */
static bool string_equals(const unsigned char *s, size_t n, const char *want,
                          size_t n_want)
{
    size_t i = 0, j = 0, k, e;
    unsigned char utf8[4];
    uint32_t cp;
    bool lone;

    while (i < n) {
        if (s[i] != '\\') {
            if (j >= n_want || s[i] != (unsigned char)want[j])
                return false;
            i++;
            j++;
            continue;
        }
        e = escape_len(s + i, n - i, &cp, &lone);
        rw_assert(e > 0);
        k = utf8_put(cp, utf8);
        if (n_want - j < k || memcmp(want + j, utf8, k) != 0)
            return false;
        i += e;
        j += k;
    }
    return j == n_want;
}

/* ------------------------------------------------------------------ */
/* The value's layout                                                  */
/* ------------------------------------------------------------------ */

/* The members of an object the codec looks for: the last occurrence's
 * value span, and how many there are. */
struct member {
    unsigned count;
    size_t val; /* offset of the value's first byte */
    size_t end; /* offset just past the value */
};

/* An object's braces and its number of members. */
struct braces {
    size_t open;  /* offset of '{' */
    size_t close; /* offset of '}' */
    size_t nmembers;
};

enum { TOP_KIND, TOP_API_VERSION, TOP_METADATA, TOP_N };
enum { META_NAME, META_NAMESPACE, META_RV, META_N };

static const char *const top_names[TOP_N] = {"kind", "apiVersion", "metadata"};
static const char *const meta_names[META_N] = {"name", "namespace",
                                               "resourceVersion"};
static const char *const top_dups[TOP_N] = {
    "duplicate kind", "duplicate apiVersion", "duplicate metadata"};
static const char *const meta_dups[META_N] = {
    "duplicate metadata.name", "duplicate metadata.namespace",
    "duplicate metadata.resourceVersion"};

/* Where the value's top level and its metadata object lie. */
struct layout {
    struct braces top;
    struct member topm[TOP_N];
    bool has_meta; /* metadata is an object: meta and metam are set */
    struct braces meta;
    struct member metam[META_N];
    bool patch; /* cJSON must parse a patched copy (cjson_copy) */
};

/*
 * Walks the object at the cursor (its '{'), which sits inside depth
 * containers: validates it, counts its members into *b and records in
 * found[i] each member named names[i] (n of them).  Leaves the cursor
 * past the '}'.
 */
static bool scan_object(struct scan *sc, unsigned depth,
                        const char *const *names, struct member *found,
                        size_t n, struct braces *b)
{
    size_t key, key_end, val;

    rw_assert(scan_peek(sc) == '{');
    if (depth >= MAX_DEPTH)
        return false;
    *b = (struct braces){.open = sc->pos++};
    scan_ws(sc);
    if (scan_peek(sc) == '}') {
        b->close = sc->pos++;
        return true;
    }
    for (;;) {
        if (!scan_key(sc, &key, &key_end))
            return false;
        scan_ws(sc);
        val = sc->pos;
        if (!scan_value(sc, depth + 1))
            return false;
        b->nmembers++;
        for (size_t i = 0; i < n; i++)
            if (string_equals(sc->s + key + 1, key_end - key - 1, names[i],
                              strlen(names[i])))
                found[i] = (struct member){found[i].count + 1, val, sc->pos};
        scan_ws(sc);
        if (scan_peek(sc) == '}') {
            b->close = sc->pos++;
            return true;
        }
        if (scan_peek(sc) != ',')
            return false;
        sc->pos++;
    }
}

/* The first member of found[0..n) that is repeated, as its reason. */
static const char *duplicate(const struct member *found,
                             const char *const *whys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (found[i].count > 1)
            return whys[i];
    return NULL;
}

/*
 * Validates value[0..len) as one JSON object (whitespace around it) and
 * fills *l.  RW_EINVAL: "value is not JSON", "value is not a JSON
 * object", or a repeated member that the codec splices ("duplicate ...").
 */
static int scan_layout(const unsigned char *value, size_t len, struct layout *l,
                       const char **why)
{
    struct scan sc = {.s = value, .len = len};
    const struct member *meta = &l->topm[TOP_METADATA];
    bool ok;

    *l = (struct layout){0};
    scan_ws(&sc);
    if (scan_peek(&sc) != '{') {
        ok = scan_value(&sc, 0);
        scan_ws(&sc);
        *why = ok && sc.pos == len ? "value is not a JSON object"
                                   : "value is not JSON";
        return RW_EINVAL;
    }
    ok = scan_object(&sc, 0, top_names, l->topm, TOP_N, &l->top);
    scan_ws(&sc);
    if (!ok || sc.pos != len) {
        *why = "value is not JSON";
        return RW_EINVAL;
    }
    if ((*why = duplicate(l->topm, top_dups, TOP_N)) != NULL)
        return RW_EINVAL;
    l->patch = sc.patch;
    if (meta->count == 0 || value[meta->val] != '{')
        return RW_OK;
    sc.pos = meta->val;
    ok = scan_object(&sc, 1, meta_names, l->metam, META_N, &l->meta);
    rw_assert(ok && sc.pos == meta->end && l->meta.close + 1 == meta->end);
    l->has_meta = true;
    if ((*why = duplicate(l->metam, meta_dups, META_N)) != NULL)
        return RW_EINVAL;
    return RW_OK;
}

/*
 * A copy of value[0..len) (validated) for cJSON, which cuts strings at a
 * NUL and refuses lone surrogates: each \u0000 and each lone surrogate
 * escape becomes \ufffd, the same length, so offsets do not move.  Go
 * reads a lone surrogate as U+FFFD too; a NUL cannot live in a C string,
 * so extracted strings read U+FFFD where the value has \u0000 (and then
 * match no selector, rather than a cut-short one).
 */
static char *cjson_copy(const unsigned char *value, size_t len)
{
    char *copy = xmalloc(len + 1);
    bool in_string = false;
    uint32_t cp;
    bool lone;
    size_t n;

    memcpy(copy, value, len);
    copy[len] = '\0';
    for (size_t i = 0; i < len; i++) {
        if (value[i] == '"')
            in_string = !in_string;
        if (!in_string || value[i] != '\\')
            continue;
        n = escape_len(value + i, len - i, &cp, &lone);
        rw_assert(n > 0);
        if (n == 6 && (cp == 0 || lone))
            memcpy(copy + i + 2, "fffd", 4);
        i += n - 1;
    }
    return copy;
}

/* ------------------------------------------------------------------ */
/* Decoding                                                            */
/* ------------------------------------------------------------------ */

/* What decoding extracts: ns and name copied from the key, the rest
 * pointing into the cJSON tree (or into numbers[]). */
struct decoded {
    const struct resource_type *rt;
    char *ns; /* "" for cluster-scoped types */
    char *name;
    cJSON *root;
    cJSON *meta; /* metadata when it is an object, else NULL */
    const char *created;
    struct label *labels;
    size_t nlabels;
    const char *fields[RESOURCE_TYPE_MAX_FIELDS];
    char numbers[RESOURCE_TYPE_MAX_FIELDS][NUMBER_LEN];
};

/* What an edit writes: a string, the quoted revision, or a whole metadata
 * object {"name":..[,"namespace":..],"resourceVersion":..}. */
enum splice_value { SPLICE_STRING, SPLICE_RV, SPLICE_METADATA };

/* One edit of the value: at offset off, del bytes (a value) replaced by
 * [,]["name":]value[,]. */
struct edit {
    size_t off;
    size_t del;
    const char *name; /* NULL: a bare value replacing another */
    enum splice_value what;
    const char *str; /* SPLICE_STRING's content */
    bool comma_before;
    bool comma_after;
};

/* kind, apiVersion, metadata or name, namespace, resourceVersion: one
 * edit each at most. */
#define MAX_EDITS 6

/* Decoding's working state: the value, its layout and the edits. */
struct plan {
    const unsigned char *s;
    struct layout l;
    struct decoded *d;
    struct edit edits[MAX_EDITS];
    size_t nedits;
};

/*
 * Where the next member inserted into an object goes: first in the object
 * (lead, at the offset after '{'), or right after the member last seen.
 * Leading inserts are joined by commas, and the last one gets a trailing
 * comma when the object has members of its own.
 */
struct chain {
    size_t at;
    bool lead;
    struct edit *last_lead;
};

static struct edit *plan_edit(struct plan *p, size_t off, size_t del,
                              const char *name, enum splice_value what,
                              const char *str)
{
    struct edit *e;

    rw_assert(p->nedits < MAX_EDITS);
    e = &p->edits[p->nedits++];
    *e = (struct edit){off, del, name, what, str, false, false};
    return e;
}

static void chain_insert(struct plan *p, struct chain *ch, const char *name,
                         enum splice_value what, const char *str)
{
    struct edit *e = plan_edit(p, ch->at, 0, name, what, str);

    e->comma_before = !ch->lead || ch->last_lead != NULL;
    if (ch->lead)
        ch->last_lead = e;
}

static void chain_after(struct chain *ch, const struct member *m)
{
    ch->at = m->end;
    ch->lead = false;
}

static void chain_close(struct chain *ch, const struct braces *b)
{
    if (ch->last_lead != NULL && b->nmembers > 0)
        ch->last_lead->comma_after = true;
}

/* A member Go reads as absent or empty: null or "". */
static bool blank(const unsigned char *s, const struct member *m)
{
    return s[m->val] == 'n' || (s[m->val] == '"' && m->end - m->val == 2);
}

/* How plan_string treats one string member. */
struct string_rule {
    const char *name;       /* the member */
    const char *value;      /* spliced in when absent, null or "" */
    const char *not_string; /* why, when it holds another type */
    const char *mismatch;   /* why, when set to another value; NULL: any */
    const char *missing;    /* why, when absent, null or ""; NULL: the
                               value is spliced in instead */
};

/* A string member m of the object ch walks: inserted or replaced with
 * r->value when absent, null or "" (or refused, r->missing), else
 * checked. */
static int plan_string(struct plan *p, struct chain *ch, const struct member *m,
                       const struct string_rule *r, const char **why)
{
    const unsigned char *s = p->s;

    if (r->missing != NULL && (m->count == 0 || blank(s, m))) {
        *why = r->missing;
        return RW_EINVAL;
    }
    if (m->count == 0) {
        chain_insert(p, ch, r->name, SPLICE_STRING, r->value);
        return RW_OK;
    }
    if (s[m->val] != '"' && s[m->val] != 'n') {
        *why = r->not_string;
        return RW_EINVAL;
    }
    if (blank(s, m))
        plan_edit(p, m->val, m->end - m->val, NULL, SPLICE_STRING, r->value);
    else if (r->mismatch != NULL &&
             !string_equals(s + m->val + 1, m->end - m->val - 2, r->value,
                            strlen(r->value))) {
        *why = r->mismatch;
        return RW_EINVAL;
    }
    chain_after(ch, m);
    return RW_OK;
}

/* Inside metadata: name and namespace (from the key), resourceVersion. */
static int plan_metadata(struct plan *p, const char **why)
{
    const struct layout *l = &p->l;
    const struct member *ns = &l->metam[META_NAMESPACE];
    const struct member *rv = &l->metam[META_RV];
    struct chain ch = {.at = l->meta.open + 1, .lead = true};
    const struct string_rule name_rule = {
        "name", p->d->name, "metadata.name is not a string",
        "metadata.name does not match the key", NULL};
    const struct string_rule ns_rule = {
        "namespace", p->d->ns, "metadata.namespace is not a string",
        "metadata.namespace does not match the key", NULL};
    struct edit *e;
    int rc;

    rc = plan_string(p, &ch, &l->metam[META_NAME], &name_rule, why);
    if (rc != RW_OK)
        return rc;
    if (p->d->rt->namespaced) {
        if ((rc = plan_string(p, &ch, ns, &ns_rule, why)) != RW_OK)
            return rc;
    } else if (ns->count > 0 && !blank(p->s, ns)) {
        *why = p->s[ns->val] == '"'
                   ? "metadata.namespace is set on a cluster-scoped object"
                   : "metadata.namespace is not a string";
        return RW_EINVAL;
    }
    chain_close(&ch, &l->meta);
    if (rv->count > 0) {
        plan_edit(p, rv->val, rv->end - rv->val, NULL, SPLICE_RV, NULL);
    } else {
        e = plan_edit(p, l->meta.close, 0, "resourceVersion", SPLICE_RV, NULL);
        e->comma_before = l->meta.nmembers > 0 || ch.last_lead != NULL;
    }
    return RW_OK;
}

/*
 * The top level: kind and apiVersion, metadata.  As the apiserver's
 * storage decoder (apimachinery's json.Serializer.Decode into the
 * resource's type, then conversion to it): the group, version and kind
 * come from the stored bytes; a missing kind is the type's (with the
 * type's apiVersion, it names the type), a missing apiVersion fails, and
 * another kind or apiVersion does not convert to the type.
 */
static int plan_top(struct plan *p, const char **why)
{
    const struct layout *l = &p->l;
    const struct member *meta = &l->topm[TOP_METADATA];
    struct chain ch = {.at = l->top.open + 1, .lead = true};
    const struct string_rule kind_rule = {
        "kind", p->d->rt->kind, "kind is not a string",
        "kind does not match the resource", NULL};
    const struct string_rule api_rule = {
        "apiVersion", p->d->rt->api_version, "apiVersion is not a string",
        "apiVersion does not match the resource", "apiVersion is missing"};
    int rc;

    rc = plan_string(p, &ch, &l->topm[TOP_KIND], &kind_rule, why);
    if (rc != RW_OK)
        return rc;
    rc = plan_string(p, &ch, &l->topm[TOP_API_VERSION], &api_rule, why);
    if (rc != RW_OK)
        return rc;
    if (meta->count == 0) {
        chain_insert(p, &ch, "metadata", SPLICE_METADATA, NULL);
    } else if (p->s[meta->val] == 'n') {
        plan_edit(p, meta->val, meta->end - meta->val, NULL, SPLICE_METADATA,
                  NULL);
    } else if (!l->has_meta) {
        *why = "metadata is not an object";
        return RW_EINVAL;
    }
    chain_close(&ch, &l->top);
    return l->has_meta ? plan_metadata(p, why) : RW_OK;
}

/* ------------------------------------------------------------------ */
/* The cJSON tree: agreement and extraction                            */
/* ------------------------------------------------------------------ */

/* The member of obj named name[0..n) (case-sensitive, the last of
 * repeated keys, as Go's encoding/json), or NULL. */
static cJSON *member_n(const cJSON *obj, const char *name, size_t n)
{
    cJSON *found = NULL;

    for (cJSON *c = obj->child; c != NULL; c = c->next)
        if (c->string && strncmp(c->string, name, n) == 0 &&
            c->string[n] == '\0')
            found = c;
    return found;
}

static cJSON *member(const cJSON *obj, const char *name)
{
    return member_n(obj, name, strlen(name));
}

/* A member that Go would read as absent: missing or JSON null. */
static bool absent(const cJSON *item)
{
    return item == NULL || cJSON_IsNull(item);
}

/* Whether cJSON sees member name of obj as the scanner saw m: as many
 * occurrences, the last one of the same type. */
static bool member_agrees(const unsigned char *s, const struct member *m,
                          const cJSON *obj, const char *name)
{
    const cJSON *item = NULL;
    unsigned count = 0;

    for (const cJSON *c = obj->child; c != NULL; c = c->next)
        if (c->string != NULL && strcmp(c->string, name) == 0) {
            count++;
            item = c;
        }
    if (count != m->count)
        return false;
    if (count == 0)
        return true;
    switch (s[m->val]) {
    case '"':
        return cJSON_IsString(item);
    case '{':
        return cJSON_IsObject(item);
    case '[':
        return cJSON_IsArray(item);
    case 'n':
        return cJSON_IsNull(item);
    case 't':
        return cJSON_IsTrue(item);
    case 'f':
        return cJSON_IsFalse(item);
    default:
        return cJSON_IsNumber(item);
    }
}

/* A string member that is set must read as want (kind, apiVersion, name
 * and namespace, already compared by the scanner). */
static bool string_agrees(const cJSON *obj, const char *name, const char *want)
{
    const cJSON *item = member(obj, name);

    return !cJSON_IsString(item) || item->valuestring[0] == '\0' ||
           strcmp(item->valuestring, want) == 0;
}

/* Whether cJSON's tree has the scanner's structure where it matters. */
static bool tree_agrees(const struct plan *p)
{
    const struct layout *l = &p->l;
    const cJSON *root = p->d->root, *meta;

    if (!cJSON_IsObject(root) ||
        (size_t)cJSON_GetArraySize(root) != l->top.nmembers)
        return false;
    for (size_t i = 0; i < TOP_N; i++)
        if (!member_agrees(p->s, &l->topm[i], root, top_names[i]))
            return false;
    if (!string_agrees(root, "kind", p->d->rt->kind) ||
        !string_agrees(root, "apiVersion", p->d->rt->api_version))
        return false;
    if (!l->has_meta)
        return true;
    meta = member(root, "metadata");
    if ((size_t)cJSON_GetArraySize(meta) != l->meta.nmembers)
        return false;
    for (size_t i = 0; i < META_N; i++)
        if (!member_agrees(p->s, &l->metam[i], meta, meta_names[i]))
            return false;
    return string_agrees(meta, "name", p->d->name) &&
           (!p->d->rt->namespaced ||
            string_agrees(meta, "namespace", p->d->ns));
}

/*
 * Parses the value with cJSON (a patched copy when the scanner saw what
 * cJSON mishandles) and checks it agrees with the scanner: RW_EINVAL
 * "value is not valid JSON" otherwise.
 */
static int parse_tree(struct plan *p, size_t len, const char **why)
{
    char *copy = p->l.patch ? cjson_copy(p->s, len) : NULL;
    const char *text = copy != NULL ? copy : (const char *)p->s;
    cJSON *meta;

    p->d->root = cJSON_ParseWithLengthOpts(text, len, NULL, 0);
    free(copy);
    if (p->d->root == NULL || !tree_agrees(p)) {
        *why = "value is not valid JSON";
        return RW_EINVAL;
    }
    meta = member(p->d->root, "metadata");
    p->d->meta = cJSON_IsObject(meta) ? meta : NULL;
    return RW_OK;
}

/* metadata.labels: an object of strings (null or absent: none), and
 * metadata.creationTimestamp. */
static int extract_meta(struct decoded *d, const char **why)
{
    cJSON *labels, *created;
    size_t n = 0;

    if (d->meta == NULL)
        return RW_OK;
    created = member(d->meta, "creationTimestamp");
    d->created = cJSON_IsString(created) ? created->valuestring : "";
    labels = member(d->meta, "labels");
    if (absent(labels))
        return RW_OK;
    if (!cJSON_IsObject(labels)) {
        *why = "metadata.labels is not an object";
        return RW_EINVAL;
    }
    for (cJSON *c = labels->child; c != NULL; c = c->next) {
        if (!cJSON_IsString(c)) {
            *why = "label values must be strings";
            return RW_EINVAL;
        }
        n++;
    }
    if (n > MAX_LABELS) {
        *why = "too many labels";
        return RW_EINVAL;
    }
    d->labels = xcalloc(n, sizeof(*d->labels));
    for (cJSON *c = labels->child; c != NULL; c = c->next)
        d->labels[d->nlabels++] =
            (struct label){.key = c->string, .value = c->valuestring};
    return RW_OK;
}

/* The item at a dot-separated path under root, or NULL. */
static cJSON *lookup_path(cJSON *root, const char *path)
{
    cJSON *item = root;

    while (item != NULL) {
        const char *dot = strchr(path, '.');
        size_t n = dot ? (size_t)(dot - path) : strlen(path);

        if (!cJSON_IsObject(item))
            return NULL;
        item = member_n(item, path, n);
        if (dot == NULL)
            return item;
        path = dot + 1;
    }
    return NULL;
}

/* Fields the apiserver reads from a Go bool: absent means "false". */
static bool bool_field(const struct resource_type *rt, const char *path)
{
    static const char *const table[][2] = {
        {"Pod", "spec.hostNetwork"},
        {"Node", "spec.unschedulable"},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(table); i++)
        if (strcmp(rt->kind, table[i][0]) == 0 &&
            strcmp(path, table[i][1]) == 0)
            return true;
    return false;
}

/* A field-selector value as the apiserver's GetAttrs renders it. */
static const char *field_text(const cJSON *item, char *number, bool boolean)
{
    double v;

    if (cJSON_IsString(item))
        return item->valuestring;
    if (cJSON_IsTrue(item))
        return "true";
    if (cJSON_IsFalse(item))
        return "false";
    if (absent(item))
        return boolean ? "false" : "";
    if (!cJSON_IsNumber(item))
        return "";
    v = item->valuedouble;
    if (v >= -9.2e18 && v <= 9.2e18 && v == (double)(int64_t)v)
        snprintf(number, NUMBER_LEN, "%" PRId64, (int64_t)v);
    else
        snprintf(number, NUMBER_LEN, "%.17g", v);
    return number;
}

static void extract_fields(const struct resource_type *rt, struct decoded *d)
{
    size_t n = resource_type_nfields(rt);

    for (size_t i = 0; i < n; i++) {
        const char *path = rt->fields[i];
        const cJSON *item;

        /* Events: "source" is source.component, else reportingComponent
         * (as the apiserver's event ToSelectableFields). */
        if (strcmp(rt->kind, "Event") == 0 && strcmp(path, "source") == 0) {
            item = lookup_path(d->root, "source.component");
            if (!cJSON_IsString(item) || item->valuestring[0] == '\0')
                item = lookup_path(d->root, "reportingComponent");
        } else {
            item = lookup_path(d->root, path);
        }
        d->fields[i] = field_text(item, d->numbers[i], bool_field(rt, path));
    }
}

/* ------------------------------------------------------------------ */
/* Splicing                                                            */
/* ------------------------------------------------------------------ */

/* Appends s[0..n), which starts and ends between tokens, without the
 * whitespace between tokens. */
static void jw_compact(struct sbuf *w, const unsigned char *s, size_t n)
{
    bool in_string = false;
    size_t i = 0, run;

    while (i < n) {
        for (run = i; i < n; i++) {
            if (in_string) {
                if (s[i] == '\\')
                    i++;
                else if (s[i] == '"')
                    in_string = false;
            } else if (is_ws(s[i])) {
                break;
            } else if (s[i] == '"') {
                in_string = true;
            }
        }
        rw_assert(i <= n);
        jw_mem(w, s + run, i - run);
        while (i < n && is_ws(s[i]))
            i++;
    }
    rw_assert(!in_string);
}

/* Appends "digits" and notes where the digits start. */
static void jw_rv(struct sbuf *w, const char *digits, size_t *rv_off,
                  unsigned *nrv)
{
    jw_mem(w, "\"", 1);
    *rv_off = w->len;
    jw_raw(w, digits);
    jw_mem(w, "\"", 1);
    (*nrv)++;
}

static void jw_edit(struct sbuf *w, const struct edit *e,
                    const struct decoded *d, const char *digits, size_t *rv_off,
                    unsigned *nrv)
{
    if (e->comma_before)
        jw_mem(w, ",", 1);
    if (e->name != NULL) {
        jw_str(w, e->name);
        jw_mem(w, ":", 1);
    }
    switch (e->what) {
    case SPLICE_STRING:
        jw_str(w, e->str);
        break;
    case SPLICE_RV:
        jw_rv(w, digits, rv_off, nrv);
        break;
    case SPLICE_METADATA:
        jw_raw(w, "{");
        jw_member_str(w, true, "name", d->name);
        if (d->rt->namespaced)
            jw_member_str(w, false, "namespace", d->ns);
        jw_raw(w, ",\"resourceVersion\":");
        jw_rv(w, digits, rv_off, nrv);
        jw_raw(w, "}");
        break;
    }
    if (e->comma_after)
        jw_mem(w, ",", 1);
}

/* Edits in the order of their offsets (stable: inserts at one offset keep
 * the order they were planned in). */
static void sort_edits(struct plan *p)
{
    for (size_t i = 1; i < p->nedits; i++) {
        struct edit e = p->edits[i];
        size_t j = i;

        for (; j > 0 && p->edits[j - 1].off > e.off; j--)
            p->edits[j] = p->edits[j - 1];
        p->edits[j] = e;
    }
}

/*
 * The object's JSON: the value from its '{' to its '}', compacted, with
 * the edits spliced in; sets in->json, in->rv_off and in->rv_len.
 * RW_EINVAL "value is too large" past what rv_off can address.
 */
static int splice(struct plan *p, int64_t rv, struct object_init *in,
                  const char **why)
{
    size_t cur = p->l.top.open, end = p->l.top.close + 1, rv_off = 0;
    char digits[NUMBER_LEN];
    struct sbuf w = {0};
    unsigned nrv = 0;

    snprintf(digits, sizeof(digits), "%" PRId64, rv);
    sort_edits(p);
    sbuf_reserve(&w, end - cur + 256);
    for (size_t i = 0; i < p->nedits; i++) {
        const struct edit *e = &p->edits[i];

        rw_assert(e->off >= cur && e->off + e->del <= end);
        jw_compact(&w, p->s + cur, e->off - cur);
        jw_edit(&w, e, p->d, digits, &rv_off, &nrv);
        cur = e->off + e->del;
    }
    jw_compact(&w, p->s + cur, end - cur);
    rw_assert(nrv == 1 && w.data[0] == '{' && w.data[w.len - 1] == '}');
    if (w.len > UINT32_MAX - 2 * NUMBER_LEN) {
        free(w.data);
        *why = "value is too large";
        return RW_EINVAL;
    }
    in->json = jw_rbuf(&w);
    in->rv_off = rv_off;
    in->rv_len = strlen(digits);
    return RW_OK;
}

/* The checks on the bytes alone: not protobuf, UTF-8, one JSON object. */
static int check_value(const void *value, size_t len, struct layout *l,
                       const char **why)
{
    if (len >= 4 && memcmp(value, "k8s\0", 4) == 0) {
        *why = "value is protobuf (k8s\\0 prefix)";
        return RW_EINVAL;
    }
    if (!utf8_valid(value, len)) {
        *why = "value is not valid UTF-8";
        return RW_EINVAL;
    }
    return scan_layout(value, len, l, why);
}

/* The key's layout; ns and name copied from it into d. */
static int check_key(const struct resource_type *rt, const char *key,
                     size_t key_len, struct decoded *d, const char **why)
{
    struct resource_key kp;

    if (!resource_type_key_split(rt, key, key_len, &kp)) {
        *why = "key does not match the resource's layout";
        return RW_EINVAL;
    }
    if (!utf8_valid((const unsigned char *)key, key_len)) {
        *why = "key is not valid UTF-8";
        return RW_EINVAL;
    }
    d->ns = xstrndup(kp.ns, kp.ns_len);
    d->name = xstrndup(kp.name, kp.name_len);
    return RW_OK;
}

int kjson_decode_object(const struct resource_type *rt, const char *key,
                        size_t key_len, const void *value, size_t len,
                        int64_t rv, struct object **out, const char **why)
{
    struct decoded d = {.rt = rt};
    struct plan p = {.s = value, .d = &d};
    struct object_init in;
    int rc;

    kjson_init();
    *out = NULL;
    if ((rc = check_value(value, len, &p.l, why)) != RW_OK)
        return rc;
    if ((rc = check_key(rt, key, key_len, &d, why)) != RW_OK)
        return rc;
    if ((rc = plan_top(&p, why)) != RW_OK)
        goto done;
    if ((rc = parse_tree(&p, len, why)) != RW_OK)
        goto done;
    if ((rc = extract_meta(&d, why)) != RW_OK)
        goto done;
    extract_fields(rt, &d);
    in = (struct object_init){
        .key = key,
        .key_len = key_len,
        .rv = rv,
        .ns = d.ns,
        .name = d.name,
        .created = d.created,
        .labels = d.labels,
        .nlabels = d.nlabels,
        .fields = d.fields,
        .nfields = resource_type_nfields(rt),
    };
    if ((rc = splice(&p, rv, &in, why)) != RW_OK)
        goto done;
    *out = object_new(&in);
done:
    free(d.labels);
    free(d.ns);
    free(d.name);
    cJSON_Delete(d.root);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Watch events                                                        */
/* ------------------------------------------------------------------ */

struct rbuf *kjson_watch_frame(enum event_type type, const struct object *obj)
{
    static const char mid[] = "\",\"object\":", tail[] = "}\n";
    const char *name;
    size_t nlen, len, at;
    struct rbuf *f;
    char *p;

    rw_assert((int)type >= 0 && (int)type < EVENT_TYPE_MAX);
    name = event_type_names[type];
    nlen = strlen(name);
    len = strlen("{\"type\":\"") + nlen + strlen(mid) + obj->json->len +
          strlen(tail);
    f = frame_alloc(len);
    p = frame_payload(f);
    at = 0;
    memcpy(p + at, "{\"type\":\"", 9);
    at += 9;
    memcpy(p + at, name, nlen);
    at += nlen;
    memcpy(p + at, mid, sizeof(mid) - 1);
    at += sizeof(mid) - 1;
    memcpy(p + at, obj->json->data, obj->json->len);
    at += obj->json->len;
    memcpy(p + at, tail, sizeof(tail) - 1);
    rw_assert(at + sizeof(tail) - 1 == len);
    return f;
}

/* ------------------------------------------------------------------ */
/* Status and lists                                                    */
/* ------------------------------------------------------------------ */

static void jw_status(struct sbuf *w, int code, const char *reason,
                      const char *message)
{
    jw_raw(w, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
              "\"status\":\"Failure\"");
    jw_member_str(w, false, "message", message);
    jw_member_str(w, false, "reason", reason);
    jw_raw(w, ",\"code\":");
    jw_int(w, code);
    jw_raw(w, "}");
}

struct rbuf *kjson_status(int code, const char *reason, const char *message)
{
    struct sbuf w = {0};

    jw_status(&w, code, reason, message);
    return jw_rbuf(&w);
}

struct rbuf *kjson_status_continue(int code, const char *reason,
                                   const char *message, const char *token)
{
    struct sbuf w = {0};

    jw_raw(&w, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
               "\"metadata\":{");
    jw_member_str(&w, true, "continue", token);
    jw_raw(&w, "},\"status\":\"Failure\"");
    jw_member_str(&w, false, "message", message);
    jw_member_str(&w, false, "reason", reason);
    jw_raw(&w, ",\"code\":");
    jw_int(&w, code);
    jw_raw(&w, "}");
    return jw_rbuf(&w);
}

struct rbuf *kjson_status_invalid(const char *field, const char *detail)
{
    const char *cause = strncmp(detail, "Unsupported value", 17) == 0
                            ? "FieldValueNotSupported"
                            : "FieldValueForbidden";
    char *message = xasprintf("ListOptions.meta.k8s.io \"\" is invalid: "
                              "%s: %s",
                              field, detail);
    struct sbuf w = {0};

    jw_raw(&w, "{\"kind\":\"Status\",\"apiVersion\":\"v1\","
               "\"metadata\":{},\"status\":\"Failure\"");
    jw_member_str(&w, false, "message", message);
    jw_raw(&w, ",\"reason\":\"Invalid\",\"details\":{\"group\":"
               "\"meta.k8s.io\",\"kind\":\"ListOptions\",\"causes\":[{");
    jw_member_str(&w, true, "reason", cause);
    jw_member_str(&w, false, "message", detail);
    jw_member_str(&w, false, "field", field);
    jw_raw(&w, "}]},\"code\":422}");
    free(message);
    return jw_rbuf(&w);
}

struct rbuf *kjson_status_detailed(int code, const char *reason,
                                   const char *message, const char *cause,
                                   const char *cause_message, int retry_after,
                                   bool event)
{
    struct sbuf w = {0};

    if (event)
        jw_raw(&w, "{\"type\":\"ERROR\",\"object\":");
    jw_raw(&w, "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},"
               "\"status\":\"Failure\"");
    jw_member_str(&w, false, "message", message);
    jw_member_str(&w, false, "reason", reason);
    jw_raw(&w, ",\"details\":{");
    if (cause != NULL) {
        jw_raw(&w, "\"causes\":[{");
        jw_member_str(&w, true, "reason", cause);
        jw_member_str(&w, false, "message", cause_message);
        jw_raw(&w, "}]");
    }
    if (retry_after > 0) {
        jw_raw(&w, cause != NULL ? ",\"retryAfterSeconds\":"
                                 : "\"retryAfterSeconds\":");
        jw_int(&w, retry_after);
    }
    jw_raw(&w, "},\"code\":");
    jw_int(&w, code);
    jw_raw(&w, "}");
    if (!event)
        return jw_rbuf(&w);
    jw_raw(&w, "}\n");
    return jw_frame(&w);
}

struct rbuf *kjson_error_frame(int code, const char *reason,
                               const char *message)
{
    struct sbuf w = {0};

    jw_raw(&w, "{\"type\":\"ERROR\",\"object\":");
    jw_status(&w, code, reason, message);
    jw_raw(&w, "}\n");
    return jw_frame(&w);
}

struct rbuf *kjson_list_head(const struct resource_type *rt, int64_t rv,
                             const char *continue_token, int64_t remaining)
{
    struct sbuf w = {0};

    jw_raw(&w, "{");
    jw_member_str(&w, true, "kind", rt->list_kind);
    jw_member_str(&w, false, "apiVersion", rt->api_version);
    jw_raw(&w, ",\"metadata\":{\"resourceVersion\":\"");
    jw_int(&w, rv);
    jw_raw(&w, "\"");
    if (continue_token != NULL)
        jw_member_str(&w, false, "continue", continue_token);
    if (remaining >= 0) {
        jw_raw(&w, ",\"remainingItemCount\":");
        jw_int(&w, remaining);
    }
    jw_raw(&w, "},\"items\":[");
    return jw_rbuf(&w);
}

struct rbuf *kjson_list_tail(void)
{
    return rbuf_from("]}", 2);
}
