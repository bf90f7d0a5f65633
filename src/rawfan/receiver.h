/*
 * receiver.h: the reading half of ringwatch-rawfan, run in a child
 * process so that the sender's getrusage counts the sender alone.  It
 * opens a fixed number of loopback TCP connections to the sender, reads
 * each stream (skipping the response head, then fixed-length chunk
 * records up to the last chunk), checks every record's chunk-size line
 * and sequence number, and records the delivery latency: receipt time
 * minus the send time embedded in the record (rawfan/chunk.h).
 */
#ifndef RAWFAN_RECEIVER_H
#define RAWFAN_RECEIVER_H

#include <stdint.h>

#include <netinet/in.h>

#include "src/fleet/histogram.h"
#include "src/rawfan/chunk.h"

struct receiver_stats {
    uint64_t connected;       /* connections opened */
    uint64_t ended;           /* streams that ended with the last chunk */
    uint64_t failed;          /* connections that broke or ended early */
    uint64_t deliveries;      /* complete event records received */
    uint64_t gaps;            /* sequence numbers skipped (events lost) */
    uint64_t reordered;       /* sequence numbers not above the last one */
    uint64_t framing;         /* records whose chunk-size line or digits were
                                 wrong (the connection is then dropped) */
    uint64_t bytes;           /* bytes read */
    double cpu_s;             /* the receiver's user + system CPU, seconds */
    struct histogram latency; /* nanoseconds */
};

/*
 * Connects connections times to addr (the sender must be accepting),
 * reads until every stream has ended or deadline_s seconds have passed
 * since the call, and fills *out.  c: the same template the sender
 * stamps (borrowed).  Returns 0, or RW_EIO when a connection could not
 * be opened (*out still holds what was done).
 */
int receiver_run(const struct sockaddr_in *addr, const struct chunk *c,
                 uint64_t connections, double deadline_s,
                 struct receiver_stats *out);

#endif
