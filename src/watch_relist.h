/*
 * watch_relist.h: what a relist and a store history reset do to a
 * resource's watchers.  Part of the watch set (watch_impl.h): its
 * resource_subscriber_ops (resource.h) call these with the watch set as
 * arg; nothing else does.
 *
 * Semantics: a watcher that could miss a change it would see across a
 * relist (watchcache_replace) is ended with ERROR 410 Expired so that its
 * informer relists, as kube-apiserver's cacher terminates watchers it
 * cannot keep consistent; the others are carried across.  After a store
 * history reset (resource_history_reset) every watcher gets ERROR 410.
 */
#ifndef WATCH_RELIST_H
#define WATCH_RELIST_H

#include <stdint.h>

struct object;

/* Before the replace, with the old ring in place: marks every watcher that
 * has not yet looked at every event in it (the relist drops those). */
void watch_relist_begin(void *ws);
/* For every object the relist changed (old and/or new state, NULL when
 * absent): marks the watchers whose selection it touches. */
void watch_relist_note(void *ws, const struct object *old,
                       const struct object *new_obj);
/* After the replace: ends the marked watchers with ERROR 410 "too old
 * resource version: SEEN (list_rv)" and moves every other cursor to the
 * new ring head (they missed nothing they could see). */
void watch_relist_done(void *ws);
/* The store's history was reset: every watcher is ended with ERROR 410
 * Expired "too old resource version: SEEN (rev)", rev being the store's
 * revision now, so that its informer relists. */
void watch_relist_reset(void *ws, int64_t rev);

#endif
