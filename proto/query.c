/*
 * query.c: the LIST/WATCH query string (see query.h).
 *
 * The string is split on '&' into key=value pairs (a pair without '=' has
 * the value ""), keys and values percent-decoded as Go's url.ParseQuery
 * does ('+' is a space).  Known keys are looked up in one table; the first
 * occurrence of each wins, later ones are ignored unread, as the
 * apiserver's conversion takes the first element of url.Values.
 *
 * Memory: every decoded value is written into q->storage, one allocation
 * of len + 1 bytes made up front.  That always suffices: a pair whose
 * value is kept spans at least value + 1 raw bytes ("k=" or the key of a
 * bare "k"), decoding never lengthens a value, and byte 0 holds the ""
 * that absent strings point at.
 */
#include "proto/query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

#define KEY_MAX 96 /* raw bytes; our longest key, fully escaped, is 60 */

enum query_key {
    QK_WATCH,
    QK_RV,
    QK_RV_MATCH,
    QK_LABEL_SELECTOR,
    QK_FIELD_SELECTOR,
    QK_LIMIT,
    QK_CONTINUE,
    QK_TIMEOUT,
    QK_BOOKMARKS,
    QK_INITIAL_EVENTS,
    QK_INCLUDE_OBJECT,
    QK_COUNT,
};

static const char *const key_names[QK_COUNT] = {
    [QK_WATCH] = "watch",
    [QK_RV] = "resourceVersion",
    [QK_RV_MATCH] = "resourceVersionMatch",
    [QK_LABEL_SELECTOR] = "labelSelector",
    [QK_FIELD_SELECTOR] = "fieldSelector",
    [QK_LIMIT] = "limit",
    [QK_CONTINUE] = "continue",
    [QK_TIMEOUT] = "timeoutSeconds",
    [QK_BOOKMARKS] = "allowWatchBookmarks",
    [QK_INITIAL_EVENTS] = "sendInitialEvents",
    [QK_INCLUDE_OBJECT] = "includeObject",
};

/*
 * Decodes s[0..len) into dst (room for at least len + 1 bytes), NUL-
 * terminated, its length in *n.  Returns RW_OK, or RW_EINVAL on a
 * malformed escape or one that decodes to a NUL byte (which would
 * silently cut the C string short).
 */
static int unescape_into(char *dst, const char *s, size_t len,
                         bool plus_is_space, size_t *out_len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        int hi, lo;

        if (s[i] == '+' && plus_is_space) {
            dst[n++] = ' ';
        } else if (s[i] != '%') {
            if (s[i] == '\0')
                return RW_EINVAL;
            dst[n++] = s[i];
        } else {
            if (len - i < 3 || (hi = rw_hex_digit(s[i + 1])) < 0 ||
                (lo = rw_hex_digit(s[i + 2])) < 0 || (hi | lo) == 0)
                return RW_EINVAL;
            dst[n++] = (char)(hi << 4 | lo);
            i += 2;
        }
    }
    dst[n] = '\0';
    *out_len = n;
    return RW_OK;
}

bool query_escapes_valid(const char *s, size_t len)
{
    for (const char *p = s; (p = memchr(p, '%', len - (size_t)(p - s))); p += 3)
        if (len - (size_t)(p - s) < 3 || rw_hex_digit(p[1]) < 0 ||
            rw_hex_digit(p[2]) < 0)
            return false;
    return true;
}

char *query_unescape(const char *s, size_t len, bool plus_is_space)
{
    char *out = xmalloc(len + 1);
    size_t n;

    if (unescape_into(out, s, len, plus_is_space, &n) != RW_OK) {
        free(out);
        return NULL;
    }
    return out;
}

/* Go's strconv.ParseBool, but for "f" and "F", which it reads false and
 * the apiserver's conversion true (anything but "0"/"false"): those are
 * refused, so that what is served is what the authorizer, reading as the
 * apiserver (src/request_info.h), allowed. */
static bool parse_bool(const char *s, bool *out)
{
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "FALSE", "false", "False"};

    for (size_t i = 0; i < RW_ARRAY_LEN(yes); i++) {
        if (strcmp(s, yes[i]) == 0) {
            *out = true;
            return true;
        }
    }
    for (size_t i = 0; i < RW_ARRAY_LEN(no); i++) {
        if (strcmp(s, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

/* A non-negative decimal int64: digits only, after an optional '+' when
 * allow_plus (as strconv.ParseInt); no overflow. */
static bool parse_count(const char *s, bool allow_plus, int64_t *out)
{
    int64_t v = 0;

    if (allow_plus && *s == '+')
        s++;
    if (*s == '\0')
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (INT64_MAX - (*s - '0')) / 10)
            return false;
        v = v * 10 + (*s - '0');
    }
    *out = v;
    return true;
}

/* Applies a decoded value of key k (its first occurrence). */
static int apply(struct query *q, enum query_key k, const char *v, char *why,
                 size_t why_len)
{
    bool b = false;

    switch (k) {
    case QK_WATCH:
    case QK_BOOKMARKS:
    case QK_INITIAL_EVENTS:
        if (!parse_bool(v, &b)) {
            snprintf(why, why_len, "invalid value for %s: \"%s\"", key_names[k],
                     v);
            return RW_EINVAL;
        }
        if (k == QK_WATCH)
            q->watch = b;
        else if (k == QK_BOOKMARKS)
            q->allow_bookmarks = b;
        else
            q->send_initial_events = b;
        return RW_OK;
    case QK_RV:
        if (*v == '\0')
            return RW_OK;
        if (!parse_count(v, false, &q->rv)) {
            snprintf(why, why_len, "invalid resourceVersion: \"%s\"", v);
            return RW_EINVAL;
        }
        q->has_rv = true;
        return RW_OK;
    case QK_RV_MATCH:
        q->rv_match_value = v;
        if (strcmp(v, "NotOlderThan") == 0)
            q->rv_match = RV_MATCH_NOT_OLDER_THAN;
        else if (strcmp(v, "Exact") == 0)
            q->rv_match = RV_MATCH_EXACT;
        else if (*v != '\0')
            q->rv_match = RV_MATCH_OTHER; /* a 422, as the apiserver */
        return RW_OK;
    case QK_LIMIT:
        if (*v == '-' && parse_count(v + 1, false, &q->limit)) {
            q->limit = 0; /* as the apiserver: no limit */
            return RW_OK;
        }
        /* fall through */
    case QK_TIMEOUT:
        if (!parse_count(v, true,
                         k == QK_LIMIT ? &q->limit : &q->timeout_seconds)) {
            snprintf(why, why_len, "%s must be a non-negative integer",
                     key_names[k]);
            return RW_EINVAL;
        }
        return RW_OK;
    case QK_LABEL_SELECTOR:
        q->label_selector = v;
        return RW_OK;
    case QK_FIELD_SELECTOR:
        q->field_selector = v;
        return RW_OK;
    case QK_CONTINUE:
        q->continue_token = v;
        return RW_OK;
    case QK_INCLUDE_OBJECT:
        q->include_object = v;
        return RW_OK;
    case QK_COUNT:
        break;
    }
    rw_assert(!"unknown query key");
    return RW_EINVAL;
}

/* The known key named by raw bytes s[0..len) (percent-decoded), or
 * QK_COUNT for any other key, including a malformed one (ignored, as Go's
 * url.ParseQuery drops it). */
static enum query_key find_key(const char *s, size_t len)
{
    char key[KEY_MAX + 1];
    size_t n;

    if (len > KEY_MAX || unescape_into(key, s, len, true, &n) != RW_OK)
        return QK_COUNT;
    for (int i = 0; i < QK_COUNT; i++)
        if (strcmp(key, key_names[i]) == 0)
            return (enum query_key)i;
    return QK_COUNT;
}

/* One key[=value] pair, len > 0 bytes at s. */
static int parse_pair(struct query *q, const char *s, size_t len,
                      unsigned *seen, size_t *used, char *why, size_t why_len)
{
    const char *eq = memchr(s, '=', len);
    size_t klen = eq ? (size_t)(eq - s) : len;
    const char *v = eq ? eq + 1 : s + len;
    size_t vlen = (size_t)(s + len - v);
    enum query_key k = find_key(s, klen);
    char *dst;
    size_t n;

    if (k == QK_COUNT || (*seen & (1u << k)))
        return RW_OK;
    *seen |= 1u << k;
    dst = q->storage + *used;
    if (unescape_into(dst, v, vlen, true, &n) != RW_OK) {
        snprintf(why, why_len,
                 "invalid %s: malformed percent-encoding in the query",
                 key_names[k]);
        return RW_EINVAL;
    }
    *used += n + 1;
    return apply(q, k, dst, why, why_len);
}

int query_parse(const char *query, size_t len, struct query *q, char *why,
                size_t why_len)
{
    const char *p = query, *end = query + len;
    unsigned seen = 0;
    size_t used = 1;

    *q = (struct query){
        .rv_match = RV_MATCH_UNSET,
        .timeout_seconds = -1,
        .send_initial_events = -1,
        .storage = xmalloc(len + 1),
    };
    q->storage[0] = '\0';
    q->label_selector = q->field_selector = q->continue_token =
        q->include_object = q->rv_match_value = q->storage;
    if (why_len > 0)
        why[0] = '\0';
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        int rc;

        if (amp == NULL)
            amp = end;
        if (amp > p && (rc = parse_pair(q, p, (size_t)(amp - p), &seen, &used,
                                        why, why_len)) != RW_OK)
            return rc;
        p = amp + 1;
    }
    rw_assert(used <= len + 1);
    return RW_OK;
}

static int invalid(const char **field, const char *name, char *why,
                   size_t why_len, const char *text)
{
    *field = name;
    snprintf(why, why_len, "%s", text);
    return RW_EINVAL;
}

static int query_validate_watch(const struct query *q, const char **field,
                                char *why, size_t why_len)
{
    if (q->rv_match == RV_MATCH_OTHER) {
        *field = "resourceVersionMatch";
        snprintf(why, why_len,
                 "Unsupported value: \"%.64s\": supported "
                 "values: \"NotOlderThan\"",
                 q->rv_match_value);
        return RW_EINVAL;
    }
    if (q->send_initial_events >= 0) {
        if (q->rv_match != RV_MATCH_NOT_OLDER_THAN)
            return invalid(field, "resourceVersionMatch", why, why_len,
                           "Forbidden: sendInitialEvents requires setting "
                           "resourceVersionMatch to NotOlderThan");
        if (!q->allow_bookmarks)
            return invalid(field, "allowWatchBookmarks", why, why_len,
                           "Forbidden: sendInitialEvents requires setting "
                           "allowWatchBookmarks to true");
    }
    if (q->rv_match != RV_MATCH_UNSET) {
        if (q->send_initial_events < 0)
            return invalid(field, "resourceVersionMatch", why, why_len,
                           "Forbidden: resourceVersionMatch is forbidden for "
                           "watch unless sendInitialEvents is provided");
        if (q->rv_match != RV_MATCH_NOT_OLDER_THAN)
            return invalid(field, "resourceVersionMatch", why, why_len,
                           "Unsupported value: \"Exact\": supported values: "
                           "\"NotOlderThan\"");
        if (*q->continue_token)
            return invalid(field, "resourceVersionMatch", why, why_len,
                           "Forbidden: resourceVersionMatch is forbidden "
                           "when continue is provided");
    }
    return RW_OK;
}

int query_validate(const struct query *q, bool watch, const char **field,
                   char *why, size_t why_len)
{
    if (watch)
        return query_validate_watch(q, field, why, why_len);
    if (q->rv_match == RV_MATCH_OTHER) {
        *field = "resourceVersionMatch";
        snprintf(why, why_len,
                 "Unsupported value: \"%.64s\": supported "
                 "values: \"Exact\", \"NotOlderThan\", \"\"",
                 q->rv_match_value);
        return RW_EINVAL;
    }
    if (q->rv_match != RV_MATCH_UNSET) {
        if (!q->has_rv)
            return invalid(field, "resourceVersionMatch", why, why_len,
                           "Forbidden: resourceVersionMatch is forbidden "
                           "unless resourceVersion is provided");
        if (*q->continue_token)
            return invalid(field, "resourceVersionMatch", why, why_len,
                           "Forbidden: resourceVersionMatch is forbidden "
                           "when continue is provided");
        if (q->rv_match == RV_MATCH_EXACT && q->rv == 0)
            return invalid(field, "resourceVersionMatch", why, why_len,
                           "Forbidden: resourceVersionMatch \"exact\" is "
                           "forbidden for resourceVersion \"0\"");
    }
    if (q->send_initial_events >= 0)
        return invalid(field, "sendInitialEvents", why, why_len,
                       "Forbidden: sendInitialEvents is forbidden for list");
    return RW_OK;
}

void query_fini(struct query *q)
{
    free(q->storage);
    q->storage = NULL;
    q->label_selector = q->field_selector = q->continue_token =
        q->include_object = q->rv_match_value = "";
}

/* The first pair of query whose key decodes to name, as url.Values reads
 * keys (query_parse's find_key too): *value and *vlen its raw value
 * (NULL: no '='); false when there is none. */
static bool query_find(const char *query, const char *name, const char **value,
                       size_t *vlen)
{
    size_t n = strlen(name);

    for (const char *p = query; *p != '\0';) {
        size_t len = strcspn(p, "&");
        const char *eq = memchr(p, '=', len);
        size_t klen = eq != NULL ? (size_t)(eq - p) : len;
        char key[KEY_MAX + 1];
        size_t got;

        if (klen > 0 && klen <= KEY_MAX &&
            unescape_into(key, p, klen, true, &got) == RW_OK && got == n &&
            memcmp(key, name, n) == 0) {
            *value = eq != NULL ? eq + 1 : NULL;
            *vlen = eq != NULL ? len - klen - 1 : 0;
            return true;
        }
        p += len;
        if (*p == '&')
            p++;
    }
    return false;
}

char *query_first(const char *query, const char *name)
{
    const char *v;
    size_t len;

    if (!query_find(query, name, &v, &len))
        return NULL;
    return v != NULL ? query_unescape(v, len, true) : xstrdup("");
}

bool query_has(const char *query, const char *name)
{
    const char *v;
    size_t len;

    return query_find(query, name, &v, &len);
}
