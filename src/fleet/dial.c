/*
 * dial.c: how the fleet reaches a server (see dial.h).
 */
#include "src/fleet/dial.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "src/address.h"
#include "src/config.h"
#include "src/h2_client.h"
#include "src/tls.h"
#include "src/transport.h"

/* One TLS client of d's server with alpn; why names the option and the
 * file at fault (tls_client_new's words). */
static struct tls_client *dial_tls(const struct fleet_dial *d,
                                   const char *prefix,
                                   const struct fleet_dial_options *o,
                                   const char *alpn, char *why, size_t why_len)
{
    char ca[32], cert[32], key[32];
    struct tls_client_config tc = {
        .ca_file = o->cacert,
        .cert_file = o->cert,
        .key_file = o->key,
        .server_name = d->host,
        .alpn = alpn,
        .ca_option = ca,
        .cert_option = cert,
        .key_option = key,
    };

    snprintf(ca, sizeof(ca), "--%scacert", prefix);
    snprintf(cert, sizeof(cert), "--%scert", prefix);
    snprintf(key, sizeof(key), "--%skey", prefix);
    return tls_client_new(&tc, why, why_len);
}

int fleet_dial_init(struct fleet_dial *d, const char *option, const char *url,
                    const char *prefix, const struct fleet_dial_options *o,
                    char *why, size_t why_len)
{
    const struct {
        const char *name, *file;
    } files[] = {{"cacert", o->cacert}, {"cert", o->cert}, {"key", o->key}};
    char what[160], name[32];
    bool tls;

    memset(d, 0, sizeof(*d));
    if (address_parse_server_url(url, &d->host, &d->port, &tls, what,
                                 sizeof(what)) != RW_OK)
        return config_fail(why, why_len, option, url, "%s", what);
    for (size_t i = 0; i < RW_ARRAY_LEN(files) && !tls; i++) {
        if (files[i].file == NULL)
            continue;
        snprintf(name, sizeof(name), "%s%s", prefix, files[i].name);
        fleet_dial_fini(d);
        return config_fail(why, why_len, name, files[i].file,
                           "needs an https:// --%s", option);
    }
    if ((o->cert == NULL) != (o->key == NULL)) {
        snprintf(name, sizeof(name), "%s%s", prefix, o->cert ? "cert" : "key");
        fleet_dial_fini(d);
        return config_fail(why, why_len, name, o->cert ? o->cert : o->key,
                           "expected --%scert and --%skey together", prefix,
                           prefix);
    }
    if (tls &&
        ((d->tls_h2 = dial_tls(d, prefix, o, "h2", why, why_len)) == NULL ||
         (d->tls_h1 = dial_tls(d, prefix, o, "http/1.1", why, why_len)) ==
             NULL)) {
        fleet_dial_fini(d);
        return RW_EINVAL;
    }
    if (o->token != NULL)
        d->authorization = xasprintf("Bearer %s", o->token);
    return RW_OK;
}

void fleet_dial_fini(struct fleet_dial *d)
{
    free(d->host);
    free(d->port);
    tls_client_free(d->tls_h2);
    tls_client_free(d->tls_h1);
    free(d->authorization);
    memset(d, 0, sizeof(*d));
}

void fleet_dial_h2(const struct fleet_dial *d, struct h2_client_config *hc)
{
    if (d->tls_h2 == NULL)
        return;
    hc->transport = tls_client_transport;
    hc->transport_arg = d->tls_h2;
}

uint64_t fleet_dial_h2_failures(const struct fleet_dial *d)
{
    return d->tls_h2 != NULL ? tls_client_failures(d->tls_h2) : 0;
}

const char *fleet_dial_h2_error(const struct fleet_dial *d, uint64_t failures)
{
    if (d->tls_h2 == NULL || tls_client_failures(d->tls_h2) == failures)
        return NULL;
    return tls_client_last_error(d->tls_h2);
}

struct transport *fleet_dial_h1(const struct fleet_dial *d,
                                struct event_base *base, int fd)
{
    if (d->tls_h1 == NULL)
        return transport_plain_client(base, fd, NULL);
    return tls_client_transport(base, fd, d->tls_h1);
}
