/*
 * write.h: the write verbs on a served resource, as kube-apiserver's
 * handlers (k8s.io/apiserver/pkg/endpoints/handlers/{create,update,
 * delete,patch}.go) over its registry and etcd3 store
 * (k8s.io/apiserver/pkg/registry/generic/registry/store.go,
 * k8s.io/apiserver/pkg/storage/etcd3/store.go), written to the store
 * through the resource's upstream reader (src/upstream.h get and write):
 *
 *   POST   collection  create: 201 and the object; 409 AlreadyExists
 *   PUT    object      update: 200 (201 when it created the object, for
 *                      the types that allow create on update); with
 *                      metadata.resourceVersion a compare on it (409
 *                      Conflict "Operation cannot be fulfilled on ...: the
 *                      object has been modified; please apply your
 *                      changes to the latest version and try again"),
 *                      without it unconditional; 404 when absent
 *   PATCH  object      the patch applied to the current object
 *                      (proto/patch.h), written with a compare on its
 *                      revision; server-side apply is 415
 *   DELETE object      preconditions (uid, resourceVersion) of a
 *                      DeleteOptions body; 200 with the deleted object or
 *                      a Status Success (the type's ReturnDeletedObject);
 *                      404 when absent
 *
 * Updates, patches and deletes run as the etcd3 store's GuaranteedUpdate
 * and conditionalDelete: from the cache's object first, and on a compare
 * that fails, from the store's current one (upstream get), at most
 * WRITE_TRIES times.  Server-set fields, name validation and the body's
 * checks are src/write_meta.h's.  ?dryRun=All validates and answers
 * without writing; fieldManager and fieldValidation are checked and
 * otherwise ignored (no managed fields, no schema).  Every error is the
 * apiserver's Status, code, reason, message and details.
 *
 * The caller (src/router.c) has authenticated and authorized the request;
 * the body is read here.
 */
#ifndef WRITE_H
#define WRITE_H

#include "src/stream.h"

struct resource;

/* Serves the write request on s (method POST, PUT, PATCH or DELETE) on
 * resource r, namespace ns (NULL: cluster-scoped) and object name (NULL:
 * the collection).  Answers now or later (the stream is kept while the
 * store answers; a client that goes away cancels the call). */
void write_handle(struct stream *s, struct resource *r, const char *ns,
                  const char *name);

#endif
