/*
 * review_fuzz.c: the review endpoints' body decoders (src/review_body.c)
 * on arbitrary bytes, as JSON and as Kubernetes protobuf, for the three
 * reviews: each answer is either a decoded spec whose strings are all set
 * (one kind of attributes; a rules review's namespace) or a refusal with a code
 * the apiserver would give (400, 422) and words; nothing is read past the
 * input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/review_body.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_error(const struct review_error *err)
{
    rw_assert(err->code == 400 || err->code == 422);
    rw_assert(err->reason != NULL && err->message[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const types[] = {"application/json",
                                        "application/vnd.kubernetes.protobuf"};
    /* a copy of exactly size bytes, so that a read past it is caught */
    char *body = malloc(size ? size : 1);

    memcpy(body, data, size);
    for (size_t i = 0; i < RW_ARRAY_LEN(types); i++) {
        struct review_access a;
        struct review_error err;
        char *ns;

        if (review_body_decode_access(body, size, types[i], &a, &err) ==
            RW_OK) {
            rw_assert(a.ns && a.verb && a.group && a.version && a.resource &&
                      a.subresource && a.name && a.path);
            review_body_access_fini(&a);
        } else {
            check_error(&err);
        }
        if (review_body_decode_self(body, size, types[i], &err) != RW_OK)
            check_error(&err);
        if (review_body_decode_rules(body, size, types[i], &ns, &err) ==
            RW_OK) {
            rw_assert(ns != NULL);
            free(ns);
        } else {
            rw_assert(ns == NULL);
            check_error(&err);
        }
    }
    free(body);
    return 0;
}
