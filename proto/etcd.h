/*
 * etcd.h: the etcd v3 codec: plain C requests in, protobuf bytes out;
 * protobuf bytes in, plain C views out.  The only module that knows the
 * generated protobuf-c types (proto/kv.proto, proto/rpc.proto); nothing
 * here does I/O (gRPC framing is proto/grpc.h, the calls src/grpc_client.h).
 *
 * Requests: each etcd_*_encode returns a new rbuf (refs 1) holding the
 * serialized message without gRPC prefix; the caller unrefs it.  Request
 * structs only borrow their pointers for the duration of the call.
 *
 * Responses: each etcd_*_decode unpacks one message into a caller-owned
 * struct whose pointers (keys, values, strings, arrays) all point into one
 * private arena owned by that struct: nothing is copied per field beyond
 * protobuf-c's own unpacking.  The views stay valid until the matching
 * etcd_*_fini, which frees the arena.  Byte fields are never NULL (an empty
 * field is "" with length 0); strings are NUL-terminated.
 *
 * Field numbers and meanings are etcd's public API (etcdserverpb,
 * mvccpb), v3.4 and later (identical on the wire).
 */
#ifndef ETCD_H
#define ETCD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/rbuf.h"

/* gRPC method paths of the calls ringwatch makes. */
#define ETCD_PATH_RANGE "/etcdserverpb.KV/Range"
#define ETCD_PATH_PUT "/etcdserverpb.KV/Put"
#define ETCD_PATH_DELETE_RANGE "/etcdserverpb.KV/DeleteRange"
#define ETCD_PATH_TXN "/etcdserverpb.KV/Txn"
#define ETCD_PATH_COMPACT "/etcdserverpb.KV/Compact"
#define ETCD_PATH_WATCH "/etcdserverpb.Watch/Watch"
#define ETCD_PATH_STATUS "/etcdserverpb.Maintenance/Status"

struct etcd_arena;

/* ---- shared records ---- */

/* etcdserverpb.ResponseHeader.  revision: the store's revision when the
 * response was produced. */
struct etcd_header {
    uint64_t cluster_id;
    uint64_t member_id;
    int64_t revision;
    uint64_t raft_term;
};

/* mvccpb.KeyValue (a view).  A DELETE event's kv has only key and
 * mod_revision (the revision of the delete). */
struct etcd_kv {
    const char *key;
    size_t key_len; /* bytes */
    const char *value;
    size_t value_len; /* bytes */
    int64_t create_revision;
    int64_t mod_revision;
    int64_t version; /* number of writes since creation; 0 = deleted */
    int64_t lease;
};

/* ---- requests ---- */

/* etcdserverpb.RangeRequest.  range_end_len 0: the single key; otherwise
 * [key, range_end) (etcd_prefix_end gives a prefix's end); range_end "\0"
 * means every key >= key.  Sorted by key (etcd's default). */
struct etcd_range_request {
    const char *key;
    size_t key_len;
    const char *range_end;
    size_t range_end_len;
    int64_t limit;     /* most keys returned; 0 = no limit (field 3) */
    int64_t revision;  /* read at this revision; 0 = current (field 4) */
    bool serializable; /* read from the local member (field 7) */
    bool keys_only;    /* no values (field 8) */
    bool count_only;   /* only the count (field 9) */
    int64_t min_mod_revision; /* only keys modified at or after it; 0 =
                                 any (field 10).  etcd 3.4 filters the
                                 keys returned, NOT count */
};
struct rbuf *etcd_range_request_encode(const struct etcd_range_request *req);

/* etcdserverpb.PutRequest. */
struct etcd_put_request {
    const char *key;
    size_t key_len;
    const char *value;
    size_t value_len;
    int64_t lease; /* 0 = none */
    bool prev_kv;  /* return the previous value */
};
struct rbuf *etcd_put_request_encode(const struct etcd_put_request *req);

/* etcdserverpb.DeleteRangeRequest (range as in etcd_range_request). */
struct etcd_delete_range_request {
    const char *key;
    size_t key_len;
    const char *range_end;
    size_t range_end_len;
    bool prev_kv; /* return the deleted pairs */
};
struct rbuf *
etcd_delete_range_request_encode(const struct etcd_delete_range_request *req);

/* etcdserverpb.Compare enums (field 1 result, field 2 target). */
enum etcd_compare_result {
    ETCD_COMPARE_EQUAL = 0,
    ETCD_COMPARE_GREATER = 1,
    ETCD_COMPARE_LESS = 2,
    ETCD_COMPARE_NOT_EQUAL = 3,
};
enum etcd_compare_target {
    ETCD_TARGET_VERSION = 0,
    ETCD_TARGET_CREATE = 1,
    ETCD_TARGET_MOD = 2,
    ETCD_TARGET_VALUE = 3,
    ETCD_TARGET_LEASE = 4,
};

/* One Compare: "target(key) result operand".  The operand is number for
 * VERSION, CREATE (create_revision), MOD (mod_revision) and LEASE, and
 * value for VALUE; it is always sent, even when 0 (so MOD EQUAL 0 means
 * "key absent"). */
struct etcd_compare {
    enum etcd_compare_result result;
    enum etcd_compare_target target;
    const char *key;
    size_t key_len;
    int64_t number;
    const char *value;
    size_t value_len;
    const char *range_end; /* range_end_len > 0: the compare holds for
                              every key of [key, range_end) (field 64) */
    size_t range_end_len;
};

/* RequestOp / ResponseOp kinds; the values are the oneof field numbers. */
enum etcd_op_type {
    ETCD_OP_RANGE = 1,
    ETCD_OP_PUT = 2,
    ETCD_OP_DELETE_RANGE = 3,
    ETCD_OP_TXN = 4, /* nested transaction: decoded, never encoded */
};

struct etcd_request_op {
    enum etcd_op_type type; /* RANGE, PUT or DELETE_RANGE */
    union {
        struct etcd_range_request range;
        struct etcd_put_request put;
        struct etcd_delete_range_request delete_range;
    };
};

/* etcdserverpb.TxnRequest: if every compare holds, success runs, else
 * failure.  etcd allows at most 128 ops (--max-txn-ops). */
struct etcd_txn_request {
    const struct etcd_compare *compare;
    size_t n_compare;
    const struct etcd_request_op *success;
    size_t n_success;
    const struct etcd_request_op *failure;
    size_t n_failure;
};
struct rbuf *etcd_txn_request_encode(const struct etcd_txn_request *req);

/* etcdserverpb.CompactionRequest: discard history before revision. */
struct rbuf *etcd_compaction_request_encode(int64_t revision, bool physical);

/* etcdserverpb.StatusRequest (empty). */
struct rbuf *etcd_status_request_encode(void);

/* WatchCreateRequest filters (field 5): events not to send. */
enum {
    ETCD_WATCH_FILTER_NOPUT = 1u << 0,
    ETCD_WATCH_FILTER_NODELETE = 1u << 1,
};

/* etcdserverpb.WatchCreateRequest, sent as WatchRequest field 1. */
struct etcd_watch_create {
    const char *key;
    size_t key_len;
    const char *range_end;
    size_t range_end_len;
    int64_t start_revision; /* first revision to send; 0 = current + 1 */
    bool progress_notify;   /* periodic empty responses (field 4) */
    bool prev_kv;           /* events carry the previous value (field 6) */
    bool fragment;          /* allow splitting large responses (field 8) */
    int64_t watch_id;       /* 0 = the server assigns one (field 7) */
    unsigned filters;       /* ETCD_WATCH_FILTER_* bits (field 5) */
};
struct rbuf *etcd_watch_create_encode(const struct etcd_watch_create *req);
/* WatchRequest field 2: cancel the watch watch_id. */
struct rbuf *etcd_watch_cancel_encode(int64_t watch_id);
/* WatchRequest field 3: ask for one progress response (watch_id -1).
 * Unsafe before etcd 3.4.25 (etcd issue 15220): the reply may overtake
 * events, so it proves nothing there (see etcd_version_at_least). */
struct rbuf *etcd_watch_progress_encode(void);

/* ---- responses ---- */

/* Every decoder below: unpacks len bytes at buf into *out.  Returns 0, or
 * RW_EINVAL when the bytes are not a valid message of that type (or an
 * event lacks its kv, or has an unknown type); *out is then zeroed and
 * needs no fini.  On success the caller calls the matching fini. */

struct etcd_range_response {
    struct etcd_header header;
    struct etcd_kv *kvs; /* n_kvs pairs in key order */
    size_t n_kvs;
    bool more;                /* more keys in the range than limit returned */
    int64_t count;            /* keys in the range, whatever the limit */
    struct etcd_arena *arena; /* private */
};
int etcd_range_response_decode(struct etcd_range_response *out, const void *buf,
                               size_t len);
void etcd_range_response_fini(struct etcd_range_response *r);

struct etcd_put_response {
    struct etcd_header header;
    bool has_prev_kv;
    struct etcd_kv prev_kv;   /* when has_prev_kv */
    struct etcd_arena *arena; /* private */
};
int etcd_put_response_decode(struct etcd_put_response *out, const void *buf,
                             size_t len);
void etcd_put_response_fini(struct etcd_put_response *r);

struct etcd_delete_range_response {
    struct etcd_header header;
    int64_t deleted;          /* keys deleted */
    struct etcd_kv *prev_kvs; /* when prev_kv was asked */
    size_t n_prev_kvs;
    struct etcd_arena *arena; /* private */
};
int etcd_delete_range_response_decode(struct etcd_delete_range_response *out,
                                      const void *buf, size_t len);
void etcd_delete_range_response_fini(struct etcd_delete_range_response *r);

/* One ResponseOp of a Txn, flattened. */
struct etcd_response_op {
    enum etcd_op_type type;
    int64_t revision;    /* the op's header revision */
    struct etcd_kv *kvs; /* RANGE: kvs; DELETE_RANGE: prev_kvs;
                            PUT: prev_kv (0 or 1 pair) */
    size_t n_kvs;
    bool more;      /* RANGE: more */
    int64_t count;  /* RANGE: count; DELETE_RANGE: deleted */
    bool succeeded; /* TXN: the nested transaction's outcome */
};

struct etcd_txn_response {
    struct etcd_header header;
    bool succeeded;                     /* the compares held: success ops ran */
    struct etcd_response_op *responses; /* one per op that ran */
    size_t n_responses;
    struct etcd_arena *arena; /* private */
};
int etcd_txn_response_decode(struct etcd_txn_response *out, const void *buf,
                             size_t len);
void etcd_txn_response_fini(struct etcd_txn_response *r);

struct etcd_compaction_response {
    struct etcd_header header;
    struct etcd_arena *arena; /* private */
};
int etcd_compaction_response_decode(struct etcd_compaction_response *out,
                                    const void *buf, size_t len);
void etcd_compaction_response_fini(struct etcd_compaction_response *r);

struct etcd_status_response {
    struct etcd_header header;
    const char *version;      /* the server's version, e.g. "3.4.23" */
    struct etcd_arena *arena; /* private */
};
int etcd_status_response_decode(struct etcd_status_response *out,
                                const void *buf, size_t len);
void etcd_status_response_fini(struct etcd_status_response *r);

/* mvccpb.Event.EventType */
enum etcd_event_type {
    ETCD_EVENT_PUT = 0,
    ETCD_EVENT_DELETE = 1,
};

struct etcd_event {
    enum etcd_event_type type;
    struct etcd_kv kv; /* DELETE: key and mod_revision only */
    bool has_prev_kv;  /* watch created with prev_kv and a value existed */
    struct etcd_kv prev_kv;
};

/* etcdserverpb.WatchResponse.  header.revision of a response carrying
 * events, or of the created response, is the store's current revision, not
 * proof that every event up to it was sent (etcd batches catch-up); an
 * empty response that is neither created nor canceled is a progress
 * notification. */
struct etcd_watch_response {
    struct etcd_header header;
    int64_t watch_id;
    bool created;
    bool canceled;
    bool fragment;            /* more fragments of this response follow */
    int64_t compact_revision; /* canceled because start was compacted */
    const char *cancel_reason;
    struct etcd_event *events; /* n_events, in revision order */
    size_t n_events;
    struct etcd_arena *arena; /* private */
};
int etcd_watch_response_decode(struct etcd_watch_response *out, const void *buf,
                               size_t len);
void etcd_watch_response_fini(struct etcd_watch_response *r);

/* ---- helpers ---- */

/* The range_end covering every key with this prefix, as etcd's clients
 * compute it: increment the last byte that is < 0xff and drop what
 * follows; a prefix of only 0xff bytes (or empty) gives "\0" (every key
 * >= key).  Returns a new NUL-terminated buffer (caller frees) and its
 * length in *end_len. */
char *etcd_prefix_end(const char *prefix, size_t len, size_t *end_len);

/* Where the Range page after the one that ended with key starts: the
 * smallest key above it, key + "\0" (etcd's clientv3 pagination).
 * Returns a new buffer of *next_len = len + 1 bytes, NUL-terminated after
 * them (caller frees). */
char *etcd_key_next(const char *key, size_t len, size_t *next_len);

/* Whether the dotted version string (e.g. "3.4.23") is >= major.minor.patch.
 * Unparsable strings are treated as older. */
bool etcd_version_at_least(const char *version, int major, int minor,
                           int patch);

#endif
