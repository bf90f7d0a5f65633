/*
 * upstream_registry_test.c: the adapters' table (src/upstream_registry.c)
 * and the choice by scheme: every adapter complete, each scheme served by
 * one adapter, etcd for http:// and https:// (member lists too), Redis
 * for redis:// (seed lists too), an
 * unknown scheme or none refused naming every scheme known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "src/upstream.h"
#include "src/upstream_etcd.h"
#include "src/upstream_redis.h"
#include "src/upstream_registry.h"

static void test_table(void **state)
{
    size_t n;
    const struct upstream_ops *const *all = upstream_registry_all(&n);

    assert_true(n >= 1);
    for (size_t i = 0; i < n; i++) {
        const struct upstream_ops *ops = all[i];

        assert_non_null(ops->store);
        assert_non_null(ops->schemes);
        assert_non_null(ops->schemes[0]);
        assert_non_null(ops->check);
        assert_non_null(ops->create);
        assert_non_null(ops->start);
        assert_non_null(ops->free);
        assert_non_null(ops->status);
        for (size_t j = 0; j < n; j++)
            for (const char *const *a = ops->schemes; j != i && *a; a++)
                for (const char *const *b = all[j]->schemes; *b; b++)
                    assert_true(strcmp(*a, *b) != 0);
    }
}

static void test_find(void **state)
{
    char why[256];

    assert_ptr_equal(
        upstream_registry_find("http://127.0.0.1:2379", why, sizeof(why)),
        &upstream_etcd_ops);
    assert_ptr_equal(
        upstream_registry_find("https://127.0.0.1:2379", why, sizeof(why)),
        &upstream_etcd_ops);
    assert_ptr_equal(upstream_registry_find("https://10.0.0.1:2379, "
                                            "https://10.0.0.2:2379",
                                            why, sizeof(why)),
                     &upstream_etcd_ops);
    assert_null(upstream_registry_find("https://10.0.0.1:2379,http://x:1", why,
                                       sizeof(why)));
    assert_non_null(strstr(why, "expected one scheme for every member"));
    assert_ptr_equal(
        upstream_registry_find("redis://127.0.0.1:6379", why, sizeof(why)),
        &upstream_redis_ops);
    assert_ptr_equal(
        upstream_registry_find("redis://a:1,redis://b", why, sizeof(why)),
        &upstream_redis_ops);
    assert_null(
        upstream_registry_find("rediss://127.0.0.1:6379", why, sizeof(why)));
    assert_string_equal(why, "unknown scheme \"rediss\": expected http:// or "
                             "https:// (etcd), redis:// (redis)");
    assert_null(upstream_registry_find("127.0.0.1:2379", why, sizeof(why)));
    assert_string_equal(why, "expected a URL SCHEME://HOST:PORT with SCHEME "
                             "one of http:// or https:// (etcd), redis:// "
                             "(redis)");
    assert_null(upstream_registry_find("http://127.0.0.1", why, sizeof(why)));
    assert_non_null(strstr(why, "expected http://HOST:PORT"));
    /* Schemes are case-insensitive (RFC 3986 section 3.1). */
    assert_ptr_equal(
        upstream_registry_find("HTTP://127.0.0.1:2379", why, sizeof(why)),
        &upstream_etcd_ops);
    assert_ptr_equal(
        upstream_registry_find("HTTPS://127.0.0.1:2379", why, sizeof(why)),
        &upstream_etcd_ops);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_find),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
