/*
 * upstream_etcd.c: the etcd upstream adapter (see upstream_etcd.h).
 *
 * Data structure: one struct upstream_etcd holds the single h2c connection
 * and one struct upstream_res per target (src/upstream.h).  A target is in
 * one of:
 *
 *   IDLE      no connection (or not started)
 *   LISTING   Range pages in flight at revision list_rev (0 until the first
 *             page fixes it); the feed's list_begin has been called
 *             (list_open) and list_end / list_abort will follow
 *   WATCHING  a Watch stream is open (established once `created` came)
 *   WAITING   a per-resource retry timer runs (failed page, watch canceled
 *             or ended while the connection stayed up)
 *
 * Protocol facts this relies on (etcd v3 API, see docs/etcd-wire.md):
 *  - All pages of one list read at one revision R, so the list is a true
 *    snapshot; the next page starts at the last key + "\0".  A page at a
 *    compacted R fails with OUT_OF_RANGE: the list is aborted and restarts.
 *  - The watch starts at R + 1 (or the feed's rv() + 1 when resuming), so no
 *    revision is skipped or delivered twice.  A start revision that was
 *    compacted yields created, then canceled with compact_revision > 0:
 *    the resource is relisted (the resource decides which watchers get
 *    410).  Other cancellations are retried after a backoff.
 *  - The header revision of a WatchResponse that carries events, and of the
 *    created response, is NOT proof of progress: etcd sends a catch-up in
 *    batches of at most 1000 revisions and stamps each batch with the
 *    store's current revision while more events are still to come.  Only an
 *    empty response that is neither created nor canceled (a progress
 *    notification, progress_notify=true) says "nothing up to
 *    header.revision is left", and only that reaches the feed's progress.
 *  - The watch asks for fragment=true; a fragmented response is applied
 *    whole, in one loop turn (src/upstream_etcd_batch.h).
 *  - WatchProgressRequest is never sent: before etcd 3.4.25 its reply may
 *    overtake events still queued (etcd issue 15220).  The version is read
 *    with Maintenance/Status at connect (src/upstream_etcd_read.h).
 *  - Every reply's header (cluster ID, member ID, revision) goes to
 *    src/upstream_history.c, marked with what etcd had shown when the
 *    request was sent: a revision that went back or another cluster ID
 *    means etcd's history was reset under the caches (restored from an
 *    older copy of its data directory, another cluster at this address).
 *    Every resource has then been reset, and is listed again here.
 *
 * Invariants: callbacks of calls and of the connection come from the event
 * loop only.  When the connection ends, the h2c layer first closes every
 * call (their callbacks see the connection is no longer open and leave the
 * cleanup to upstream_conn_close_cb), then reports the connection's end:
 * open lists are aborted, every resource goes down
 * (the feed's state false), and a reconnect is scheduled.  A call
 * that ends while the connection is going away (GOAWAY, older streams
 * still open) drops the connection at once, so no resource waits for the
 * other streams to finish.  Nothing is logged per event.
 */
#include "src/upstream_etcd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/event.h>

#include "cache/clock.h"
#include "cache/resource_type.h"
#include "cache/rw.h"
#include "proto/etcd.h"
#include "src/address.h"
#include "src/backoff.h"
#include "src/grpc_client.h"
#include "src/h2_client.h"
#include "src/log.h"
#include "src/upstream.h"
#include "src/upstream_etcd_batch.h"
#include "src/upstream_etcd_read.h"
#include "src/upstream_etcd_write.h"
#include "src/upstream_etcd_tls.h"
#include "src/upstream_history.h"
#include "src/upstream_members.h"

#define UPSTREAM_DEFAULT_PAGE 500
#define UPSTREAM_DEFAULT_BACKOFF_MIN 0.1
#define UPSTREAM_DEFAULT_BACKOFF_MAX 5.0
#define UPSTREAM_DEFAULT_DIAL 5.0
#define UPSTREAM_DEFAULT_REQUEST 60.0
#define UPSTREAM_DEFAULT_KEEPALIVE 10.0

enum upstream_res_state {
    RES_IDLE,
    RES_LISTING,
    RES_WATCHING,
    RES_WAITING,
};

struct upstream_etcd;

struct upstream_res {
    struct upstream_etcd *u;
    struct upstream_target t; /* its feed */
    char *prefix;             /* key range [prefix, end) */
    size_t prefix_len;
    char *end;
    size_t end_len;
    enum upstream_res_state state;
    /* listing */
    struct grpc_call *range_call;
    bool list_open;   /* list_begin called, end/abort pending */
    int64_t list_rev; /* R; 0 until the first page */
    char *next_key;   /* where the next page starts */
    size_t next_key_len;
    size_t page_limit; /* keys per page; halved on oversized pages */
    size_t list_items;
    double list_started;             /* monotonic seconds */
    struct upstream_mark range_mark; /* of the page in flight */
    /* watching */
    struct grpc_call *watch_call;
    bool created;  /* the watch is established */
    bool resuming; /* this watch resumes after a reconnect */
    int64_t watch_start;
    struct upstream_mark watch_mark;  /* of the stream, moved by replies */
    struct upstream_etcd_batch batch; /* the response in progress */
    int up; /* last state reported to the feed: -1 none, 0, 1 */
    /* retry */
    struct event *retry;
    unsigned retry_attempt;
    bool retry_list; /* on retry: next page (true) or watch (false) */
};

struct upstream_etcd {
    struct event_base *base;
    struct upstream_etcd_read *reads; /* the direct reads */
    char *url;                        /* the member list, as given */
    struct upstream_members members;
    size_t member;                 /* the one connected to, or tried next */
    struct upstream_etcd_tls *tls; /* NULL: cleartext */
    bool useful;                   /* the connection answered a call */
    bool ever_useful;              /* a connection answered a call once */
    struct upstream_config cfg; /* defaults filled in */
    struct upstream_res *res;
    size_t n;
    struct h2_client *conn;
    bool started;
    bool connected;      /* TCP up on conn */
    bool ever_connected; /* a connection succeeded once */
    struct upstream_history *history;
    struct event *reconnect;
    unsigned attempt; /* consecutive failed connections */
    uint64_t connects, reconnects;
    uint64_t connect_failures;
    struct backoff backoff; /* reconnects and retries */
    char last_error[192];
};

static void res_start(struct upstream_res *res, bool reconnect);
static void res_list_start(struct upstream_res *res);
static void res_range_page(struct upstream_res *res);
static void res_watch_start(struct upstream_res *res, int64_t start_rev);
static void upstream_connect(struct upstream_etcd *u);
static bool upstream_observe(struct upstream_etcd *u, struct upstream_mark *m,
                             const struct etcd_header *hdr, bool linearizable,
                             const char *what);
static void upstream_conn_lost(struct upstream_etcd *u, const char *why);

/* ==== helpers ==== */

static void upstream_timer_add(struct event *ev, double seconds)
{
    struct timeval tv = rw_timeval(seconds);

    event_add(ev, &tv);
}

/* Whether calls may be made on the connection right now. */
static bool upstream_usable(const struct upstream_etcd *u)
{
    return u->conn != NULL && u->connected && h2_client_is_open(u->conn);
}

/* A call could not be started on a connection that looks open (GOAWAY
 * received, stream ids exhausted): start over on a new connection. */
static void upstream_call_refused(struct upstream_etcd *u)
{
    if (u->conn != NULL)
        upstream_conn_lost(u, "connection refuses new streams");
}

/* A call ended.  Returns true when the connection can carry its retry.
 * When the connection has ended, its on_close comes next and restarts
 * everything: false.  When it is going away (GOAWAY) while older streams
 * live on, waiting for it would leave this resource without a watch:
 * the connection is dropped and restarted now: false. */
static bool upstream_call_ended(struct upstream_etcd *u)
{
    if (upstream_usable(u))
        return true;
    if (u->conn != NULL && u->connected && !h2_client_is_closed(u->conn))
        upstream_conn_lost(u, "server going away (GOAWAY)");
    return false;
}

/* Reports the resource's upstream state when it changes. */
static void res_set_up(struct upstream_res *res, bool up)
{
    if (res->up == (int)up)
        return;
    res->up = up;
    res->t.feed->state(res->t.ctx, up);
}

/* ==== per-resource retry ==== */

static void res_retry_cb(evutil_socket_t fd, short what, void *arg)
{
    struct upstream_res *res = arg;

    if (!upstream_usable(res->u))
        return; /* the reconnect restarts it */
    if (res->retry_list && res->list_open) {
        res->state = RES_LISTING;
        res_range_page(res);
    } else {
        res_start(res, true);
    }
}

/* Retries the current page (list_page) or the watch after a backoff. */
static void res_retry_later(struct upstream_res *res, bool list_page)
{
    double delay = backoff_delay(&res->u->backoff, res->retry_attempt++);

    res->state = RES_WAITING;
    res->retry_list = list_page;
    upstream_timer_add(res->retry, delay);
}

/* ==== listing ==== */

static void res_list_abort(struct upstream_res *res)
{
    if (res->range_call) {
        grpc_client_call_cancel(res->range_call);
        res->range_call = NULL;
    }
    if (res->list_open) {
        res->list_open = false;
        res->t.feed->list_abort(res->t.ctx);
    }
}

static void res_list_start(struct upstream_res *res)
{
    res_list_abort(res);
    res->t.feed->list_begin(res->t.ctx);
    res->list_open = true;
    res->list_rev = 0;
    res->list_items = 0;
    res->list_started = clock_mono_s();
    res->page_limit = res->u->cfg.page_size;
    free(res->next_key);
    res->next_key = xmemdup(res->prefix, res->prefix_len + 1);
    res->next_key_len = res->prefix_len;
    res->state = RES_LISTING;
    res_range_page(res);
}

/* The list at list_rev is complete: hand it over and watch from R + 1. */
static void res_list_done(struct upstream_res *res)
{
    log_debug("etcd %s: listed %s: %zu keys at revision %lld in %.3f s",
              res->u->url, res->prefix, res->list_items,
              (long long)res->list_rev, clock_mono_s() - res->list_started);
    res->list_open = false;
    res->t.feed->list_end(res->t.ctx, res->list_rev);
    res_watch_start(res, res->list_rev + 1);
}

/* One page arrived: items to the resource, then the next page or the end.
 * Returns RW_EPROTO when the response makes no sense. */
static int res_page(struct upstream_res *res, const uint8_t *msg, size_t len)
{
    struct etcd_range_response r;
    const struct etcd_kv *last;

    if (etcd_range_response_decode(&r, msg, len) != 0)
        return RW_EPROTO;
    res->u->useful = res->u->ever_useful = true; /* etcd answers */
    if (upstream_observe(res->u, &res->range_mark, &r.header, true, "Range")) {
        etcd_range_response_fini(&r); /* res lists again already */
        return RW_OK;
    }
    if (res->list_rev == 0)
        res->list_rev = r.header.revision; /* R: all pages read at it */
    for (size_t i = 0; i < r.n_kvs; i++)
        res->t.feed->list_item(res->t.ctx, r.kvs[i].key, r.kvs[i].key_len,
                               r.kvs[i].value, r.kvs[i].value_len,
                               r.kvs[i].mod_revision);
    res->list_items += r.n_kvs;
    if (res->list_rev <= 0 || (r.more && r.n_kvs == 0)) {
        etcd_range_response_fini(&r);
        return RW_EPROTO;
    }
    if (!r.more) {
        etcd_range_response_fini(&r);
        res_list_done(res);
        return RW_OK;
    }
    last = &r.kvs[r.n_kvs - 1];
    free(res->next_key);
    res->next_key = etcd_key_next(last->key, last->key_len, &res->next_key_len);
    etcd_range_response_fini(&r);
    res_range_page(res);
    return RW_OK;
}

static void res_range_cb(int status, const char *message, const uint8_t *resp,
                         size_t resp_len, void *arg)
{
    struct upstream_res *res = arg;
    struct upstream_etcd *u = res->u;

    res->range_call = NULL;
    if (!upstream_call_ended(u))
        return; /* the list is aborted by upstream_conn_lost */
    if (status == GRPC_STATUS_OK) {
        if (res_page(res, resp, resp_len) == RW_OK)
            return;
        log_warnx("etcd %s: list %s: malformed Range response", u->url,
                  res->prefix);
        res_list_abort(res);
        res_retry_later(res, false);
    } else if (status == GRPC_STATUS_OUT_OF_RANGE) {
        /* Compacted while paging: list again at a new revision. */
        log_info("etcd %s: list %s: revision %lld compacted (%s), relisting",
                 u->url, res->prefix, (long long)res->list_rev, message);
        res_list_start(res);
    } else if (status == GRPC_STATUS_RESOURCE_EXHAUSTED &&
               res->page_limit > 1) {
        res->page_limit /= 2;
        log_info("etcd %s: list %s: page too large, %zu keys per page now",
                 u->url, res->prefix, res->page_limit);
        res_range_page(res);
    } else {
        log_warnx("etcd %s: list %s: Range failed: %s: %s", u->url, res->prefix,
                  grpc_status_name(status), message);
        res_retry_later(res, true);
    }
}

static void res_range_page(struct upstream_res *res)
{
    struct upstream_etcd *u = res->u;
    struct etcd_range_request req = {
        .key = res->next_key,
        .key_len = res->next_key_len,
        .range_end = res->end,
        .range_end_len = res->end_len,
        .limit = (int64_t)res->page_limit,
        .revision = res->list_rev,
    };
    struct rbuf *b = etcd_range_request_encode(&req);

    res->range_mark = upstream_history_mark(u->history);
    res->range_call =
        grpc_client_unary(u->conn, ETCD_PATH_RANGE, b->data, b->len,
                          u->cfg.request_timeout, res_range_cb, res);
    rbuf_unref(b);
    if (res->range_call == NULL)
        upstream_call_refused(u);
}

/* ==== watching ==== */

static void res_watch_stop(struct upstream_res *res)
{
    upstream_etcd_batch_drop(&res->batch);
    if (res->watch_call) {
        grpc_client_call_cancel(res->watch_call);
        res->watch_call = NULL;
    }
    res->created = false;
    res_set_up(res, false);
}

/* A canceled watch: relist if its start was compacted, else retry. */
static void res_watch_canceled(struct upstream_res *res,
                               const struct etcd_watch_response *w)
{
    struct upstream_etcd *u = res->u;

    res_watch_stop(res);
    if (w->compact_revision > 0) {
        log_info("etcd %s: watch %s from revision %lld: compacted at %lld, "
                 "relisting",
                 u->url, res->prefix, (long long)res->watch_start,
                 (long long)w->compact_revision);
        res_list_start(res);
        return;
    }
    log_warnx("etcd %s: watch %s canceled: %s", u->url, res->prefix,
              w->cancel_reason[0] ? w->cancel_reason : "no reason given");
    res_retry_later(res, false);
}

static void res_watch_created(struct upstream_res *res)
{
    /* header.revision of the created response is the store's current
     * revision, not progress of this watch: ignored on purpose. */
    res->created = true;
    res->retry_attempt = 0;
    res->u->attempt = 0; /* the connection does useful work */
    res->u->useful = res->u->ever_useful = true;
    if (res->resuming) {
        res->resuming = false;
        res->t.feed->reconnect(res->t.ctx);
    }
    res_set_up(res, true);
}

static void res_watch_message_cb(const uint8_t *msg, size_t len, void *arg)
{
    struct upstream_res *res = arg;
    struct etcd_watch_response w;

    if (etcd_watch_response_decode(&w, msg, len) != 0) {
        log_warnx("etcd %s: watch %s: malformed WatchResponse", res->u->url,
                  res->prefix);
        res_watch_stop(res);
        res_retry_later(res, false);
        return;
    }
    if (upstream_observe(res->u, &res->watch_mark, &w.header, false, "Watch")) {
        etcd_watch_response_fini(&w); /* res lists again already */
        return;
    }
    if (w.canceled) {
        res_watch_canceled(res, &w);
    } else if (w.created) {
        res_watch_created(res);
    } else if (w.fragment) {
        if (upstream_etcd_batch_hold(&res->batch, msg, len) != RW_OK) {
            log_warnx("etcd %s: watch %s: fragmented response over %u bytes",
                      res->u->url, res->prefix, UPSTREAM_ETCD_BATCH_MAX_BYTES);
            res_watch_stop(res);
            res_retry_later(res, false);
        }
    } else if (w.n_events > 0 || res->batch.n > 0) {
        upstream_etcd_batch_deliver(&res->batch, &w, &res->t);
    } else if (res->created && !w.fragment) {
        /* Progress notification: nothing left up to header.revision. */
        res->t.feed->progress(res->t.ctx, w.header.revision);
        res->t.feed->flush(res->t.ctx);
    }
    etcd_watch_response_fini(&w);
}

static void res_watch_close_cb(int status, const char *message, void *arg)
{
    struct upstream_res *res = arg;
    struct upstream_etcd *u = res->u;

    res->watch_call = NULL;
    if (!upstream_call_ended(u))
        return; /* connection lost: upstream_conn_lost handles it */
    log_warnx("etcd %s: watch %s ended: %s: %s", u->url, res->prefix,
              grpc_status_name(status), message);
    res_watch_stop(res);
    res_retry_later(res, false);
}

static void res_watch_start(struct upstream_res *res, int64_t start_rev)
{
    struct upstream_etcd *u = res->u;
    struct etcd_watch_create req = {
        .key = res->prefix,
        .key_len = res->prefix_len,
        .range_end = res->end,
        .range_end_len = res->end_len,
        .start_revision = start_rev,
        .progress_notify = true,
        .prev_kv = true,
        .fragment = true, /* bound responses by etcd's max request size */
    };
    struct rbuf *b;

    res->state = RES_WATCHING;
    res->created = false;
    res->watch_start = start_rev;
    res->watch_mark = upstream_history_mark(u->history);
    res->watch_call =
        grpc_client_call_start(u->conn, ETCD_PATH_WATCH, res_watch_message_cb,
                               res_watch_close_cb, res);
    if (res->watch_call == NULL) {
        upstream_call_refused(u);
        return;
    }
    b = etcd_watch_create_encode(&req);
    grpc_client_call_send(res->watch_call, b->data, b->len);
    rbuf_unref(b);
}

/* (Re)starts a resource: resume its watch after the revision the cache
 * reflects, or list when it has no complete list yet.  reconnect: the
 * resumed watch replaces one that was lost (counted when established). */
static void res_start(struct upstream_res *res, bool reconnect)
{
    int64_t rv = res->t.feed->rv(res->t.ctx);

    if (rv > 0) {
        res->resuming = reconnect;
        res_watch_start(res, rv + 1);
    } else {
        res_list_start(res);
    }
}

/* The connection is gone: abort lists, stop watches, go idle. */
static void res_reset(struct upstream_res *res)
{
    event_del(res->retry);
    res_list_abort(res);
    res_watch_stop(res);
    res->state = RES_IDLE;
    res->retry_attempt = 0;
}

/* ==== the store's history ==== */

/* The store's history was reset (every target has been reset): drops
 * every list and watch of the old history and lists every target again. */
static void upstream_relist_all(void *arg)
{
    struct upstream_etcd *u = arg;

    for (size_t i = 0; i < u->n; i++) {
        res_reset(&u->res[i]);
        res_start(&u->res[i], false);
    }
}

/* Passes a reply's header to the history (upstream_history.h).  When it
 * shows the history was reset, lists every target again and returns
 * true. */
static bool upstream_observe(struct upstream_etcd *u, struct upstream_mark *m,
                             const struct etcd_header *hdr, bool linearizable,
                             const char *what)
{
    if (!upstream_history_observe(u->history, m, hdr->cluster_id,
                                  hdr->member_id, hdr->revision, linearizable,
                                  what))
        return false;
    upstream_relist_all(u);
    return true;
}

/* ==== connection ==== */

static void upstream_conn_connect_cb(struct h2_client *c, void *arg)
{
    struct upstream_etcd *u = arg;

    u->connected = true;
    upstream_etcd_read_set_conn(u->reads, c);
    u->connects++;
    if (u->ever_connected) {
        u->reconnects++;
        log_info("etcd %s: reconnected", u->members.m[u->member].url);
    } else {
        log_info("etcd %s: connected", u->members.m[u->member].url);
    }
    u->ever_connected = true;
    for (size_t i = 0; i < u->n && u->conn == c; i++)
        res_start(&u->res[i], u->reconnects > 0);
}

static void upstream_reconnect_cb(evutil_socket_t fd, short what, void *arg)
{
    upstream_connect(arg);
}

/* Drops the connection (if any) and schedules the next attempt, on the
 * next member. */
static void upstream_conn_lost(struct upstream_etcd *u, const char *why)
{
    bool was_connected = u->connected;
    const char *url = u->members.m[u->member].url;
    double delay;

    snprintf(u->last_error, sizeof(u->last_error), "%s", why);
    u->useful = false;
    u->connected = false;
    for (size_t i = 0; i < u->n; i++)
        res_reset(&u->res[i]);
    upstream_etcd_read_set_conn(u->reads, NULL);
    h2_client_free(u->conn); /* deferred when inside its callbacks */
    u->conn = NULL;
    if (!was_connected)
        u->connect_failures++;
    delay = backoff_delay(&u->backoff, u->attempt++);
    if (was_connected || u->attempt == 1)
        log_warnx("etcd %s: %s: %s; retrying in %.2f s", url,
                  was_connected ? "connection lost" : "cannot connect", why,
                  delay);
    else
        log_debug("etcd %s: cannot connect (attempt %u): %s; retrying in "
                  "%.2f s",
                  url, u->attempt, why, delay);
    u->member = (u->member + 1) % u->members.n;
    upstream_timer_add(u->reconnect, delay);
}

static void upstream_conn_close_cb(struct h2_client *c, int err, void *arg)
{
    struct upstream_etcd *u = arg;
    char why[256];

    if (c != u->conn)
        return;
    if (u->tls != NULL &&
        upstream_etcd_tls_failed(u->tls, u->member, u->members.m[u->member].url,
                                 !u->ever_useful, u->connected && !u->useful)) {
        snprintf(why, sizeof(why), "TLS handshake: %s",
                 upstream_etcd_tls_error(u->tls));
        if (!u->ever_useful && upstream_etcd_tls_hopeless(u->tls) &&
            u->cfg.fatal != NULL) {
            u->connect_failures++;
            u->cfg.fatal(why, u->cfg.fatal_arg); /* frees u later */
            return;
        }
        u->connected = false; /* a failed attempt, not a lost connection */
        upstream_conn_lost(u, why);
        return;
    }
    upstream_conn_lost(u, h2_client_last_error(c)[0] ? h2_client_last_error(c)
                                                     : rw_strerror(err));
}

static void upstream_connect(struct upstream_etcd *u)
{
    static const struct h2_client_callbacks cbs = {
        .on_connect = upstream_conn_connect_cb,
        .on_close = upstream_conn_close_cb,
    };
    struct h2_client_config hc = {
        .connect_timeout = u->cfg.dial_timeout,
        .ping_interval = u->cfg.keepalive > 0 ? u->cfg.keepalive : 0,
    };
    const struct upstream_member *m = &u->members.m[u->member];

    rw_assert(u->conn == NULL);
    if (u->tls != NULL)
        upstream_etcd_tls_configure(u->tls, u->member, &hc);
    u->connected = false;
    u->useful = false;
    u->conn = h2_client_new(u->base, m->host, m->port, &hc, &cbs, u);
}

/* ==== construction ==== */

static void upstream_config_defaults(struct upstream_config *cfg)
{
    if (cfg->page_size == 0)
        cfg->page_size = UPSTREAM_DEFAULT_PAGE;
    if (cfg->backoff_min <= 0)
        cfg->backoff_min = UPSTREAM_DEFAULT_BACKOFF_MIN;
    if (cfg->backoff_max <= 0)
        cfg->backoff_max = UPSTREAM_DEFAULT_BACKOFF_MAX;
    if (cfg->dial_timeout <= 0)
        cfg->dial_timeout = UPSTREAM_DEFAULT_DIAL;
    if (cfg->request_timeout <= 0)
        cfg->request_timeout = UPSTREAM_DEFAULT_REQUEST;
    if (cfg->keepalive == 0)
        cfg->keepalive = UPSTREAM_DEFAULT_KEEPALIVE;
}

static void upstream_res_init(struct upstream_etcd *u, struct upstream_res *res,
                              const struct upstream_target *t)
{
    res->u = u;
    res->t = *t;
    /* etcd's keys are the cache's (resource_type.h's layout). */
    res->prefix = resource_type_ns_prefix(t->rt, NULL);
    res->prefix_len = strlen(res->prefix);
    res->end = etcd_prefix_end(res->prefix, res->prefix_len, &res->end_len);
    res->state = RES_IDLE;
    res->up = -1;
    res->retry = evtimer_new(u->base, res_retry_cb, res);
}

/* The URLs this adapter takes: a member list (upstream_members.h) of
 * http:// or https:// URLs. */
static int etcd_check(const char *url, char *why, size_t why_len)
{
    struct upstream_members ms;

    if (upstream_members_parse(url, &ms, why, why_len) != RW_OK)
        return RW_EINVAL;
    upstream_members_fini(&ms);
    return RW_OK;
}

static struct upstream *etcd_create(struct event_base *base, const char *url,
                                    const struct upstream_target *targets,
                                    size_t n, const struct upstream_config *cfg)
{
    struct upstream_etcd *u;
    char *name, why[256];

    u = xcalloc(1, sizeof(*u));
    if (upstream_members_parse(url, &u->members, why, sizeof(why)) != RW_OK) {
        log_warnx("etcd upstream: \"%s\": %s", url, why);
        free(u);
        return NULL;
    }
    u->base = base;
    u->url = xstrdup(url);
    if (cfg != NULL)
        u->cfg = *cfg;
    upstream_config_defaults(&u->cfg);
    if (u->members.tls &&
        (u->tls = upstream_etcd_tls_new(&u->members, &u->cfg, why,
                                        sizeof(why))) == NULL) {
        log_warnx("etcd upstream: \"%s\": %s", url, why);
        upstream_members_fini(&u->members);
        free(u->url);
        free(u);
        return NULL;
    }
    backoff_init(&u->backoff, u->cfg.backoff_min, u->cfg.backoff_max);
    u->reconnect = evtimer_new(base, upstream_reconnect_cb, u);
    name = xasprintf("etcd %s", url);
    u->history = upstream_history_new(name, targets, n);
    u->reads = upstream_etcd_read_new(name, u->history, u->cfg.request_timeout,
                                      upstream_relist_all, u);
    upstream_etcd_write_install(u->reads);
    free(name);
    u->n = n;
    u->res = xcalloc(n ? n : 1, sizeof(*u->res));
    for (size_t i = 0; i < n; i++)
        upstream_res_init(u, &u->res[i], &targets[i]);
    for (size_t i = 0; i < n; i++)
        targets[i].feed->set_reader(targets[i].ctx,
                                    upstream_etcd_read_reader(u->reads));
    return (struct upstream *)u;
}

static int etcd_start(struct upstream *up)
{
    struct upstream_etcd *u = (struct upstream_etcd *)up;

    if (u->started)
        return RW_OK;
    u->started = true;
    upstream_connect(u);
    return RW_OK;
}

static void etcd_free(struct upstream *up)
{
    struct upstream_etcd *u = (struct upstream_etcd *)up;

    if (u == NULL)
        return;
    for (size_t i = 0; i < u->n; i++) {
        struct upstream_res *res = &u->res[i];

        res->t.feed->set_reader(res->t.ctx, NULL);
        res_list_abort(res);
        if (res->watch_call)
            grpc_client_call_cancel(res->watch_call);
        event_free(res->retry);
        upstream_etcd_batch_drop(&res->batch);
        free(res->prefix);
        free(res->end);
        free(res->next_key);
    }
    upstream_etcd_read_free(u->reads);
    h2_client_free(u->conn);
    upstream_history_free(u->history);
    event_free(u->reconnect);
    upstream_etcd_tls_free(u->tls);
    upstream_members_fini(&u->members);
    free(u->res);
    free(u->url);
    free(u);
}

static void etcd_status(const struct upstream *up, struct upstream_status *st)
{
    const struct upstream_etcd *u = (const struct upstream_etcd *)up;

    memset(st, 0, sizeof(*st));
    st->store = upstream_etcd_ops.store;
    st->connected = upstream_usable(u);
    st->version = upstream_etcd_read_version(u->reads);
    st->connects = u->connects;
    st->reconnects = u->reconnects;
    st->connect_failures = u->connect_failures;
    st->resources = u->n;
    st->last_error = u->last_error;
    st->tls_error = st->connected ? "" : upstream_etcd_tls_error(u->tls);
    for (size_t i = 0; i < u->n; i++)
        if (u->res[i].created)
            st->watching++;
}

static const char *const etcd_schemes[] = {"http", "https", NULL};

const struct upstream_ops upstream_etcd_ops = {
    .store = "etcd",
    .schemes = etcd_schemes,
    .check = etcd_check,
    .create = etcd_create,
    .start = etcd_start,
    .free = etcd_free,
    .status = etcd_status,
};
