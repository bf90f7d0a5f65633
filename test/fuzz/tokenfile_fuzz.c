/*
 * tokenfile_fuzz.c: tokenfile_parse (--token-auth-file) on arbitrary
 * bytes: it refuses with a line number, or yields rows that each have a
 * user name, a line within the input, and no empty group.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/tokenfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tokenfile tf;
    char why[256];
    unsigned lines = 1;

    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (tokenfile_parse((const char *)data, size, &tf, why, sizeof(why)) !=
        RW_OK) {
        rw_assert(strncmp(why, "line ", 5) == 0 && tf.n == 0);
        return 0;
    }
    for (size_t i = 0; i < tf.n; i++) {
        const struct tokenfile_row *r = &tf.rows[i];

        rw_assert(r->line >= 1 && r->line <= lines);
        rw_assert(*r->token == '\0' || *r->user != '\0');
        rw_assert(i == 0 || r->line > tf.rows[i - 1].line);
        for (size_t g = 0; g < r->ngroups; g++)
            rw_assert(*r->groups[g] != '\0' && !strchr(r->groups[g], ','));
    }
    tokenfile_fini(&tf);
    return 0;
}
