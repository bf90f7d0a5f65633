/*
 * etcd_testlib.h: helpers shared by the tests that talk to a real etcd
 * (test/etcd_client_test.c, test/upstream_etcd_test.c).
 *
 * The endpoint comes from $RW_TEST_ETCD ("http://127.0.0.1:PORT"), set by
 * the shell wrappers in test/integration/ that start etcd with
 * scripts/etcd-local.  struct etcd_sync is a blocking etcd client for
 * setting up and checking state: it has its own event base and h2c
 * connection and runs that base until each call completes, so it can be
 * used from inside another loop's callbacks (to write "between pages").
 * Every wait is bounded.
 */
#ifndef ETCD_TESTLIB_H
#define ETCD_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/rw.h"
#include "proto/etcd.h"
#include "src/grpc_client.h"
#include "src/h2_client.h"

#define ETEST_TIMEOUT 10.0 /* seconds any single wait may take */

/* The etcd endpoint as host and port (static storage).  Exits with 77
 * (skip) when RW_TEST_ETCD is unset. */
static inline void etest_endpoint(const char **host, const char **port,
                                  const char **url)
{
    static char h[128], p[16], u[160];
    const char *env = getenv("RW_TEST_ETCD");

    if (env == NULL || sscanf(env, "http://%127[^:]:%15[0-9]", h, p) != 2) {
        fprintf(stderr, "RW_TEST_ETCD unset or not http://HOST:PORT\n");
        exit(77);
    }
    snprintf(u, sizeof(u), "http://%s:%s", h, p);
    *host = h;
    *port = p;
    *url = u;
}

static void etest_tick_cb(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    (void)arg;
}

/* Runs base until *flag becomes nonzero or seconds pass; returns *flag. */
static inline int etest_wait(struct event_base *base, const volatile int *flag,
                             double seconds)
{
    struct timeval tv = {0, 10000};
    struct event *tick = event_new(base, -1, EV_PERSIST, etest_tick_cb, NULL);
    double deadline = clock_mono_s() + seconds;

    event_add(tick, &tv);
    while (!*flag && clock_mono_s() < deadline)
        event_base_loop(base, EVLOOP_ONCE);
    event_free(tick);
    return *flag;
}

/* Runs base for seconds. */
static inline void etest_run_for(struct event_base *base, double seconds)
{
    int never = 0;

    etest_wait(base, &never, seconds);
}

/* ---- blocking client ---- */

struct etcd_sync {
    struct event_base *base;
    struct h2_client *conn;
    int closed;
    /* last unary outcome */
    int done;
    int status;
    char message[256];
    uint8_t *resp;
    size_t resp_len;
};

static void etest_sync_close_cb(struct h2_client *c, int err, void *arg)
{
    struct etcd_sync *s = arg;

    s->closed = 1;
}

static inline void etcd_sync_open(struct etcd_sync *s)
{
    static const struct h2_client_callbacks cbs = {NULL, etest_sync_close_cb};
    const char *host, *port, *url;

    memset(s, 0, sizeof(*s));
    etest_endpoint(&host, &port, &url);
    s->base = event_base_new();
    s->conn = h2_client_new(s->base, host, port, NULL, &cbs, s);
}

static inline void etcd_sync_close(struct etcd_sync *s)
{
    h2_client_free(s->conn);
    event_base_free(s->base);
    free(s->resp);
    memset(s, 0, sizeof(*s));
}

static void etest_sync_unary_cb(int status, const char *message,
                                const uint8_t *resp, size_t resp_len, void *arg)
{
    struct etcd_sync *s = arg;

    s->status = status;
    snprintf(s->message, sizeof(s->message), "%s", message);
    free(s->resp);
    s->resp = malloc(resp_len + 1);
    if (resp_len)
        memcpy(s->resp, resp, resp_len);
    s->resp_len = resp_len;
    s->done = 1;
}

/* Runs one unary call (takes req) and returns its gRPC status; the
 * response is in s->resp / s->resp_len.  -1 on timeout. */
static inline int etcd_sync_call(struct etcd_sync *s, const char *path,
                                 struct rbuf *req)
{
    struct grpc_call *call;

    s->done = 0;
    call = grpc_client_unary(s->conn, path, req->data, req->len, ETEST_TIMEOUT,
                             etest_sync_unary_cb, s);
    rbuf_unref(req);
    if (call == NULL)
        return -1;
    if (!etest_wait(s->base, &s->done, ETEST_TIMEOUT + 1)) {
        grpc_client_call_cancel(call);
        return -1;
    }
    return s->status;
}

/* Puts key=value; returns the revision of the put (0 on failure). */
static inline int64_t etcd_sync_put(struct etcd_sync *s, const char *key,
                                    const char *value)
{
    struct etcd_put_request req = {.key = key,
                                   .key_len = strlen(key),
                                   .value = value,
                                   .value_len = strlen(value)};
    struct etcd_put_response r;
    int64_t rev;

    if (etcd_sync_call(s, ETCD_PATH_PUT, etcd_put_request_encode(&req)) != 0)
        return 0;
    if (etcd_put_response_decode(&r, s->resp, s->resp_len) != 0)
        return 0;
    rev = r.header.revision;
    etcd_put_response_fini(&r);
    return rev;
}

/* Deletes key; returns the revision after the delete (0 on failure). */
static inline int64_t etcd_sync_delete(struct etcd_sync *s, const char *key)
{
    struct etcd_delete_range_request req = {.key = key, .key_len = strlen(key)};
    struct etcd_delete_range_response r;
    int64_t rev;

    if (etcd_sync_call(s, ETCD_PATH_DELETE_RANGE,
                       etcd_delete_range_request_encode(&req)) != 0)
        return 0;
    if (etcd_delete_range_response_decode(&r, s->resp, s->resp_len) != 0)
        return 0;
    rev = r.header.revision;
    etcd_delete_range_response_fini(&r);
    return rev;
}

/* Compacts history before rev; returns the gRPC status. */
static inline int etcd_sync_compact(struct etcd_sync *s, int64_t rev)
{
    return etcd_sync_call(s, ETCD_PATH_COMPACT,
                          etcd_compaction_request_encode(rev, true));
}

/* Ranges over prefix at rev (0: current) into *out (caller finis).
 * Returns the gRPC status. */
static inline int etcd_sync_range_prefix(struct etcd_sync *s,
                                         const char *prefix, int64_t rev,
                                         struct etcd_range_response *out)
{
    size_t end_len;
    char *end = etcd_prefix_end(prefix, strlen(prefix), &end_len);
    struct etcd_range_request req = {.key = prefix,
                                     .key_len = strlen(prefix),
                                     .range_end = end,
                                     .range_end_len = end_len,
                                     .revision = rev};
    int status =
        etcd_sync_call(s, ETCD_PATH_RANGE, etcd_range_request_encode(&req));

    free(end);
    memset(out, 0, sizeof(*out));
    if (status == 0 &&
        etcd_range_response_decode(out, s->resp, s->resp_len) != 0)
        return -1;
    return status;
}

/* The store's current revision (0 on failure). */
static inline int64_t etcd_sync_revision(struct etcd_sync *s)
{
    struct etcd_range_response r;
    int64_t rev = 0;

    if (etcd_sync_range_prefix(s, "/", 0, &r) == 0)
        rev = r.header.revision;
    etcd_range_response_fini(&r);
    return rev;
}

#endif
