/*
 * ctoken.c: LIST continue tokens (see ctoken.h).
 *
 * The token is base64url without padding (RFC 4648 section 5, as Go's
 * base64.RawURLEncoding); the JSON inside is written here by hand, because
 * its start key ends in a NUL that a C string cannot carry, and read back
 * with cJSON, whose strings stop at that NUL: exactly the key.
 */
#include "proto/ctoken.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cache/rw.h"
#include "cache/utf8.h"
#include "proto/kjson.h"

#define CTOKEN_VERSION "meta.k8s.io/v1"

static const char b64url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static char *base64url_encode(const char *in, size_t len)
{
    char *out = xmalloc((len + 2) / 3 * 4 + 1), *o = out;
    const unsigned char *p = (const unsigned char *)in;

    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        size_t n = RW_MIN(len - i, 3);

        if (n > 1)
            v |= (uint32_t)p[i + 1] << 8;
        if (n > 2)
            v |= p[i + 2];
        *o++ = b64url[v >> 18 & 63];
        *o++ = b64url[v >> 12 & 63];
        if (n > 1)
            *o++ = b64url[v >> 6 & 63];
        if (n > 2)
            *o++ = b64url[v & 63];
    }
    *o = '\0';
    return out;
}

static int base64url_value(char c)
{
    const char *at = c ? strchr(b64url, c) : NULL;

    return at ? (int)(at - b64url) : -1;
}

/* Decodes s into a new buffer of *len bytes (plus a NUL); NULL when s is
 * not unpadded base64url, with the offending input byte in *bad. */
static char *base64url_decode(const char *s, size_t *len, size_t *bad)
{
    size_t n = strlen(s);
    char *out = xmalloc(n / 4 * 3 + 3), *o = out;
    uint32_t acc = 0;
    unsigned bits = 0;

    if (n % 4 == 1) {
        *bad = n - 1;
        free(out);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        int v = base64url_value(s[i]);

        if (v < 0) {
            *bad = i;
            free(out);
            return NULL;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            *o++ = (char)(acc >> bits & 0xff);
        }
    }
    *o = '\0';
    *len = (size_t)(o - out);
    return out;
}

char *ctoken_encode(int64_t rv, uint64_t epoch, const char *key, size_t len)
{
    char *k = xstrndup(key, len), *esc = kjson_escape(k), *json, *token;
    char extra[48] = "";

    if (epoch > 0)
        snprintf(extra, sizeof(extra), ",\"rwEpoch\":%" PRIu64, epoch);
    json = xasprintf("{\"v\":\"" CTOKEN_VERSION "\",\"rv\":%" PRId64
                     ",\"start\":\"%s\\u0000\"%s}",
                     rv, esc, extra);
    token = base64url_encode(json, strlen(json));
    free(k);
    free(esc);
    free(json);
    return token;
}

/* Whether item is a JSON number holding a whole number in [lo, 2^53]. */
static bool ctoken_whole(const cJSON *item, double lo)
{
    return cJSON_IsNumber(item) && item->valuedouble >= lo &&
           item->valuedouble <= 9007199254740992.0 &&
           item->valuedouble == (double)(int64_t)item->valuedouble;
}

/* Whether path.Clean("/" + key) would leave key as it is. */
static bool ctoken_key_clean(const char *key)
{
    const char *seg = key;

    if (*key == '/')
        return false;
    for (;;) {
        const char *end = strchr(seg, '/');
        size_t n = end ? (size_t)(end - seg) : strlen(seg);

        if (n == 0 && end != NULL)
            return false; /* "//" */
        if ((n == 1 && seg[0] == '.') ||
            (n == 2 && seg[0] == '.' && seg[1] == '.'))
            return false;
        if (end == NULL)
            return true;
        seg = end + 1;
    }
}

int ctoken_decode(const char *token, int64_t *rv, uint64_t *epoch, char **key,
                  char *why, size_t why_len)
{
    size_t len, bad = 0;
    char *json = base64url_decode(token, &len, &bad);
    const cJSON *v, *r, *start, *e;
    cJSON *root;
    int err = RW_EINVAL;

    *key = NULL;
    if (json == NULL) {
        snprintf(why, why_len,
                 "continue key is not valid: illegal base64 "
                 "data at input byte %zu",
                 bad);
        return RW_EINVAL;
    }
    root = cJSON_ParseWithLength(json, len);
    v = cJSON_GetObjectItemCaseSensitive(root, "v");
    r = cJSON_GetObjectItemCaseSensitive(root, "rv");
    start = cJSON_GetObjectItemCaseSensitive(root, "start");
    e = cJSON_GetObjectItemCaseSensitive(root, "rwEpoch");
    if (!cJSON_IsObject(root) || !cJSON_IsString(v) || !cJSON_IsNumber(r) ||
        !cJSON_IsString(start))
        snprintf(why, why_len,
                 "continue key is not valid: not a continue "
                 "token");
    else if (strcmp(v->valuestring, CTOKEN_VERSION) != 0)
        snprintf(why, why_len,
                 "continue key is not valid: server does not "
                 "recognize this encoded version \"%.64s\"",
                 v->valuestring);
    else if (*start->valuestring == '\0')
        snprintf(why, why_len,
                 "continue key is not valid: encoded start key "
                 "empty");
    else if (!utf8_valid(start->valuestring, strlen(start->valuestring)))
        snprintf(why, why_len,
                 "continue key is not valid: start key is not "
                 "UTF-8");
    else if (!ctoken_key_clean(start->valuestring))
        snprintf(why, why_len, "continue key is not valid: %.128s",
                 start->valuestring);
    else if (!ctoken_whole(r, -9007199254740992.0))
        snprintf(why, why_len, "continue key is not valid: bad revision");
    else if (e != NULL && !ctoken_whole(e, 0))
        snprintf(why, why_len, "continue key is not valid: bad epoch");
    else if (r->valuedouble == 0)
        snprintf(why, why_len,
                 "continue key is not valid: incorrect encoded "
                 "start resourceVersion (version meta.k8s.io/v1)");
    else {
        /* Any negative revision continues on current state, as -1. */
        *rv = r->valuedouble < 0 ? -1 : (int64_t)r->valuedouble;
        *epoch = e != NULL ? (uint64_t)e->valuedouble : 0;
        *key = xstrdup(start->valuestring);
        err = RW_OK;
    }
    cJSON_Delete(root);
    free(json);
    return err;
}
