/*
 * ctoken.c: LIST continue tokens (see ctoken.h).
 *
 * The token is base64url without padding (RFC 4648 section 5, as Go's
 * base64.RawURLEncoding); the JSON inside is written here by hand, because
 * its start key ends in a NUL that a C string cannot carry, and read back
 * with jval (cJSON), whose strings stop at that NUL: exactly the key.
 */
#include "proto/ctoken.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "cache/utf8.h"
#include "proto/jval.h"
#include "proto/kjson.h"

#define CTOKEN_VERSION "meta.k8s.io/v1"

/* Decodes s into a new buffer of *len bytes (plus a NUL); NULL when s is
 * not unpadded base64url, with the offending input byte in *bad. */
static char *base64url_decode(const char *s, size_t *len, size_t *bad)
{
    struct sbuf out = {0};

    if (!sbuf_add_unbase64url(&out, s, strlen(s), bad)) {
        sbuf_fini(&out);
        return NULL;
    }
    *len = out.len;
    return out.data;
}

char *ctoken_encode(int64_t rv, uint64_t epoch, const char *key, size_t len)
{
    char *k = xstrndup(key, len), *esc = kjson_escape(k), *json;
    char extra[48] = "";
    struct sbuf token = {0};

    if (epoch > 0)
        snprintf(extra, sizeof(extra), ",\"rwEpoch\":%" PRIu64, epoch);
    json = xasprintf("{\"v\":\"" CTOKEN_VERSION "\",\"rv\":%" PRId64
                     ",\"start\":\"%s\\u0000\"%s}",
                     rv, esc, extra);
    sbuf_add_base64(&token, json, strlen(json), true);
    free(k);
    free(esc);
    free(json);
    return token.data;
}

/* Whether item is a JSON number holding a whole number in [lo, 2^53]. */
static bool ctoken_whole(const struct jval *item, double lo)
{
    double v = jval_double(item);

    return jval_is_number(item) && v >= lo && v <= 9007199254740992.0 &&
           v == (double)(int64_t)v;
}

/* The first member of object o named name, null included, or NULL. */
static const struct jval *ctoken_member(const struct jval *o, const char *name)
{
    const struct jval *c;

    if (!jval_is_object(o))
        return NULL;
    JVAL_EACH(c, o)
    {
        if (strcmp(jval_name(c), name) == 0)
            return c;
    }
    return NULL;
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
    const struct jval *v, *r, *start, *e;
    struct jval *root;
    int err = RW_EINVAL;

    *key = NULL;
    if (json == NULL) {
        snprintf(why, why_len,
                 "continue key is not valid: illegal base64 "
                 "data at input byte %zu",
                 bad);
        return RW_EINVAL;
    }
    root = jval_try_parse(json, len);
    v = ctoken_member(root, "v");
    r = ctoken_member(root, "rv");
    start = ctoken_member(root, "start");
    e = ctoken_member(root, "rwEpoch");
    if (!jval_is_object(root) || jval_type(v) != JVAL_STRING ||
        !jval_is_number(r) || jval_type(start) != JVAL_STRING)
        snprintf(why, why_len,
                 "continue key is not valid: not a continue "
                 "token");
    else if (strcmp(jval_str(v), CTOKEN_VERSION) != 0)
        snprintf(why, why_len,
                 "continue key is not valid: server does not "
                 "recognize this encoded version \"%.64s\"",
                 jval_str(v));
    else if (*jval_str(start) == '\0')
        snprintf(why, why_len,
                 "continue key is not valid: encoded start key "
                 "empty");
    else if (!utf8_valid(jval_str(start), strlen(jval_str(start))))
        snprintf(why, why_len,
                 "continue key is not valid: start key is not "
                 "UTF-8");
    else if (!ctoken_key_clean(jval_str(start)))
        snprintf(why, why_len, "continue key is not valid: %.128s",
                 jval_str(start));
    else if (!ctoken_whole(r, -9007199254740992.0))
        snprintf(why, why_len, "continue key is not valid: bad revision");
    else if (e != NULL && !ctoken_whole(e, 0))
        snprintf(why, why_len, "continue key is not valid: bad epoch");
    else if (jval_double(r) == 0)
        snprintf(why, why_len,
                 "continue key is not valid: incorrect encoded "
                 "start resourceVersion (version meta.k8s.io/v1)");
    else {
        /* Any negative revision continues on current state, as -1. */
        *rv = jval_double(r) < 0 ? -1 : (int64_t)jval_double(r);
        *epoch = e != NULL ? (uint64_t)jval_double(e) : 0;
        *key = xstrdup(jval_str(start));
        err = RW_OK;
    }
    jval_free(root);
    free(json);
    return err;
}
