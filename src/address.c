/*
 * address.c: listening addresses and server URLs (see address.h).
 *
 * Both forms end in ":PORT"; a host in brackets is an IPv6 literal.  The
 * port is decimal digits only, so that "8080x" or "+80" never pass.
 */
#include "src/address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cache/rw.h"

#define DIGITS "0123456789"
#define HOST_NAME_CHARS                                                        \
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" DIGITS ".-_"

struct host_port {
    const char *host; /* brackets stripped */
    size_t host_len;
    bool bracketed;   /* [IPV6] */
    const char *port; /* digits */
    size_t port_len;
    long port_value; /* > 65535 when too long to be a port */
};

/* Splits s[0..len) at the port's colon; false when there is no colon, the
 * brackets of an IPv6 host do not close right before it, or the port is
 * not decimal digits. */
static bool split_host_port(const char *s, size_t len, struct host_port *hp)
{
    const char *colon;

    hp->bracketed = len > 0 && s[0] == '[';
    if (hp->bracketed) {
        const char *close = memchr(s, ']', len);

        if (close == NULL || close + 1 == s + len || close[1] != ':')
            return false;
        colon = close + 1;
        hp->host = s + 1;
        hp->host_len = (size_t)(close - s - 1);
    } else {
        colon = memrchr(s, ':', len);
        if (colon == NULL)
            return false;
        hp->host = s;
        hp->host_len = (size_t)(colon - s);
    }
    hp->port = colon + 1;
    hp->port_len = (size_t)(s + len - hp->port);
    if (hp->port_len == 0 || strspn(hp->port, DIGITS) < hp->port_len)
        return false;
    hp->port_value = hp->port_len > 6 ? 1000000 : strtol(hp->port, NULL, 10);
    return true;
}

static int fail(char *why, size_t why_len, const char *form, const char *more)
{
    snprintf(why, why_len, "%s%s", form, more);
    return RW_EINVAL;
}

int address_parse_listen(const char *text, struct sockaddr_storage *ss,
                         socklen_t *sslen, char *why, size_t why_len)
{
    char host[INET6_ADDRSTRLEN + 1];
    struct host_port hp;

    if (!split_host_port(text, strlen(text), &hp))
        return fail(why, why_len, ADDRESS_LISTEN_FORM, "");
    if (hp.port_value > 65535)
        return fail(why, why_len, "port out of range: " ADDRESS_LISTEN_FORM,
                    " with PORT from 0 to 65535");
    if (hp.host_len == 0 || hp.host_len >= sizeof(host))
        return fail(why, why_len, ADDRESS_LISTEN_FORM,
                    " with HOST an IP address");
    memcpy(host, hp.host, hp.host_len);
    host[hp.host_len] = '\0';
    memset(ss, 0, sizeof(*ss));
    if (hp.bracketed) {
        struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

        sin6->sin6_family = AF_INET6;
        sin6->sin6_port = htons((uint16_t)hp.port_value);
        *sslen = sizeof(*sin6);
        if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
            return fail(why, why_len, ADDRESS_LISTEN_FORM,
                        " with IPV6 an IPv6 address");
        return RW_OK;
    }
    struct sockaddr_in *sin = (struct sockaddr_in *)ss;

    sin->sin_family = AF_INET;
    sin->sin_port = htons((uint16_t)hp.port_value);
    *sslen = sizeof(*sin);
    if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
        return fail(why, why_len, ADDRESS_LISTEN_FORM,
                    " with HOST an IPv4 address");
    return RW_OK;
}

/* Parses HOST:PORT[/] at rest, the part of a server URL after its
 * scheme; form is what errors say is wanted. */
static int parse_url_rest(const char *rest, const char *form, char **host,
                          char **port, char *why, size_t why_len)
{
    struct host_port hp;
    size_t len = strlen(rest);

    if (len > 0 && rest[len - 1] == '/')
        len--;
    if (memchr(rest, '/', len) != NULL)
        return fail(why, why_len, form, " without a path");
    if (!split_host_port(rest, len, &hp))
        return fail(why, why_len, form, "");
    if (hp.port_value < 1 || hp.port_value > 65535) {
        snprintf(why, why_len,
                 "port out of range: %s with PORT from 1 to "
                 "65535",
                 form);
        return RW_EINVAL;
    }
    if (hp.host_len == 0)
        return fail(why, why_len, form, " with a HOST");
    if (hp.bracketed) {
        char *addr = xstrndup(hp.host, hp.host_len);
        struct in6_addr a6;
        int ok = inet_pton(AF_INET6, addr, &a6);

        free(addr);
        if (ok != 1)
            return fail(why, why_len, form, " with [IPV6] an IPv6 address");
    } else if (strspn(hp.host, HOST_NAME_CHARS) < hp.host_len) {
        return fail(why, why_len, form,
                    " with HOST a host name or an IP address");
    }
    *host = xstrndup(hp.host, hp.host_len);
    *port = xstrndup(hp.port, hp.port_len);
    return RW_OK;
}

int address_parse_server_url(const char *text, char **host, char **port,
                             bool *tls, char *why, size_t why_len)
{
    static const char http[] = "http://", https[] = "https://";

    if (strncasecmp(text, http, sizeof(http) - 1) == 0) {
        *tls = false;
        text += sizeof(http) - 1;
    } else if (strncasecmp(text, https, sizeof(https) - 1) == 0) {
        *tls = true;
        text += sizeof(https) - 1;
    } else {
        return fail(why, why_len, ADDRESS_SERVER_URL_FORM, "");
    }
    return parse_url_rest(text, ADDRESS_SERVER_URL_FORM, host, port, why,
                          why_len);
}

bool address_is_loopback(const struct sockaddr_storage *ss)
{
    const struct in6_addr *a6;

    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >>
                24) == 127;
    if (ss->ss_family != AF_INET6)
        return false;
    a6 = &((const struct sockaddr_in6 *)ss)->sin6_addr;
    return IN6_IS_ADDR_LOOPBACK(a6) ||
           (IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127);
}
