/*
 * stream_types.h: the types a stream's two sides share, the handler's
 * (stream.h) and the connection modules' (stream_impl.h): the request as
 * handlers see it and the callback types.  Declares no functions.
 */
#ifndef STREAM_TYPES_H
#define STREAM_TYPES_H

#include <stdbool.h>

struct transport_peer;

enum stream_method {
    STREAM_GET,
    STREAM_HEAD,
    STREAM_POST,
    STREAM_PUT,
    STREAM_PATCH,
    STREAM_DELETE,
    STREAM_OPTIONS,
    STREAM_OTHER,
};

struct request {
    enum stream_method method;
    const char *method_name; /* as sent, e.g. "GET" */
    const char *path;  /* raw path without the query, e.g. "/api/v1/pods" */
    const char *query; /* raw query after '?'; "" when none */
    /* Header fields: the first of each name when it is repeated, as Go's
     * Header.Get (kube-apiserver's negotiation, go-restful's routes);
     * "" when absent.  HTTP/1.1 and HTTP/2 alike (stream_field_index). */
    const char *accept;
    const char *user_agent;
    const char *if_none_match;
    const char *authorization; /* "Bearer TOKEN" (authn.h) */
    const char *content_type;  /* of a request body */
    /* Every Impersonate-* field, repeated ones included: "name: value"
     * entries (name in lower case) separated by '\n' (stream_impl.h,
     * struct stream_gather; impersonate.h reads them). */
    const char *impersonate;
    int http_version; /* 10, 11 or 20 */
    /* The connection's client certificate (transport.h); NULL on a
     * plaintext connection.  Lives as long as the connection. */
    const struct transport_peer *peer;
};

struct stream;
typedef void (*stream_cb)(struct stream *s, void *arg);

/* A request refused before its body is read: the answer's status and
 * Status body (a reference the connection module takes), and whether it
 * carries X-Content-Type-Options: nosniff (a 403). */
struct rbuf;
struct request_refusal {
    int code;
    struct rbuf *body;
    bool nosniff;
};

/* Called by the connection modules once the head of a request with a body
 * is in, before any of its body is read: true with *out filled when the
 * request is refused (authentication, authorization: src/router.h
 * router_precheck), false to read the body and dispatch it. */
typedef bool (*request_precheck_fn)(const struct request *req, void *arg,
                                    struct request_refusal *out);

/* Called by the connection modules for each complete request. */
typedef void (*request_handler_fn)(struct stream *s, void *arg);

#endif
