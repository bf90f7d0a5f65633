/*
 * watch_key.c: a watcher's dispatch index key (see watch_key.h).
 */
#include "src/watch_key.h"

#include "cache/resource_type.h"
#include "cache/selector.h"

size_t watch_key_of(const struct selector *sel, const char *ns,
                    int indexed_field, char *buf)
{
    const char *v = NULL;
    char kind = '?';
    size_t len;

    if ((v = selector_field_value(sel, FIELD_NAME)) != NULL)
        kind = 'N';
    else if (indexed_field >= 0 &&
             (v = selector_field_value(sel, FIELD_EXTRA + indexed_field)))
        kind = 'F';
    else if ((v = ns) != NULL ||
             (v = selector_field_value(sel, FIELD_NAMESPACE)) != NULL)
        kind = 'S';
    else if (sel == NULL)
        kind = '*';
    if (v != NULL && (len = watch_key_make(kind, v, buf)) != 0)
        return len;
    buf[0] = kind == '*' ? '*' : '?';
    return 1;
}
