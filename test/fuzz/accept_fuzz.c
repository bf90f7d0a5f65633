/*
 * accept_fuzz.c: content negotiation on arbitrary Accept headers.  Every
 * call returns (no crash, no overread), the same header negotiates the
 * same way twice, and each endpoint only ever chooses what it allows:
 * documents no conversion, a sendInitialEvents watch no Table, /api and
 * /apis' aggregated check only APIGroupDiscoveryList; a 406 from
 * go-restful's check always carries its message.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/accept.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const produces[] = {
        "application/json", "application/json;stream=watch", NULL};
    char *h = xstrndup((const char *)data, size), why[256];
    struct accept_choice c[4], again;

    for (int ep = ACCEPT_RESOURCE; ep <= ACCEPT_AGGREGATED; ep++) {
        bool ok = accept_negotiate(h, ep, &c[ep]);

        rw_assert(accept_negotiate(h, ep, &again) == ok);
        rw_assert(again.kind == c[ep].kind && again.beta == c[ep].beta);
        if (!ok)
            rw_assert(c[ep].kind == ACCEPT_OBJECT && !c[ep].beta);
        else if (ep == ACCEPT_DOCUMENT)
            rw_assert(c[ep].kind == ACCEPT_OBJECT && !c[ep].beta);
        else if (ep == ACCEPT_AGGREGATED)
            rw_assert(c[ep].kind == ACCEPT_DISCOVERY);
        else
            rw_assert(c[ep].kind != ACCEPT_DISCOVERY &&
                      (ep != ACCEPT_WATCH_LIST || c[ep].kind != ACCEPT_TABLE));
        if (ok && ep == ACCEPT_RESOURCE)
            for (int v = ACCEPT_GET; v <= ACCEPT_WATCH; v++)
                if (!accept_convertible(&c[ep], v, resource_type_find("pods"),
                                        why, sizeof(why)))
                    rw_assert(strncmp(why, "you requested ", 14) == 0);
    }
    if (!accept_route(h, produces, why, sizeof(why)))
        rw_assert(strncmp(why, "406: Not Acceptable", 19) == 0);
    (void)accept_metrics_text(h);
    free(h);
    return 0;
}
