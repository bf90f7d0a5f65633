/*
 * kjson.h: the Kubernetes JSON codec: store values in, API responses out.
 *
 * Decoding happens once per change at ingest (kjson_decode_object); every
 * encoder below produces bytes that are then shared by reference.  Shapes
 * are the kube-apiserver's (see docs/kube-wire.md): watch
 * events one per line {"type":...,"object":...}\n, lists
 * {"kind":"<Kind>List","apiVersion":...,"metadata":{...},"items":[...]},
 * Status objects for errors.  (BOOKMARKs and other representations:
 * repr.h; discovery documents: apis.h.)  kjson.c, jval.c (the Table
 * printers' view of an object) and ctoken.c (continue tokens) are the
 * Kubernetes JSON codec: the only files that include cJSON.
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
 * Decodes a store value (an etcd value under key, ModRevision rv) into an
 * object of type rt: the value must be a JSON object.  The object's JSON is
 * the value's own bytes with metadata.resourceVersion set to rv, kind set
 * from rt when absent, and metadata.name and metadata.namespace set from
 * the key when absent; creationTimestamp,
 * labels and rt's field-selector values are taken from it, namespace and
 * name from the key.  Returns RW_OK and *out (refs 1); RW_EINVAL with *why
 * a static reason (below) and nothing allocated.
 *
 * The key.  key (key_len bytes, need not be NUL-terminated) must be
 * rt->etcd_prefix followed by "NS/NAME" for namespaced types or "NAME"
 * otherwise, no part empty and no NUL ("key does not match the resource's
 * layout"), in UTF-8 ("key is not valid UTF-8").  The key is authoritative,
 * as the apiserver routes by it: a metadata.name or (namespaced types)
 * metadata.namespace that is set must equal the key's, after unescaping
 * ("metadata.name does not match the key", "metadata.namespace does not
 * match the key"), and a cluster-scoped object's metadata.namespace must be
 * absent, null or "" ("metadata.namespace is set on a cluster-scoped
 * object").  object->ns ("" for cluster-scoped types) and object->name are
 * the key's.
 *
 * The type.  As the apiserver's storage decoder (apimachinery's
 * json.Serializer.Decode into the resource's type, then conversion to
 * it), the value names its own group, version and kind: apiVersion must be
 * rt->api_version, group and version ("apiVersion is missing" when absent,
 * null or ""; "apiVersion does not match the resource"), and kind, when
 * set, rt->kind ("kind does not match the resource"); an absent, null or
 * "" kind is rt's, as the decoder defaults it from the type.  A value of
 * another type (a Secret under /registry/configmaps/, an apps/v1
 * Deployment under /registry/pods/) or of another version of the group
 * (which the apiserver would convert and ringwatch cannot) is refused.
 *
 * The value.  Not protobuf ("value is protobuf (k8s\\0 prefix)"), UTF-8 as
 * RFC 8259 requires ("value is not valid UTF-8"; escaped \uXXXX, lone
 * surrogates included, are fine as Go reads them), and exactly one JSON
 * value, strictly as RFC 8259 and Go's encoding/json, with only whitespace
 * around it and at most 1000 containers deep, cJSON's limit ("value is not
 * JSON"); an object ("value is not a JSON object").  It is checked by a
 * structural scanner and parsed by cJSON, and any disagreement between the
 * two is "value is not valid JSON".  Member names compare after unescaping
 * and case-sensitively (as the apiserver's decoder).  The members spliced
 * must not be repeated: "duplicate kind", "duplicate apiVersion",
 * "duplicate metadata", "duplicate metadata.name", "duplicate
 * metadata.namespace", "duplicate metadata.resourceVersion".  Elsewhere, as
 * Go's encoding/json, a repeated member's last occurrence is what is
 * extracted, and null reads as absent.  kind, metadata.name and
 * metadata.namespace are set when absent, null or "", and they and
 * apiVersion must otherwise be strings ("kind is not a string",
 * "apiVersion is not a string",
 * "metadata.name is not a string", "metadata.namespace is not a string");
 * metadata must be an object or null ("metadata is not an object").
 * metadata.labels must be an object ("metadata.labels is not an object")
 * of strings ("label values must be strings"), at most 65534 ("too many
 * labels").  Field values as the apiserver's GetAttrs renders them:
 * strings as is, booleans "true"/"false", integral numbers as integers,
 * other numbers "%.17g" (both through a double), anything else or absent
 * ""; except Go bools (Pod spec.hostNetwork, Node spec.unschedulable) read
 * "false" when absent, and Event "source" is source.component, else
 * reportingComponent.  An extracted string (label, field, timestamp) reads
 * U+FFFD where the value escapes a NUL (\u0000).
 *
 * The JSON.  From the value's '{' to its '}' with the whitespace between
 * tokens dropped (so a watch event is one line), every other byte as
 * stored (numbers, strings and their escapes, member order, repeated
 * members), except the spliced spots: resourceVersion's value replaced by
 * "rv" (inserted last in metadata when absent); when absent,
 * metadata.name inserted first in metadata and metadata.namespace after
 * name, kind inserted first and metadata after apiVersion;
 * and an absent metadata, or null, written {"name":..,["namespace":..,]
 * "resourceVersion":"rv"}; null or "" values are replaced where they
 * stand.  rv_off/rv_len locate the decimal digits of rv ("value is too
 * large" if the JSON would pass 4 GiB).
 */
int kjson_decode_object(const struct resource_type *rt, const char *key,
                        size_t key_len, const void *value, size_t len,
                        int64_t rv, struct object **out, const char **why);

/*
 * Every encoder below returns a new rbuf (refs 1) owned by the caller, and
 * JSON-escapes every string argument (kjson_escape's rules).
 */

/* The watch event {"type":"ADDED|MODIFIED|DELETED","object":<obj json>}\n
 * as a frame (frame.h): one allocation, one copy of obj's JSON.  The
 * caller may cache it in obj->frames[type]. */
struct rbuf *kjson_watch_frame(enum event_type type, const struct object *obj);

/* A Status object (not framed): {"kind":"Status","apiVersion":"v1",
 * "metadata":{},"status":"Failure","message":message,"reason":reason,
 * "code":code}.  message is JSON-escaped here. */
struct rbuf *kjson_status(int code, const char *reason, const char *message);

/* A Status whose metadata carries a continue token (a 410 for an
 * expired one: the token continues on current state). */
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
