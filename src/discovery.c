/*
 * discovery.c: discovery documents (see discovery.h).  One prebuilt rbuf
 * per path, and for /api and /apis also their aggregated documents (v2,
 * v2beta1) with their ETags; requests only pick one.
 */
#include "src/discovery.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/accept.h"
#include "src/discovery_json.h"
#include "src/status.h"

enum doc_kind {
    DOC_VERSION,   /* /version */
    DOC_ROOT,      /* /api, /apis: aggregated discovery too */
    DOC_GROUP,     /* /apis/GROUP (the aggregator's: no route check) */
    DOC_RESOURCES, /* /api/v1, /apis/GROUP/VERSION */
};

struct doc {
    char *path;
    enum doc_kind kind;
    bool routed; /* a go-restful route in the apiserver */
    struct rbuf *body;
    struct rbuf *aggregated[2]; /* DOC_ROOT: v2, v2beta1 */
    char etag[2][24];           /* their ETags, quoted */
};

struct discovery {
    struct doc *docs;
    size_t ndocs;
};

static struct doc *add_doc(struct discovery *d, char *path, enum doc_kind kind,
                           struct rbuf *body)
{
    struct doc *doc;

    d->docs = xrealloc(d->docs, (d->ndocs + 1) * sizeof(*d->docs));
    doc = &d->docs[d->ndocs++];
    *doc = (struct doc){.path = path, .kind = kind, .body = body};
    doc->routed = kind != DOC_GROUP && strcmp(path, "/apis") != 0;
    return doc;
}

static bool has_doc(const struct discovery *d, const char *path)
{
    for (size_t i = 0; i < d->ndocs; i++)
        if (strcmp(d->docs[i].path, path) == 0)
            return true;
    return false;
}

/* A quoted hash of b (FNV-1a, 64 bits) as an entity tag. */
static void etag_of(const struct rbuf *b, char *out, size_t size)
{
    uint64_t h = 14695981039346656037ull;

    for (size_t i = 0; i < b->len; i++)
        h = (h ^ (unsigned char)b->data[i]) * 1099511628211ull;
    snprintf(out, size, "\"%016llX\"", (unsigned long long)h);
}

static void add_aggregated(struct doc *doc,
                           const struct resource_type *const *types, size_t n,
                           bool core)
{
    for (int beta = 0; beta < 2; beta++) {
        doc->aggregated[beta] = discovery_json_aggregated(types, n, core, beta);
        etag_of(doc->aggregated[beta], doc->etag[beta],
                sizeof(doc->etag[beta]));
    }
}

struct discovery *discovery_new(const struct resource_type *const *types,
                                size_t n, const char *listen)
{
    struct discovery *d = xcalloc(1, sizeof(*d));

    add_doc(d, xstrdup("/version"), DOC_VERSION, discovery_json_version());
    add_aggregated(
        add_doc(d, xstrdup("/api"), DOC_ROOT, discovery_json_versions(listen)),
        types, n, true);
    add_aggregated(add_doc(d, xstrdup("/apis"), DOC_ROOT,
                           discovery_json_group_list(types, n)),
                   types, n, false);
    /* /api/v1 is served even when no core type is configured: kubectl
     * reads it unconditionally. */
    add_doc(d, xstrdup("/api/v1"), DOC_RESOURCES,
            discovery_json_resource_list("", "v1", types, n));
    for (size_t i = 0; i < n; i++) {
        const struct resource_type *rt = types[i];
        char *path;

        if (*rt->group == '\0')
            continue;
        path = xasprintf("/apis/%s", rt->group);
        if (has_doc(d, path))
            free(path);
        else
            add_doc(d, path, DOC_GROUP,
                    discovery_json_group(types, n, rt->group));
        path = xasprintf("/apis/%s/%s", rt->group, rt->version);
        if (has_doc(d, path))
            free(path);
        else
            add_doc(
                d, path, DOC_RESOURCES,
                discovery_json_resource_list(rt->group, rt->version, types, n));
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
        rbuf_unref(d->docs[i].aggregated[0]);
        rbuf_unref(d->docs[i].aggregated[1]);
    }
    free(d->docs);
    free(d);
}

static const struct doc *find_doc(const struct discovery *d, const char *path)
{
    size_t len = strlen(path);

    /* "/api/" and "/api" are the same document. */
    while (len > 1 && path[len - 1] == '/')
        len--;
    for (size_t i = 0; i < d->ndocs; i++)
        if (strlen(d->docs[i].path) == len &&
            memcmp(d->docs[i].path, path, len) == 0)
            return &d->docs[i];
    return NULL;
}

/* An aggregated document with its ETag; 304 Not Modified without a body
 * when If-None-Match is that ETag, as kube-apiserver's
 * ServeHTTPWithETag (the first If-None-Match field, compared whole). */
static void respond_aggregated(struct stream *s, const struct doc *doc,
                               bool beta)
{
    stream_add_header(s, "etag", doc->etag[beta]);
    stream_add_header(s, "vary", "Accept");
    stream_add_header(s, "cache-control", "public");
    if (strcmp(stream_request(s)->if_none_match, doc->etag[beta]) == 0) {
        stream_respond(s, 304, NULL, NULL);
        return;
    }
    stream_respond(s, 200,
                   beta ? "application/json;g=apidiscovery.k8s.io;v=v2beta1;"
                          "as=APIGroupDiscoveryList"
                        : "application/json;g=apidiscovery.k8s.io;v=v2;"
                          "as=APIGroupDiscoveryList",
                   doc->aggregated[beta]);
}

bool discovery_handle(struct discovery *d, struct stream *s, const char *path)
{
    static const char *const produces[] = {"application/json", NULL};
    const char *accept = stream_request(s)->accept;
    const struct doc *doc = find_doc(d, path);
    struct accept_choice c;
    char why[256];

    if (doc == NULL)
        return false;
    if (doc->routed && !accept_route(accept, produces, why, sizeof(why)))
        status_respond(s, 406, "NotAcceptable", "%s", why);
    else if (doc->kind == DOC_VERSION) /* written raw, not negotiated */
        stream_respond(s, 200, "application/json", doc->body);
    else if (doc->kind == DOC_ROOT &&
             accept_negotiate(accept, ACCEPT_AGGREGATED, &c))
        respond_aggregated(s, doc, c.beta);
    else if (!accept_negotiate(accept, ACCEPT_DOCUMENT, &c))
        status_respond(s, 406, "NotAcceptable", "%s", ACCEPT_NOT_ACCEPTABLE);
    else
        stream_respond(s, 200, "application/json", doc->body);
    return true;
}
