/*
 * object.h: one stored Kubernetes object, immutable and reference counted.
 *
 * An object is built once at ingest from a store value (proto/kjson.c
 * decodes the JSON) and then shared, never copied, by the store, the ring
 * and every watcher and LIST that serves it.  Its JSON already carries
 * metadata.resourceVersion = the store's ModRevision, so serving it is a
 * matter of writing its bytes.  Namespace, name, labels and the type's
 * field-selector values are parsed once, here, for selectors and indexes.
 *
 * Everything but frames[] and views is immutable after object_new().
 * frames[] and views are caches of derived bytes (the object's encoded
 * watch events, in its own JSON and in other representations), filled
 * lazily by the single-threaded dispatcher and released with the object.
 */
#ifndef OBJECT_H
#define OBJECT_H

#include <stddef.h>
#include <stdint.h>

#include "cache/rbuf.h"

/* Watch event types, as on the wire ("ADDED", "MODIFIED", "DELETED"). */
enum event_type {
    EVENT_ADDED = 0,
    EVENT_MODIFIED = 1,
    EVENT_DELETED = 2,
    EVENT_TYPE_MAX = 3,
};

struct object_view;

struct label {
    const char *key;
    const char *value;
};

struct object {
    uint32_t refs;
    uint16_t nlabels;
    uint16_t nfields;
    int64_t rv;            /* ModRevision: metadata.resourceVersion */
    const char *key;       /* store key, e.g. "/registry/pods/ns/name" */
    size_t key_len;        /* bytes in key (key is also NUL-terminated) */
    const char *ns;        /* metadata.namespace; "" for cluster-scoped */
    const char *name;      /* metadata.name */
    const char *created;   /* metadata.creationTimestamp, "" when absent */
    const struct label *labels; /* nlabels, sorted by key, keys unique */
    const char *const *fields;  /* nfields values of resource_type fields[];
                                   "" when the object lacks the field */
    struct rbuf *json;     /* the whole object, compact JSON */
    uint32_t rv_off;       /* json->data[rv_off .. rv_off + rv_len) are the */
    uint32_t rv_len;       /* decimal digits of metadata.resourceVersion */
    struct rbuf *frames[EVENT_TYPE_MAX]; /* lazily encoded watch frames */
    struct object_view *views; /* frames in other representations, or NULL */
};

/* What object_new copies (strings) or takes (json). */
struct object_init {
    const char *key;
    size_t key_len;
    int64_t rv;
    const char *ns;      /* NULL means "" */
    const char *name;
    const char *created; /* NULL means "" */
    const struct label *labels; /* any order; duplicates: the last wins */
    size_t nlabels;
    const char *const *fields; /* nfields values, NULL entries mean "" */
    size_t nfields;
    struct rbuf *json;   /* ownership passes to the object on every path */
    size_t rv_off;       /* as in struct object */
    size_t rv_len;
};

/*
 * Builds an object with refs 1.  Strings are copied into one allocation
 * with the object; init->json's reference is taken.  The caller guarantees
 * json holds the decimal init->rv at [rv_off, rv_off + rv_len).
 */
struct object *object_new(const struct object_init *init);

/*
 * The same object with metadata.resourceVersion replaced by rv: a new
 * object whose JSON is spliced around the old digits (no JSON parse).
 * As kube-apiserver's cacher, a DELETED event carries the last state
 * with the delete's resourceVersion; this builds that state.
 */
struct object *object_with_rv(const struct object *o, int64_t rv);

struct object *object_ref(struct object *o);
/* Drops a reference; frees the object, its json and frames at zero.
 * NULL is a no-op. */
void object_unref(struct object *o);

/*
 * The object's frames in representations other than its own JSON (a
 * watch event carrying it as a Table, or as PartialObjectMetadata:
 * proto/repr.h), kept with it like frames[], so that each is encoded once
 * and shared by every watcher that wants it, and only once some watcher
 * does.  format is the caller's number for a representation and event
 * type, one view per format; stamp tells which rendering a view is (a
 * Table's AGE cells depend on when it was rendered: the caller passes the
 * second it renders for, 0 for views that never age).
 *
 * object_view_get: the view under format rendered for stamp (borrowed), or
 * NULL.  object_view_put: keeps buf (takes its own reference) under format
 * and stamp, replacing the view format had.
 */
struct rbuf *object_view_get(const struct object *o, unsigned format,
                             int64_t stamp);
void object_view_put(struct object *o, unsigned format, int64_t stamp,
                     struct rbuf *buf);

/* Value of label key, or NULL when the object has no such label. */
const char *object_label(const struct object *o, const char *key);

/* Value of field id (resource_type.h: FIELD_NAME, FIELD_NAMESPACE,
 * FIELD_EXTRA + i); "" for an extra field the object lacks. */
const char *object_field(const struct object *o, int field_id);

/* Bytes this object holds (struct, strings, json, cached frames and
 * views). */
size_t object_footprint(const struct object *o);

#endif
