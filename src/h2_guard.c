/*
 * h2_guard.c: an HTTP/2 client's stream errors kept to their stream (see
 * h2_guard.h for what nghttp2 does by itself and what this adds).
 *
 * State: the stream to refuse as it opens and a ring of the streams
 * reset lately (struct h2_guard, in the connection's h2_in); the refusal
 * count lives in the connection, and a refused stream is marked by
 * pointing its nghttp2 user data at a private byte, so that no
 * allocation is made for a stream the client was not allowed to open.
 */
#include "src/h2_guard.h"

#include <string.h>

#include "src/log.h"

#define SETTINGS_ENTRY_LEN 6
#define IGNORED_TYPE 0xf0 /* a type nghttp2 does not know: ignored */

static const char refused_marker;

bool h2_guard_settings(const uint8_t *frame, size_t len, uint32_t max,
                       uint8_t out[H2_GUARD_SETTINGS_MAX])
{
    if (len < H2_FRAME_HEAD_LEN || len > H2_GUARD_SETTINGS_MAX ||
        frame[3] != NGHTTP2_SETTINGS || (frame[4] & NGHTTP2_FLAG_ACK))
        return false;
    memcpy(out, frame, len);
    for (size_t at = H2_FRAME_HEAD_LEN; at + SETTINGS_ENTRY_LEN <= len;
         at += SETTINGS_ENTRY_LEN) {
        if (out[at] != 0 ||
            out[at + 1] != NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
            continue;
        out[at + 2] = (uint8_t)(max >> 24);
        out[at + 3] = (uint8_t)(max >> 16);
        out[at + 4] = (uint8_t)(max >> 8);
        out[at + 5] = (uint8_t)max;
    }
    return true;
}

int h2_guard_refuse(nghttp2_session *session, int32_t id, uint32_t error_code,
                    uint32_t *refusing)
{
    if (*refusing >= H2_GUARD_REFUSING_MAX) {
        log_debug("h2_guard: %u streams refused and not yet told: "
                  "GOAWAY ENHANCE_YOUR_CALM",
                  *refusing);
        return nghttp2_session_terminate_session(session,
                                                 NGHTTP2_ENHANCE_YOUR_CALM);
    }
    log_debug("h2_guard: stream %d refused: %s", id,
              nghttp2_http2_strerror(error_code));
    (*refusing)++;
    nghttp2_session_set_stream_user_data(session, id, (void *)&refused_marker);
    return nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id,
                                     error_code);
}

/* ---- frames nghttp2 would make connection errors ---- */

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

size_t h2_guard_need(const uint8_t *head)
{
    size_t len = h2_frame_len(head);
    size_t want = 0;

    if (head[3] == NGHTTP2_WINDOW_UPDATE)
        want = 4;
    else if (head[3] == NGHTTP2_PRIORITY)
        want = H2_PRIORITY_LEN;
    else if (head[3] == NGHTTP2_HEADERS && (head[4] & NGHTTP2_FLAG_PRIORITY))
        want = (head[4] & NGHTTP2_FLAG_PADDED ? 1 : 0) + H2_PRIORITY_LEN;
    return H2_FRAME_HEAD_LEN + (want < len ? want : len);
}

static void remember_reset(struct h2_guard *g, int32_t id)
{
    g->reset[g->reset_next] = id;
    g->reset_next = (uint8_t)((g->reset_next + 1) % H2_GUARD_RESETS);
}

void h2_guard_reset_sent(struct h2_guard *g, int32_t id)
{
    remember_reset(g, id);
}

static bool recently_reset(const struct h2_guard *g, int32_t id)
{
    for (int i = 0; i < H2_GUARD_RESETS; i++)
        if (g->reset[i] == id)
            return true;
    return false;
}

/* Closes stream id in nghttp2 at once, as a RST_STREAM from the client
 * would (fed between two of the client's frames; code is what
 * on_stream_close reports): nghttp2 forgets it (no closed streams are
 * kept), so that what follows on it is ignored, its header blocks still
 * decoded (HPACK) and its DATA still counted against the connection's
 * window.  Returns 0, or an HTTP/2 error code if nghttp2 failed. */
static uint32_t forget(nghttp2_session *session, int32_t id, uint32_t code)
{
    uint8_t rst[H2_FRAME_HEAD_LEN + 4];

    h2_frame_head(rst, 4, NGHTTP2_RST_STREAM, NGHTTP2_FLAG_NONE, id);
    rst[9] = (uint8_t)(code >> 24);
    rst[10] = (uint8_t)(code >> 16);
    rst[11] = (uint8_t)(code >> 8);
    rst[12] = (uint8_t)code;
    if (nghttp2_session_mem_recv(session, rst, sizeof(rst)) !=
        (ssize_t)sizeof(rst))
        return NGHTTP2_INTERNAL_ERROR;
    return 0;
}

/* A stream error on id, a stream nghttp2 has: closed in nghttp2 at once
 * (forget), so that nghttp2 ignores the frame and what follows on the
 * stream, remembered, and RST_STREAM with code queued (none more for a
 * refused stream, whose RST_STREAM is on its way).  As a reset nghttp2
 * is fed, each counts toward its limit on stream resets, so that a
 * client making ringwatch reset streams is held to the limit of one
 * resetting them (MadeYouReset, CVE-2025-8671).  Returns 0, or an
 * HTTP/2 error code if nghttp2 failed. */
static uint32_t stream_error(struct h2_guard *g, nghttp2_session *session,
                             int32_t id, uint32_t code, const char *why)
{
    bool refused =
        h2_guard_is_refused(nghttp2_session_get_stream_user_data(session, id));
    uint32_t rv;

    log_debug("h2_guard: stream %d: %s: %s", id, why,
              nghttp2_http2_strerror(code));
    if ((rv = forget(session, id, code)) != 0)
        return rv;
    remember_reset(g, id);
    if (!refused)
        nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id, code);
    return 0;
}

/* HEADERS on a closed client stream ringwatch has not reset lately: a
 * stream identifier used again (RFC 9113 5.1.1). */
static bool reused(const struct h2_guard *g, nghttp2_session *session,
                   int32_t id)
{
    return id <= nghttp2_session_get_last_proc_stream_id(session) &&
           nghttp2_session_find_stream(session, id) == NULL &&
           !recently_reset(g, id);
}

/* WINDOW_UPDATE of 0 on a stream (RFC 9113 6.9), PRIORITY making a
 * stream depend on itself (5.3.1): PROTOCOL_ERROR, the frame ignored.
 * Returns 0 or the code of a connection error. */
static uint32_t bad_stream_frame(struct h2_guard *g, nghttp2_session *session,
                                 uint8_t *frame, size_t len, int32_t id)
{
    const uint8_t *p = frame + H2_FRAME_HEAD_LEN;
    bool zero = frame[3] == NGHTTP2_WINDOW_UPDATE && len == 4 &&
                (get32(p) & 0x7fffffff) == 0;
    bool self = frame[3] == NGHTTP2_PRIORITY && len == H2_PRIORITY_LEN &&
                (int32_t)(get32(p) & 0x7fffffff) == id;

    if (!zero && !self)
        return 0;
    frame[3] = IGNORED_TYPE;
    if (nghttp2_session_find_stream(session, id) == NULL)
        return 0;
    return stream_error(g, session, id, NGHTTP2_PROTOCOL_ERROR,
                        zero ? "WINDOW_UPDATE of 0" : "depends on itself");
}

uint32_t h2_guard_inspect(struct h2_guard *g, nghttp2_session *session,
                          uint8_t *frame)
{
    size_t len = h2_frame_len(frame);
    int32_t id = h2_frame_stream(frame);
    uint8_t *dep;

    if (id == 0)
        return 0;
    if ((frame[3] == NGHTTP2_DATA || frame[3] == NGHTTP2_HEADERS) &&
        nghttp2_session_get_stream_remote_close(session, id) == 1)
        /* RFC 9113 5.1: half-closed (remote) */
        return stream_error(g, session, id, NGHTTP2_STREAM_CLOSED,
                            frame[3] == NGHTTP2_DATA
                                ? "DATA after END_STREAM"
                                : "HEADERS after END_STREAM");
    if (frame[3] == NGHTTP2_HEADERS && reused(g, session, id)) {
        log_debug("h2_guard: HEADERS on closed stream %d", id);
        return NGHTTP2_PROTOCOL_ERROR;
    }
    if (frame[3] == NGHTTP2_HEADERS && (frame[4] & NGHTTP2_FLAG_PRIORITY)) {
        size_t pad_field = frame[4] & NGHTTP2_FLAG_PADDED ? 1 : 0;

        /* shorter than its fields: nghttp2's FRAME_SIZE_ERROR, and the
         * caller has only the frame's bytes (h2_guard_need) */
        if (len < pad_field + H2_PRIORITY_LEN)
            return 0;
        dep = frame + H2_FRAME_HEAD_LEN + pad_field;
        if ((int32_t)(get32(dep) & 0x7fffffff) == id &&
            nghttp2_session_find_stream(session, id) == NULL) {
            memset(dep, 0, 4); /* (nghttp2 would end the connection) */
            g->refuse_id = id;
        }
        return 0;
    }
    return bad_stream_frame(g, session, frame, len, id);
}

bool h2_guard_is_refused(const void *stream_user_data)
{
    return stream_user_data == &refused_marker;
}

static int h2_guard_invalid_frame_cb(nghttp2_session *session,
                                     const nghttp2_frame *frame,
                                     int lib_error_code, void *user_data)
{
    log_debug("h2_guard: stream %d: %s", frame->hd.stream_id,
              nghttp2_strerror(lib_error_code));
    return 0;
}

void h2_guard_callbacks(nghttp2_session_callbacks *cbs)
{
    nghttp2_session_callbacks_set_on_invalid_frame_recv_callback(
        cbs, h2_guard_invalid_frame_cb);
}
