/*
 * query_fuzz.c: query_parse and query_unescape on arbitrary bytes.  Parsing
 * either succeeds with every string inside q->storage and every number in
 * range, or fails with a message; q is finalised either way.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/query.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_in_storage(const struct query *q, const char *s, size_t size)
{
    rw_assert(s >= q->storage && s + strlen(s) <= q->storage + size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct query q;
    char why[128];
    char *plain, *plus;

    if (query_parse((const char *)data, size, &q, why, sizeof(why)) == RW_OK) {
        check_in_storage(&q, q.label_selector, size);
        check_in_storage(&q, q.field_selector, size);
        check_in_storage(&q, q.continue_token, size);
        check_in_storage(&q, q.include_object, size);
        check_in_storage(&q, q.rv_match_value, size);
        rw_assert(!q.has_rv || q.rv >= 0);
        rw_assert(q.limit >= 0 && q.timeout_seconds >= -1);
        rw_assert(q.send_initial_events >= -1 && q.send_initial_events <= 1);
        rw_assert(q.rv_match <= RV_MATCH_OTHER);
        rw_assert((q.rv_match == RV_MATCH_OTHER) ==
                  (*q.rv_match_value != '\0' &&
                   strcmp(q.rv_match_value, "Exact") != 0 &&
                   strcmp(q.rv_match_value, "NotOlderThan") != 0));
        {
            const char *field;
            char vwhy[256];

            /* Validation either passes or names a field and a reason. */
            for (int watch = 0; watch < 2; watch++)
                if (query_validate(&q, watch, &field, vwhy, sizeof(vwhy)))
                    rw_assert(*field != '\0' && *vwhy != '\0');
        }
    } else {
        rw_assert(why[0] != '\0' && strlen(why) < sizeof(why));
    }
    query_fini(&q);

    plain = query_unescape((const char *)data, size, false);
    plus = query_unescape((const char *)data, size, true);
    rw_assert((plain == NULL) == (plus == NULL));
    rw_assert(plain == NULL || strlen(plain) <= size);
    free(plain);
    free(plus);
    return 0;
}
