/*
 * redis_entry_fuzz.c: the Redis schema's readers (src/upstream_redis_entry.h)
 * and a snapshot (src/upstream_redis_snap.h) on arbitrary replies.  Each
 * input line is one log entry, "ID<TAB>name<TAB>value..." as an XRANGE
 * reply would hold it, and also a hash value "<modrev> <json>".  Every
 * reader either refuses or returns what the text holds; the snapshot
 * hands out keys in strictly increasing order, each once.  Redis Cluster's
 * readers (src/redis_cluster.h) too: each line as a MOVED/ASK error and
 * as a key (its slot), and the first lines "start<TAB>end<TAB>host<TAB>port"
 * (decimal fields as integers) as the ranges of a CLUSTER SLOTS answer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/redis_client.h"
#include "src/redis_cluster.h"
#include "src/upstream_redis_entry.h"
#include "src/upstream_redis_snap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char last_key[4096];
static size_t last_len;
static int emitted;

static void emit_cb(const char *key, size_t key_len, const char *value,
                    size_t value_len, int64_t mod_rev, void *arg)
{
    size_t n = key_len < last_len ? key_len : last_len;
    int d = memcmp(key, last_key, n);

    (void)value;
    (void)value_len;
    (void)arg;
    rw_assert(mod_rev <= 1000000);
    rw_assert(emitted == 0 || d > 0 || (d == 0 && key_len > last_len));
    last_len = key_len < sizeof(last_key) ? key_len : sizeof(last_key);
    memcpy(last_key, key, last_len);
    emitted++;
}

static struct redis_client_reply str(const char *s, size_t len)
{
    return (struct redis_client_reply){
        .type = REDIS_CLIENT_STRING, .str = s, .len = len};
}

#define MAX_RANGES 16

/* A CLUSTER SLOTS range from a line's fields: decimal ones as integers. */
struct range_reply {
    struct redis_client_reply top[3], master[2];
};

static struct redis_client_reply field(const struct redis_client_reply *f)
{
    int64_t v = upstream_redis_entry_int(f->str, f->len);

    if (v < 0)
        return *f;
    return (struct redis_client_reply){.type = REDIS_CLIENT_INTEGER,
                                       .integer = v};
}

static void check_cluster(const char *line, const struct redis_client_reply *parts,
                          size_t n, struct range_reply *rr,
                          struct redis_client_reply *ranges, size_t *n_ranges)
{
    struct redis_cluster_redirect rd;

    rw_assert(redis_cluster_key_slot(line, strlen(line)) < REDIS_CLUSTER_SLOTS);
    if (redis_cluster_redirect_parse(line, strlen(line), &rd))
        rw_assert(rd.slot < REDIS_CLUSTER_SLOTS && rd.port > 0 &&
                  strlen(rd.host) < sizeof(rd.host));
    if (n < 4 || *n_ranges >= MAX_RANGES)
        return;
    struct range_reply *r = &rr[*n_ranges];
    r->top[0] = field(&parts[0]);
    r->top[1] = field(&parts[1]);
    r->master[0] = parts[2];
    r->master[1] = field(&parts[3]);
    r->top[2] = (struct redis_client_reply){
        .type = REDIS_CLIENT_ARRAY, .elem = r->master, .n = 2};
    ranges[*n_ranges] = (struct redis_client_reply){
        .type = REDIS_CLIENT_ARRAY, .elem = r->top, .n = 3};
    (*n_ranges)++;
}

static void check_map(const struct redis_client_reply *ranges, size_t n)
{
    struct redis_client_reply all = {
        .type = REDIS_CLIENT_ARRAY, .elem = ranges, .n = n};
    char why[200];
    struct redis_cluster_map *map =
        redis_cluster_map_parse(&all, "asked", why, sizeof(why));
    const char *host;
    uint16_t port;

    if (map == NULL)
        return;
    rw_assert(redis_cluster_map_covered(map) <= REDIS_CLUSTER_SLOTS);
    for (size_t i = 0; i < n; i++)
        rw_assert(redis_cluster_map_master(
                      map, (unsigned)ranges[i].elem[0].integer, &host,
                      &port) &&
                  port > 0 && host[0] != '\0');
    redis_cluster_map_free(map);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xstrndup((const char *)data, size), *save = NULL;
    struct upstream_redis_snap *snap = upstream_redis_snap_new(0);
    struct range_reply rr[MAX_RANGES];
    struct redis_client_reply ranges[MAX_RANGES];
    size_t n_ranges = 0;

    emitted = 0;
    last_len = 0;
    for (char *line = strtok_r(text, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        struct redis_client_reply parts[16], fields;
        const struct redis_client_reply *type, *key, *value;
        size_t n = 0;
        char *p = line;
        int64_t ms, seq, rev, modrev;
        const char *json;
        size_t json_len;

        while (n < 16) {
            char *tab = strchr(p, '\t');

            parts[n++] = str(p, tab != NULL ? (size_t)(tab - p) : strlen(p));
            if (tab == NULL)
                break;
            p = tab + 1;
        }
        check_cluster(line, parts, n, rr, ranges, &n_ranges);
        rev = upstream_redis_entry_rev(&parts[0]);
        if (upstream_redis_entry_id(&parts[0], &ms, &seq))
            rw_assert(ms >= 0 && seq >= 0 && (rev < 0 || (rev == ms && !seq)));
        else
            rw_assert(rev == -1);
        fields = (struct redis_client_reply){
            .type = REDIS_CLIENT_ARRAY, .elem = parts + 1, .n = n - 1};
        upstream_redis_entry_fields(&fields, &type, &key, &value);
        rw_assert(key == NULL || (key >= parts + 1 && key < parts + n));
        modrev = upstream_redis_entry_hash_value(line, strlen(line), &json,
                                                 &json_len);
        if (modrev > 0) {
            rw_assert(json > line && json + json_len == line + strlen(line));
            rw_assert(json[-1] == ' ');
        }
        rw_assert(upstream_redis_entry_reply_int(&parts[0]) ==
                  upstream_redis_entry_int(parts[0].str, parts[0].len));
        if (key != NULL && rev > 0 && type != NULL && type->len == 6)
            upstream_redis_snap_del(snap, key->str, key->len);
        else if (key != NULL && rev > 0)
            upstream_redis_snap_put(snap, key->str, key->len,
                                    value ? value->str : NULL,
                                    value ? value->len : 0, rev % 2000000);
    }
    check_map(ranges, n_ranges);
    upstream_redis_snap_emit(snap, 1000000, emit_cb, NULL);
    rw_assert((size_t)emitted == upstream_redis_snap_count(snap));
    upstream_redis_snap_free(snap);
    free(text);
    return 0;
}
