/*
 * selector_test.c: label and field selectors (cache/selector.c, the
 * matcher, included so that its allocations can be counted; the parsers,
 * cache/label_selector.c and cache/field_selector.c, through
 * selector_parse): a table of valid selectors with
 * the objects each matches, and of invalid ones with the apiserver's exact
 * message; selector_field_value; and matching that allocates nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/rw.h"
#include "cache/selector.h"

/* Counts every allocation selector.c makes itself (error texts go through
 * sbuf.c, which matching never calls).  Only xcalloc is in use today: the
 * others stand guard over the matcher. */
static long allocs;

__attribute__((unused)) static void *counted_xmalloc(size_t n)
{
    allocs++;
    return xmalloc(n);
}

static void *counted_xcalloc(size_t nmemb, size_t n)
{
    allocs++;
    return xcalloc(nmemb, n);
}

__attribute__((unused)) static void *counted_xrealloc(void *p, size_t n)
{
    allocs++;
    return xrealloc(p, n);
}

__attribute__((unused)) static char *counted_xstrndup(const char *s, size_t n)
{
    allocs++;
    return xstrndup(s, n);
}

#define xmalloc counted_xmalloc
#define xcalloc counted_xcalloc
#define xrealloc counted_xrealloc
#define xstrndup counted_xstrndup
#include "cache/selector.c"
#undef xmalloc
#undef xcalloc
#undef xrealloc
#undef xstrndup

/* ---- three pods ---- */

static struct object *mkpod(const char *name, const char *ns,
                            const struct label *labels, size_t nlabels,
                            const char *node, const char *phase)
{
    static const char json[] = "{\"metadata\":{\"resourceVersion\":\"7\"}}";
    const char *fields[8] = {node, NULL, NULL, NULL, NULL, phase, NULL, NULL};
    struct object_init in = {0};
    char key[128];

    snprintf(key, sizeof(key), "/registry/pods/%s/%s", ns, name);
    in.key = key;
    in.key_len = strlen(key);
    in.rv = 7;
    in.ns = ns;
    in.name = name;
    in.labels = labels;
    in.nlabels = nlabels;
    in.fields = fields;
    in.nfields = 8;
    in.json = rbuf_from_str(json);
    in.rv_off = strlen("{\"metadata\":{\"resourceVersion\":\"");
    in.rv_len = 1;
    return object_new(&in);
}

static struct object *pods[3];

static int setup(void **state)
{
    static const struct label l1[] = {
        {"app", "x"}, {"tier", "web"}, {"n", "5"}};
    static const struct label l2[] = {{"app", "y"}, {"n", "12"}, {"env", ""}};

    pods[0] = mkpod("foo", "ns1", l1, 3, "node1", "Running");
    pods[1] = mkpod("bar", "ns2", l2, 3, NULL, "Pending");
    pods[2] = mkpod("baz", "ns1", NULL, 0, NULL, NULL);
    return 0;
}

static int teardown(void **state)
{
    for (int i = 0; i < 3; i++)
        object_unref(pods[i]);
    return 0;
}

/* ---- the table ---- */

#define FOO 1
#define BAR 2
#define BAZ 4
#define ALL 7
#define NONE 0

struct valid_case {
    const char *labels;
    const char *fields;
    const char *type; /* resource type, "pods" when NULL */
    int matches;      /* FOO | BAR | BAZ */
};

static const struct valid_case valid[] = {
    {"", "", NULL, ALL},
    {NULL, NULL, NULL, ALL},
    {"   ", ",", NULL, ALL},
    {"app=x", NULL, NULL, FOO},
    {"app==x", NULL, NULL, FOO},
    {"app!=x", NULL, NULL, BAR | BAZ}, /* != matches objects without it */
    {"app in (x,y)", NULL, NULL, FOO | BAR},
    {"app in (x, y)", NULL, NULL, FOO | BAR},
    {"app notin (x)", NULL, NULL, BAR | BAZ},
    {"app notin ()", NULL, NULL, ALL},
    {"app", NULL, NULL, FOO | BAR},
    {"!app", NULL, NULL, BAZ},
    {"n>6", NULL, NULL, BAR},
    {"n<6", NULL, NULL, FOO},
    {"n>5", NULL, NULL, BAR},
    {"n<5", NULL, NULL, NONE},
    {"tier>1", NULL, NULL, NONE}, /* "web" is no integer */
    {"n>0,n<100", NULL, NULL, FOO | BAR},
    {"app=x,tier=web", NULL, NULL, FOO},
    {"app=x,app=y", NULL, NULL, NONE}, /* duplicates all apply */
    {"  app  =  x  ", NULL, NULL, FOO},
    {"\tapp\n=\rx", NULL, NULL, FOO},
    {"app=x , tier=web", NULL, NULL, FOO},
    {"env=", NULL, NULL, BAR},
    {"env", NULL, NULL, BAR},
    {"env in ()", NULL, NULL, BAR},
    {"env in (,)", NULL, NULL, BAR},
    {"app in (x,)", NULL, NULL, FOO},
    {"app in (,x)", NULL, NULL, FOO},
    {"app in (x,,y)", NULL, NULL, FOO | BAR},
    {"env!=", NULL, NULL, FOO | BAZ},
    {"env==,app=y", NULL, NULL, BAR},
    {"x in (in,notin)", NULL, NULL, NONE},
    {"in in (a)", NULL, NULL, NONE},
    {"!in", NULL, NULL, ALL},
    {"example.com/app=x", NULL, NULL, NONE},
    {"!example.com/app", NULL, NULL, ALL},
    {"app=x,!env", NULL, NULL, FOO},
    {NULL, "metadata.name=foo", NULL, FOO},
    {NULL, "metadata.name==foo", NULL, FOO},
    {NULL, "metadata.name!=foo", NULL, BAR | BAZ},
    {NULL, "metadata.namespace=ns1", NULL, FOO | BAZ},
    {NULL, "spec.nodeName=node1", NULL, FOO},
    {NULL, "spec.nodeName=", NULL, BAR | BAZ},
    {NULL, "status.phase!=Running,metadata.namespace=ns1", NULL, BAZ},
    {NULL, "metadata.name=foo,metadata.name=bar", NULL, NONE},
    {NULL, "metadata.name=foo,", NULL, FOO},
    {NULL, "=", NULL, ALL},  /* apimachinery drops an empty term */
    {NULL, "!=", NULL, ALL}, /* likewise */
    {NULL, "metadata.name=a\\,b", NULL, NONE},
    {NULL, "metadata.name=!foo", NULL, NONE}, /* value "!foo" */
    {"app=x", "metadata.namespace=ns1", NULL, FOO},
    {"app", "metadata.name!=foo", NULL, BAR},
    {NULL, "metadata.name=foo", "configmaps", FOO},
    {NULL, "metadata.name=foo", "nodes", FOO},
};

struct invalid_case {
    const char *labels;
    const char *fields;
    const char *type;
    const char *why;
};

#define QNAME_ERR_T                                                            \
    "must consist of alphanumeric characters, '-', '_' or '.', and must "      \
    "start and end with an alphanumeric character (e.g. 'MyName',  or "        \
    "'my.name',  or '123-abc', regex used for validation is "                  \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define VALUE_ERR_T                                                            \
    "a valid label must be an empty string or consist of alphanumeric "        \
    "characters, '-', '_' or '.', and must start and end with an "             \
    "alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "    \
    "regex used for validation is "                                            \
    "'(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
#define UPR "unable to parse requirement: "
#define L63 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static const struct invalid_case invalid[] = {
    {"app=x,", NULL, NULL, "found '', expected: identifier after ','"},
    {",", NULL, NULL, "found ',', expected: !, identifier, or 'end of string'"},
    {"=x", NULL, NULL,
     "found '=', expected: !, identifier, or 'end of string'"},
    {"app=x y", NULL, NULL, "found 'y', expected: ',' or 'end of string'"},
    {"app=x,,b", NULL, NULL, "found ',', expected: identifier after ','"},
    {"!app=x", NULL, NULL, "found '=', expected: ',' or 'end of string'"},
    {"a b", NULL, NULL,
     UPR "found 'b', expected: in, notin, =, ==, !=, gt, lt"},
    {"a=>1", NULL, NULL, UPR "found '>', expected: identifier"},
    {"a<=1", NULL, NULL, UPR "found '=', expected: identifier"},
    {"app in x", NULL, NULL, UPR "found 'x' expected: '('"},
    {"app in (x", NULL, NULL, UPR "found '', expected: ',' or ')'"},
    {"app in (x y)", NULL, NULL, UPR "found 'y', expected: ',' or ')'"},
    {"app in (=)", NULL, NULL,
     UPR "found '=', expected: ',', ')' or identifier"},
    {"app in (x,=)", NULL, NULL, UPR "found '=', expected: ',', or identifier"},
    {"app=(x)", NULL, NULL, UPR "found '(', expected: identifier"},
    {"!", NULL, NULL, UPR "found '', expected: identifier"},
    {"!!a", NULL, NULL, UPR "found '!', expected: identifier"},
    {"app:x", NULL, NULL,
     UPR "<nil>: Invalid value: \"app:x\": name part " QNAME_ERR_T},
    {"a/b/c=d", NULL, NULL,
     UPR "<nil>: Invalid value: \"a/b/c\": a qualified name " QNAME_ERR_T
         " with an optional DNS subdomain prefix and '/' (e.g. "
         "'example.com/MyName')"},
    {"Example.com/app", NULL, NULL,
     UPR "<nil>: Invalid value: \"Example.com/app\": prefix part a lowercase "
         "RFC 1123 subdomain must consist of lower case alphanumeric "
         "characters, '-' or '.', and must start and end with an "
         "alphanumeric character (e.g. 'example.com', regex used for "
         "validation is "
         "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
    {"/app", NULL, NULL,
     UPR "<nil>: Invalid value: \"/app\": prefix part must be non-empty"},
    {"app/", NULL, NULL,
     UPR "<nil>: Invalid value: \"app/\": name part must be non-empty; "
         "name part " QNAME_ERR_T},
    {L63 "a", NULL, NULL,
     UPR "<nil>: Invalid value: \"" L63 "a\": name part must be no more than "
         "63 characters"},
    {"a\x01", NULL, NULL,
     UPR "<nil>: Invalid value: \"a\\x01\": name part " QNAME_ERR_T},
    {"a\"\\\xc3\xa9\x07\x08\x0b\x0c\x7f\xff", NULL, NULL,
     UPR "<nil>: Invalid value: \"a\\\"\\\\\xc3\xa9\\a\\b\\v\\f\\x7f\\xff\": "
         "name part " QNAME_ERR_T},
    {"app=-x", NULL, NULL,
     UPR "values[0][app]: Invalid value: \"-x\": " VALUE_ERR_T},
    {"app=x\"y", NULL, NULL,
     UPR "values[0][app]: Invalid value: \"x\\\"y\": " VALUE_ERR_T},
    {"app in (b,-a)", NULL, NULL,
     UPR "values[0][app]: Invalid value: \"-a\": " VALUE_ERR_T},
    {"app=" L63 "a", NULL, NULL,
     UPR "values[0][app]: Invalid value: \"" L63
         "a\": must be no more than 63 characters"},
    {"n>abc", NULL, NULL,
     UPR "values[0]: Invalid value: \"abc\": for 'Gt', 'Lt' operators, the "
         "value must be an integer"},
    {"n>", NULL, NULL,
     UPR "values[0]: Invalid value: \"\": for 'Gt', 'Lt' operators, the "
         "value must be an integer"},
    {"n<99999999999999999999", NULL, NULL,
     UPR "values[0]: Invalid value: \"99999999999999999999\": for 'Gt', 'Lt' "
         "operators, the value must be an integer"},
    {"n>-1", NULL, NULL,
     UPR "values[0][n]: Invalid value: \"-1\": " VALUE_ERR_T},
    {"n>-x", NULL, NULL,
     UPR "[values[0]: Invalid value: \"-x\": for 'Gt', 'Lt' operators, the "
         "value must be an integer, values[0][n]: Invalid value: "
         "\"-x\": " VALUE_ERR_T "]"},
    {NULL, "spec.nope=1", "configmaps", "field label not supported: spec.nope"},
    {NULL, "spec.nodeName=a", "configmaps",
     "field label not supported: spec.nodeName"},
    {NULL, "metadata.namespace=x", "nodes",
     "field label not supported: metadata.namespace"},
    {NULL, "metadata.name = foo", NULL,
     "field label not supported: metadata.name "},
    {NULL, "=x", NULL, "field label not supported: "},
    {NULL, "zz=1,aa=1", NULL, "field label not supported: aa"},
    {NULL, "metadata.name", NULL,
     "invalid selector: 'metadata.name'; can't understand 'metadata.name'"},
    {NULL, "a=b,c", NULL, "invalid selector: 'a=b,c'; can't understand 'c'"},
    {NULL, "spec.nope=1,zzz", NULL,
     "invalid selector: 'spec.nope=1,zzz'; can't understand 'zzz'"},
    {NULL, "metadata.name=a=b", NULL,
     "invalid field selector: unescaped character in value: 61"},
    {NULL, "metadata.name=a\\x", NULL,
     "invalid field selector: invalid escape sequence: \\x"},
    {NULL, "metadata.name=a\\\xc3\xa9", NULL,
     "invalid field selector: invalid escape sequence: \\\xc3\xa9"},
    {NULL, "metadata.name=a\\\xc3", NULL,
     "invalid field selector: invalid escape sequence: \\\xef\xbf\xbd"},
    {NULL, "metadata.name=a\\", NULL,
     "invalid field selector: invalid escape sequence: \\"},
    {NULL, "spec.nope=1,metadata.name=a=b", NULL,
     "invalid field selector: unescaped character in value: 61"},
    /* the label selector is converted first */
    {"a b", "spec.nope=1", NULL,
     UPR "found 'b', expected: in, notin, =, ==, !=, gt, lt"},
};

static const struct resource_type *type_of(const char *name)
{
    const struct resource_type *rt = resource_type_find(name ? name : "pods");

    assert_non_null(rt);
    return rt;
}

static bool everything(const struct valid_case *c)
{
    static const char *const empty_fields[] = {"", ",", "=", "!="};
    bool fields_empty = c->fields == NULL;

    for (size_t i = 0; i < RW_ARRAY_LEN(empty_fields) && !fields_empty; i++)
        fields_empty = strcmp(c->fields, empty_fields[i]) == 0;
    return fields_empty &&
           (c->labels == NULL || c->labels[strspn(c->labels, " ")] == '\0');
}

static void test_valid(void **state)
{
    for (size_t i = 0; i < RW_ARRAY_LEN(valid); i++) {
        const struct valid_case *c = &valid[i];
        struct selector *sel = (struct selector *)1;
        char why[512] = "";
        int rc = selector_parse(c->labels, c->fields, type_of(c->type), &sel,
                                why, sizeof(why));

        if (rc != RW_OK)
            fail_msg("case %zu (%s | %s): %s", i, c->labels, c->fields, why);
        for (int p = 0; p < 3; p++) {
            bool want = c->matches & (1 << p);

            if (selector_matches(sel, pods[p]) != want)
                fail_msg("case %zu (%s | %s): %s should %smatch", i, c->labels,
                         c->fields, pods[p]->name, want ? "" : "not ");
        }
        /* Nothing to check gives the NULL selector. */
        assert_int_equal(sel == NULL, everything(c));
        selector_free(sel);
    }
}

static void test_invalid(void **state)
{
    for (size_t i = 0; i < RW_ARRAY_LEN(invalid); i++) {
        const struct invalid_case *c = &invalid[i];
        struct selector *sel = (struct selector *)1;
        char why[2048] = "";
        int rc = selector_parse(c->labels, c->fields, type_of(c->type), &sel,
                                why, sizeof(why));

        if (rc != RW_EINVAL)
            fail_msg("case %zu (%s | %s) parsed", i, c->labels, c->fields);
        assert_null(sel);
        if (strcmp(why, c->why) != 0)
            fail_msg("case %zu (%s | %s):\n got  %s\n want %s", i, c->labels,
                     c->fields, why, c->why);
    }
}

static void test_why_truncated(void **state)
{
    struct selector *sel;
    char why[8];

    memset(why, 'x', sizeof(why));
    assert_int_equal(selector_parse(NULL, "spec.nope=1", type_of("pods"), &sel,
                                    why, sizeof(why)),
                     RW_EINVAL);
    assert_string_equal(why, "field l");
    assert_int_equal(
        selector_parse("a b", NULL, type_of("pods"), &sel, NULL, 0), RW_EINVAL);
}

static void test_field_value(void **state)
{
    const struct resource_type *rt = type_of("pods");
    struct selector *sel;
    char why[256];

    assert_null(selector_field_value(NULL, FIELD_NAME));
    assert_int_equal(selector_parse("app=x",
                                    "metadata.name=fo\\=o,spec.nodeName==n1,"
                                    "metadata.namespace!=kube-system",
                                    rt, &sel, why, sizeof(why)),
                     RW_OK);
    assert_string_equal(selector_field_value(sel, FIELD_NAME), "fo=o");
    assert_string_equal(selector_field_value(sel, FIELD_EXTRA + 0), "n1");
    assert_null(selector_field_value(sel, FIELD_NAMESPACE)); /* != pins none */
    assert_null(selector_field_value(sel, FIELD_EXTRA + 5));
    selector_free(sel);

    assert_int_equal(selector_parse(NULL, "metadata.name=\\\\\\,", rt, &sel,
                                    why, sizeof(why)),
                     RW_OK);
    assert_string_equal(selector_field_value(sel, FIELD_NAME), "\\,");
    selector_free(sel);

    assert_int_equal(
        selector_parse(NULL, "spec.nodeName=", rt, &sel, why, sizeof(why)),
        RW_OK);
    assert_string_equal(selector_field_value(sel, FIELD_EXTRA + 0), "");
    selector_free(sel);
    selector_free(NULL);
}

static void test_match_allocates_nothing(void **state)
{
    struct selector *sel;
    char why[256];
    long before;
    int n = 0;

    assert_int_equal(selector_parse("app in (x,y),n>1,!gone,tier notin (db)",
                                    "metadata.namespace!=kube-system,"
                                    "status.phase!=Failed",
                                    type_of("pods"), &sel, why, sizeof(why)),
                     RW_OK);
    before = allocs;
    for (int i = 0; i < 1000; i++)
        n += selector_matches(sel, pods[i % 3]);
    assert_int_equal(allocs, before);
    assert_int_equal(n, 667); /* foo and bar */
    selector_free(sel);
}

static void test_label_selector_int64(void **state)
{
    int64_t v;

    assert_true(label_selector_int64("0", &v) && v == 0);
    assert_true(label_selector_int64("+7", &v) && v == 7);
    assert_true(label_selector_int64("-7", &v) && v == -7);
    assert_true(label_selector_int64("9223372036854775807", &v) &&
                v == INT64_MAX);
    assert_true(label_selector_int64("-9223372036854775808", &v) &&
                v == INT64_MIN);
    assert_false(label_selector_int64("9223372036854775808", &v));
    assert_false(label_selector_int64("-9223372036854775809", &v));
    assert_false(label_selector_int64("", &v));
    assert_false(label_selector_int64("-", &v));
    assert_false(label_selector_int64("1_000", &v));
    assert_false(label_selector_int64("0x10", &v));
    assert_false(label_selector_int64(" 1", &v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_invalid),
        cmocka_unit_test(test_why_truncated),
        cmocka_unit_test(test_field_value),
        cmocka_unit_test(test_match_allocates_nothing),
        cmocka_unit_test(test_label_selector_int64),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
