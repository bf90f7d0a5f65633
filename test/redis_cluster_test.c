/*
 * redis_cluster_test.c: Redis Cluster's routing (src/redis_cluster.h):
 * the spec's CRC16 test vector, hash slots with and without hash tags
 * (the values redis-cli CLUSTER KEYSLOT gives), CLUSTER SLOTS answers as
 * Redis 7 sends them (and malformed ones), MOVED and ASK.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "src/redis_client.h"
#include "src/redis_cluster.h"

static void test_crc16(void **state)
{
    (void)state;
    /* The spec's test vector (CRC16-XMODEM). */
    assert_int_equal(redis_cluster_crc16("123456789", 9), 0x31C3);
    assert_int_equal(redis_cluster_crc16("", 0), 0);
}

static unsigned slot(const char *key)
{
    return redis_cluster_key_slot(key, strlen(key));
}

static void test_key_slot(void **state)
{
    (void)state;
    /* redis-cli CLUSTER KEYSLOT on Redis 7.0. */
    assert_int_equal(slot("foo"), 12182);
    assert_int_equal(slot("123456789"), 0x31C3 % 16384);
    /* The hash tag: only the part between the first { and the next }. */
    assert_int_equal(slot("{rw}:pods:log"), slot("rw"));
    assert_int_equal(slot("{rw}:rev"), slot("{rw}:deployments.apps:objects"));
    assert_int_equal(slot("{rw:pods}:rev"), slot("rw:pods"));
    assert_int_equal(slot("{user1000}.following"), slot("user1000"));
    assert_int_equal(slot("foo{}{bar}"), slot("foo{}{bar}")); /* whole key */
    assert_int_not_equal(slot("foo{}{bar}"), slot("bar"));
    assert_int_equal(slot("foo{{bar}}zap"), slot("{bar"));
    assert_int_equal(slot("foo{bar}{zap}"), slot("bar"));
    assert_int_equal(slot("no{tag"), redis_cluster_crc16("no{tag", 6) % 16384);
}

static struct redis_client_reply s(const char *str)
{
    return (struct redis_client_reply){
        .type = REDIS_CLIENT_STRING, .str = str, .len = strlen(str)};
}

static struct redis_client_reply i(long long v)
{
    return (struct redis_client_reply){.type = REDIS_CLIENT_INTEGER,
                                       .integer = v};
}

static struct redis_client_reply a(const struct redis_client_reply *e,
                                   size_t n)
{
    return (struct redis_client_reply){
        .type = REDIS_CLIENT_ARRAY, .elem = e, .n = n};
}

static void test_map(void **state)
{
    char why[160];
    const char *host;
    uint16_t port;
    (void)state;

    /* Three masters, one replica each; the third master's endpoint
     * unknown (""): the node asked. */
    struct redis_client_reply m0[] = {s("127.0.0.1"), i(7000), s("id0"),
                                      a(NULL, 0)},
                              r0[] = {s("127.0.0.1"), i(7003), s("id3")},
                              m1[] = {s("127.0.0.1"), i(7001), s("id1")},
                              m2[] = {s(""), i(7002), s("id2")};
    struct redis_client_reply e0[] = {i(0), i(5460), a(m0, 4), a(r0, 3)},
                              e1[] = {i(5461), i(10922), a(m1, 3)},
                              e2[] = {i(10923), i(16383), a(m2, 3)};
    struct redis_client_reply ranges[] = {a(e0, 4), a(e1, 3), a(e2, 3)};
    struct redis_client_reply all = a(ranges, 3);
    struct redis_cluster_map *map =
        redis_cluster_map_parse(&all, "localhost", why, sizeof(why));

    assert_non_null(map);
    assert_int_equal(redis_cluster_map_covered(map), 16384);
    assert_true(redis_cluster_map_master(map, 0, &host, &port));
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 7000);
    assert_true(redis_cluster_map_master(map, 5461, &host, &port));
    assert_int_equal(port, 7001);
    assert_true(redis_cluster_map_master(map, 16383, &host, &port));
    assert_string_equal(host, "localhost");
    assert_int_equal(port, 7002);
    redis_cluster_map_free(map);

    /* A cluster that lost a shard: its slots have no master. */
    struct redis_client_reply two = a(ranges, 2);
    map = redis_cluster_map_parse(&two, "x", why, sizeof(why));
    assert_non_null(map);
    assert_int_equal(redis_cluster_map_covered(map), 10923);
    assert_false(redis_cluster_map_master(map, 12000, &host, &port));
    redis_cluster_map_free(map);

    /* Malformed: reversed range, slot out of range, no port, no array. */
    struct redis_client_reply bad0[] = {i(10), i(5), a(m1, 3)},
                              bad1[] = {i(0), i(16384), a(m1, 3)},
                              nop[] = {s("h")},
                              bad2[] = {i(0), i(1), a(nop, 1)},
                              bad3[] = {i(0), i(1)};
    struct redis_client_reply bads[] = {a(bad0, 3), a(bad1, 3), a(bad2, 3),
                                        a(bad3, 2), s("x")};
    for (size_t k = 0; k < 5; k++) {
        struct redis_client_reply one = a(&bads[k], 1);

        why[0] = '\0';
        assert_null(redis_cluster_map_parse(&one, "h", why, sizeof(why)));
        assert_true(strstr(why, "CLUSTER SLOTS") != NULL);
    }
    struct redis_client_reply err = {.type = REDIS_CLIENT_ERROR,
                                      .str = "ERR", .len = 3};
    assert_null(redis_cluster_map_parse(&err, "h", why, sizeof(why)));
}

static bool redirect(const char *msg, struct redis_cluster_redirect *r)
{
    return redis_cluster_redirect_parse(msg, strlen(msg), r);
}

static void test_redirect(void **state)
{
    struct redis_cluster_redirect r;
    (void)state;

    assert_true(redirect("MOVED 3999 127.0.0.1:6381", &r));
    assert_int_equal(r.kind, REDIS_CLUSTER_MOVED);
    assert_int_equal(r.slot, 3999);
    assert_string_equal(r.host, "127.0.0.1");
    assert_int_equal(r.port, 6381);
    assert_true(redirect("ASK 16383 redis-2.example:7002", &r));
    assert_int_equal(r.kind, REDIS_CLUSTER_ASK);
    assert_int_equal(r.slot, 16383);
    assert_string_equal(r.host, "redis-2.example");
    assert_int_equal(r.port, 7002);
    assert_true(redirect("MOVED 0 ::1:7000", &r)); /* bare IPv6 */
    assert_string_equal(r.host, "::1");
    assert_int_equal(r.port, 7000);
    assert_true(redirect("MOVED 12 :7001", &r)); /* unknown endpoint */
    assert_string_equal(r.host, "");
    assert_int_equal(r.port, 7001);

    const char *bad[] = {"MOVED", "MOVED 3999", "MOVED 16384 h:1",
                         "MOVED -1 h:1", "MOVED 1 h", "MOVED 1 h:", "MOVED 1 h:0",
                         "MOVED 1 h:65536", "ASK x h:1", "ERR MOVED 1 h:1",
                         "TRYAGAIN Multiple keys request during rehashing",
                         "CLUSTERDOWN The cluster is down", "MOVED 1 a b:1"};
    for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
        assert_false(redirect(bad[k], &r));

    const char *off = "ERR This instance has cluster support disabled";
    assert_true(redis_cluster_disabled(off, strlen(off)));
    assert_false(redis_cluster_disabled("ERR unknown command", 19));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc16),
        cmocka_unit_test(test_key_slot),
        cmocka_unit_test(test_map),
        cmocka_unit_test(test_redirect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
