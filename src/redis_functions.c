/*
 * redis_functions.c: the "ringwatch" Redis Functions library's source
 * (see redis_functions.h).  src/local.mk turns src/redis_functions.lua into
 * src/redis_functions_lua.h, one C string literal per line of it.
 */
#include "src/redis_functions.h"

static const char source[] =
#include "src/redis_functions_lua.h"
    ;

const char *redis_functions_source(void)
{
    return source;
}
