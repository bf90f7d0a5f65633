/*
 * accept_test.c: content negotiation (proto/accept.c).
 *
 * The headers real clients send (kubectl's Table list, client-go's
 * metadata informers, protobuf clients with a JSON fallback, kubectl's
 * aggregated discovery); what each endpoint refuses (YAML, protobuf, CBOR,
 * unknown kinds, groups and versions, Table on a sendInitialEvents watch,
 * conversions on documents); goautoneg's parsing rules (case, quotes, '='
 * and '/' oddities, repeated parameters, q as ParseFloat reads it, q=0
 * kept, wildcards sorting after concrete types whatever their q); Go's
 * sort on long headers; go-restful's route check; the verbs' conversions;
 * /metrics.  The .c is included to reach parse_q.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/accept.c"

#define KUBECTL_TABLE                                                          \
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;"  \
    "v=v1beta1;g=meta.k8s.io,application/json"
#define TABLE_ONLY "application/json;as=Table;v=v1;g=meta.k8s.io"
#define KUBECTL_DISCOVERY                                                      \
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"    \
    "application/json;g=apidiscovery.k8s.io;v=v2beta1;as="                     \
    "APIGroupDiscoveryList,application/json"

/* Negotiates h on ep; fails unless the outcome is want (kind, beta) or,
 * with want_ok false, a refusal. */
static void expect(const char *h, enum accept_endpoint ep, bool want_ok,
                   enum accept_kind kind, bool beta)
{
    struct accept_choice c;
    bool ok = accept_negotiate(h, ep, &c);

    if (ok != want_ok)
        fail_msg("%s (endpoint %d): %s", h, ep, ok ? "accepted" : "refused");
    if (ok && (c.kind != kind || c.beta != beta))
        fail_msg("%s (endpoint %d): kind %d beta %d, want %d %d", h, ep, c.kind,
                 c.beta, kind, beta);
}

static void ok(const char *h, enum accept_endpoint ep, enum accept_kind kind,
               bool beta)
{
    expect(h, ep, true, kind, beta);
}

static void refused(const char *h, enum accept_endpoint ep)
{
    expect(h, ep, false, ACCEPT_OBJECT, false);
}

static void test_clients(void **state)
{
    /* No header, wildcards, plain JSON: the object. */
    ok(NULL, ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok("", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok(" \t", ACCEPT_RESOURCE, ACCEPT_OBJECT, false); /* net/http trims */
    ok("*/*", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok("application/*", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok("application/json", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok("application/json, */*", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    /* kubectl get: a v1 Table; on a sendInitialEvents watch, JSON. */
    ok(KUBECTL_TABLE, ACCEPT_RESOURCE, ACCEPT_TABLE, false);
    ok(KUBECTL_TABLE, ACCEPT_WATCH_LIST, ACCEPT_OBJECT, false);
    refused(TABLE_ONLY, ACCEPT_WATCH_LIST);
    ok("application/json;as=Table;v=v1beta1;g=meta.k8s.io", ACCEPT_RESOURCE,
       ACCEPT_TABLE, true);
    ok("*/*;as=Table;v=v1;g=meta.k8s.io", ACCEPT_RESOURCE, ACCEPT_TABLE, false);
    ok("application/*;as=Table;v=v1;g=meta.k8s.io", ACCEPT_RESOURCE,
       ACCEPT_TABLE, false);
    /* client-go metadata informers. */
    ok("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,"
       "application/json",
       ACCEPT_RESOURCE, ACCEPT_PARTIAL_LIST, false);
    ok("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,"
       "application/json",
       ACCEPT_WATCH_LIST, ACCEPT_PARTIAL, false);
    ok("application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1",
       ACCEPT_RESOURCE, ACCEPT_PARTIAL, true);
    /* Protobuf clients fall back to JSON; alone they get 406. */
    ok("application/vnd.kubernetes.protobuf,application/json", ACCEPT_RESOURCE,
       ACCEPT_OBJECT, false);
    ok("application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,"
       "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
       ACCEPT_RESOURCE, ACCEPT_TABLE, false);
    refused("application/vnd.kubernetes.protobuf", ACCEPT_RESOURCE);
    refused("application/yaml", ACCEPT_RESOURCE);
    refused("application/cbor", ACCEPT_RESOURCE);
    refused("text/html", ACCEPT_RESOURCE);
    refused("application/json;stream=watch;as=Table;v=v1;g=meta.k8s.io",
            ACCEPT_WATCH_LIST);
}

static void test_conversions(void **state)
{
    refused("application/json;as=Foo;v=v1;g=meta.k8s.io", ACCEPT_RESOURCE);
    refused("application/json;as=Table;v=v1;g=other", ACCEPT_RESOURCE);
    refused("application/json;as=Table;v=v2;g=meta.k8s.io", ACCEPT_RESOURCE);
    refused("application/json;as=Table", ACCEPT_RESOURCE);
    refused("application/json;v=v1", ACCEPT_RESOURCE); /* a conversion to "" */
    refused("application/json;g=meta.k8s.io;v=v1", ACCEPT_RESOURCE);
    refused("application/json;as=APIGroupDiscoveryList;g=apidiscovery.k8s.io;"
            "v=v2",
            ACCEPT_RESOURCE);
    /* A refused range lets the next one win. */
    ok("application/json;as=Foo;v=v1;g=meta.k8s.io, application/json",
       ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok("application/BOGUS, application/json", ACCEPT_RESOURCE, ACCEPT_OBJECT,
       false);
    /* Documents: no conversion; aggregated discovery only on /api, /apis. */
    refused(TABLE_ONLY, ACCEPT_DOCUMENT);
    ok(KUBECTL_TABLE, ACCEPT_DOCUMENT, ACCEPT_OBJECT, false);
    ok(KUBECTL_DISCOVERY, ACCEPT_AGGREGATED, ACCEPT_DISCOVERY, false);
    ok(KUBECTL_DISCOVERY, ACCEPT_DOCUMENT, ACCEPT_OBJECT, false);
    ok("application/json;g=apidiscovery.k8s.io;v=v2beta1;as="
       "APIGroupDiscoveryList",
       ACCEPT_AGGREGATED, ACCEPT_DISCOVERY, true);
    refused("application/json;g=apidiscovery.k8s.io;v=v3;as="
            "APIGroupDiscoveryList",
            ACCEPT_AGGREGATED);
    refused("application/json", ACCEPT_AGGREGATED);
    refused("", ACCEPT_AGGREGATED);
    /* stream, sv, pretty. */
    ok("application/json;stream=watch", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    refused("application/json;stream=other", ACCEPT_RESOURCE);
    ok("application/json;sv=v1", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    refused("application/json;sv=v2", ACCEPT_RESOURCE);
    refused("application/json;sv=v1", ACCEPT_DOCUMENT);
    ok("application/json; pretty=1;export=1;foo=bar", ACCEPT_RESOURCE,
       ACCEPT_OBJECT, false);
}

static void test_parsing(void **state)
{
    /* Case and quotes are kept. */
    refused("Application/JSON", ACCEPT_RESOURCE);
    refused("application/json;as=\"Table\";v=v1;g=meta.k8s.io",
            ACCEPT_RESOURCE);
    refused("application/json;AS=Table;v=v1;g=meta.k8s.io", ACCEPT_RESOURCE);
    /* Spaces are trimmed, tabs are not. */
    ok(" application/json ; as = Table ; v=v1;g=meta.k8s.io ", ACCEPT_RESOURCE,
       ACCEPT_TABLE, false);
    /* "\tas" is unknown: g and v alone ask for a conversion to "". */
    refused("application/json;\tas=Table;v=v1;g=meta.k8s.io", ACCEPT_RESOURCE);
    /* Ranges goautoneg drops or reads oddly. */
    refused("application", ACCEPT_RESOURCE);
    refused("application/", ACCEPT_RESOURCE);
    refused("application/json/x", ACCEPT_RESOURCE);
    ok("application/json/", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok("*", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok("*/", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    ok(",,application/json,", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    refused(",", ACCEPT_RESOURCE);
    refused("*/json", ACCEPT_RESOURCE);
    /* Parameters: no '=', empty values and "a=b=c" are dropped; the last
     * repeat wins. */
    refused("application/json;as=Table=x;v=v1;g=meta.k8s.io", ACCEPT_RESOURCE);
    ok("application/json;as=Table;v=v1;g=meta.k8s.io;as", ACCEPT_RESOURCE,
       ACCEPT_TABLE, false);
    ok("application/json;as=Table;v=v1;g=meta.k8s.io;as=", ACCEPT_RESOURCE,
       ACCEPT_TABLE, false);
    ok("application/json;as=Table;v=v1;g=meta.k8s.io;v=v1=", ACCEPT_RESOURCE,
       ACCEPT_TABLE, false);
    refused("application/json;as=Table;v=v1;g=meta.k8s.io;as=Foo",
            ACCEPT_RESOURCE);
    ok("application/json;as=Foo;as=Table;v=v1;g=meta.k8s.io", ACCEPT_RESOURCE,
       ACCEPT_TABLE, false);
    /* Commas split even inside quotes. */
    refused("application/json;as=\"Ta,ble\";v=v1;g=meta.k8s.io",
            ACCEPT_RESOURCE);
}

static void test_quality(void **state)
{
    ok(TABLE_ONLY ";q=0.5,application/json", ACCEPT_RESOURCE, ACCEPT_OBJECT,
       false);
    ok("application/json;q=0.5," TABLE_ONLY, ACCEPT_RESOURCE, ACCEPT_TABLE,
       false);
    ok("application/json;q=0.4," TABLE_ONLY ";q=0x1p-1", ACCEPT_RESOURCE,
       ACCEPT_TABLE, false);
    /* q=0 does not remove a range. */
    ok("application/json;q=0", ACCEPT_RESOURCE, ACCEPT_OBJECT, false);
    /* Unreadable q is 0. */
    ok(TABLE_ONLY ";q= 0.9,application/json;q=0.1", ACCEPT_RESOURCE,
       ACCEPT_OBJECT, false);
    /* A concrete type sorts before a wildcard whatever its q. */
    ok("*/*;q=0.9," TABLE_ONLY ";q=0.1", ACCEPT_RESOURCE, ACCEPT_TABLE, false);
    ok("application/*;q=0.9," TABLE_ONLY ";q=0.1", ACCEPT_RESOURCE,
       ACCEPT_TABLE, false);

    assert_true(parse_q((struct span){"0.5", 3}) == 0.5);
    assert_true(parse_q((struct span){"0.1", 3}) == (double)0.1f);
    assert_true(parse_q((struct span){"1e-1", 4}) == (double)0.1f);
    assert_true(parse_q((struct span){"0x1p-2", 6}) == 0.25);
    assert_true(parse_q((struct span){"1_0.5", 5}) == 10.5);
    assert_true(parse_q((struct span){".5", 2}) == 0.5);
    assert_true(parse_q((struct span){"5.", 2}) == 5);
    assert_true(parse_q((struct span){"+1", 2}) == 1);
    assert_true(isinf(parse_q((struct span){"Inf", 3})));
    assert_true(parse_q((struct span){"-infinity", 9}) < 0);
    assert_true(isinf(parse_q((struct span){"3.5e38", 6})));
    assert_true(isnan(parse_q((struct span){"NaN", 3})));
    static const char *const zero[] = {
        "",   ".",   "_1",   "1__0", "1_.5", "1_",  "+nan", " 0.5",  "0.5 ",
        "1e", "1e+", "1e_1", "0x1",  "0x",   "abc", "1..2", "infin", "0.5q",
    };
    for (size_t i = 0; i < RW_ARRAY_LEN(zero); i++)
        if (parse_q((struct span){zero[i], strlen(zero[i])}) != 0)
            fail_msg("q=%s should read 0", zero[i]);
    assert_true(parse_q((struct span){"1_0e1_0", 7}) == 1e11f);
}

/* More ranges than insertion sort handles: Go's pdqsort must still order
 * distinct qualities, whatever the input order. */
static void test_long_headers(void **state)
{
    for (unsigned seed = 1; seed <= 40; seed++) {
        struct sbuf h = {0};
        size_t n = 13 + seed * 7, winner = seed % n;

        srandom(seed);
        for (size_t i = 0; i < n; i++) {
            double q = i == winner ? 0.999 : (double)(random() % 900) / 1000.0;

            if (i == winner)
                sbuf_addf(&h, "%s%s;q=%.3f", i ? "," : "", TABLE_ONLY, q);
            else if (i % 5 == 0)
                sbuf_addf(&h, "%sapplication/json;q=%.3f", i ? "," : "", q);
            else
                sbuf_addf(&h, "%stext/x%zu;q=%.3f", i ? "," : "", i, q);
        }
        ok(h.data, ACCEPT_RESOURCE, ACCEPT_TABLE, false);
        sbuf_fini(&h);
    }
    /* Equal qualities, no wildcard: the order as sent. */
    {
        struct sbuf h = {0};

        for (int i = 0; i < 40; i++)
            sbuf_addf(&h, "text/x%d,", i);
        sbuf_add(&h, TABLE_ONLY ",application/json");
        ok(h.data, ACCEPT_RESOURCE, ACCEPT_TABLE, false);
        sbuf_fini(&h);
    }
}

static void test_route(void **state)
{
    static const char *const json[] = {"application/json", NULL};
    static const char *const watch[] = {"application/json",
                                        "application/json;stream=watch", NULL};
    char why[256];

    assert_true(accept_route(NULL, json, why, sizeof(why)));
    assert_true(accept_route("", json, why, sizeof(why)));
    assert_true(accept_route(KUBECTL_TABLE, json, why, sizeof(why)));
    assert_true(accept_route(TABLE_ONLY, json, why, sizeof(why)));
    assert_true(accept_route("text/html, */*;q=0.1", json, why, sizeof(why)));
    assert_true(accept_route(" application/json ;q=1", json, why, sizeof(why)));
    assert_false(accept_route("application/*", watch, why, sizeof(why)));
    assert_string_equal(why, "406: Not Acceptable\n\nAvailable "
                             "representations: application/json, "
                             "application/json;stream=watch");
    assert_false(accept_route("application/yaml", json, why, sizeof(why)));
    assert_false(accept_route("*/*x", json, why, sizeof(why)));
    assert_false(accept_route("Application/json", json, why, sizeof(why)));
}

static void test_convertible(void **state)
{
    const struct resource_type *pods = resource_type_find("pods");
    const struct resource_type *deps = resource_type_find("deployments");
    const struct resource_type *leases = resource_type_find("leases");
    struct accept_choice table = {ACCEPT_TABLE, false},
                         partial = {ACCEPT_PARTIAL, false},
                         plist = {ACCEPT_PARTIAL_LIST, true},
                         plain = {ACCEPT_OBJECT, false};
    char why[256];

    for (int v = ACCEPT_GET; v <= ACCEPT_WATCH; v++) {
        assert_true(accept_convertible(&table, v, pods, why, sizeof(why)));
        assert_true(accept_convertible(&plain, v, pods, why, sizeof(why)));
    }
    assert_true(accept_convertible(&partial, ACCEPT_GET, pods, why, 256));
    assert_true(accept_convertible(&partial, ACCEPT_WATCH, pods, why, 256));
    assert_true(accept_convertible(&plist, ACCEPT_LIST, pods, why, 256));
    assert_false(accept_convertible(&partial, ACCEPT_LIST, deps, why, 256));
    assert_string_equal(why, "you requested PartialObjectMetadata, but the "
                             "requested object is a list "
                             "(*apps.DeploymentList)");
    assert_false(accept_convertible(&plist, ACCEPT_GET, pods, why, 256));
    assert_string_equal(why, "you requested PartialObjectMetadataList, but the "
                             "requested object is not a list (*core.Pod)");
    assert_false(accept_convertible(&plist, ACCEPT_WATCH, leases, why, 256));
    assert_string_equal(why, "you requested PartialObjectMetadataList, but the "
                             "requested object is not a list "
                             "(*coordination.Lease)");
}

static void test_metrics(void **state)
{
    const char *proto = "application/vnd.google.protobuf;proto=io.prometheus."
                        "client.MetricFamily;encoding=delimited";
    char buf[512];

    assert_true(accept_metrics_text(NULL));
    assert_true(accept_metrics_text("application/json"));
    assert_true(accept_metrics_text("text/plain;version=0.0.4"));
    /* Prometheus' own header. */
    assert_true(accept_metrics_text(
        "application/openmetrics-text;version=1.0.0,application/"
        "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,"
        "*/*;q=0.1"));
    assert_false(accept_metrics_text(proto));
    snprintf(buf, sizeof(buf), "%s,text/plain;version=0.0.4;q=0.5", proto);
    assert_true(accept_metrics_text(buf));
    snprintf(buf, sizeof(buf), "%s,*/*;q=0.1", proto);
    assert_true(accept_metrics_text(buf));
    /* An unknown encoding is not protobuf to expfmt. */
    assert_true(accept_metrics_text("application/vnd.google.protobuf;proto=io."
                                    "prometheus.client.MetricFamily;"
                                    "encoding=other"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clients),      cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_parsing),      cmocka_unit_test(test_quality),
        cmocka_unit_test(test_long_headers), cmocka_unit_test(test_route),
        cmocka_unit_test(test_convertible),  cmocka_unit_test(test_metrics),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
