# test/fleet.mk: ringwatch-fleet's unit tests (one per module of
# src/fleet/) and its end-to-end smoke test against etcd and ringwatch.
FLEET_TEST_LIBS = src/fleet/libfleet.a $(TEST_LIBS)

UNIT_TESTS += test/fleet_options_test
test_fleet_options_test_SOURCES = test/fleet_options_test.c test/option_doc.c test/option_doc.h \
	test/option_invalid.c test/option_invalid.h
test_fleet_options_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_options_test_LDADD = $(FLEET_TEST_LIBS)

UNIT_TESTS += test/fleet_scan_test
test_fleet_scan_test_SOURCES = test/fleet_scan_test.c
test_fleet_scan_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_scan_test_LDADD = $(FLEET_TEST_LIBS)

UNIT_TESTS += test/fleet_histogram_test
test_fleet_histogram_test_SOURCES = test/fleet_histogram_test.c
test_fleet_histogram_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_histogram_test_LDADD = $(FLEET_TEST_LIBS)

UNIT_TESTS += test/fleet_keys_test
test_fleet_keys_test_SOURCES = test/fleet_keys_test.c
test_fleet_keys_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_keys_test_LDADD = $(FLEET_TEST_LIBS)

UNIT_TESTS += test/fleet_view_test
test_fleet_view_test_SOURCES = test/fleet_view_test.c
test_fleet_view_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_view_test_LDADD = $(FLEET_TEST_LIBS)

UNIT_TESTS += test/fleet_writer_test
test_fleet_writer_test_SOURCES = test/fleet_writer_test.c
test_fleet_writer_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_writer_test_LDADD = $(FLEET_TEST_LIBS)

# Includes src/fleet/watcher.c, verify.c and line_cache.c and fakes the
# oracle.
UNIT_TESTS += test/fleet_watcher_test
test_fleet_watcher_test_SOURCES = test/fleet_watcher_test.c
test_fleet_watcher_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_watcher_test_LDADD = $(FLEET_TEST_LIBS)

FLEET_INTEGRATION_TESTS = test/integration/fleet_smoke.py \
	test/integration/fleet_redis_test.py
TESTS += $(FLEET_INTEGRATION_TESTS)
EXTRA_DIST += $(FLEET_INTEGRATION_TESTS) test/integration/fleet_lib.py

UNIT_TESTS += test/fleet_churn_test
test_fleet_churn_test_SOURCES = test/fleet_churn_test.c
test_fleet_churn_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_churn_test_LDADD = $(FLEET_TEST_LIBS)

UNIT_TESTS += test/fleet_profile_test
test_fleet_profile_test_SOURCES = test/fleet_profile_test.c
test_fleet_profile_test_CFLAGS = $(TEST_CFLAGS)
test_fleet_profile_test_LDADD = $(FLEET_TEST_LIBS)

# --help and --version of the three programs (ringwatch, ringwatch-fleet,
# ringwatch-rawfan): one convention, src/config.c's config_program_parse.
TESTS += test/help_version.sh
EXTRA_DIST += test/help_version.sh
