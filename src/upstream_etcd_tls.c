/*
 * upstream_etcd_tls.c: the etcd adapter's TLS clients (see
 * upstream_etcd_tls.h).
 */
#include "src/upstream_etcd_tls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/h2_client.h"
#include "src/log.h"
#include "src/tls.h"
#include "src/upstream.h"
#include "src/upstream_members.h"

struct upstream_etcd_tls {
    size_t n;
    struct tls_client **client;  /* per member */
    bool *refused;               /* per member: its first connection failed
                                    TLS */
    uint64_t *failures;          /* per member: tls_client_failures when
                                    its connection was made */
    char error[TLS_REASON_MAX];  /* the last failure's reason, until a
                                    connection ends otherwise */
    char logged[TLS_REASON_MAX]; /* the last reason logged */
};

/* The options the files come from, for tls_client_new's messages. */
#define ETCD_TLS_OPTIONS                                                       \
    .ca_option = "--etcd-cafile", .cert_option = "--etcd-certfile",            \
    .key_option = "--etcd-keyfile"

int upstream_etcd_tls_check(const char *ca_file, const char *cert_file,
                            const char *key_file, char *why, size_t why_len)
{
    struct tls_client_config tc = {
        .ca_file = ca_file,
        .cert_file = cert_file,
        .key_file = key_file,
        .alpn = "h2",
        ETCD_TLS_OPTIONS,
    };
    struct tls_client *c = tls_client_new(&tc, why, why_len);

    tls_client_free(c);
    return c != NULL ? RW_OK : RW_EINVAL;
}

struct upstream_etcd_tls *
upstream_etcd_tls_new(const struct upstream_members *ms,
                      const struct upstream_config *cfg, char *why,
                      size_t why_len)
{
    struct upstream_etcd_tls *t = xcalloc(1, sizeof(*t));

    t->n = ms->n;
    t->client = xcalloc(ms->n, sizeof(*t->client));
    t->refused = xcalloc(ms->n, sizeof(*t->refused));
    t->failures = xcalloc(ms->n, sizeof(*t->failures));
    for (size_t i = 0; i < ms->n; i++) {
        struct tls_client_config tc = {
            .ca_file = cfg->tls_ca_file,
            .cert_file = cfg->tls_cert_file,
            .key_file = cfg->tls_key_file,
            .server_name = ms->m[i].host,
            .alpn = "h2",
            ETCD_TLS_OPTIONS,
        };

        if ((t->client[i] = tls_client_new(&tc, why, why_len)) == NULL) {
            upstream_etcd_tls_free(t);
            return NULL;
        }
    }
    return t;
}

void upstream_etcd_tls_free(struct upstream_etcd_tls *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->n; i++)
        tls_client_free(t->client[i]);
    free(t->client);
    free(t->refused);
    free(t->failures);
    free(t);
}

void upstream_etcd_tls_configure(struct upstream_etcd_tls *t, size_t i,
                                 struct h2_client_config *hc)
{
    hc->transport = tls_client_transport;
    hc->transport_arg = t->client[i];
    t->failures[i] = tls_client_failures(t->client[i]);
}

bool upstream_etcd_tls_failed(struct upstream_etcd_tls *t, size_t i,
                              const char *url, bool first, bool silent)
{
    const char *reason = tls_client_last_error(t->client[i]);
    bool tls = tls_client_failures(t->client[i]) != t->failures[i];

    if (!tls && !silent) {
        t->error[0] = '\0'; /* not TLS: refused, reset, timed out */
        return false;
    }
    /* Silent: the alert was lost (etcd closes right after it, and our
     * first bytes, crossing it, make the kernel reset the connection). */
    if (!tls)
        reason = "the server closed the connection right after the "
                 "handshake (does it trust the client certificate?)";
    if (strcmp(reason, t->logged) != 0)
        log_error("etcd %s: TLS handshake failed: %s", url, reason);
    snprintf(t->logged, sizeof(t->logged), "%s", reason);
    snprintf(t->error, sizeof(t->error), "%s", reason);
    if (first)
        t->refused[i] = true;
    return true;
}

bool upstream_etcd_tls_hopeless(const struct upstream_etcd_tls *t)
{
    for (size_t i = 0; i < t->n; i++)
        if (!t->refused[i])
            return false;
    return true;
}

const char *upstream_etcd_tls_error(const struct upstream_etcd_tls *t)
{
    return t != NULL ? t->error : "";
}
