/*
 * upstream_members.h: a store's member list, as --upstream (--etcd) gives
 * it: comma-separated URLs of the members of one cluster,
 * "https://10.0.0.1:2379,https://10.0.0.2:2379", as kube-apiserver's
 * --etcd-servers.  Parsed in this one place for the option check and the
 * adapters (the etcd adapter connects to one member at a time and moves
 * on to the next when a connection fails).
 */
#ifndef UPSTREAM_MEMBERS_H
#define UPSTREAM_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>

struct upstream_member {
    char *url;  /* as given, without surrounding spaces */
    char *host; /* without brackets */
    char *port;
};

struct upstream_members {
    struct upstream_member *m;
    size_t n; /* >= 1 once parsed */
    bool tls; /* every member is https:// (else every one is http://) */
};

/*
 * Parses list: URLs separated by commas (spaces around them ignored), each
 * http://HOST:PORT or https://HOST:PORT as address_parse_server_url reads
 * it, all of one scheme, none twice.  Returns RW_OK with *out filled
 * (free with upstream_members_fini), or RW_EINVAL with why set (*out then
 * empty): "member 2 \"x\": expected http://HOST:PORT or
 * https://HOST:PORT" (without "member 1 ..." when list is one URL),
 * "member 2 \"https://b:1\" is https but member 1 is
 * http: expected one scheme for every member", "an empty member: expected
 * URLs separated by commas", "member 2 \"http://a:1\" given twice".
 */
int upstream_members_parse(const char *list, struct upstream_members *out,
                           char *why, size_t why_len);

void upstream_members_fini(struct upstream_members *ms);

#endif
