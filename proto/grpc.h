/*
 * grpc.h: gRPC's length-prefixed message framing over HTTP/2 DATA, without
 * sockets, plus the status codes a call ends with.
 *
 * On the wire every message is a 5-byte prefix (1 byte compressed flag,
 * 4-byte big-endian length) followed by that many bytes of protobuf
 * (gRPC's PROTOCOL-HTTP2.md, "Length-Prefixed-Message").  ringwatch never
 * negotiates compression, so a set compressed flag is a protocol error.
 *
 * The deframer is fed DATA payloads exactly as they arrive, in arbitrary
 * slices.  A message that lies whole inside one slice is handed to the
 * callback in place (no copy); only a message split across slices is
 * assembled in the deframer's own buffer.  Its memory is bounded by the
 * configured maximum message size.
 */
#ifndef GRPC_H
#define GRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cache/rbuf.h"

#define GRPC_PREFIX_LEN 5
/* Largest message length the 4-byte prefix can express. */
#define GRPC_MAX_LEN 0xffffffffu
/* The message size limit ringwatch uses on every call, bytes. */
#define GRPC_DEFAULT_MAX_MESSAGE (64u * 1024 * 1024)

/* gRPC status codes (grpc's doc/statuscodes.md), as carried by the
 * grpc-status trailer. */
enum grpc_status {
    GRPC_STATUS_OK = 0,
    GRPC_STATUS_CANCELLED = 1,
    GRPC_STATUS_UNKNOWN = 2,
    GRPC_STATUS_INVALID_ARGUMENT = 3,
    GRPC_STATUS_DEADLINE_EXCEEDED = 4,
    GRPC_STATUS_NOT_FOUND = 5,
    GRPC_STATUS_ALREADY_EXISTS = 6,
    GRPC_STATUS_PERMISSION_DENIED = 7,
    GRPC_STATUS_RESOURCE_EXHAUSTED = 8,
    GRPC_STATUS_FAILED_PRECONDITION = 9,
    GRPC_STATUS_ABORTED = 10,
    GRPC_STATUS_OUT_OF_RANGE = 11,
    GRPC_STATUS_UNIMPLEMENTED = 12,
    GRPC_STATUS_INTERNAL = 13,
    GRPC_STATUS_UNAVAILABLE = 14,
    GRPC_STATUS_DATA_LOSS = 15,
    GRPC_STATUS_UNAUTHENTICATED = 16,
};

/* The code's name as in grpc's statuscodes.md ("OUT_OF_RANGE"); "UNKNOWN"
 * for values outside 0..16.  Static storage. */
const char *grpc_status_name(int status);

/* Writes the 5-byte prefix of an uncompressed message of len bytes
 * (len <= GRPC_MAX_LEN) at out. */
void grpc_prefix_write(uint8_t out[GRPC_PREFIX_LEN], size_t len);

/* A new rbuf (refs 1) holding prefix + len bytes copied from msg.
 * len <= GRPC_MAX_LEN. */
struct rbuf *grpc_frame_encode(const void *msg, size_t len);

/* Writes prefix + msg into out, which has room for cap bytes.  Returns the
 * bytes written (len + GRPC_PREFIX_LEN), or RW_ELIMIT when cap is too
 * small (out untouched). */
long grpc_frame_encode_into(void *out, size_t cap, const void *msg, size_t len);

/* Receives one whole message of len bytes.  msg is valid only during the
 * call: it points into the slice being fed or into the deframer's buffer.
 * Return 0 to go on; any other value stops grpc_deframer_feed, which
 * returns it (the deframer then stays stopped: see below). */
typedef int (*grpc_deframer_message_cb)(const uint8_t *msg, size_t len,
                                        void *arg);

/* A streaming deframer, embedded by its owner (init/fini).  Fields are
 * private. */
struct grpc_deframer {
    size_t max_message; /* largest accepted message, bytes */
    uint8_t prefix[GRPC_PREFIX_LEN];
    size_t prefix_have; /* bytes of prefix[] received */
    size_t msg_len;     /* length of the message being assembled */
    uint8_t *buf;       /* assembly buffer for split messages */
    size_t buf_have;    /* bytes of the message in buf */
    size_t buf_cap;     /* bytes allocated at buf */
    int err;            /* sticky: 0 or the value that stopped it */
};

/* Prepares d to accept messages of at most max_message bytes (0 means
 * GRPC_DEFAULT_MAX_MESSAGE). */
void grpc_deframer_init(struct grpc_deframer *d, size_t max_message);
/* Releases d's buffer.  d may be re-initialised afterwards. */
void grpc_deframer_fini(struct grpc_deframer *d);

/* Feeds len bytes of the stream (any slice boundaries).  Calls cb once per
 * completed message, in order.  Returns 0 when every byte was consumed,
 * RW_ELIMIT when a message's declared length exceeds max_message,
 * RW_EPROTO when a compressed flag is set (or the flag byte is neither 0
 * nor 1), or the nonzero value cb returned.  After a nonzero return the
 * deframer is stopped: every later feed returns the same value at once. */
int grpc_deframer_feed(struct grpc_deframer *d, const void *data, size_t len,
                       grpc_deframer_message_cb cb, void *arg);

/* True when no partial message is pending (the stream may end here
 * cleanly, as gRPC requires at end of stream). */
bool grpc_deframer_idle(const struct grpc_deframer *d);

#endif
