/*
 * jwt_fuzz.c: jwt_parse on arbitrary bytes: it refuses a token it cannot
 * read ("malformed token: ...") and anything not JWT-shaped, or yields a
 * signing input that is the token up to its last dot, and strings for
 * every claim.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/jwt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *token = xmemdup(data, size);
    struct jwt j;
    char why[256];

    if (jwt_parse(token, size, &j, why, sizeof(why)) != RW_OK) {
        rw_assert(strncmp(why, "malformed token: ", 17) == 0);
        rw_assert(j.alg == NULL && j.aud == NULL && j.sig == NULL);
    } else {
        rw_assert(jwt_shaped(token, size));
        rw_assert(j.signing_input == token && j.signing_len < size &&
                  token[j.signing_len] == '.' &&
                  memchr(token + j.signing_len + 1, '.',
                         size - j.signing_len - 1) == NULL);
        rw_assert(j.alg && j.kid && j.typ && j.iss && j.sub && j.ns &&
                  j.sa_name && j.sa_uid && j.pod_name && j.pod_uid);
        for (size_t i = 0; i < j.naud; i++)
            rw_assert(j.aud[i] != NULL);
        jwt_fini(&j);
    }
    free(token);
    return 0;
}
