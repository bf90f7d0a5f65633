/*
 * profile.h: who the fleet's watchers are (--profile): controllers, which
 * LIST and WATCH the whole resource with the selectors given, and
 * kubelets, each of which watches the pods of one node
 * (fieldSelector=spec.nodeName=NODE), as a cluster's kubelets do.
 *
 *   controller  every watcher is a controller;
 *   kubelet     every watcher is a kubelet; the k-th watches node k mod N;
 *   mix         the first `mix_controllers` watchers are controllers, the
 *               rest kubelets (the k-th kubelet: node k mod N).
 *
 * N (--nodes) defaults to the number of kubelets (at least 1), so each
 * node has one kubelet.  Node k is named "node-%05u" (profile_node_name);
 * the churn writer places pods on the same names.
 *
 * Pure: plain arithmetic on the configuration, no allocation.
 */
#ifndef FLEET_PROFILE_H
#define FLEET_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum profile_kind {
    PROFILE_CONTROLLER,
    PROFILE_KUBELET,
    PROFILE_MIX,
};

struct profile {
    enum profile_kind kind;
    uint64_t watchers;
    uint64_t controllers; /* watchers [0, controllers) */
    uint64_t kubelets;    /* watchers [controllers, watchers) */
    uint32_t nodes;       /* >= 1 */
};

/* Parses "controller", "kubelet" or "mix"; RW_EINVAL otherwise. */
int profile_parse(const char *name, enum profile_kind *kind);
const char *profile_name(enum profile_kind kind);

/*
 * Fills p for `watchers` watchers of kind; mix_controllers is used by
 * PROFILE_MIX (capped at watchers), nodes 0 means "one per kubelet".
 * Returns RW_OK, or RW_EINVAL when nodes is over UINT32_MAX.
 */
int profile_init(struct profile *p, enum profile_kind kind, uint64_t watchers,
                 uint64_t mix_controllers, uint64_t nodes);

/* Whether watcher i is a kubelet; if so *node is its node index. */
bool profile_kubelet(const struct profile *p, uint64_t i, uint32_t *node);

/* "node-%05u" of node index node, into buf (cap >= 16 bytes). */
void profile_node_name(uint32_t node, char *buf, size_t cap);

/* The index of a node name made by profile_node_name (len bytes), in
 * *node.  Returns RW_OK, or RW_EINVAL when name is not one (another
 * spelling, or past UINT32_MAX). */
int profile_node_index(const char *name, size_t len, uint32_t *node);

#endif
