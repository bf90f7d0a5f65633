/*
 * kjson_scan.c: the strict JSON scanner of store values (see kjson_scan.h).
 *
 * A cursor (struct scan) walks the bytes once, without allocating:
 * strings with their escapes, numbers by RFC 8259's grammar, literals, and
 * containers iteratively with their closers in a fixed array (at most
 * MAX_DEPTH deep, cJSON's limit).  Only the top-level object and its
 * metadata object are walked member by member, to record the spans the
 * decoder splices; every other value is only validated.
 */
#include "proto/kjson_scan.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/utf8.h"

/* Containers a value may nest, as cJSON's CJSON_NESTING_LIMIT. */
#define MAX_DEPTH 1000

/* A cursor over a value being validated, strictly as RFC 8259 (and Go's
 * encoding/json): no leading zeros, no raw control characters in strings,
 * only the escapes \" \\ \/ \b \f \n \r \t \uXXXX. */
struct scan {
    const unsigned char *s;
    size_t len;
    size_t pos;
    bool patch; /* saw a \u0000 or lone-surrogate escape (see
                   kjson_scan_patched_copy) */
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

bool kjson_scan_string_equals(const unsigned char *s, size_t n,
                              const char *want, size_t n_want)
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
        k = utf8_encode(cp, utf8);
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

const char *const kjson_scan_top_names[KJSON_SCAN_TOP_N] = {
    "kind", "apiVersion", "metadata"};
const char *const kjson_scan_meta_names[KJSON_SCAN_META_N] = {
    "name", "namespace", "resourceVersion"};
static const char *const top_dups[KJSON_SCAN_TOP_N] = {
    "duplicate kind", "duplicate apiVersion", "duplicate metadata"};
static const char *const meta_dups[KJSON_SCAN_META_N] = {
    "duplicate metadata.name", "duplicate metadata.namespace",
    "duplicate metadata.resourceVersion"};

/*
 * Walks the object at the cursor (its '{'), which sits inside depth
 * containers: validates it, counts its members into *b and records in
 * found[i] each member named names[i] (n of them).  Leaves the cursor
 * past the '}'.
 */
static bool scan_object(struct scan *sc, unsigned depth,
                        const char *const *names,
                        struct kjson_scan_member *found, size_t n,
                        struct kjson_scan_braces *b)
{
    size_t key, key_end, val;

    rw_assert(scan_peek(sc) == '{');
    if (depth >= MAX_DEPTH)
        return false;
    *b = (struct kjson_scan_braces){.open = sc->pos++};
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
            if (kjson_scan_string_equals(sc->s + key + 1, key_end - key - 1,
                                         names[i], strlen(names[i])))
                found[i] = (struct kjson_scan_member){found[i].count + 1, val,
                                                      sc->pos};
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
static const char *duplicate(const struct kjson_scan_member *found,
                             const char *const *whys, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (found[i].count > 1)
            return whys[i];
    return NULL;
}

int kjson_scan_layout(const unsigned char *value, size_t len,
                      struct kjson_scan_layout *l, const char **why)
{
    struct scan sc = {.s = value, .len = len};
    const struct kjson_scan_member *meta = &l->topm[KJSON_SCAN_METADATA];
    bool ok;

    *l = (struct kjson_scan_layout){0};
    scan_ws(&sc);
    if (scan_peek(&sc) != '{') {
        ok = scan_value(&sc, 0);
        scan_ws(&sc);
        *why = ok && sc.pos == len ? "value is not a JSON object"
                                   : "value is not JSON";
        return RW_EINVAL;
    }
    ok = scan_object(&sc, 0, kjson_scan_top_names, l->topm, KJSON_SCAN_TOP_N,
                     &l->top);
    scan_ws(&sc);
    if (!ok || sc.pos != len) {
        *why = "value is not JSON";
        return RW_EINVAL;
    }
    if ((*why = duplicate(l->topm, top_dups, KJSON_SCAN_TOP_N)) != NULL)
        return RW_EINVAL;
    l->patch = sc.patch;
    if (meta->count == 0 || value[meta->val] != '{')
        return RW_OK;
    sc.pos = meta->val;
    ok = scan_object(&sc, 1, kjson_scan_meta_names, l->metam, KJSON_SCAN_META_N,
                     &l->meta);
    rw_assert(ok && sc.pos == meta->end && l->meta.close + 1 == meta->end);
    l->has_meta = true;
    if ((*why = duplicate(l->metam, meta_dups, KJSON_SCAN_META_N)) != NULL)
        return RW_EINVAL;
    return RW_OK;
}

char *kjson_scan_patched_copy(const unsigned char *value, size_t len)
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

void kjson_scan_compact(struct sbuf *w, const unsigned char *s, size_t n)
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
        sbuf_addn(w, s + run, i - run);
        while (i < n && is_ws(s[i]))
            i++;
    }
    rw_assert(!in_string);
}
