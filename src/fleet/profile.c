/*
 * profile.c: watcher roles and node names (see profile.h).
 */
#include "src/fleet/profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cache/rw.h"

#define PROFILE_NODE_PREFIX "node-"

static const char *const profile_names[] = {
    [PROFILE_CONTROLLER] = "controller",
    [PROFILE_KUBELET] = "kubelet",
    [PROFILE_MIX] = "mix",
};

int profile_parse(const char *name, enum profile_kind *kind)
{
    for (size_t i = 0; i < RW_ARRAY_LEN(profile_names); i++) {
        if (name != NULL && strcmp(name, profile_names[i]) == 0) {
            *kind = (enum profile_kind)i;
            return RW_OK;
        }
    }
    return RW_EINVAL;
}

const char *profile_name(enum profile_kind kind)
{
    return profile_names[kind];
}

int profile_init(struct profile *p, enum profile_kind kind, uint64_t watchers,
                 uint64_t mix_controllers, uint64_t nodes)
{
    memset(p, 0, sizeof(*p));
    p->kind = kind;
    p->watchers = watchers;
    switch (kind) {
    case PROFILE_CONTROLLER:
        p->controllers = watchers;
        break;
    case PROFILE_KUBELET:
        p->controllers = 0;
        break;
    case PROFILE_MIX:
        p->controllers = RW_MIN(mix_controllers, watchers);
        break;
    }
    p->kubelets = watchers - p->controllers;
    if (nodes == 0)
        nodes = RW_MAX(p->kubelets, 1);
    if (nodes > UINT32_MAX)
        return RW_EINVAL;
    p->nodes = (uint32_t)nodes;
    return RW_OK;
}

bool profile_kubelet(const struct profile *p, uint64_t i, uint32_t *node)
{
    if (i < p->controllers || i >= p->watchers)
        return false;
    *node = (uint32_t)((i - p->controllers) % p->nodes);
    return true;
}

void profile_node_name(uint32_t node, char *buf, size_t cap)
{
    snprintf(buf, cap, PROFILE_NODE_PREFIX "%05" PRIu32, node);
}

int profile_node_index(const char *name, size_t len, uint32_t *node)
{
    size_t plen = strlen(PROFILE_NODE_PREFIX);
    int64_t v = 0;

    if (len < plen + 5 || len > plen + 10 ||
        memcmp(name, PROFILE_NODE_PREFIX, plen) != 0)
        return RW_EINVAL;
    for (size_t i = plen; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            return RW_EINVAL;
        v = v * 10 + (name[i] - '0');
    }
    if (v > UINT32_MAX)
        return RW_EINVAL;
    /* Only the canonical spelling (5 digits, or more without padding). */
    if (len > plen + 5 && name[plen] == '0')
        return RW_EINVAL;
    *node = (uint32_t)v;
    return RW_OK;
}
