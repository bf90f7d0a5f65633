/*
 * jval_edit.h: the mutable side of the jval module (jval.h), for the patch
 * engines (proto/patch.h): a document parsed as Go's encoding/json decodes
 * into map[string]interface{} (a repeated member's last occurrence kept,
 * the others dropped), edited in place, printed back as compact JSON.
 *
 * A mutable value is a struct jval * that the caller owns (a root, or a
 * value detached from its parent) or borrows from an owned root; the
 * read-only calls of jval.h apply to it.  Functions that take a value
 * "to own" take it on every path.  Limits are cJSON's: documents at most
 * JVAL_EDIT_MAX_DEPTH containers deep.
 */
#ifndef JVAL_EDIT_H
#define JVAL_EDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/jval.h"

/* cJSON's CJSON_NESTING_LIMIT: containers nested deeper are refused. */
#define JVAL_EDIT_MAX_DEPTH 1000

/*
 * Parses len bytes at json as exactly one JSON value (whitespace around
 * it), keeping each object's last occurrence of a repeated member (Go's
 * decoder into a map).  Returns the root, owned by the caller (jval_free),
 * or NULL with *why a static reason: "nested deeper than 1000 levels", or
 * "not JSON" (a syntax error, trailing bytes, a lone surrogate escape,
 * which cJSON refuses).
 */
struct jval *jval_edit_parse(const char *json, size_t len, const char **why);

/* How many containers deep v is: 0 for a scalar, 1 for [] or {}. */
size_t jval_edit_depth(const struct jval *v);

/* v as compact JSON, malloc'd and NUL-terminated, its length in *len. */
char *jval_edit_print(const struct jval *v, size_t *len);

/* Whether a and b are equal as Go's reflect.DeepEqual sees decoded JSON:
 * objects by their member sets (order ignored), numbers by value. */
bool jval_edit_equal(const struct jval *a, const struct jval *b);

/* A deep copy of v, owned by the caller. */
struct jval *jval_edit_dup(const struct jval *v);

/* New values, owned by the caller. */
struct jval *jval_edit_new_object(void);
struct jval *jval_edit_new_array(void);
struct jval *jval_edit_new_null(void);
struct jval *jval_edit_new_string(const char *s);

/* A borrowed value as mutable: the caller owns its root. */
struct jval *jval_edit_mut(const struct jval *v);

/* Sets member name of object obj to v (taken to own), replacing the
 * member in place if present, else appending it. */
void jval_edit_set(struct jval *obj, const char *name, struct jval *v);

/* Detaches member name of object obj and returns it, owned by the caller;
 * NULL when absent (a null member is returned, not absent). */
struct jval *jval_edit_take(struct jval *obj, const char *name);

/* Detaches child (a member or element of parent) and returns it, owned by
 * the caller. */
struct jval *jval_edit_detach(struct jval *parent, const struct jval *child);

/* Replaces child (a member or element of parent) by v (taken to own; an
 * object member keeps its name) and frees child. */
void jval_edit_replace(struct jval *parent, const struct jval *child,
                       struct jval *v);

/* Appends v (taken to own) to array arr. */
void jval_edit_append(struct jval *arr, struct jval *v);

/* Inserts v (taken to own) into array arr before element i; i equal to the
 * array's length appends. */
void jval_edit_insert(struct jval *arr, size_t i, struct jval *v);

/*
 * Detaches every element of array arr (left empty) into a malloc'd vector
 * of *n values owned by the caller, so that lists are rebuilt in O(n)
 * (cJSON's arrays are linked lists: indexing is linear).
 */
struct jval **jval_edit_take_all(struct jval *arr, size_t *n);

#endif
