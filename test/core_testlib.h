/*
 * core_testlib.h: what the unit tests of the serving core (watch,
 * resource, list, router) share: a configmaps resource with its watch set
 * on a private event loop, fed through the sink functions as the upstream
 * adapter feeds it, and the JSON of what a fake stream (test/fake_stream.h)
 * received.  Header-only: each test includes it once.
 */
#ifndef CORE_TESTLIB_H
#define CORE_TESTLIB_H

#include <event2/event.h>
#include <inttypes.h>
#include <stdlib.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/selector.h"
#include "proto/accept.h"
#include "proto/query.h"
#include "src/resource.h"
#include "src/watch.h"
#include "src/watch_start.h"
#include "test/fake_stream.h"
#include "test/json_testlib.h"

#define CM_PREFIX "/registry/configmaps/"

struct core {
    struct event_base *base;
    struct resource *r;
    struct watch_set *ws;
};

/* A configmaps resource with ring_events events of ring, bookmarks every
 * bookmark_interval seconds, and its watch set (high water 64 KiB). */
static inline void core_init(struct core *c, size_t ring_events,
                             double bookmark_interval)
{
    struct resource_config rc = {
        .ring_events = ring_events,
        .ring_bytes = 1 << 20,
        .bookmark_interval = bookmark_interval,
    };
    struct watch_limits wl = {
        .high_water = 64 * 1024,
        .min_request_timeout = 1800,
        .indexed_field = -1,
    };

    c->base = event_base_new();
    c->r = resource_new(c->base, resource_type_find("configmaps"), &rc);
    c->ws = watch_set_new(c->r, &wl);
}

static inline void core_fini(struct core *c)
{
    watch_set_free(c->ws);
    resource_free(c->r);
    event_base_free(c->base);
}

/* The stored value of configmap ns/name with label app=app (NULL: none)
 * and data v=value. */
static inline char *cm_value(const char *name, const char *app,
                             const char *value)
{
    char labels[128] = "";

    if (app != NULL)
        snprintf(labels, sizeof(labels), ",\"labels\":{\"app\":\"%s\"}", app);
    return xasprintf("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
                     "\"metadata\":{\"name\":\"%s\",\"namespace\":\"ns\"%s},"
                     "\"data\":{\"v\":\"%s\"}}",
                     name, labels, value ? value : "");
}

static inline char *cm_key(const char *name)
{
    return xasprintf(CM_PREFIX "ns/%s", name);
}

/* Lists configmaps ns/<each letter of names> at revision rev. */
static inline void core_list(struct core *c, int64_t rev, const char *names)
{
    resource_list_begin(c->r);
    for (const char *n = names; *n; n++) {
        char name[2] = {*n, 0};
        char *key = cm_key(name), *v = cm_value(name, NULL, "0");

        resource_list_item(c->r, key, strlen(key), v, strlen(v), rev);
        free(key);
        free(v);
    }
    resource_list_end(c->r, rev);
    resource_flush(c->r);
}

/* A PUT of ns/name at rev (not flushed). */
static inline void core_put(struct core *c, const char *name, const char *app,
                            const char *value, int64_t rev)
{
    char *key = cm_key(name), *v = cm_value(name, app, value);

    resource_put(c->r, key, strlen(key), v, strlen(v), rev);
    free(key);
    free(v);
}

static inline void core_delete(struct core *c, const char *name, int64_t rev)
{
    char *key = cm_key(name);

    resource_delete(c->r, key, strlen(key), rev);
    free(key);
}

/* Runs the loop until *done or about `ms` milliseconds have passed. */
static inline void core_run(struct core *c, const bool *done, int ms)
{
    struct timeval tick = {0, 5000};

    for (int i = 0; i < ms / 5 && !(done && *done); i++) {
        event_base_loopexit(c->base, &tick);
        event_base_dispatch(c->base);
    }
}

/* A request's query q parsed as the router would: the options, the
 * selector (the caller's) and the Accept choice for no header. */
static inline void core_parse(struct core *c, const char *q,
                              struct query *query, struct selector **sel,
                              struct accept_choice *accept)
{
    char why[256];

    assert_int_equal(query_parse(q, strlen(q), query, why, sizeof(why)),
                     RW_OK);
    assert_int_equal(selector_parse(query->label_selector,
                                    query->field_selector,
                                    resource_type(c->r), sel, why,
                                    sizeof(why)),
                     RW_OK);
    assert_true(accept_negotiate("", ACCEPT_RESOURCE, accept));
}

/* Frame i of fs parsed; the caller deletes it. */
static inline cJSON *frame_json(const struct fake_stream *fs, size_t i)
{
    cJSON *j = cJSON_Parse(fake_stream_frame(fs, i));

    if (j == NULL)
        fail_msg("frame %zu is not JSON: %s", i, fake_stream_frame(fs, i));
    return j;
}

/* The string at a dotted path of j, or "" (not a string or absent). */
static inline const char *json_str(const cJSON *j, const char *path)
{
    const cJSON *item = json_path(j, path);

    return cJSON_IsString(item) ? item->valuestring : "";
}

/* The number at a dotted path of j, or -1 (not a number or absent). */
static inline double json_num(const cJSON *j, const char *path)
{
    const cJSON *item = json_path(j, path);

    return cJSON_IsNumber(item) ? item->valuedouble : -1;
}

/* Asserts that frame i of fs is a watch event of type with the object
 * named name at resourceVersion rv (0: not checked). */
static inline void assert_event(const struct fake_stream *fs, size_t i,
                                const char *type, const char *name, int64_t rv)
{
    cJSON *j;
    char want[32];

    if (i >= fs->nframes)
        fail_msg("frame %zu missing: %zu frames", i, fs->nframes);
    j = frame_json(fs, i);
    assert_string_equal(json_str(j, "type"), type);
    if (name != NULL)
        assert_string_equal(json_str(j, "object.metadata.name"), name);
    if (rv > 0) {
        snprintf(want, sizeof(want), "%" PRId64, rv);
        assert_string_equal(json_str(j, "object.metadata.resourceVersion"),
                            want);
    }
    cJSON_Delete(j);
}

/* Asserts that frame i is an ERROR event with Status code and reason, and
 * returns nothing; message checked when msg is not NULL. */
static inline void assert_error_event(const struct fake_stream *fs, size_t i,
                                      int code, const char *reason,
                                      const char *msg)
{
    cJSON *j;

    if (i >= fs->nframes)
        fail_msg("frame %zu missing: %zu frames", i, fs->nframes);
    j = frame_json(fs, i);
    assert_string_equal(json_str(j, "type"), "ERROR");
    assert_string_equal(json_str(j, "object.kind"), "Status");
    assert_int_equal((int)json_num(j, "object.code"), code);
    assert_string_equal(json_str(j, "object.reason"), reason);
    if (msg != NULL)
        assert_string_equal(json_str(j, "object.message"), msg);
    cJSON_Delete(j);
}

/* The body of fs parsed (a response, not a stream); caller deletes. */
static inline cJSON *body_json(const struct fake_stream *fs)
{
    cJSON *j = cJSON_Parse(fs->body ? fs->body : "");

    if (j == NULL)
        fail_msg("body is not JSON: %s", fs->body ? fs->body : "(none)");
    return j;
}

/* Asserts fs was answered with a Status of code and reason. */
static inline void assert_status(const struct fake_stream *fs, int code,
                                 const char *reason)
{
    cJSON *j;

    assert_int_equal(fs->status, code);
    j = body_json(fs);
    assert_string_equal(json_str(j, "kind"), "Status");
    assert_string_equal(json_str(j, "status"), "Failure");
    assert_int_equal((int)json_num(j, "code"), code);
    assert_string_equal(json_str(j, "reason"), reason);
    cJSON_Delete(j);
}

#endif
