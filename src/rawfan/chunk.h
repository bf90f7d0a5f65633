/*
 * chunk.h: the bytes ringwatch-rawfan sends, built once: an HTTP/1.1 200
 * response head with chunked transfer coding, and one Kubernetes watch
 * event line for a Pod (about 1.2 KiB, as kube-apiserver streams it over
 * HTTP/1.1: a JSON object and a newline per event) framed as one HTTP/1.1
 * chunk (RFC 9112 section 7.1).
 *
 * Every event has the same length: the only bytes that change from one
 * event to the next are its sequence number (written as the object's
 * metadata.resourceVersion, 12 zero-padded digits) and its send time
 * (annotation ringwatch.io/written-at, wall-clock unix nanoseconds, 19
 * digits), both inside one "stamp" window of at most CHUNK_STAMP_MAX bytes
 * that a receiver copies out of each record to decode it.  The stream ends
 * with the last chunk, CHUNK_END.
 */
#ifndef RAWFAN_CHUNK_H
#define RAWFAN_CHUNK_H

#include <stddef.h>
#include <stdint.h>

/* Largest stamp window, bytes. */
#define CHUNK_STAMP_MAX 128

/* The terminating zero-size chunk (RFC 9112 section 7.1). */
#define CHUNK_END "0\r\n\r\n"

struct chunk {
    char *head;       /* response status line and headers, owned */
    size_t head_len;  /* bytes */
    char *bytes;      /* one record: size line, event line, CRLF; owned */
    size_t len;       /* bytes of one record */
    size_t line_len;  /* bytes of the chunk-size line with its CRLF */
    size_t stamp_off; /* record offset of the stamp window, bytes */
    size_t stamp_len; /* bytes, <= CHUNK_STAMP_MAX */
    size_t seq_off;   /* record offset of the 12 sequence digits */
    size_t ts_off;    /* record offset of the 19 time digits */
};

/*
 * Builds the head and the event template into c.  pad_to: the wanted
 * record length in bytes (0: the built-in Pod, 1230 bytes); a larger
 * value pads the object with an annotation of at least 22 bytes
 * (ringwatch.io/pad), to exactly pad_to bytes when it is at least 22
 * above the built-in length; a smaller one is ignored.
 */
void chunk_init(struct chunk *c, size_t pad_to);

/* Frees what chunk_init allocated; c may be zeroed. */
void chunk_fini(struct chunk *c);

/* Writes seq (mod 10^12) and ns (unix nanoseconds) into record, a copy
 * of c->bytes (c->len bytes). */
void chunk_stamp(const struct chunk *c, char *record, uint64_t seq,
                 uint64_t ns);

/*
 * Decodes the c->stamp_len bytes of a record's stamp window (copied from
 * the record at c->stamp_off) into *seq and *ns.  Returns 0, or RW_EINVAL
 * when a digit is not one.
 */
int chunk_decode(const struct chunk *c, const char *stamp, uint64_t *seq,
                 uint64_t *ns);

/*
 * Checks the c->line_len bytes at line against the chunk-size line.
 * Returns 0, or RW_EINVAL when they differ.
 */
int chunk_check_line(const struct chunk *c, const char *line);

#endif
