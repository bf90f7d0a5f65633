/*
 * grpc_client.c: gRPC calls over h2c streams (see grpc_client.h).
 *
 * Data structure: one struct grpc_call per HTTP/2 stream, holding the
 * response deframer, the :status / grpc-status / grpc-message seen so far
 * and, for a unary call, its deadline timer and a copy of the response
 * message (the only copy made: the status arrives after the message).
 *
 * Invariants: `finished` is set exactly once, when the outcome is reported
 * or the call is canceled; no callback runs after it.  `stream` is NULL
 * once the h2c stream is gone (closed, or reset by us), so nothing touches
 * the connection after that.  A call is freed when finished and not inside
 * its own data dispatch (`dispatching`), so a callback that cancels its
 * call, or frees the whole connection, never pulls the call from under
 * the deframer.
 */
#include "src/grpc_client.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "cache/rw.h"
#include "src/h2_client.h"
#include "src/log.h"

/* HTTP/2 error codes (RFC 9113 7) this module interprets. */
#define H2_REFUSED_STREAM 0x7u
#define H2_CANCEL 0x8u
#define H2_ENHANCE_YOUR_CALM 0xbu

/* Returned by the deframer callback to stop a finished call's dispatch. */
#define GRPC_STOP 1

struct grpc_call {
    struct h2_client_stream *stream; /* NULL once closed or reset */
    struct grpc_deframer deframer;
    grpc_message_cb on_message; /* streaming calls */
    grpc_close_cb on_close;     /* streaming calls */
    grpc_unary_cb on_unary;     /* unary calls */
    void *arg;
    int http_status;        /* :status; 0 until seen */
    int grpc_status;        /* grpc-status; -1 until seen */
    char *grpc_message;     /* decoded grpc-message; NULL until seen */
    int dispatching;        /* nesting of response data handling */
    bool finished;          /* outcome reported or canceled */
    struct event *deadline; /* unary: timeout; NULL if none */
    uint8_t *resp;          /* unary: the response message */
    size_t resp_len;
    unsigned n_messages; /* unary: response messages seen */
};

static void grpc_call_free(struct grpc_call *call)
{
    grpc_deframer_fini(&call->deframer);
    if (call->deadline)
        event_free(call->deadline);
    free(call->grpc_message);
    free(call->resp);
    free(call);
}

static void grpc_call_maybe_free(struct grpc_call *call)
{
    if (call->finished && call->dispatching == 0)
        grpc_call_free(call);
}

/* Reports the outcome once; the caller then calls grpc_call_maybe_free. */
static void grpc_call_report(struct grpc_call *call, int status,
                             const char *message)
{
    if (call->finished)
        return;
    call->finished = true;
    if (call->deadline)
        event_del(call->deadline);
    if (call->on_unary == NULL) {
        if (call->on_close)
            call->on_close(status, message, call->arg);
        return;
    }
    if (status == GRPC_STATUS_OK && call->n_messages != 1) {
        status = GRPC_STATUS_INTERNAL;
        message = call->n_messages ? "unary response with several messages"
                                   : "unary response without message";
    }
    if (status == GRPC_STATUS_OK)
        call->on_unary(status, message, call->resp, call->resp_len, call->arg);
    else
        call->on_unary(status, message, NULL, 0, call->arg);
}

/* Ends the call from our side: reset the stream, then report. */
static void grpc_call_fail(struct grpc_call *call, int status,
                           const char *message)
{
    if (call->stream) {
        h2_client_reset(call->stream);
        call->stream = NULL;
    }
    grpc_call_report(call, status, message);
}

/* ==== status ==== */

size_t grpc_client_percent_decode(const char *in, size_t len, char *out)
{
    size_t o = 0;

    for (size_t i = 0; i < len; i++) {
        if (in[i] == '%' && len - i >= 3) {
            int hi = rw_hex_digit(in[i + 1]), lo = rw_hex_digit(in[i + 2]);

            if (hi >= 0 && lo >= 0) {
                out[o++] = (char)(hi << 4 | lo);
                i += 2;
                continue;
            }
        }
        out[o++] = in[i];
    }
    out[o] = '\0';
    return o;
}

/* gRPC's http-grpc-status-mapping.md, for responses without grpc-status. */
static int grpc_status_from_http(int http_status)
{
    switch (http_status) {
    case 400:
        return GRPC_STATUS_INTERNAL;
    case 401:
        return GRPC_STATUS_UNAUTHENTICATED;
    case 403:
        return GRPC_STATUS_PERMISSION_DENIED;
    case 404:
        return GRPC_STATUS_UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
        return GRPC_STATUS_UNAVAILABLE;
    default:
        return GRPC_STATUS_UNKNOWN;
    }
}

/* The outcome of a stream that closed with error_code. */
static void grpc_call_closed(struct grpc_call *call, uint32_t error_code)
{
    char why[96];

    if (call->grpc_status >= 0) {
        if (call->grpc_status == GRPC_STATUS_OK &&
            !grpc_deframer_idle(&call->deframer))
            grpc_call_report(call, GRPC_STATUS_INTERNAL,
                             "response ended inside a message");
        else
            grpc_call_report(call, call->grpc_status,
                             call->grpc_message ? call->grpc_message : "");
        return;
    }
    if (error_code == H2_CLIENT_ERROR_CONNECTION) {
        grpc_call_report(call, GRPC_STATUS_UNAVAILABLE, "connection closed");
    } else if (call->http_status != 0 && call->http_status != 200) {
        snprintf(why, sizeof(why), "HTTP status %d", call->http_status);
        grpc_call_report(call, grpc_status_from_http(call->http_status), why);
    } else if (error_code == H2_CANCEL) {
        grpc_call_report(call, GRPC_STATUS_CANCELLED, "stream canceled");
    } else if (error_code == H2_ENHANCE_YOUR_CALM) {
        grpc_call_report(call, GRPC_STATUS_RESOURCE_EXHAUSTED,
                         "stream reset: ENHANCE_YOUR_CALM");
    } else {
        snprintf(why, sizeof(why),
                 error_code == H2_REFUSED_STREAM
                     ? "stream refused"
                     : "stream closed without grpc-status (HTTP/2 error "
                       "%u)",
                 error_code);
        grpc_call_report(call, GRPC_STATUS_UNAVAILABLE, why);
    }
}

/* ==== h2c stream callbacks ==== */

static void grpc_h2_header_cb(const char *name, size_t name_len,
                              const char *value, size_t value_len, bool trailer,
                              void *arg)
{
    struct grpc_call *call = arg;

    if (strcmp(name, ":status") == 0) {
        call->http_status = atoi(value);
    } else if (strcmp(name, "grpc-status") == 0) {
        char *end;
        long v = strtol(value, &end, 10);

        call->grpc_status =
            (*end == '\0' && end != value && v >= 0 && v <= 0x7fffffff)
                ? (int)v
                : GRPC_STATUS_UNKNOWN;
    } else if (strcmp(name, "grpc-message") == 0) {
        free(call->grpc_message);
        call->grpc_message = xmalloc(value_len + 1);
        grpc_client_percent_decode(value, value_len, call->grpc_message);
    }
}

static int grpc_message_cb_(const uint8_t *msg, size_t len, void *arg)
{
    struct grpc_call *call = arg;

    if (call->finished)
        return GRPC_STOP;
    if (call->on_unary) {
        if (call->n_messages++ == 0) {
            call->resp = xmalloc(len + 1);
            if (len)
                memcpy(call->resp, msg, len);
            call->resp_len = len;
        }
        return 0;
    }
    if (call->on_message)
        call->on_message(msg, len, call->arg);
    return call->finished ? GRPC_STOP : 0;
}

static void grpc_h2_data_cb(const uint8_t *data, size_t len, void *arg)
{
    struct grpc_call *call = arg;
    int rc;

    if (call->finished)
        return;
    call->dispatching++;
    rc = grpc_deframer_feed(&call->deframer, data, len, grpc_message_cb_, call);
    call->dispatching--;
    if (rc == RW_ELIMIT)
        grpc_call_fail(call, GRPC_STATUS_RESOURCE_EXHAUSTED,
                       "response message larger than the limit");
    else if (rc == RW_EPROTO)
        grpc_call_fail(call, GRPC_STATUS_INTERNAL,
                       "compressed response message (not negotiated)");
    grpc_call_maybe_free(call);
}

static void grpc_h2_close_cb(uint32_t error_code, void *arg)
{
    struct grpc_call *call = arg;

    call->stream = NULL;
    grpc_call_closed(call, error_code);
    grpc_call_maybe_free(call);
}

static const struct h2_client_stream_callbacks grpc_stream_callbacks = {
    .on_header = grpc_h2_header_cb,
    .on_data = grpc_h2_data_cb,
    .on_close = grpc_h2_close_cb,
};

/* ==== calls ==== */

static struct grpc_call *grpc_call_new(struct h2_client *conn, const char *path,
                                       const char *timeout_header, void *arg)
{
    struct grpc_call *call = xcalloc(1, sizeof(*call));
    struct h2_client_header headers[4] = {
        {"content-type", "application/grpc"},
        {"te", "trailers"},
        {"user-agent", "ringwatch-grpc"},
        {"grpc-timeout", timeout_header},
    };

    call->arg = arg;
    call->grpc_status = -1;
    grpc_deframer_init(&call->deframer, GRPC_DEFAULT_MAX_MESSAGE);
    call->stream = h2_client_request(
        conn, "POST", path, NULL, headers, timeout_header ? 4 : 3,
        H2_CLIENT_REQUEST_BODY, &grpc_stream_callbacks, call);
    if (call->stream == NULL) {
        grpc_call_free(call);
        return NULL;
    }
    return call;
}

struct grpc_call *grpc_client_call_start(struct h2_client *conn,
                                         const char *path,
                                         grpc_message_cb on_message,
                                         grpc_close_cb on_close, void *arg)
{
    struct grpc_call *call = grpc_call_new(conn, path, NULL, arg);

    if (call == NULL)
        return NULL;
    call->on_message = on_message;
    call->on_close = on_close;
    return call;
}

static int grpc_call_write(struct grpc_call *call, const void *msg, size_t len,
                           bool end_stream)
{
    uint8_t prefix[GRPC_PREFIX_LEN];

    if (call->finished || call->stream == NULL)
        return RW_ECLOSED;
    rw_assert(len <= GRPC_DEFAULT_MAX_MESSAGE);
    grpc_prefix_write(prefix, len);
    if (h2_client_send(call->stream, prefix, sizeof(prefix), false) != 0)
        return RW_ECLOSED;
    return h2_client_send(call->stream, msg, len, end_stream) == 0 ? 0
                                                                   : RW_ECLOSED;
}

int grpc_client_call_send(struct grpc_call *call, const void *msg, size_t len)
{
    return grpc_call_write(call, msg, len, false);
}

void grpc_client_call_cancel(struct grpc_call *call)
{
    if (call == NULL || call->finished)
        return; /* inside its own close callback: freed after it */
    call->finished = true;
    if (call->stream) {
        h2_client_reset(call->stream);
        call->stream = NULL;
    }
    grpc_call_maybe_free(call);
}

static void grpc_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
    struct grpc_call *call = arg;

    grpc_call_fail(call, GRPC_STATUS_DEADLINE_EXCEEDED, "deadline exceeded");
    grpc_call_maybe_free(call);
}

/* gRPC's Timeout header: at most 8 digits and a unit. */
static void grpc_timeout_format(double timeout, char *out, size_t size)
{
    double ms = ceil(timeout * 1000.0);

    if (ms <= 99999999.0)
        snprintf(out, size, "%.0fm", ms);
    else
        snprintf(out, size, "%.0fS", RW_MIN(ceil(timeout), 99999999.0));
}

struct grpc_call *grpc_client_unary(struct h2_client *conn, const char *path,
                                    const void *msg, size_t len, double timeout,
                                    grpc_unary_cb cb, void *arg)
{
    char header[32];
    struct grpc_call *call;
    struct timeval tv;

    if (timeout > 0)
        grpc_timeout_format(timeout, header, sizeof(header));
    call = grpc_call_new(conn, path, timeout > 0 ? header : NULL, arg);
    if (call == NULL)
        return NULL;
    call->on_unary = cb;
    if (timeout > 0) {
        call->deadline =
            evtimer_new(h2_client_base(conn), grpc_deadline_cb, call);
        tv = rw_timeval(timeout);
        evtimer_add(call->deadline, &tv);
    }
    if (grpc_call_write(call, msg, len, true) != 0) {
        grpc_client_call_cancel(call);
        return NULL;
    }
    return call;
}
