/*
 * redis_cluster.h: Redis Cluster's routing, as its specification
 * (redis.io/docs/reference/cluster-spec) defines it: the hash slot of a
 * key (CRC16-XMODEM of the key, or of its hash tag "{...}", mod 16384),
 * the slot map CLUSTER SLOTS answers (which master serves which slots),
 * and the redirections a node answers for a slot it does not serve
 * ("MOVED <slot> <host>:<port>": the slot lives there now; "ASK <slot>
 * <host>:<port>": this one command, after ASKING, goes there while the
 * slot migrates).  Pure functions over src/redis_client.h's replies and
 * strings (outside input: every one checks what it reads;
 * test/fuzz/redis_entry_fuzz.c), no I/O.
 */
#ifndef REDIS_CLUSTER_H
#define REDIS_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct redis_client_reply;

#define REDIS_CLUSTER_SLOTS 16384

/* CRC16-XMODEM (polynomial 0x1021, initial value 0, no reflection) of
 * buf[0..len): the spec's test vector "123456789" gives 0x31C3. */
uint16_t redis_cluster_crc16(const char *buf, size_t len);

/* The hash slot (0..16383) of key[0..len): CRC16 of the bytes between
 * the first "{" and the first "}" after it when there is at least one
 * byte between them, else of the whole key (the spec's keyHashSlot). */
unsigned redis_cluster_key_slot(const char *key, size_t len);

/* A slot map: which master serves each slot. */
struct redis_cluster_map;

/* Parses a CLUSTER SLOTS answer (an array of [start, end, [host, port,
 * id, ...] of the master, replicas...]).  A master's empty host ("": its
 * endpoint is unknown to the node, or cluster-preferred-endpoint-type
 * unknown-endpoint) means the node that was asked: asked_host.  Slots no
 * range covers have no master (a cluster that is still forming, or has
 * lost a shard).  Returns the map (a new one; redis_cluster_map_free), or
 * NULL with why (a sentence) when r is not such an answer: not an array,
 * a range out of 0..16383 or reversed, a master without host or port. */
struct redis_cluster_map *
redis_cluster_map_parse(const struct redis_client_reply *r,
                        const char *asked_host, char *why, size_t why_len);

/* The master serving slot: true with *host (valid while map is) and
 * *port; false when no range covers it. */
bool redis_cluster_map_master(const struct redis_cluster_map *map,
                              unsigned slot, const char **host,
                              uint16_t *port);

/* How many slots have a master (16384: the whole space is covered). */
unsigned redis_cluster_map_covered(const struct redis_cluster_map *map);

/* NULL is a no-op. */
void redis_cluster_map_free(struct redis_cluster_map *map);

enum redis_cluster_redirect_kind {
    REDIS_CLUSTER_MOVED,
    REDIS_CLUSTER_ASK,
};

struct redis_cluster_redirect {
    enum redis_cluster_redirect_kind kind;
    unsigned slot;
    char host[256]; /* "" when the node left it out (":port"): its own */
    uint16_t port;
};

/* Parses an error reply's text msg[0..len) "MOVED <slot> <host>:<port>"
 * or "ASK <slot> <host>:<port>" (host: a name, an IPv4 or a bare IPv6
 * address: the port follows the last colon; may be empty).  False when
 * msg is anything else (another error, a slot out of range, no port). */
bool redis_cluster_redirect_parse(const char *msg, size_t len,
                                  struct redis_cluster_redirect *out);

/* Whether an error reply's text says the instance is not a cluster node
 * ("ERR This instance has cluster support disabled"): a standalone
 * Redis. */
bool redis_cluster_disabled(const char *msg, size_t len);

#endif
