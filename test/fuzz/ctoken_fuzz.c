/*
 * ctoken_fuzz.c: ctoken_decode on arbitrary bytes: it either refuses with
 * a reason or yields a clean key that encodes back to a token decoding to
 * the same key, revision and epoch.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/ctoken.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *token = xstrndup((const char *)data, size), *key, *again, *key2;
    char why[256];
    int64_t rv, rv2;
    uint64_t epoch, epoch2;

    if (ctoken_decode(token, &rv, &epoch, &key, why, sizeof(why)) == RW_OK) {
        rw_assert(*key != '\0' && key[0] != '/' && rv != 0 && rv >= -1);
        again = ctoken_encode(rv, epoch, key, strlen(key));
        rw_assert(ctoken_decode(again, &rv2, &epoch2, &key2, why,
                                sizeof(why)) == RW_OK);
        rw_assert(rv2 == rv && epoch2 == epoch && strcmp(key, key2) == 0);
        free(key2);
        free(again);
        free(key);
    } else {
        rw_assert(key == NULL && strncmp(why, "continue key", 12) == 0);
    }
    free(token);
    return 0;
}
