/*
 * h2_guard_test.c: what h2_guard_inspect reads and rewrites of a client
 * frame (src/h2_guard.c), on a real nghttp2 server session.  The guard
 * is shown only the first h2_guard_need bytes of a frame: a HEADERS
 * frame that opens a stream depending on itself has its dependency
 * cleared and its stream noted for refusal, and one whose payload is too
 * short for the padding and priority fields its flags announce (a frame
 * size error that nghttp2 ends the connection for) is left alone: the
 * guard reads and writes nothing beyond the bytes it asked for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "src/h2_guard.h"

#define HEAD 9

static nghttp2_session *session_new(void)
{
    nghttp2_session_callbacks *cbs;
    nghttp2_session *s;

    assert_int_equal(nghttp2_session_callbacks_new(&cbs), 0);
    assert_int_equal(nghttp2_session_server_new(&s, cbs, NULL), 0);
    nghttp2_session_callbacks_del(cbs);
    return s;
}

/* A HEADERS frame on stream 1 with flags and len bytes of payload (when
 * not NULL) in a buffer of size (>= 9 + len) bytes, the rest 0xee. */
static uint8_t *headers_frame(uint8_t flags, const uint8_t *payload, size_t len,
                              size_t size)
{
    uint8_t *f = malloc(size);

    assert_non_null(f);
    memset(f, 0xee, size);
    f[0] = 0;
    f[1] = 0;
    f[2] = (uint8_t)len;
    f[3] = NGHTTP2_HEADERS;
    f[4] = flags;
    memcpy(f + 5, "\0\0\0\1", 4);
    if (payload != NULL)
        memcpy(f + HEAD, payload, len);
    return f;
}

static void self_dependency_refused(void **state)
{
    /* E=0, stream dependency 1 (itself), weight 16 */
    static const uint8_t prio[] = {0, 0, 0, 1, 15};
    nghttp2_session *s = session_new();
    uint8_t flags = NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_PRIORITY;
    uint8_t *f = headers_frame(flags, prio, sizeof(prio), HEAD + sizeof(prio));
    struct h2_guard g = {0};

    assert_int_equal(h2_guard_need(f), HEAD + sizeof(prio));
    assert_int_equal(h2_guard_inspect(&g, s, f), 0);
    assert_int_equal(g.refuse_id, 1);
    assert_memory_equal(f + HEAD, "\0\0\0\0", 4); /* dependency cleared */
    assert_int_equal(f[HEAD + 4], 15);
    free(f);
    nghttp2_session_del(s);
}

/* The payload is shorter than its priority fields (len 2 of 5, or 5 of
 * 6 with padding): the guard has 9 + len bytes and must stay in them,
 * even when what follows them would read as a dependency on itself. */
static void short_priority_untouched(void **state)
{
    static const struct {
        uint8_t flags;
        size_t len;
    } cases[] = {
        {NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_PRIORITY, 2},
        {NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_PRIORITY, 0},
        {NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_PRIORITY | NGHTTP2_FLAG_PADDED,
         5},
    };
    /* bytes that would read as "depends on stream 1" where the
     * dependency would be if the frame were long enough */
    static const uint8_t bytes[] = {0, 0, 0, 1, 0, 0, 0, 1, 16};

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        nghttp2_session *s = session_new();
        size_t len = cases[i].len, size = HEAD + 16;
        uint8_t *f = headers_frame(cases[i].flags, NULL, 0, size);
        uint8_t before[HEAD + 16];
        struct h2_guard g = {0};

        f[2] = (uint8_t)len;
        memcpy(f + HEAD, bytes, sizeof(bytes));
        memcpy(before, f, size);
        assert_int_equal(h2_guard_need(f), HEAD + len);
        assert_int_equal(h2_guard_inspect(&g, s, f), 0);
        assert_int_equal(g.refuse_id, 0);
        assert_memory_equal(f, before, size);
        free(f);
        nghttp2_session_del(s);
    }
}

/* The same in a buffer of exactly h2_guard_need bytes (an out-of-bounds
 * read shows under AddressSanitizer). */
static void short_priority_exact_buffer(void **state)
{
    static const uint8_t two[] = {0, 0};
    nghttp2_session *s = session_new();
    uint8_t flags = NGHTTP2_FLAG_END_HEADERS | NGHTTP2_FLAG_PRIORITY;
    uint8_t *f = headers_frame(flags, two, sizeof(two), HEAD + sizeof(two));
    struct h2_guard g = {0};

    assert_int_equal(h2_guard_need(f), HEAD + sizeof(two));
    assert_int_equal(h2_guard_inspect(&g, s, f), 0);
    assert_int_equal(g.refuse_id, 0);
    free(f);
    nghttp2_session_del(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(self_dependency_refused),
        cmocka_unit_test(short_priority_untouched),
        cmocka_unit_test(short_priority_exact_buffer),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
