# test/daemon.mk: unit tests of the daemon's own modules, and the man page lint.
UNIT_TESTS += test/config_test
test_config_test_SOURCES = test/config_test.c test/option_doc.c test/option_doc.h \
	test/option_invalid.c test/option_invalid.h
test_config_test_CFLAGS = $(TEST_CFLAGS)
test_config_test_LDADD = $(TEST_LIBS)

TESTS += test/man_lint.sh
EXTRA_DIST += test/man_lint.sh

UNIT_TESTS += test/signals_test
test_signals_test_SOURCES = test/signals_test.c
test_signals_test_CFLAGS = $(TEST_CFLAGS)
test_signals_test_LDADD = $(TEST_LIBS)

# upstream_history_test feeds a recorder (src/upstream.h's feed).
UNIT_TESTS += test/upstream_history_test
test_upstream_history_test_SOURCES = test/upstream_history_test.c
test_upstream_history_test_CFLAGS = $(TEST_CFLAGS)
test_upstream_history_test_LDADD = $(TEST_LIBS)

# fresh_test drives the real src/fresh.c and src/resource.c with a stub
# upstream reader.
UNIT_TESTS += test/fresh_test
test_fresh_test_SOURCES = test/fresh_test.c
test_fresh_test_CFLAGS = $(TEST_CFLAGS)
test_fresh_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/upstream_registry_test
test_upstream_registry_test_SOURCES = test/upstream_registry_test.c
test_upstream_registry_test_CFLAGS = $(TEST_CFLAGS)
test_upstream_registry_test_LDADD = $(TEST_LIBS)
