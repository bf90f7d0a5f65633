/*
 * jval.h: a read-only view of a stored object's JSON for the Table printers
 * (proto/printer.h): members and elements are found the way Go's
 * encoding/json fills a struct, so that a printer reads what the
 * apiserver's printer reads from the decoded object.
 *
 * Rules, as Go's decoder: a repeated member's last occurrence is the one
 * read; a null member reads as absent; member names compare exactly (the
 * apiserver's decoder is case-sensitive).  A value of another JSON type
 * than the reader asks for reads as that type's zero ("" , 0, false), as
 * for an absent member: kjson_decode_object has checked the JSON, not the
 * schema, and the apiserver would not have stored such a value.
 *
 * jval.c is the one module that wraps cJSON: the printers, the store value
 * decoder (kjson_decode.c) and the continue-token decoder (ctoken.c) read
 * JSON through it, and nothing else includes cJSON.
 */
#ifndef JVAL_H
#define JVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A JSON value inside a parsed document, borrowed from its root. */
struct jval;

/*
 * Parses len bytes of JSON at json into a new document and returns its
 * root, owned by the caller (jval_free).  Text that is not JSON (never, for
 * an object kjson_decode_object accepted) reads as an empty object.
 */
struct jval *jval_parse(const char *json, size_t len);

/*
 * Parses the JSON value that starts len bytes at json (whitespace before
 * it; what follows it is not looked at, as cJSON_ParseWithLength), as
 * cJSON reads it: at most 1000 containers deep, strings cut at an escaped
 * NUL (\u0000), lone surrogate escapes refused.  Returns the root, owned by
 * the caller (jval_free), or NULL when the text does not start with JSON.
 * Callers that need exactly one value check the text themselves
 * (kjson_scan.h).
 */
struct jval *jval_try_parse(const char *json, size_t len);

/* Frees a document returned by jval_parse or jval_try_parse; NULL is a
 * no-op. */
void jval_free(struct jval *root);

/* The member name of object v, the last occurrence; NULL when v is NULL or
 * not an object, or the member is absent or null. */
const struct jval *jval_get(const struct jval *v, const char *name);

/* The member name[0..n) of object v (n bytes, need not be NUL-terminated),
 * the last occurrence, null included (unlike jval_get); NULL when v is
 * NULL or not an object, or the member is absent. */
const struct jval *jval_member(const struct jval *v, const char *name,
                               size_t n);

/* jval_get along a dotted path of member names ("spec.template.spec"). */
const struct jval *jval_path(const struct jval *v, const char *path);

/* The JSON type of v; JVAL_NONE when v is NULL (an absent member). */
enum jval_type {
    JVAL_NONE,
    JVAL_NULL,
    JVAL_FALSE,
    JVAL_TRUE,
    JVAL_NUMBER,
    JVAL_STRING,
    JVAL_ARRAY,
    JVAL_OBJECT,
};
enum jval_type jval_type(const struct jval *v);

/* The JSON type of v as Go's encoding/json names it in "json: cannot
 * unmarshal <type> into Go value of type T": "object", "array",
 * "string", "number", "bool"; "null" for null or NULL. */
const char *jval_go_type(const struct jval *v);

/* The string v, "" for anything else (NULL included); borrowed. */
const char *jval_str(const struct jval *v);

/* The number v truncated toward zero (Go's int32/int64 fields hold
 * integers), 0 for anything else. */
int64_t jval_int(const struct jval *v);

/* Whether v is the JSON literal true. */
bool jval_true(const struct jval *v);

/* Whether v is a JSON number, or an object. */
bool jval_is_number(const struct jval *v);
bool jval_is_object(const struct jval *v);

/* The number v as a double, 0 for anything else. */
double jval_double(const struct jval *v);

/*
 * The first element of array v or member of object v (NULL when v is
 * empty, NULL or a scalar), and the one after child (NULL after the last);
 * with JVAL_EACH they walk a Go slice or map.  An object's members come in
 * document order, repeated names included: a map's walker skips a member
 * when jval_shadowed says a later one wins.
 */
const struct jval *jval_first(const struct jval *v);
const struct jval *jval_next(const struct jval *child);
#define JVAL_EACH(child, v)                                                    \
    for ((child) = jval_first(v); (child) != NULL; (child) = jval_next(child))

/* The member name of child, an object's member ("" for an array element). */
const char *jval_name(const struct jval *child);

/* Whether the object member child is repeated later in its object (Go's
 * decoder keeps the last occurrence). */
bool jval_shadowed(const struct jval *child);

/* Elements of array v, or distinct member names of object v (a Go slice's
 * or map's len); 0 for anything else. */
size_t jval_len(const struct jval *v);

/* Elements of array v or members of object v, repeated members included;
 * 0 for anything else. */
size_t jval_count(const struct jval *v);

/* Element i of array v, NULL when out of range or v is not an array. */
const struct jval *jval_at(const struct jval *v, size_t i);

#endif
