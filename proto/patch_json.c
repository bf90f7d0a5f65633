/* patch_json.c: RFC 6902 JSON Patch (see patch_json.h). */
#include "proto/patch_json.h"

#include "cache/rw.h"

int patch_json_apply(struct jval **doc, const struct jval *patch,
                     struct patch_error *err)
{
    (void)doc;
    (void)patch;
    return patch_fail(err, 415, "UnsupportedMediaType",
                      "application/json-patch+json is not applied yet");
}
