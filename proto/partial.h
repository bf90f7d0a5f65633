/*
 * partial.h: an object as meta.k8s.io's PartialObjectMetadata, its
 * metadata and nothing else, as kube-apiserver writes it for
 * as=PartialObjectMetadata (handlers/response.go asPartialObjectMetadata:
 * {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/VERSION",
 * "metadata":<the object's ObjectMeta>}), for client-go's metadata
 * informers and in a Table row's object.
 *
 * The metadata is the stored object's own bytes, found by a scan of its top
 * level (member names compared after unescaping): nothing is parsed or
 * re-encoded, so a PartialObjectMetadata costs one copy of the metadata.
 * The apiserver re-encodes ObjectMeta from its Go struct (so it drops
 * fields ObjectMeta does not have and writes "creationTimestamp":null when
 * there is none): the same metadata in every field a client reads.
 */
#ifndef PARTIAL_H
#define PARTIAL_H

#include <stdbool.h>
#include <stddef.h>

#include "cache/object.h"
#include "cache/sbuf.h"

/* The document up to the metadata value, for v1 or (beta) v1beta1:
 * {"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":
 * (a static string; the document ends with "}" after the metadata). */
const char *partial_head(bool beta);

/*
 * Where the value of the top-level member "metadata" of o's JSON lies:
 * true and *off, *len (bytes into o->json->data); false when there is none
 * or the JSON is not an object (never for an object kjson_decode_object
 * built: it always has metadata).  With repeated members, the last, as Go's
 * decoder reads it.  Member names' escapes must be valid JSON, as in every
 * object (kjson_decode_object validated it): an invalid one is a bug
 * (rw_assert).
 */
bool partial_locate(const struct object *o, size_t *off, size_t *len);

/* Appends o's PartialObjectMetadata to sb: partial_head(beta), the
 * metadata bytes ({} when there are none), "}". */
void partial_append(struct sbuf *sb, const struct object *o, bool beta);

#endif
