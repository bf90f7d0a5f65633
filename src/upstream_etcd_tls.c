/*
 * upstream_etcd_tls.c: the etcd adapter's TLS clients (see
 * upstream_etcd_tls.h).
 */
#include "src/upstream_etcd_tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/config.h"
#include "src/h2_client.h"
#include "src/log.h"
#include "src/tls.h"
#include "src/upstream.h"
#include "src/upstream_members.h"

struct upstream_etcd_tls {
    size_t n;
    struct tls_client **client; /* per member */
    bool *refused;              /* per member: its first connection failed
                                   TLS */
    char error[192];            /* the last failure's reason */
};

/* Whether file can be read and holds a PEM block whose label ends in
 * label ("CERTIFICATE", "PRIVATE KEY"); else why, in config_fail's
 * form. */
static int tls_file_check(const char *option, const char *file,
                          const char *label, const char *what, char *why,
                          size_t why_len)
{
    FILE *f = fopen(file, "r");
    char line[256], want[64];
    bool found = false;

    if (f == NULL)
        return config_fail(why, why_len, option, file, "cannot read: %s",
                           strerror(errno));
    snprintf(want, sizeof(want), "%s-----", label);
    while (!found && fgets(line, sizeof(line), f) != NULL)
        found = strncmp(line, "-----BEGIN ", 11) == 0 && strstr(line, want);
    if (ferror(f)) {
        int err = errno;

        fclose(f);
        return config_fail(why, why_len, option, file, "cannot read: %s",
                           strerror(err));
    }
    fclose(f);
    if (!found)
        return config_fail(why, why_len, option, file, "expected %s in PEM",
                           what);
    return RW_OK;
}

int upstream_etcd_tls_check(const char *ca_file, const char *cert_file,
                            const char *key_file, char *why, size_t why_len)
{
    struct tls_client_config tc = {.alpn = "h2"};
    struct tls_client *c;
    char what[192];

    if (ca_file != NULL &&
        tls_file_check("etcd-cafile", ca_file, "CERTIFICATE", "CA certificates",
                       why, why_len) != RW_OK)
        return RW_EINVAL;
    if (cert_file != NULL &&
        (tls_file_check("etcd-certfile", cert_file, "CERTIFICATE",
                        "a certificate", why, why_len) != RW_OK ||
         tls_file_check("etcd-keyfile", key_file, "PRIVATE KEY",
                        "a private key", why, why_len) != RW_OK))
        return RW_EINVAL;
    /* The contents, as OpenSSL reads them: the CA alone, then the pair. */
    tc.ca_file = ca_file;
    if (ca_file != NULL) {
        if ((c = tls_client_new(&tc, what, sizeof(what))) == NULL)
            return config_fail(why, why_len, "etcd-cafile", ca_file, "%s",
                               what);
        tls_client_free(c);
    }
    if (cert_file != NULL) {
        tc.cert_file = cert_file;
        tc.key_file = key_file;
        if ((c = tls_client_new(&tc, what, sizeof(what))) == NULL)
            return config_fail(why, why_len, "etcd-keyfile", key_file,
                               "with --etcd-certfile \"%s\": %s", cert_file,
                               what);
        tls_client_free(c);
    }
    return RW_OK;
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
    for (size_t i = 0; i < ms->n; i++) {
        struct tls_client_config tc = {
            .ca_file = cfg->tls_ca_file,
            .cert_file = cfg->tls_cert_file,
            .key_file = cfg->tls_key_file,
            .server_name = ms->m[i].host,
            .alpn = "h2",
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
    free(t);
}

void upstream_etcd_tls_configure(struct upstream_etcd_tls *t, size_t i,
                                 struct h2_client_config *hc)
{
    hc->transport = tls_client_transport;
    hc->transport_arg = t->client[i];
}

bool upstream_etcd_tls_failed(struct upstream_etcd_tls *t, size_t i,
                              const char *url, bool first)
{
    const char *reason = tls_client_last_error(t->client[i]);

    if (reason == NULL || reason[0] == '\0')
        return false;
    if (strcmp(reason, t->error) != 0)
        log_error("etcd %s: TLS handshake failed: %s", url, reason);
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
