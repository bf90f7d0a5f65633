/*
 * kjson.h: the Kubernetes JSON codec: store values in, API responses out.
 *
 * Decoding happens once per change at ingest (kjson_decode_object); every
 * encoder below produces bytes that are then shared by reference.  Shapes
 * are the kube-apiserver's (see ../shared/reference/kube-wire.md): watch
 * events one per line {"type":...,"object":...}\n, lists
 * {"kind":"<Kind>List","apiVersion":...,"metadata":{...},"items":[...]},
 * Status objects for errors, and the discovery documents kubectl reads.
 * This is the only module that includes cJSON.
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
 * the value with metadata.resourceVersion set to rv, kind and apiVersion
 * set from rt when absent; namespace, name, creationTimestamp, labels and
 * rt's field-selector values are taken from it (name and namespace from the
 * key when the JSON has none).  Returns RW_OK and *out (refs 1); RW_EINVAL
 * with *why a static reason ("value is protobuf (k8s\\0 prefix)", "value is
 * not JSON", "value is not a JSON object", "metadata is not an object")
 * and nothing allocated.
 */
int kjson_decode_object(const struct resource_type *rt, const char *key,
                        size_t key_len, const void *value, size_t len,
                        int64_t rv, struct object **out, const char **why);

/* The watch event {"type":"ADDED|MODIFIED|DELETED","object":<obj json>}\n
 * as a frame (frame.h). */
struct rbuf *kjson_watch_frame(enum event_type type, const struct object *obj);

/* A BOOKMARK event frame: {"type":"BOOKMARK","object":{"kind":K,
 * "apiVersion":V,"metadata":{"resourceVersion":"rv"[,"annotations":
 * {"k8s.io/initial-events-end":"true"}]}}}\n */
struct rbuf *kjson_bookmark_frame(const struct resource_type *rt, int64_t rv,
                                  bool initial_events_end);

/* A Status object (not framed): {"kind":"Status","apiVersion":"v1",
 * "metadata":{},"status":"Failure","message":message,"reason":reason,
 * "code":code}.  message is JSON-escaped here. */
struct rbuf *kjson_status(int code, const char *reason, const char *message);

/* The ERROR watch event carrying that Status, as a frame. */
struct rbuf *kjson_error_frame(int code, const char *reason,
                               const char *message);

/*
 * A LIST response is head, the items' JSON joined by ",", then tail: head
 * is {"kind":"<Kind>List","apiVersion":...,"metadata":{"resourceVersion":
 * "rv"[,"continue":token][,"remainingItemCount":n]},"items":[  (token NULL
 * or remaining < 0 to omit) and tail is ]}.
 */
struct rbuf *kjson_list_head(const struct resource_type *rt, int64_t rv,
                             const char *continue_token, int64_t remaining);
struct rbuf *kjson_list_tail(void);

/* Discovery: /version (minor "32"), /api (APIVersions), /apis
 * (APIGroupList of the groups among types), /api/v1 and /apis/G/V
 * (APIResourceList of the types in that group/version). */
struct rbuf *kjson_version(void);
struct rbuf *kjson_api_versions(const char *server_address);
struct rbuf *kjson_api_group_list(const struct resource_type *const *types,
                                  size_t n);
struct rbuf *kjson_api_resource_list(const char *group, const char *version,
                                     const struct resource_type *const *types,
                                     size_t n);

/* s JSON-escaped, without surrounding quotes: a new string (free()). */
char *kjson_escape(const char *s);

#endif
