/*
 * fake_upstream.c: a fake store behind struct upstream_reader (see
 * fake_upstream.h).
 */
#include "test/fake_upstream.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/etcd.h"

struct fake_kv {
    char *key;
    char *value;
    int64_t mod_rev;
};

struct fake_upstream {
    struct event_base *base;
    struct upstream_reader reader;
    struct fake_kv *kvs; /* sorted by key */
    size_t n;
    int64_t rev, compacted;
    bool down;
    bool probe_fixed; /* fake_upstream_set_probe */
    struct fake_probe probe;
    size_t probes, pages;
};

/* A read in flight: answered from the loop unless canceled. */
struct fake_read {
    struct fake_upstream *fu;
    bool page;
    char *from, *prefix; /* from: the cursor, NULL for the first page */
    size_t from_len, prefix_len, limit;
    int64_t rev, since;
    size_t count; /* probe: the caller's */
    upstream_probe_cb probe_cb;
    upstream_page_cb page_cb;
    void *arg;
    bool canceled;
};

static bool under(const struct fake_kv *kv, const char *prefix, size_t len)
{
    return strlen(kv->key) >= len && memcmp(kv->key, prefix, len) == 0;
}

static void fake_answer_probe(struct fake_read *rd)
{
    struct fake_upstream *fu = rd->fu;
    struct fake_probe f = {.rev = fu->rev};
    struct upstream_probe p;

    if (fu->probe_fixed) {
        f = fu->probe;
    } else {
        for (size_t i = 0; i < fu->n; i++) {
            if (!under(&fu->kvs[i], rd->prefix, rd->prefix_len))
                continue;
            f.count++;
            if (fu->kvs[i].mod_rev > rd->since)
                f.modified = true;
        }
    }
    p = (struct upstream_probe){
        .rev = f.rev,
        .unchanged = !f.modified && f.count == (int64_t)rd->count,
    };
    rd->probe_cb(RW_OK, NULL, &p, rd->arg);
}

static void fake_answer_page(struct fake_read *rd)
{
    struct fake_upstream *fu = rd->fu;
    struct upstream_kv *out = xcalloc(fu->n + 1, sizeof(*out));
    size_t n = 0, next_len = 0;
    char *next = NULL;
    bool more = false;

    if (rd->rev <= fu->compacted) {
        rd->page_cb(RW_EEXPIRED, "required revision has been compacted",
                    rd->rev, NULL, 0, NULL, 0, rd->arg);
        free(out);
        return;
    }
    if (rd->rev > fu->rev) {
        rd->page_cb(RW_EFUTURE, "required revision is a future revision",
                    rd->rev, NULL, 0, NULL, 0, rd->arg);
        free(out);
        return;
    }
    for (size_t i = 0; i < fu->n; i++) {
        const struct fake_kv *kv = &fu->kvs[i];
        size_t klen = strlen(kv->key);
        int c = memcmp(kv->key, rd->from, RW_MIN(klen, rd->from_len));

        if (c < 0 || (c == 0 && klen < rd->from_len) ||
            !under(kv, rd->prefix, rd->prefix_len))
            continue;
        if (n == rd->limit) {
            more = true;
            break;
        }
        out[n++] = (struct upstream_kv){kv->key, klen, kv->value,
                                        strlen(kv->value), kv->mod_rev};
    }
    if (more && n > 0) /* the cursor: the last key + "\0", as etcd's */
        next = etcd_key_next(out[n - 1].key, out[n - 1].key_len, &next_len);
    rd->page_cb(RW_OK, NULL, rd->rev, out, n, next, next_len, rd->arg);
    free(next);
    free(out);
}

static void fake_fire(evutil_socket_t fd, short what, void *arg)
{
    struct fake_read *rd = arg;

    if (!rd->canceled) {
        if (rd->page)
            fake_answer_page(rd);
        else
            fake_answer_probe(rd);
    }
    free(rd->from);
    free(rd->prefix);
    free(rd);
}

static struct fake_read *fake_start(struct fake_upstream *fu,
                                    const char *prefix, size_t prefix_len)
{
    struct fake_read *rd;
    struct timeval now = {0, 0};

    if (fu->down)
        return NULL;
    rd = xcalloc(1, sizeof(*rd));
    rd->fu = fu;
    rd->prefix = xstrndup(prefix, prefix_len);
    rd->prefix_len = prefix_len;
    event_base_once(fu->base, -1, EV_TIMEOUT, fake_fire, rd, &now);
    return rd;
}

static struct upstream_read *fake_probe(void *ctx, const char *prefix,
                                        size_t prefix_len, int64_t since,
                                        size_t count, upstream_probe_cb cb,
                                        void *arg)
{
    struct fake_upstream *fu = ctx;
    struct fake_read *rd = fake_start(fu, prefix, prefix_len);

    if (rd == NULL)
        return NULL;
    fu->probes++;
    rd->since = since;
    rd->count = count;
    rd->probe_cb = cb;
    rd->arg = arg;
    return (struct upstream_read *)rd;
}

static struct upstream_read *fake_page(void *ctx, const char *prefix,
                                       size_t prefix_len, const char *cursor,
                                       size_t cursor_len, int64_t rev,
                                       size_t limit, upstream_page_cb cb,
                                       void *arg)
{
    struct fake_upstream *fu = ctx;
    struct fake_read *rd = fake_start(fu, prefix, prefix_len);

    if (rd == NULL)
        return NULL;
    fu->pages++;
    rd->page = true;
    if (cursor == NULL) { /* the first page: from the prefix */
        cursor = prefix;
        cursor_len = prefix_len;
    }
    rd->from = xcalloc(1, cursor_len + 1);
    memcpy(rd->from, cursor, cursor_len);
    rd->from_len = cursor_len;
    rd->rev = rev;
    rd->limit = limit;
    rd->page_cb = cb;
    rd->arg = arg;
    return (struct upstream_read *)rd;
}

static void fake_cancel(void *ctx, struct upstream_read *rd)
{
    if (rd != NULL)
        ((struct fake_read *)rd)->canceled = true;
}

struct fake_upstream *fake_upstream_new(struct event_base *base)
{
    struct fake_upstream *fu = xcalloc(1, sizeof(*fu));

    fu->base = base;
    fu->reader = (struct upstream_reader){
        .ctx = fu, .probe = fake_probe, .page = fake_page, .cancel = fake_cancel};
    return fu;
}

void fake_upstream_free(struct fake_upstream *fu)
{
    if (fu == NULL)
        return;
    for (size_t i = 0; i < fu->n; i++) {
        free(fu->kvs[i].key);
        free(fu->kvs[i].value);
    }
    free(fu->kvs);
    free(fu);
}

const struct upstream_reader *fake_upstream_reader(struct fake_upstream *fu)
{
    return &fu->reader;
}

void fake_upstream_put(struct fake_upstream *fu, const char *key,
                       const char *value, int64_t mod_rev)
{
    size_t at = 0;

    while (at < fu->n && strcmp(fu->kvs[at].key, key) < 0)
        at++;
    if (at < fu->n && strcmp(fu->kvs[at].key, key) == 0) {
        free(fu->kvs[at].value);
    } else {
        fu->kvs = xrealloc(fu->kvs, (fu->n + 1) * sizeof(*fu->kvs));
        memmove(fu->kvs + at + 1, fu->kvs + at,
                (fu->n - at) * sizeof(*fu->kvs));
        fu->n++;
        fu->kvs[at].key = xstrdup(key);
    }
    fu->kvs[at].value = xstrdup(value);
    fu->kvs[at].mod_rev = mod_rev;
    fu->rev = RW_MAX(fu->rev, mod_rev);
}

void fake_upstream_set_rev(struct fake_upstream *fu, int64_t rev)
{
    fu->rev = rev;
}

void fake_upstream_set_compacted(struct fake_upstream *fu, int64_t rev)
{
    fu->compacted = rev;
}

void fake_upstream_set_probe(struct fake_upstream *fu,
                             const struct fake_probe *p)
{
    fu->probe_fixed = p != NULL;
    if (p != NULL)
        fu->probe = *p;
}

void fake_upstream_set_unavailable(struct fake_upstream *fu, bool down)
{
    fu->down = down;
}

size_t fake_upstream_probes(const struct fake_upstream *fu)
{
    return fu->probes;
}

size_t fake_upstream_pages(const struct fake_upstream *fu)
{
    return fu->pages;
}
