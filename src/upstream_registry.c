/*
 * upstream_registry.c: the table of upstream adapters (see
 * upstream_registry.h).  A new adapter adds its ops here.
 */
#include "src/upstream_registry.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "src/upstream.h"
#include "src/upstream_etcd.h"
#include "src/upstream_redis.h"

static const struct upstream_ops *const adapters[] = {
    &upstream_etcd_ops,
    &upstream_redis_ops,
};

const struct upstream_ops *const *upstream_registry_all(size_t *n)
{
    *n = RW_ARRAY_LEN(adapters);
    return adapters;
}

/* "http:// or https:// (etcd), redis:// (redis)": every scheme known. */
static void registry_schemes(struct sbuf *b)
{
    for (size_t i = 0; i < RW_ARRAY_LEN(adapters); i++) {
        const char *const *s = adapters[i]->schemes;

        if (i > 0)
            sbuf_add(b, ", ");
        for (size_t j = 0; s[j] != NULL; j++) {
            const char *before = "";

            if (j > 0)
                before = s[j + 1] != NULL ? ", " : " or ";
            sbuf_addf(b, "%s%s://", before, s[j]);
        }
        sbuf_addf(b, " (%s)", adapters[i]->store);
    }
}

static const struct upstream_ops *registry_by_scheme(const char *scheme,
                                                     size_t len)
{
    for (size_t i = 0; i < RW_ARRAY_LEN(adapters); i++)
        for (const char *const *s = adapters[i]->schemes; *s != NULL; s++)
            if (strlen(*s) == len && strncasecmp(*s, scheme, len) == 0)
                return adapters[i];
    return NULL;
}

const struct upstream_ops *upstream_registry_find(const char *url, char *why,
                                                  size_t why_len)
{
    const char *sep = strstr(url, "://");
    const struct upstream_ops *ops = NULL;
    struct sbuf known = {0};

    if (sep != NULL)
        ops = registry_by_scheme(url, (size_t)(sep - url));
    if (ops != NULL)
        return ops->check(url, why, why_len) == RW_OK ? ops : NULL;
    registry_schemes(&known);
    if (sep == NULL)
        snprintf(why, why_len,
                 "expected a URL SCHEME://HOST:PORT with SCHEME one of %s",
                 known.data);
    else
        snprintf(why, why_len, "unknown scheme \"%.*s\": expected %s",
                 (int)(sep - url), url, known.data);
    sbuf_fini(&known);
    return NULL;
}
