/*
 * utf8.c: well-formed UTF-8 (see utf8.h).  utf8_len is inline in the
 * header; this file holds the whole-string check.
 */
#include "cache/utf8.h"

bool utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, n;

    while (i < len) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        if ((n = utf8_len(p + i, len - i)) == 0)
            return false;
        i += n;
    }
    return true;
}
