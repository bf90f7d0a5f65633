/*
 * accept.c: content negotiation (see accept.h).
 *
 * An Accept header becomes an array of ranges, each a set of offsets into
 * the header (type, subtype, parameters) and its quality, so parsing
 * allocates once and copies nothing; parameters are looked up on demand
 * by rescanning a range's own bytes with goautoneg's rules.  The ranges
 * are then ordered exactly as Go's sort.Sort orders goautoneg's slice: its
 * comparison is not a strict weak order (a lower q can still sort first
 * against a wildcard) and the sort is not stable, so which range wins
 * depends on the algorithm itself, which is reproduced here step for step
 * (Go 1.22's sort/zsortinterface.go, the toolchain of Kubernetes 1.32).
 */
#include "proto/accept.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"
#include "cache/sbuf.h"

/* ------------------------------------------------------------------ */
/* Spans                                                               */
/* ------------------------------------------------------------------ */

struct span {
    const char *p;
    size_t n;
};

static struct span span_trim(struct span s)
{
    while (s.n > 0 && s.p[0] == ' ') {
        s.p++;
        s.n--;
    }
    while (s.n > 0 && s.p[s.n - 1] == ' ')
        s.n--;
    return s;
}

/* goautoneg's nextSplitElement: *item is s up to the first sep, *rest
 * what follows it ("" when there is no sep). */
static void span_split(struct span s, char sep, struct span *item,
                       struct span *rest)
{
    const char *at = memchr(s.p, sep, s.n);

    if (at == NULL) {
        *item = s;
        *rest = (struct span){s.p + s.n, 0};
        return;
    }
    *item = (struct span){s.p, (size_t)(at - s.p)};
    *rest = (struct span){at + 1, s.n - (size_t)(at - s.p) - 1};
}

/* A header value as Go's net/http hands it over: without the spaces and
 * tabs around it. */
static struct span header_span(const char *header)
{
    struct span s = {header ? header : "", header ? strlen(header) : 0};

    while (s.n > 0 && (s.p[0] == ' ' || s.p[0] == '\t')) {
        s.p++;
        s.n--;
    }
    while (s.n > 0 && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
        s.n--;
    return s;
}

static bool span_is(struct span s, const char *lit)
{
    return s.p != NULL && s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

/* ------------------------------------------------------------------ */
/* q: strconv.ParseFloat(s, 32)                                        */
/* ------------------------------------------------------------------ */

static bool is_digit(char c, bool hex)
{
    return (c >= '0' && c <= '9') ||
           (hex && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
}

/* strconv's underscoreOK: underscores only between digits, or between a
 * base prefix and a digit. */
static bool underscores_ok(const char *s, size_t n)
{
    char saw = '^';
    size_t i = 0;
    bool hex = false;

    if (n >= 1 && (s[0] == '-' || s[0] == '+')) {
        s++;
        n--;
    }
    if (n >= 2 && s[0] == '0' && strchr("bBoOxX", s[1]) != NULL) {
        i = 2;
        saw = '0';
        hex = s[1] == 'x' || s[1] == 'X';
    }
    for (; i < n; i++) {
        if (is_digit(s[i], hex)) {
            saw = '0';
        } else if (s[i] == '_') {
            if (saw != '0')
                return false;
            saw = '_';
        } else {
            if (saw == '_')
                return false;
            saw = '!';
        }
    }
    return saw != '_';
}

/* strconv's special(): [+-]inf, [+-]infinity, nan, any case, whole. */
static bool parse_special(const char *s, size_t n, double *out)
{
    double sign = 1;

    if (n == 3 && strncasecmp(s, "nan", 3) == 0) {
        *out = 0.0 / 0.0;
        return true;
    }
    if (n > 0 && (s[0] == '+' || s[0] == '-')) {
        sign = s[0] == '-' ? -1 : 1;
        s++;
        n--;
    }
    if ((n == 3 && strncasecmp(s, "inf", 3) == 0) ||
        (n == 8 && strncasecmp(s, "infinity", 8) == 0)) {
        *out = sign * (1.0 / 0.0);
        return true;
    }
    return false;
}

/* strconv's readFloat: whether s is one whole decimal or hexadecimal
 * (0x, with a p exponent) literal, underscores aside. */
static bool float_shape(const char *s, size_t n, bool *underscores)
{
    size_t i = 0;
    bool hex = false, dot = false, digits = false;

    *underscores = false;
    if (i < n && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i + 2 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        hex = true;
        i += 2;
    }
    for (; i < n; i++) {
        if (s[i] == '_')
            *underscores = true;
        else if (s[i] == '.' && !dot)
            dot = true;
        else if (is_digit(s[i], hex))
            digits = true;
        else
            break;
    }
    if (!digits)
        return false;
    if (i < n && (s[i] == (hex ? 'p' : 'e') || s[i] == (hex ? 'P' : 'E'))) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || s[i] < '0' || s[i] > '9')
            return false;
        for (; i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == '_'); i++)
            *underscores |= s[i] == '_';
    } else if (hex) {
        return false; /* a hexadecimal mantissa needs its exponent */
    }
    return i == n;
}

/* The quality goautoneg reads from v: ParseFloat(v, 32), 0 on error,
 * +-Inf past float32's range. */
static double parse_q(struct span v)
{
    bool underscores;
    double special;
    char *digits, *end;
    size_t k = 0;
    float f;

    if (parse_special(v.p, v.n, &special))
        return special;
    if (!float_shape(v.p, v.n, &underscores) ||
        (underscores && !underscores_ok(v.p, v.n)))
        return 0;
    digits = xmalloc(v.n + 1);
    for (size_t i = 0; i < v.n; i++)
        if (v.p[i] != '_')
            digits[k++] = v.p[i];
    digits[k] = '\0';
    f = strtof(digits, &end); /* correctly rounded, as Go's */
    if (*end != '\0')
        f = 0;
    free(digits);
    return (double)f;
}

/* ------------------------------------------------------------------ */
/* Parsing: goautoneg.ParseAccept                                      */
/* ------------------------------------------------------------------ */

struct range {
    struct span type, sub;
    struct span params; /* after the first ';' */
    double q;
};

struct accept {
    struct range *v;
    size_t n;
};

/* Value of parameter name in r (the last one), or an absent span. */
static struct span range_param(const struct range *r, const char *name)
{
    struct span rest = r->params, found = {NULL, 0};

    while (rest.n > 0) {
        struct span part, key, value, extra;

        span_split(rest, ';', &part, &rest);
        span_split(part, '=', &key, &value);
        if (value.n == 0)
            continue;
        span_split(value, '=', &value, &extra);
        if (extra.n != 0)
            continue;
        if (span_is(span_trim(key), name))
            found = span_trim(value);
    }
    return found;
}

/* One comma-separated element; false when goautoneg drops it. */
static bool range_parse(struct span part, struct range *r)
{
    struct span media, type, rest, sub, extra;

    part = span_trim(part);
    span_split(part, ';', &media, &r->params);
    span_split(media, '/', &type, &rest);
    r->type = span_trim(type);
    if (rest.n == 0) {
        if (!span_is(r->type, "*"))
            return false;
        r->sub = r->type;
    } else {
        span_split(rest, '/', &sub, &extra);
        if (extra.n != 0)
            return false;
        r->sub = span_trim(sub);
    }
    r->q = 1.0;
    for (rest = r->params; rest.n > 0;) {
        struct span param, key, value;

        span_split(rest, ';', &param, &rest);
        span_split(param, '=', &key, &value);
        if (value.n == 0)
            continue;
        span_split(value, '=', &value, &extra);
        if (extra.n == 0 && span_is(span_trim(key), "q"))
            r->q = parse_q(value);
    }
    return true;
}

static bool range_less(const struct range *a, const struct range *b)
{
    if (a->q > b->q)
        return true;
    if (!span_is(a->type, "*") && span_is(b->type, "*"))
        return true;
    return !span_is(a->sub, "*") && span_is(b->sub, "*");
}

static void go_sort(struct range *v, size_t n);

/* Parses header into ranges in goautoneg's order; free acc->v. */
static void accept_parse(struct span header, struct accept *acc)
{
    struct span rest = header, part;
    size_t cap = 1;

    for (size_t i = 0; i < rest.n; i++)
        cap += rest.p[i] == ',';
    acc->v = xmalloc(cap * sizeof(*acc->v));
    acc->n = 0;
    while (rest.n > 0) {
        span_split(rest, ',', &part, &rest);
        if (range_parse(part, &acc->v[acc->n]))
            acc->n++;
    }
    go_sort(acc->v, acc->n);
}

/* ------------------------------------------------------------------ */
/* Go's sort.Sort (pdqsort), step for step                             */
/* ------------------------------------------------------------------ */

#define LESS(i, j) range_less(&v[i], &v[j])

static void swap(struct range *v, size_t i, size_t j)
{
    struct range t = v[i];

    v[i] = v[j];
    v[j] = t;
}

static void insertion_sort(struct range *v, size_t a, size_t b)
{
    for (size_t i = a + 1; i < b; i++)
        for (size_t j = i; j > a && LESS(j, j - 1); j--)
            swap(v, j, j - 1);
}

static void sift_down(struct range *v, size_t lo, size_t hi, size_t first)
{
    size_t root = lo;

    for (;;) {
        size_t child = 2 * root + 1;

        if (child >= hi)
            return;
        if (child + 1 < hi && LESS(first + child, first + child + 1))
            child++;
        if (!LESS(first + root, first + child))
            return;
        swap(v, first + root, first + child);
        root = child;
    }
}

static void heap_sort(struct range *v, size_t a, size_t b)
{
    size_t hi = b - a;

    for (size_t i = (hi - 1) / 2 + 1; i-- > 0;)
        sift_down(v, i, hi, a);
    for (size_t i = hi; i-- > 0;) {
        swap(v, a, a + i);
        sift_down(v, 0, i, a);
    }
}

/* Go's bits.Len. */
static unsigned bit_len(size_t x)
{
    unsigned n = 0;

    for (; x != 0; x >>= 1)
        n++;
    return n;
}

static void break_patterns(struct range *v, size_t a, size_t b)
{
    size_t length = b - a;
    uint64_t random = length;
    size_t modulus = (size_t)1 << bit_len(length);

    if (length < 8)
        return;
    for (size_t idx = a + (length / 4) * 2 - 1; idx <= a + (length / 4) * 2 + 1;
         idx++) {
        size_t other;

        random ^= random << 13;
        random ^= random >> 7;
        random ^= random << 17;
        other = (size_t)random & (modulus - 1);
        if (other >= length)
            other -= length;
        swap(v, idx, a + other);
    }
}

enum hint { HINT_UNKNOWN, HINT_INCREASING, HINT_DECREASING };

static size_t median(struct range *v, size_t a, size_t b, size_t c, int *swaps)
{
    size_t t;

    if (LESS(b, a)) {
        (*swaps)++;
        t = a, a = b, b = t;
    }
    if (LESS(c, b)) {
        (*swaps)++;
        t = b, b = c, c = t;
    }
    if (LESS(b, a)) {
        (*swaps)++;
        t = a, a = b, b = t;
    }
    return b;
}

static size_t choose_pivot(struct range *v, size_t a, size_t b, enum hint *h)
{
    size_t l = b - a, i = a + l / 4, j = a + l / 4 * 2, k = a + l / 4 * 3;
    int swaps = 0;

    if (l >= 8) {
        if (l >= 50) { /* Tukey's ninther */
            i = median(v, i - 1, i, i + 1, &swaps);
            j = median(v, j - 1, j, j + 1, &swaps);
            k = median(v, k - 1, k, k + 1, &swaps);
        }
        j = median(v, i, j, k, &swaps);
    }
    *h = swaps == 0    ? HINT_INCREASING
         : swaps == 12 ? HINT_DECREASING
                       : HINT_UNKNOWN;
    return j;
}

static void reverse_range(struct range *v, size_t a, size_t b)
{
    for (size_t i = a, j = b - 1; i < j; i++, j--)
        swap(v, i, j);
}

static bool partial_insertion_sort(struct range *v, size_t a, size_t b)
{
    size_t i = a + 1;

    for (int step = 0; step < 5; step++) {
        while (i < b && !LESS(i, i - 1))
            i++;
        if (i == b)
            return true;
        if (b - a < 50)
            return false;
        swap(v, i, i - 1);
        if (i - a >= 2)
            for (size_t j = i - 1; j >= 1 && LESS(j, j - 1); j--)
                swap(v, j, j - 1);
        if (b - i >= 2)
            for (size_t j = i + 1; j < b && LESS(j, j - 1); j++)
                swap(v, j, j - 1);
    }
    return false;
}

static size_t partition_equal(struct range *v, size_t a, size_t b, size_t pivot)
{
    size_t i = a + 1, j = b - 1;

    swap(v, a, pivot);
    for (;;) {
        while (i <= j && !LESS(a, i))
            i++;
        while (i <= j && LESS(a, j))
            j--;
        if (i > j)
            return i;
        swap(v, i, j);
        i++;
        j--;
    }
}

static size_t partition(struct range *v, size_t a, size_t b, size_t pivot,
                        bool *already)
{
    size_t i = a + 1, j = b - 1;

    swap(v, a, pivot);
    while (i <= j && LESS(i, a))
        i++;
    while (i <= j && !LESS(j, a))
        j--;
    *already = i > j;
    while (i <= j) {
        swap(v, i, j);
        i++;
        j--;
        while (i <= j && LESS(i, a))
            i++;
        while (i <= j && !LESS(j, a))
            j--;
    }
    swap(v, j, a);
    return j;
}

static void pdqsort(struct range *v, size_t a, size_t b, unsigned limit)
{
    bool balanced = true, partitioned = true;

    for (;;) {
        size_t length = b - a, pivot, mid;
        enum hint hint;

        if (length <= 12) {
            insertion_sort(v, a, b);
            return;
        }
        if (limit == 0) {
            heap_sort(v, a, b);
            return;
        }
        if (!balanced) {
            break_patterns(v, a, b);
            limit--;
        }
        pivot = choose_pivot(v, a, b, &hint);
        if (hint == HINT_DECREASING) {
            reverse_range(v, a, b);
            pivot = (b - 1) - (pivot - a);
            hint = HINT_INCREASING;
        }
        if (balanced && partitioned && hint == HINT_INCREASING &&
            partial_insertion_sort(v, a, b))
            return;
        if (a > 0 && !LESS(a - 1, pivot)) {
            a = partition_equal(v, a, b, pivot);
            continue;
        }
        mid = partition(v, a, b, pivot, &partitioned);
        if (mid - a < b - mid) {
            balanced = mid - a >= length / 8;
            pdqsort(v, a, mid, limit);
            a = mid + 1;
        } else {
            balanced = b - mid >= length / 8;
            pdqsort(v, mid + 1, b, limit);
            b = mid;
        }
    }
}

static void go_sort(struct range *v, size_t n)
{
    if (n > 1)
        pdqsort(v, 0, n, bit_len(n));
}

#undef LESS

/* ------------------------------------------------------------------ */
/* Choosing                                                            */
/* ------------------------------------------------------------------ */

static bool group_version(struct span g, struct span v, const char *group,
                          const char *stable, const char *beta, bool *is_beta)
{
    if (!span_is(g, group))
        return false;
    *is_beta = span_is(v, beta);
    return span_is(v, stable) || *is_beta;
}

/* The endpoint's AllowsMediaTypeTransform for the conversion as/g/v
 * names (none when all are absent). */
static bool conversion_allowed(const struct range *r, enum accept_endpoint ep,
                               struct accept_choice *out)
{
    struct span as = range_param(r, "as"), g = range_param(r, "g"),
                v = range_param(r, "v");

    *out = (struct accept_choice){ACCEPT_OBJECT, false};
    if (as.p == NULL && g.p == NULL && v.p == NULL)
        return ep != ACCEPT_AGGREGATED;
    if (ep == ACCEPT_AGGREGATED) {
        out->kind = ACCEPT_DISCOVERY;
        return span_is(as, "APIGroupDiscoveryList") &&
               group_version(g, v, "apidiscovery.k8s.io", "v2", "v2beta1",
                             &out->beta);
    }
    if (ep == ACCEPT_DOCUMENT ||
        !group_version(g, v, "meta.k8s.io", "v1", "v1beta1", &out->beta))
        return false;
    if (span_is(as, "Table"))
        out->kind = ACCEPT_TABLE;
    else if (span_is(as, "PartialObjectMetadata"))
        out->kind = ACCEPT_PARTIAL;
    else if (span_is(as, "PartialObjectMetadataList"))
        out->kind = ACCEPT_PARTIAL_LIST;
    else
        return false;
    return out->kind != ACCEPT_TABLE || ep != ACCEPT_WATCH_LIST;
}

/* acceptMediaTypeOptions for the JSON serializer. */
static bool range_allowed(const struct range *r, enum accept_endpoint ep,
                          struct accept_choice *out)
{
    struct span stream = range_param(r, "stream"), sv = range_param(r, "sv");

    if (stream.p != NULL && !span_is(stream, "watch"))
        return false;
    if (sv.p != NULL && (ep == ACCEPT_DOCUMENT || ep == ACCEPT_AGGREGATED ||
                         !span_is(sv, "v1")))
        return false;
    return conversion_allowed(r, ep, out);
}

static bool range_names_json(const struct range *r)
{
    return (span_is(r->type, "application") &&
            (span_is(r->sub, "json") || span_is(r->sub, "*"))) ||
           (span_is(r->type, "*") && span_is(r->sub, "*"));
}

bool accept_negotiate(const char *header, enum accept_endpoint ep,
                      struct accept_choice *out)
{
    struct span h = header_span(header);
    struct accept acc;
    bool found = false;

    *out = (struct accept_choice){ACCEPT_OBJECT, false};
    if (h.n == 0)
        return ep != ACCEPT_AGGREGATED;
    accept_parse(h, &acc);
    for (size_t i = 0; i < acc.n && !found; i++)
        found =
            range_names_json(&acc.v[i]) && range_allowed(&acc.v[i], ep, out);
    free(acc.v);
    if (!found)
        *out = (struct accept_choice){ACCEPT_OBJECT, false};
    return found;
}

bool accept_route(const char *header, const char *const *produces, char *why,
                  size_t size)
{
    struct span rest = header_span(header);
    struct sbuf msg = {0};

    if (rest.n == 0)
        return true;
    while (rest.n > 0) {
        struct span element, params;

        span_split(rest, ',', &element, &rest);
        span_split(element, ';', &element, &params);
        element = span_trim(element);
        if (span_is(element, "*/*"))
            return true;
        for (size_t i = 0; produces[i] != NULL; i++)
            if (span_is(element, produces[i]))
                return true;
    }
    sbuf_add(&msg, "406: Not Acceptable\n\nAvailable representations: ");
    for (size_t i = 0; produces[i] != NULL; i++)
        sbuf_addf(&msg, "%s%s", i ? ", " : "", produces[i]);
    snprintf(why, size, "%s", msg.data);
    sbuf_fini(&msg);
    return false;
}

/* The apiserver's internal Go type of what verb returns for rt, e.g.
 * "*core.PodList", "*apps.Deployment" (its package is the group's first
 * label). */
static void internal_type(const struct resource_type *rt, bool list, char *buf,
                          size_t size)
{
    int n = (int)strcspn(rt->group, ".");

    snprintf(buf, size, "*%.*s.%s", *rt->group ? n : 4,
             *rt->group ? rt->group : "core", list ? rt->list_kind : rt->kind);
}

bool accept_convertible(const struct accept_choice *c, enum accept_verb verb,
                        const struct resource_type *rt, char *why, size_t size)
{
    char type[128];

    rw_assert(c->kind != ACCEPT_DISCOVERY);
    if (c->kind == ACCEPT_PARTIAL && verb == ACCEPT_LIST) {
        internal_type(rt, true, type, sizeof(type));
        snprintf(why, size,
                 "you requested PartialObjectMetadata, but the requested "
                 "object is a list (%s)",
                 type);
        return false;
    }
    if (c->kind == ACCEPT_PARTIAL_LIST && verb != ACCEPT_LIST) {
        internal_type(rt, false, type, sizeof(type));
        snprintf(why, size,
                 "you requested PartialObjectMetadataList, but the requested "
                 "object is not a list (%s)",
                 type);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ */
/* /metrics                                                            */
/* ------------------------------------------------------------------ */

static bool range_is_protobuf(const struct range *r)
{
    struct span enc = range_param(r, "encoding");

    return span_is(r->type, "application") &&
           span_is(r->sub, "vnd.google.protobuf") &&
           span_is(range_param(r, "proto"),
                   "io.prometheus.client.MetricFamily") &&
           (span_is(enc, "delimited") || span_is(enc, "text") ||
            span_is(enc, "compact-text"));
}

/* expfmt's text/plain range: version 0.0.4 or none. */
static bool range_is_text(const struct range *r)
{
    struct span ver = range_param(r, "version");

    return span_is(r->type, "text") && span_is(r->sub, "plain") &&
           (ver.p == NULL || span_is(ver, "0.0.4"));
}

bool accept_metrics_text(const char *header)
{
    struct span h = header_span(header);
    bool decided = false, protobuf = false, text = false;
    struct accept acc;

    if (h.n == 0)
        return true;
    accept_parse(h, &acc);
    for (size_t i = 0; i < acc.n; i++) {
        const struct range *r = &acc.v[i];

        /* expfmt.Negotiate takes the first of these two kinds. */
        if (!decided && range_is_protobuf(r))
            decided = protobuf = true;
        else if (!decided && range_is_text(r))
            decided = true;
        text = text || range_is_text(r) ||
               (span_is(r->sub, "*") &&
                (span_is(r->type, "text") || span_is(r->type, "*")));
    }
    free(acc.v);
    return text || !protobuf;
}
