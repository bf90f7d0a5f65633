/*
 * patch_error.c: the patch errors' wording (see patch_error.h).
 */
#include "proto/patch_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "cache/sbuf.h"
#include "proto/jval_edit.h"

int patch_fail(struct patch_error *err, int code, const char *reason,
               const char *fmt, ...)
{
    va_list ap;

    err->code = code;
    err->reason = reason;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    return RW_EINVAL;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(jval_name(*(const struct jval *const *)a),
                  jval_name(*(const struct jval *const *)b));
}

void patch_go_format(struct sbuf *b, const struct jval *v)
{
    const struct jval *c, **members;
    size_t n = 0, i = 0;
    char *json;

    switch (jval_type(v)) {
    case JVAL_OBJECT:
        members = xcalloc(jval_count(v) + 1, sizeof(*members));
        JVAL_EACH(c, v) members[n++] = c;
        qsort(members, n, sizeof(*members), key_cmp);
        sbuf_add(b, "map[");
        for (i = 0; i < n; i++) {
            sbuf_addf(b, "%s%s:", i ? " " : "", jval_name(members[i]));
            patch_go_format(b, members[i]);
        }
        sbuf_add(b, "]");
        free(members);
        break;
    case JVAL_ARRAY:
        sbuf_add(b, "[");
        JVAL_EACH(c, v)
        {
            sbuf_add(b, i++ ? " " : "");
            patch_go_format(b, c);
        }
        sbuf_add(b, "]");
        break;
    case JVAL_STRING:
        sbuf_add(b, jval_str(v));
        break;
    case JVAL_NULL:
    case JVAL_NONE:
        sbuf_add(b, "<nil>");
        break;
    default:
        json = jval_edit_print(v, &n);
        sbuf_add(b, json);
        free(json);
        break;
    }
}
