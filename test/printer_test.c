/*
 * printer_test.c: the Table printers' toolkit (proto/printer.c) and the
 * JSON view they read through (proto/jval.c): cells
 * written straight into a row: label maps, FormatLabelSelector and
 * LabelSelectorAsSelector with what NewRequirement refuses, containers,
 * quantities (absent values and pointers, numbers, refused strings),
 * strings.TrimSpace; and jval's Go decoding rules (last repeated member,
 * null as absent, map lengths, dotted paths).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/rw.h"
#include "proto/printer.h"

/* 2024-01-02T03:04:05Z */
#define T0 ((time_t)1704164645)

/* ------------------------------------------------------------------ */
/* Cells                                                               */
/* ------------------------------------------------------------------ */

typedef void one_value_fn(struct printer_row *r, const struct jval *v);

/* The cells fn writes for member "v" of json (' for "): a JSON array. */
static void cells_are(one_value_fn *fn, const char *json, const char *want)
{
    char *text = xstrdup(json);
    struct sbuf sb = {0};
    struct printer_row r = {.sb = &sb, .now = T0};
    struct jval *doc;

    for (char *p = text; *p; p++)
        if (*p == '\'')
            *p = '"';
    doc = jval_parse(text, strlen(text));
    sbuf_add(&sb, "[");
    fn(&r, jval_get(doc, "v"));
    sbuf_add(&sb, "]");
    if (strcmp(sb.data, want) != 0)
        fail_msg("%s: got %s, want %s", json, sb.data, want);
    sbuf_fini(&sb);
    jval_free(doc);
    free(text);
}

static void list_quantity(struct printer_row *r, const struct jval *v)
{
    printer_cell_quantity(r, v, PRINTER_QUANTITY_LIST);
}

static void pointer_quantity(struct printer_row *r, const struct jval *v)
{
    printer_cell_quantity(r, v, PRINTER_QUANTITY_POINTER);
}

static void trimmed(struct printer_row *r, const struct jval *v)
{
    printer_cell_trimmed(r, jval_str(v));
}

static void test_selectors(void **state)
{
    (void)state;
    /* FormatLabelSelector */
    cells_are(printer_cell_selector, "{}", "[\"<none>\"]");
    cells_are(printer_cell_selector, "{'v':{}}", "[\"<none>\"]");
    cells_are(printer_cell_selector,
              "{'v':{'matchLabels':{'b':'2','a':'1','b':'3'},"
              "'matchExpressions':[{'key':'c','operator':'In','values':['z',"
              "'y']},{'key':'app.kubernetes.io/name','operator':'DoesNotExist'"
              "}]}}",
              "[\"a=1,!app.kubernetes.io/name,b=3,c in (y,z)\"]");
    cells_are(printer_cell_selector,
              "{'v':{'matchLabels':{'a':''},'matchExpressions':[{'key':'x',"
              "'operator':'NotIn','values':['']}]}}",
              "[\"a=,x notin ()\"]");
    /* What labels.NewRequirement refuses: <error>. */
    static const char *const refused[] = {
        "{'v':{'matchExpressions':[{'key':'a','operator':'In'}]}}",
        "{'v':{'matchExpressions':[{'key':'a','operator':'Exists','values':"
        "['x']}]}}",
        "{'v':{'matchExpressions':[{'key':'a','operator':'in','values':['x']}"
        "]}}",
        "{'v':{'matchExpressions':[{'key':'','operator':'Exists'}]}}",
        "{'v':{'matchLabels':{'a':'b,c=d'}}}",
        "{'v':{'matchLabels':{'-a':'b'}}}",
        "{'v':{'matchLabels':{'a':'b '}}}",
        "{'v':{'matchLabels':{'a':"
        "'0123456789012345678901234567890123456789012345678901234567890123'"
        "}}}",
    };
    for (size_t i = 0; i < RW_ARRAY_LEN(refused); i++)
        cells_are(printer_cell_selector, refused[i], "[\"<error>\"]");
    /* LabelSelectorAsSelector(...).String() as printDeployment writes it. */
    cells_are(printer_cell_selector_string, "{}", "[\"\"]");
    cells_are(printer_cell_selector_string, "{'v':{'matchLabels':{'a':'b'}}}",
              "[\"a=b\"]");
    cells_are(printer_cell_selector_string, refused[0], "[\"<invalid>\"]");
}

static void test_cells(void **state)
{
    (void)state;
    cells_are(printer_cell_labels, "{'v':{'z':'1','a':'2','z':'3'}}",
              "[\"a=2,z=3\"]");
    cells_are(printer_cell_labels, "{'v':null}", "[\"<none>\"]");
    cells_are(printer_cell_containers,
              "{'v':[{'name':'a','image':'i:1'},{'name':'b'},{'image':'c'}]}",
              "[\"a,b,\",\"i:1,,c\"]");
    cells_are(printer_cell_containers, "{}", "[\"\",\"\"]");
    /* Quantities: String(); an absent ResourceList value is 0, an absent
     * pointer <nil>; numbers by their text; a value ParseQuantity refuses
     * as stored. */
    cells_are(list_quantity, "{'v':'1024Mi'}", "[\"1Gi\"]");
    cells_are(list_quantity, "{'v':'500u'}", "[\"1m\"]");
    cells_are(pointer_quantity, "{'v':'500u'}", "[\"500u\"]");
    cells_are(list_quantity, "{}", "[\"0\"]");
    cells_are(pointer_quantity, "{'v':null}", "[\"<nil>\"]");
    cells_are(pointer_quantity, "{'v':1000}", "[\"1k\"]");
    cells_are(pointer_quantity, "{'v':0.5}", "[\"500m\"]");
    cells_are(pointer_quantity, "{'v':'12 apples'}", "[\"12 apples\"]");
    cells_are(printer_cell_since, "{'v':'2024-01-02T02:59:05Z'}", "[\"5m\"]");
    cells_are(printer_cell_since, "{'v':'0001-01-01T00:00:00Z'}",
              "[\"<unknown>\"]");
    /* strings.TrimSpace: Unicode white space, not other characters. */
    cells_are(trimmed,
              "{'v':'\\u3000\\t\\u2002 a \\u00a0b\\u0085\\n\\u200a\\r'}",
              "[\"a \u00a0b\"]");
    cells_are(trimmed, "{'v':'\\u200bx\\u200b'}", "[\"\u200bx\u200b\"]");
}

/* ------------------------------------------------------------------ */
/* jval                                                                */
/* ------------------------------------------------------------------ */

static void test_jval(void **state)
{
    static const char json[] =
        "{\"a\":{\"b\":{\"c\":\"x\"}},\"a\":{\"b\":{\"c\":\"y\"}},\"n\":null,"
        "\"m\":{\"k\":1,\"l\":2,\"k\":3},\"s\":[1,2.9,-3],\"t\":true,"
        "\"big\":1e30}";
    struct jval *doc = jval_parse(json, strlen(json));
    struct jval *bad = jval_parse("{", 1);
    const struct jval *c;
    int64_t sum = 0;

    (void)state;
    assert_string_equal(jval_str(jval_path(doc, "a.b.c")), "y");
    assert_null(jval_get(doc, "n"));
    assert_null(jval_path(doc, "a.x.c"));
    assert_null(jval_get(jval_get(doc, "s"), "a"));
    assert_int_equal(jval_len(jval_get(doc, "m")), 2);
    assert_int_equal(jval_int(jval_get(jval_get(doc, "m"), "k")), 3);
    assert_int_equal(jval_len(jval_get(doc, "s")), 3);
    JVAL_EACH(c, jval_get(doc, "s"))
    sum += jval_int(c);
    assert_int_equal(sum, 0); /* 1 + 2 - 3: truncated toward zero */
    assert_null(jval_at(jval_get(doc, "s"), 3));
    assert_true(jval_true(jval_get(doc, "t")));
    assert_int_equal(jval_int(jval_get(doc, "big")), 0);
    assert_string_equal(jval_str(jval_get(doc, "t")), "");
    assert_int_equal(jval_len(jval_get(doc, "t")), 0);
    assert_true(jval_is_object(bad));
    assert_int_equal(jval_len(bad), 0);
    jval_free(doc);
    jval_free(bad);
    jval_free(NULL);
}

/* What the decoders (kjson_decode.c, ctoken.c) read through jval: a value
 * or NULL, members with null kept, types, counts with repeated members. */
static void test_jval_strict(void **state)
{
    static const char json[] = " {\"k\":1,\"n\":null,\"k\":\"s\",\"o\":{},"
                               "\"a\":[true,false]} ";
    struct jval *doc = jval_try_parse(json, strlen(json));
    struct jval *one = jval_try_parse("[1]", 3);
    const struct jval *a;

    (void)state;
    assert_non_null(doc);
    assert_int_equal(jval_type(doc), JVAL_OBJECT);
    assert_int_equal(jval_count(doc), 5); /* "k" twice */
    assert_int_equal(jval_len(doc), 4);
    assert_int_equal(jval_type(jval_member(doc, "kx", 1)), JVAL_STRING);
    assert_string_equal(jval_str(jval_member(doc, "k", 1)), "s");
    assert_int_equal(jval_type(jval_member(doc, "n", 1)), JVAL_NULL);
    assert_null(jval_get(doc, "n"));
    assert_int_equal(jval_type(jval_member(doc, "x", 1)), JVAL_NONE);
    assert_int_equal(jval_type(jval_member(doc, "o", 1)), JVAL_OBJECT);
    a = jval_member(doc, "a", 1);
    assert_int_equal(jval_type(a), JVAL_ARRAY);
    assert_int_equal(jval_count(a), 2);
    assert_int_equal(jval_type(jval_at(a, 0)), JVAL_TRUE);
    assert_int_equal(jval_type(jval_at(a, 1)), JVAL_FALSE);
    assert_int_equal(jval_type(jval_member(a, "a", 1)), JVAL_NONE);
    assert_int_equal(jval_count(jval_member(doc, "k", 1)), 0);
    assert_int_equal(jval_type(jval_at(one, 0)), JVAL_NUMBER);
    jval_free(one);
    jval_free(doc);
    assert_null(jval_try_parse("{", 1));
    assert_null(jval_try_parse("", 0));
    assert_null(jval_try_parse("nul", 3));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_selectors),
        cmocka_unit_test(test_cells),
        cmocka_unit_test(test_jval),
        cmocka_unit_test(test_jval_strict),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
