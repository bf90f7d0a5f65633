# test/front.mk: the serving front (src/stream, listener, registry, outq,
# transport, conn_h1, h1_head, h1_req, conn_h2, h2_req, h2_body, h2_out,
# h2_guard).
UNIT_TESTS += test/stream_test
test_stream_test_SOURCES = test/stream_test.c
test_stream_test_CFLAGS = $(TEST_CFLAGS)
test_stream_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/listener_test
test_listener_test_SOURCES = test/listener_test.c
test_listener_test_CFLAGS = $(TEST_CFLAGS)
test_listener_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/registry_test
test_registry_test_SOURCES = test/registry_test.c
test_registry_test_CFLAGS = $(TEST_CFLAGS)
test_registry_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/outq_test
test_outq_test_SOURCES = test/outq_test.c
test_outq_test_CFLAGS = $(TEST_CFLAGS)
test_outq_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/transport_test
test_transport_test_SOURCES = test/transport_test.c
test_transport_test_CFLAGS = $(TEST_CFLAGS)
test_transport_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/h1_head_test
test_h1_head_test_SOURCES = test/h1_head_test.c
test_h1_head_test_CFLAGS = $(TEST_CFLAGS)
test_h1_head_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/h1_req_test
test_h1_req_test_SOURCES = test/h1_req_test.c
test_h1_req_test_CFLAGS = $(TEST_CFLAGS)
test_h1_req_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/h2_req_test
test_h2_req_test_SOURCES = test/h2_req_test.c
test_h2_req_test_CFLAGS = $(TEST_CFLAGS)
test_h2_req_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/h2_body_test
test_h2_body_test_SOURCES = test/h2_body_test.c
test_h2_body_test_CFLAGS = $(TEST_CFLAGS)
test_h2_body_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/h2_out_test
test_h2_out_test_SOURCES = test/h2_out_test.c
test_h2_out_test_CFLAGS = $(TEST_CFLAGS)
test_h2_out_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/h2_guard_test
test_h2_guard_test_SOURCES = test/h2_guard_test.c
test_h2_guard_test_CFLAGS = $(TEST_CFLAGS)
test_h2_guard_test_LDADD = $(TEST_LIBS)

# The front with test handlers, driven by real clients (curl, nghttp,
# h2load, raw sockets) in front_test.py.
check_PROGRAMS += test/front_server
test_front_server_SOURCES = test/front_server.c
test_front_server_CFLAGS = $(TEST_CFLAGS)
test_front_server_LDADD = $(TEST_LIBS)

TESTS += test/integration/front_test.py
EXTRA_DIST += test/integration/front_test.py
AM_TESTS_ENVIRONMENT += \
	FRONT_SERVER='$(abs_top_builddir)/test/front_server'; \
	export FRONT_SERVER;

UNIT_TESTS += test/fairness_test
test_fairness_test_SOURCES = test/fairness_test.c test/fake_stream.c \
	test/fake_stream.h
test_fairness_test_CFLAGS = $(TEST_CFLAGS)
test_fairness_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/review_body_test
test_review_body_test_SOURCES = test/review_body_test.c
test_review_body_test_CFLAGS = $(TEST_CFLAGS)
test_review_body_test_LDADD = $(TEST_LIBS)

UNIT_TESTS += test/tls_test
test_tls_test_SOURCES = test/tls_test.c
test_tls_test_CFLAGS = $(TEST_CFLAGS)
test_tls_test_LDADD = $(TEST_LIBS)
