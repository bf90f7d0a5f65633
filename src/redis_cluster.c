/*
 * redis_cluster.c: hash slots, CLUSTER SLOTS maps and MOVED/ASK
 * redirections (see redis_cluster.h).
 */
#include "src/redis_cluster.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/redis_client.h"
#include "src/upstream_redis_entry.h"

struct range {
    unsigned start, end;
    char *host;
    uint16_t port;
};

struct redis_cluster_map {
    struct range *ranges;
    size_t n;
};

uint16_t redis_cluster_crc16(const char *buf, size_t len)
{
    uint16_t crc = 0;

    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)((uint16_t)(unsigned char)buf[i] << 8);
        for (int b = 0; b < 8; b++)
            crc = (crc & 0x8000) != 0 ? (uint16_t)((crc << 1) ^ 0x1021)
                                      : (uint16_t)(crc << 1);
    }
    return crc;
}

unsigned redis_cluster_key_slot(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len), *close;

    if (open != NULL) {
        size_t rest = len - (size_t)(open - key) - 1;

        close = memchr(open + 1, '}', rest);
        if (close != NULL && close > open + 1)
            return redis_cluster_crc16(open + 1, (size_t)(close - open - 1)) %
                   REDIS_CLUSTER_SLOTS;
    }
    return redis_cluster_crc16(key, len) % REDIS_CLUSTER_SLOTS;
}

void redis_cluster_map_free(struct redis_cluster_map *map)
{
    if (map == NULL)
        return;
    for (size_t i = 0; i < map->n; i++)
        free(map->ranges[i].host);
    free(map->ranges);
    free(map);
}

/* An INTEGER reply in 0..max, else -1. */
static long long reply_uint(const struct redis_client_reply *r, long long max)
{
    if (r->type != REDIS_CLIENT_INTEGER || r->integer < 0 || r->integer > max)
        return -1;
    return r->integer;
}

struct redis_cluster_map *
redis_cluster_map_parse(const struct redis_client_reply *r,
                        const char *asked_host, char *why, size_t why_len)
{
    struct redis_cluster_map *map;

    if (r->type != REDIS_CLIENT_ARRAY) {
        snprintf(why, why_len, "CLUSTER SLOTS: not an array");
        return NULL;
    }
    map = xcalloc(1, sizeof(*map));
    map->ranges = xcalloc(r->n ? r->n : 1, sizeof(*map->ranges));
    for (size_t i = 0; i < r->n; i++) {
        const struct redis_client_reply *e = &r->elem[i], *m;
        long long start, end, port;

        if (e->type != REDIS_CLIENT_ARRAY || e->n < 3 ||
            (start = reply_uint(&e->elem[0], REDIS_CLUSTER_SLOTS - 1)) < 0 ||
            (end = reply_uint(&e->elem[1], REDIS_CLUSTER_SLOTS - 1)) < start) {
            snprintf(why, why_len, "CLUSTER SLOTS: range %zu malformed", i);
            redis_cluster_map_free(map);
            return NULL;
        }
        m = &e->elem[2];
        if (m->type != REDIS_CLIENT_ARRAY || m->n < 2 ||
            m->elem[0].type != REDIS_CLIENT_STRING ||
            m->elem[0].len > 255 ||
            memchr(m->elem[0].str, '\0', m->elem[0].len) != NULL ||
            (port = reply_uint(&m->elem[1], 65535)) <= 0) {
            snprintf(why, why_len,
                     "CLUSTER SLOTS: range %lld-%lld: master without host "
                     "or port",
                     start, end);
            redis_cluster_map_free(map);
            return NULL;
        }
        struct range *g = &map->ranges[map->n++];
        g->start = (unsigned)start;
        g->end = (unsigned)end;
        g->port = (uint16_t)port;
        if (m->elem[0].len > 0) {
            g->host = xcalloc(1, m->elem[0].len + 1);
            memcpy(g->host, m->elem[0].str, m->elem[0].len);
        } else {
            g->host = xstrdup(asked_host);
        }
    }
    return map;
}

bool redis_cluster_map_master(const struct redis_cluster_map *map,
                              unsigned slot, const char **host,
                              uint16_t *port)
{
    for (size_t i = 0; i < map->n; i++)
        if (slot >= map->ranges[i].start && slot <= map->ranges[i].end) {
            *host = map->ranges[i].host;
            *port = map->ranges[i].port;
            return true;
        }
    return false;
}

unsigned redis_cluster_map_covered(const struct redis_cluster_map *map)
{
    unsigned n = 0;

    for (unsigned s = 0; s < REDIS_CLUSTER_SLOTS; s++) {
        const char *host;
        uint16_t port;

        n += redis_cluster_map_master(map, s, &host, &port);
    }
    return n;
}

bool redis_cluster_redirect_parse(const char *msg, size_t len,
                                  struct redis_cluster_redirect *out)
{
    const char *p, *end = msg + len, *sp, *colon;
    int64_t slot, port;

    memset(out, 0, sizeof(*out));
    if (len > 6 && memcmp(msg, "MOVED ", 6) == 0) {
        out->kind = REDIS_CLUSTER_MOVED;
        p = msg + 6;
    } else if (len > 4 && memcmp(msg, "ASK ", 4) == 0) {
        out->kind = REDIS_CLUSTER_ASK;
        p = msg + 4;
    } else {
        return false;
    }
    sp = memchr(p, ' ', (size_t)(end - p));
    if (sp == NULL ||
        (slot = upstream_redis_entry_int(p, (size_t)(sp - p))) < 0 ||
        slot >= REDIS_CLUSTER_SLOTS)
        return false;
    p = sp + 1;
    colon = NULL;
    for (const char *q = p; q < end; q++)
        if (*q == ':')
            colon = q;
    if (colon == NULL || (size_t)(colon - p) >= sizeof(out->host) ||
        memchr(p, '\0', (size_t)(colon - p)) != NULL ||
        memchr(p, ' ', (size_t)(colon - p)) != NULL ||
        (port = upstream_redis_entry_int(colon + 1,
                                         (size_t)(end - colon - 1))) <= 0 ||
        port > 65535)
        return false;
    memcpy(out->host, p, (size_t)(colon - p));
    out->host[colon - p] = '\0';
    out->slot = (unsigned)slot;
    out->port = (uint16_t)port;
    return true;
}

bool redis_cluster_disabled(const char *msg, size_t len)
{
    static const char text[] = "cluster support disabled";
    size_t n = sizeof(text) - 1;

    for (size_t i = 0; i + n <= len; i++)
        if (memcmp(msg + i, text, n) == 0)
            return true;
    return false;
}
