/*
 * patch_fuzz.c: patch_apply on arbitrary patch bodies and objects.  The
 * input is a selector byte (the patch type, and for strategic patches the
 * kind: a Pod, a Deployment, a ConfigMap or a custom resource), then the
 * object and the patch separated by the first NUL.  A patch is applied or
 * refused with a Status of a known code and a message; an applied one
 * yields a JSON object that parses again within the depth limit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/jval_edit.h"
#include "proto/patch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const kinds[][2] = {
        {"", "Pod"}, {"apps", "Deployment"}, {"", "ConfigMap"},
        {"example.com", "Widget"}};
    const char *body, *sep, *why;
    struct patch_error err;
    enum patch_type t;
    size_t doc_len;
    char *out;
    size_t n;

    if (size < 1)
        return 0;
    t = (enum patch_type)(data[0] % 3);
    body = (const char *)data + 1;
    size--;
    sep = memchr(body, '\0', size);
    doc_len = sep != NULL ? (size_t)(sep - body) : size;
    if (patch_apply(t, kinds[(data[0] / 3) % 4][0], kinds[(data[0] / 3) % 4][1],
                    body, doc_len, sep != NULL ? sep + 1 : "",
                    sep != NULL ? size - doc_len - 1 : 0, &out, &n,
                    &err) == RW_OK) {
        struct jval *v = jval_edit_parse(out, n, &why);

        rw_assert(v != NULL && jval_type(v) == JVAL_OBJECT);
        rw_assert(jval_edit_depth(v) <= JVAL_EDIT_MAX_DEPTH);
        jval_free(v);
        free(out);
    } else {
        rw_assert(out == NULL && err.reason != NULL);
        rw_assert(err.code == 400 || err.code == 413 || err.code == 415 ||
                  err.code == 422 || err.code == 500);
        rw_assert(err.message[0] != '\0');
    }
    return 0;
}
