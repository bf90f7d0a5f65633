/*
 * utf8.h: well-formed UTF-8, as RFC 3629 and Go's utf8.DecodeRune define it
 * (no overlong forms, no surrogates U+D800..U+DFFF, nothing above U+10FFFF,
 * no truncated sequence).  The one UTF-8 reader and writer of the tree: the
 * JSON codec (proto/kjson*.c, proto/ctoken.c), the selector parser
 * (selector.c) and the fleet's scanner (src/fleet/scan.c) use it.
 */
#ifndef UTF8_H
#define UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Bytes in the well-formed UTF-8 sequence at s (1 to 4, at most avail), or
 * 0 when s does not start one or avail is 0.  Inline: the JSON string
 * escaper calls it once per character.
 */
static inline size_t utf8_len(const unsigned char *s, size_t avail)
{
    unsigned char c, lo = 0x80, hi = 0xbf;
    size_t n;

    if (avail == 0)
        return 0;
    c = s[0];
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

/* Writes code point cp (at most U+10FFFF; a surrogate is the caller's
 * business) as UTF-8 into out; returns its length, 1 to 4 bytes. */
size_t utf8_encode(uint32_t cp, unsigned char out[4]);

/* Whether s[0..len) is well-formed UTF-8 throughout (len 0: true). */
bool utf8_valid(const char *s, size_t len);

#endif
