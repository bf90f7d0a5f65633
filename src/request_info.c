/*
 * request_info.c: a request's authorization attributes (see
 * request_info.h).  The path is split on '/' after trimming the slashes
 * at both ends, as the apiserver's splitPath, and each segment decoded.
 */
#include "src/request_info.h"

#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/field_selector.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/query.h"

/* Path parts read at most: the longest the apiserver's request info
 * reads, /apis/G/V/watch/namespaces/NS/RESOURCE/NAME/SUBRESOURCE, is 9;
 * what follows them names nothing it authorizes. */
#define REQUEST_INFO_MAX_PARTS 10

/* Slot of ri->strings for each owned value. */
enum { S_GROUP, S_VERSION, S_RESOURCE, S_SUB, S_NS, S_NAME, S_VERB, S_N };
static_assert(S_N == REQUEST_INFO_STRINGS, "a slot per owned attribute");

static const char *keep(struct request_info *ri, int slot, char *s)
{
    free(ri->strings[slot]);
    ri->strings[slot] = s;
    return s;
}

/* Splits path into its first REQUEST_INFO_MAX_PARTS decoded parts; false
 * when one does not decode. */
static bool split(const char *path, char **parts, size_t *n)
{
    const char *at = path, *end = path + strlen(path);

    *n = 0;
    while (at < end && *at == '/')
        at++;
    while (end > at && end[-1] == '/')
        end--;
    while (at < end && *n < REQUEST_INFO_MAX_PARTS) {
        const char *slash = memchr(at, '/', (size_t)(end - at));
        size_t len = slash ? (size_t)(slash - at) : (size_t)(end - at);

        if ((parts[*n] = query_unescape(at, len, false)) == NULL)
            return false;
        (*n)++;
        at += len + (slash != NULL);
    }
    return true;
}

/* The type a group and resource name, or NULL. */
static const struct resource_type *find_type(const char *group,
                                             const char *resource)
{
    size_t n;
    const struct resource_type *all = resource_type_all(&n);

    for (size_t i = 0; i < n; i++)
        if (strcmp(all[i].group, group) == 0 &&
            strcmp(all[i].resource, resource) == 0)
            return &all[i];
    return NULL;
}

/* Whether the query makes a collection GET a watch (the first watch
 * value, through the apiserver's string-to-bool conversion). */
static bool wants_watch(const char *query)
{
    char *v = query_first(query, "watch");
    bool watch = v != NULL && strcmp(v, "0") != 0 && strcasecmp(v, "false");

    free(v);
    return watch;
}

/* The name a fieldSelector's metadata.name=X requires, or NULL. */
static char *selected_name(const char *query, const struct resource_type *rt)
{
    char *fs = query_first(query, "fieldSelector"), *name = NULL;
    struct field_req *reqs = NULL;
    struct sbuf why = {0};
    size_t n = 0;

    if (fs != NULL && field_selector_parse(fs, rt, &reqs, &n, &why) == RW_OK)
        for (size_t i = 0; i < n && name == NULL; i++)
            if (reqs[i].field_id == FIELD_NAME && !reqs[i].negate)
                name = xstrdup(reqs[i].value);
    field_selector_free(reqs, n);
    sbuf_fini(&why);
    free(fs);
    /* path.IsValidPathSegmentName */
    if (name != NULL && (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
                         strpbrk(name, "/%") != NULL)) {
        free(name);
        name = NULL;
    }
    return name;
}

static const char *method_verb(enum stream_method m, bool named)
{
    switch (m) {
    case STREAM_GET:
    case STREAM_HEAD:
        return "get";
    case STREAM_POST:
        return "create";
    case STREAM_PUT:
        return "update";
    case STREAM_PATCH:
        return "patch";
    case STREAM_DELETE:
        return named ? "delete" : "deletecollection";
    default:
        return "";
    }
}

/* The resource part, parts[0..n) after the group version. */
static void resource_info(struct request_info *ri, const struct request *req,
                          char **parts, size_t n)
{
    struct authz_attributes *a = &ri->a;
    bool watch_path = n >= 2 && strcmp(parts[0], "watch") == 0;

    if (watch_path) {
        parts++;
        n--;
    }
    if (n >= 1 && strcmp(parts[0], "namespaces") == 0) {
        if (n > 1)
            a->ns = keep(ri, S_NS, xstrdup(parts[1]));
        if (n > 2 && strcmp(parts[2], "status") != 0 &&
            strcmp(parts[2], "finalize") != 0) {
            parts += 2;
            n -= 2;
        }
    }
    if (n >= 3)
        a->subresource = keep(ri, S_SUB, xstrdup(parts[2]));
    if (n >= 2)
        a->name = keep(ri, S_NAME, xstrdup(parts[1]));
    if (n >= 1)
        a->resource = keep(ri, S_RESOURCE, xstrdup(parts[0]));
    a->verb = watch_path ? "watch" : method_verb(req->method, n >= 2);
    if (n < 2 && strcmp(a->verb, "get") == 0) {
        char *name;

        a->verb = wants_watch(req->query) ? "watch" : "list";
        name = selected_name(req->query, find_type(a->api_group, a->resource));
        if (name != NULL)
            a->name = keep(ri, S_NAME, name);
    }
}

void request_info_init(struct request_info *ri, const struct request *req)
{
    char *parts[REQUEST_INFO_MAX_PARTS];
    char *verb = xstrdup(req->method_name ? req->method_name : "");
    size_t n = 0, at;
    bool ok = split(req->path, parts, &n);
    struct authz_attributes *a = &ri->a;

    memset(ri, 0, sizeof(*ri));
    for (char *c = verb; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    *a = (struct authz_attributes){
        /* a non-resource request's verb is the method, lower case */
        .verb = keep(ri, S_VERB, verb),
        .api_group = "",
        .api_version = "",
        .resource = "",
        .subresource = "",
        .ns = "",
        .name = "",
        .path = req->path,
    };
    /* /api/V/... (3 parts at least) or /apis/G/V/... (4) */
    at = ok && n >= 3 && strcmp(parts[0], "api") == 0    ? 1
         : ok && n >= 4 && strcmp(parts[0], "apis") == 0 ? 2
                                                         : 0;
    if (at > 0) {
        a->resource_request = true;
        if (at == 2)
            a->api_group = keep(ri, S_GROUP, xstrdup(parts[1]));
        a->api_version = keep(ri, S_VERSION, xstrdup(parts[at]));
        resource_info(ri, req, parts + at + 1, n - at - 1);
    }
    for (size_t i = 0; i < n; i++)
        free(parts[i]);
}

void request_info_fini(struct request_info *ri)
{
    for (size_t i = 0; i < REQUEST_INFO_STRINGS; i++)
        free(ri->strings[i]);
    memset(ri, 0, sizeof(*ri));
}
