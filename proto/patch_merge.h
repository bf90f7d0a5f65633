/*
 * patch_merge.h: RFC 7386 JSON Merge Patch (application/merge-patch+json)
 * as kube-apiserver applies it: gopkg.in/evanphx/json-patch.v4's
 * MergePatch, whose quirks a client can see are kept: null members are
 * pruned from objects the patch adds (inside arrays too), a patch value
 * replacing an object member that is an object is not pruned when it is
 * not an object itself, and a patch that is an array replaces the whole
 * document (then refused by patch.c: not an object).
 */
#ifndef PATCH_MERGE_H
#define PATCH_MERGE_H

#include "proto/patch.h"

struct jval;

/* Merges patch (an object or an array, parse_patch checked it) into *doc
 * (an owned object, edited in place or replaced).  Returns RW_OK: a merge
 * patch cannot fail on a JSON object. */
int patch_merge_apply(struct jval **doc, const struct jval *patch,
                      struct patch_error *err);

#endif
