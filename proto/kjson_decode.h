/*
 * kjson_decode.h: the Kubernetes JSON decoder of store values: an etcd
 * value in, a cache object (cache/object.h) out, once per change at
 * ingest.  The encoders are kjson.h's.
 */
#ifndef KJSON_DECODE_H
#define KJSON_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "cache/object.h"
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
 * rt->key_prefix followed by "NS/NAME" for namespaced types or "NAME"
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

#endif
