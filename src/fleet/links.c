/*
 * links.c: the fleet's HTTP/2 client connections (see links.h).
 *
 * Data structure: an array of links, each the h2c it uses now (or NULL)
 * and whether that one is established.  h2c's rules keep it simple: a
 * connection closes its streams before it reports its own end, and
 * h2_client_free may be called from its on_close.  Invariant: `open` counts the
 * links whose connection is established and not forgotten.
 */
#include "src/fleet/links.h"

#include <stdbool.h>
#include <stdlib.h>

#include "cache/rw.h"
#include "src/fleet/dial.h"
#include "src/h2_client.h"
#include "src/log.h"

/* Connection ends logged per set of links, at most. */
#define LINKS_LOG_CLOSES 5

struct link {
    struct links *ls;
    struct h2_client *c;
    bool up;
    uint64_t tls_failures; /* fleet_dial_h2_failures when c was made */
};

struct links {
    struct event_base *base;
    const struct fleet_dial *d;
    const char *what;
    struct link *link;
    size_t n, open;
    unsigned closes_logged;
};

static void link_connect_cb(struct h2_client *c, void *arg)
{
    struct link *l = arg;

    l->up = true;
    l->ls->open++;
}

/* Forgets the link's connection; one still alive (GOAWAY) ends by itself
 * and is freed in link_close_cb. */
static void link_forget(struct link *l)
{
    if (l->up)
        l->ls->open--;
    l->up = false;
    l->c = NULL;
}

static void link_close_cb(struct h2_client *c, int err, void *arg)
{
    struct link *l = arg;
    struct links *ls = l->ls;
    const char *tls = fleet_dial_h2_error(ls->d, l->tls_failures);

    if (ls->closes_logged++ < LINKS_LOG_CLOSES)
        log_warnx("%s connection %zu to %s: %s%s", ls->what,
                  (size_t)(l - ls->link), h2_client_authority(c),
                  tls != NULL ? "TLS handshake: " : "",
                  tls != NULL                ? tls
                  : h2_client_last_error(c)[0] ? h2_client_last_error(c)
                                               : rw_strerror(err));
    if (l->c == c)
        link_forget(l);
    h2_client_free(c);
}

struct links *links_new(struct event_base *base, const struct fleet_dial *d,
                        size_t n, const char *what)
{
    struct links *ls = xcalloc(1, sizeof(*ls));

    rw_assert(n > 0);
    ls->base = base;
    ls->d = d;
    ls->what = what;
    ls->n = n;
    ls->link = xcalloc(n, sizeof(*ls->link));
    for (size_t i = 0; i < n; i++)
        ls->link[i].ls = ls;
    return ls;
}

void links_free(struct links *ls)
{
    if (ls == NULL)
        return;
    for (size_t i = 0; i < ls->n; i++) {
        struct h2_client *c = ls->link[i].c;

        ls->link[i].c = NULL;
        h2_client_free(c); /* its streams close first */
    }
    free(ls->link);
    free(ls);
}

struct h2_client *links_get(struct links *ls, size_t i)
{
    static const struct h2_client_callbacks cbs = {
        .on_connect = link_connect_cb,
        .on_close = link_close_cb,
    };
    struct link *l = &ls->link[i];
    struct h2_client_config hc = {0};

    if (l->c != NULL && l->up && !h2_client_is_open(l->c))
        link_forget(l); /* GOAWAY: it finishes its streams alone */
    if (l->c == NULL) {
        fleet_dial_h2(ls->d, &hc);
        l->tls_failures = fleet_dial_h2_failures(ls->d);
        l->c = h2_client_new(ls->base, ls->d->host, ls->d->port, &hc, &cbs, l);
    }
    return l->c;
}

bool links_drop(struct links *ls, size_t i)
{
    struct link *l = &ls->link[i];

    if (l->c == NULL)
        return false;
    link_forget(l);
    return true;
}

size_t links_open(const struct links *ls)
{
    return ls->open;
}

size_t links_footprint(const struct links *ls)
{
    return sizeof(*ls) + ls->n * sizeof(*ls->link);
}
