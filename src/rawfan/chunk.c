/*
 * chunk.c: the pre-encoded watch event and its framing (see chunk.h).
 *
 * The Pod is shaped like the ones scripts/seed-cluster stores and
 * ringwatch-fleet's writer stamps (a Deployment's replica on a node, with
 * the written-at and write-counter annotations), filled out with the
 * fields a kubelet adds to status.  Its JSON is built with the stamp
 * digits zeroed; their offsets are then found by the field names.
 */
#include "src/rawfan/chunk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"

#define SEQ_DIGITS 12
#define TS_DIGITS 19
#define SEQ_KEY "\"resourceVersion\":\""
#define TS_KEY "\"ringwatch.io/written-at\":\""

static const char chunk_head[] = "HTTP/1.1 200 OK\r\n"
                                 "Content-Type: application/json\r\n"
                                 "Cache-Control: no-cache, private\r\n"
                                 "Transfer-Encoding: chunked\r\n"
                                 "\r\n";

/* One line per JSON member group; %s is the padding annotation. */
static const char chunk_pod[] =
    "{\"type\":\"MODIFIED\",\"object\":{\"kind\":\"Pod\",\"apiVersion\":\"v1\","
    "\"metadata\":{\"name\":\"api-12-7d9f8c-4f2a1\","
    "\"namespace\":\"team-payments\","
    "\"uid\":\"6b1f2c3e-8a4d-4e0b-9c57-1d2e3f405162\","
    "\"resourceVersion\":\"000000000000\",\"annotations\":{"
    "\"ringwatch.io/written-at\":\"0000000000000000000\","
    "\"ringwatch.io/write\":\"1\"%s},"
    "\"creationTimestamp\":\"2026-11-29T10:00:00Z\","
    "\"labels\":{\"app\":\"api-12\",\"pod-template-hash\":\"7d9f8c\"},"
    "\"ownerReferences\":[{\"apiVersion\":\"apps/v1\","
    "\"kind\":\"ReplicaSet\",\"name\":\"api-12-7d9f8c\","
    "\"uid\":\"0c4e8a2f-3b71-4d95-a6e0-58f9c1b2d347\",\"controller\":true}]},"
    "\"spec\":{\"nodeName\":\"node-017\",\"restartPolicy\":\"Always\","
    "\"schedulerName\":\"default-scheduler\","
    "\"serviceAccountName\":\"default\","
    "\"containers\":[{\"name\":\"api-12\","
    "\"image\":\"registry.local/api-12:1.12\","
    "\"resources\":{\"requests\":{\"cpu\":\"100m\",\"memory\":\"128Mi\"}}}]},"
    "\"status\":{\"phase\":\"Running\","
    "\"podIP\":\"10.12.3.77\",\"startTime\":\"2026-11-29T10:00:02Z\","
    "\"conditions\":["
    "{\"type\":\"Ready\",\"status\":\"True\","
    "\"lastTransitionTime\":\"2026-11-29T10:00:09Z\"},"
    "{\"type\":\"PodScheduled\",\"status\":\"True\","
    "\"lastTransitionTime\":\"2026-11-29T10:00:01Z\"}],"
    "\"containerStatuses\":[{\"name\":\"api-12\",\"ready\":true,"
    "\"restartCount\":0,"
    "\"image\":\"registry.local/api-12:1.12\","
    "\"state\":{\"running\":{\"startedAt\":\"2026-11-29T10:00:05Z\"}}}]}"
    "}}\n";

/* Builds the event line with pad bytes of padding annotation. */
static char *chunk_line(size_t pad, size_t *len)
{
    char *padding = NULL, *line;

    if (pad > 0) {
        /* ,"ringwatch.io/pad":"xxx" is 22 bytes plus the x's. */
        size_t xs = pad > 22 ? pad - 22 : 0;

        padding = xmalloc(xs + 32);
        memcpy(padding, ",\"ringwatch.io/pad\":\"", 21);
        memset(padding + 21, 'x', xs);
        memcpy(padding + 21 + xs, "\"", 2);
    }
    line = xasprintf(chunk_pod, padding ? padding : "");
    free(padding);
    *len = strlen(line);
    return line;
}

static size_t chunk_find(const char *s, const char *key)
{
    const char *p = strstr(s, key);

    rw_assert(p != NULL);
    return (size_t)(p - s) + strlen(key);
}

/* Bytes of a record whose event line is len bytes: the hex size line,
 * the line, CRLF. */
static size_t chunk_record_len(size_t len)
{
    char sizeline[32];

    return (size_t)snprintf(sizeline, sizeof(sizeline), "%zx\r\n", len) + len +
           2;
}

void chunk_init(struct chunk *c, size_t pad_to)
{
    char sizeline[32];
    size_t len, pad = 0;
    char *line = chunk_line(0, &len);

    /* Grow the padding until the record is pad_to bytes (a longer size
     * line may take a second round; the annotation is at least 22). */
    for (int round = 0; round < 4 && pad_to > chunk_record_len(0) + len &&
                        pad_to != chunk_record_len(len);
         round++) {
        pad = (size_t)((ptrdiff_t)pad + (ptrdiff_t)pad_to -
                       (ptrdiff_t)chunk_record_len(len));
        free(line);
        line = chunk_line(pad, &len);
    }
    memset(c, 0, sizeof(*c));
    c->head = xstrdup(chunk_head);
    c->head_len = strlen(chunk_head);
    snprintf(sizeline, sizeof(sizeline), "%zx\r\n", len);
    c->line_len = strlen(sizeline);
    c->len = c->line_len + len + 2;
    c->bytes = xmalloc(c->len);
    memcpy(c->bytes, sizeline, c->line_len);
    memcpy(c->bytes + c->line_len, line, len);
    memcpy(c->bytes + c->line_len + len, "\r\n", 2);
    c->seq_off = c->line_len + chunk_find(line, SEQ_KEY);
    c->ts_off = c->line_len + chunk_find(line, TS_KEY);
    free(line);
    rw_assert(c->seq_off < c->ts_off);
    c->stamp_off = c->seq_off;
    c->stamp_len = c->ts_off + TS_DIGITS - c->seq_off;
    rw_assert(c->stamp_len <= CHUNK_STAMP_MAX);
}

void chunk_fini(struct chunk *c)
{
    free(c->head);
    free(c->bytes);
    memset(c, 0, sizeof(*c));
}

/* Writes v as exactly n decimal digits (the low ones). */
static void chunk_digits(char *dst, size_t n, uint64_t v)
{
    for (size_t i = n; i-- > 0; v /= 10)
        dst[i] = (char)('0' + v % 10);
}

void chunk_stamp(const struct chunk *c, char *record, uint64_t seq, uint64_t ns)
{
    chunk_digits(record + c->seq_off, SEQ_DIGITS, seq);
    chunk_digits(record + c->ts_off, TS_DIGITS, ns);
}

static int chunk_number(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return RW_EINVAL;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

int chunk_decode(const struct chunk *c, const char *stamp, uint64_t *seq,
                 uint64_t *ns)
{
    if (chunk_number(stamp + (c->seq_off - c->stamp_off), SEQ_DIGITS, seq) != 0)
        return RW_EINVAL;
    return chunk_number(stamp + (c->ts_off - c->stamp_off), TS_DIGITS, ns);
}

int chunk_check_line(const struct chunk *c, const char *line)
{
    return memcmp(line, c->bytes, c->line_len) == 0 ? 0 : RW_EINVAL;
}
