/*
 * query_test.c: LIST/WATCH query strings (proto/query.c): defaults, every
 * parameter, Go's ParseBool spellings, percent-encoding and '+', repeated
 * keys (first wins), unknown and malformed keys ignored, and each invalid
 * value with its message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/query.h"

static void parse_ok(const char *s, struct query *q)
{
    char why[256] = "unset";

    if (query_parse(s, strlen(s), q, why, sizeof(why)) != RW_OK)
        fail_msg("query \"%s\" rejected: %s", s, why);
}

/* Strings must point into q->storage. */
static void assert_in_storage(const struct query *q, const char *s, size_t len)
{
    assert_true(s >= q->storage && s <= q->storage + len);
}

static void test_defaults(void **state)
{
    const char *const empties[] = {"", "&", "&&&", "foo=bar&x", "=&=x"};

    for (size_t i = 0; i < RW_ARRAY_LEN(empties); i++) {
        struct query q;

        parse_ok(empties[i], &q);
        assert_false(q.watch);
        assert_false(q.has_rv);
        assert_int_equal(q.rv_match, RV_MATCH_UNSET);
        assert_string_equal(q.label_selector, "");
        assert_string_equal(q.field_selector, "");
        assert_string_equal(q.continue_token, "");
        assert_int_equal(q.limit, 0);
        assert_int_equal(q.timeout_seconds, -1);
        assert_false(q.allow_bookmarks);
        assert_int_equal(q.send_initial_events, -1);
        assert_in_storage(&q, q.label_selector, strlen(empties[i]));
        query_fini(&q);
        assert_null(q.storage);
    }
}

static void test_full_watch(void **state)
{
    const char *s =
        "watch=true&resourceVersion=12345&allowWatchBookmarks=true&"
        "timeoutSeconds=300&labelSelector=app%3Dweb%2Ctier+in+%28a%2Cb%29&"
        "fieldSelector=spec.nodeName%3Dnode-1&resourceVersionMatch="
        "NotOlderThan&sendInitialEvents=false&limit=500&continue=abc%2B%2F"
        "%3D&unknown=%zz";
    struct query q;

    parse_ok(s, &q);
    assert_true(q.watch);
    assert_true(q.has_rv);
    assert_int_equal(q.rv, 12345);
    assert_true(q.allow_bookmarks);
    assert_int_equal(q.timeout_seconds, 300);
    assert_string_equal(q.label_selector, "app=web,tier in (a,b)");
    assert_string_equal(q.field_selector, "spec.nodeName=node-1");
    assert_int_equal(q.rv_match, RV_MATCH_NOT_OLDER_THAN);
    assert_int_equal(q.send_initial_events, 0);
    assert_int_equal(q.limit, 500);
    assert_string_equal(q.continue_token, "abc+/=");
    assert_in_storage(&q, q.label_selector, strlen(s));
    assert_in_storage(&q, q.field_selector, strlen(s));
    assert_in_storage(&q, q.continue_token, strlen(s));
    query_fini(&q);
}

static void test_booleans(void **state)
{
    static const struct {
        const char *spelling;
        bool value;
    } cases[] = {
        {"1", true},    {"t", true},      {"T", true},      {"TRUE", true},
        {"true", true}, {"True", true},   {"0", false},     {"FALSE", false},
        {"false", false}, {"False", false},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        char *s =
            xasprintf("watch=%s&allowWatchBookmarks=%s&"
                      "sendInitialEvents=%s",
                      cases[i].spelling, cases[i].spelling, cases[i].spelling);
        struct query q;

        parse_ok(s, &q);
        assert_int_equal(q.watch, cases[i].value);
        assert_int_equal(q.allow_bookmarks, cases[i].value);
        assert_int_equal(q.send_initial_events, cases[i].value ? 1 : 0);
        query_fini(&q);
        free(s);
    }
}

static void test_values(void **state)
{
    struct query q;

    parse_ok("resourceVersion=", &q);
    assert_false(q.has_rv);
    query_fini(&q);

    parse_ok("resourceVersion=0", &q);
    assert_true(q.has_rv);
    assert_int_equal(q.rv, 0);
    query_fini(&q);

    parse_ok("resourceVersion=9223372036854775807&limit=%2B7&"
             "timeoutSeconds=0",
             &q);
    assert_int_equal(q.rv, INT64_MAX);
    assert_int_equal(q.limit, 7);
    assert_int_equal(q.timeout_seconds, 0);
    query_fini(&q);

    parse_ok("resourceVersionMatch=Exact&resourceVersion=007", &q);
    assert_int_equal(q.rv_match, RV_MATCH_EXACT);
    assert_int_equal(q.rv, 7);
    query_fini(&q);

    parse_ok("resourceVersionMatch=", &q);
    assert_int_equal(q.rv_match, RV_MATCH_UNSET);
    query_fini(&q);
    /* Unknown matches are the validator's 422, as the apiserver's. */
    parse_ok("resourceVersionMatch=exact&resourceVersion=5", &q);
    assert_int_equal(q.rv_match, RV_MATCH_OTHER);
    {
        const char *field;
        char why[160];

        assert_int_equal(query_validate(&q, false, &field, why, sizeof(why)),
                         RW_EINVAL);
        assert_string_equal(field, "resourceVersionMatch");
        assert_string_equal(why, "Unsupported value: \"exact\": supported "
                                 "values: \"Exact\", \"NotOlderThan\", "
                                 "\"\"");
    }
    query_fini(&q);
    /* A negative limit is no limit, as the apiserver reads it. */
    parse_ok("limit=-1", &q);
    assert_int_equal(q.limit, 0);
    query_fini(&q);

    /* Percent-encoded keys, '+' as space, bare keys, empty values. */
    parse_ok("%77atch=true&labelSelector&fieldSelector=a+b%20c%2bd&"
             "continue=",
             &q);
    assert_true(q.watch);
    assert_string_equal(q.label_selector, "");
    assert_string_equal(q.field_selector, "a b c+d");
    assert_string_equal(q.continue_token, "");
    query_fini(&q);

    /* UTF-8 and escaped quotes survive decoding byte for byte. */
    parse_ok("labelSelector=k%3D%C3%A9%22", &q);
    assert_string_equal(q.label_selector, "k=\xc3\xa9\"");
    query_fini(&q);
}

static void test_first_occurrence_wins(void **state)
{
    struct query q;

    parse_ok("watch=1&watch=maybe&resourceVersion=5&resourceVersion=abc&"
             "labelSelector=a&labelSelector=b&limit=1&limit=-1&"
             "fieldSelector=x%3Dy&fieldSelector=%zz",
             &q);
    assert_true(q.watch);
    assert_int_equal(q.rv, 5);
    assert_string_equal(q.label_selector, "a");
    assert_string_equal(q.field_selector, "x=y");
    assert_int_equal(q.limit, 1);
    query_fini(&q);

    /* An empty first value still counts as the first. */
    parse_ok("resourceVersion=&resourceVersion=5", &q);
    assert_false(q.has_rv);
    query_fini(&q);
}

static void test_unknown_and_malformed_keys_ignored(void **state)
{
    struct query q;

    parse_ok("pretty=true&%zz=1&watch%=true&Watch=maybe&watch;x=1&"
             "WATCH=1&a%00b=1",
             &q);
    assert_false(q.watch);
    query_fini(&q);
}

static void test_invalid(void **state)
{
    static const struct {
        const char *query, *why;
    } cases[] = {
        {"watch=maybe", "invalid value for watch: \"maybe\""},
        {"watch", "invalid value for watch: \"\""},
        {"watch=yes", "invalid value for watch: \"yes\""},
        /* ParseBool's false, the apiserver's true: the authorizer reads
         * the apiserver's way (a watch), so a LIST must not be served */
        {"watch=f", "invalid value for watch: \"f\""},
        {"watch=F", "invalid value for watch: \"F\""},
        {"allowWatchBookmarks=f", "invalid value for allowWatchBookmarks: \"f\""},
        {"allowWatchBookmarks=2",
         "invalid value for allowWatchBookmarks: \"2\""},
        {"sendInitialEvents=tRuE",
         "invalid value for sendInitialEvents: \"tRuE\""},
        {"resourceVersion=abc", "invalid resourceVersion: \"abc\""},
        {"resourceVersion=-1", "invalid resourceVersion: \"-1\""},
        {"resourceVersion=%2B1", "invalid resourceVersion: \"+1\""},
        {"resourceVersion=1.5", "invalid resourceVersion: \"1.5\""},
        {"resourceVersion=+1", "invalid resourceVersion: \" 1\""},
        {"resourceVersion=9223372036854775808",
         "invalid resourceVersion: \"9223372036854775808\""},
        {"limit=-x", "limit must be a non-negative integer"},
        {"limit=", "limit must be a non-negative integer"},
        {"limit=1e3", "limit must be a non-negative integer"},
        {"limit=99999999999999999999", "limit must be a non-negative integer"},
        {"timeoutSeconds=-5", "timeoutSeconds must be a non-negative integer"},
        {"timeoutSeconds=x", "timeoutSeconds must be a non-negative integer"},
        {"labelSelector=%zz",
         "invalid labelSelector: malformed percent-encoding in the query"},
        {"fieldSelector=a%2", "invalid fieldSelector: malformed "
                              "percent-encoding in the query"},
        {"continue=%00", "invalid continue: malformed percent-encoding in "
                         "the query"},
        {"watch=true&resourceVersion=x1", "invalid resourceVersion: \"x1\""},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        struct query q;
        char why[256] = "";
        int rc = query_parse(cases[i].query, strlen(cases[i].query), &q, why,
                             sizeof(why));

        if (rc != RW_EINVAL)
            fail_msg("query \"%s\" accepted", cases[i].query);
        assert_string_equal(why, cases[i].why);
        query_fini(&q);
    }
}

static void test_why_truncated(void **state)
{
    char why[16];
    struct query q;

    assert_int_equal(
        query_parse("watch=abcdefghijklmnop", 22, &q, why, sizeof(why)),
        RW_EINVAL);
    assert_int_equal(strlen(why), sizeof(why) - 1);
    query_fini(&q);
}

static void test_not_nul_terminated(void **state)
{
    const char buf[] = {'l', 'i', 'm', 'i', 't', '=', '1', '2', '3'};
    struct query q;
    char why[64];

    /* Only the first 8 bytes: "limit=12". */
    assert_int_equal(query_parse(buf, 8, &q, why, sizeof(why)), RW_OK);
    assert_int_equal(q.limit, 12);
    query_fini(&q);
}

static void test_unescape(void **state)
{
    static const struct {
        const char *in;
        bool plus;
        const char *out; /* NULL: malformed */
    } cases[] = {
        {"", true, ""},
        {"a+b", true, "a b"},
        {"a+b", false, "a+b"},
        {"%41%42%63", false, "ABc"},
        {"%e6%97%A5", false, "\xe6\x97\xa5"},
        {"%2", false, NULL},
        {"%", false, NULL},
        {"%g0", false, NULL},
        {"%0g", false, NULL},
        {"a%00b", false, NULL},
        {"100%25", true, "100%"},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        char *got =
            query_unescape(cases[i].in, strlen(cases[i].in), cases[i].plus);

        if (cases[i].out == NULL) {
            assert_null(got);
            continue;
        }
        assert_non_null(got);
        assert_string_equal(got, cases[i].out);
        free(got);
    }
    /* A raw NUL within len is refused too. */
    assert_null(query_unescape("a\0b", 3, false));
}

/* Go's url.ParseRequestURI: '%' only as the start of a %XX escape. */
static void test_escapes_valid(void **state)
{
    static const struct {
        const char *in;
        bool valid;
    } cases[] = {
        {"", true},      {"/api/v1/pods", true}, {"/a%2Fb", true},
        {"/a%00", true}, {"/%e6%97%A5", true},   {"/a%", false},
        {"/a%2", false}, {"/a%zz", false},       {"/a%2g/b", false},
        {"%%41", false}, {"/a%41%", false},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++)
        assert_int_equal(query_escapes_valid(cases[i].in, strlen(cases[i].in)),
                         cases[i].valid);
    /* the length bounds it: an escape cut short by it is invalid */
    assert_false(query_escapes_valid("/a%41", 4));
    assert_true(query_escapes_valid("/a%41", 2));
}

static void test_has(void **state)
{
    assert_true(query_has("verbose", "verbose"));
    assert_true(query_has("a=1&verbose=true", "verbose"));
    assert_true(query_has("verbose&a", "verbose"));
    assert_false(query_has("", "verbose"));
    assert_false(query_has("verbosity=1", "verbose"));
    assert_false(query_has("a=verbose", "verbose"));
    assert_false(query_has("xverbose", "verbose"));
    /* keys are compared decoded, as query_parse reads them */
    assert_true(query_has("%76erbose", "verbose"));
}

/* query_first reads the pair query_parse reads: keys decoded, the first
 * one wins (an escaped key is the same parameter, not another). */
static void test_first(void **state)
{
    static const char *const queries[] = {
        "%66ieldSelector=metadata.name%3Dy&fieldSelector=metadata.name%3Dx",
        "fieldSelector=metadata.name%3Dy&fieldSelector=metadata.name%3Dx",
        "field%53elector=metadata.name%3Dy",
        "a=1&fieldSelector=metadata.name%3Dy",
    };
    char *v;
    struct query q;

    for (size_t i = 0; i < RW_ARRAY_LEN(queries); i++) {
        parse_ok(queries[i], &q);
        v = query_first(queries[i], "fieldSelector");
        assert_non_null(v);
        assert_string_equal(v, q.field_selector);
        assert_string_equal(v, "metadata.name=y");
        free(v);
        query_fini(&q);
    }
    v = query_first("%77atch", "watch");
    assert_string_equal(v, "");
    free(v);
    assert_null(query_first("watch%=1&x=2", "watch"));
    assert_null(query_first("", "watch"));
}

/* Option combinations, as the apiserver's ValidateListOptions judges
 * them: "" when valid, else the field and the start of the detail. */
static void test_validate(void **state)
{
    static const struct {
        const char *query;
        bool watch;
        const char *field, *detail;
    } cases[] = {
        {"", false, "", ""},
        {"resourceVersion=5&resourceVersionMatch=Exact", false, "", ""},
        {"resourceVersion=5&resourceVersionMatch=NotOlderThan&limit=2", false,
         "", ""},
        {"resourceVersionMatch=Exact", false, "resourceVersionMatch",
         "Forbidden: resourceVersionMatch is forbidden unless"},
        {"resourceVersion=0&resourceVersionMatch=Exact", false,
         "resourceVersionMatch", "Forbidden: resourceVersionMatch \"exact\""},
        {"resourceVersion=5&resourceVersionMatch=Exact&continue=x", false,
         "resourceVersionMatch",
         "Forbidden: resourceVersionMatch is forbidden "
         "when continue"},
        {"resourceVersion=5&resourceVersionMatch=Newest", false,
         "resourceVersionMatch", "Unsupported value: \"Newest\""},
        {"sendInitialEvents=true", false, "sendInitialEvents",
         "Forbidden: sendInitialEvents is forbidden for list"},
        {"sendInitialEvents=true&resourceVersionMatch=NotOlderThan&"
         "allowWatchBookmarks=true",
         true, "", ""},
        {"sendInitialEvents=false&resourceVersionMatch=NotOlderThan&"
         "allowWatchBookmarks=true",
         true, "", ""},
        {"sendInitialEvents=true&allowWatchBookmarks=true", true,
         "resourceVersionMatch",
         "Forbidden: sendInitialEvents requires "
         "setting resourceVersionMatch"},
        {"sendInitialEvents=true&resourceVersionMatch=NotOlderThan", true,
         "allowWatchBookmarks",
         "Forbidden: sendInitialEvents requires "
         "setting allowWatchBookmarks"},
        {"resourceVersionMatch=NotOlderThan", true, "resourceVersionMatch",
         "Forbidden: resourceVersionMatch is forbidden for watch unless"},
        {"sendInitialEvents=true&resourceVersionMatch=Exact&"
         "allowWatchBookmarks=true",
         true, "resourceVersionMatch", "Forbidden: sendInitialEvents"},
        {"resourceVersionMatch=Bogus", true, "resourceVersionMatch",
         "Unsupported value: \"Bogus\": supported values: \"NotOlderThan\""},
    };

    for (size_t i = 0; i < RW_ARRAY_LEN(cases); i++) {
        const char *field = "";
        char why[256] = "";
        struct query q;
        int rc;

        parse_ok(cases[i].query, &q);
        rc = query_validate(&q, cases[i].watch, &field, why, sizeof(why));
        if (*cases[i].field == '\0') {
            if (rc != RW_OK)
                fail_msg("\"%s\" refused: %s: %s", cases[i].query, field, why);
        } else {
            assert_int_equal(rc, RW_EINVAL);
            assert_string_equal(field, cases[i].field);
            if (strncmp(why, cases[i].detail, strlen(cases[i].detail)) != 0)
                fail_msg("\"%s\": %s", cases[i].query, why);
        }
        query_fini(&q);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_has),
        cmocka_unit_test(test_first),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_full_watch),
        cmocka_unit_test(test_booleans),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_first_occurrence_wins),
        cmocka_unit_test(test_unknown_and_malformed_keys_ignored),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_why_truncated),
        cmocka_unit_test(test_not_nul_terminated),
        cmocka_unit_test(test_unescape),
        cmocka_unit_test(test_escapes_valid),
        cmocka_unit_test(test_validate),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
