/*
 * upstream_redis_entry.c: the Redis schema's values (see
 * upstream_redis_entry.h).
 */
#include "src/upstream_redis_entry.h"

#include <string.h>

#include "src/redis_client.h"

/* A decimal integer filling str[0..len), or -1. */
int64_t upstream_redis_entry_int(const char *str, size_t len)
{
    int64_t v = 0;

    if (len == 0 || len > 18)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (str[i] < '0' || str[i] > '9')
            return -1;
        v = v * 10 + (str[i] - '0');
    }
    return v;
}

/* A GET's answer: the integer it holds, 0 when absent, -1 otherwise. */
int64_t upstream_redis_entry_reply_int(const struct redis_client_reply *r)
{
    if (r->type == REDIS_CLIENT_NIL)
        return 0;
    if (r->type == REDIS_CLIENT_INTEGER)
        return r->integer;
    if (r->type != REDIS_CLIENT_STRING)
        return -1;
    return upstream_redis_entry_int(r->str, r->len);
}

/* A stream entry ID "<ms>-<seq>" (any ID Redis gives out). */
bool upstream_redis_entry_id(const struct redis_client_reply *r, int64_t *ms,
                             int64_t *seq)
{
    const char *dash;

    if (r->type != REDIS_CLIENT_STRING ||
        (dash = memchr(r->str, '-', r->len)) == NULL)
        return false;
    *ms = upstream_redis_entry_int(r->str, (size_t)(dash - r->str));
    *seq = upstream_redis_entry_int(dash + 1,
                                    r->len - (size_t)(dash + 1 - r->str));
    return *ms >= 0 && *seq >= 0;
}

/* A log entry ID "<rev>-0": rev, or -1. */
int64_t upstream_redis_entry_rev(const struct redis_client_reply *r)
{
    int64_t ms, seq;

    return upstream_redis_entry_id(r, &ms, &seq) && seq == 0 ? ms : -1;
}

/* The type, key and value fields of a log entry's field list (NULL when
 * absent). */
void upstream_redis_entry_fields(const struct redis_client_reply *f,
                                 const struct redis_client_reply **type,
                                 const struct redis_client_reply **key,
                                 const struct redis_client_reply **value)
{
    *type = *key = *value = NULL;
    for (size_t j = 0; f->type == REDIS_CLIENT_ARRAY && j + 1 < f->n; j += 2) {
        const struct redis_client_reply *n = &f->elem[j];

        if (n->len == 4 && memcmp(n->str, "type", 4) == 0)
            *type = &f->elem[j + 1];
        else if (n->len == 3 && memcmp(n->str, "key", 3) == 0)
            *key = &f->elem[j + 1];
        else if (n->len == 5 && memcmp(n->str, "value", 5) == 0)
            *value = &f->elem[j + 1];
    }
}

int64_t upstream_redis_entry_hash_value(const char *v, size_t len,
                                        const char **json, size_t *json_len)
{
    const char *sp = v != NULL ? memchr(v, ' ', len) : NULL;
    int64_t modrev;

    if (sp == NULL)
        return -1;
    modrev = upstream_redis_entry_int(v, (size_t)(sp - v));
    if (modrev <= 0)
        return -1;
    *json = sp + 1;
    *json_len = len - (size_t)(sp + 1 - v);
    return modrev;
}
