/*
 * churn.c: the churn generator (see churn.h).
 */
#include "src/fleet/churn.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cache/rw.h"
#include "src/fleet/profile.h"
#include "src/fleet/scan.h"
#include "src/fleet/stamp.h"

#define CHURN_PICK_TRIES 16   /* random picks before giving up on a write */
#define CHURN_APPS 20         /* distinct app labels */
#define CHURN_CREATE_SHARE 20 /* percent of writes that create or delete */

enum churn_phase { PHASE_PENDING, PHASE_RUNNING };

struct churn_pod {
    int64_t created_s; /* wall-clock unix seconds */
    uint32_t node;
    uint32_t live_at; /* index in c->live; UINT32_MAX: not live */
    uint32_t writes;
    uint16_t restarts;
    uint8_t phase;
    bool busy;
};

struct churn {
    struct churn_config cfg;
    uint64_t rng;
    struct churn_pod *pods; /* by serial */
    uint32_t npods, cap;    /* serials known: [0, npods) */
    uint32_t *live;
    uint32_t nlive, cap_live;
};

static uint64_t churn_rand(struct churn *c)
{
    uint64_t z = (c->rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint32_t churn_below(struct churn *c, uint32_t n)
{
    return (uint32_t)(churn_rand(c) % n);
}

static double churn_unit(struct churn *c)
{
    return (double)(churn_rand(c) >> 11) / 9007199254740992.0;
}

struct churn *churn_new(const struct churn_config *cfg)
{
    struct churn *c = xcalloc(1, sizeof(*c));

    rw_assert(cfg->pods > 0 && cfg->nodes > 0);
    c->cfg = *cfg;
    c->rng = cfg->seed;
    return c;
}

void churn_free(struct churn *c)
{
    if (c == NULL)
        return;
    free(c->pods);
    free(c->live);
    free(c);
}

/* Makes room for serial s; new records are not live. */
static struct churn_pod *churn_slot(struct churn *c, uint32_t s)
{
    rw_assert(s < UINT32_MAX - 1);
    if (s >= c->cap) {
        uint32_t cap = RW_MAX(c->cap * 2, s + 1024);

        c->pods = xrealloc(c->pods, (size_t)cap * sizeof(*c->pods));
        memset(c->pods + c->cap, 0, (size_t)(cap - c->cap) * sizeof(*c->pods));
        for (uint32_t i = c->cap; i < cap; i++)
            c->pods[i].live_at = UINT32_MAX;
        c->cap = cap;
    }
    if (s >= c->npods)
        c->npods = s + 1;
    return &c->pods[s];
}

static void churn_live_add(struct churn *c, uint32_t s)
{
    if (c->nlive == c->cap_live) {
        c->cap_live = c->cap_live ? c->cap_live * 2 : 1024;
        c->live = xrealloc(c->live, (size_t)c->cap_live * sizeof(*c->live));
    }
    c->pods[s].live_at = c->nlive;
    c->live[c->nlive++] = s;
}

static void churn_live_remove(struct churn *c, uint32_t s)
{
    uint32_t at = c->pods[s].live_at, last = c->live[--c->nlive];

    c->live[at] = last;
    c->pods[last].live_at = at;
    c->pods[s].live_at = UINT32_MAX;
}

void churn_adopt(struct churn *c, uint32_t serial, uint32_t node)
{
    struct churn_pod *p;

    if (serial < c->npods && c->pods[serial].live_at != UINT32_MAX)
        return;
    p = churn_slot(c, serial);
    p->node = node % c->cfg.nodes; /* rewritten there by its next update */
    p->phase = PHASE_RUNNING;
    p->created_s = 0;
    churn_live_add(c, serial);
}

bool churn_parse_name(const char *name, size_t len, uint32_t *serial)
{
    size_t plen = strlen(CHURN_NAME_PREFIX);
    uint32_t v = 0;

    if (len != plen + 8 || memcmp(name, CHURN_NAME_PREFIX, plen) != 0)
        return false;
    for (size_t i = plen; i < len; i++) {
        int d = rw_hex_digit(name[i]);

        if (d < 0)
            return false;
        v = v << 4 | (uint32_t)d;
    }
    *serial = v;
    return true;
}

void churn_name(uint32_t serial, char *buf, size_t cap)
{
    snprintf(buf, cap, CHURN_NAME_PREFIX "%08" PRIx32, serial);
}

/* A live pod with no write in flight, or UINT32_MAX. */
static uint32_t churn_pick(struct churn *c)
{
    for (int i = 0; i < CHURN_PICK_TRIES && c->nlive > 0; i++) {
        uint32_t s = c->live[churn_below(c, c->nlive)];

        if (!c->pods[s].busy)
            return s;
    }
    return UINT32_MAX;
}

static void churn_create(struct churn *c, struct churn_op *op)
{
    uint32_t s = c->npods;
    struct churn_pod *p = churn_slot(c, s);

    p->node = churn_below(c, c->cfg.nodes);
    p->phase = PHASE_PENDING;
    p->restarts = 0;
    p->writes = 0;
    p->created_s = -1; /* set by the first render */
    churn_live_add(c, s);
    op->kind = CHURN_CREATE;
    op->pod = s;
    op->node_from = op->node = p->node;
}

static bool churn_change(struct churn *c, bool remove, struct churn_op *op)
{
    uint32_t s = churn_pick(c);
    struct churn_pod *p;

    if (s == UINT32_MAX)
        return false;
    p = &c->pods[s];
    op->pod = s;
    op->node_from = op->node = p->node;
    if (remove) {
        op->kind = CHURN_DELETE;
        churn_live_remove(c, s);
        return true;
    }
    op->kind = CHURN_UPDATE;
    if (c->cfg.nodes > 1 && churn_unit(c) < c->cfg.move_fraction) {
        op->kind = CHURN_MOVE;
        p->node =
            (p->node + 1 + churn_below(c, c->cfg.nodes - 1)) % c->cfg.nodes;
        op->node = p->node;
        p->phase = PHASE_PENDING;
    } else if (p->phase == PHASE_PENDING) {
        p->phase = PHASE_RUNNING;
    } else {
        p->restarts++;
    }
    return true;
}

bool churn_next(struct churn *c, bool initial, struct churn_op *op)
{
    bool ok;

    if (initial) {
        if (c->nlive >= c->cfg.pods)
            return false;
        churn_create(c, op);
    } else if (churn_below(c, 100) < CHURN_CREATE_SHARE) {
        if (c->nlive < c->cfg.pods) {
            churn_create(c, op);
        } else if (!churn_change(c, true, op)) {
            return false;
        }
    } else if (!(ok = churn_change(c, false, op))) {
        return false;
    }
    c->pods[op->pod].busy = true;
    c->pods[op->pod].writes++;
    return true;
}

void churn_done(struct churn *c, const struct churn_op *op)
{
    rw_assert(op->pod < c->npods);
    c->pods[op->pod].busy = false;
}

size_t churn_live(const struct churn *c)
{
    return c->nlive;
}

/* ==== rendering ==== */

static void churn_time(int64_t unix_s, char *buf, size_t cap)
{
    time_t t = (time_t)unix_s;
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A stable uuid-shaped id of pod s of this seed. */
static void churn_uid(const struct churn *c, uint32_t s, char *buf, size_t cap)
{
    struct churn tmp = {.rng = c->cfg.seed ^ ((uint64_t)s << 20)};
    uint64_t a = churn_rand(&tmp), b = churn_rand(&tmp);

    snprintf(buf, cap,
             "%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-a%03" PRIx64
             "-%012" PRIx64,
             a >> 32, (a >> 16) & 0xffff, a & 0xfff, (b >> 48) & 0xfff,
             (uint64_t)(b & 0xffffffffffffull));
}

/* The metadata member (and "apiVersion", "kind" before it). */
static int churn_render_meta(const struct churn *c, uint32_t s,
                             const struct churn_pod *p, int64_t written_at_ns,
                             char *buf, size_t cap)
{
    char name[32], uid[48], created[32];
    unsigned app = s % CHURN_APPS;

    churn_name(s, name, sizeof(name));
    churn_uid(c, s, uid, sizeof(uid));
    churn_time(p->created_s, created, sizeof(created));
    return snprintf(
        buf, cap,
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{"
        "\"name\":\"%s\",\"namespace\":\"" CHURN_NAMESPACE "\","
        "\"uid\":\"%s\",\"creationTimestamp\":\"%s\","
        "\"generateName\":\"app-%u-5c8d7f9b6-\","
        "\"labels\":{\"app\":\"app-%u\",\"pod-template-hash\":\"5c8d7f9b6\","
        "\"tier\":\"%s\"},"
        "\"annotations\":{\"" SCAN_WRITTEN_AT "\":\"%" PRId64
        "\",\"" STAMP_WRITE_COUNT "\":\"%" PRIu32 "\"},"
        "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\",\"kind\":"
        "\"ReplicaSet\",\"name\":\"app-%u-5c8d7f9b6\",\"uid\":"
        "\"6f1c2a4e-0b7d-4c1e-9a3f-%012u\",\"controller\":true,"
        "\"blockOwnerDeletion\":true}]},",
        name, uid, created, app, app, app % 3 == 0 ? "frontend" : "backend",
        written_at_ns, p->writes, app, app);
}

static int churn_render_spec(uint32_t s, const struct churn_pod *p, char *buf,
                             size_t cap)
{
    char node[32];
    unsigned app = s % CHURN_APPS;

    profile_node_name(p->node, node, sizeof(node));
    return snprintf(
        buf, cap,
        "\"spec\":{\"nodeName\":\"%s\",\"containers\":[{\"name\":\"app\","
        "\"image\":\"registry.local/app-%u:1.%u.0\",\"ports\":[{"
        "\"containerPort\":8080,\"protocol\":\"TCP\"}],\"resources\":{"
        "\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"},\"limits\":{"
        "\"cpu\":\"500m\",\"memory\":\"256Mi\"}},\"env\":[{\"name\":"
        "\"APP_ENV\",\"value\":\"production\"}],\"terminationMessagePath\":"
        "\"/dev/termination-log\",\"imagePullPolicy\":\"IfNotPresent\"}],"
        "\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,"
        "\"dnsPolicy\":\"ClusterFirst\",\"serviceAccountName\":\"default\","
        "\"schedulerName\":\"default-scheduler\",\"priority\":0,"
        "\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\","
        "\"operator\":\"Exists\",\"effect\":\"NoExecute\","
        "\"tolerationSeconds\":300}]},",
        node, app, app);
}

static int churn_render_status(uint32_t s, const struct churn_pod *p,
                               int64_t now_s, char *buf, size_t cap)
{
    char now[32], start[32];
    bool running = p->phase == PHASE_RUNNING;
    const char *ready = running ? "True" : "False";
    unsigned app = s % CHURN_APPS;

    churn_time(now_s, now, sizeof(now));
    churn_time(p->created_s, start, sizeof(start));
    return snprintf(
        buf, cap,
        "\"status\":{\"phase\":\"%s\",\"conditions\":["
        "{\"type\":\"Initialized\",\"status\":\"True\","
        "\"lastTransitionTime\":\"%s\"},"
        "{\"type\":\"Ready\",\"status\":\"%s\",\"lastTransitionTime\":\"%s\"},"
        "{\"type\":\"ContainersReady\",\"status\":\"%s\","
        "\"lastTransitionTime\":\"%s\"},"
        "{\"type\":\"PodScheduled\",\"status\":\"True\","
        "\"lastTransitionTime\":\"%s\"}],"
        "\"hostIP\":\"10.0.%u.%u\",\"podIP\":\"10.%u.%u.%u\","
        "\"startTime\":\"%s\",\"qosClass\":\"Burstable\","
        "\"containerStatuses\":[{\"name\":\"app\",\"ready\":%s,"
        "\"restartCount\":%u,\"image\":\"registry.local/app-%u:1.%u.0\","
        "\"imageID\":\"registry.local/app-%u@sha256:%08x%08x\","
        "\"containerID\":\"containerd://%08x%08x\",\"started\":%s,"
        "\"state\":{\"%s\":{%s%s%s}}}]}}",
        running ? "Running" : "Pending", start, ready, now, ready, now, start,
        (p->node >> 8) & 255, p->node & 255, 64 + (p->node >> 8) % 128,
        p->node & 255, s % 250 + 2, start, running ? "true" : "false",
        p->restarts, app, app, app, s * 2654435761u, app * 40503u,
        s * 2246822519u, p->restarts, running ? "true" : "false",
        running ? "running" : "waiting",
        running ? "\"startedAt\":\"" : "\"reason\":\"",
        running ? now : "ContainerCreating", "\"");
}

size_t churn_render(struct churn *c, uint32_t serial, int64_t written_at_ns,
                    int64_t now_s, char *buf, size_t cap)
{
    struct churn_pod *p;
    size_t len = 0;
    int n;

    rw_assert(serial < c->npods);
    p = &c->pods[serial];
    if (p->created_s < 0)
        p->created_s = now_s; /* the create's own write */
    n = churn_render_meta(c, serial, p, written_at_ns, buf, cap);
    len += (size_t)n;
    n = churn_render_spec(serial, p, len < cap ? buf + len : NULL,
                          len < cap ? cap - len : 0);
    len += (size_t)n;
    n = churn_render_status(serial, p, now_s, len < cap ? buf + len : NULL,
                            len < cap ? cap - len : 0);
    len += (size_t)n;
    return len;
}
