/*
 * watch_key_test.c: the dispatch index key of a watcher (src/watch_key.c)
 * for each filter, in the order of preference watch_key.h gives
 * (metadata.name, the indexed field, the namespace, none, anything else),
 * and the keys the dispatcher builds for an event's values
 * (watch_key_make) are the same bytes, so a watcher pinned to a value is
 * found under that value; a value too long for a key files the watcher
 * under '?' and is never looked up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/resource_type.h"
#include "cache/rw.h"
#include "cache/selector.h"
#include "src/watch_key.h"

static const struct resource_type *pods(void)
{
    const struct resource_type *rt = resource_type_find("pods");

    assert_non_null(rt);
    assert_true(rt->indexed_field >= 0);
    return rt;
}

static struct selector *sel(const char *labels, const char *fields)
{
    struct selector *s = NULL;
    char why[256];

    assert_int_equal(
        selector_parse(labels, fields, pods(), &s, why, sizeof(why)), RW_OK);
    return s;
}

/* The key of a pods watcher of ns and that selector, as a string. */
static void key_is(const char *labels, const char *fields, const char *ns,
                   int indexed_field, const char *want)
{
    struct selector *s = sel(labels, fields);
    char buf[WATCH_KEY_MAX];
    size_t len = watch_key_of(s, ns, indexed_field, buf);

    assert_int_equal(len, strlen(want));
    assert_memory_equal(buf, want, len);
    selector_free(s);
}

static void test_order_of_preference(void **state)
{
    int nf = pods()->indexed_field; /* spec.nodeName */

    (void)state;
    key_is(NULL, "metadata.name=p1,spec.nodeName=n1", "ns1", nf, "Np1");
    key_is(NULL, "spec.nodeName=n1", "ns1", nf, "Fn1");
    key_is(NULL, "spec.nodeName=n1", "ns1", -1, "Sns1"); /* not indexed */
    key_is("app=a", NULL, "ns1", nf, "Sns1");
    key_is(NULL, "metadata.namespace=ns2", NULL, nf, "Sns2");
    key_is(NULL, NULL, NULL, nf, "*");
    key_is("app=a", NULL, NULL, nf, "?");
    key_is(NULL, "spec.nodeName!=n1", NULL, nf, "?"); /* pins nothing */
}

static void test_make_matches_filing(void **state)
{
    char filed[WATCH_KEY_MAX], looked[WATCH_KEY_MAX];
    struct selector *s = sel(NULL, "spec.nodeName=node-7");
    size_t len = watch_key_of(s, NULL, pods()->indexed_field, filed);

    (void)state;
    assert_int_equal(watch_key_make('F', "node-7", looked), len);
    assert_memory_equal(filed, looked, len);
    assert_int_equal(watch_key_make('*', NULL, looked), 1);
    assert_int_equal(looked[0], '*');
    selector_free(s);
}

static void test_too_long(void **state)
{
    char value[WATCH_KEY_MAX + 8], buf[WATCH_KEY_MAX];

    (void)state;
    memset(value, 'a', sizeof(value) - 1);
    value[sizeof(value) - 1] = '\0';
    assert_int_equal(watch_key_make('S', value, buf), 0);
    value[WATCH_KEY_MAX - 1] = '\0'; /* still one byte too long */
    assert_int_equal(watch_key_make('S', value, buf), 0);
    value[WATCH_KEY_MAX - 2] = '\0'; /* the longest that fits */
    assert_int_equal(watch_key_make('S', value, buf), WATCH_KEY_MAX - 1);
    value[WATCH_KEY_MAX - 2] = 'a';
    value[WATCH_KEY_MAX - 1] = '\0';
    assert_int_equal(watch_key_of(NULL, value, -1, buf), 1);
    assert_int_equal(buf[0], '?');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_of_preference),
        cmocka_unit_test(test_make_matches_filing),
        cmocka_unit_test(test_too_long),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
