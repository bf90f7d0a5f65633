/*
 * upstream_history_test.c: deciding that the store's history was reset
 * (src/upstream_history.c).
 *
 * The targets' feed is a recorder of history_reset (src/upstream.h).
 * Cases: revisions
 * that only grow; a revision that goes back, on a linearizable reply and
 * on a member's own reply (same member: reset; another member: lag, not a
 * reset); replies that arrive out of order across streams (compared with
 * the mark of their own request, never a reset); a watch stream's mark
 * that moves with its replies; a changed cluster ID (reset even when the
 * revision is higher) and an unreported one (0); unreported revisions
 * (0, etcd's reply to a compacted watch); replies to requests of an
 * abandoned history after a reset (no second reset); every target told
 * once per reset, with the old and new revisions.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "src/log.h"
#include "src/upstream.h"
#include "src/upstream_history.h"

/* ==== the recorder ==== */

#define RESET_KINDS 2 /* enum upstream_reset */

struct target {
    int resets[RESET_KINDS];
    int64_t old_rev, new_rev;
};

static void history_reset_cb(void *ctx, enum upstream_reset why,
                             int64_t old_rev, int64_t new_rev)
{
    struct target *r = ctx;

    assert_true(why < RESET_KINDS);
    r->resets[why]++;
    r->old_rev = old_rev;
    r->new_rev = new_rev;
}

#define CLUSTER 0xc1u
#define M1 0xa1u
#define M2 0xa2u

struct fixture {
    struct target res[2];
    struct upstream_target targets[2];
    struct upstream_history *h;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    static const struct upstream_feed feed = {.history_reset =
                                                  history_reset_cb};

    for (size_t i = 0; i < 2; i++)
        f->targets[i] = (struct upstream_target){NULL, &feed, &f->res[i]};
    f->h = upstream_history_new("etcd test", f->targets, 2);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    upstream_history_free(f->h);
    free(f);
    return 0;
}

/* One reply to a fresh request (marked now). */
static bool reply(struct fixture *f, uint64_t cluster, uint64_t member,
                  int64_t rev, bool linearizable)
{
    struct upstream_mark m = upstream_history_mark(f->h);

    return upstream_history_observe(f->h, &m, cluster, member, rev,
                                    linearizable, "test");
}

static int resets(const struct fixture *f, enum upstream_reset why)
{
    assert_int_equal(f->res[0].resets[why], f->res[1].resets[why]);
    return f->res[0].resets[why];
}

/* ==== cases ==== */

static void test_growing_revisions(void **state)
{
    struct fixture *f = *state;

    for (int64_t rev = 1; rev <= 50; rev += 7) {
        assert_false(reply(f, CLUSTER, M1, rev, true));
        assert_false(reply(f, CLUSTER, M1, rev, false));
    }
    /* Equal is not below. */
    assert_false(reply(f, CLUSTER, M1, 50, true));
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 0);
    assert_int_equal(resets(f, UPSTREAM_RESET_IDENTITY), 0);
}

static void test_revision_back_linearizable(void **state)
{
    struct fixture *f = *state;

    assert_false(reply(f, CLUSTER, M1, 40, true));
    /* Any member's linearizable reply reflects every committed write. */
    assert_true(reply(f, CLUSTER, M2, 12, true));
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 1);
    assert_int_equal(f->res[1].old_rev, 40);
    assert_int_equal(f->res[1].new_rev, 12);
    /* The new history goes on from 12. */
    assert_false(reply(f, CLUSTER, M2, 13, true));
    assert_false(reply(f, CLUSTER, M1, 13, false));
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 1);
    /* And can be reset again. */
    assert_true(reply(f, CLUSTER, M2, 2, true));
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 2);
    assert_int_equal(f->res[0].old_rev, 13);
}

static void test_revision_back_member_reply(void **state)
{
    struct fixture *f = *state;

    assert_false(reply(f, CLUSTER, M1, 40, true));
    /* Another member's own view may lag: not a reset. */
    assert_false(reply(f, CLUSTER, M2, 38, false));
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 0);
    /* The member that showed 40 never shows less on a healthy store. */
    assert_true(reply(f, CLUSTER, M1, 7, false));
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 1);
}

static void test_out_of_order_replies(void **state)
{
    struct fixture *f = *state;
    struct upstream_mark early, watch;

    assert_false(reply(f, CLUSTER, M1, 10, true));
    early = upstream_history_mark(f->h);
    watch = upstream_history_mark(f->h);
    /* Another stream shows 20 first; the earlier request's reply, produced
     * at 15, arrives after it: compared with its own mark (10). */
    assert_false(reply(f, CLUSTER, M1, 20, true));
    assert_false(
        upstream_history_observe(f->h, &early, CLUSTER, M1, 15, true, "Range"));
    assert_false(upstream_history_observe(f->h, &watch, CLUSTER, M1, 12, false,
                                          "Watch"));
    /* The watch stream's mark moved to 12: its later replies only grow. */
    assert_false(upstream_history_observe(f->h, &watch, CLUSTER, M1, 16, false,
                                          "Watch"));
    assert_int_equal(watch.rev, 16);
    assert_true(upstream_history_observe(f->h, &watch, CLUSTER, M1, 14, false,
                                         "Watch"));
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 1);
}

static void test_identity(void **state)
{
    struct fixture *f = *state;

    /* Unreported cluster IDs and revisions say nothing. */
    assert_false(reply(f, 0, M1, 5, true));
    assert_false(reply(f, CLUSTER, M1, 9, true));
    assert_false(reply(f, 0, M1, 10, true));
    assert_false(reply(f, CLUSTER, M1, 0, false));
    /* Another cluster, even far ahead, is another history. */
    assert_true(reply(f, CLUSTER + 1, M2, 5000, true));
    assert_int_equal(resets(f, UPSTREAM_RESET_IDENTITY), 1);
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 0);
    assert_int_equal(f->res[0].old_rev, 10);
    assert_int_equal(f->res[0].new_rev, 5000);
    assert_false(reply(f, CLUSTER + 1, M2, 5001, true));
    /* A member change alone is not one. */
    assert_false(reply(f, CLUSTER + 1, M1, 5002, false));
    assert_int_equal(resets(f, UPSTREAM_RESET_IDENTITY), 1);
}

static void test_abandoned_requests(void **state)
{
    struct fixture *f = *state;
    struct upstream_mark old[3];

    assert_false(reply(f, CLUSTER, M1, 100, true));
    for (int i = 0; i < 3; i++)
        old[i] = upstream_history_mark(f->h);
    assert_true(reply(f, CLUSTER, M1, 30, true));
    /* Replies to requests sent before the reset, from the new history:
     * not another reset; each moves its mark into the new epoch. */
    assert_false(
        upstream_history_observe(f->h, &old[0], CLUSTER, M1, 31, true, "Txn"));
    assert_false(upstream_history_observe(f->h, &old[1], CLUSTER, M1, 30, false,
                                          "Watch"));
    assert_int_equal(old[1].rev, 30);
    assert_true(upstream_history_observe(f->h, &old[1], CLUSTER, M1, 29, false,
                                         "Watch"));
    assert_int_equal(resets(f, UPSTREAM_RESET_REVISION), 2);
    /* Identity is checked whatever the mark. */
    assert_true(upstream_history_observe(f->h, &old[2], CLUSTER + 7, M1, 31,
                                         true, "Txn"));
    assert_int_equal(resets(f, UPSTREAM_RESET_IDENTITY), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_growing_revisions, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_revision_back_linearizable, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_revision_back_member_reply, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_out_of_order_replies, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_identity, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abandoned_requests, setup,
                                        teardown),
    };

    log_set_level(LOG_WARN);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
