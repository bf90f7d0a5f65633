# test/cache.mk: unit tests of cache/ (cmocka).  cache/ depends on nothing
# but libc, so its tests link cache/libcache.a alone and build even while
# src/ and proto/ are being written.
CACHE_TEST_LIBS = cache/libcache.a $(CMOCKA_LIBS)

UNIT_TESTS += test/store_test
test_store_test_SOURCES = test/store_test.c
test_store_test_CFLAGS = $(TEST_CFLAGS)
test_store_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/ring_test
test_ring_test_SOURCES = test/ring_test.c
test_ring_test_CFLAGS = $(TEST_CFLAGS)
test_ring_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/watchcache_test
test_watchcache_test_SOURCES = test/watchcache_test.c
test_watchcache_test_CFLAGS = $(TEST_CFLAGS)
test_watchcache_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/selector_test
test_selector_test_SOURCES = test/selector_test.c
test_selector_test_CFLAGS = $(TEST_CFLAGS)
test_selector_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/object_test
test_object_test_SOURCES = test/object_test.c
test_object_test_CFLAGS = $(TEST_CFLAGS)
test_object_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/resource_type_test
test_resource_type_test_SOURCES = test/resource_type_test.c
test_resource_type_test_CFLAGS = $(TEST_CFLAGS)
test_resource_type_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/dindex_test
test_dindex_test_SOURCES = test/dindex_test.c
test_dindex_test_CFLAGS = $(TEST_CFLAGS)
test_dindex_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/deadline_test
test_deadline_test_SOURCES = test/deadline_test.c
test_deadline_test_CFLAGS = $(TEST_CFLAGS)
test_deadline_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/rw_test
test_rw_test_SOURCES = test/rw_test.c
test_rw_test_CFLAGS = $(TEST_CFLAGS)
test_rw_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/utf8_test
test_utf8_test_SOURCES = test/utf8_test.c
test_utf8_test_CFLAGS = $(TEST_CFLAGS)
test_utf8_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/sbuf_test
test_sbuf_test_SOURCES = test/sbuf_test.c
test_sbuf_test_CFLAGS = $(TEST_CFLAGS)
test_sbuf_test_LDADD = $(CACHE_TEST_LIBS)

UNIT_TESTS += test/clock_test
test_clock_test_SOURCES = test/clock_test.c
test_clock_test_CFLAGS = $(TEST_CFLAGS)
test_clock_test_LDADD = $(CACHE_TEST_LIBS)
