/*
 * upstream_members.c: a store's member list (see upstream_members.h).
 */
#include "src/upstream_members.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"
#include "src/address.h"

/* tok without the spaces around it (tok is modified). */
static char *trim(char *tok)
{
    size_t len;

    while (*tok == ' ')
        tok++;
    len = strlen(tok);
    while (len > 0 && tok[len - 1] == ' ')
        tok[--len] = '\0';
    return tok;
}

/* Adds url; one_member: the list is url alone (its errors then need not
 * say which member). */
static int members_add(struct upstream_members *ms, const char *url,
                       bool one_member, char *why, size_t why_len)
{
    struct upstream_member *m;
    char what[160], *host, *port;
    bool tls, bad = false;

    if (address_parse_server_url(url, &host, &port, &tls, what, sizeof(what)) !=
        RW_OK) {
        if (one_member)
            snprintf(why, why_len, "%s", what);
        else
            snprintf(why, why_len, "member %zu \"%s\": %s", ms->n + 1, url,
                     what);
        return RW_EINVAL;
    }
    if (ms->n > 0 && tls != ms->tls) {
        snprintf(why, why_len,
                 "member %zu \"%s\" is %s but member 1 is %s: expected one "
                 "scheme for every member",
                 ms->n + 1, url, tls ? "https" : "http",
                 ms->tls ? "https" : "http");
        bad = true;
    }
    for (size_t i = 0; i < ms->n && !bad; i++)
        if (strcasecmp(ms->m[i].host, host) == 0 &&
            strcmp(ms->m[i].port, port) == 0) {
            snprintf(why, why_len, "member %zu \"%s\" given twice", ms->n + 1,
                     url);
            bad = true;
        }
    if (bad) {
        free(host);
        free(port);
        return RW_EINVAL;
    }
    ms->tls = tls;
    ms->m = xrealloc(ms->m, (ms->n + 1) * sizeof(*ms->m));
    m = &ms->m[ms->n++];
    m->url = xstrdup(url);
    m->host = host;
    m->port = port;
    return RW_OK;
}

int upstream_members_parse(const char *list, struct upstream_members *out,
                           char *why, size_t why_len)
{
    char *copy = xstrdup(list), *p = copy;
    int rc = RW_OK;

    memset(out, 0, sizeof(*out));
    while (rc == RW_OK) {
        char *comma = strchr(p, ','), *url;

        if (comma != NULL)
            *comma = '\0';
        url = trim(p);
        if (*url == '\0') {
            snprintf(why, why_len,
                     "an empty member: expected URLs separated by commas");
            rc = RW_EINVAL;
        } else {
            rc = members_add(out, url, strchr(list, ',') == NULL, why, why_len);
        }
        if (comma == NULL)
            break;
        p = comma + 1;
    }
    free(copy);
    if (rc != RW_OK)
        upstream_members_fini(out);
    return rc;
}

void upstream_members_fini(struct upstream_members *ms)
{
    for (size_t i = 0; i < ms->n; i++) {
        free(ms->m[i].url);
        free(ms->m[i].host);
        free(ms->m[i].port);
    }
    free(ms->m);
    memset(ms, 0, sizeof(*ms));
}
