/*
 * ctoken_test.c: continue tokens (proto/ctoken.c): the apiserver's exact
 * encoding, round trips (keys with odd bytes, rv -1), and every refusal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "proto/ctoken.h"

/* What kube-apiserver 1.32 hands out for rv 7 after "ns/b": base64url of
 * {"v":"meta.k8s.io/v1","rv":7,"start":"ns/b\u0000"}. */
#define APISERVER_TOKEN                                                        \
    "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Nywic3RhcnQiOiJucy9iXHUwMDAwIn0"

static void test_apiserver_format(void **state)
{
    char *t = ctoken_encode(7, 0, "ns/b", 4), *key, why[128];
    int64_t rv;
    uint64_t epoch = 9;

    assert_string_equal(t, APISERVER_TOKEN);
    assert_int_equal(ctoken_decode(t, &rv, &epoch, &key, why, sizeof(why)),
                     RW_OK);
    assert_int_equal(rv, 7);
    assert_int_equal(epoch, 0);
    assert_string_equal(key, "ns/b");
    free(key);
    free(t);
}

/* After a reset of the store's history, the epoch rides along:
 * {"v":"meta.k8s.io/v1","rv":7,"start":"ns/b\u0000","rwEpoch":2}. */
static void test_epoch(void **state)
{
    char *t = ctoken_encode(7, 2, "ns/b", 4), *key, why[128];
    int64_t rv;
    uint64_t epoch;

    assert_string_equal(t, "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6Nywic3RhcnQiOiJ"
                           "ucy9iXHUwMDAwIiwicndFcG9jaCI6Mn0");
    assert_int_equal(ctoken_decode(t, &rv, &epoch, &key, why, sizeof(why)),
                     RW_OK);
    assert_int_equal(rv, 7);
    assert_int_equal(epoch, 2);
    assert_string_equal(key, "ns/b");
    free(key);
    free(t);
}

static void test_round_trips(void **state)
{
    static const char *const keys[] = {
        "a",     "ns/name", "ns/\"q\"\\", "x/y.z", "ns/caf\xc3\xa9",
        "n/..a", "ab",      "abc"};
    static const int64_t rvs[] = {-1, 1, 123456789012LL};

    for (size_t i = 0; i < RW_ARRAY_LEN(keys); i++) {
        for (size_t j = 0; j < RW_ARRAY_LEN(rvs); j++) {
            char *t = ctoken_encode(rvs[j], j, keys[i], strlen(keys[i]));
            char *key, why[128];
            int64_t rv;
            uint64_t epoch;

            assert_null(strpbrk(t, "+/="));
            assert_int_equal(
                ctoken_decode(t, &rv, &epoch, &key, why, sizeof(why)), RW_OK);
            assert_int_equal(rv, rvs[j]);
            assert_int_equal(epoch, j);
            assert_string_equal(key, keys[i]);
            free(key);
            free(t);
        }
    }
}

static void refused(const char *token, const char *why_prefix)
{
    char why[256], *key = (char *)1;
    int64_t rv;
    uint64_t epoch;

    assert_int_equal(ctoken_decode(token, &rv, &epoch, &key, why, sizeof(why)),
                     RW_EINVAL);
    assert_null(key);
    assert_memory_equal(why, why_prefix, strlen(why_prefix));
}

static void test_refusals(void **state)
{
    refused("", "continue key is not valid: not a continue token");
    refused("!!!!", "continue key is not valid: illegal base64 data at "
                    "input byte 0");
    refused("abcde", "continue key is not valid: illegal base64");
    refused("bm90IGpzb24", "continue key is not valid: not a continue token");
    /* {"v":"meta.k8s.io/v2","rv":1,"start":"a"} */
    refused("eyJ2IjoibWV0YS5rOHMuaW8vdjIiLCJydiI6MSwic3RhcnQiOiJhIn0",
            "continue key is not valid: server does not recognize this "
            "encoded version \"meta.k8s.io/v2\"");
    /* {"v":"meta.k8s.io/v1","rv":1,"start":""} */
    refused("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIifQ",
            "continue key is not valid: encoded start key empty");
    /* {"v":"meta.k8s.io/v1","rv":1,"start":"../secrets/x"} */
    refused("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLi9zZWNyZXRz"
            "L3gifQ",
            "continue key is not valid: ../secrets/x");
    /* {"v":"meta.k8s.io/v1","rv":1.5,"start":"a"} */
    refused("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MS41LCJzdGFydCI6ImEifQ",
            "continue key is not valid: bad revision");
    /* {"v":"meta.k8s.io/v1","rv":0,"start":"a"} */
    refused("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MCwic3RhcnQiOiJhIn0",
            "continue key is not valid: incorrect encoded start "
            "resourceVersion (version meta.k8s.io/v1)");
    /* {"v":"meta.k8s.io/v1","rv":1,"start":"a","rwEpoch":-1} and "1" */
    refused("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIiwicndFcG9jaC"
            "I6LTF9",
            "continue key is not valid: bad epoch");
    refused("eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhIiwicndFcG9jaC"
            "I6IjEifQ",
            "continue key is not valid: bad epoch");
}

/* Any negative revision continues on current state, as the apiserver. */
static void test_negative_rv(void **state)
{
    char *key, why[128];
    int64_t rv;
    uint64_t epoch;

    /* {"v":"meta.k8s.io/v1","rv":-5,"start":"a"} */
    assert_int_equal(
        ctoken_decode(
            "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6LTUsInN0YXJ0IjoiYSJ9", &rv,
            &epoch, &key, why, sizeof(why)),
        RW_OK);
    assert_int_equal(rv, -1);
    assert_string_equal(key, "a");
    free(key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apiserver_format),
        cmocka_unit_test(test_epoch),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_negative_rv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
