/*
 * address.h: the two forms of network address the command lines take,
 * parsed in one place for the listener, the etcd upstream, ringwatch-fleet
 * and the option checks, so that what an option check accepts is exactly
 * what the module using the value accepts.
 *
 *   listening address  HOST:PORT or [IPV6]:PORT, HOST an IPv4 address,
 *                      PORT 0-65535 (0: the kernel picks one)
 *   server URL         http://HOST:PORT (or https://, where TLS is
 *                      spoken) with an optional trailing "/",
 *                      HOST a name, an IPv4 address or [IPV6], PORT 1-65535
 *
 * Errors come back as one sentence saying what form is wanted, for the
 * caller to print after the option's name and value.
 */
#ifndef ADDRESS_H
#define ADDRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* What every error of address_parse_listen says is wanted. */
#define ADDRESS_LISTEN_FORM "expected HOST:PORT or [IPV6]:PORT"
/* What every error of address_parse_server_url says is wanted. */
#define ADDRESS_SERVER_URL_FORM "expected http://HOST:PORT or https://HOST:PORT"

/*
 * Parses a listening address into *ss (*sslen: its size).  Returns RW_OK,
 * or RW_EINVAL with why set, e.g. "expected HOST:PORT or [IPV6]:PORT",
 * "port 70000 out of range: expected HOST:PORT or [IPV6]:PORT with PORT
 * from 0 to 65535".
 */
int address_parse_listen(const char *text, struct sockaddr_storage *ss,
                         socklen_t *sslen, char *why, size_t why_len);

/* Whether a parsed listening address is a loopback one (127.0.0.0/8,
 * ::1, or ::ffff:127.0.0.0/104): only this host can reach it. */
bool address_is_loopback(const struct sockaddr_storage *ss);

/*
 * Parses a server URL, http://HOST:PORT or https://HOST:PORT (*tls true;
 * false for http://) with an optional trailing "/", for the clients (the
 * etcd upstream, ringwatch-fleet).  On RW_OK *host (without brackets) and
 * *port are new strings (free()).  RW_EINVAL with why set otherwise
 * (another scheme, a path, a missing or out-of-range port...: each says
 * ADDRESS_SERVER_URL_FORM); *host and *port are then untouched.
 */
int address_parse_server_url(const char *text, char **host, char **port,
                             bool *tls, char *why, size_t why_len);

#endif
