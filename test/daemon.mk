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

# watch_key_test: the dispatch index keys of src/watch_key.c.
UNIT_TESTS += test/watch_key_test
test_watch_key_test_SOURCES = test/watch_key_test.c
test_watch_key_test_CFLAGS = $(TEST_CFLAGS)
test_watch_key_test_LDADD = $(TEST_LIBS)

# fresh_test drives the real src/fresh.c and src/resource.c with a fake
# upstream reader.
UNIT_TESTS += test/fresh_test
test_fresh_test_SOURCES = test/fresh_test.c test/fake_upstream.c \
	test/fake_upstream.h
test_fresh_test_CFLAGS = $(TEST_CFLAGS)
test_fresh_test_LDADD = $(TEST_LIBS)

# The serving core's unit tests: the real resource, cache and handlers
# against fake streams (test/fake_stream.[ch]) and, for the reads, a fake
# upstream reader (test/fake_upstream.[ch]).
CORE_TEST_SOURCES = test/fake_stream.c test/fake_stream.h \
	test/core_testlib.h test/json_testlib.h

UNIT_TESTS += test/watch_test
test_watch_test_SOURCES = test/watch_test.c $(CORE_TEST_SOURCES)
test_watch_test_CFLAGS = $(TEST_CFLAGS)
test_watch_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/resource_test
test_resource_test_SOURCES = test/resource_test.c $(CORE_TEST_SOURCES)
test_resource_test_CFLAGS = $(TEST_CFLAGS)
test_resource_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/list_test
test_list_test_SOURCES = test/list_test.c $(CORE_TEST_SOURCES) \
	test/fake_upstream.c test/fake_upstream.h
test_list_test_CFLAGS = $(TEST_CFLAGS)
test_list_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/write_meta_test
test_write_meta_test_SOURCES = test/write_meta_test.c
test_write_meta_test_CFLAGS = $(TEST_CFLAGS)
test_write_meta_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/router_test
test_router_test_SOURCES = test/router_test.c $(CORE_TEST_SOURCES)
test_router_test_CFLAGS = $(TEST_CFLAGS)
test_router_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/upstream_members_test
test_upstream_members_test_SOURCES = test/upstream_members_test.c
test_upstream_members_test_CFLAGS = $(TEST_CFLAGS)
test_upstream_members_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/upstream_registry_test
test_upstream_registry_test_SOURCES = test/upstream_registry_test.c
test_upstream_registry_test_CFLAGS = $(TEST_CFLAGS)
test_upstream_registry_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/discovery_json_test
test_discovery_json_test_SOURCES = test/discovery_json_test.c test/json_testlib.h
test_discovery_json_test_CFLAGS = $(TEST_CFLAGS)
test_discovery_json_test_LDADD = $(TEST_LIBS)

# authn_test: the authenticator with real keys and signatures made with the
# openssl command line, a fake clock, pod lookup and transport_peer.
# impersonate_test: the identity Impersonate-* fields make (no authorizer).
UNIT_TESTS += test/impersonate_test
test_impersonate_test_SOURCES = test/impersonate_test.c
test_impersonate_test_CFLAGS = $(TEST_CFLAGS)
test_impersonate_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/authn_test
test_authn_test_SOURCES = test/authn_test.c
test_authn_test_CFLAGS = $(TEST_CFLAGS)
test_authn_test_LDADD = $(TEST_LIBS)

# rbac_test: the RBAC evaluator and the RBAC object parse (src/rbac*.c).
UNIT_TESTS += test/rbac_test
test_rbac_test_SOURCES = test/rbac_test.c
test_rbac_test_CFLAGS = $(TEST_CFLAGS)
test_rbac_test_LDADD = $(TEST_LIBS)

# request_info_test: a request's authorization attributes, the 403 forms.
UNIT_TESTS += test/request_info_test
test_request_info_test_SOURCES = test/request_info_test.c
test_request_info_test_CFLAGS = $(TEST_CFLAGS)
test_request_info_test_LDADD = $(TEST_LIBS)

# redis_functions_test: the compiled-in Functions library is the .lua file.
UNIT_TESTS += test/redis_functions_test
test_redis_functions_test_SOURCES = test/redis_functions_test.c
test_redis_functions_test_CFLAGS = $(TEST_CFLAGS)
test_redis_functions_test_LDADD = $(TEST_LIBS)
