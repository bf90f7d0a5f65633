/*
 * jval.c: read-only JSON values (see jval.h), the one wrapper of cJSON.
 *
 * A struct jval is a cJSON item cast to an opaque type: the document is
 * cJSON's tree, parsed once per row or stored value, and every reader
 * below is a lookup in it.  cJSON allocates through the aborting
 * allocator (rw.h), so no cJSON call made here returns NULL for lack of
 * memory.  Maps' lengths count distinct names (a quadratic scan: objects hold
 * tens of members).
 */
#include "proto/jval.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

static const cJSON *item(const struct jval *v)
{
    return (const cJSON *)v;
}

static const struct jval *val(const cJSON *c)
{
    return (const struct jval *)c;
}

static void jval_init(void)
{
    static bool done;
    cJSON_Hooks hooks = {.malloc_fn = xmalloc, .free_fn = free};

    if (done)
        return;
    cJSON_InitHooks(&hooks);
    done = true;
}

struct jval *jval_try_parse(const char *json, size_t len)
{
    jval_init();
    return (struct jval *)cJSON_ParseWithLength(json, len);
}

struct jval *jval_parse(const char *json, size_t len)
{
    cJSON *root = (cJSON *)jval_try_parse(json, len);

    if (root == NULL)
        root = cJSON_CreateObject();
    return (struct jval *)root;
}

void jval_free(struct jval *root)
{
    cJSON_Delete((cJSON *)root);
}

const struct jval *jval_member(const struct jval *v, const char *name, size_t n)
{
    const cJSON *o = item(v), *found = NULL, *c;

    if (!cJSON_IsObject(o))
        return NULL;
    for (c = o->child; c != NULL; c = c->next)
        if (c->string != NULL && strncmp(c->string, name, n) == 0 &&
            c->string[n] == '\0')
            found = c;
    return val(found);
}

const struct jval *jval_get(const struct jval *v, const char *name)
{
    const struct jval *found = jval_member(v, name, strlen(name));

    return cJSON_IsNull(item(found)) ? NULL : found;
}

const struct jval *jval_path(const struct jval *v, const char *path)
{
    char name[128];

    while (v != NULL && *path != '\0') {
        size_t n = strcspn(path, ".");

        rw_assert(n < sizeof(name));
        memcpy(name, path, n);
        name[n] = '\0';
        v = jval_get(v, name);
        path += n + (path[n] == '.');
    }
    return v;
}

enum jval_type jval_type(const struct jval *v)
{
    const cJSON *c = item(v);

    if (c == NULL)
        return JVAL_NONE;
    switch (c->type & 0xff) {
    case cJSON_False:
        return JVAL_FALSE;
    case cJSON_True:
        return JVAL_TRUE;
    case cJSON_Number:
        return JVAL_NUMBER;
    case cJSON_String:
        return JVAL_STRING;
    case cJSON_Array:
        return JVAL_ARRAY;
    case cJSON_Object:
        return JVAL_OBJECT;
    default: /* cJSON_NULL: a parsed tree holds no other type */
        return JVAL_NULL;
    }
}

const char *jval_go_type(const struct jval *v)
{
    switch (jval_type(v)) {
    case JVAL_FALSE:
    case JVAL_TRUE:
        return "bool";
    case JVAL_NUMBER:
        return "number";
    case JVAL_STRING:
        return "string";
    case JVAL_ARRAY:
        return "array";
    case JVAL_OBJECT:
        return "object";
    default:
        return "null";
    }
}

const char *jval_str(const struct jval *v)
{
    const cJSON *c = item(v);

    return cJSON_IsString(c) && c->valuestring ? c->valuestring : "";
}

int64_t jval_int(const struct jval *v)
{
    double d = jval_double(v);

    if (d >= 9.2e18 || d <= -9.2e18) /* beyond int64: not a Go integer */
        return 0;
    return (int64_t)d;
}

bool jval_true(const struct jval *v)
{
    return cJSON_IsTrue(item(v));
}

bool jval_is_number(const struct jval *v)
{
    return cJSON_IsNumber(item(v));
}

bool jval_is_object(const struct jval *v)
{
    return cJSON_IsObject(item(v));
}

double jval_double(const struct jval *v)
{
    return cJSON_IsNumber(item(v)) ? item(v)->valuedouble : 0;
}

const struct jval *jval_first(const struct jval *v)
{
    const cJSON *c = item(v);

    return cJSON_IsArray(c) || cJSON_IsObject(c) ? val(c->child) : NULL;
}

const struct jval *jval_next(const struct jval *child)
{
    return child != NULL ? val(item(child)->next) : NULL;
}

const char *jval_name(const struct jval *child)
{
    const cJSON *c = item(child);

    return c != NULL && c->string != NULL ? c->string : "";
}

bool jval_shadowed(const struct jval *child)
{
    const char *name = jval_name(child);

    for (const cJSON *c = item(child)->next; c != NULL; c = c->next)
        if (c->string != NULL && strcmp(c->string, name) == 0)
            return true;
    return false;
}

size_t jval_len(const struct jval *v)
{
    const struct jval *c;
    size_t n = 0;

    if (cJSON_IsArray(item(v)))
        return (size_t)cJSON_GetArraySize(item(v));
    if (!jval_is_object(v))
        return 0;
    JVAL_EACH(c, v)
    n += !jval_shadowed(c);
    return n;
}

size_t jval_count(const struct jval *v)
{
    const cJSON *c = item(v);

    return cJSON_IsArray(c) || cJSON_IsObject(c) ? (size_t)cJSON_GetArraySize(c)
                                                 : 0;
}

const struct jval *jval_at(const struct jval *v, size_t i)
{
    if (!cJSON_IsArray(item(v)) || i > (size_t)INT32_MAX)
        return NULL;
    return val(cJSON_GetArrayItem(item(v), (int)i));
}
