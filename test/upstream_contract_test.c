/*
 * upstream_contract_test.c: the contract checker (test/upstream_contract.c)
 * finds every kind of breach of src/upstream.h's feed contract, and lets
 * a well-behaved sequence pass: an adapter test that counts no violation
 * means something only if a breach would have been counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "src/upstream.h"
#include "test/upstream_contract.h"

#define PUT(c, key, rev)                                                       \
    upstream_contract_feed.put((c), key, strlen(key), "v", 1, (rev))
#define DEL(c, key, rev)                                                       \
    upstream_contract_feed.del((c), key, strlen(key), (rev))
#define ITEM(c, key, rev)                                                      \
    upstream_contract_feed.list_item((c), key, strlen(key), "v", 1, (rev))

static const struct upstream_feed *feed = &upstream_contract_feed;

/* A list of /p/a@3 and /p/b@5 complete at revision 7. */
static void listed(struct upstream_contract *c)
{
    upstream_contract_init(c, "/p/");
    feed->list_begin(c);
    ITEM(c, "/p/a", 3);
    ITEM(c, "/p/b", 5);
    feed->list_end(c, 7);
}

static void test_good_sequence(void **state)
{
    struct upstream_contract c;
    struct upstream_reader rd = {0};

    listed(&c);
    feed->set_reader(&c, &rd);
    assert_int_equal(feed->rv(&c), 7);
    PUT(&c, "/p/c", 8);
    PUT(&c, "/p/d", 8); /* one transaction's keys share a revision */
    DEL(&c, "/p/a", 9);
    feed->flush(&c);
    upstream_contract_turn(&c);
    feed->progress(&c, 12);
    feed->flush(&c);
    assert_int_equal(c.n_model, 3); /* b, c, d */
    feed->state(&c, true);
    feed->reconnect(&c);
    feed->list_begin(&c); /* a relist */
    ITEM(&c, "/p/b", 5);
    feed->list_abort(&c);
    feed->history_reset(&c, UPSTREAM_RESET_REVISION, 12, 4);
    assert_int_equal(feed->rv(&c), 0);
    feed->set_reader(&c, NULL);
    upstream_contract_freed(&c);
    assert_int_equal(c.violations, 0);
    assert_int_equal(c.n_model, 0);
}

/* Keys longer than the old 48-byte copies, alike in their first 50
 * bytes: in key order, each its own entry of the model. */
static void test_long_keys(void **state)
{
    struct upstream_contract c;
    const char *a = "/registry/pods/kube-system/coredns-5d78c9869d-a1b2c-0001";
    const char *b = "/registry/pods/kube-system/coredns-5d78c9869d-a1b2c-0002";

    upstream_contract_init(&c, "/registry/pods/");
    feed->list_begin(&c);
    ITEM(&c, a, 3);
    ITEM(&c, b, 4);
    feed->list_end(&c, 5);
    DEL(&c, b, 6);
    feed->flush(&c);
    assert_int_equal(c.violations, 0);
    assert_int_equal(c.n_model, 1);
    assert_string_equal(c.model[0].key, a);
}

/* Each breach, on its own, is counted. */
static void test_each_breach(void **state)
{
    struct upstream_contract c;
    struct upstream_reader rd = {0};

    listed(&c); /* list_begin inside a list */
    feed->list_begin(&c);
    feed->list_begin(&c);
    assert_int_equal(c.violations, 1);

    upstream_contract_init(&c, "/p/"); /* item outside a list */
    ITEM(&c, "/p/a", 1);
    assert_true(c.violations >= 1);

    upstream_contract_init(&c, "/p/"); /* items out of key order */
    feed->list_begin(&c);
    ITEM(&c, "/p/b", 1);
    ITEM(&c, "/p/a", 1);
    assert_int_equal(c.violations, 1);

    upstream_contract_init(&c, "/p/"); /* an item outside the prefix */
    feed->list_begin(&c);
    ITEM(&c, "/q/a", 1);
    assert_int_equal(c.violations, 1);

    upstream_contract_init(&c, "/p/"); /* an item newer than the list */
    feed->list_begin(&c);
    ITEM(&c, "/p/a", 9);
    feed->list_end(&c, 7);
    assert_int_equal(c.violations, 1);

    upstream_contract_init(&c, "/p/"); /* an event before any list */
    PUT(&c, "/p/a", 3);
    assert_true(c.violations >= 1);

    listed(&c); /* an event during a list */
    feed->list_begin(&c);
    PUT(&c, "/p/c", 8);
    assert_int_equal(c.violations, 1);

    listed(&c); /* a revision not above the list's */
    PUT(&c, "/p/c", 7);
    assert_int_equal(c.violations, 1);

    listed(&c); /* a revision going back */
    PUT(&c, "/p/c", 9);
    PUT(&c, "/p/d", 8);
    assert_int_equal(c.violations, 1);

    listed(&c); /* a revision repeated in another batch */
    PUT(&c, "/p/c", 9);
    feed->flush(&c);
    PUT(&c, "/p/d", 9);
    assert_int_equal(c.violations, 1);

    listed(&c); /* a delete of a key not held */
    DEL(&c, "/p/z", 8);
    assert_int_equal(c.violations, 1);

    listed(&c); /* progress below the revision reached, or going back */
    PUT(&c, "/p/c", 9);
    feed->progress(&c, 8);
    assert_int_equal(c.violations, 1);

    upstream_contract_init(&c, "/p/"); /* progress before any list */
    feed->progress(&c, 3);
    assert_int_equal(c.violations, 1);

    upstream_contract_init(&c, "/p/"); /* a list dropped by a reset, ended */
    feed->list_begin(&c);
    ITEM(&c, "/p/a", 3);
    feed->history_reset(&c, UPSTREAM_RESET_IDENTITY, 0, 4);
    feed->list_end(&c, 4);
    assert_int_equal(c.violations, 1);

    listed(&c); /* a batch not flushed when the loop turns */
    PUT(&c, "/p/c", 9);
    upstream_contract_turn(&c);
    assert_int_equal(c.violations, 1);

    listed(&c); /* list_end, list_abort outside a list */
    feed->list_end(&c, 9);
    feed->list_abort(&c);
    assert_int_equal(c.violations, 2);

    listed(&c); /* the reader left set at free, then a callback */
    feed->set_reader(&c, &rd);
    upstream_contract_freed(&c);
    feed->flush(&c);
    assert_int_equal(c.violations, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_sequence),
        cmocka_unit_test(test_long_keys),
        cmocka_unit_test(test_each_breach),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
