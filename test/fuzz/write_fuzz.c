/*
 * write_fuzz.c: the write verbs' body decoder (src/write_meta.c) on
 * arbitrary bytes, for a namespaced and a cluster-scoped type: a body is
 * either refused with 400 and words, or decoded; a decoded body renders
 * (server fields stamped) into a value the store decoder accepts
 * (proto/kjson_decode.h), which is what a write stores, and the
 * generation's comparison reads both; nothing is read past the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/object.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "proto/kjson_decode.h"
#include "src/write_meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const types[] = {"configmaps", "namespaces"};
    /* a copy of exactly size bytes, so that a read past it is caught */
    char *body = malloc(size ? size : 1);

    memcpy(body, data, size);
    for (size_t i = 0; i < RW_ARRAY_LEN(types); i++) {
        const struct resource_type *rt = resource_type_find(types[i]);
        struct write_stamp st = {"n", rt->namespaced ? "ns" : NULL,
                                 "00000000-0000-4000-8000-000000000000",
                                 "2026-01-01T00:00:00Z", 1};
        struct write_body b;
        struct object *obj;
        const char *why;
        char message[1024], *out;
        size_t len;

        if (write_meta_decode(rt, body, size, &b, message, sizeof(message)) !=
            0) {
            rw_assert(message[0] != '\0');
            write_meta_body_fini(&b);
            continue;
        }
        out = write_meta_render(rt, body, size, &st, &len);
        rw_assert(kjson_decode_object(rt, rt->namespaced ? "/registry/configmaps/ns/n"
                                                         : "/registry/namespaces/n",
                                      rt->namespaced ? 25 : 22, out, len, 5,
                                      &obj, &why) == RW_OK);
        object_unref(obj);
        (void)write_meta_spec_changed(body, size, out, len);
        free(out);
        write_meta_body_fini(&b);
    }
    free(body);
    return 0;
}
