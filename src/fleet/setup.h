/*
 * setup.h: ringwatch-fleet's settings derived from its parsed options
 * (options.h): the checks that need more than one option or a lookup
 * (the resource type, the URLs and their TLS files, the Redis store,
 * --profile, --target, --move-fraction), and what main builds from them
 * (the dial configs, the watch connections, the collection's path).
 *
 * setup_init checks in a fixed order and stops at the first problem, so
 * a command line with several gets the same one line every time.
 */
#ifndef FLEET_SETUP_H
#define FLEET_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/resource_type.h"
#include "src/fleet/dial.h"
#include "src/fleet/options.h"
#include "src/fleet/profile.h"
#include "src/fleet/redis_store.h"

/* The watch streams one HTTP/2 (or etcd gRPC) connection carries when
 * --connections is not given. */
#define SETUP_WATCHERS_PER_CONN 100

struct setup {
    const struct resource_type *rt;  /* --resource (static, not owned) */
    struct fleet_dial server;        /* --server's */
    struct fleet_dial etcd;          /* --etcd's (or --server's with
                                        --target etcd); empty: none */
    struct redis_store_config redis; /* --redis's; host NULL: none */
    struct profile profile;          /* --profile, --nodes, --watchers */
    bool target_etcd;                /* --target etcd */
    bool target_redis;               /* --target redis */
    bool write_via_server;           /* --write-via server */
    double move_fraction;            /* --move-fraction, in [0, 1] */
    uint64_t connections;            /* watch connections to open: one per
                                        watcher with --http1 or
                                        --target redis, else
                                        --connections (at most --watchers)
                                        or ceil(watchers /
                                        SETUP_WATCHERS_PER_CONN) */
    char *collection; /* "/api/v1/pods", "/apis/GROUP/VERSION/RESOURCE" */
};

/*
 * Checks c and fills *s (owned by s: free with setup_fini).  With
 * --target etcd and no --etcd, sets c->etcd to c->server (the oracle and
 * the writer then use the server, with --server's TLS files); c is not
 * changed otherwise.
 *
 * Returns RW_OK, or RW_EINVAL with one line in why (*s is then empty),
 * the first of, in this order:
 *   - --resource unknown: config_unknown_type's line;
 *   - --server: fleet_dial_init's lines (a bad URL, TLS files with an
 *     http:// URL, --cert without --key, a file OpenSSL cannot use);
 *   - --profile "P": expected controller, kubelet or mix;
 *   - --target "T": expected ringwatch, etcd or redis;
 *   - "--target redis needs --redis URL";
 *   - "--redis replaces --etcd: give one of them (and --target
 *     ringwatch)" when --redis comes with --etcd or --target etcd;
 *   - --redis, --redis-password-file, --redis-revisions:
 *     redis_store_config_init's lines;
 *   - --etcd: fleet_dial_init's lines, the TLS options named
 *     etcd-cacert, etcd-cert, etcd-key (with --target etcd and no --etcd:
 *     --server's URL and files again, named cacert, cert, key);
 *   - --move-fraction "F": "expected a number from 0 to 1" (not a number,
 *     NaN) or "out of range: expected 0 to 1";
 *   - "--write-rate needs --etcd URL or --redis URL";
 *   - --write-via "M": expected store or server;
 *   - "--write-via server needs --target ringwatch" (with --target etcd);
 *   - "--contention needs --write-via server" (K > 1 and writes straight
 *     to the store, which has no resourceVersion precondition to race
 *     on);
 *   - "--http1 and --target etcd: etcd speaks gRPC over HTTP/2 only";
 *   - "--http1 and --target redis: the watchers speak RESP";
 *   - "--profile P needs a --resource with spec.nodeName (pods)" when
 *     kubelets watch a resource without that field;
 *   - "--churn needs --resource pods, --etcd URL (or --redis URL) and
 *     --write-rate N";
 *   - "--nodes: out of range: expected at most 4294967295 nodes".
 * main prints it as "ringwatch-fleet: WHY (see ringwatch-fleet --help)"
 * and exits 2.
 */
int setup_init(struct setup *s, struct fleet_config *c, char *why,
               size_t why_len);

/* Frees what *s holds and empties it; an empty *s is a no-op. */
void setup_fini(struct setup *s);

#endif
