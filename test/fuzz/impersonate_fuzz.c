/*
 * impersonate_fuzz.c: impersonate (src/impersonate.c) on arbitrary
 * Impersonate-* field text, every part allowed: it refuses groups, extras
 * or a uid without a user, or yields an identity with a name and, unless
 * nothing was asked, system:authenticated or system:unauthenticated.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/impersonate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *fields = xstrndup((const char *)data, size), message[256];
    struct identity *id = identity_new(IDENTITY_TOKEN_FILE, "fuzz", NULL);
    struct identity *as;
    struct rbuf *forbidden;

    switch (impersonate(NULL, id, fields, &as, &forbidden, message,
                        sizeof(message))) {
    case IMPERSONATE_OK:
        rw_assert(as != NULL && as->name[0] != '\0' && forbidden == NULL);
        rw_assert(as == id || identity_in_group(as, IDENTITY_AUTHENTICATED) ||
                  identity_in_group(as, IDENTITY_UNAUTHENTICATED));
        identity_unref(as);
        break;
    case IMPERSONATE_INVALID:
        rw_assert(as == NULL && strstr(message, "without impersonating"));
        break;
    case IMPERSONATE_FORBIDDEN:
        rw_assert(0); /* no authorizer: everything is allowed */
    }
    identity_unref(id);
    free(fields);
    return 0;
}
