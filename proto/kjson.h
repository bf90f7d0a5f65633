/*
 * kjson.h: the Kubernetes JSON encoders: API responses out.  Every
 * encoder below produces bytes that are then shared by reference.  Shapes
 * are the kube-apiserver's (see docs/kube-wire.md): watch events one per
 * line {"type":...,"object":...}\n, lists {"kind":"<Kind>List",
 * "apiVersion":...,"metadata":{...},"items":[...]}, Status objects for
 * errors.  (Store values in: kjson_decode.h; BOOKMARKs and other
 * representations: repr.h; discovery documents: src/discovery_json.h.)
 * The encoders write by hand and include no JSON library; the decoders
 * (kjson_decode.c, ctoken.c, the Table printers) read through jval.h, the
 * one wrapper of cJSON.
 */
#ifndef KJSON_H
#define KJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/object.h"
#include "cache/rbuf.h"
#include "cache/resource_type.h"

/*
 * Every encoder below returns a new rbuf (refs 1) owned by the caller, and
 * JSON-escapes every string argument (kjson_escape's rules).
 */

/* An event type's name on the wire: "ADDED", "MODIFIED" or "DELETED". */
const char *kjson_event_type(enum event_type type);

/* The watch event {"type":"ADDED|MODIFIED|DELETED","object":<obj json>}\n
 * as a frame (frame.h): one allocation, one copy of obj's JSON.  The
 * caller may cache it in obj->frames[type]. */
struct rbuf *kjson_watch_frame(enum event_type type, const struct object *obj);

/* A Status object (not framed): {"kind":"Status","apiVersion":"v1",
 * "metadata":{},"status":"Failure","message":message,"reason":reason,
 * "code":code}.  message is JSON-escaped here. */
struct rbuf *kjson_status(int code, const char *reason, const char *message);

/* A Status whose metadata carries a continue token (a 410 for an
 * expired one: the token continues on current state); NULL token: none,
 * kjson_status. */
struct rbuf *kjson_status_continue(int code, const char *reason,
                                   const char *message, const char *token);

/* The 422 Invalid Status for list options that do not go together, as
 * the apiserver words it: message "ListOptions.meta.k8s.io \"\" is
 * invalid: <field>: <detail>", details {"group":"meta.k8s.io","kind":
 * "ListOptions","causes":[{"reason":"FieldValueForbidden" (or
 * "FieldValueNotSupported" when detail starts "Unsupported value"),
 * "message":detail,"field":field}]}, code 422 (see query_validate). */
struct rbuf *kjson_status_invalid(const char *field, const char *detail);

/* The ERROR watch event carrying that Status, as a frame. */
struct rbuf *kjson_error_frame(int code, const char *reason,
                               const char *message);

/* The 403 Forbidden Status of errors.NewForbidden: message as given,
 * details {"name","group","kind"} with the empty ones left out (a
 * non-resource path's details are {}); with event, as the ERROR watch
 * event frame carrying it. */
struct rbuf *kjson_status_forbidden(const char *message, const char *name,
                                    const char *group, const char *kind,
                                    bool event);

/* kjson_status with details {"causes":[{"reason":cause,"message":
 * cause_message}],"retryAfterSeconds":retry_after} (no causes when cause
 * is NULL, no retryAfterSeconds when retry_after is 0), the shape of the
 * apiserver's errors.NewTimeoutError with a cause (for example
 * storage.NewTooLargeResourceVersionError, whose cause client-go's
 * apierrors.IsTooLargeResourceVersion looks for); with event, as the
 * ERROR watch event frame carrying it. */
struct rbuf *kjson_status_detailed(int code, const char *reason,
                                   const char *message, const char *cause,
                                   const char *cause_message, int retry_after,
                                   bool event);

/*
 * A LIST response is head, the items' JSON joined by ",", then tail: head
 * is {"kind":"<Kind>List","apiVersion":...,"metadata":{"resourceVersion":
 * "rv"[,"continue":token][,"remainingItemCount":n]},"items":[  (token NULL
 * or remaining < 0 to omit) and tail is ]}.
 */
struct rbuf *kjson_list_head(const struct resource_type *rt, int64_t rv,
                             const char *continue_token, int64_t remaining);
struct rbuf *kjson_list_tail(void);

/* s JSON-escaped, without surrounding quotes: a new string (free()).
 * '"' and '\\' are backslash-escaped, control characters become \n, \r,
 * \t or \u00XX, and each byte that is not part of well-formed UTF-8
 * becomes \ufffd (as Go's encoding/json), so the result is always valid
 * JSON string content. */
char *kjson_escape(const char *s);

struct sbuf;

/* Appends s to sb as a quoted JSON string, escaped as kjson_escape
 * escapes it (no allocation besides sb's own); NULL is written as "". */
void kjson_add_string(struct sbuf *sb, const char *s);

#endif
