/*
 * h2_guard.c: an HTTP/2 client's stream errors kept to their stream (see
 * h2_guard.h for what nghttp2 does by itself and what this adds).
 *
 * No state of its own: the refusal count lives in the connection, and a
 * refused stream is marked by pointing its nghttp2 user data at a
 * private byte, so that no allocation is made for a stream the client
 * was not allowed to open.
 */
#include "src/h2_guard.h"

#include <string.h>

#include "src/log.h"

#define FRAME_HEAD_LEN 9
#define SETTINGS_ENTRY_LEN 6

static const char refused_marker;

bool h2_guard_settings(const uint8_t *frame, size_t len, uint32_t max,
                       uint8_t out[H2_GUARD_SETTINGS_MAX])
{
    if (len < FRAME_HEAD_LEN || len > H2_GUARD_SETTINGS_MAX ||
        frame[3] != NGHTTP2_SETTINGS || (frame[4] & NGHTTP2_FLAG_ACK))
        return false;
    memcpy(out, frame, len);
    for (size_t at = FRAME_HEAD_LEN; at + SETTINGS_ENTRY_LEN <= len;
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

int h2_guard_refuse(nghttp2_session *session, int32_t id, uint32_t *refusing)
{
    if (*refusing >= H2_GUARD_REFUSING_MAX) {
        log_debug("h2_guard: %u streams refused and not yet told: "
                  "GOAWAY ENHANCE_YOUR_CALM",
                  *refusing);
        return nghttp2_session_terminate_session(session,
                                                 NGHTTP2_ENHANCE_YOUR_CALM);
    }
    log_debug("h2_guard: stream %d beyond SETTINGS_MAX_CONCURRENT_STREAMS: "
              "REFUSED_STREAM",
              id);
    (*refusing)++;
    nghttp2_session_set_stream_user_data(session, id, (void *)&refused_marker);
    return nghttp2_submit_rst_stream(session, NGHTTP2_FLAG_NONE, id,
                                     NGHTTP2_REFUSED_STREAM);
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
