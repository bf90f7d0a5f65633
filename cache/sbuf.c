/*
 * sbuf.c: growable byte strings (see sbuf.h).  Capacity doubles, so n
 * appends cost O(total length).
 */
#include "cache/sbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/utf8.h"

void sbuf_reserve(struct sbuf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap)
        return;
    b->cap = RW_MAX(RW_MAX(b->cap * 2, b->len + n + 1), (size_t)64);
    b->data = xrealloc(b->data, b->cap);
}

void sbuf_addn(struct sbuf *b, const void *p, size_t n)
{
    sbuf_reserve(b, n);
    if (n > 0)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void sbuf_add(struct sbuf *b, const char *s)
{
    sbuf_addn(b, s, strlen(s));
}

void sbuf_vaddf(struct sbuf *b, const char *fmt, va_list ap)
{
    va_list again;
    int n;

    va_copy(again, ap);
    n = vsnprintf(NULL, 0, fmt, ap);
    rw_assert(n >= 0);
    sbuf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
    va_end(again);
    b->len += (size_t)n;
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    sbuf_vaddf(b, fmt, ap);
    va_end(ap);
}

void sbuf_add_base64(struct sbuf *b, const void *p, size_t n, bool url)
{
    static const char std[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char raw_url[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const char *digits = url ? raw_url : std;
    const unsigned char *in = p;

    sbuf_reserve(b, (n + 2) / 3 * 4);
    b->data[b->len] = '\0';
    for (size_t i = 0; i < n; i += 3) {
        size_t k = RW_MIN(n - i, 3);
        uint32_t v = (uint32_t)in[i] << 16;
        char out[4];

        if (k > 1)
            v |= (uint32_t)in[i + 1] << 8;
        if (k > 2)
            v |= in[i + 2];
        out[0] = digits[v >> 18 & 63];
        out[1] = digits[v >> 12 & 63];
        out[2] = k > 1 ? digits[v >> 6 & 63] : '=';
        out[3] = k > 2 ? digits[v & 63] : '=';
        sbuf_addn(b, out, url ? k + 1 : 4);
    }
}

/* The value of base64url digit c, -1 for anything else. */
static int base64url_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '-' ? 62 : c == '_' ? 63 : -1;
}

bool sbuf_add_unbase64url(struct sbuf *b, const char *s, size_t n,
                          size_t *bad)
{
    uint32_t acc = 0;
    unsigned bits = 0;

    sbuf_reserve(b, n / 4 * 3 + 3);
    b->data[b->len] = '\0';
    if (n % 4 == 1) {
        *bad = n - 1;
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        int v = base64url_value((unsigned char)s[i]);
        char byte;

        if (v < 0) {
            *bad = i;
            return false;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            byte = (char)(acc >> bits & 0xff);
            sbuf_addn(b, &byte, 1);
        }
    }
    return true;
}

void sbuf_fini(struct sbuf *b)
{
    free(b->data);
    *b = (struct sbuf){0};
}

/* Go's named escape for an ASCII byte in a quoted string, or NULL. */
static const char *go_escape(unsigned char c)
{
    static const char from[] = "\"\\\a\b\f\n\r\t\v";
    static const char *const to[] = {"\\\"", "\\\\", "\\a", "\\b", "\\f",
                                     "\\n",  "\\r",  "\\t", "\\v"};
    const char *at = c ? strchr(from, c) : NULL;

    return at ? to[at - from] : NULL;
}

void sbuf_add_quoted(struct sbuf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    sbuf_add(b, "\"");
    while (i < n) {
        size_t len = utf8_len(p + i, n - i);
        const char *esc = go_escape(p[i]);

        if (len > 1) {
            sbuf_addn(b, s + i, len);
            i += len;
            continue;
        }
        if (esc != NULL)
            sbuf_add(b, esc);
        else if (p[i] < 0x20 || p[i] >= 0x7f)
            sbuf_addf(b, "\\x%02x", p[i]);
        else
            sbuf_addn(b, s + i, 1);
        i++;
    }
    sbuf_add(b, "\"");
}
