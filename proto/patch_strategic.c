/* patch_strategic.c: strategic merge patch (see patch_strategic.h). */
#include "proto/patch_strategic.h"

#include "cache/rw.h"

bool patch_strategic_supported(const char *group, const char *kind)
{
    (void)group;
    (void)kind;
    return false;
}

int patch_strategic_apply(struct jval **doc, const struct jval *patch,
                          const char *group, const char *kind,
                          struct patch_error *err)
{
    (void)doc;
    (void)patch;
    (void)group;
    (void)kind;
    return patch_fail(err, 500, "InternalError",
                      "strategic merge patch is not applied yet");
}
