/*
 * grpc_client.h: gRPC calls over an h2c connection (src/h2_client.h), as
 * gRPC's PROTOCOL-HTTP2.md specifies them: POST with content-type
 * application/grpc and te: trailers, length-prefixed messages
 * (proto/grpc.h) both ways, the call's status in the grpc-status and
 * grpc-message trailers (or in a trailers-only response).
 *
 * A streaming call (grpc_client_call_start) keeps its request side open for as
 * long as it lives: the Watch call must never half-close.  A unary call
 * (grpc_client_unary) sends one message, ends its side, and reports the single
 * response message with the status.  Messages are limited to
 * GRPC_DEFAULT_MAX_MESSAGE (64 MiB) each way; no compression.
 *
 * Lifetime: a call ends with exactly one close callback, unless canceled
 * first (grpc_client_call_cancel: no callback afterwards).  The call is freed
 * right after its close callback returns; the handle is then invalid.
 * Callbacks may cancel their own call and may free the connection.
 */
#ifndef GRPC_CLIENT_H
#define GRPC_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "proto/grpc.h"

struct h2_client;
struct grpc_call;

/* One response message of len bytes; msg is valid during the call only
 * (it points into the receive buffer when the message arrived whole). */
typedef void (*grpc_message_cb)(const uint8_t *msg, size_t len, void *arg);

/* The call ended with status (enum grpc_status) and message (the
 * percent-decoded grpc-message, "" when none; valid during the call).
 * Without a grpc-status the status is UNAVAILABLE (connection lost,
 * stream reset) or derived from the HTTP status (gRPC's
 * http-grpc-status-mapping.md); a message over the size limit ends the
 * call with RESOURCE_EXHAUSTED, a compressed one with INTERNAL. */
typedef void (*grpc_close_cb)(int status, const char *message, void *arg);

/* The single response of a unary call: status and message as above; resp
 * and resp_len the response message when status is OK (valid during the
 * call only), NULL and 0 otherwise.  An OK status without exactly one
 * response message is reported as INTERNAL. */
typedef void (*grpc_unary_cb)(int status, const char *message,
                              const uint8_t *resp, size_t resp_len, void *arg);

/* Starts a streaming call to path (e.g. "/etcdserverpb.Watch/Watch") on
 * conn; messages are sent with grpc_client_call_send.  Returns the call, or
 * NULL when conn cannot start a stream (closed, going away). */
struct grpc_call *grpc_client_call_start(struct h2_client *conn,
                                         const char *path,
                                         grpc_message_cb on_message,
                                         grpc_close_cb on_close, void *arg);

/* Sends one message (len bytes, copied; <= 64 MiB) on call, keeping the
 * request side open.  Returns 0, or RW_ECLOSED when the call or its
 * connection has ended (its close callback is then on its way). */
int grpc_client_call_send(struct grpc_call *call, const void *msg, size_t len);

/* Cancels call (RST_STREAM CANCEL) and frees it: no callback afterwards.
 * NULL is a no-op. */
void grpc_client_call_cancel(struct grpc_call *call);

/* A unary call: sends msg (len bytes, copied) to path and ends the request
 * side; cb gets the outcome once.  timeout: seconds before the call is
 * canceled with DEADLINE_EXCEEDED (also sent as grpc-timeout); <= 0 means
 * none.  Returns the call (cancelable with grpc_client_call_cancel), or NULL
 * when conn cannot start a stream (cb is then not called). */
struct grpc_call *grpc_client_unary(struct h2_client *conn, const char *path,
                                    const void *msg, size_t len, double timeout,
                                    grpc_unary_cb cb, void *arg);

/* Decodes %XX escapes of a grpc-message value (len bytes at in) into out,
 * which has room for len + 1 bytes; malformed escapes are kept as they
 * are.  Returns the decoded length; out is NUL-terminated. */
size_t grpc_client_percent_decode(const char *in, size_t len, char *out);

#endif
