/*
 * grpc_fuzz.c: fuzz target for the gRPC deframer (proto/grpc.c).  The
 * first byte seeds how the rest is cut into slices (1 to 64 bytes, or all
 * at once), as DATA frames would cut a stream; every delivered message is
 * read in full.  A small size limit (4 KiB) exercises RW_ELIMIT.
 */
#include <stddef.h>
#include <stdint.h>

#include "proto/grpc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile unsigned sink;

static int message_cb(const uint8_t *msg, size_t len, void *arg)
{
    size_t *count = arg;

    for (size_t i = 0; i < len; i++)
        sink += msg[i];
    return ++*count > 1000; /* stop after many messages: returns 1 */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct grpc_deframer d;
    unsigned seed;
    size_t count = 0, off = 1;

    if (size == 0)
        return 0;
    seed = data[0];
    grpc_deframer_init(&d, 4096);
    while (off < size) {
        size_t n = seed == 0 ? size - off : 1 + (seed * 31 + off) % 64;

        if (n > size - off)
            n = size - off;
        if (grpc_deframer_feed(&d, data + off, n, message_cb, &count) != 0)
            break;
        off += n;
    }
    (void)grpc_deframer_idle(&d);
    grpc_deframer_fini(&d);
    return 0;
}
