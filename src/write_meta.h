/*
 * write_meta.h: the pure parts of the write verbs (src/write.h): what a
 * request body says, the per-type rules, name validation, and the stored
 * JSON with the server-set metadata, as kube-apiserver's create and
 * update paths (k8s.io/apiserver/pkg/endpoints/handlers/{create,update}.go,
 * k8s.io/apiserver/pkg/registry/rest/{create,update}.go BeforeCreate and
 * BeforeUpdate, apimachinery's ValidateObjectMeta).  No I/O, no
 * allocation the caller does not free.
 *
 * Not done (as documented in ringwatch(8)): admission, defaulting,
 * schema validation of anything but the envelope and metadata.name.
 */
#ifndef WRITE_META_H
#define WRITE_META_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "cache/resource_type.h"

struct jval;

/* How a type's metadata.name is validated (its registry's
 * ValidateObjectMeta name function). */
enum write_name_rule {
    WRITE_NAME_SUBDOMAIN, /* NameIsDNSSubdomain: RFC 1123 subdomain */
    WRITE_NAME_LABEL,     /* NameIsDNSLabel: RFC 1123 label (namespaces) */
    WRITE_NAME_DNS1035,   /* NameIsDNS1035Label (services) */
    WRITE_NAME_SEGMENT,   /* path.IsValidPathSegmentName (RBAC) */
};

/* A type's write rules, from its registry (pkg/registry/.../storage.go
 * and strategy.go). */
struct write_rules {
    enum write_name_rule name;
    size_t name_max;       /* a tighter length limit (CronJob: 52); 0 none */
    bool return_deleted;   /* ReturnDeletedObject: DELETE answers the
                              object, else a Status Success */
    bool create_on_update; /* AllowCreateOnUpdate: PUT of an absent object
                              creates it, else 404 */
};
void write_meta_rules(const struct resource_type *rt, struct write_rules *out);

/* One cause of a 422 Invalid (metav1.StatusCause). */
struct write_cause {
    const char *reason; /* "FieldValueInvalid", "FieldValueRequired" */
    const char *field;  /* "metadata.name" */
    char message[512];  /* "Invalid value: \"x\": ..." */
};
#define WRITE_MAX_CAUSES 4

/*
 * The causes name (or, with prefix, the generateName prefix, its
 * trailing '-' masked as the apiserver's maskTrailingDash) breaks under
 * rule, as the apiserver's validators word them, field set to field;
 * appended to causes[*n] (at most WRITE_MAX_CAUSES in all).  An empty
 * name is not checked here.
 */
void write_meta_check_name(const struct write_rules *r, const char *name,
                           bool prefix, const char *field,
                           struct write_cause *causes, size_t *n);

/* What a request body said: borrowed from doc (valid until
 * write_meta_body_fini); "" when absent or null. */
struct write_body {
    const char *json; /* the body */
    size_t len;
    struct jval *doc;
    const char *kind, *api_version;
    const char *name, *ns, *generate_name, *uid, *resource_version;
};

/*
 * Decodes a body sent for rt as the apiserver's decoder does (into the
 * type the URL names; kind and apiVersion default from it).  Returns 0,
 * or 400 with the apiserver's message in why: a body that is not one JSON
 * object ("the object provided is unrecognized (must be of type Pod):
 * couldn't get version/kind; json parse error: ..."), another kind or
 * version ("Service in version \"v1\" cannot be handled as a Pod: ..."),
 * a repeated member the store would refuse, or a metadata field of the
 * wrong type.  body (len bytes) is borrowed by out.
 */
int write_meta_decode(const struct resource_type *rt, const char *body,
                      size_t len, struct write_body *out, char *why,
                      size_t why_len);
void write_meta_body_fini(struct write_body *b);

/* The server-set fields a stored object gets. */
struct write_stamp {
    const char *name;
    const char *ns; /* NULL: cluster-scoped (no namespace stored) */
    const char *uid;
    const char *created; /* creationTimestamp */
    int64_t generation;  /* > 0 */
};

/*
 * The JSON to store: body's members with kind and apiVersion first (rt's),
 * then metadata with the stamp's fields first and without
 * resourceVersion (the revision is the version) or selfLink, then every
 * other member as sent, without the whitespace between tokens.  body
 * must have passed write_meta_decode.  Returns a malloc'd string of
 * *out_len bytes.
 */
char *write_meta_render(const struct resource_type *rt, const char *body,
                        size_t len, const struct write_stamp *st,
                        size_t *out_len);

/* Whether anything but metadata and status differs between two objects'
 * JSON (a generation bump), compared as values (member order aside). */
bool write_meta_spec_changed(const char *old_json, size_t old_len,
                             const char *new_json, size_t new_len);

/* A random (version 4) UUID, as the apiserver's uuid.NewUUID: 36
 * characters and a NUL. */
void write_meta_uuid(char out[37]);
/* t as metav1.Time marshals it: RFC 3339 UTC, seconds ("2026-12-01T07:
 * 41:29Z"), 20 characters and a NUL. */
void write_meta_timestamp(time_t t, char out[21]);
/* generateName's name: base (cut to 58 bytes) and 5 random characters of
 * the apiserver's alphabet "bcdfghjklmnpqrstvwxz2456789"
 * (names.SimpleNameGenerator); a malloc'd string. */
char *write_meta_generate_name(const char *base);

#endif
