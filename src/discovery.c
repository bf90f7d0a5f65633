/*
 * discovery.c: discovery documents (see discovery.h).  One prebuilt rbuf
 * per path; group versions in the order the types were configured.
 */
#include "discovery.h"

#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/kjson.h"

struct doc {
    char *path;
    struct rbuf *body;
};

struct discovery {
    struct doc *docs;
    size_t ndocs;
};

static void add_doc(struct discovery *d, char *path, struct rbuf *body)
{
    d->docs = xrealloc(d->docs, (d->ndocs + 1) * sizeof(*d->docs));
    d->docs[d->ndocs].path = path;
    d->docs[d->ndocs].body = body;
    d->ndocs++;
}

static bool has_doc(const struct discovery *d, const char *path)
{
    for (size_t i = 0; i < d->ndocs; i++)
        if (strcmp(d->docs[i].path, path) == 0)
            return true;
    return false;
}

struct discovery *discovery_new(const struct resource_type *const *types,
                                size_t n, const char *listen)
{
    struct discovery *d = xcalloc(1, sizeof(*d));

    add_doc(d, xstrdup("/version"), kjson_version());
    add_doc(d, xstrdup("/api"), kjson_api_versions(listen));
    add_doc(d, xstrdup("/apis"), kjson_api_group_list(types, n));
    /* /api/v1 is served even when no core type is configured: kubectl
     * reads it unconditionally. */
    add_doc(d, xstrdup("/api/v1"),
            kjson_api_resource_list("", "v1", types, n));
    for (size_t i = 0; i < n; i++) {
        char *path;

        if (*types[i]->group == '\0')
            continue;
        path = xasprintf("/apis/%s/%s", types[i]->group, types[i]->version);
        if (has_doc(d, path)) {
            free(path);
            continue;
        }
        add_doc(d, path,
                kjson_api_resource_list(types[i]->group, types[i]->version,
                                        types, n));
    }
    return d;
}

void discovery_free(struct discovery *d)
{
    if (d == NULL)
        return;
    for (size_t i = 0; i < d->ndocs; i++) {
        free(d->docs[i].path);
        rbuf_unref(d->docs[i].body);
    }
    free(d->docs);
    free(d);
}

bool discovery_handle(struct discovery *d, struct stream *s, const char *path)
{
    size_t len = strlen(path);

    /* "/api/" and "/api" are the same document. */
    while (len > 1 && path[len - 1] == '/')
        len--;
    for (size_t i = 0; i < d->ndocs; i++) {
        if (strlen(d->docs[i].path) == len &&
            memcmp(d->docs[i].path, path, len) == 0) {
            stream_respond(s, 200, "application/json", d->docs[i].body);
            return true;
        }
    }
    return false;
}
