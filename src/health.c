/*
 * health.c: liveness and readiness endpoints (see health.h).
 */
#include "src/health.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/resource.h"

static void health_reply(struct stream *s, bool ok, bool verbose,
                         const char *checks, const char *name)
{
    char *text;
    struct rbuf *body;

    if (ok && !verbose)
        text = xstrdup("ok");
    else
        text = xasprintf("%s%s check %s\n", checks, name,
                         ok ? "passed" : "failed");
    body = rbuf_from_str(text);
    stream_respond(s, ok ? 200 : 500, "text/plain; charset=utf-8", body);
    rbuf_unref(body);
    free(text);
}

bool health_handle(struct stream *s, const char *path, bool verbose,
                   struct resource *const *resources, size_t n,
                   bool upstream_connected, const char *upstream_tls_error)
{
    char *checks;
    bool ok = true;

    if (strcmp(path, "/healthz") == 0 || strcmp(path, "/livez") == 0) {
        health_reply(s, true, verbose, "[+]ping ok\n", path + 1);
        return true;
    }
    if (strcmp(path, "/readyz") != 0)
        return false;

    if (upstream_connected)
        checks = xstrdup("[+]ping ok\n[+]upstream ok\n");
    else if (upstream_tls_error != NULL && upstream_tls_error[0] != '\0')
        checks = xasprintf("[+]ping ok\n[-]upstream failed: TLS handshake: "
                           "%s\n",
                           upstream_tls_error);
    else
        checks = xstrdup("[+]ping ok\n[-]upstream failed: not connected\n");
    ok = upstream_connected;
    for (size_t i = 0; i < n; i++) {
        bool ready = resource_caught_up(resources[i]);
        char *more =
            ready ? xasprintf("%s[+]cache/%s ok\n", checks,
                              resource_type(resources[i])->resource)
            : resource_ready(resources[i])
                ? xasprintf("%s[-]cache/%s failed: replaying the store's "
                            "history to revision %lld (warm start)\n",
                            checks, resource_type(resources[i])->resource,
                            (long long)resource_catchup_rev(resources[i]))
                : xasprintf("%s[-]cache/%s failed: initializing or "
                            "relisting\n",
                            checks, resource_type(resources[i])->resource);

        free(checks);
        checks = more;
        ok = ok && ready;
    }
    health_reply(s, ok, verbose, checks, "readyz");
    free(checks);
    return true;
}
