/*
 * resource_feed.h: the feed (src/upstream.h) through which an upstream
 * adapter keeps a resource in step with its store: each callback is the
 * resource's sink function of the same name (src/resource.h), with the
 * struct resource as ctx.
 */
#ifndef RESOURCE_FEED_H
#define RESOURCE_FEED_H

struct upstream_feed;

extern const struct upstream_feed resource_feed;

#endif
