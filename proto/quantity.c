/*
 * quantity.c: resource.Quantity's parse and String() (see quantity.h),
 * following apimachinery's pkg/api/resource (quantity.go, suffix.go,
 * amount.go).
 *
 * A value is kept as a decimal: sign, digit string (no leading zeros, ""
 * for zero) and a base-10 exponent, so that any length and exponent the
 * parser accepts is exact, as inf.Dec is for the apiserver.  Multiplying by
 * a binary suffix's 2^k and dividing by 1024 work on the digit string.
 */
#include "proto/quantity.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

enum format { DECIMAL_SI, BINARY_SI, DECIMAL_EXPONENT };

/* What parseQuantityString splits the text into. */
struct parsed {
    bool negative;
    const char *num; /* digits, leading zeros stripped */
    size_t num_len;
    const char *denom; /* digits after '.' */
    size_t denom_len;
    const char *suffix;
    int base; /* 10 or 2 */
    int64_t exponent;
    enum format format;
};

/* ±digits × 10^exp; digits has no leading zeros, "" is zero. */
struct dec {
    bool negative;
    char *digits;
    int64_t exp;
};

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static size_t digit_run(const char *s)
{
    size_t n = 0;

    while (is_digit(s[n]))
        n++;
    return n;
}

/* parseQuantityString: false for ErrFormatWrong. */
static bool split(const char *s, struct parsed *p)
{
    const char *q;

    *p = (struct parsed){.num = "0", .num_len = 1, .denom = "", .suffix = ""};
    if (*s == '-' || *s == '+')
        p->negative = *s++ == '-';
    while (*s == '0')
        s++;
    if (*s == '\0') /* only zeros (or nothing) after the sign */
        return true;
    if (digit_run(s) > 0) {
        p->num = s;
        p->num_len = digit_run(s);
        s += p->num_len;
    }
    if (*s == '.') {
        p->denom = ++s;
        p->denom_len = digit_run(s);
        s += p->denom_len;
    }
    p->suffix = s;
    for (q = s; *q != '\0' && strchr("eEinumkKMGTP", *q) != NULL; q++)
        ;
    if (*q == '-' || *q == '+')
        q++;
    return q[digit_run(q)] == '\0';
}

/* quantitySuffixer.interpret: false for ErrSuffix. */
static bool interpret(struct parsed *p)
{
    static const struct {
        const char *suffix;
        int base, exponent;
    } table[] = {
        {"", 10, 0},   {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3},
        {"k", 10, 3},  {"M", 10, 6},  {"G", 10, 9},  {"T", 10, 12},
        {"P", 10, 15}, {"E", 10, 18}, {"Ki", 2, 10}, {"Mi", 2, 20},
        {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50}, {"Ei", 2, 60},
    };
    const char *e = p->suffix + 1;
    int64_t v = 0;
    bool neg = false;

    for (size_t i = 0; i < RW_ARRAY_LEN(table); i++) {
        if (strcmp(p->suffix, table[i].suffix) == 0) {
            p->base = table[i].base;
            p->exponent = table[i].exponent;
            p->format = p->base == 2 ? BINARY_SI : DECIMAL_SI;
            return true;
        }
    }
    if (p->suffix[0] != 'e' && p->suffix[0] != 'E')
        return false;
    /* strconv.ParseInt(suffix[1:], 10, 64), then int32() */
    if (*e == '-' || *e == '+')
        neg = *e++ == '-';
    if (*e == '\0' || digit_run(e) != strlen(e))
        return false;
    for (; *e != '\0'; e++) {
        if (v > (INT64_MAX - (*e - '0')) / 10)
            return false;
        v = v * 10 + (*e - '0');
    }
    p->base = 10;
    p->exponent = (int32_t)(uint32_t)(uint64_t)(neg ? -v : v);
    p->format = DECIMAL_EXPONENT;
    return true;
}

static bool ends_with_000(const char *s, size_t n)
{
    return n >= 3 && memcmp(s + n - 3, "000", 3) == 0;
}

/* Whether ParseQuantity's int64 fast path keeps the string (then
 * String() returns it as given), and RoundUp(-3) does not clear it when
 * milli is set. */
static bool kept_verbatim(const struct parsed *p, bool milli)
{
    char shifted[40];
    int64_t value = 0, product;

    if (p->format == BINARY_SI) {
        if (p->denom_len > 0 ||
            15 - (int64_t)p->num_len - p->exponent * 3 / 10 - 1 < 0)
            return false;
        for (size_t i = 0; i < p->num_len; i++)
            value = value * 10 + (p->num[i] - '0');
        if (__builtin_mul_overflow(value, (int64_t)1 << p->exponent, &product))
            return false;
        return p->exponent % 10 == 0 && (value & 7) != 0;
    }
    if (18 - (int64_t)(p->num_len + p->denom_len) < 0)
        return false;
    if (p->exponent - (int64_t)p->denom_len < (milli ? -3 : -9))
        return false;
    memcpy(shifted, p->num, p->num_len);
    memcpy(shifted + p->num_len, p->denom, p->denom_len);
    return (p->exponent - (int64_t)p->denom_len) % 3 == 0 &&
           !ends_with_000(shifted, p->num_len + p->denom_len) &&
           shifted[0] != '0';
}

/* ------------------------------------------------------------------ */
/* Decimal arithmetic on digit strings                                 */
/* ------------------------------------------------------------------ */

static void dec_trim_leading(struct dec *d)
{
    size_t z = strspn(d->digits, "0");

    memmove(d->digits, d->digits + z, strlen(d->digits + z) + 1);
}

/* d *= m, m small. */
static void dec_mul_small(struct dec *d, unsigned m)
{
    size_t n = strlen(d->digits);
    char *out = xmalloc(n + 12);
    unsigned carry = 0;

    out[n + 11] = '\0';
    for (size_t i = n + 11; i-- > 0;) {
        unsigned v = carry;

        if (i >= 11)
            v += (unsigned)(d->digits[i - 11] - '0') * m;
        out[i] = (char)('0' + v % 10);
        carry = v / 10;
    }
    free(d->digits);
    d->digits = out;
    dec_trim_leading(d);
}

/* d /= m when d is a whole multiple of m: true and d changed; else false
 * and d unchanged. */
static bool dec_div_exact(struct dec *d, unsigned m)
{
    size_t n = strlen(d->digits);
    char *out = xmalloc(n + 1);
    unsigned rem = 0;

    for (size_t i = 0; i < n; i++) {
        rem = rem * 10 + (unsigned)(d->digits[i] - '0');
        out[i] = (char)('0' + rem / m);
        rem %= m;
    }
    out[n] = '\0';
    if (rem != 0) {
        free(out);
        return false;
    }
    free(d->digits);
    d->digits = out;
    dec_trim_leading(d);
    return true;
}

/* Adds 1 to the integer digits (growing by one at most). */
static void dec_increment(struct dec *d)
{
    size_t n = strlen(d->digits), i = n;
    char *grown;

    while (i > 0 && d->digits[i - 1] == '9')
        d->digits[--i] = '0';
    if (i > 0) {
        d->digits[i - 1]++;
        return;
    }
    grown = xmalloc(n + 2);
    grown[0] = '1';
    memcpy(grown + 1, d->digits, n + 1);
    free(d->digits);
    d->digits = grown;
}

/* Rounds away from zero to a multiple of 10^scale (inf.RoundUp). */
static void dec_round(struct dec *d, int64_t scale)
{
    size_t n = strlen(d->digits), drop;
    bool lost = false;

    if (n == 0 || d->exp >= scale)
        return;
    drop = scale - d->exp < (int64_t)n ? (size_t)(scale - d->exp) : n;
    for (size_t i = n - drop; i < n; i++)
        lost |= d->digits[i] != '0';
    d->digits[n - drop] = '\0';
    d->exp = scale;
    if (lost)
        dec_increment(d);
    dec_trim_leading(d);
}

/* Moves trailing zeros of the digits into the exponent. */
static void dec_strip_zeros(struct dec *d)
{
    size_t n = strlen(d->digits);

    while (n > 0 && d->digits[n - 1] == '0') {
        d->digits[--n] = '\0';
        d->exp++;
    }
}

/* Appends k zeros to the digits, lowering the exponent by k. */
static void dec_shift(struct dec *d, size_t k)
{
    size_t n = strlen(d->digits);

    d->digits = xrealloc(d->digits, n + k + 1);
    memset(d->digits + n, '0', k);
    d->digits[n + k] = '\0';
    d->exp -= (int64_t)k;
}

/* Compares |d| with the whole number w (digits, no leading zeros): -1, 0
 * or 1. */
static int dec_cmp(struct dec *d, const char *w)
{
    int64_t len, wl = (int64_t)strlen(w);
    int c;

    dec_strip_zeros(d);
    len = (int64_t)strlen(d->digits);
    if (len == 0)
        return -1;
    if (len + d->exp != wl)
        return len + d->exp > wl ? 1 : -1;
    c = strncmp(d->digits, w, (size_t)RW_MIN(len, wl));
    if (c != 0)
        return c > 0 ? 1 : -1;
    return len > wl; /* more digits: a fraction beyond w */
}

/* ------------------------------------------------------------------ */
/* ParseQuantity and String()                                          */
/* ------------------------------------------------------------------ */

/* The value ParseQuantity stores: the digits scaled by the suffix, rounded
 * up to nano, binary values capped at 2^63-1. */
static void value_of(const struct parsed *p, struct dec *d, enum format *f)
{
    *f = p->format;
    d->negative = p->negative;
    d->digits = xmalloc(p->num_len + p->denom_len + 1);
    memcpy(d->digits, p->num, p->num_len);
    memcpy(d->digits + p->num_len, p->denom, p->denom_len);
    d->digits[p->num_len + p->denom_len] = '\0';
    dec_trim_leading(d);
    d->exp = -(int64_t)p->denom_len;
    if (p->base == 10)
        d->exp += p->exponent;
    else
        for (int64_t k = 0; k < p->exponent; k += 10)
            dec_mul_small(d, 1024);
    dec_round(d, -9);
    if (*f == BINARY_SI && dec_cmp(d, "9223372036854775807") > 0) {
        free(d->digits);
        d->digits = xstrdup("9223372036854775807");
        d->exp = 0;
    }
    if (*f == BINARY_SI && dec_cmp(d, "1") < 0)
        *f = DECIMAL_SI;
}

/* CanonicalizeBytes for a BinarySI value of 1024 or more that is whole:
 * the largest power of 1024 it is a multiple of. */
static void canonical_binary(struct dec *d, struct sbuf *out)
{
    static const char *const suffixes[] = {"",   "Ki", "Mi", "Gi",
                                           "Ti", "Pi", "Ei"};
    size_t times = 0;

    dec_shift(d, (size_t)d->exp); /* whole: exp >= 0, now 0 */
    while (dec_div_exact(d, 1024))
        times++;
    sbuf_addf(out, "%s%s%s", d->negative ? "-" : "", d->digits,
              times < RW_ARRAY_LEN(suffixes) ? suffixes[times] : "");
}

/* CanonicalizeBytes for DecimalSI and DecimalExponent. */
static void canonical_decimal(struct dec *d, enum format f, struct sbuf *out)
{
    static const char *const si[] = {"n", "u", "m", "",  "k",
                                     "M", "G", "T", "P", "E"};
    int64_t r;

    dec_strip_zeros(d);
    r = d->exp % 3;
    if (r == 1 || r == -2)
        dec_shift(d, 1);
    else if (r == 2 || r == -1)
        dec_shift(d, 2);
    sbuf_addf(out, "%s%s", d->negative ? "-" : "", d->digits);
    if (f == DECIMAL_EXPONENT && d->exp != 0)
        sbuf_addf(out, "e%lld", (long long)d->exp);
    else if (f == DECIMAL_SI && d->exp >= -9 && d->exp <= 18)
        sbuf_add(out, si[(d->exp + 9) / 3]);
}

int quantity_format(const char *s, bool milli, struct sbuf *out)
{
    struct parsed p;
    struct dec d;
    enum format f;
    size_t n;
    char *text;

    s += strspn(s, " \t\n\v\f\r");
    for (n = strlen(s); n > 0 && strchr(" \t\n\v\f\r", s[n - 1]); n--)
        ;
    text = xstrndup(s, n);
    if (n == 0 || !split(text, &p) || !interpret(&p)) {
        free(text);
        return RW_EINVAL;
    }
    if (strcmp(text, "0") == 0 || kept_verbatim(&p, milli)) {
        sbuf_add(out, text);
        free(text);
        return RW_OK;
    }
    value_of(&p, &d, &f);
    free(text);
    if (milli)
        dec_round(&d, -3);
    if (f == BINARY_SI && (dec_cmp(&d, "1024") < 0 || d.exp < 0))
        f = DECIMAL_SI; /* small or not whole: decimal, as Go */
    if (d.digits[0] == '\0')
        sbuf_add(out, "0");
    else if (f == BINARY_SI)
        canonical_binary(&d, out);
    else
        canonical_decimal(&d, f, out);
    free(d.digits);
    return RW_OK;
}
