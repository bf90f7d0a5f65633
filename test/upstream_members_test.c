/*
 * upstream_members_test.c: --upstream's member lists
 * (src/upstream_members.c): one URL or several, spaces ignored, one
 * scheme for all, each member once, every bad form refused with a
 * sentence naming the member.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "src/upstream_members.h"

static void test_lists(void **state)
{
    struct upstream_members ms;
    char why[256];

    assert_int_equal(
        upstream_members_parse("http://127.0.0.1:2379", &ms, why, sizeof(why)),
        RW_OK);
    assert_int_equal(ms.n, 1);
    assert_false(ms.tls);
    assert_string_equal(ms.m[0].host, "127.0.0.1");
    assert_string_equal(ms.m[0].port, "2379");
    upstream_members_fini(&ms);

    assert_int_equal(upstream_members_parse("https://etcd-0:2379, "
                                            "https://[::1]:2379 ,HTTPS://"
                                            "10.0.0.3:2379/",
                                            &ms, why, sizeof(why)),
                     RW_OK);
    assert_int_equal(ms.n, 3);
    assert_true(ms.tls);
    assert_string_equal(ms.m[0].url, "https://etcd-0:2379");
    assert_string_equal(ms.m[0].host, "etcd-0");
    assert_string_equal(ms.m[1].url, "https://[::1]:2379");
    assert_string_equal(ms.m[1].host, "::1");
    assert_string_equal(ms.m[2].host, "10.0.0.3");
    upstream_members_fini(&ms);
}

static void test_refused(void **state)
{
    static const struct {
        const char *list, *says;
    } bad[] = {
        {"", "an empty member: expected URLs separated by commas"},
        {"http://a:1,", "an empty member"},
        {" , http://a:1", "an empty member"},
        {"127.0.0.1:2379", "expected http://HOST:PORT or https://HOST:PORT"},
        {"http://a:1,ftp://b:2",
         "member 2 \"ftp://b:2\": expected http://HOST:PORT or "
         "https://HOST:PORT"},
        {"https://a:1,http://b:2",
         "member 2 \"http://b:2\" is http but member 1 is https: expected "
         "one scheme for every member"},
        {"https://a:1,https://A:1", "member 2 \"https://A:1\" given twice"},
        {"https://a:1,https://b:0", "member 2 \"https://b:0\": port out of "
                                    "range"},
        {"https://a:1/v3", "without a path"},
    };
    struct upstream_members ms;
    char why[256];

    for (size_t i = 0; i < RW_ARRAY_LEN(bad); i++) {
        why[0] = '\0';
        if (upstream_members_parse(bad[i].list, &ms, why, sizeof(why)) !=
                RW_EINVAL ||
            strstr(why, bad[i].says) == NULL)
            fail_msg("\"%s\": got \"%s\", want \"%s\"", bad[i].list, why,
                     bad[i].says);
        assert_int_equal(ms.n, 0);
        assert_null(ms.m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists),
        cmocka_unit_test(test_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
