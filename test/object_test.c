/*
 * object_test.c: immutable reference-counted objects (cache/object.c):
 * object_new's copies and defaults, labels sorted with duplicates resolved
 * (the last wins), object_with_rv's splice of the resourceVersion digits,
 * object_field, footprint, cached frames released with the object, and
 * views: one per format, found only at their stamp, replaced in place,
 * counted in the footprint, released with the object and not carried by
 * object_with_rv.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cache/object.h"
#include "cache/resource_type.h"
#include "cache/rw.h"

#define JSON_HEAD "{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\""
#define JSON_TAIL "\",\"uid\":\"u\"},\"data\":{\"k\":\"v\"}}"

/* An object at rv whose JSON is JSON_HEAD <rv> JSON_TAIL. */
static struct object *mkobj(int64_t rv, const struct label *labels,
                            size_t nlabels, const char *const *fields,
                            size_t nfields)
{
    char json[256];
    int n =
        snprintf(json, sizeof(json), JSON_HEAD "%lld" JSON_TAIL, (long long)rv);
    struct object_init in = {0};

    in.key = "/registry/pods/ns/a";
    in.key_len = strlen(in.key);
    in.rv = rv;
    in.ns = "ns";
    in.name = "a";
    in.created = "2024-01-02T03:04:05Z";
    in.labels = labels;
    in.nlabels = nlabels;
    in.fields = fields;
    in.nfields = nfields;
    in.json = rbuf_from(json, n);
    in.rv_off = strlen(JSON_HEAD);
    in.rv_len = n - strlen(JSON_HEAD) - strlen(JSON_TAIL);
    return object_new(&in);
}

static void test_new_copies(void **state)
{
    char key[] = "/registry/x/\0bin", name[] = "nm";
    static const char json[] = "{\"metadata\":{\"resourceVersion\":\"9\"}}";
    struct object_init in = {0};
    struct object *o;

    in.key = key;
    in.key_len = sizeof(key) - 1; /* a NUL inside the key */
    in.rv = 9;
    in.name = name;
    in.json = rbuf_from_str(json);
    in.rv_off = strlen("{\"metadata\":{\"resourceVersion\":\"");
    in.rv_len = 1;
    o = object_new(&in);
    name[0] = 'X'; /* the object holds copies */
    key[1] = 'X';
    assert_int_equal(o->refs, 1);
    assert_int_equal(o->rv, 9);
    assert_int_equal(o->key_len, sizeof(key) - 1);
    assert_memory_equal(o->key, "/registry/x/\0bin", sizeof(key));
    assert_string_equal(o->name, "nm");
    assert_string_equal(o->ns, "");      /* NULL means "" */
    assert_string_equal(o->created, ""); /* NULL means "" */
    assert_int_equal(o->nlabels, 0);
    assert_int_equal(o->nfields, 0);
    assert_string_equal(o->json->data, json);
    assert_memory_equal(o->json->data + o->rv_off, "9", o->rv_len);
    for (int t = 0; t < EVENT_TYPE_MAX; t++)
        assert_null(o->frames[t]);
    assert_ptr_equal(object_ref(o), o);
    assert_int_equal(o->refs, 2);
    object_unref(o);
    object_unref(o);
    object_unref(NULL);
    assert_null(object_ref(NULL));
}

static void test_labels(void **state)
{
    static const struct label in[] = {
        {"tier", "web"}, {"app", "x"},   {"b", "1"}, {"app", "y"},
        {"b", "2"},      {"a.io/z", ""}, {"b", "3"},
    };
    struct object *o = mkobj(5, in, RW_ARRAY_LEN(in), NULL, 0);

    assert_int_equal(o->nlabels, 4);
    assert_string_equal(o->labels[0].key, "a.io/z");
    assert_string_equal(o->labels[1].key, "app");
    assert_string_equal(o->labels[2].key, "b");
    assert_string_equal(o->labels[3].key, "tier");
    assert_string_equal(object_label(o, "app"), "y"); /* the last wins */
    assert_string_equal(object_label(o, "b"), "3");
    assert_string_equal(object_label(o, "a.io/z"), "");
    assert_string_equal(object_label(o, "tier"), "web");
    assert_null(object_label(o, "ap"));
    assert_null(object_label(o, "zzz"));
    assert_null(object_label(o, ""));
    object_unref(o);
}

static void test_fields(void **state)
{
    static const char *const fields[] = {"node1", NULL, "Running"};
    struct object *o = mkobj(5, NULL, 0, fields, 3);

    assert_int_equal(o->nfields, 3);
    assert_string_equal(object_field(o, FIELD_NAME), "a");
    assert_string_equal(object_field(o, FIELD_NAMESPACE), "ns");
    assert_string_equal(object_field(o, FIELD_EXTRA + 0), "node1");
    assert_string_equal(object_field(o, FIELD_EXTRA + 1), ""); /* NULL */
    assert_string_equal(object_field(o, FIELD_EXTRA + 2), "Running");
    assert_string_equal(object_field(o, FIELD_EXTRA + 3), ""); /* lacks it */
    assert_string_equal(object_field(o, -1), "");
    object_unref(o);
}

static void test_with_rv(void **state)
{
    static const struct label labels[] = {{"app", "x"}};
    static const char *const fields[] = {"node1"};
    struct object *o = mkobj(5, labels, 1, fields, 1);
    struct object *d = object_with_rv(o, 1234567);
    struct object *back = object_with_rv(d, 7);

    /* The original is untouched. */
    assert_int_equal(o->refs, 1);
    assert_string_equal(o->json->data, JSON_HEAD "5" JSON_TAIL);

    assert_int_equal(d->refs, 1);
    assert_int_equal(d->rv, 1234567);
    assert_string_equal(d->json->data, JSON_HEAD "1234567" JSON_TAIL);
    assert_int_equal(d->json->len, strlen(JSON_HEAD "1234567" JSON_TAIL));
    assert_int_equal(d->rv_off, o->rv_off);
    assert_int_equal(d->rv_len, 7);
    assert_string_equal(d->key, o->key);
    assert_int_equal(d->key_len, o->key_len);
    assert_string_equal(d->ns, "ns");
    assert_string_equal(d->name, "a");
    assert_string_equal(d->created, "2024-01-02T03:04:05Z");
    assert_string_equal(object_label(d, "app"), "x");
    assert_string_equal(object_field(d, FIELD_EXTRA), "node1");
    for (int t = 0; t < EVENT_TYPE_MAX; t++)
        assert_null(d->frames[t]);

    /* Shorter digits splice too. */
    assert_string_equal(back->json->data, JSON_HEAD "7" JSON_TAIL);
    assert_int_equal(back->rv_len, 1);
    object_unref(back);
    object_unref(d);
    object_unref(o);
}

static void test_footprint_and_frames(void **state)
{
    struct object *o = mkobj(5, NULL, 0, NULL, 0);
    size_t base = object_footprint(o);

    assert_true(base > o->json->len + sizeof(*o));
    o->frames[EVENT_ADDED] = rbuf_from_str("{\"type\":\"ADDED\"}\n");
    assert_int_equal(object_footprint(o),
                     base + rbuf_footprint(o->frames[EVENT_ADDED]));
    object_unref(o); /* frees the frame too (valgrind checks) */
}

static void test_views(void **state)
{
    struct object *o = mkobj(5, NULL, 0, NULL, 0), *copy;
    struct rbuf *a = rbuf_from_str("table at 100"), *b = rbuf_from_str("pom");
    struct rbuf *c = rbuf_from_str("table at 101, longer");
    size_t base = object_footprint(o);

    assert_null(object_view_get(o, 3, 100));
    object_view_put(o, 3, 100, a);
    object_view_put(o, 7, 0, b);
    assert_ptr_equal(object_view_get(o, 3, 100), a);
    assert_null(object_view_get(o, 3, 101)); /* another second: stale */
    assert_ptr_equal(object_view_get(o, 7, 0), b);
    assert_null(object_view_get(o, 4, 100));
    assert_int_equal(a->refs, 2);
    object_view_put(o, 3, 101, c); /* replaces a */
    assert_int_equal(a->refs, 1);
    assert_ptr_equal(object_view_get(o, 3, 101), c);
    assert_true(object_footprint(o) >=
                base + rbuf_footprint(b) + rbuf_footprint(c));
    copy = object_with_rv(o, 9);
    assert_null(copy->views);
    object_unref(copy);
    object_unref(o);
    assert_int_equal(b->refs, 1);
    assert_int_equal(c->refs, 1);
    rbuf_unref(a);
    rbuf_unref(b);
    rbuf_unref(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_copies),
        cmocka_unit_test(test_labels),
        cmocka_unit_test(test_fields),
        cmocka_unit_test(test_with_rv),
        cmocka_unit_test(test_footprint_and_frames),
        cmocka_unit_test(test_views),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
